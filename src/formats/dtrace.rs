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

use super::kit::lines::{self, FramesByText, OpenStack, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::rust_symbols;
use super::spec::{whole_lines, Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::text::Line;
use std::borrow::Cow;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "dtrace",
    description: "DTrace stack aggregations (`@[ustack()] = count()`), the stacks `inferno-collapse-dtrace` makes",
    extensions: &["dtrace", "stacks"],
    carries: Carries::STACKS_OF_SAMPLES,
    reads: Some(Reads::text(sniff, lines::read::<Aggregation>)),
    writes: None,
};

/// What a line inside the stacks should be.
const STACK_LINE: &str = "a frame (module`function+offset) or the count that ends a stack";

/// `Yes` when, after the header's blank line, frame lines (with a backtick, or a bare `0x` address)
/// end in a count, as inferno tells the format; `Maybe` when the head ends among such frames.
fn sniff(head: &[u8]) -> Sniff {
    // A head cut inside a line: that line is not judged.
    let stack_lines = whole_lines(head).lines().map(str::trim).skip_while(|line| !line.is_empty());
    let mut lines = stack_lines.filter(|line| !line.is_empty()).peekable();
    let frames = std::iter::from_fn(|| lines.next_if(|line| is_frame(line))).count();
    match (frames, lines.next()) {
        (0, _) => Sniff::No,
        (_, None) => Sniff::Maybe,
        (_, Some(after)) => Sniff::yes_if(crate::text::is_digits(after)),
    }
}

/// Whether a line is a frame: with a backtick, or an address without a symbol, `0xfffffffffb8001d6`.
fn is_frame(line: &str) -> bool {
    let is_bare_address = |hex: &str| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    line.contains('`') || line.strip_prefix("0x").is_some_and(is_bare_address)
}

/// The grammar of a DTrace aggregation: past the header yet, the stack being read (innermost
/// first), and the frames of each distinct frame line, root first, as [`frames_of`] names them.
#[derive(Default)]
struct Aggregation {
    past_header: bool,
    stack: OpenStack,
    frames_of_line: FramesByText,
}

impl StackLines for Aggregation {
    const FORMAT: FormatName = SPEC.format_name();
    // DTrace ends every line: a last line without its end (in a frame's indentation, in a count's
    // digits) was cut there.
    const LAST_LINE_CUT: Option<&'static str> = Some("the stack it is in, or its count, may be incomplete");
    const MISSING: Option<Missing> =
        Some(Missing { expected: STACK_LINE, found: "no stack in the whole input (only header lines)" });

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        let text = line.text.trim();
        if !self.past_header || text.is_empty() {
            self.past_header |= text.is_empty();
            return Ok(());
        }
        if crate::text::is_digits(text) {
            let count = lines::count(line, text, "a stack's count")?;
            match self.stack.close() {
                [] => sink.leave_out(&NO_STACK, Some(line.position), count),
                frames => sink.add(Order::LeafFirst, frames.iter().copied(), 0, count),
            }
            return Ok(());
        }
        let frames = self.frames_of_line.get(text, sink, frames_of);
        self.stack.push(line.position, frames.iter().rev().copied());
        Ok(())
    }

    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        self.stack.unclosed(sink, last, "the count that ends the stack")
    }
}

/// Count lines with no frame above them.
static NO_STACK: Reason = Reason::new("empty-stack", |stacks, samples| {
    format!("{stacks} count line(s) with no frame above them skipped: {samples} samples of no stack")
});

/// The frames a frame line names, root first (several for a JIT frame of inlined calls), as
/// inferno names them (see the module documentation).
fn frames_of(line: &str) -> Vec<String> {
    let frame = without_cpp_arguments(line.rfind('+').map_or(line, |plus| &line[..plus]));
    let frame = if frame.is_empty() { Cow::Borrowed("-") } else { rust_symbols::tidy_after_module(frame) };
    if !frame.contains("->") {
        return vec![frame.replace(';', ":")];
    }
    // A JIT frame of inlined calls, `a->b->c`: the inlined ones suffixed, without a Java type's `L`.
    let names = frame.split("->").map(|called| called.trim_start_matches('L').replace(';', ":"));
    names.enumerate().map(|(at, name)| if at == 0 { name } else { name + "_[i]" }).collect()
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
