//! The stacks (`2` lines) and cost centres (`1` lines) as a tree, and the costs stored in it.

use super::costs::CostStore;
use super::lines::{parse_cost_centre, stack_line, NO_PARENT};
use super::tokens::Prepared;
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{excerpt, ParseError, ParseErrorKind, Position};
use crate::formats::ghc::{self, cost_centre, profile_with, ALLOC, ENTRIES, MAX_COUNT, TICKS};
use crate::model::{CallTree, FrameId, FrameRef, NodeId, Profile, Value, Values};
use crate::text::Line;
use rustc_hash::FxHashMap;

/// A stack whose parent was not declared before it (rare: GHC declares a stack when it creates it,
/// after its parent), with what an error about it needs.
pub(super) struct PendingParent {
    pub(super) index: u32,
    pub(super) id: u64,
    pub(super) parent: u64,
    pub(super) position: Position,
}

/// Markers in [`PxReader::parents`]: a root, and a parent looked up when the tree is built.
pub(super) const ROOT: u32 = u32::MAX;
pub(super) const PENDING: u32 = u32::MAX - 1;
/// Marker in [`PxReader::frames`]: a cost centre not declared (yet), in `pending_ccs`.
pub(super) const UNRESOLVED: u32 = u32::MAX;

pub(super) struct PxReader {
    pub(super) profile: Profile,
    pub(super) word_size: u64,
    /// The most words of allocation whose bytes the model holds (`i64::MAX` / `word_size`).
    pub(super) max_words: u64,
    /// Cost centre id → frame id.
    pub(super) cost_centres: IdIndex,
    /// Stack id → index in declaration order; once the tree is built, → node.
    pub(super) stack_index: IdIndex,
    /// Per stack in declaration order: the parent's index (or [`ROOT`], [`PENDING`]) and the frame
    /// (or [`UNRESOLVED`]). 8 bytes a stack; ids and positions are kept only for the few pending.
    pub(super) parents: Vec<u32>,
    pub(super) frames: Vec<u32>,
    pub(super) pending_parents: Vec<PendingParent>,
    /// Stack index and cost centre id of the stacks with an [`UNRESOLVED`] frame, by index.
    pub(super) pending_ccs: Vec<(u32, u64)>,
    /// Whether every stack so far had its parent and cost centre declared before it, as GHC writes
    /// them: then each stack became a node as it was declared, in declaration order (node = index),
    /// and `parents` and `frames` are empty.
    pub(super) direct: bool,
    /// Whether the tree was built: then costs go straight into it. Otherwise the error that stopped
    /// it, returned once the cost line was read (whose errors come first).
    pub(super) built: bool,
    pub(super) tree_error: Option<ParseError>,
    /// Cost centres named `<cc N>` while building, in the order met.
    pub(super) undeclared: Vec<u64>,
    /// Whether each stack (by `stack_index`) had its cost record.
    pub(super) has_costs: Vec<bool>,
    pub(super) total_ticks: u64,
    pub(super) sum_ticks: u64,
}

impl PxReader {
    pub(super) fn new(word_size: u64) -> PxReader {
        PxReader {
            // The metrics are declared when the tree is complete (`build_tree`): columns of zeros
            // made then cost nothing until costs are stored, while zeros pushed node by node do.
            profile: profile_with(Vec::new()),
            word_size,
            max_words: MAX_COUNT / word_size.max(1),
            cost_centres: IdIndex::default(),
            stack_index: IdIndex::default(),
            parents: Vec::new(),
            frames: Vec::new(),
            pending_parents: Vec::new(),
            pending_ccs: Vec::new(),
            direct: true,
            built: false,
            tree_error: None,
            undeclared: Vec::new(),
            has_costs: Vec::new(),
            total_ticks: 0,
            sum_ticks: 0,
        }
    }

    /// A line between the headers and the cost line other than the cost line's start: `1` or `2`.
    pub(super) fn declaration(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let text = line.text;
        match text.as_bytes().first() {
            Some(b'1') => self.cost_centre(line, diag),
            Some(b'2') => self.stack(line, prepared, diag),
            _ if text.trim().is_empty() => {
                diag.warn("blank-line", Some(line.position), || "blank line skipped".into());
                Ok(())
            }
            _ => Err(line.error(ParseErrorKind::Unexpected {
                expected: "a cost centre (1 …), stack (2 …) or cost line (5 …)".into(),
                found: excerpt(text.as_bytes()),
            })),
        }
    }

