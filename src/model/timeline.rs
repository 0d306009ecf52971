//! When each sample was taken: the [`Timeline`] a profile keeps beside its call tree where the
//! source says when its samples happened (`perf script`'s times, a `.cpuprofile`'s `timeDeltas`),
//! so that a target that holds time order (a `.cpuprofile`, the Firefox Profiler's samples) gets
//! the samples at the times they were taken, not laid out in tree order.
//!
//! The call tree stays the aggregate every report, filter, merge and diff uses; the timeline says
//! only which node each sample ended at and when. What a sample weighs in a metric is its node's
//! value shared among the node's samples by their weights ([`Timeline::shares`]): for a sampling
//! profiler, whose samples of one node weigh the same, that is each sample's own. Every operation
//! that builds a new tree maps the timeline's nodes with it ([`Timeline::remapped`]): a sample
//! whose node goes with its value (a cut stack) goes, one whose value moves to another node (a
//! hidden frame's, to its caller) moves with it.

use super::{CallTree, NodeId};

/// The samples of a profile in time order, the slices of a traced one (Chrome's trace events,
/// speedscope's evented profiles) in the order they begin, and the span of the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// When the recording started and ended, in nanoseconds on the source's clock: the first and
    /// last sample's times (the first slice's start and the last one's end) where the source states
    /// no other (a `.cpuprofile`'s `startTime` and `endTime` do).
    pub start: i64,
    /// See [`Timeline::start`].
    pub end: i64,
    samples: Vec<TimedSample>,
    slices: Vec<Slice>,
}

/// A slice of a trace: the time its node ran, from its start to its end (ns), its callees' slices
/// inside it. Its node's inclusive time is the length of its slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// When it began (ns).
    pub start: i64,
    /// When it ended (ns).
    pub end: i64,
    /// The node of the call tree it is a slice of.
    pub node: NodeId,
}

/// One sample: when it was taken, in nanoseconds on the source's clock, the node its stack ends
/// at, and how many samples it stands for (1 for a sampling profiler's). 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedSample {
    /// When it was taken (ns).
    pub time: i64,
    /// The node of the call tree its stack ends at.
    pub node: NodeId,
    /// How many samples it stands for.
    pub weight: u32,
}

impl Timeline {
    /// The timeline of `samples` (sorted by time here, stably: samples of one time keep the
    /// source's order), over `span` where the source states one, else from the first sample to
    /// the last. `None` where there are no samples.
    pub fn new(samples: Vec<TimedSample>, span: Option<(i64, i64)>) -> Option<Timeline> {
        Timeline::of_both(samples, Vec::new(), span)
    }

    /// The timeline of `slices` (sorted by start here, stably: a caller's slice begins before its
    /// callee's that begins with it), over `span` where the source states one, else from the first
    /// start to the last end. `None` where there are none.
    pub fn of_slices(slices: Vec<Slice>, span: Option<(i64, i64)>) -> Option<Timeline> {
        Timeline::of_both(Vec::new(), slices, span)
    }

    /// The timeline of `samples` and `slices`, each sorted as [`Timeline::new`] and
    /// [`Timeline::of_slices`] sort them, over `span` and all of them; `None` where there are neither.
    pub fn of_both(
        mut samples: Vec<TimedSample>,
        mut slices: Vec<Slice>,
        span: Option<(i64, i64)>,
    ) -> Option<Timeline> {
        if !samples.is_sorted_by_key(|s| s.time) {
            samples.sort_by_key(|s| s.time);
        }
        if !slices.is_sorted_by_key(|s| s.start) {
            slices.sort_by_key(|s| s.start);
        }
        Timeline::of(samples, slices, span)
    }

