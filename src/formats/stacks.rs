//! Stacks into a call tree, for readers of formats of one stack per record (folded lines, pprof's
//! samples, speedscope's): consecutive records mostly share the start of their stacks (a profiler walks
//! them in order, a writer writes a tree's stacks depth first), so the nodes of the previous stack
//! are kept and only where the two part is the tree's child index asked.
//!
//! And the other way, for writers that write every stack whole (folded lines, Sampler's sample
//! records, speedscope's samples): the size of such an output, known before a byte is written, and
//! the limit it is held to. Such an output grows with a tree's depth times its leaves, not with its
//! nodes (an 8 MB input made 10 GB of folded stacks).

use super::options::ConvertOptions;
use crate::error::{Error, FormatName};
use crate::model::{CallTree, ChildIndex, FrameId, NodeId};
use std::io::Write;

/// The nodes of stacks added to one tree.
#[derive(Default)]
pub(crate) struct StackTree {
    index: ChildIndex,
    /// The previous stack, root first, and its nodes.
    frames: Vec<FrameId>,
    nodes: Vec<NodeId>,
    /// The stack being added, built by the caller.
    next: Vec<FrameId>,
}

impl StackTree {
    /// Makes room in `tree` for `additional` more nodes.
    pub(crate) fn reserve(&mut self, tree: &mut CallTree, additional: usize) {
        self.index.reserve(tree, additional);
    }

    /// The stack to fill, root first, for [`StackTree::add`]; empty.
    pub(crate) fn next(&mut self) -> &mut Vec<FrameId> {
        self.next.clear();
        &mut self.next
    }

    /// The node of the stack filled through [`StackTree::next`], added to `tree` with its ancestors
    /// where they are not there yet; `None` for an empty stack.
    pub(crate) fn add(&mut self, tree: &mut CallTree) -> Option<NodeId> {
        let common = self.frames.iter().zip(&self.next).take_while(|(a, b)| a == b).count();
        self.nodes.truncate(common);
        for &frame in &self.next[common..] {
            let parent = self.nodes.last().copied();
            self.nodes.push(self.index.child_or_insert(tree, parent, frame));
        }
        std::mem::swap(&mut self.frames, &mut self.next);
        self.nodes.last().copied()
    }

    /// The node of `frame` called from the last stack's innermost frame, which it makes the last
    /// stack's innermost: for events that open and close frames one at a time (speedscope's evented
    /// profiles), in constant time where [`StackTree::add`] would compare the whole stack.
    pub(crate) fn open(&mut self, tree: &mut CallTree, frame: FrameId) -> NodeId {
        let node = self.index.child_or_insert(tree, self.nodes.last().copied(), frame);
        self.frames.push(frame);
        self.nodes.push(node);
        node
    }

    /// Takes the innermost frame off the last stack, as its closing event does.
    pub(crate) fn close(&mut self) {
        self.frames.pop();
        self.nodes.pop();
    }

    /// The node of the last stack's innermost frame.
    pub(crate) fn innermost(&self) -> Option<NodeId> {
        self.nodes.last().copied()
    }
}

/// The bytes an output that writes stacks whole takes: `node_bytes(node)` is what a node adds to
/// the stacks through it (its frame and the separator before it), `lines(node, is_leaf)` how many
/// times the node's stack is written and the bytes each time besides the stack (a count, a line
/// end). One pass over the nodes, parents before children, with the stack's length carried per
/// node: no recursion, linear in the nodes however deep the tree. Saturates at `u64::MAX`.
pub(crate) fn whole_stacks_size(
    tree: &CallTree,
    node_bytes: impl Fn(NodeId) -> u64,
    lines: impl Fn(NodeId, bool) -> (u64, u64),
) -> u64 {
    let mut stack_bytes = vec![0u64; tree.len()];
    let mut has_child = vec![false; tree.len()];
    for node in tree.nodes() {
        let above = tree.parent(node).map_or(0, |parent| {
            has_child[parent.index()] = true;
            stack_bytes[parent.index()]
        });
        stack_bytes[node.index()] = above.saturating_add(node_bytes(node));
    }
    tree.nodes().fold(0u64, |total, node| {
        let (times, extra) = lines(node, !has_child[node.index()]);
        total.saturating_add(times.saturating_mul(stack_bytes[node.index()].saturating_add(extra)))
    })
}

/// Refuses to write `estimate` bytes of `format` when that is more than `options` allow
/// ([`ConvertOptions::output_limit`]), before anything is written, with the estimate, the input's
/// size and the option that lifts the limit.
pub(crate) fn check_output_size(format: FormatName, estimate: u64, options: &ConvertOptions) -> Result<(), Error> {
    match estimate <= options.output_limit() {
        true => Ok(()),
        false => Err(too_large(format, &format!("it would be {}", bytes(estimate)), WHOLE_STACKS, options)),
    }
}

/// Why an output of whole stacks is larger than its input.
pub(crate) const WHOLE_STACKS: &str = "it holds every stack whole, so a deep tree makes far more output than input";

