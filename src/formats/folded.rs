//! Folded stacks: the interchange text of Brendan Gregg's FlameGraph (`stackcollapse-*.pl`,
//! `flamegraph.pl`) and of inferno (`inferno-collapse-*`, `inferno-flamegraph`).
//!
//! ```text
//! main;parse;read_line 12
//! main;parse 3
//! main;render;draw_text 40
//! worker-1;poll 7
//! ```
//!
//! **Grammar**: one stack per line: frames from the root to the leaf joined by `;`, a space, and a
//! non-negative integer count after the *last* space (frame names may contain spaces). UTF-8 (or
//! UTF-16 with a byte-order mark, decoded where the input is set up). CRLF is accepted. Blank lines
//! and lines with an empty stack are skipped with one warning. The same stack may appear on several
//! lines; the counts add up. Every writer ends every line with a line break: a last line without one
//! is read, with a warning that the file looks cut short (its count may have lost digits).
//!
//! **Other lines**: a line that is not `stack count` (a `# …` or `// …` header, a stray line) is
//! skipped, as `inferno-flamegraph` skips it, with one warning that counts them and names the first;
//! an input with no stack line at all is refused at its first such line, and an empty or blank one
//! at its start. A line whose last field is
//! a number proftool cannot take as a count (`-3`, `1.5`, more than 2^63 − 1) is an error, not skipped:
//! it is a stack whose samples would be lost without a word of how many.
//!
//! **Model**: each line adds its count to the self samples of the node at the end of its path, so the
//! tree grows with distinct stacks, not with lines. With `--folded-unit ns` (or `us`, `ms`) the
//! counts are time in that unit instead, as proftool writes time into folded stacks. Threads are root frames by convention, but a
//! folded file cannot say which frames are threads: all frames read as functions.
//!
//! **Written**: the one metric's counts; time as whole numbers of the source's own unit (BR's
//! nanoseconds, Dyalog's milliseconds as whole µs or ns), said on stderr, unless `--interval`
//! divides it into samples; a sampling profiler's samples where they count its time exactly at its
//! interval (a Go CPU profile's `samples` for its `cpu`).
//!
//! **Lost on write**: everything but one count per node and the frame names: other metrics, modules,
//! line numbers (line frames merge into their functions), per-function counts, header facts. A node
//! with a self count of 0 writes no line (its children's lines imply an inner one; a stack of count
//! 0 is drawn by nothing), but where every count is 0: then its leaves are written at 0, said, so
//! that the file reads back; a profile of no stack (a recording of no sample) is refused, as folded
//! stacks of it would be an empty file nothing reads. A `;` inside a frame name would split the frame, so it is
//! written as `,`, and a newline as a space, each with a warning. A name that ends in a space and a
//! number (`CAPI Execution Listener 1`) would make the line read as a differential one (two counts)
//! by `inferno-flamegraph` and `flamegraph.pl`: that space is written as a no-break space (U+00A0),
//! with a warning, and read back as a space.
//!
//! **Size**: every line holds its whole stack, so the output grows with the depth of the tree times
//! its leaves, not with its nodes: a chain 20,000 frames deep with 1,000 leaves below it is 20
//! million frames written. The writer works out the output's size from the tree before it writes
//! (exactly, in one pass over the nodes) and refuses more than `--max-output-size` (default: 100
//! times the input's size, at least 1 GiB), saying how much it would be.

use super::kit::count_names::{one_count_name, spaced_count_name};
use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes, Writing};
use super::stacks::{self, StackTree};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::model::{
    CallTree, FrameId, FrameKind, FrameRef, FrameTable, Metric, NodeId, Profile, Repr, Unit, Value, Values, Walk,
};
use std::io::{Read, Write};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "folded",
    description: "folded stacks, FlameGraph's and inferno's interchange text",
    extensions: &["folded", "collapsed"],
    carries: Carries::FOLDED_LINES,
    reads: Some(Reads::text(sniff, |input, options, diag| {
        read(input, options.size_hint, &options.formats.get(), diag)
    })),
    writes: Some(Writes {
        write,
        rules: Rules { no_stack_file: Some("folded stacks of none are an empty file"), ..spec::STACKS_ONLY },
        // A comparison as `inferno-diff-folded` writes one (`stack base new`), which
        // `inferno-flamegraph` draws as a differential flame graph.
        differential: Some(spec::Differential::TwoCountLines(|lines, _, out| Ok(out.write_all(lines.as_bytes())?))),
    }),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// Folded stacks' own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The unit of the counts where they are time (`--folded-unit ns`, as proftool writes time
    /// into folded stacks): then they read as time, not samples.
    pub unit: Option<Unit>,
}

