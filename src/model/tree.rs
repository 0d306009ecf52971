//! The call tree: an arena of nodes stored column-wise.
//!
//! Node `i` has a frame (`frames[i]`), a parent (`parents[i]`, or none for a root) and one **self**
//! value per metric (`self_values[m][i]`). Invariants:
//!
//! - **Parents come before their children**: `parent(i) < i`. Readers append nodes as they meet them,
//!   so derived inclusive values are one reverse pass over the arena, and no algorithm here recurses:
//!   a path a million frames deep costs memory, never stack.
//! - Children keep **source order**: the order of their ids.
//! - The tree knows whether its nodes were appended in **pre-order** (every parent is the previous
//!   node or one of its ancestors), as readers of indented or depth-numbered trees append them. Such a
//!   tree is walked top-down straight through the arena; any other is walked through [`Children`],
//!   child lists built on demand (8 bytes a node). Either way a [`Walk`] is depth-first, children in
//!   source order.
//! - Several roots are normal (threads, processes, several top-level functions).
//! - Siblings may share a frame when the source repeats one (a LispWorks file can); readers of
//!   sample-per-record formats merge them through [`ChildIndex`], and [`super::ops::normalize`] merges
//!   them for comparisons. While nodes arrive in pre-order the tree notes, at the cost of a small set
//!   per open level, whether any siblings share a frame, so writers of stack formats know without a
//!   second pass whether they must merge.
//! - Where a format measures inclusive values itself (Dyalog), they are kept beside the self values in
//!   an optional `measured_inclusive` column so that a same-format round trip is exact.
//!
//! A node costs 8 bytes plus 8 bytes per metric, so memory grows with distinct nodes, not with the
//! number of samples that built them.

use super::frame::FrameId;
use super::metric::{Metric, Value, Values};
use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::hash::BuildHasher;

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
#[derive(Clone, Debug)]
pub struct CallTree {
    frames: Vec<FrameId>,
    parents: Vec<u32>,
    self_values: Vec<Values>,
    measured_inclusive: Vec<Option<Values>>,
    layout: Layout,
}

/// The frames of an open node's children so far: most nodes have a handful of children, kept
/// inline and searched in order; a set is taken only past that.
#[derive(Clone, Debug)]
enum Siblings {
    Few(u8, [FrameId; FEW_SIBLINGS]),
    Many(FxHashSet<FrameId>),
}

const FEW_SIBLINGS: usize = 8;

impl Siblings {
    const NONE: Siblings = Siblings::Few(0, [FrameId(0); FEW_SIBLINGS]);

    /// Adds `frame`; false if a sibling already has it.
    fn insert(&mut self, frame: FrameId, spare: &mut Vec<FxHashSet<FrameId>>) -> bool {
        match self {
            Siblings::Few(n, frames) => {
                let seen = &frames[..usize::from(*n)];
                if seen.contains(&frame) {
                    return false;
                }
                if seen.len() < FEW_SIBLINGS {
                    frames[usize::from(*n)] = frame;
                    *n += 1;
                } else {
                    let mut set = spare.pop().unwrap_or_default();
                    set.extend(seen.iter().copied());
                    set.insert(frame);
                    *self = Siblings::Many(set);
                }
                true
            }
            Siblings::Many(set) => set.insert(frame),
        }
    }
}

/// What the tree knows about the order its nodes were appended in.
#[derive(Clone, Debug)]
struct Layout {
    /// Every node so far was appended in pre-order.
    preorder: bool,
    /// Siblings may share a frame (seen, or not known otherwise).
    duplicates_possible: bool,
    /// While `preorder`: the path to the last node, and the frames of each one's children so far
    /// (two lists: a pair pushed whole is built aside in narrow stores and read back in wide
    /// loads, which stall); `root_frames` holds the roots' frames.
    open: Vec<NodeId>,
    open_siblings: Vec<Siblings>,
    root_frames: FxHashSet<FrameId>,
    /// Emptied sets kept for reuse, so a deep walk does not allocate a set per node.
    spare: Vec<FxHashSet<FrameId>>,
    /// Tracking stopped with what was known (after nodes were removed or frames merged).
    sealed: bool,
}

impl Layout {
    fn new() -> Layout {
        Layout {
            preorder: true,
            duplicates_possible: false,
            open: Vec::new(),
            open_siblings: Vec::new(),
            root_frames: FxHashSet::default(),
            spare: Vec::new(),
            sealed: false,
        }
    }

