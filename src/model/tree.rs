//! The call tree: an arena of nodes stored column-wise.
//!
//! Node `i` has a frame (`frames[i]`), a parent (`parents[i]`, or none for a root) and one **self**
//! value per metric (`self_values[m][i]`). Invariants:
//!
//! - **Parents come before their children**: `parent(i) < i`. Readers append nodes as they meet them,
//!   so derived inclusive values are one reverse pass over the arena, and no algorithm here recurses:
//!   a path a million frames deep costs memory, never stack.
//! - Children keep **source order**: the order of their ids. [`Children`] lists them for a pre-order
//!   [`Walk`] without the nodes having to store child lists while the tree is being read.
//! - Several roots are normal (threads, processes, several top-level functions).
//! - Siblings may share a frame when the source repeats one (a LispWorks file can); readers of
//!   sample-per-record formats merge them through [`ChildIndex`], and [`super::ops::normalize`] merges
//!   them for comparisons.
//! - Where a format measures inclusive values itself (Dyalog), they are kept beside the self values in
//!   an optional `measured_inclusive` column so that a same-format round trip is exact.
//!
//! A node costs 8 bytes plus 8 bytes per metric, so memory grows with distinct nodes, not with the
//! number of samples that built them.

use super::frame::FrameId;
use super::metric::{Metric, Value, Values};
use rustc_hash::FxHashMap;

/// Index of a node in its [`CallTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

const NO_PARENT: u32 = u32::MAX;

/// The call tree of a profile. See the module documentation for its invariants.
#[derive(Clone, Debug, PartialEq)]
pub struct CallTree {
    frames: Vec<FrameId>,
    parents: Vec<u32>,
    self_values: Vec<Values>,
    measured_inclusive: Vec<Option<Values>>,
}

impl CallTree {
    /// An empty tree with one value column per metric.
    pub fn new(metrics: &[Metric]) -> CallTree {
        CallTree {
            frames: Vec::new(),
            parents: Vec::new(),
            self_values: metrics.iter().map(|m| Values::new(m.repr)).collect(),
            measured_inclusive: vec![None; metrics.len()],
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the tree has no nodes.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Number of metric columns.
    pub fn n_metrics(&self) -> usize {
        self.self_values.len()
    }

    /// Appends a node under `parent` (a root when `None`) with all values zero.
    ///
    /// # Panics
    /// If `parent` is not a node of this tree: parents always come before children.
    pub fn push(&mut self, parent: Option<NodeId>, frame: FrameId) -> NodeId {
        let id = NodeId(self.frames.len() as u32);
        let parent = match parent {
            Some(p) => {
                assert!(p.0 < id.0, "parent {p:?} must exist before child {id:?}");
                p.0
            }
            None => NO_PARENT,
        };
        self.frames.push(frame);
        self.parents.push(parent);
        for column in &mut self.self_values {
            column.push_zero();
        }
        for column in self.measured_inclusive.iter_mut().flatten() {
            column.push_zero();
        }
        id
    }

    /// The frame of `node`.
    pub fn frame(&self, node: NodeId) -> FrameId {
        self.frames[node.index()]
    }

    /// The parent of `node`, or `None` for a root.
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        match self.parents[node.index()] {
            NO_PARENT => None,
            p => Some(NodeId(p)),
        }
    }

    /// All node ids, parents before children.
    pub fn nodes(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        (0..self.frames.len() as u32).map(NodeId)
    }

    /// The roots, in source order.
    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes()
            .filter(|&n| self.parents[n.index()] == NO_PARENT)
    }

    /// The self values of metric `metric`, one per node.
    pub fn self_values(&self, metric: usize) -> &Values {
        &self.self_values[metric]
    }

    /// The self value of `node` for `metric`.
    pub fn self_value(&self, metric: usize, node: NodeId) -> Value {
        self.self_values[metric].get(node.index())
    }

    /// Adds `value` to the self value of `node` for `metric`.
    pub fn add_self(&mut self, metric: usize, node: NodeId, value: Value) {
        self.self_values[metric].add(node.index(), value);
    }

    /// Overwrites the self value of `node` for `metric`.
    pub fn set_self(&mut self, metric: usize, node: NodeId, value: Value) {
        self.self_values[metric].set(node.index(), value);
    }

