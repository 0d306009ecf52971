//! macOS `sample` text: the report `sample PID` (and Activity Monitor's "Sample Process") writes,
//! the input of `inferno-collapse-sample` and FlameGraph's `stackcollapse-sample.awk` (read only).
//!
//! ```text
//! Analysis of sampling walk (pid 4242) every 1 millisecond
//! Process:         walk [4242]
//! ...
//! Call graph:
//!     416 Thread_8124: walk-worker
//!     + 416 thread_start  (in libsystem_pthread.dylib) + 8  [0x18f4bd0b4]
//!     +   380 walk::worker::run::h428457710ae7645a  (in walk) + 420  [0x100f59a24]
//!     +   ! 380 walk::tree::walk::h6e849b55a66fcd85  (in walk) + 96  [0x100f55060]
//!     +   36 __psynch_cvwait  (in libsystem_kernel.dylib) + 8  [0x18f48b5e8]
//!
//! Total number in stack (recursive counted multiple, when >=5):
//! ```
//!
//! **Grammar**: a header up to the line `Call graph:`; then the call tree up to the line that
//! starts `Total number in stack` (what follows, the per-function totals, is not read). A tree line
//! starts with four spaces, then two characters of indentation per level (spaces and the guides
//! `+ | : !`), the node's samples, its function (an argument list or `(.llvm.NNN)` suffix after a
//! `(` is not part of it), `(in BINARY)`, the offset and the address. The first level is a thread.
//!
//! **Model**, as `inferno-collapse-sample` collapses the same file: each line with no line below
//! it one level deeper is a stack whose samples are that line's (a line's own samples appear as a
//! child line at another offset, so inner lines carry none of their own). A frame is named
//! ``BINARY`function``, the binary without `.dylib`, a half-demangled Rust symbol tidied
//! ([`super::rust_symbols`]); a thread line is a thread frame named by its text. As inferno does,
//! the stacks that end in a thread's idle wait (`__psynch_cvwait`, `__select`, `__semwait_signal`,
//! `__ulock_wait`, `__wait4`, `__workq_kernreturn`, `kevent`, `mach_msg_trap`, `read`,
//! `semaphore_wait_trap`) are left out, said on stderr with their samples. The interval is the
//! header's `every N millisecond(s)`; the sampled process is the title.
//!
//! Unlike inferno, the idle functions are matched by their whole name (inferno leaves out any
//! function whose name ends in one, `spread` as `read`), and a thread line is named by all its text
//! (inferno runs `Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)` through its
//! function rule, which makes a name of its two halves).
//!
//! **Errors**, each at its line: a tree line without its four spaces, with an odd indentation or
//! one that skips a level, of indentation alone, or whose samples are not a count; an input that ends
//! before `Total number in stack` (cut short), or that has no `Call graph:`.
//!
//! **Lost**: offsets, addresses, the header but the interval and the process, the totals after the
//! tree.

use super::kit::lines::{self, Indented, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::rust_symbols;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::model::{FrameId, FrameKind, FrameRef, Profile};
use crate::text::Line;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "macos-sample",
    description: "macOS `sample` report (`sample PID`, Activity Monitor), the stacks `inferno-collapse-sample` makes",
    extensions: &["sample.txt", "sample"],
    carries: Carries {
        threads: true,
        thread_roots: true,
        frame_kinds: true,
        title: true,
        interval: true,
        ..Carries::STACKS_OF_SAMPLES
    },
    reads: Some(Reads::text(sniff, lines::read::<Report>)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The line the call tree follows.
const TREE_START: &str = "Call graph:";
/// The start of the line that ends the call tree.
const TREE_END: &str = "Total number in stack";
/// The first line of a report, with the process and the interval.
const FIRST_LINE: &str = "Analysis of sampling ";
/// Functions a thread waits in when idle, whose stacks inferno leaves out.
const IDLE_WAITS: [&str; 10] = [
    "__psynch_cvwait",
    "__select",
    "__semwait_signal",
    "__ulock_wait",
    "__wait4",
    "__workq_kernreturn",
    "kevent",
    "mach_msg_trap",
    "read",
    "semaphore_wait_trap",
];

/// `Yes` for a report's first line, or a `Call graph:` line followed by a tree line.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    if text.starts_with(FIRST_LINE) {
        return Sniff::Yes;
    }
    let mut lines = text.lines().skip_while(|line| !line.starts_with(TREE_START)).skip(1);
    match lines.next() {
        Some(line) if line.starts_with("    ") && line.trim_start().starts_with(|c: char| c.is_ascii_digit()) => {
            Sniff::Yes
        }
        _ => Sniff::No,
    }
}