    /// Records a node appended under `parent`; `unique` when the caller guarantees no sibling has its
    /// frame.
    fn append(&mut self, node: NodeId, parent: Option<NodeId>, frame: FrameId, unique: bool) {
        if self.sealed {
            self.forget_order();
        }
        if self.preorder {
            while self.open.last().is_some_and(|&open| Some(open) != parent) {
                self.close_last();
            }
            let fresh = match (parent, self.open_siblings.last_mut()) {
                (None, _) => Some(self.root_frames.insert(frame)),
                (Some(_), Some(siblings)) => Some(siblings.insert(frame, &mut self.spare)),
                (Some(_), None) => None,
            };
            match fresh {
                Some(fresh) => {
                    self.duplicates_possible |= !fresh;
                    self.open.push(node);
                    self.open_siblings.push(Siblings::NONE);
                    return;
                }
                None => self.forget_order(),
            }
        }
        if !unique {
            self.duplicates_possible = true;
        }
    }

    fn close_last(&mut self) {
        self.open.pop();
        if let Some(Siblings::Many(mut set)) = self.open_siblings.pop() {
            // A set that once held many frames is dropped rather than kept: clearing it costs its
            // capacity, and it would be cleared again for every small sibling list.
            if set.capacity() <= 64 {
                set.clear();
                self.spare.push(set);
            }
        }
    }

    /// Keeps what is known about the nodes so far but stops tracking: a node appended after this
    /// makes the tree unordered, and possibly with duplicate siblings.
    fn seal(&mut self) {
        let preorder = self.preorder;
        self.forget_order();
        self.preorder = preorder;
        self.sealed = true;
    }

    /// Stops tracking pre-order: from here on the tree is walked through child lists.
    fn forget_order(&mut self) {
        self.preorder = false;
        self.sealed = false;
        self.open = Vec::new();
        self.open_siblings = Vec::new();
        self.root_frames = FxHashSet::default();
        self.spare = Vec::new();
    }
}

