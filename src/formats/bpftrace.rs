//! bpftrace stack maps: what `bpftrace` prints at exit for `@[kstack] = count()`,
//! `@[ustack] = count()` or `@[ustack, comm] = count()` (Linux; `profile:hz:99` sampling), the input
//! of FlameGraph's `stackcollapse-bpftrace.pl` (read only).
//!
//! ```text
//! Attaching 1 probe...
//! ^C
//!
//! @[
//!     native_safe_halt+14
//!     default_idle+10
//!     do_idle+371
//! ]: 272
//! @[
//!     work+20
//!     main+35
//! , prog]: 5
//! ```
//!
//! **Grammar**: lines outside a map entry are skipped (`Attaching 1 probe...`, other maps). An
//! entry of a stack is `@[` (or `@NAME[`) alone on a line, its frames innermost first, one a line,
//! and `]: COUNT`, with the key's other fields before the `]` where the stack comes first
//! (`, prog]: 5`). An entry of one line whose key starts with an empty stack, `@[, prog]: 5`, is a
//! stack of its other fields.
//!
//! **Model**, as `stackcollapse-bpftrace.pl` collapses the same file: each entry adds its count to
//! the `samples` of its path, root first; the key's other fields (`prog`) are the root frame.
//! Frames are named as bpftrace prints them without the leading space and the `+OFFSET` after the
//! symbol (`leaf+53` is `leaf`), as inferno's collapsers of DTrace and perf drop offsets: FlameGraph's
//! script keeps them, which splits a function into a frame for each place in it.
//!
//! **Errors**: an entry's count that is not a count, and an input that ends inside an entry (cut
//! short), at their line; an input without an entry of a stack is refused.
//!
//! **Lost**: offsets, map names, and maps of no stack. Entries of an empty stack (`@[]: 996`: a kernel
//! stack of samples taken in user space) are left out, as FlameGraph leaves them out, with a
//! warning that counts their samples.

use super::kit::lines::{self, OpenStack, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::model::{FrameId, FrameRef};
use crate::text::Line;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "bpftrace",
    description:
        "bpftrace stack maps (`@[kstack] = count()`), the stacks `stackcollapse-bpftrace.pl` makes, offsets dropped",
    extensions: &["bpftrace"],
    carries: Carries::STACKS_OF_SAMPLES,
    reads: Some(Reads::text(sniff, lines::read::<Maps>)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// `Yes` when a line opens a map entry of a stack (`@[` or `@NAME[` alone) and a later one closes
/// it (`]: COUNT`); `Maybe` when the head ends inside the entry.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    let mut lines = text.lines().skip_while(|line| !opens_entry(line)).skip(1);
    if !text.lines().any(opens_entry) {
        return Sniff::No;
    }
    match lines.find_map(closing) {
        Some(_) => Sniff::Yes,
        None => Sniff::Maybe,
    }
}

/// Whether a line opens an entry whose key starts with a stack: `@[` or `@NAME[` alone.
fn opens_entry(line: &str) -> bool {
    line.strip_prefix('@')
        .and_then(|rest| rest.strip_suffix('['))
        .is_some_and(|name| name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// A line that closes an entry, `]: 5` or `, prog]: 5`: the key's fields after the stack (without
/// the comma and one space) and the count's text.
fn closing(line: &str) -> Option<(&str, &str)> {
    let (key, count) = line.rsplit_once("]: ")?;
    if !crate::text::is_digits(count) {
        return None;
    }
    let key = key.strip_prefix(',').unwrap_or(key);
    Some((key.strip_prefix(' ').unwrap_or(key), count))
}

/// The grammar of bpftrace's maps: the entry being read, its frames innermost first.
#[derive(Default)]
struct Maps(OpenStack);

/// Entries of an empty stack (`@[]: 996`, samples in user space of a kernel stack).
static EMPTY_STACK: Reason = Reason::new("empty-stack", |_, samples| {
    format!("{samples} samples of an empty stack (`@[]: N`: in user space, for a kernel stack) left out, as stackcollapse-bpftrace.pl leaves them out")
});

impl StackLines for Maps {
    const FORMAT: FormatName = FORMAT;
    // bpftrace ends every line: a last line without its end (`@[]: ` without its count, a count's
    // first digits) was cut there.
    const LAST_LINE_CUT: Option<&'static str> = Some("its entry's count may be incomplete or missing");
    const MISSING: Option<Missing> = Some(Missing::anywhere("a map entry of a stack: `@[`, its frames, and `]: COUNT`"));

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        if !self.0.is_open() {
            if opens_entry(line.text) {
                self.0.open(line.position);
            } else if let Some(count) = empty_entry(line.text) {
                sink.leave_out(&EMPTY_STACK, Some(line.position), count);
            } else if let Some(rest) = line.text.strip_prefix("@[").filter(|rest| rest.starts_with(", ")) {
                // A key whose stack is empty: the stack of its other fields.
                if let Some((key, count)) = closing(rest) {
                    add(key, &[], count, line, sink)?;
                }
            }
            return Ok(());
        }
        if let Some((key, count)) = closing(line.text) {
            return add(key, self.0.close(), count, line, sink);
        }
        self.0.push(line.position, [sink.frame(FrameRef::function(without_offset(line.text.trim())))]);
        Ok(())
    }

    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        self.0.unclosed(sink, last, "the `]: COUNT` line that ends the entry")
    }
}

/// Adds an entry's `count` to its stack: `frames`, innermost first, below the key's other fields
/// (`root`), if any.
fn add(root: &str, frames: &[FrameId], count: &str, line: &Line<'_>, sink: &mut StackSink) -> Result<(), ParseError> {
    let count = lines::count(line, count, "an entry's count")?;
    let root = (!root.is_empty()).then(|| sink.frame(FrameRef::function(root)));
    sink.add(Order::LeafFirst, frames.iter().copied().chain(root), 0, count);
    Ok(())
}

/// A frame without the decimal `+OFFSET` bpftrace ends a symbol with (`leaf+53`); a frame with
/// no symbol (`0x7f3df2af2ad7`) as it is.
fn without_offset(frame: &str) -> &str {
    match frame.rsplit_once('+') {
        Some((symbol, offset)) if !symbol.is_empty() && crate::text::is_digits(offset) => symbol,
        _ => frame,
    }
}

/// The count of an entry of an empty stack alone, `@[]: 996` (or `@NAME[]: 996`).
fn empty_entry(line: &str) -> Option<u64> {
    let (map, count) = line.strip_prefix('@')?.split_once("[]: ")?;
    map.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_').then(|| count.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_lose_their_offsets() {
        assert_eq!(without_offset("leaf+53"), "leaf");
        assert_eq!(without_offset("finish_task_switch.isra.0+423"), "finish_task_switch.isra.0");
        assert_eq!(without_offset("0x7f3df2af2ad7"), "0x7f3df2af2ad7");
        assert_eq!(without_offset("operator+"), "operator+");
        assert_eq!(without_offset("+12"), "+12");
    }

    #[test]
    fn a_closing_line_gives_the_keys_other_fields_and_the_count() {
        assert_eq!(closing("]: 272"), Some(("", "272")));
        assert_eq!(closing(", prog]: 5"), Some(("prog", "5")));
        assert_eq!(closing("    work+20"), None);
        assert_eq!(closing("]: x"), None);
    }
}
