//! The frame of a function named where its source is (a JavaScript or Ruby profiler's call frame:
//! a name, a file, a line and a column): the file is its module, so that two functions of one name
//! in two files stay two, and the place is the fact of where it is defined
//! ([`crate::model::DEFINED_AT`], `file:line:column`, the first one met for a frame). A function
//! of no name is named by where it is defined, as speedscope names it (`(anonymous work.js:11)`).

use crate::model::{FrameId, FrameRef, Profile, DEFINED_AT};
use serde::Deserialize;
use std::borrow::Cow;

/// A call frame as V8 writes it (a `.cpuprofile`'s and a heap profile's `callFrame`): its line and
/// column 0-based, -1 where unknown; a function of no name named by its line and column.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallFrame {
    #[serde(default)]
    pub(crate) function_name: String,
    #[serde(default)]
    pub(crate) url: String,
    #[serde(default = "unknown")]
    pub(crate) line_number: i64,
    #[serde(default = "unknown")]
    pub(crate) column_number: i64,
}

/// A line or column V8 does not know.
fn unknown() -> i64 {
    -1
}

impl CallFrame {
    /// The frame's id in `profile` ([`SourceFrame::intern`]).
    pub(crate) fn intern(&self, profile: &mut Profile) -> FrameId {
        let source = SourceFrame {
            name: &self.function_name,
            file: (!self.url.is_empty()).then_some(self.url.as_str()),
            line: u32::try_from(self.line_number).ok().map(|line| u64::from(line) + 1),
            column: u32::try_from(self.column_number).ok().map(|column| u64::from(column) + 1),
        };
        source.intern(profile, Anonymous::ByLineAndColumn)
    }
}

/// A function as a profiler names it where its source is; the line and column 1-based.
pub(crate) struct SourceFrame<'a> {
    pub(crate) name: &'a str,
    /// The file, `None` where it has none (an empty URL).
    pub(crate) file: Option<&'a str>,
    pub(crate) line: Option<u64>,
    pub(crate) column: Option<u64>,
}

/// What a function of no name is named.
#[derive(Clone, Copy)]
pub(crate) enum Anonymous {
    /// By its file's name, line and column, `(anonymous work.js:11:5)` (V8's `.cpuprofile`: the
    /// callbacks of one script are as many functions as they are, two on one line two).
    ByLineAndColumn,
    /// By its file's name and line only, `(anonymous work.js:11)` (Safari's recordings, as
    /// speedscope names them).
    ByLine,
    /// As it is named in the file (a format whose writers name every function).
    AsWritten,
}

impl SourceFrame<'_> {
    /// The frame's id in `profile`, a function of no name named as `anonymous` says, with where it
    /// is defined as its fact where it has a file and a line.
    pub(crate) fn intern(&self, profile: &mut Profile, anonymous: Anonymous) -> FrameId {
        let id = profile.frames.intern(FrameRef { module: self.file, ..FrameRef::function(&self.name(anonymous)) });
        if let (Some(file), Some(line)) = (self.file, self.line) {
            let attrs = profile.frame_attrs.entry(id).or_default();
            if attrs.is_empty() {
                attrs.push((DEFINED_AT.to_string(), place(file, line, self.column)));
            }
        }
        id
    }

    /// The function's name, or for a function of no name what `anonymous` says.
    fn name(&self, anonymous: Anonymous) -> Cow<'_, str> {
        if !self.name.is_empty() {
            return Cow::Borrowed(self.name);
        }
        let column = match anonymous {
            Anonymous::AsWritten => return Cow::Borrowed(self.name),
            Anonymous::ByLineAndColumn => self.column,
            Anonymous::ByLine => None,
        };
        match (self.file, self.line) {
            (Some(file), Some(line)) => Cow::Owned(anonymous_name(file, line, column)),
            _ => Cow::Borrowed(ANONYMOUS),
        }
    }
}

/// The name of a function of no name and no known place.
pub(crate) const ANONYMOUS: &str = "(anonymous)";

/// The name of an anonymous function defined at `line` and `column` of `file` (a path or URL):
/// the file's name and the place, `(anonymous work.js:11:5)`, or `(anonymous work.js:11)` without
/// a column.
pub(crate) fn anonymous_name(file: &str, line: u64, column: Option<u64>) -> String {
    let file = file.rsplit('/').next().unwrap_or(file);
    format!("(anonymous {})", place(file, line, column))
}

/// `file:line:column`, or `file:line` without a column.
fn place(file: &str, line: u64, column: Option<u64>) -> String {
    match column {
        Some(column) => format!("{file}:{line}:{column}"),
        None => format!("{file}:{line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metric;

    #[test]
    fn a_function_of_no_name_is_named_by_its_place() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        let frame = |name, column| SourceFrame { name, file: Some("http://x/a.js"), line: Some(3), column };
        let mut name = |frame: SourceFrame<'_>, anonymous| {
            let id = frame.intern(&mut profile, anonymous);
            (profile.frames.get(id).name.clone(), profile.frame_attr(id, DEFINED_AT).map(str::to_string))
        };
        assert_eq!(name(frame("", Some(5)), Anonymous::ByLineAndColumn).0, "(anonymous a.js:3:5)");
        assert_eq!(
            name(frame("", Some(7)), Anonymous::ByLine),
            ("(anonymous a.js:3)".into(), Some("http://x/a.js:3:7".into()))
        );
        assert_eq!(name(frame("f", None), Anonymous::ByLine), ("f".into(), Some("http://x/a.js:3".into())));
        assert_eq!(
            name(SourceFrame { name: "", file: None, line: None, column: None }, Anonymous::ByLine).0,
            ANONYMOUS
        );
    }
}