/// `Maybe` when most of the first complete lines (blank ones aside) are `stack count`: folded
/// stacks have no signature, and a file may have a header or a stray line the reader skips.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    let complete = match text.rfind('\n') {
        Some(end) if end + 1 < text.len() => &text[..end],
        _ => text,
    };
    let (mut stacks, mut others) = (0, 0);
    for line in complete.lines().take(20) {
        match split_line(line) {
            Some((stack, Ok(count))) if !stack.is_empty() && count >= 0 => stacks += 1,
            // Lines the reader skips as blank: blank, or a count with an empty stack.
            Some(("", Ok(_))) => {}
            _ if line.trim().is_empty() || line.trim().parse::<i64>().is_ok() => {}
            _ => others += 1,
        }
    }
    if stacks > others {
        Sniff::Maybe
    } else {
        Sniff::No
    }
}

/// Splits `stack count` at the last space (a frame name keeps any spaces it has).
fn split_line(line: &str) -> Option<(&str, Result<i64, std::num::ParseIntError>)> {
    let (stack, count) = line.rsplit_once(' ')?;
    Some((stack, count.parse::<i64>()))
}

/// Whether the last field of a line is a number, though not a count (`-3`, `1.5`): the line is
/// then a stack with a count proftool cannot take, not a line to skip.
fn looks_like_a_number(field: &str) -> bool {
    field.bytes().any(|b| b.is_ascii_digit()) && field.bytes().all(|b| b.is_ascii_digit() || b"+-.".contains(&b))
}

/// A line as the reading thread makes it out: the frames of a stack (where they are among the
/// frames of its block), or why the line is not one.
enum Parsed {
    Stack {
        count: i64,
        frames: std::ops::Range<usize>,
    },
    /// Blank, or a count with an empty stack.
    Skipped,
    /// Not `stack count` at all (a header, a stray line): skipped, and refused as said by the
    /// kind when the input has no stack line.
    NotAStack(ParseErrorKind),
    Bad(ParseErrorKind),
}

/// A frame of a line: the number of its name (in order of first appearance, see [`NameNumbers`])
/// and where the name is in the line.
struct LineFrame {
    number: u32,
    start: u32,
    len: u32,
}

/// The names the reading thread has seen, numbered in order of first appearance, so that the thread
/// that builds the tree finds a name's frame by indexing a vector: the hashing and comparing of
/// names is done on the reading thread, which has the time.
#[derive(Default)]
struct NameNumbers {
    table: hashbrown::HashTable<u32>,
    names: Vec<Box<str>>,
}

impl NameNumbers {
    fn number(&mut self, name: &str) -> u32 {
        let hash = FrameTable::name_hash(name, FrameKind::Function);
        let names = &self.names;
        if let Some(&n) = self.table.find(hash, |&n| &*names[n as usize] == name) {
            return n;
        }
        let n = self.names.len() as u32;
        self.names.push(name.into());
        let names = &self.names;
        self.table.insert_unique(hash, n, |&n| FrameTable::name_hash(&names[n as usize], FrameKind::Function));
        n
    }

