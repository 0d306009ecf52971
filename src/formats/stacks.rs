//! Stacks into a call tree, for readers of formats of one stack per record (folded lines, pprof's
//! samples, speedscope's): consecutive records mostly share the start of their stacks (a profiler walks
//! them in order, a writer writes a tree's stacks depth first), so the nodes of the previous stack
//! are kept and only where the two part is the tree's child index asked.

use crate::model::{CallTree, ChildIndex, FrameId, NodeId};

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
}