/// The error for an output of `format` that `size` says is larger than `options` allow (`why`):
/// the size, the input's, and the option that lifts the limit.
pub(crate) fn too_large(format: FormatName, size: &str, why: &str, options: &ConvertOptions) -> Error {
    let limit = options.output_limit();
    let input = options.input_size.map_or_else(String::new, |size| format!(" from an input of {}", bytes(size)));
    let limit = match options.max_output_size {
        Some(_) => format!("--max-output-size {limit} allows"),
        None => format!(
            "the default limit of {} allows ({} times the input, at least 1 GiB)",
            bytes(limit),
            super::options::OUTPUT_PER_INPUT_BYTE
        ),
    };
    let what = format!(
        "{size}{input}, more than {limit}: {why}; raise the limit with --max-output-size SIZE (K, M, G, T) to write it"
    );
    Error::Unrepresentable { format, what }
}

/// A writer that passes on at most `limit` bytes (an output's [`ConvertOptions::output_limit`]):
/// a write past it fails, and [`Limited::passed`] says so, for the error [`too_large`] makes of it.
/// Every writer's output goes through one, so that an output whose size is not worked out before
/// it is written (a tree a call graph expanded into, written by a writer of nodes) stops there too.
pub(crate) struct Limited<'w> {
    out: &'w mut dyn Write,
    left: u64,
    passed: bool,
}

impl<'w> Limited<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, limit: u64) -> Limited<'w> {
        Limited { out, left: limit, passed: false }
    }

    /// The error a writer's `result` becomes where a write passed the limit: what writing `format`
    /// came to, as [`too_large`] says it.
    pub(crate) fn result<T>(
        &self,
        format: FormatName,
        result: Result<T, Error>,
        options: &ConvertOptions,
    ) -> Result<T, Error> {
        if !self.passed {
            return result;
        }
        let size = format!("it would be more than {}", bytes(options.output_limit()));
        let why = "its tree is far larger than its input (as a call graph expanded into a tree can be), and writing it stopped there";
        Err(too_large(format, &size, why, options))
    }
}

impl Write for Limited<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.left {
            self.passed = true;
            return Err(std::io::Error::other("the output passed its limit (--max-output-size)"));
        }
        let n = self.out.write(buf)?;
        self.left -= n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// `bytes` as a message gives a size: exact, and in TiB, GiB, MiB or KiB beside it when large.
pub(crate) fn bytes(bytes: u64) -> String {
    let unit = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")].into_iter().find(|&(shift, _)| bytes >> shift > 0);
    match unit {
        Some((shift, name)) => format!("{bytes} bytes ({:.1} {name})", bytes as f64 / (1u64 << shift) as f64),
        None => format!("{bytes} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metric;

    #[test]
    fn stacks_share_their_nodes_wherever_they_come() {
        let mut tree = CallTree::new(&[Metric::samples()]);
        let mut stacks = StackTree::default();
        let mut add = |frames: &[u32]| {
            stacks.next().extend(frames.iter().map(|&f| FrameId(f)));
            stacks.add(&mut tree).map(|n| n.0)
        };
        // a;b, a;b;c (shares a;b), d, a;b again (after another stack: from the index), nothing.
        assert_eq!(
            [add(&[0, 1]), add(&[0, 1, 2]), add(&[3]), add(&[0, 1]), add(&[])],
            [Some(1), Some(2), Some(3), Some(1), None]
        );
        assert_eq!(tree.len(), 4);
    }

    /// A chain a million deep (no recursion to overflow) with two leaves, each stack written three
    /// times: 2 leaves × 3 × (1,000,001 frames of 2 bytes + 10 bytes a line) = 12,000,072.
    #[test]
    fn the_size_of_whole_stacks_of_a_deep_chain() {
        let mut tree = CallTree::new(&[Metric::samples()]);
        let parent = tree.push_chain(1_000_000, |_| FrameId(0));
        let leaves = [tree.push(parent, FrameId(1)), tree.push(parent, FrameId(2))];
        let size = whole_stacks_size(
            &tree,
            |_| 2,
            |node, is_leaf| {
                assert_eq!(is_leaf, leaves.contains(&node));
                if is_leaf {
                    (3, 10)
                } else {
                    (0, 0)
                }
            },
        );
        assert_eq!(size, 12_000_072);
    }

    #[test]
    fn the_default_limit_is_a_hundred_times_the_input_and_at_least_a_gibibyte() {
        let options = |input_size| ConvertOptions { input_size, ..ConvertOptions::default() };
        assert_eq!(options(None).output_limit(), 1 << 30);
        assert_eq!(options(Some(1000)).output_limit(), 1 << 30);
        assert_eq!(options(Some(20 << 20)).output_limit(), 2000 << 20);
        let error = check_output_size(crate::error::FormatName("folded"), (2000 << 20) + 1, &options(Some(20 << 20)))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot write folded: it would be 2097152001 bytes (2.0 GiB) from an input of 20971520 bytes (20.0 MiB), more than the default limit of 2097152000 bytes (2.0 GiB) allows (100 times the input, at least 1 GiB): it holds every stack whole, so a deep tree makes far more output than input; raise the limit with --max-output-size SIZE (K, M, G, T) to write it"
        );
    }
}