    /// `1 id "label" "module"` (or with a third string).
    pub(super) fn cost_centre(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let Some((id, label, module, group)) = parse_cost_centre(line.text) else {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "a cost centre line: 1 id \"label\" \"module\"".into(),
                found: excerpt(line.text.as_bytes()),
            }));
        };
        if group.is_some() {
            diag.warn("cc-group", Some(line.position), || {
                "a cost centre line with a third string (pre-4.08 group): the group is dropped".into()
            });
        }
        if label.contains(char::REPLACEMENT_CHARACTER) || module.contains(char::REPLACEMENT_CHARACTER) {
            diag.warn("px-not-utf8", Some(line.position), || {
                "a cost centre's label or module holds bytes that are not UTF-8 (or U+FFFD): read with U+FFFD in their place".into()
            });
        }
        let frame = self.profile.frames.intern(cost_centre(label, module));
        if self.cost_centres.get(id).is_some_and(|old| old != frame.0) {
            diag.warn("cc-redeclared", Some(line.position), || {
                format!("cost centre {id} declared again with another name: the first one is kept")
            });
        }
        self.cost_centres.insert(id, frame.0);
        Ok(())
    }

    /// `2 id 1 cc` or `2 id 2 cc parent`.
    pub(super) fn stack(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let bad = || {
            line.error(ParseErrorKind::Unexpected {
                expected: "a stack line: 2 id 1 cc (a root) or 2 id 2 cc parent".into(),
                found: excerpt(line.text.as_bytes()),
            })
        };
        let fields = match prepared {
            &Prepared::Stack { id, cc, parent } => Some((id, cc, parent)),
            _ => stack_line(line.text.as_bytes()),
        };
        let Some((id, cc, parent)) = fields else {
            return Err(bad());
        };
        let index = u32::try_from(self.declared()).ok().filter(|&i| i < PENDING).ok_or_else(bad)?;
        if self.stack_index.get(id).is_some() {
            diag.warn("back-edge", Some(line.position), || {
                format!("stack {id} declared again: a back edge (recursion through another cost centre), not part of the tree")
            });
            return Ok(());
        }
        // The parent is looked up before the stack is indexed: a stack that is its own parent is
        // a cycle, found when the tree is built.
        let parent_index = match parent {
            NO_PARENT => ROOT,
            _ => self.stack_index.get(parent).unwrap_or_else(|| {
                self.pending_parents.push(PendingParent { index, id, parent, position: line.position });
                PENDING
            }),
        };
        let frame = self.cost_centres.get(cc).unwrap_or_else(|| {
            self.pending_ccs.push((index, cc));
            UNRESOLVED
        });
        self.stack_index.insert(id, index);
        if self.direct {
            if parent_index != PENDING && frame != UNRESOLVED {
                self.profile.tree.push((parent_index != ROOT).then_some(NodeId(parent_index)), FrameId(frame));
                return Ok(());
            }
            self.stop_direct();
        }
        self.parents.push(parent_index);
        self.frames.push(frame);
        Ok(())
    }

    /// How many stacks are declared so far (their indices are `0..`).
    pub(super) fn declared(&self) -> usize {
        if self.direct {
            self.profile.tree.len()
        } else {
            self.parents.len()
        }
    }

    /// Stops making nodes as stacks are declared: the nodes so far go back to `parents` and `frames`,
    /// and the tree is built when the cost line starts.
    pub(super) fn stop_direct(&mut self) {
        self.direct = false;
        let empty = CallTree::new(self.profile.metrics());
        let tree = std::mem::replace(&mut self.profile.tree, empty);
        self.parents = tree.nodes().map(|n| tree.parent(n).map_or(ROOT, |p| p.0)).collect();
        self.frames = tree.nodes().map(|n| tree.frame(n).0).collect();
    }

    /// Builds the tree from the stacks when the cost line starts (no declaration can follow): every
    /// stack under its parent, in declaration order, depth first. An error is kept for the end.
    pub(super) fn build_tree(&mut self) {
        self.has_costs = vec![false; self.declared()];
        let built = if self.direct {
            Ok(())
        } else {
            self.tree_order().map(|node_of| self.stack_index.remap(|i| node_of[i as usize]))
        };
        self.parents = Vec::new();
        self.frames = Vec::new();
        self.pending_parents = Vec::new();
        self.pending_ccs = Vec::new();
        if let Err(e) = built {
            self.tree_error = Some(e);
            return;
        }
        let n = self.profile.tree.len();
        for metric in ghc::metrics() {
            let values = Values::zeros(metric.repr, n);
            self.profile.add_metric(metric, values);
        }
        self.built = true;
    }

    /// Pushes the stacks into the tree depth first; returns the node of each stack.
    pub(super) fn tree_order(&mut self) -> Result<Vec<u32>, ParseError> {
        self.resolve_parents()?;
        let (offsets, children, roots) = child_lists(&self.parents);
        self.profile.tree.reserve(self.parents.len());
        // The parents are not needed any more: their vector becomes the node of each stack.
        let mut node_of = std::mem::take(&mut self.parents);
        node_of.fill(ABSENT);
        let mut todo: Vec<(u32, Option<NodeId>)> = roots.iter().rev().map(|&r| (r, None)).collect();
        while let Some((i, parent)) = todo.pop() {
            let frame = self.frame_of(i);
            let node = self.profile.tree.push(parent, frame);
            let i = i as usize;
            node_of[i] = node.0;
            let mine = &children[offsets[i] as usize..offsets[i + 1] as usize];
            todo.extend(mine.iter().rev().map(|&c| (c, Some(node))));
        }
        // A stack never reached is in a cycle of parents or below one. The first of them has a
        // pending parent: one declared before it would be unreached too, and come first.
        if let Some(lost) = self.pending_parents.iter().find(|p| node_of[p.index as usize] == ABSENT) {
            return Err(ParseError {
                format: FORMAT,
                position: lost.position,
                kind: ParseErrorKind::Unexpected {
                    expected: format!("stack {} to lead up to a root stack", lost.id),
                    found: "a cycle of parent stacks".into(),
                },
            });
        }
        Ok(node_of)
    }

    /// Looks up the parents that were declared after their children, or fails at the first stack
    /// whose parent was never declared.
    pub(super) fn resolve_parents(&mut self) -> Result<(), ParseError> {
        for pending in &self.pending_parents {
            let Some(p) = self.stack_index.get(pending.parent) else {
                return Err(ParseError {
                    format: FORMAT,
                    position: pending.position,
                    kind: ParseErrorKind::Unexpected {
                        expected: format!("stack {}'s parent to be a declared stack", pending.id),
                        found: format!("stack {}, never declared", pending.parent),
                    },
                });
            };
            self.parents[pending.index as usize] = p;
        }
        Ok(())
    }

    /// The frame of stack `i`: a cost centre undeclared when the stack was becomes `<cc N>` now.
    pub(super) fn frame_of(&mut self, i: u32) -> FrameId {
        let frame = self.frames[i as usize];
        if frame != UNRESOLVED {
            return FrameId(frame);
        }
        let Ok(k) = self.pending_ccs.binary_search_by_key(&i, |&(index, _)| index) else {
            return FrameId(frame);
        };
        let cc = self.pending_ccs[k].1;
        if let Some(frame) = self.cost_centres.get(cc) {
            return FrameId(frame);
        }
        self.undeclared.push(cc);
        let frame = self.profile.frames.intern(FrameRef::function(&format!("<cc {cc}>")));
        self.cost_centres.insert(cc, frame.0);
        frame
    }

    /// After the cost line: the tree's error if it had one, else the profile, with warnings.
    pub(super) fn finish(self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        if let Some(e) = self.tree_error {
            return Err(e);
        }
        if !self.undeclared.is_empty() {
            let ids: Vec<String> = self.undeclared.iter().map(u64::to_string).collect();
            diag.warn("undeclared-cc", None, || {
                format!(
                    "cost centres used by stacks but never declared (GHC 7.2 did not declare its built-ins) are named <cc N>: {}",
                    ids.join(", ")
                )
            });
        }
        if self.sum_ticks != self.total_ticks {
            let (total, sum) = (self.total_ticks, self.sum_ticks);
            diag.warn("total-ticks", None, || {
                format!("the cost line's total of {total} ticks differs from the sum of its stacks, {sum}")
            });
        }
        Ok(self.profile)
    }
}