impl CallTree {
    /// An empty tree with one value column per metric.
    pub fn new(metrics: &[Metric]) -> CallTree {
        CallTree {
            frames: Vec::new(),
            parents: Vec::new(),
            self_values: metrics.iter().map(|m| Values::new(m.repr)).collect(),
            measured_inclusive: vec![None; metrics.len()],
            layout: Layout::new(),
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

    /// Makes room for `additional` more nodes, for a reader that knows how many are coming.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.frames.reserve(additional);
        self.parents.reserve(additional);
        for column in &mut self.self_values {
            column.reserve(additional);
        }
    }

    /// Appends a node under `parent` (a root when `None`) with all values zero.
    ///
    /// # Panics
    /// If `parent` is not a node of this tree: parents always come before children.
    pub fn push(&mut self, parent: Option<NodeId>, frame: FrameId) -> NodeId {
        self.append(parent, frame, false)
    }

    fn append(&mut self, parent: Option<NodeId>, frame: FrameId, unique: bool) -> NodeId {
        let id = NodeId(self.frames.len() as u32);
        self.layout.append(id, parent, frame, unique);
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
        self.nodes().filter(|&n| self.parents[n.index()] == NO_PARENT)
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
    pub(crate) fn set_measured_inclusive(&mut self, metric: usize, node: NodeId, value: Value) {
        let len = self.len();
        let repr = self.self_values[metric].repr();
        self.measured_inclusive[metric].get_or_insert_with(|| Values::zeros(repr, len)).set(node.index(), value);
    }

    /// Inclusive values derived from the self values: self plus the inclusive values of the children.
    /// Computed in one reverse pass (children come after parents). Meaningful for additive metrics.
    pub fn derived_inclusive(&self, metric: usize) -> Values {
        let mut total = self.self_values[metric].clone();
        match &mut total {
            Values::Int(values) => self.add_up(values, |sum, v| sum.saturating_add(v)),
            Values::Float(values) => self.add_up(values, |sum, v| sum + v),
        }
        total
    }

    /// [`CallTree::derived_inclusive`], each float sum of several values the shortest decimal within
    /// the rounding error of adding them ([`super::decimal_sum`]: `51`, not `51.000000000000014`).
    /// For writers of text, whose readers would take the noise for a figure.
    pub fn derived_inclusive_decimal(&self, metric: usize) -> Values {
        let mut total = self.derived_inclusive(metric);
        if let Values::Float(sums) = &mut total {
            let mut terms = vec![1u32; self.len()];
            self.add_up(&mut terms, u32::saturating_add);
            let mut magnitudes = self.self_values(metric).to_f64();
            magnitudes.iter_mut().for_each(|v| *v = v.abs());
            self.add_up(&mut magnitudes, |sum, v| sum + v);
            for ((sum, &terms), &magnitude) in sums.iter_mut().zip(&terms).zip(&magnitudes) {
                // Only a sum that prints as noise (16 or more significant digits) is worth the search.
                if significant_digits(*sum) >= 16 {
                    *sum = super::decimal_sum(*sum, u64::from(terms), magnitude);
                }
            }
        }
        total
    }

    /// Adds every value of `values` (one per node) into its parent's, children first, with `add`.
    fn add_up<T: Copy>(&self, values: &mut [T], add: impl Fn(T, T) -> T) {
        for (node, &parent) in self.parents.iter().enumerate().rev() {
            if parent != NO_PARENT {
                values[parent as usize] = add(values[parent as usize], values[node]);
            }
        }
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

    /// Whether the nodes were appended in pre-order (then [`CallTree::walk`] needs no child lists).
    pub fn is_preorder(&self) -> bool {
        self.layout.preorder
    }

    /// The child lists of every node, for walking the tree top-down.
    pub fn children(&self) -> Children {
        Children::of(self)
    }

    /// A depth-first walk over the whole tree, roots and children in source order.
    pub fn walk(&self) -> Walk<'_> {
        if self.layout.preorder {
            Walk::Arena { tree: self, next: 0, end: self.len() as u32, path: Vec::with_capacity(64) }
        } else {
            self.walk_with(self.children())
        }
    }

    /// The part of [`CallTree::walk`] that visits the nodes `range` of a tree built in pre-order (whose
    /// walk is arena order), so that parts of a walk can be taken on several threads; `None` for
    /// any other tree. A part starts from [`CallTree::ancestors`] of its first node.
    pub fn walk_part(&self, range: std::ops::Range<u32>) -> Option<Walk<'_>> {
        if !self.layout.preorder {
            return None;
        }
        let end = range.end.min(self.len() as u32);
        let start = range.start.min(end);
        let path = if start < end { self.ancestors(NodeId(start)) } else { Vec::new() };
        Some(Walk::Arena { tree: self, next: start, end, path })
    }

    /// `of_root` of each node's root (a root's own), by node index: one pass, parents first.
    pub fn per_root<T: Copy>(&self, of_root: impl Fn(NodeId) -> T) -> Vec<T> {
        let mut values: Vec<T> = Vec::with_capacity(self.len());
        for node in self.nodes() {
            let value = match self.parent(node) {
                Some(parent) => values[parent.index()],
                None => of_root(node),
            };
            values.push(value);
        }
        values
    }

    /// The place of each node's root among the roots ([`CallTree::roots`]' order), by node index:
    /// which thread a node is in, where the roots are threads written in order.
    pub fn root_places(&self) -> Vec<usize> {
        let mut places: Vec<usize> = Vec::with_capacity(self.len());
        let mut roots = 0;
        for node in self.nodes() {
            let place = match self.parent(node) {
                Some(parent) => places[parent.index()],
                None => {
                    roots += 1;
                    roots - 1
                }
            };
            places.push(place);
        }
        places
    }

    /// Fills `stack` with the frames from `node` up to its root, `node`'s first (a buffer reused
    /// from stack to stack: writers of one stack per sample call it per sample).
    pub fn frames_up(&self, node: NodeId, stack: &mut Vec<FrameId>) {
        stack.clear();
        let mut at = Some(node);
        while let Some(node) = at {
            stack.push(self.frame(node));
            at = self.parent(node);
        }
    }

    /// The ancestors of `node`, root first (none for a root or a node not in the tree).
    pub fn ancestors(&self, node: NodeId) -> Vec<NodeId> {
        let mut path = Vec::new();
        let mut at = self.parents.get(node.index()).copied().unwrap_or(NO_PARENT);
        while at != NO_PARENT {
            path.push(NodeId(at));
            at = self.parents[at as usize];
        }
        path.reverse();
        path
    }

    /// Calls `f` with each node `walk` visits and its stack: the frames from its root down to it, for
    /// writers of stack formats. Stops at the first error.
    pub fn for_each_stack<E>(
        &self,
        walk: Walk<'_>,
        mut f: impl FnMut(Visit, &[FrameId]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stack: Vec<FrameId> = walk.ancestors().iter().map(|&n| self.frame(n)).collect();
        for visit in walk {
            stack.truncate(visit.depth as usize);
            stack.push(self.frame(visit.node));
            f(visit, &stack)?;
        }
        Ok(())
    }

    /// A depth-first walk in the order of `children` (which may have been sorted).
    pub fn walk_with(&self, children: Children) -> Walk<'_> {
        let roots = children.roots.clone();
        Walk::lists(Cow::Owned(children), &roots)
    }

    /// The part of [`CallTree::walk_with`] that visits the subtrees of `roots` (some of
    /// `children`'s roots, in their order).
    pub fn walk_roots<'t>(&'t self, children: &'t Children, roots: &[NodeId]) -> Walk<'t> {
        Walk::lists(Cow::Borrowed(children), roots)
    }

    /// [`CallTree::walk_with`] `children` cut into parts of about `size` nodes, in walk order, each
    /// walked on its own by [`CallTree::walk_stretch`], so that a walk can be taken on several
    /// threads whatever the order the tree was built in and however few its roots. A subtree
    /// larger than `size` is cut below its root, which is then a stretch's node alone. A part ends
    /// only where the next starts no deeper than the part is long, so that rebuilding the path to
    /// its first node costs at most what the part before it did: a deep chain stays linear.
    pub(crate) fn walk_stretches(&self, children: &Children, size: u32) -> Vec<Vec<Stretch>> {
        // Parents come before their children: one backward pass sums the subtrees.
        let mut sizes = vec![1u32; self.len()];
        for node in (0..self.len()).rev() {
            if let Some(parent) = self.parent(NodeId(node as u32)) {
                sizes[parent.index()] += sizes[node];
            }
        }
        let (mut parts, mut part, mut length) = (Vec::new(), Vec::new(), 0u32);
        let mut stack: Vec<(NodeId, u32)> = children.roots().iter().rev().map(|&r| (r, 0)).collect();
        while let Some((node, depth)) = stack.pop() {
            if length >= size && depth <= length {
                parts.push(std::mem::take(&mut part));
                length = 0;
            }
            let whole = sizes[node.index()] <= size;
            part.push(Stretch { node, depth, whole });
            if whole {
                length += sizes[node.index()];
            } else {
                length += 1;
                stack.extend(children.of_node(node).iter().rev().map(|&c| (c, depth + 1)));
            }
        }
        if !part.is_empty() {
            parts.push(part);
        }
        parts
    }

    /// The walk over one part of [`CallTree::walk_stretches`], from the ancestors of its first node.
    pub(crate) fn walk_stretch<'t>(&'t self, children: &'t Children, part: &[Stretch]) -> Walk<'t> {
        let path = part.first().map_or_else(Vec::new, |first| self.ancestors(first.node));
        let stack = part.iter().rev().map(|s| (s.node, s.depth, s.whole)).collect();
        Walk::Lists { children: Cow::Borrowed(children), stack, path }
    }

    /// Whether two siblings (or two roots) share a frame. Known without a pass for trees built in
    /// pre-order or through `ChildIndex`; otherwise one pass over child lists.
    pub fn has_duplicate_siblings(&self, n_frames: usize) -> bool {
        if !self.layout.duplicates_possible {
            return false;
        }
        let children = self.children();
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
        check(0, children.roots()) || self.nodes().any(|node| check(node.0 + 1, children.of_node(node)))
    }

    /// Drops every metric column whose index `keep` rejects.
    pub(crate) fn retain_metrics(&mut self, keep: &[bool]) {
        super::retain_by_mask(&mut self.self_values, keep);
        super::retain_by_mask(&mut self.measured_inclusive, keep);
    }

    /// Points `node` at another frame; siblings may then share a frame.
    pub(crate) fn set_frame(&mut self, node: NodeId, frame: FrameId) {
        self.frames[node.index()] = frame;
        self.layout.duplicates_possible = true;
        self.layout.seal();
    }

    /// Points every node at `map[old frame]` (used when frames are renamed and merge).
    pub(crate) fn remap_frames(&mut self, map: &[FrameId]) {
        for frame in &mut self.frames {
            *frame = map[frame.index()];
        }
        let mut targets: Vec<FrameId> = map.to_vec();
        targets.sort_unstable();
        targets.dedup();
        if targets.len() < map.len() {
            // Two frames became one: siblings may now share it.
            self.layout.duplicates_possible = true;
        }
        self.layout.seal();
    }

    /// Replaces the self values of `metric` (used when converting units).
    pub(crate) fn replace_metric(&mut self, metric: usize, values: Values) {
        debug_assert_eq!(values.len(), self.len());
        self.self_values[metric] = values;
        self.measured_inclusive[metric] = None;
    }

    /// Adds a value column (for a metric the profile declares last).
    pub(crate) fn add_column(&mut self, values: Values) {
        debug_assert_eq!(values.len(), self.len());
        self.self_values.push(values);
        self.measured_inclusive.push(None);
    }

    /// Drops every measured inclusive column: for targets that only derive inclusive values.
    pub(crate) fn forget_measured_inclusive(&mut self) {
        self.measured_inclusive.iter_mut().for_each(|m| *m = None);
    }

    /// Drops the measured inclusive values of `metric`.
    pub(crate) fn forget_measured_inclusive_of(&mut self, metric: usize) {
        self.measured_inclusive[metric] = None;
    }

    /// Sets every measured inclusive value of `metric` (a column of its representation).
    pub(crate) fn set_measured_inclusive_column(&mut self, metric: usize, inclusive: Values) {
        debug_assert_eq!(inclusive.len(), self.len());
        debug_assert_eq!(inclusive.repr(), self.self_values[metric].repr());
        self.measured_inclusive[metric] = Some(inclusive);
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

/// One step of a [`Walk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    /// The node.
    pub node: NodeId,
    /// Its depth (roots at 0).
    pub depth: u32,
    /// Whether it has no children.
    pub is_leaf: bool,
}

/// Depth-first walk over a tree; see [`CallTree::walk`].
pub enum Walk<'t> {
    /// Straight through the arena of a tree built in pre-order.
    Arena {
        /// The tree.
        tree: &'t CallTree,
        /// The next node.
        next: u32,
        /// Where the walk stops (the tree's length for a whole walk).
        end: u32,
        /// The path to the previous node.
        path: Vec<NodeId>,
    },
    /// Through child lists.
    Lists {
        /// The child lists.
        children: Cow<'t, Children>,
        /// Nodes still to visit, with their depth and whether their children are visited too.
        stack: Vec<(NodeId, u32, bool)>,
        /// The nodes above the first node visited, root first.
        path: Vec<NodeId>,
    },
}

/// A node of a part of a walk ([`CallTree::walk_stretches`]) at its depth, with or without the
/// nodes below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stretch {
    node: NodeId,
    depth: u32,
    whole: bool,
}