    /// Splits and checks one line, numbering its frames' names: its frames go on `frames`.
    fn parse(&mut self, text: &str, frames: &mut Vec<LineFrame>) -> Parsed {
        let (stack, count) = match split_line(text) {
            Some((stack, Ok(count))) => (stack, count),
            Some((_, Err(_))) | None if text.trim().is_empty() || text.trim().parse::<i64>().is_ok() => {
                return Parsed::Skipped
            }
            Some((_, Err(_))) if looks_like_a_number(text.rsplit_once(' ').map_or("", |(_, c)| c)) => {
                let count = text.rsplit_once(' ').map_or("", |(_, c)| c).to_string();
                let field = "the count after the last space";
                return Parsed::Bad(ParseErrorKind::InvalidNumber { field, text: count });
            }
            Some((_, Err(_))) | None => {
                return Parsed::NotAStack(ParseErrorKind::Unexpected {
                    expected: STACK_LINE.into(),
                    found: excerpt(text.as_bytes()),
                })
            }
        };
        if stack.is_empty() {
            return Parsed::Skipped;
        }
        if count < 0 {
            let found = count.to_string();
            return Parsed::Bad(ParseErrorKind::Unexpected { expected: "a count of 0 or more".into(), found });
        }
        let first = frames.len();
        let mut start = 0;
        for end in memchr::memchr_iter(b';', stack.as_bytes()).chain([stack.len()]) {
            frames.push(LineFrame {
                number: self.number(&stack[start..end]),
                start: start as u32,
                len: (end - start) as u32,
            });
            start = end + 1;
        }
        Parsed::Stack { count, frames: first..frames.len() }
    }
}

/// What a line of folded stacks is.
const STACK_LINE: &str = "a stack, a space and a count (a;b;c 12)";

/// Folded bytes per distinct stack node, at least, in stacks that share little (a node per frame of
/// about 20 characters): a size hint divided by this sizes the tree's columns once.
const BYTES_PER_NODE: u64 = 24;

/// Reads folded stacks, aggregating equal stacks as it goes: lines are split and their names
/// numbered on a second thread while this one interns each new name and finds each stack's node.
/// A stack that starts as the one before it does (as stacks of one thread or one caller do) takes
/// the nodes of that common start as they are. With the input's size known, the tree's columns are
/// sized for it up front.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    size_hint: Option<u64>,
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let metric = options.unit.map_or_else(Metric::samples, |unit| Metric::time(unit, Repr::Int));
    let mut profile = Profile::new(vec![metric]);
    let nodes = usize::try_from(size_hint.unwrap_or(0) / BYTES_PER_NODE).unwrap_or(0);
    profile.tree.reserve(nodes);
    // The frame of each name number.
    let mut frame_of: Vec<FrameId> = Vec::new();
    let mut stacks = StackTree::default();
    let mut numbers = NameNumbers::default();
    // Lines that are not stacks: how many, and the error the first makes if no stack comes.
    let mut not_stacks = 0u64;
    let mut first_not_stack: Option<ParseError> = None;
    let mut any_stack = false;
    crate::text::pipeline_with_parts(
        crate::text::Blocks::new(input, FORMAT),
        |text: &str, frames: &mut Vec<LineFrame>| numbers.parse(text, frames),
        |line, parsed, frames| {
            line.warn_if_cut_short("its count may have lost digits", diag);
            let (count, frames) = match parsed {
                Parsed::Stack { count, frames: range } => (count, &frames[range]),
                Parsed::Skipped => {
                    diag.warn("skipped-line", Some(line.position), || "blank or empty-stack line skipped".into());
                    return Ok(());
                }
                Parsed::NotAStack(kind) => {
                    not_stacks += 1;
                    first_not_stack.get_or_insert_with(|| line.error(kind));
                    return Ok(());
                }
                Parsed::Bad(kind) => return Err(line.error(kind)),
            };
            any_stack = true;
            let stack = stacks.next();
            for &LineFrame { number, start, len } in frames {
                // Numbers come in order of first appearance: a number not seen yet is the next one.
                let frame = match frame_of.get(number as usize) {
                    Some(&frame) => frame,
                    None => {
                        let name = spaced_count_name(&line.text[start as usize..(start + len) as usize]);
                        let frame = profile.frames.intern(FrameRef::function(&name));
                        frame_of.push(frame);
                        frame
                    }
                };
                stack.push(frame);
            }
            if let Some(leaf) = stacks.add(&mut profile.tree) {
                profile.tree.add_self(0, leaf, Value::Int(count));
            }
            Ok(())
        },
    )?;
    if !any_stack {
        // Nothing to draw is not a profile: a flame graph or pprof file of no samples would hide that
        // the recording or a script before proftool failed.
        return Err(first_not_stack.unwrap_or_else(|| ParseError {
            format: FORMAT,
            position: Position::line(1, 0),
            kind: ParseErrorKind::Unexpected {
                expected: STACK_LINE.into(),
                found: "no stack in the whole input (it is empty or blank)".into(),
            },
        }));
    }
    if let Some(first) = first_not_stack {
        let lines = if not_stacks == 1 { "line" } else { "lines" };
        diag.warn("not-a-stack", Some(first.position), || {
            format!("{not_stacks} {lines} that are not `stack count` skipped, as inferno-flamegraph skips them (the first: {})", first.kind)
        });
    }
    Ok(profile)
}