    /// Inclusive values as the source measured them, when it did.
    pub fn measured_inclusive(&self, metric: usize) -> Option<&Values> {
        self.measured_inclusive[metric].as_ref()
    }

    /// Sets the measured inclusive value of `node` for `metric`, creating the column (all zeros) the
    /// first time.
    pub fn set_measured_inclusive(&mut self, metric: usize, node: NodeId, value: Value) {
        let len = self.len();
        let repr = self.self_values[metric].repr();
        self.measured_inclusive[metric]
            .get_or_insert_with(|| Values::zeros(repr, len))
            .set(node.index(), value);
    }

    /// Inclusive values derived from the self values: self plus the inclusive values of the children.
    /// Computed in one reverse pass (children come after parents). Meaningful for additive metrics.
    pub fn derived_inclusive(&self, metric: usize) -> Values {
        let mut total = self.self_values[metric].clone();
        for node in self.nodes().rev() {
            if let Some(parent) = self.parent(node) {
                let v = total.get(node.index());
                total.add(parent.index(), v);
            }
        }
        total
    }

    /// The depth of every node (roots are at depth 0).
    pub fn depths(&self) -> Vec<u32> {
        let mut depth = vec![0u32; self.len()];
        for node in self.nodes() {
            if let Some(parent) = self.parent(node) {
                depth[node.index()] = depth[parent.index()] + 1;
            }
        }
        depth
    }

    /// Whether two siblings (or two roots) share a frame. O(n) time, O(frames) memory.
    pub fn has_duplicate_siblings(&self, children: &Children, n_frames: usize) -> bool {
        // last_parent[f] = the parent (+1; 0 for the roots' level) whose child list last showed f.
        let mut last_parent = vec![u32::MAX; n_frames];
        let mut check = |parent: u32, kids: &[NodeId]| {
            kids.iter().any(|&kid| {
                let slot = &mut last_parent[self.frame(kid).index()];
                let dup = *slot == parent;
                *slot = parent;
                dup
            })
        };
        check(0, children.roots())
            || self
                .nodes()
                .any(|node| check(node.0 + 1, children.of_node(node)))
    }

    /// The child lists of every node, for walking the tree top-down.
    pub fn children(&self) -> Children {
        Children::of(self)
    }

    /// A pre-order walk over the whole tree, roots in source order, children in source order.
    pub fn walk<'c>(&self, children: &'c Children) -> Walk<'c> {
        let mut stack: Vec<(NodeId, u32)> = children.roots.iter().rev().map(|&r| (r, 0)).collect();
        stack.reserve(64);
        Walk { children, stack }
    }

    /// Keeps the nodes for which `keep` is true, renumbering them in order. Every kept node's parent
    /// must be kept too; `keep` comes from a top-down pass.
    pub(crate) fn retain(&mut self, keep: &[bool]) {
        let mut new_id = vec![NO_PARENT; self.len()];
        let mut next = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                new_id[i] = next;
                next += 1;
            }
        }
        let mut i = 0;
        self.frames.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        let mut i = 0;
        self.parents.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        for p in &mut self.parents {
            if *p != NO_PARENT {
                *p = new_id[*p as usize];
            }
        }
        for column in &mut self.self_values {
            column.retain_indices(keep);
        }
        for column in self.measured_inclusive.iter_mut().flatten() {
            column.retain_indices(keep);
        }
    }

    /// Drops every metric column whose index `keep` rejects.
    pub(crate) fn retain_metrics(&mut self, keep: &[bool]) {
        let mut i = 0;
        self.self_values.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        let mut i = 0;
        self.measured_inclusive.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// Points every node at `map[old frame]` (used when frames are renamed and merge).
    pub(crate) fn remap_frames(&mut self, map: &[FrameId]) {
        for frame in &mut self.frames {
            *frame = map[frame.index()];
        }
    }

    /// Replaces the self values of `metric` (used when converting units).
    pub(crate) fn replace_metric(&mut self, metric: usize, values: Values) {
        debug_assert_eq!(values.len(), self.len());
        self.self_values[metric] = values;
        self.measured_inclusive[metric] = None;
    }
}

/// Child lists of a [`CallTree`] in compressed form (two arrays, 8 bytes per node), built in O(n).
#[derive(Clone, Debug)]
pub struct Children {
    start: Vec<u32>,
    list: Vec<NodeId>,
    roots: Vec<NodeId>,
}