    /// The timeline of samples and slices in order, over `span` and all of them.
    fn of(samples: Vec<TimedSample>, slices: Vec<Slice>, span: Option<(i64, i64)>) -> Option<Timeline> {
        let first = samples.first().map(|s| s.time).into_iter().chain(slices.first().map(|s| s.start)).min();
        let last = samples.last().map(|s| s.time).into_iter().chain(slices.iter().map(|s| s.end)).max();
        let (first, last) = (first?, last?);
        let (start, end) = span.map_or((first, last), |(start, end)| (start.min(first), end.max(last)));
        Some(Timeline { start, end, samples, slices })
    }

    /// The samples, in time order.
    pub fn samples(&self) -> &[TimedSample] {
        &self.samples
    }

    /// The slices, in the order they begin.
    pub fn slices(&self) -> &[Slice] {
        &self.slices
    }

    /// The timeline without its samples (`None` where it has nothing else).
    pub(crate) fn without_samples(self) -> Option<Timeline> {
        Timeline::of(Vec::new(), self.slices, Some((self.start, self.end)))
    }

    /// The timeline without its slices (`None` where it has nothing else).
    pub(crate) fn without_slices(self) -> Option<Timeline> {
        Timeline::of(self.samples, Vec::new(), Some((self.start, self.end)))
    }

    /// The timeline of a tree rebuilt with `map`, which gives each old node the new node its value
    /// went to, or none where its value went with it; `None` when nothing is left.
    pub(crate) fn remapped(&self, map: impl Fn(NodeId) -> Option<NodeId>) -> Option<Timeline> {
        self.remapped_apart(&map, &map)
    }

    /// [`Timeline::remapped`] where a node's value goes elsewhere than the node (a hidden frame's
    /// to its caller): samples go where `value_went` says, slices only where `node_kept` keeps
    /// their node as a node of its own (a hidden frame's slice goes: its time is its caller's).
    pub(crate) fn remapped_apart(
        &self,
        value_went: &dyn Fn(NodeId) -> Option<NodeId>,
        node_kept: &dyn Fn(NodeId) -> Option<NodeId>,
    ) -> Option<Timeline> {
        let samples = self.samples.iter().filter_map(|s| Some(TimedSample { node: value_went(s.node)?, ..*s }));
        let slices = self.slices.iter().filter_map(|s| Some(Slice { node: node_kept(s.node)?, ..*s }));
        Timeline::of(samples.collect(), slices.collect(), Some((self.start, self.end)))
    }

    /// Drops the slices of every root (thread) below which a node has not the length of its
    /// slices as its inclusive time in `metric` (of `nanos` ns a unit), to the nanosecond, so that
    /// what is left is the time of the threads it covers: the slices a trace is read into are; a
    /// filter that hides a frame, or lines merged into their functions, make a node's slices overlap
    /// or leave time in none, and a writer then lays that thread's time out by the tree. How many
    /// roots lost their slices.
    pub fn keep_slices_that_are_the_time(&mut self, tree: &CallTree, metric: usize, nanos: f64) -> usize {
        let mut slices = vec![0i64; tree.len()];
        self.slices.iter().for_each(|s| slices[s.node.index()] += s.end - s.start);
        let inclusive = tree.derived_inclusive(metric);
        let root_of = tree.per_root(|root| root);
        // Per root: whether it has slices, and whether one of its nodes is not their time.
        let (mut sliced, mut wrong) = (vec![false; tree.len()], vec![false; tree.len()]);
        for node in tree.nodes().filter(|&node| tree.parent(node).is_some()) {
            let root = root_of[node.index()];
            let ns = (inclusive.get(node.index()).as_f64() * nanos).round() as i64;
            sliced[root.index()] |= slices[node.index()] > 0;
            wrong[root.index()] |= (ns - slices[node.index()]).abs() > 1;
        }
        self.slices.retain(|s| !wrong[root_of[s.node.index()].index()]);
        tree.roots().filter(|r| sliced[r.index()] && wrong[r.index()]).count()
    }

    /// Whether each node of a tree of `nodes` nodes has a sample here.
    pub fn nodes_with_samples(&self, nodes: usize) -> Vec<bool> {
        let mut sampled = vec![false; nodes];
        self.samples.iter().for_each(|s| sampled[s.node.index()] = true);
        sampled
    }

