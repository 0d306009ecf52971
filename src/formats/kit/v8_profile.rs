//! V8's CPU profile (the DevTools protocol's `Profiler.Profile`) as a document: what a
//! `.cpuprofile` is, and what a Chrome trace's `ProfileChunk` events hold in parts. Its tree is
//! added to a profile with the time each sample weighs (the samples in time order, each the time
//! to the next), and what it names that is no node is counted and said as speedscope reads it.
//! The format modules that read it (cpuprofile, chrome_trace) keep their own grammar around it.

use super::source_frame::CallFrame;
use super::time::whole_nanoseconds;
use crate::diag::Diagnostics;
use crate::error::ParseError;
use crate::model::{ChildIndex, Metric, NodeId, Profile, Repr, TimedSample, Timeline, Unit, Value};
use serde::Deserialize;

/// The latest time a CPU profile or a trace may name, in µs: far beyond any clock (10^18 µs is
/// 31,000 years), so that no difference of two overflows and time stays exact in whole µs (i64); a
/// time past it is a damaged file, refused, not a total to cap.
pub(crate) const MAX_TIME_US: f64 = 1e18;

/// What a time must be, in the error that refuses one past [`MAX_TIME_US`].
pub(crate) const BELOW_MAX_TIME: &str = "times below 10^18 us";

