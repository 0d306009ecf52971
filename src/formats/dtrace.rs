//! DTrace stack aggregations: what `dtrace` prints for `@[stack()] = count()` or
//! `@[ustack()] = count()` (illumos, FreeBSD, macOS; `profile-997` sampling), the input of
//! `inferno-collapse-dtrace` and FlameGraph's `stackcollapse.pl` (read only).
//!
//! ```text
//! CPU     ID                    FUNCTION:NAME
//!   0  64091                        :tick-60s
//!
//!
//!               libc.so.1`_lwp_park+0x15
//!               libc.so.1`cond_wait_queue+0x4a
//!               a.out`main+0x2a
//!                42
//!
//!               unix`0xfffffffffb8001d6
//!                 1
//! ```
//!
//! **Grammar**: header lines up to the first blank line (the probe dtrace printed them for), then
//! stacks: frame lines, innermost first, each ended by a line holding only the stack's count; blank
//! lines between them. A frame is ``module`function+offset`` (``module`0xADDR`` or a bare `0xADDR`
//! where there is no symbol); leading and trailing space is not part of it.
//!
//! **Model**, as `inferno-collapse-dtrace` collapses the same file: each stack adds its count to
//! the `samples` of its path, root first. A frame is named as DTrace prints it without its
//! `+offset` (the module stays in the name, ``libc.so.1`_lwp_park``, as inferno keeps it); a C++
//! name loses its argument list or template arguments after the last `(` or `<` following its
//! first `::`; a Rust symbol left half demangled is tidied ([`super::rust_symbols`]); `;` becomes
//! `:`. A JIT frame naming inlined calls, `a->b->c`, is three frames, the inlined ones suffixed
//! `_[i]` and each without a Java type's leading `L`. An empty name is `-`.
//!
//! **Errors**: a count too large for a count, and an input that ends inside a stack (cut short),
//! at their line; an input without a stack is refused. A count with no frame above it is skipped,
//! with a warning that counts its samples.
//!
//! **Lost**: offsets and the header (the probe).

use super::rust_symbols;
use super::spec::{Carries, Reads, Sniff, Spec};
use super::stacks::StackTree;
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::model::{FrameId, FrameRef, Metric, Profile, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "dtrace",
    description: "DTrace stack aggregations (`@[ustack()] = count()`), the stacks `inferno-collapse-dtrace` makes",
    extensions: &["dtrace", "stacks"],
    carries: Carries::STACKS_OF_SAMPLES,
    reads: Some(Reads::text(sniff, |input, _, diag| read(input, diag).map_err(Error::from))),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a line inside the stacks should be.
const STACK_LINE: &str = "a frame (module`function+offset) or the count that ends a stack";

/// `Yes` when, after the header's blank line, frame lines (with a backtick, or a bare `0x` address)
/// end in a count, as inferno tells the format; `Maybe` when the head ends among such frames.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    // A head cut inside a line: that line is not judged.
    let whole_lines =
        if head.len() < crate::files::HEAD_LEN { text } else { text.rsplit_once('\n').map_or("", |(whole, _)| whole) };
    let mut lines = whole_lines.lines().map(str::trim).skip_while(|line| !line.is_empty());
    let mut frames = false;
    for line in lines.by_ref().filter(|line| !line.is_empty()) {
        if is_count(line) {
            return if frames { Sniff::Yes } else { Sniff::No };
        }
        if !(line.contains('`') || is_bare_address(line)) {
            return Sniff::No;
        }
        frames = true;
    }
    if frames {
        Sniff::Maybe
    } else {
        Sniff::No
    }
}