/// Nodes per piece of output formatted on its own (see [`crate::pieces`]).
const PIECE: u32 = 1024;

/// Pieces a tree not built in pre-order is cut into, about: as many as leave both threads busy to
/// the end when subtrees' sizes differ, as few as keep the cost of a piece (a chunk handed over,
/// the path to its first node rebuilt) small beside its nodes.
const LISTS_PIECES: u32 = 64;

/// Writes `profile` (already projected to one count metric) as folded stacks, in tree pre-order. A tree
/// built in pre-order is written in pieces of about [`PIECE`] nodes (see [`piece_starts`]), any other
/// in about [`LISTS_PIECES`] stretches of its walk (one root's tree is cut below it, as perf's of one
/// command is), formatted on two threads. Output larger
/// than `options` allow ([`ConvertOptions::output_limit`](super::options::ConvertOptions::output_limit)) is refused before a byte is written.
pub(crate) fn write(profile: &Profile, to: Writing<'_>) -> Result<(), Error> {
    let Writing { out, options, diag } = to;
    let (names, renamed) = Names::of(profile);
    if renamed > 0 {
        let frames = if renamed == 1 { "frame name ends" } else { "frame names end" };
        diag.warn("name-ends-in-a-number", None, || {
            format!("{renamed} {frames} in a space and a number, which inferno-flamegraph would read as a second count: that space is written as a no-break space (U+00A0)")
        });
    }
    let tree = &profile.tree;
    let Values::Int(counts) = tree.self_values(0) else {
        return Err(Error::Unrepresentable { format: FORMAT, what: "counts must be whole numbers".into() });
    };
    // Folded stacks of no count would be an empty file, which no reader (proftool's included) takes:
    // a profile of no count is written as its leaves at 0, said on stderr (one of no stack is
    // refused by the conversion: the rules' `no_stack_file`).
    let empty = counts.iter().all(|&c| c == 0);
    if empty {
        diag.warn("folded-empty", None, || {
            "folded: the profile holds no count: its stacks are written at 0, so that the file reads back".to_string()
        });
    }
    let stacks = Stacks { tree, names: &names, counts, empty };
    stacks::check_output_size(FORMAT, stacks.size(), options)?;
    if !tree.is_preorder() {
        // Stretches of the walk through child lists.
        let children = tree.children();
        let pieces = tree.walk_stretches(&children, (tree.len() as u32).div_ceil(LISTS_PIECES).max(PIECE));
        let piece = |i: usize, sink: &mut dyn Write| stacks.write(tree.walk_stretch(&children, &pieces[i]), sink);
        return Ok(crate::pieces::write_pieces(pieces.len(), piece, out)?);
    }
    let starts = piece_starts(tree);
    let piece = |i: usize, sink: &mut dyn Write| {
        let end = starts.get(i + 1).copied().unwrap_or(tree.len() as u32);
        let walk = tree.walk_part(starts[i]..end);
        walk.map_or(Ok(()), |walk| stacks.write(walk, sink))
    };
    Ok(crate::pieces::write_pieces(starts.len(), piece, out)?)
}

/// Where the pieces of a tree built in pre-order start. A piece begins by rebuilding the path to its
/// first node (a frame per level), so a piece starts only where that path is no longer than the
/// piece before it: rebuilding then costs at most what writing the previous piece did, and the
/// whole write stays linear in the nodes. Cutting every [`PIECE`] nodes regardless made a deep
/// chain rebuild its path once a piece: quadratic in the depth.
fn piece_starts(tree: &CallTree) -> Vec<u32> {
    let mut starts = vec![0u32];
    let mut start = 0u32;
    for (node, depth) in (0u32..).zip(tree.depths()) {
        let length = node - start;
        if length >= PIECE && depth <= length {
            starts.push(node);
            start = node;
        }
    }
    starts
}