/// `time` in its digits below 10^21 and with an exponent from there (`1e300`, not 301 digits), as
/// JavaScript shows a number: a time past [`MAX_TIME_US`] as the error that refuses it shows it.
pub(crate) fn readable(time: f64) -> String {
    if time.abs() < 1e21 {
        time.to_string()
    } else {
        format!("{time:e}")
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Document {
    #[serde(default)]
    pub(crate) nodes: Vec<NodeJson>,
    #[serde(default)]
    pub(crate) start_time: f64,
    #[serde(default)]
    pub(crate) end_time: f64,
    pub(crate) samples: Option<Vec<u64>>,
    pub(crate) time_deltas: Option<Vec<f64>>,
    /// The old format's tree of nodes.
    pub(crate) head: Option<OldNode>,
    /// The old format's time of each sample (µs).
    pub(crate) timestamps: Option<Vec<f64>>,
}

/// A node of the old format (node ≤ 10, Chrome ≤ 60): its call frame's fields in the node, a
/// 1-based `lineNumber` (as DevTools' `CPUProfileDataModel` reads it), its children nested.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OldNode {
    id: u64,
    #[serde(default)]
    function_name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    line_number: i64,
    #[serde(default)]
    column_number: i64,
    #[serde(default)]
    hit_count: u64,
    #[serde(default)]
    children: Vec<OldNode>,
}

impl Document {
    /// The old format in the new one's terms: the tree's nodes in pre-order with their children's
    /// ids and 0-based lines (columns are 1-based there too, 0 where unknown), `startTime` the first
    /// sample's time (the old `startTime` is in whole seconds, which DevTools also replaces by the
    /// first timestamp) and `endTime` the last timestamp (or the old `endTime`, if later), the
    /// deltas between the timestamps.
    pub(crate) fn into_new_format(mut self) -> Document {
        let Some(head) = self.head.take() else { return self };
        let mut walk = vec![head];
        while let Some(node) = walk.pop() {
            self.nodes.push(NodeJson {
                id: node.id,
                call_frame: CallFrame {
                    function_name: node.function_name,
                    url: node.url,
                    line_number: node.line_number - 1,
                    column_number: node.column_number - 1,
                },
                hit_count: node.hit_count,
                children: node.children.iter().map(|c| c.id).collect(),
                parent: None,
            });
            walk.extend(node.children.into_iter().rev());
        }
        if let Some(timestamps) = self.timestamps.take() {
            let first = timestamps.first().copied().unwrap_or(0.0);
            let last = timestamps.iter().copied().fold(first, f64::max);
            self.end_time = last.max(self.end_time * 1e6);
            self.start_time = first;
            let deltas = timestamps.iter().scan(first, |at, &t| Some(t - std::mem::replace(at, t)));
            // A timestamp past the samples (node 10 writes one) is where the last sample ends.
            let samples = self.samples.as_ref().map_or(0, Vec::len);
            self.time_deltas = Some(deltas.take(samples).collect());
        } else {
            self.start_time *= 1e6;
            self.end_time *= 1e6;
        }
        self
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodeJson {
    id: u64,
    call_frame: CallFrame,
    #[serde(default)]
    hit_count: u64,
    #[serde(default)]
    children: Vec<u64>,
    parent: Option<u64>,
}

/// The metrics of a CPU profile: time (where it has samples, and so their times) and samples.
pub(crate) fn metrics(timed: bool) -> Vec<Metric> {
    // V8 samples: its time is the weight of the samples counted beside it.
    let time = timed
        .then(|| Metric::time(Unit::Microseconds, Repr::Int).sampled(crate::model::Sampling::weights_of("samples")));
    time.into_iter().chain([Metric::samples()]).collect()
}

/// Adds the tree of `document` to `profile` (whose metrics are [`metrics`]`(samples are given)`),
/// its roots under `root`, with `index` the children of the profile's nodes as far as known; what
/// it names that is no node (a node whose `parent` is none is a root), and its samples' timeline.
pub(crate) fn add_tree(
    profile: &mut Profile,
    index: &mut ChildIndex,
    root: Option<NodeId>,
    document: &Document,
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<Added, ParseError> {
    let nodes = &document.nodes;
    let position: rustc_hash::FxHashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    if position.len() != nodes.len() {
        return Err(error("\"nodes\"", "a unique id per node".into(), "an id used twice".into()));
    }
    // The parent of each node, from children lists or parent ids. A child id that names no node
    // is skipped, as speedscope and the Firefox Profiler skip it (a trace whose nodes were cut
    // down names children it no longer holds).
    let mut unknown = Unknown::default();
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for (j, &child) in node.children.iter().enumerate() {
            let Some(&c) = position.get(&child) else {
                unknown.children += 1;
                continue;
            };
            if parent[c].is_some_and(|p| p != i) || c == i {
                let found = format!("node {child} a child again at nodes[{i}].children[{j}]");
                return Err(error("\"nodes\"", "a tree: each node the child of one node".into(), found));
            }
            parent[c] = Some(i);
        }
    }
    // A parent id that names no node leaves its node a root, as speedscope reads it (a trace cut
    // to some of its chunks loses the parents of later nodes).
    for (i, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            match position.get(&p) {
                Some(&p) => parent[i] = Some(p),
                None => unknown.parents += 1,
            }
        }
    }
    let node_of = add_nodes(profile, index, root, nodes, &parent, error)?;
    let weights = weights(document, &position, &node_of, error)?;
    for (i, node) in node_of.iter().enumerate() {
        let Some(node) = *node else { continue };
        if let Some(time) = &weights.time {
            profile.tree.add_self(0, node, Value::Int(time[i]));
        }
        profile.tree.add_self(usize::from(weights.time.is_some()), node, Value::Int(weights.samples[i]));
    }
    unknown.samples = weights.unknown;
    let timeline = weights.timed.and_then(|timed| Timeline::new(timed, span(document)));
    Ok(Added { unknown, timeline })
}

/// Adds the document's nodes to the profile's tree under `root`, each under its `parent` (from
/// the roots down, with a stack: no recursion): the model's node of each (none for V8's own root,
/// whose children are roots).
fn add_nodes(
    profile: &mut Profile,
    index: &mut ChildIndex,
    root: Option<NodeId>,
    nodes: &[NodeJson],
    parent: &[Option<usize>],
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<Vec<Option<NodeId>>, ParseError> {
    // Children lists in file order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => children.push(vec![i]),
        }
    }
    let roots = children.split_off(nodes.len()).into_iter().flatten();
    // Each node with the model's node it goes under, and whether it is a root of the document.
    let mut walk: Vec<(usize, Option<NodeId>, bool)> = roots.rev().map(|r| (r, root, true)).collect();
    let mut seen = 0usize;
    let mut node_of: Vec<Option<NodeId>> = vec![None; nodes.len()];
    while let Some((i, parent_node, top)) = walk.pop() {
        seen += 1;
        let node = &nodes[i];
        let model_node = match (top, node.call_frame.function_name.as_str()) {
            // V8's root is no frame: its children are the roots.
            (true, "(root)") => None,
            _ => {
                let frame = node.call_frame.intern(profile);
                Some(index.child_or_insert(&mut profile.tree, parent_node, frame))
            }
        };
        node_of[i] = model_node;
        walk.extend(children[i].iter().rev().map(|&c| (c, model_node.or(parent_node), model_node.is_none() && top)));
    }
    if seen != nodes.len() {
        return Err(error("\"nodes\"", "a tree of nodes under a root".into(), "nodes in a cycle".into()));
    }
    Ok(node_of)
}

/// What [`add_tree`] added besides the tree: what the document names that is no node, and when
/// each sample was taken.
pub(crate) struct Added {
    pub(crate) unknown: Unknown,
    /// The samples (but those of V8's `(root)`, no node of the model) at their times, where the
    /// document has times that fit the model's nanoseconds.
    pub(crate) timeline: Option<Timeline>,
}

/// The document's `startTime` and `endTime` in ns (a trace's profile has no end: its last sample
/// ends it).
fn span(document: &Document) -> Option<(i64, i64)> {
    let start = whole_nanoseconds(document.start_time, 1e3)?;
    Some((start, whole_nanoseconds(document.end_time, 1e3).unwrap_or(start)))
}

/// What a CPU profile names that is not among its nodes.
#[derive(Default)]
pub(crate) struct Unknown {
    /// Nodes whose `parent` names no node.
    parents: u64,
    /// Children ids that name no node.
    children: u64,
    /// Samples that name no node.
    samples: u64,
}

impl std::ops::AddAssign for Unknown {
    fn add_assign(&mut self, other: Unknown) {
        self.parents += other.parents;
        self.children += other.children;
        self.samples += other.samples;
    }
}

/// Says what was read as speedscope reads it for want of the nodes named.
pub(crate) fn warn_unknown(unknown: &Unknown, diag: &mut Diagnostics) {
    if unknown.parents > 0 {
        diag.warn("cpuprofile-orphans", None, || {
            format!("nodes whose parent is no node are roots, as speedscope reads them: {}", unknown.parents)
        });
    }
    if unknown.children > 0 {
        diag.warn("cpuprofile-unknown-children", None, || {
            format!("children that are no node are skipped, as speedscope reads them: {}", unknown.children)
        });
    }
    if unknown.samples > 0 {
        diag.warn("cpuprofile-unknown-samples", None, || {
            format!(
                "samples that name no node are the sample's before them, as speedscope reads them: {}",
                unknown.samples
            )
        });
    }
}

/// What the samples weigh: the samples and (where the file has its samples) time in µs of each
/// of the document's nodes, how many samples name no node, and (where every time fits the
/// timeline's nanoseconds) each sample that names a node of the model, in time order.
struct Weights {
    samples: Vec<i64>,
    time: Option<Vec<i64>>,
    unknown: u64,
    timed: Option<Vec<TimedSample>>,
}

/// What the document's samples weigh, `node_of` each of its nodes' node in the model.
fn weights(
    document: &Document,
    position: &rustc_hash::FxHashMap<u64, usize>,
    node_of: &[Option<NodeId>],
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<Weights, ParseError> {
    let mut samples = vec![0i64; document.nodes.len()];
    let Some(ids) = &document.samples else {
        for (count, node) in samples.iter_mut().zip(&document.nodes) {
            *count = i64::try_from(node.hit_count).unwrap_or(i64::MAX);
        }
        return Ok(Weights { samples, time: None, unknown: 0, timed: None });
    };
    let deltas = document.time_deltas.as_deref().unwrap_or_default();
    if deltas.len() != ids.len() {
        let (n, m) = (ids.len(), deltas.len());
        return Err(error("\"timeDeltas\"", format!("as many timeDeltas as samples ({n})"), m.to_string()));
    }
    let in_order = check_sample_times(document, deltas, error)?;
    // The samples in time order: DevTools sorts them where a negative delta puts one before
    // another. In a file of no such delta, as V8 writes them, they are in order already: their
    // times are summed as they are weighed, not kept.
    let in_time_order: Box<dyn Iterator<Item = (usize, f64)>> = if in_order {
        Box::new(sample_times(document.start_time, deltas).enumerate())
    } else {
        let at: Vec<f64> = sample_times(document.start_time, deltas).collect();
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by(|&a, &b| at[a].total_cmp(&at[b]));
        Box::new(order.into_iter().map(move |i| (i, at[i])))
    };
    let mut in_time_order = in_time_order.peekable();
    let mut time = vec![0f64; document.nodes.len()];
    let (mut unknown, mut before, mut first) = (0, None, true);
    let mut timed = Some(Vec::with_capacity(ids.len()));
    while let Some((i, at)) = in_time_order.next() {
        // From the sample before (the first from startTime) to the next (the last to endTime).
        let from = if std::mem::take(&mut first) { document.start_time.min(at) } else { at };
        let to = in_time_order.peek().map_or(document.end_time, |&(_, next)| next);
        // A sample that names no node leaves the stack before it where it is (speedscope).
        let node = match position.get(&ids[i]) {
            Some(&node) => {
                samples[node] += 1;
                if let (Some(list), Some(model_node)) = (&mut timed, node_of[node]) {
                    match whole_nanoseconds(at, 1e3) {
                        Some(time) => list.push(TimedSample { time, node: model_node, weight: 1 }),
                        None => timed = None,
                    }
                }
                node
            }
            None => {
                unknown += 1;
                let Some(node) = before else { continue };
                node
            }
        };
        before = Some(node);
        time[node] += (to - from).max(0.0);
    }
    let time = Some(time.into_iter().map(|t| t.round() as i64).collect());
    Ok(Weights { samples, time, unknown, timed })
}

/// Each sample's time in µs: `startTime` plus the deltas up to it.
fn sample_times(start: f64, deltas: &[f64]) -> impl Iterator<Item = f64> + '_ {
    deltas.iter().scan(start, |at, &delta| {
        *at += delta;
        Some(*at)
    })
}

/// Checks that every sample's time ([`sample_times`]) and the document's start and end are within
/// [`MAX_TIME_US`]; whether the samples are in time order (no time before the one before it).
fn check_sample_times(
    document: &Document,
    deltas: &[f64],
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<bool, ParseError> {
    // NaN and the infinities are past MAX_TIME_US too.
    let within = |t: f64| t.is_finite() && t.abs() < MAX_TIME_US;
    let (mut in_order, mut before) = (true, f64::NEG_INFINITY);
    for (i, at) in sample_times(document.start_time, deltas).enumerate() {
        if !within(at) {
            let found = format!("{} at sample {i} (startTime plus its timeDeltas)", readable(at));
            return Err(error("\"timeDeltas\"", BELOW_MAX_TIME.into(), found));
        }
        in_order &= before.total_cmp(&at).is_le();
        before = at;
    }
    // An endTime of -inf is none (a trace's profile): the time then ends at the last sample.
    if !within(document.start_time) || !(within(document.end_time) || document.end_time == f64::NEG_INFINITY) {
        let (start, end) = (readable(document.start_time), readable(document.end_time));
        let found = format!("startTime {start}, endTime {end}");
        return Err(error("\"endTime\"", BELOW_MAX_TIME.into(), found));
    }
    Ok(in_order)
}
