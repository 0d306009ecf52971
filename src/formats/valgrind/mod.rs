//! Valgrind's heap profilers' files, read only: DHAT's JSON (`dhat`) and massif's text
//! ([`massif`]). Both name code as valgrind describes an address (`CodeAddress`); callgrind, whose
//! files name functions and files apart, has its own module.

pub(crate) mod dhat;
pub mod massif;

use crate::model::{FrameId, FrameKind, FrameRef, Profile};

/// A code address as valgrind describes it: `0x109190: buffer (work.c:7)`,
/// `0x48417B4: malloc (in /usr/lib/x.so)`, `0x401AB77: ??? (in /usr/lib/ld.so)`.
#[derive(Debug, PartialEq)]
struct CodeAddress<'a> {
    address: Option<&'a str>,
    name: &'a str,
    /// The source file, or without one the object the code is in.
    module: Option<&'a str>,
    line: Option<u32>,
}

impl<'a> CodeAddress<'a> {
    /// The parts of `text`; what is not of this form is a name (the whole text).
    fn parse(text: &'a str) -> CodeAddress<'a> {
        let (address, rest) = match text.split_once(": ") {
            Some((address, rest)) if address.starts_with("0x") => (Some(address), rest),
            _ => (None, text),
        };
        let within = rest.strip_suffix(')').and_then(|rest| rest.rsplit_once(" ("));
        let (name, module, line) = match within {
            Some((name, place)) => match place.strip_prefix("in ") {
                Some(object) => (name, Some(object), None),
                None => match place.rsplit_once(':').and_then(|(file, line)| Some((file, line.parse().ok()?))) {
                    Some((file, line)) => (name, Some(file), Some(line)),
                    None => (rest, None, None),
                },
            },
            None => (rest, None, None),
        };
        // Code of no symbol is told apart by its address, as valgrind's `???` would merge it.
        let name = match (name, address) {
            ("???", Some(address)) => address,
            _ => name,
        };
        CodeAddress { address, name, module, line }
    }

    /// Its frame in `profile`, a source line where the file is known, else a function, with its
    /// address as the fact `address_key` where it is the first one met of the frame.
    fn intern(&self, profile: &mut Profile, address_key: &str) -> FrameId {
        let kind = if self.line.is_some() { FrameKind::Line } else { FrameKind::Function };
        let frame = FrameRef { name: self.name, module: self.module, line: self.line, clause: None, kind };
        let id = profile.frames.intern(frame);
        if let Some(address) = self.address {
            let attrs = profile.frame_attrs.entry(id).or_default();
            if attrs.is_empty() {
                attrs.push((address_key.into(), address.into()));
            }
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_parsed_as_valgrind_describes_them() {
        let frame = CodeAddress::parse;
        assert_eq!(
            frame("0x109190: buffer (work.c:7)"),
            CodeAddress { address: Some("0x109190"), name: "buffer", module: Some("work.c"), line: Some(7) }
        );
        assert_eq!(
            frame("0x48417B4: malloc (in /usr/lib/x.so)"),
            CodeAddress { address: Some("0x48417B4"), name: "malloc", module: Some("/usr/lib/x.so"), line: None }
        );
        assert_eq!(frame("0x401AB77: ??? (in /lib/ld.so)").name, "0x401AB77");
        assert_eq!(frame("0x4: f(int) const (a.cc:3)").name, "f(int) const");
        assert_eq!(frame("0x4: (anonymous namespace)::g (a.cc:3)").name, "(anonymous namespace)::g");
        assert_eq!(frame("0x4: ???"), CodeAddress { address: Some("0x4"), name: "0x4", module: None, line: None });
    }
}