/// What a folded line is made of.
struct Stacks<'p> {
    tree: &'p CallTree,
    names: &'p Names,
    counts: &'p [i64],
    /// Every count is 0: the leaves are written at 0.
    empty: bool,
}

/// The frames' names back to back, as they are written: a frame's name is looked up for every node,
/// and eight bytes a frame (where it starts) stay in cache where the frames themselves do not.
struct Names {
    bytes: Vec<u8>,
    /// Where each frame's name starts in `bytes`, and where the last ends.
    starts: Vec<usize>,
}

impl Names {
    /// The names of `profile`'s frames as folded stacks hold them ([`one_count_name`]), and how
    /// many had to change for it.
    fn of(profile: &Profile) -> (Names, usize) {
        let mut names = Names { bytes: Vec::new(), starts: Vec::with_capacity(profile.frames.len() + 1) };
        let mut changed = 0;
        for (_, frame) in profile.frames.iter() {
            names.starts.push(names.bytes.len());
            let name = frame.display_name();
            let written = one_count_name(&name);
            changed += usize::from(written != name);
            names.bytes.extend_from_slice(written.as_bytes());
        }
        names.starts.push(names.bytes.len());
        (names, changed)
    }

    fn get(&self, frame: FrameId) -> &[u8] {
        &self.bytes[self.starts[frame.index()]..self.starts[frame.index() + 1]]
    }
}