impl<'t> Walk<'t> {
    /// A walk through `children` from `roots`.
    fn lists(children: Cow<'t, Children>, roots: &[NodeId]) -> Walk<'t> {
        let mut stack: Vec<(NodeId, u32, bool)> = roots.iter().rev().map(|&r| (r, 0, true)).collect();
        stack.reserve(64);
        Walk::Lists { children, stack, path: Vec::new() }
    }

    /// The nodes above the next node the walk visits, root first: empty at the start of a whole
    /// walk, the first node's ancestors at the start of a part of one ([`CallTree::walk_part`],
    /// `CallTree::walk_stretch`).
    pub fn ancestors(&self) -> &[NodeId] {
        match self {
            Walk::Arena { path, .. } | Walk::Lists { path, .. } => path,
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Visit;

    fn next(&mut self) -> Option<Visit> {
        match self {
            Walk::Arena { tree, next, end, path } => {
                let node = NodeId(*next);
                if *next >= *end {
                    return None;
                }
                *next += 1;
                let parent = tree.parent(node);
                while path.last().is_some_and(|&open| Some(open) != parent) {
                    path.pop();
                }
                let depth = path.len() as u32;
                path.push(node);
                let is_leaf = tree.parents.get(node.index() + 1).is_none_or(|&p| p != node.0);
                Some(Visit { node, depth, is_leaf })
            }
            Walk::Lists { children, stack, .. } => {
                let (node, depth, whole) = stack.pop()?;
                let kids = children.of_node(node);
                if whole {
                    stack.extend(kids.iter().rev().map(|&c| (c, depth + 1, true)));
                }
                Some(Visit { node, depth, is_leaf: kids.is_empty() })
            }
        }
    }
}

/// Finds or adds the child of a node with a given frame: how readers of sample-per-record formats
/// aggregate stacks into the tree as they read (fxprof's `handle_for_stack`). Only valid for a tree
/// that was built entirely through it. It holds node ids alone (5 bytes a node with its control
/// byte), keyed by the parent and frame the tree keeps for them.
///
/// Most nodes are added below the node added just before them (the rest of a stack once it leaves
/// the known tree), and most of those never get a sibling. Such an only child is not put in the
/// table but marked on its parent (a bit a node): it is the node right after its parent, found
/// without hashing, and it goes into the table only when its parent gets a second child. The table
/// then holds a fraction of the nodes, and adding a new stack's frames costs no random access.
#[derive(Debug, Default)]
pub(crate) struct ChildIndex {
    table: hashbrown::HashTable<NodeId>,
    /// Bit `p` is set when node `p` has one child, node `p + 1`, which is not in the table.
    only_child_next: Vec<u64>,
}

impl ChildIndex {
    /// The child of `parent` (a root when `None`) with frame `frame`, added if there is none yet.
    pub(crate) fn child_or_insert(&mut self, tree: &mut CallTree, parent: Option<NodeId>, frame: FrameId) -> NodeId {
        if let Some(parent) = parent {
            // The last node has no children yet: its first is the next node, not put in the table.
            if parent.index() + 1 == tree.len() {
                self.set_only_child_next(parent, true);
                return tree.append(Some(parent), frame, true);
            }
            if self.only_child_next(parent) {
                let only = NodeId(parent.0 + 1);
                if tree.frame(only) == frame {
                    return only;
                }
                // A second child: both go into the table from now on.
                self.set_only_child_next(parent, false);
                self.insert(tree, only);
                return self.add(tree, Some(parent), frame);
            }
        }
        let key = (parent.map_or(NO_PARENT, |p| p.0), frame);
        if let Some(&node) = self.table.find(ChildIndex::hash(key), |&node| ChildIndex::key_of(tree, node) == key) {
            return node;
        }
        self.add(tree, parent, frame)
    }

    /// Adds a child of `parent`, known to be new, to the tree and the table.
    fn add(&mut self, tree: &mut CallTree, parent: Option<NodeId>, frame: FrameId) -> NodeId {
        // Unique among its siblings: the tree then knows it has no duplicates without a pass.
        let node = tree.append(parent, frame, true);
        self.insert(tree, node)
    }

    /// Puts `node`, known not to be there, in the table.
    fn insert(&mut self, tree: &CallTree, node: NodeId) -> NodeId {
        let hash_of = |node: &NodeId| ChildIndex::hash(ChildIndex::key_of(tree, *node));
        self.table.insert_unique(hash_of(&node), node, hash_of);
        node
    }

    fn only_child_next(&self, node: NodeId) -> bool {
        self.only_child_next.get(node.index() / 64).is_some_and(|bits| bits >> (node.index() % 64) & 1 == 1)
    }

    fn set_only_child_next(&mut self, node: NodeId, set: bool) {
        let word = node.index() / 64;
        if word >= self.only_child_next.len() {
            self.only_child_next.resize(word + 1, 0);
        }
        let bit = 1u64 << (node.index() % 64);
        match set {
            true => self.only_child_next[word] |= bit,
            false => self.only_child_next[word] &= !bit,
        }
    }

    /// Makes room for `additional` more nodes of `tree` (the index and the tree), so that a reader
    /// that knows how many stacks come grows neither step by step.
    pub(crate) fn reserve(&mut self, tree: &mut CallTree, additional: usize) {
        tree.reserve(additional);
        self.table.reserve(additional, |node| ChildIndex::hash(ChildIndex::key_of(tree, *node)));
    }

    /// What a node is found by: its parent and frame, as the tree keeps them.
    fn key_of(tree: &CallTree, node: NodeId) -> (u32, FrameId) {
        (tree.parents[node.index()], tree.frames[node.index()])
    }

    fn hash(key: (u32, FrameId)) -> u64 {
        rustc_hash::FxBuildHasher.hash_one(key)
    }
}

/// How many significant digits the shortest decimal that reads back as `v` has.
fn significant_digits(v: f64) -> usize {
    let text = format!("{v:e}");
    let mantissa = text.split('e').next().unwrap_or("");
    mantissa.bytes().filter(u8::is_ascii_digit).count()
}

/// A chain `depth` nodes deep from a new root, node `i` of frame `frame(i)`, for tests of deep
/// trees (no recursion to overflow): its deepest node.
#[cfg(test)]
impl CallTree {
    pub(crate) fn push_chain(&mut self, depth: usize, frame: impl Fn(usize) -> FrameId) -> Option<NodeId> {
        (0..depth).fold(None, |parent, i| Some(self.push(parent, frame(i))))
    }
}

#[cfg(test)]
mod tests;
