//! Valgrind's massif profile (`massif.out.<pid>`), as `valgrind --tool=massif` writes it and
//! `ms_print` reads it (read only).
//!
//! ```text
//! desc: --massif-out-file=work.massif
//! cmd: ./work
//! time_unit: i
//! #-----------
//! snapshot=56
//! #-----------
//! time=241822
//! mem_heap_B=35460
//! mem_heap_extra_B=172
//! mem_stacks_B=0
//! heap_tree=peak
//! n3: 35460 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
//!  n3: 34596 0x109190: buffer (work.c:7)
//!   n0: 20000 0x1092A6: main (work.c:30)
//!   n1: 14500 0x1091E7: row (work.c:12)
//!    n0: 14500 0x109297: main (work.c:28)
//!   n0: 96 in 2 places, all below massif's threshold (1.00%)
//!  n0: 800 0x1092B9: main (work.c:31)
//!  n0: 64 in 1 place, below massif's threshold (1.00%)
//! ```
//!
//! **Grammar**: a header of `desc:`, `cmd:` and `time_unit:` lines; then snapshots, each
//! `snapshot=N` between `#-----------` lines, its `time=`, `mem_heap_B=`, `mem_heap_extra_B=`,
//! `mem_stacks_B=` and `heap_tree=` (`empty`, or `detailed` or `peak` followed by its heap tree).
//! A heap tree is a node a line, `nK: BYTES WHERE`, followed by its K children, each indented one
//! space deeper (read by the counts, as ms_print reads them): its top node is the heap allocation
//! functions, each node below it the code that called its parent, with the bytes allocated
//! through that path still live at the snapshot (inclusive). A node that stands for children below
//! massif's threshold is `nK: BYTES in N places, all below massif's threshold (1.00%)`.
//!
//! **Model**: the tree of the peak snapshot (`heap_tree=peak`, which ms_print marks), or of the
//! detailed snapshot `--massif-snapshot N` names. The tree is inverted (callees above their
//! callers): each node is a stack, its path from the top read innermost first, weighing its own
//! bytes, the node's less its children's (the model keeps self values), so that a function's total
//! is ms_print's figure of its node. `mem heap` bytes, of kind alloc; the allocation functions'
//! node and those below massif's threshold are pseudo-frames named as the file and ms_print
//! (`--threshold=0`) name them; frames are named as valgrind describes code (a source line, or a
//! function of a library), their first address the fact `massif.address`. The command is the
//! title; `desc`, the snapshot's number, time and extra heap and stack bytes are header facts.
//!
//! **Errors**: a line that is none of these, a node line that is not `nK: BYTES WHERE`, children
//! that add up to more than their node, at their line; an input that ends inside the tree read
//! (cut short); a `--massif-snapshot` that is not a detailed snapshot of the file (past its last, said so).
//!
//! **Lost**: the other snapshots (the heap over time that ms_print draws), the heap's extra bytes
//! (allocator overhead, not in the tree) and stack bytes as figures.

use super::CodeAddress;
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::kit::lines::{self, StackLines};
use crate::formats::kit::sink::{Missing, Order, StackSink};
use crate::formats::options::ReadOptions;
use crate::formats::spec::{Carries, Reads, Sniff, Spec};
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use crate::text::Line;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "massif",
    description: "Valgrind massif profile (massif.out.<pid>): a snapshot's heap tree, as ms_print shows it",
    extensions: &["massif"],
    carries: Carries::TREE_OF_SAMPLES
        .weighing(&[MetricKind::Alloc])
        .with_frame_kinds()
        .with_source_lines()
        .with_modules()
        .with_title(),
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// massif's own option: which snapshot's heap tree is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The detailed snapshot to read (`--massif-snapshot N`); the peak where `None`.
    pub snapshot: Option<u64>,
}

/// `Yes` when the input starts with `desc:` and names a snapshot or a heap tree; `Maybe` when
/// its head holds only the header.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    if !text.starts_with("desc:") {
        return Sniff::No;
    }
    match text.contains("\nsnapshot=") || text.contains("\nheap_tree=") {
        true => Sniff::Yes,
        false => Sniff::Maybe,
    }
}

/// Reads the chosen snapshot's heap tree (see the module documentation).
fn read(
    input: &mut (dyn std::io::Read + Send),
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let chosen = options.formats.get::<Options>().snapshot;
    let bytes = Metric::new("mem heap", MetricKind::Alloc, Unit::Bytes, Repr::Int).sampled(Sampling::Measured);
    let grammar = Snapshots { chosen, ..Snapshots::default() };
    lines::read_into(input, grammar, StackSink::new(FORMAT, vec![bytes]), diag)
}