/// Where the reader is in a report.
#[derive(Clone, Copy, PartialEq, Default)]
enum Part {
    #[default]
    Header,
    Tree,
    After,
}

/// One frame of the stack being read.
struct Level {
    frame: FrameId,
    /// Its function is an idle wait (see [`IDLE_WAITS`]).
    idle: bool,
}

/// The grammar of a report: where the reader is, and the call tree's lines.
#[derive(Default)]
struct Report {
    part: Part,
    tree: Indented<Level>,
}

/// The stacks that end in an idle wait.
static IDLE: Reason = Reason {
    key: "idle-stacks",
    says: |stacks, samples| {
        format!("{stacks} stacks that end in a thread's idle wait (__psynch_cvwait, __ulock_wait, mach_msg_trap…) left out, as inferno-collapse-sample leaves them out: {samples} samples")
    },
};

/// Gives `sink` the stack of `levels`, root first, unless it ends in an idle wait.
fn add_stack(sink: &mut StackSink, levels: &[Level], samples: i64) {
    match levels.last().is_some_and(|level| level.idle) {
        true => sink.leave_out(&IDLE, None, samples),
        false => sink.add(Order::RootFirst, levels.iter().map(|level| level.frame), 0, samples),
    }
}

impl StackLines for Report {
    const FORMAT: FormatName = FORMAT;
    const LAST_LINE_CUT: Option<&'static str> = None;
    const MISSING: Option<Missing> = None;

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        match self.part {
            Part::Header => {
                if let Some(rest) = line.text.strip_prefix(FIRST_LINE) {
                    header_facts(rest, sink.profile());
                }
                if line.text.starts_with(TREE_START) {
                    self.part = Part::Tree;
                }
                return Ok(());
            }
            Part::After => return Ok(()),
            Part::Tree => {}
        }
        let text = line.text.trim_end();
        if text.starts_with(TREE_END) {
            self.tree.end(|levels, samples| add_stack(sink, levels, samples));
            self.part = Part::After;
        } else if !text.is_empty() {
            self.tree_line(line, text, sink)?;
        }
        Ok(())
    }

    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        match self.part {
            Part::After => Ok(()),
            Part::Header => {
                let expected = format!("a `{TREE_START}` line, the call tree's start");
                let kind = ParseErrorKind::Unexpected { expected, found: "the end of the input".into() };
                Err(ParseError { format: FORMAT, position: last, kind })
            }
            Part::Tree => Err(sink.cut_short(last, format!("the `{TREE_END}` line that ends the call tree"))),
        }
    }
}

