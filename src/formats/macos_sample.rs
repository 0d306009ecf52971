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
//! function rule, which makes a name of its two halves). A stack that `sample` lists more than once
//! (the same functions called from other offsets) adds up its samples: inferno keeps the last
//! one's alone (its own test file `collapse-sample/sample.txt` gives 2 of 7 + 5 + 2 samples).
//!
//! **Errors**, each at its line: a tree line without its four spaces, with an odd indentation or
//! one that skips a level, of indentation alone, or whose samples are not a count; an input that ends
//! before `Total number in stack` (cut short), or that has no `Call graph:`.
//!
//! **Lost**: offsets, addresses, the header but the interval and the process, the totals after the
//! tree.

use super::kit::indented::{Indented, Level, Tree, TreeLine};
use super::kit::lines;
use super::kit::parts::{Body, Parts, Report};
use super::kit::sink::{Order, Reason, StackSink};
use super::kit::time;
use super::rust_symbols;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::error::{FormatName, ParseError};
use crate::model::{FrameKind, FrameRef};
use crate::text::Line;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "macos-sample",
    description: "macOS `sample` report (`sample PID`, Activity Monitor), the stacks `inferno-collapse-sample` makes",
    extensions: &["sample.txt", "sample"],
    carries: Carries::SAMPLES_PER_THREAD.with_frame_kinds().with_title().with_interval(),
    reads: Some(Reads::text(sniff, lines::read::<Report<CallTree>>)),
    writes: None,
};

/// The call tree is of the samples, root first; its levels are numbered from 1, the threads'.
const TREE: Tree = Tree { order: Order::RootFirst, first_level: 1 };
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
    let first_of_tree = text.lines().skip_while(|line| !line.starts_with(CallTree::PARTS.start)).nth(1);
    let count_first =
        |line: &str| line.starts_with("    ") && line.trim_start().starts_with(|c: char| c.is_ascii_digit());
    Sniff::yes_if(text.starts_with(FIRST_LINE) || first_of_tree.is_some_and(count_first))
}

/// The call tree's lines read so far.
#[derive(Default)]
struct CallTree(Indented);

/// The stacks that end in an idle wait.
static IDLE: Reason = Reason::new("idle-stacks", |stacks, samples| {
    format!("{stacks} stacks that end in a thread's idle wait (__psynch_cvwait, __ulock_wait, mach_msg_trap…) left out, as inferno-collapse-sample leaves them out: {samples} samples")
});

impl Body for CallTree {
    const FORMAT: FormatName = SPEC.format_name();
    const PARTS: Parts = Parts { start: "Call graph:", end: "Total number in stack", body: "the call tree" };

    /// The process (the title) and the interval of the report's first line,
    /// `Analysis of sampling rg (pid 64751) every 1 millisecond`.
    fn header(&mut self, text: &str, sink: &mut StackSink) {
        if let Some((process, every)) = text.strip_prefix(FIRST_LINE).and_then(|rest| rest.rsplit_once(" every ")) {
            let meta = &mut sink.profile().meta;
            meta.title = Some(process.to_string());
            meta.interval = time::interval_in_words(every).or(meta.interval);
        }
    }

    /// A line of the call tree: its depth from its indentation, its samples, its frame.
    fn line(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError> {
        let Some(indented) = text.strip_prefix("    ") else {
            return Err(Self::PARTS.not_a_body_line(line, text, "four spaces first"));
        };
        let indent = indented.find(|c| !matches!(c, ' ' | '+' | '|' | ':' | '!')).ok_or_else(|| {
            line.unexpected_at(text.len(), "a count and a function after the indentation", "the end of the line")
        })?;
        if indent % 2 != 0 {
            return Err(line.unexpected_at(4, "indentation of two characters a level", format!("{indent} characters")));
        }
        let node = &indented[indent..];
        let (count, rest) = node.split_once(' ').unwrap_or((node, ""));
        let samples = count.parse::<i64>().map_err(|_| line.invalid_number_at(4 + indent, "a line's samples", count));
        let tree_line = TreeLine { line, depth: indent / 2, at: 4 + indent, weight: samples };
        self.0.line(TREE, tree_line, sink, |_, sink| level_of(rest, indent == 0, sink))
    }

    fn end(&mut self, sink: &mut StackSink) {
        self.0.end(TREE, sink);
    }
}

/// The level of a tree line's text after its count (see the module documentation): a thread, or a
/// function whose stacks are left out where it is an idle wait.
fn level_of(text: &str, is_thread: bool, sink: &mut StackSink) -> Level {
    if is_thread {
        return sink.frame(FrameRef::named(text.trim(), FrameKind::Thread)).into();
    }
    let function = rust_symbols::tidy(text.find('(').map_or(text, |open| &text[..open]).trim_end());
    let binary = text.rsplit_once("(in ").and_then(|(_, after)| after.split_once(')')).map(|(binary, _)| binary);
    let name = match binary.filter(|b| !b.is_empty()) {
        Some(binary) => format!("{}`{function}", binary.strip_suffix(".dylib").unwrap_or(binary)),
        None => function.to_string(),
    };
    let frame = sink.frame(FrameRef::function(&name));
    Level { frame, left_out: IDLE_WAITS.contains(&function.as_ref()).then_some(&IDLE) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metric;
    use std::time::Duration;

    /// The format's name in the tests' sinks.
    const FORMAT: FormatName = SPEC.format_name();

    #[test]
    fn the_first_line_gives_the_process_and_the_interval() {
        let mut sink = StackSink::new(FORMAT, vec![Metric::samples()]);
        let mut tree = CallTree::default();
        let mut facts = |text: &str| {
            tree.header(text, &mut sink);
            (sink.profile().meta.title.clone(), sink.profile().meta.interval)
        };
        let title = |text: &str| Some(text.to_string());
        let (millisecond, ten_microseconds) = (Duration::from_millis(1), Duration::from_micros(10));
        let rg = facts("Analysis of sampling rg (pid 64751) every 1 millisecond");
        assert_eq!(rg, (title("rg (pid 64751)"), Some(millisecond)));
        let x = facts("Analysis of sampling x (pid 1) every 10 microseconds");
        assert_eq!(x, (title("x (pid 1)"), Some(ten_microseconds)));
        // An interval that is not read leaves the one before; a line that is not the first, both.
        assert_eq!(
            facts("Analysis of sampling y (pid 2) every 1 fortnight"),
            (title("y (pid 2)"), Some(ten_microseconds))
        );
        assert_eq!(
            facts("Sampling process 3 for 10 seconds every 2 milliseconds"),
            (title("y (pid 2)"), Some(ten_microseconds))
        );
    }
}