/// Whether a trimmed line is a count: digits alone.
fn is_count(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a frame is an address without a symbol, `0xfffffffffb8001d6`.
fn is_bare_address(line: &str) -> bool {
    line.strip_prefix("0x").is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Reads a DTrace aggregation of stacks (see the module documentation).
fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut profile = Profile::new(vec![Metric::samples()]);
    let mut stacks = StackTree::default();
    // The frames of each distinct frame line, root first, as `frames_of` names them.
    let mut frames_of_line: HashMap<String, Vec<FrameId>> = HashMap::new();
    // The stack being read, innermost first, and where it starts.
    let mut stack: Vec<FrameId> = Vec::new();
    let mut stack_start: Option<Position> = None;
    let mut last_line = Position::line(1, 0);
    let (mut in_header, mut any_stack) = (true, false);
    // Count lines with no frame above them: how many, their samples, and where the first is.
    let (mut empty_stacks, mut empty_samples, mut first_empty) = (0u64, 0u64, None);
    crate::text::pipeline(
        input,
        FORMAT,
        |_| (),
        |line, ()| {
            let text = line.text.trim();
            last_line = line.position;
            // DTrace ends every line: a last line without its end (in a frame's indentation, in a
            // count's digits) was cut there.
            line.warn_if_cut_short("the stack it is in, or its count, may be incomplete", diag);
            if in_header {
                in_header = !text.is_empty();
                return Ok(());
            }
            if text.is_empty() {
                return Ok(());
            }
            if is_count(text) {
                let count = text.parse::<i64>().map_err(|_| {
                    let expected = format!("a stack's count, at most {}", i64::MAX);
                    line.error(ParseErrorKind::Unexpected { expected, found: text.into() })
                })?;
                if stack.is_empty() {
                    empty_stacks += 1;
                    empty_samples = empty_samples.saturating_add(count as u64);
                    first_empty.get_or_insert(line.position);
                    return Ok(());
                }
                let path = stacks.next();
                path.extend(stack.iter().rev());
                if let Some(leaf) = stacks.add(&mut profile.tree) {
                    profile.tree.add_self(0, leaf, Value::Int(count));
                }
                (any_stack, stack_start) = (true, None);
                stack.clear();
                return Ok(());
            }
            stack_start.get_or_insert(line.position);
            let frames = match frames_of_line.get(text) {
                Some(frames) => frames,
                None => {
                    let names = frames_of(text);
                    let frames = names.iter().map(|name| profile.frames.intern(FrameRef::function(name))).collect();
                    frames_of_line.entry(text.to_string()).or_insert(frames)
                }
            };
            stack.extend(frames.iter().rev());
            Ok(())
        },
    )?;
    if let Some(start) = stack_start {
        let found = "the end of the input: the file looks cut short".to_string();
        let expected = format!("the count that ends the stack starting at line {}", start.line.unwrap_or(0));
        let kind = ParseErrorKind::Unexpected { expected, found };
        return Err(ParseError { format: FORMAT, position: last_line, kind });
    }
    if !any_stack {
        let found = "no stack in the whole input (only header lines)".to_string();
        let kind = ParseErrorKind::Unexpected { expected: STACK_LINE.into(), found };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    }
    if empty_stacks > 0 {
        diag.warn("empty-stack", first_empty, || {
            format!(
                "{empty_stacks} count line(s) with no frame above them skipped: {empty_samples} samples of no stack"
            )
        });
    }
    Ok(profile)
}

/// The frames a frame line names, root first (several for a JIT frame of inlined calls), as
/// inferno names them (see the module documentation).
fn frames_of(line: &str) -> Vec<String> {
    let frame = line.rfind('+').map_or(line, |plus| &line[..plus]);
    let frame = without_cpp_arguments(frame);
    let frame: Cow<'_, str> = match frame {
        "" => Cow::Borrowed("-"),
        _ => tidy_rust(frame),
    };
    if !frame.contains("->") {
        return vec![frame.replace(';', ":")];
    }
    frame
        .split("->")
        .enumerate()
        .map(|(at, called)| {
            let name = called.trim_start_matches('L').replace(';', ":");
            if at == 0 {
                name
            } else {
                name + "_[i]"
            }
        })
        .collect()
}

/// A C++ name without what follows the last `(` or `<` after its first `::`: its argument list or
/// template arguments.
fn without_cpp_arguments(frame: &str) -> &str {
    let Some(scope) = frame.find("::") else {
        return frame;
    };
    match frame[scope + 2..].rfind(['(', '<']) {
        Some(open) => &frame[..scope + 2 + open],
        None => frame,
    }
}

/// ``module`symbol`` with a half-demangled Rust symbol tidied.
fn tidy_rust(frame: &str) -> Cow<'_, str> {
    let Some((module, symbol)) = frame.split_once('`') else {
        return Cow::Borrowed(frame);
    };
    match rust_symbols::tidy(symbol.trim_end()) {
        Cow::Owned(symbol) => Cow::Owned(format!("{module}`{symbol}")),
        Cow::Borrowed(_) => Cow::Borrowed(frame),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames named as inferno-collapse-dtrace names them (its tests' cases).
    #[test]
    fn frames_lose_offsets_and_arguments_and_split_inlined_calls() {
        assert_eq!(frames_of("libc.so.1`_lwp_park+0x15"), ["libc.so.1`_lwp_park"]);
        assert_eq!(frames_of("unix`0xfffffffffb8001d6"), ["unix`0xfffffffffb8001d6"]);
        assert_eq!(frames_of("0xfffffffffb8001d6"), ["0xfffffffffb8001d6"]);
        assert_eq!(frames_of("test`foo->bar"), ["test`foo", "bar_[i]"]);
        assert_eq!(frames_of("a.out`ns::f(int, char)+0x1a"), ["a.out`ns::f"]);
        assert_eq!(frames_of("+0x10"), ["-"]);
        assert_eq!(frames_of("rg`rg::main::h6909bd3a32e27a08+0x22"), ["rg`rg::main"]);
        assert_eq!(frames_of("a`f;g+0x1"), ["a`f:g"]);
    }

    #[test]
    fn the_format_is_told_by_frames_that_end_in_a_count() {
        let file = "CPU     ID                    FUNCTION:NAME\n  0  64091   :tick-60s\n\n\n   unix`f+0x1\n   unix`g+0x2\n    3\n";
        assert_eq!(sniff(file.as_bytes()), Sniff::Yes);
        assert_eq!(sniff(&file.as_bytes()[..84]), Sniff::Maybe);
        assert_eq!(sniff(b"main;work 3\n\nmain 4\n"), Sniff::No);
        assert_eq!(sniff(b"header\n\n   3\n"), Sniff::No);
    }
}