/// The costs go into the stacks: by stack index, into the tree's nodes once it is built.
impl CostStore for PxReader {
    fn set_total_ticks(&mut self, ticks: u64) {
        self.total_ticks = ticks;
    }

    fn max_words(&self) -> u64 {
        self.max_words
    }

    /// Whether field `field` of a record (2 entries, 3 ticks, 4 alloc in words) can hold `value`.
    fn check_field(&self, field: usize, value: u64) -> Result<(), ParseErrorKind> {
        match field {
            2 if value > MAX_COUNT => Err(ghc::too_large("entries", MAX_COUNT, value)),
            3 if value > MAX_COUNT => Err(ghc::too_large("ticks", MAX_COUNT, value)),
            4 if value > self.max_words => {
                let what = format!("alloc in {}-byte words", self.word_size);
                Err(ghc::too_large(&what, self.max_words, value))
            }
            _ => Ok(()),
        }
    }

    /// The index of stack `id`, which is about to get its cost record.
    fn stack_for_costs(&self, id: u64) -> Result<usize, ParseErrorKind> {
        let Some(i) = self.stack_index.get(id).map(|i| i as usize) else {
            return Err(ParseErrorKind::Unexpected {
                expected: "costs of a declared stack".into(),
                found: format!("costs of stack {id}, never declared"),
            });
        };
        if self.has_costs.get(i).copied().unwrap_or(true) {
            return Err(ParseErrorKind::Unexpected {
                expected: "one cost record per stack".into(),
                found: format!("a second record for stack {id}"),
            });
        }
        Ok(i)
    }