impl Stacks<'_> {
    /// The bytes [`Stacks::write`] writes for the whole tree: each line its path (names and `;`
    /// between them), a space, the count and a line end.
    fn size(&self) -> u64 {
        let tree = self.tree;
        let node_bytes = |node: NodeId| {
            let separator = u64::from(tree.parent(node).is_some());
            separator + self.names.get(tree.frame(node)).len() as u64
        };
        let line = |node: NodeId, is_leaf: bool| match self.counts[node.index()] {
            count if count != 0 || (self.empty && is_leaf) => (1, 2 + itoa::Buffer::new().format(count).len() as u64),
            _ => (0, 0),
        };
        stacks::whole_stacks_size(tree, node_bytes, line)
    }

    /// Writes a line for each node `walk` visits (see [`write()`]), below the nodes the walk starts
    /// from.
    fn write(&self, walk: Walk<'_>, out: &mut dyn Write) -> std::io::Result<()> {
        // `line` holds the path of the current node; `ends[d]` is where the frame at depth d ends.
        let mut line: Vec<u8> = Vec::with_capacity(1024);
        let mut ends: Vec<usize> = Vec::new();
        let mut digits = itoa::Buffer::new();
        for (depth, &node) in walk.ancestors().iter().enumerate() {
            self.push_frame(&mut line, &mut ends, depth, node);
        }
        for visit in walk {
            self.push_frame(&mut line, &mut ends, visit.depth as usize, visit.node);
            let count = self.counts[visit.node.index()];
            // A stack of count 0 is no line (inferno and flamegraph.pl draw nothing of it), but where
            // every count is 0.
            if count != 0 || (self.empty && visit.is_leaf) {
                let path_end = line.len();
                line.push(b' ');
                line.extend_from_slice(digits.format(count).as_bytes());
                line.push(b'\n');
                out.write_all(&line)?;
                line.truncate(path_end);
            }
        }
        Ok(())
    }

    /// Makes `line` the path to `node`, at `depth`.
    fn push_frame(&self, line: &mut Vec<u8>, ends: &mut Vec<usize>, depth: usize, node: NodeId) {
        ends.truncate(depth);
        line.truncate(ends.last().copied().unwrap_or(0));
        if depth > 0 {
            line.push(b';');
        }
        line.extend_from_slice(self.names.get(self.tree.frame(node)));
        ends.push(line.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::options::ConvertOptions;
    /// A tree of several pieces written as folded lines, against lines made node by node from each
    /// node's ancestors.
    #[test]
    fn pieces_join_into_the_whole_output() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        let mut path: Vec<NodeId> = Vec::new();
        let mut seed = 7u64;
        for i in 0..5 * PIECE as usize + 17 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Mostly deeper, sometimes back up a few levels or to a new root.
            let keep = if seed >> 60 < 11 { path.len() } else { (seed >> 32) as usize % (path.len() + 1) };
            path.truncate(keep);
            let frame = profile.frames.intern(FrameRef::function(&format!("f{}", seed >> 58)));
            let node = profile.tree.push(path.last().copied(), frame);
            profile.tree.set_self(0, node, Value::Int((i % 3) as i64));
            path.push(node);
        }
        let tree = &profile.tree;
        assert!(tree.is_preorder() && tree.len() > 5 * PIECE as usize);
        let mut written = Vec::new();
        write(&profile, Writing::new(&mut written, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), lines_node_by_node(&profile));
    }

    /// The folded lines of a tree built in pre-order, made node by node from each node's
    /// ancestors: a line per node with a count.
    fn lines_node_by_node(profile: &Profile) -> String {
        let tree = &profile.tree;
        let mut expected = String::new();
        for node in tree.nodes() {
            let count = tree.self_value(0, node).as_count();
            if count != 0 {
                let stack = tree.ancestors(node).into_iter().chain([node]);
                let names: Vec<&str> = stack.map(|n| profile.frames.get(tree.frame(n)).name.as_str()).collect();
                expected.push_str(&format!("{} {count}\n", names.join(";")));
            }
        }
        expected
    }

    /// Folded text of many roots read into a tree that is not in pre-order (later lines add to
    /// earlier roots) is written in stretches on two threads: every line comes back, merged and
    /// in the order of first appearance, as the same text read back in pre-order gives it.
    #[test]
    fn a_tree_of_many_roots_out_of_order_is_written_in_stretches() {
        let mut text = String::new();
        let mut in_order = String::new();
        for root in 0..300 {
            in_order.push_str(&format!("r{root};a 1\nr{root};b;c 3\n"));
        }
        for pass in 0..2 {
            for root in 0..300 {
                text.push_str(&match pass {
                    0 => format!("r{root};a 1\n"),
                    _ => format!("r{root};b;c 3\n"),
                });
            }
        }
        let read =
            |text: &str| read(&mut text.as_bytes(), None, &Options::default(), &mut Diagnostics::default()).unwrap();
        let profile = read(&text);
        assert!(!profile.tree.is_preorder());
        assert!(profile.tree.walk_stretches(&profile.tree.children(), PIECE).len() > 1);
        let mut written = Vec::new();
        write(&profile, Writing::new(&mut written, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), lines_node_by_node(&read(&in_order)));
        assert_eq!(lines_node_by_node(&read(&in_order)), in_order);
    }

    /// A chain a million deep with a branch at the bottom: each piece rebuilds the path to its first
    /// node, and those paths add up to no more than the nodes (cut every PIECE nodes, they added up
    /// to about depth² / 2 PIECE); the lines are the two stacks.
    #[test]
    fn a_deep_chain_is_written_without_rebuilding_its_path_per_piece() {
        const DEPTH: usize = 1_000_000;
        let mut profile = Profile::new(vec![Metric::samples()]);
        let names = ["a", "b", "c"];
        let frames: Vec<FrameId> = names.iter().map(|&n| profile.frames.intern(FrameRef::function(n))).collect();
        let mut parent = None;
        for depth in 0..DEPTH {
            parent = Some(profile.tree.push(parent, frames[depth % 2]));
        }
        let leaf = profile.tree.push(parent, frames[2]);
        profile.tree.set_self(0, leaf, Value::Int(5));
        let sibling = profile.tree.push(parent, frames[0]);
        profile.tree.set_self(0, sibling, Value::Int(7));
        let tree = &profile.tree;
        let starts = piece_starts(tree);
        let depths = tree.depths();
        let rebuilt: u64 = starts.iter().map(|&s| u64::from(depths[s as usize])).sum();
        assert!(rebuilt <= tree.len() as u64, "paths rebuilt: {rebuilt} frames for {} nodes", tree.len());
        let path: Vec<&str> = (0..DEPTH).map(|depth| names[depth % 2]).collect();
        let path = path.join(";");
        let expected = format!("{path};c 5\n{path};a 7\n");
        let mut written = Vec::new();
        write(&profile, Writing::new(&mut written, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        assert!(
            written == expected.as_bytes(),
            "the two stacks, {} bytes, differ from what was written",
            expected.len()
        );
    }

    /// A wide tree is still cut every PIECE nodes, for the two threads.
    #[test]
    fn a_shallow_tree_is_cut_every_piece() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        let frame = profile.frames.intern(FrameRef::function("f"));
        let root = profile.tree.push(None, frame);
        for _ in 0..3 * PIECE {
            profile.tree.push(Some(root), frame);
        }
        assert_eq!(piece_starts(&profile.tree), vec![0, PIECE, 2 * PIECE, 3 * PIECE]);
    }

    /// The size of a profile's folded output as [`Stacks::size`] works it out before writing.
    fn estimated_size(profile: &Profile) -> u64 {
        let (names, _) = Names::of(profile);
        let Values::Int(counts) = profile.tree.self_values(0) else { panic!("counts") };
        Stacks { tree: &profile.tree, names: &names, counts, empty: counts.iter().all(|&c| c == 0) }.size()
    }

    /// The estimate by hand: `a;b 3` (6 bytes), `d 12` (5), and `a;c` (a leaf of no count) and `a`
    /// (an inner node of no count) no line: 11 bytes; `Listener 1` is written with a two-byte
    /// no-break space, `Listener\u{a0}1 7` and its line end: 8 + 2 + 1 + 3 = 14 bytes.
    #[test]
    fn the_estimate_is_the_size_written_by_hand() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        let frame = |profile: &mut Profile, name: &str| profile.frames.intern(FrameRef::function(name));
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|name| frame(&mut profile, name));
        let root = profile.tree.push(None, a);
        let with_count = |profile: &mut Profile, parent, frame, count| {
            let node = profile.tree.push(parent, frame);
            profile.tree.set_self(0, node, Value::Int(count));
        };
        with_count(&mut profile, Some(root), b, 3);
        with_count(&mut profile, Some(root), c, 0);
        with_count(&mut profile, None, d, 12);
        assert_eq!(estimated_size(&profile), 11);
        let listener = frame(&mut profile, "Listener 1");
        with_count(&mut profile, None, listener, 7);
        assert_eq!(estimated_size(&profile), 11 + 14);
        let mut written = Vec::new();
        write(&profile, Writing::new(&mut written, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), "a;b 3\nd 12\nListener\u{a0}1 7\n");
    }

    /// The estimate against what is written, on trees in and out of pre-order, deep and wide.
    #[test]
    fn the_estimate_is_the_size_written() {
        let read = |text: &str| read(&mut text.as_bytes(), None, &Options::default(), &mut Diagnostics::default());
        let deep = format!("{} 5\n", vec!["f"; 5000].join(";"));
        let texts = ["a;b 1\nc 2\na;b;d 3\na 0\nc;e 40\n", "x 1\ny 2\nx;z 3\ny;z 4\nx 5\n", &deep];
        for text in texts {
            let profile = read(text).unwrap();
            let mut written = Vec::new();
            write(&profile, Writing::new(&mut written, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
            assert_eq!(estimated_size(&profile), written.len() as u64, "{text:.40}");
        }
    }

    /// Past the limit nothing is written, and the error gives the size, the input's and the option.
    #[test]
    fn output_past_the_limit_is_refused_before_a_byte_is_written() {
        let profile = read(&mut &b"a;b 1\nc 2\n"[..], None, &Options::default(), &mut Diagnostics::default()).unwrap();
        // `a;b 1` and `c 2`: 10 bytes.
        let mut options =
            ConvertOptions { max_output_size: Some(9), input_size: Some(10), ..ConvertOptions::default() };
        let mut written = Vec::new();
        let error = write(&profile, Writing::new(&mut written, &options, &mut Diagnostics::default())).unwrap_err();
        assert!(written.is_empty());
        assert_eq!(
            error.to_string(),
            "cannot write folded: it would be 10 bytes from an input of 10 bytes, more than --max-output-size 9 allows: it holds every stack whole, so a deep tree makes far more output than input; raise the limit with --max-output-size SIZE (K, M, G, T) to write it"
        );
        options.max_output_size = Some(10);
        write(&profile, Writing::new(&mut written, &options, &mut Diagnostics::default())).unwrap();
        assert_eq!(written, b"a;b 1\nc 2\n");
    }

    #[test]
    fn the_count_is_after_the_last_space() {
        let (stack, count) = split_line("main;do work 12").unwrap();
        assert_eq!((stack, count.unwrap()), ("main;do work", 12));
    }
}