impl Report {
    /// Reads a line of the call tree, `text` without its trailing space.
    fn tree_line(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError> {
        let Some(indented) = text.strip_prefix("    ") else {
            let expected = format!("a line of the call tree (four spaces first) or `{TREE_END}`");
            let found = crate::error::excerpt(text.as_bytes());
            return Err(line.error(ParseErrorKind::Unexpected { expected, found }));
        };
        let indent = indented.find(|c| !matches!(c, ' ' | '+' | '|' | ':' | '!')).ok_or_else(|| {
            let expected = "a count and a function after the indentation".to_string();
            line.error_at(text.len(), ParseErrorKind::Unexpected { expected, found: "the end of the line".into() })
        })?;
        if indent % 2 != 0 {
            let (expected, found) =
                ("indentation of two characters a level".to_string(), format!("{indent} characters"));
            return Err(line.error_at(4, ParseErrorKind::Unexpected { expected, found }));
        }
        let depth = indent / 2;
        self.tree.check_depth(depth).map_err(|previous| {
            line.error_at(4 + indent, ParseErrorKind::DepthJump { previous: previous + 1, found: depth as i64 + 1 })
        })?;
        let node = &indented[indent..];
        let (count, rest) = node.split_once(' ').unwrap_or((node, ""));
        let count = count.parse::<i64>().map_err(|_| {
            line.error_at(4 + indent, ParseErrorKind::InvalidNumber { field: "a line's samples", text: count.into() })
        })?;
        self.tree.start(depth, |levels, samples| add_stack(sink, levels, samples));
        let level = level_of(rest, depth == 0, sink);
        self.tree.push(level, count);
        Ok(())
    }
}

/// The frame of a tree line's text after its count (see the module documentation).
fn level_of(text: &str, is_thread: bool, sink: &mut StackSink) -> Level {
    if is_thread {
        let frame = sink.frame(FrameRef::named(text.trim(), FrameKind::Thread));
        return Level { frame, idle: false };
    }
    let function = text.find('(').map_or(text, |open| &text[..open]).trim_end();
    let function = rust_symbols::tidy(function);
    let binary = text.rsplit_once("(in ").and_then(|(_, after)| after.split_once(')')).map(|(binary, _)| binary);
    let idle = IDLE_WAITS.contains(&function.as_ref());
    let frame = match binary.filter(|b| !b.is_empty()) {
        Some(binary) => {
            let binary = binary.strip_suffix(".dylib").unwrap_or(binary);
            sink.frame(FrameRef::function(&format!("{binary}`{function}")))
        }
        None => sink.frame(FrameRef::function(&function)),
    };
    Level { frame, idle }
}

/// The process (the title) and the interval of the first line's rest,
/// `rg (pid 64751) every 1 millisecond`.
fn header_facts(rest: &str, profile: &mut Profile) {
    let Some((process, every)) = rest.rsplit_once(" every ") else {
        return;
    };
    profile.meta.title = Some(process.to_string());
    let (number, unit) = every.split_once(' ').unwrap_or((every, ""));
    let nanos_per = match unit.trim_end_matches('s') {
        "millisecond" => 1_000_000.0,
        "microsecond" => 1_000.0,
        "second" => 1_000_000_000.0,
        _ => return,
    };
    if let Ok(number) = number.parse::<f64>() {
        let nanos = number * nanos_per;
        if (1.0..1e15).contains(&nanos) {
            profile.meta.interval = Some(std::time::Duration::from_nanos(nanos.round() as u64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metric;

    #[test]
    fn a_report_is_told_by_its_first_line_or_its_call_graph() {
        assert_eq!(sniff(b"Analysis of sampling rg (pid 1) every 1 millisecond\n"), Sniff::Yes);
        assert_eq!(sniff(b"\nCall graph:\n    825 Thread_1\n"), Sniff::Yes);
        assert_eq!(sniff(b"Call graph:\nmain 3\n"), Sniff::No);
        assert_eq!(sniff(b"main;work 3\n"), Sniff::No);
    }

    #[test]
    fn the_first_line_gives_the_process_and_the_interval() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        header_facts("rg (pid 64751) every 1 millisecond", &mut profile);
        assert_eq!(profile.meta.title.as_deref(), Some("rg (pid 64751)"));
        assert_eq!(profile.meta.interval, Some(std::time::Duration::from_millis(1)));
        header_facts("x (pid 1) every 10 microseconds", &mut profile);
        assert_eq!(profile.meta.interval, Some(std::time::Duration::from_micros(10)));
    }
}