/// The grammar of a massif file: the snapshot being read, and the chosen one's tree.
#[derive(Default)]
struct Snapshots {
    /// The snapshot to read; the peak where `None`.
    chosen: Option<u64>,
    /// The time unit of the header (`i`, `ms` or `B`).
    time_unit: String,
    /// The snapshot being read, its time and its extra heap and stack bytes, as written, and
    /// whether its `heap_tree=` line, its last, was read.
    snapshot: Option<u64>,
    snapshot_ended: bool,
    time: String,
    /// The most heap bytes of a snapshot so far: a file of none has no peak.
    heap: u64,
    extra: String,
    stacks: String,
    /// Where the chosen snapshot's tree is.
    tree: Tree,
}

/// Where the chosen snapshot's tree is, as lines are read.
#[derive(Default)]
enum Tree {
    /// Not met yet.
    #[default]
    Ahead,
    /// Being read: its nodes whose children are not all read yet, the top first.
    Open(Vec<Node>),
    /// Read whole.
    Read,
}

/// A node of the tree being read.
struct Node {
    frame: FrameId,
    bytes: i64,
    /// How many of its children are still to come, and what those read add up to.
    children_left: u64,
    children_bytes: i64,
    at: Position,
}

impl StackLines for Snapshots {
    const FORMAT: FormatName = FORMAT;
    // massif ends every line: a last line without its end was cut there.
    const LAST_LINE_CUT: Option<&'static str> = Some("its last figure may be incomplete");
    const MISSING: Option<Missing> = None;

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        if let Tree::Open(open) = &mut self.tree {
            return match node_line(line)? {
                Some(node) => add_node(open, node, line, sink).map(|done| {
                    if done {
                        self.tree = Tree::Read;
                    }
                }),
                None => Err(expected(line, "a heap tree's next node line, `nK: BYTES WHERE`")),
            };
        }
        let text = line.text;
        if text.starts_with('#') || is_node_line(text) {
            // Separators, and the trees of the snapshots not read.
            return Ok(());
        }
        let Some((key, value)) = text.split_once(['=', ':']) else {
            return Err(expected(line, LINES));
        };
        match key {
            "desc" => sink.profile().meta.attrs.push(("massif.desc".into(), value.trim().into())),
            "cmd" => sink.profile().meta.title = Some(value.trim().into()),
            "time_unit" => self.time_unit = value.trim().into(),
            "snapshot" => {
                self.snapshot = Some(number(line, value, "a snapshot's number")?);
                self.snapshot_ended = false;
            }
            "time" => self.time = value.into(),
            "mem_heap_B" => self.heap = self.heap.max(number(line, value, "the heap's bytes")?),
            "mem_heap_extra_B" => self.extra = value.into(),
            "mem_stacks_B" => self.stacks = value.into(),
            "heap_tree" => {
                self.snapshot_ended = true;
                self.heap_tree(line, value, sink)?;
            }
            _ => return Err(expected(line, LINES)),
        }
        Ok(())
    }

    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        match &self.tree {
            Tree::Read => Ok(()),
            Tree::Open(open) => {
                let node = open.last().map_or(0, |node| node.at.line.unwrap_or(0));
                Err(sink
                    .cut_short(last, format!("the rest of the heap tree (the children of the node at line {node})")))
            }
            // A program that allocated nothing massif saw has no peak: a profile of no stack.
            Tree::Ahead if self.chosen.is_none() && self.heap == 0 => Ok(()),
            // A file whose last snapshot ended before the one asked for: it has no such snapshot.
            Tree::Ahead if self.chosen.is_some() && self.snapshot_ended => {
                let expected = format!("snapshot {} (--massif-snapshot)", self.chosen.unwrap_or(0));
                let found = format!(
                    "the end of the input after snapshot {}, its last: ms_print lists the detailed snapshots",
                    self.snapshot.unwrap_or(0)
                );
                Err(sink.ends_where(last, expected, &found))
            }
            Tree::Ahead => {
                let expected = match self.chosen {
                    Some(n) => format!("snapshot {n} (--massif-snapshot)"),
                    None => "a peak snapshot (heap_tree=peak), as massif writes one".into(),
                };
                Err(sink.cut_short(last, expected))
            }
        }
    }
}

/// What a line outside a heap tree may be.
const LINES: &str = "a line of massif's: `desc:`, `cmd:`, `time_unit:`, `snapshot=`, `time=`, `mem_heap_B=`, `mem_heap_extra_B=`, `mem_stacks_B=` or `heap_tree=`";