    /// Stores the costs of stack `i` (a node once the tree is built).
    fn set_costs(&mut self, i: usize, [entries, ticks, words]: [u64; 3]) {
        self.has_costs[i] = true;
        self.sum_ticks = self.sum_ticks.saturating_add(ticks);
        if self.built {
            let (tree, node) = (&mut self.profile.tree, NodeId(i as u32));
            tree.set_self(ENTRIES, node, Value::Int(to_i64(entries)));
            tree.set_self(TICKS, node, Value::Int(to_i64(ticks)));
            tree.set_self(ALLOC, node, Value::Int(to_i64(words.saturating_mul(self.word_size))));
        }
    }
}

/// The children of every stack in declaration order, as one array with offsets per stack
/// (compressed: 8 bytes a stack), and the roots. `parents` are all resolved.
pub(super) fn child_lists(parents: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = parents.len();
    let mut offsets = vec![0u32; n + 1];
    let mut roots = Vec::new();
    for (i, &p) in parents.iter().enumerate() {
        match p {
            ROOT => roots.push(i as u32),
            _ => offsets[p as usize + 1] += 1,
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut children = vec![0u32; offsets[n] as usize];
    for (i, &p) in parents.iter().enumerate().filter(|(_, &p)| p != ROOT) {
        children[next[p as usize] as usize] = i as u32;
        next[p as usize] += 1;
    }
    (offsets, children, roots)
}

/// Ids (stack or cost centre) → indices. GHC numbers both from 1 up, so a vector indexed by id
/// holds them in 4 bytes each; an id far beyond the count so far (a damaged or hostile file) goes to
/// a hash map instead, so that no input makes the reader allocate much more than its size.
#[derive(Default)]
pub(super) struct IdIndex {
    pub(super) dense: Vec<u32>,
    pub(super) sparse: FxHashMap<u64, u32>,
    /// How many ids are mapped: the vector never grows past a few times this (or 1 Mi ids).
    pub(super) len: usize,
}

pub(super) const ABSENT: u32 = u32::MAX;

impl IdIndex {
    pub(super) fn get(&self, id: u64) -> Option<u32> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(&v) if v != ABSENT => Some(v),
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get(&id).copied(),
        }
    }

    /// Maps every id to `f` of its value.
    pub(super) fn remap(&mut self, f: impl Fn(u32) -> u32) {
        self.dense.iter_mut().filter(|v| **v != ABSENT).for_each(|v| *v = f(*v));
        self.sparse.values_mut().for_each(|v| *v = f(*v));
    }

    /// Maps `id` to `value` unless it is mapped already; returns whether it was new.
    pub(super) fn insert(&mut self, id: u64, value: u32) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        self.len += 1;
        let limit = (1usize << 20).max(self.len.saturating_mul(4));
        match usize::try_from(id).ok().filter(|&i| i < limit) {
            Some(i) => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, ABSENT);
                }
                self.dense[i] = value;
            }
            None => {
                self.sparse.insert(id, value);
            }
        }
        true
    }
}

/// `v`, checked by `check_field` to fit.
pub(super) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}