impl Children {
    fn of(tree: &CallTree) -> Children {
        let n = tree.len();
        let mut start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for node in tree.nodes() {
            match tree.parent(node) {
                Some(p) => start[p.index() + 1] += 1,
                None => roots.push(node),
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![NodeId(0); start[n] as usize];
        for node in tree.nodes() {
            if let Some(p) = tree.parent(node) {
                let slot = &mut fill[p.index()];
                list[*slot as usize] = node;
                *slot += 1;
            }
        }
        Children { start, list, roots }
    }

    /// The children of `node`, in source order.
    pub fn of_node(&self, node: NodeId) -> &[NodeId] {
        &self.list[self.start[node.index()] as usize..self.start[node.index() + 1] as usize]
    }

    /// The roots, in source order.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// Sorts every child list and the roots by `key` (stable: equal keys keep source order).
    pub fn sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(NodeId) -> K) {
        for i in 0..self.start.len() - 1 {
            let (lo, hi) = (self.start[i] as usize, self.start[i + 1] as usize);
            self.list[lo..hi].sort_by_key(|&n| key(n));
        }
        self.roots.sort_by_key(|&n| key(n));
    }
}

/// Pre-order walk yielding `(node, depth)`; see [`CallTree::walk`].
pub struct Walk<'c> {
    children: &'c Children,
    stack: Vec<(NodeId, u32)>,
}

impl Iterator for Walk<'_> {
    type Item = (NodeId, u32);

    fn next(&mut self) -> Option<(NodeId, u32)> {
        let (node, depth) = self.stack.pop()?;
        let kids = self.children.of_node(node);
        self.stack
            .extend(kids.iter().rev().map(|&c| (c, depth + 1)));
        Some((node, depth))
    }
}

/// Finds or adds the child of a node with a given frame: how readers of sample-per-record formats
/// aggregate stacks into the tree as they read (fxprof's `handle_for_stack`). Only valid for a tree
/// that was built entirely through it.
#[derive(Debug, Default)]
pub struct ChildIndex {
    map: FxHashMap<(u32, FrameId), NodeId>,
}

impl ChildIndex {
    /// The child of `parent` (a root when `None`) with frame `frame`, added if there is none yet.
    pub fn child_or_insert(
        &mut self,
        tree: &mut CallTree,
        parent: Option<NodeId>,
        frame: FrameId,
    ) -> NodeId {
        let key = (parent.map_or(NO_PARENT, |p| p.0), frame);
        *self
            .map
            .entry(key)
            .or_insert_with(|| tree.push(parent, frame))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_abc() -> CallTree {
        // a -> b -> c, a -> d, root e
        let mut t = CallTree::new(&[Metric::samples()]);
        let a = t.push(None, FrameId(0));
        let b = t.push(Some(a), FrameId(1));
        let c = t.push(Some(b), FrameId(2));
        let _d = t.push(Some(a), FrameId(3));
        let _e = t.push(None, FrameId(4));
        t.set_self(0, c, Value::Int(5));
        t.set_self(0, a, Value::Int(1));
        t
    }

    #[test]
    fn walk_is_preorder_with_depths() {
        let t = tree_abc();
        let ch = t.children();
        let order: Vec<(u32, u32)> = t.walk(&ch).map(|(n, d)| (n.0, d)).collect();
        assert_eq!(order, vec![(0, 0), (1, 1), (2, 2), (3, 1), (4, 0)]);
    }

    #[test]
    fn derived_inclusive_sums_subtrees() {
        let t = tree_abc();
        assert_eq!(t.derived_inclusive(0), Values::Int(vec![6, 5, 5, 0, 0]));
    }

    #[test]
    fn deep_paths_do_not_recurse() {
        let mut t = CallTree::new(&[Metric::samples()]);
        let mut parent = None;
        for _ in 0..1_000_000 {
            parent = Some(t.push(parent, FrameId(0)));
        }
        let ch = t.children();
        assert_eq!(t.walk(&ch).count(), 1_000_000);
        assert_eq!(t.depths()[999_999], 999_999);
    }

    #[test]
    fn retain_renumbers_parents() {
        let mut t = tree_abc();
        t.retain(&[true, false, false, true, true]);
        assert_eq!(t.len(), 3);
        assert_eq!(t.parent(NodeId(1)), Some(NodeId(0)));
        assert_eq!(t.frame(NodeId(1)), FrameId(3));
    }
}