impl Snapshots {
    /// A snapshot's `heap_tree=` line: the tree that follows is read where it is the one chosen.
    fn heap_tree(&mut self, line: &Line<'_>, kind: &str, sink: &mut StackSink) -> Result<(), ParseError> {
        if !matches!(kind, "empty" | "detailed" | "peak") {
            return Err(expected(line, "heap_tree=empty, detailed or peak"));
        }
        let chosen = match self.chosen {
            Some(n) => self.snapshot == Some(n),
            None => kind == "peak",
        };
        if !chosen || !matches!(self.tree, Tree::Ahead) {
            return Ok(());
        }
        if kind == "empty" {
            let expected =
                format!("a heap tree for snapshot {} (--massif-snapshot), a detailed one", self.snapshot.unwrap_or(0));
            let found = "heap_tree=empty: ms_print lists the detailed snapshots".to_string();
            return Err(line.error(ParseErrorKind::Unexpected { expected, found }));
        }
        let snapshot = format!("{}{}", self.snapshot.unwrap_or(0), if kind == "peak" { " (peak)" } else { "" });
        let attrs = &mut sink.profile().meta.attrs;
        attrs.push(("massif.snapshot".into(), snapshot));
        attrs.push(("massif.time".into(), format!("{} {}", self.time, self.time_unit)));
        attrs.push(("massif.mem_heap_extra_B".into(), std::mem::take(&mut self.extra)));
        attrs.push(("massif.mem_stacks_B".into(), std::mem::take(&mut self.stacks)));
        self.tree = Tree::Open(Vec::new());
        Ok(())
    }
}

/// A node line's parts: its count of children, its bytes and what it is.
struct NodeLine<'a> {
    children: u64,
    bytes: i64,
    what: &'a str,
}

/// Whether `text` looks like a node line (`nK:` after spaces).
fn is_node_line(text: &str) -> bool {
    let text = text.trim_start_matches(' ');
    text.strip_prefix('n').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The parts of a node line; `None` where the line is not one; an error where it looks like one
/// but is not well formed.
fn node_line<'a>(line: &Line<'a>) -> Result<Option<NodeLine<'a>>, ParseError> {
    if !is_node_line(line.text) {
        return Ok(None);
    }
    let text = line.text.trim_start_matches(' ').trim_start_matches('n');
    let malformed = || expected(line, "a node line, `nK: BYTES WHERE`");
    let (children, rest) = text.split_once(": ").ok_or_else(malformed)?;
    let (bytes, what) = rest.split_once(' ').unwrap_or((rest, ""));
    let children = children.parse().map_err(|_| malformed())?;
    if !crate::text::is_digits(bytes) {
        return Err(malformed());
    }
    let bytes = lines::count(line, bytes, "a node's bytes")?;
    Ok(Some(NodeLine { children, bytes, what }))
}

/// Adds the node of `line` below the open ones and gives the stacks of the nodes it completes;
/// whether the tree is read whole.
fn add_node(
    open: &mut Vec<Node>,
    node: NodeLine<'_>,
    line: &Line<'_>,
    sink: &mut StackSink,
) -> Result<bool, ParseError> {
    let is_top = open.is_empty();
    if let Some(parent) = open.last_mut() {
        parent.children_left -= 1;
        parent.children_bytes = parent.children_bytes.saturating_add(node.bytes);
    }
    let frame = match is_top || is_below_threshold(node.what) {
        true => sink.frame(FrameRef::named(node.what, FrameKind::Pseudo)),
        false => CodeAddress::parse(node.what).intern(sink.profile(), "massif.address"),
    };
    let at = line.position;
    open.push(Node { frame, bytes: node.bytes, children_left: node.children, children_bytes: 0, at });
    while open.last().is_some_and(|node| node.children_left == 0) {
        let Some(done) = open.pop() else { break };
        let own = done.bytes - done.children_bytes;
        if own < 0 {
            let expected = format!("children that add up to at most the node's {} bytes", done.bytes);
            let found = format!("{} bytes", done.children_bytes);
            return Err(ParseError {
                format: FORMAT,
                position: done.at,
                kind: ParseErrorKind::Unexpected { expected, found },
            });
        }
        // A node whose bytes are all its children's is no stack of its own (it is in theirs).
        if own > 0 {
            let path = open.iter().map(|node| node.frame).chain([done.frame]);
            sink.add(Order::LeafFirst, path.collect::<Vec<_>>(), 0, own);
        }
    }
    Ok(open.is_empty())
}

/// Whether a node stands for the code below massif's threshold (`in 2 places, all below massif's
/// threshold (1.00%)`, `in 1 place, below massif's threshold (1.00%)`).
fn is_below_threshold(what: &str) -> bool {
    what.starts_with("in ") && what.contains("below massif's threshold")
}

/// `value` as a number, or the error at `line` saying it should be `what`.
fn number(line: &Line<'_>, value: &str, what: &str) -> Result<u64, ParseError> {
    value
        .trim()
        .parse()
        .map_err(|_| line.error(ParseErrorKind::Unexpected { expected: what.into(), found: value.into() }))
}

/// The error of `line` where `what` should have been.
fn expected(line: &Line<'_>, what: &str) -> ParseError {
    line.error(ParseErrorKind::Unexpected { expected: what.into(), found: crate::error::excerpt(line.text.as_bytes()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_threshold_nodes_are_told_from_code() {
        assert!(is_below_threshold("in 2 places, all below massif's threshold (1.00%)"));
        assert!(is_below_threshold("in 1 place, below massif's threshold (1.00%)"));
        assert!(!is_below_threshold("0x1092B9: main (work.c:31)"));
    }
}