    /// Moves the samples of node `from` to node `to` (its value moved there; its slices, none here,
    /// are no thread's own).
    pub(crate) fn move_samples(&mut self, from: NodeId, to: NodeId) {
        self.samples.iter_mut().filter(|s| s.node == from).for_each(|s| s.node = to);
    }

    /// What each sample weighs in `values` (a tree's self values of one metric): its node's value
    /// shared among the node's samples by their weights: whole numbers for whole values, which add
    /// up to its value exactly; for fractions, each its part of the value. `None` where a node with a value has no sample, so
    /// that the timeline does not hold all of the metric.
    pub fn shares(&self, tree: &CallTree, metric: usize) -> Option<Vec<f64>> {
        self.shares_within(tree, metric, |_| true)
    }

    /// [`Timeline::shares`] where only the values of the nodes `within` takes must be in samples
    /// (the others' are written otherwise: as slices, say).
    pub fn shares_within(&self, tree: &CallTree, metric: usize, within: impl Fn(NodeId) -> bool) -> Option<Vec<f64>> {
        let mut weights = vec![0u64; tree.len()];
        for s in &self.samples {
            weights[s.node.index()] += u64::from(s.weight);
        }
        let unheld = |n: NodeId| weights[n.index()] == 0 && tree.self_value(metric, n).as_f64() != 0.0;
        if tree.nodes().any(|n| unheld(n) && within(n)) {
            return None;
        }
        let whole = tree.self_values(metric).repr() == super::Repr::Int;
        // Per node, the weight of its samples taken so far: each share is the node's value up to the
        // sample less its value up to the one before, rounded alike for whole values.
        let mut so_far = vec![0u64; tree.len()];
        let shares = (self.samples.iter())
            .map(|s| {
                let (i, value) = (s.node.index(), tree.self_value(metric, s.node).as_f64());
                let upto = |weight: u64| (value * weight as f64 / weights[i] as f64).round();
                if !whole {
                    // The value of a node's one sample as it is; else its part alone, of the value
                    // to 12 digits, to 12 digits: a difference of running parts, or a part of a sum
                    // of parts, would write the noise of floats (1.0010010000000003), and a value
                    // read back as the sum of its parts (601 of them: off in the 15th digit) shares
                    // out as it did.
                    let (part, all) = (u64::from(s.weight), weights[i]);
                    return if part == all {
                        value
                    } else {
                        twelve_digits(twelve_digits(value) * part as f64 / all as f64)
                    };
                }
                let before = upto(so_far[i]);
                so_far[i] += u64::from(s.weight);
                upto(so_far[i]) - before
            })
            .collect();
        Some(shares)
    }

    /// Drops `timeline` where it does not hold all of `metric` ([`Timeline::shares`]: a node with a
    /// value has no sample), which a target writes by it; whether it did.
    pub fn drop_unless_holding(timeline: &mut Option<Timeline>, tree: &CallTree, metric: usize) -> bool {
        let holds = timeline.as_ref().is_none_or(|t| t.shares(tree, metric).is_some());
        if !holds {
            *timeline = None;
        }
        !holds
    }

    /// Checks that every sample and slice names a node of a tree of `nodes` nodes, and that both
    /// are in order within the span.
    pub(crate) fn validate(&self, nodes: usize) -> Result<(), String> {
        if let Some(s) = self.samples.iter().find(|s| s.node.index() >= nodes) {
            return Err(format!("a timeline sample at {} names node {} of {nodes}", s.time, s.node.0));
        }
        if let Some(s) = self.slices.iter().find(|s| s.node.index() >= nodes || s.end < s.start) {
            return Err(format!("a slice {}..{} of node {} of {nodes}", s.start, s.end, s.node.0));
        }
        if !self.slices.is_sorted_by_key(|s| s.start) {
            return Err("the timeline's slices are not in the order they begin".into());
        }
        if let Some(s) = self.slices.iter().find(|s| s.start < self.start || s.end > self.end) {
            return Err(format!("a slice {}..{} is outside {}..{}", s.start, s.end, self.start, self.end));
        }
        if !self.samples.is_sorted_by_key(|s| s.time) {
            return Err("the timeline's samples are not in time order".into());
        }
        let inside = |s: &TimedSample| (self.start..=self.end).contains(&s.time);
        if let Some(s) = self.samples.iter().find(|s| !inside(s)) {
            return Err(format!("a timeline sample at {} is outside {}..{}", s.time, self.start, self.end));
        }
        Ok(())
    }
}

/// Where a slice begins or ends, as a trace writes its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// The slice begins (at its start).
    Begin(Slice),
    /// The slice ends (at its end).
    End(Slice),
}

/// The begins and ends of `slices` (in the order they begin, each inside the one before it that it
/// begins in) in the order a trace writes them: a slice's end before a begin at its time, every
/// slice closed.
pub fn slice_edges(slices: &[Slice]) -> Vec<Edge> {
    let mut edges = Vec::with_capacity(2 * slices.len());
    let mut open: Vec<Slice> = Vec::new();
    for slice in slices {
        while let Some(top) = open.last().filter(|top| top.end <= slice.start).copied() {
            open.pop();
            edges.push(Edge::End(top));
        }
        edges.push(Edge::Begin(*slice));
        open.push(*slice);
    }
    edges.extend(open.into_iter().rev().map(Edge::End));
    edges
}

/// `value` to 12 significant digits.
fn twelve_digits(value: f64) -> f64 {
    format!("{value:.11e}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Metric, Value};

    fn sample(time: i64, node: u32) -> TimedSample {
        TimedSample { time, node: NodeId(node), weight: 1 }
    }

    #[test]
    fn samples_are_put_in_time_order_keeping_ties_in_order() {
        let t = Timeline::new(vec![sample(30, 0), sample(10, 1), sample(10, 2)], None).unwrap();
        let order: Vec<(i64, u32)> = t.samples().iter().map(|s| (s.time, s.node.0)).collect();
        assert_eq!(order, [(10, 1), (10, 2), (30, 0)]);
        assert_eq!((t.start, t.end), (10, 30));
        assert_eq!(Timeline::new(vec![sample(5, 0)], Some((0, 100))).map(|t| (t.start, t.end)), Some((0, 100)));
        assert_eq!(Timeline::new(Vec::new(), None), None);
    }

    #[test]
    fn a_remapped_timeline_drops_the_samples_whose_value_went() {
        let t = Timeline::new(vec![sample(1, 0), sample(2, 1), sample(3, 2)], Some((0, 9))).unwrap();
        let moved = t.remapped(|n| (n.0 != 1).then_some(NodeId(n.0 / 2))).unwrap();
        let nodes: Vec<u32> = moved.samples().iter().map(|s| s.node.0).collect();
        assert_eq!(nodes, [0, 1]);
        assert_eq!((moved.start, moved.end), (0, 9));
        assert_eq!(t.remapped(|_| None), None);
    }

    /// 10 shared by three samples of one node: 3, 4, 3 (3.33, 6.67 and 10 rounded, less the sum
    /// before), adding up to 10; a node of value and no sample makes no shares.
    #[test]
    fn a_nodes_value_is_shared_among_its_samples() {
        let mut tree = CallTree::new(&[Metric::samples()]);
        let (a, b) = (tree.push(None, crate::model::FrameId(0)), tree.push(None, crate::model::FrameId(1)));
        tree.set_self(0, a, Value::Int(10));
        tree.set_self(0, b, Value::Int(2));
        let t = Timeline::new(vec![sample(1, 0), sample(2, 1), sample(3, 0), sample(4, 0)], None).unwrap();
        assert_eq!(t.shares(&tree, 0), Some(vec![3.0, 2.0, 4.0, 3.0]));
        let t = Timeline::new(vec![sample(1, 0)], None).unwrap();
        assert_eq!(t.shares(&tree, 0), None);
    }
}
