//! V8's CPU profile written (what [`super::v8_profile`] reads): the call frames of its nodes, and
//! its samples in time order with their deltas, as a `.cpuprofile` holds them whole and a Chrome
//! trace's `ProfileChunk` events in parts. The formats that write it (cpuprofile, chrome_trace)
//! keep their own document around it.

use super::source_frame::anonymous_name;
use crate::error::{Error, FormatName};
use crate::formats::json::push_string;
use crate::model::{CallTree, NodeId, Profile, TimedSample};

/// The samples of a CPU profile as written: each node's `hitCount`, the samples in time order
/// (`None`: V8's `(root)`, which closes them), each one's delta from the one before (the first's
/// from `startTime`), and the span, all in µs.
pub(crate) struct Layout {
    pub(crate) hits: Vec<u64>,
    pub(crate) samples: Vec<Option<NodeId>>,
    pub(crate) deltas: Vec<i64>,
    pub(crate) start: i64,
    pub(crate) end: i64,
}

impl Layout {
    /// `samples` (of one profile, in time order) at their times over `span` (µs), for a tree of
    /// `nodes` nodes: a sample of weight n is n samples at its time, and a closing `(root)` sample
    /// at the end gives the last one its time in speedscope too. More samples than `max_samples`
    /// are refused ([`check_max_samples`]).
    pub(crate) fn of_samples(
        samples: &[TimedSample],
        (start, end): (i64, i64),
        nodes: usize,
        max_samples: u64,
        format: FormatName,
    ) -> Result<Layout, Error> {
        let mut hits = vec![0u64; nodes];
        samples.iter().for_each(|s| hits[s.node.index()] += u64::from(s.weight));
        check_max_samples(hits.iter().sum(), max_samples, format)?;
        let mut layout = Layout { hits, samples: Vec::new(), deltas: Vec::new(), start, end };
        let mut before = start;
        for sample in samples {
            let at = micros(sample.time);
            layout.samples.extend(std::iter::repeat_n(Some(sample.node), sample.weight as usize));
            layout.deltas.push(at - before);
            layout.deltas.extend(std::iter::repeat_n(0, sample.weight.saturating_sub(1) as usize));
            before = at;
        }
        layout.samples.push(None);
        layout.deltas.push(end - before);
        Ok(layout)
    }
}

/// Refuses a file of more samples than `--max-samples` allows: each is an entry of `samples` and
/// `timeDeltas`, so the file grows with the count, and a count past it stops before any memory is
/// taken for them.
pub(crate) fn check_max_samples(total: u64, max: u64, format: FormatName) -> Result<(), Error> {
    if total <= max {
        return Ok(());
    }
    let what = format!("{total} samples would be {total} entries of samples and timeDeltas, more than --max-samples {max} allows (raise it to write them)");
    Err(Error::Unrepresentable { format, what })
}

/// ns in whole µs, rounded.
pub(crate) fn micros(ns: i64) -> i64 {
    ns.div_euclid(1000) + i64::from(ns.rem_euclid(1000) >= 500)
}

/// Adds to `weighs` (µs by node) what `samples` (of one profile, in time order) over `span` (µs)
/// weigh: in a CPU profile each sample weighs the µs to the next, the first also from the start,
/// the last to the end (as the reader shares time out).
pub(crate) fn add_weights(samples: &[TimedSample], (start, end): (i64, i64), weighs: &mut [i64]) {
    for (k, sample) in samples.iter().enumerate() {
        let from = if k == 0 { start } else { micros(sample.time) };
        let to = samples.get(k + 1).map_or(end, |next| micros(next.time));
        weighs[sample.node.index()] += to - from;
    }
}

/// Whether `weighs` ([`add_weights`]) are the time (metric `time`, µs) of every node, to the µs:
/// a CPU profile's own samples weigh it; a clock's periods (perf's `cpu-clock`), or several
/// threads' samples in one profile, do not.
pub(crate) fn weigh_time(tree: &CallTree, time: usize, weighs: &[i64]) -> bool {
    tree.nodes().all(|n| (weighs[n.index()] as f64 - tree.self_value(time, n).as_f64()).abs() <= 1.0)
}

/// The span (µs) over which `samples` (of one profile, in time order, at least one) would weigh
/// the time of their nodes, as far as the first and the last sample tell it: the first sample's
/// node's time beyond what the samples after it give it starts the span before it, the last's
/// ends it after; where both are one node, the start is as early as it may be but not before
/// `earliest` (the timeline's start), and the rest ends it. [`add_weights`] and [`weigh_time`]
/// then say whether the samples weigh every node's time over it.
pub(crate) fn span_of_samples(tree: &CallTree, time: usize, samples: &[TimedSample], earliest: i64) -> (i64, i64) {
    let (first, last) = (samples[0], samples[samples.len() - 1]);
    let (at_first, at_last) = (micros(first.time), micros(last.time));
    // What the samples give each of the two nodes between the first sample and the last.
    let between = |node: NodeId| -> i64 {
        let each = samples.windows(2).filter(|pair| pair[0].node == node);
        each.map(|pair| micros(pair[1].time) - micros(pair[0].time)).sum()
    };
    let rest = |node: NodeId| (tree.self_value(time, node).as_f64().round() as i64 - between(node)).max(0);
    if first.node != last.node {
        return (at_first - rest(first.node), at_last + rest(last.node));
    }
    let rest = rest(first.node);
    let start = (at_first - rest).max(earliest.min(at_first));
    (start, at_last + rest - (at_first - start))
}

/// Writes the `callFrame` of `node`'s frame; `urls` are the scripts named so far, whose place in
/// it (from 1) is a script's id.
pub(crate) fn push_call_frame<'p>(json: &mut String, profile: &'p Profile, node: NodeId, urls: &mut Vec<&'p str>) {
    let tree = &profile.tree;
    let frame = profile.frames.get(tree.frame(node));
    json.push_str(",\"callFrame\":{\"functionName\":");
    let name = crate::formats::shared::written_name(frame);
    let defined = profile.defined_at(tree.frame(node));
    // An anonymous function, named by where it is defined, has no name in V8's terms.
    let anonymous = name == "(anonymous)"
        || defined.is_some_and(|at| name == anonymous_name(at.file, at.line.into(), at.column.map(u64::from)));
    push_string(json, if anonymous { "" } else { &name });
    let url = defined.map(|at| at.file).or(frame.module.as_deref()).unwrap_or("");
    let script = match url {
        "" => 0,
        url => {
            urls.iter().position(|&u| u == url).unwrap_or_else(|| {
                urls.push(url);
                urls.len() - 1
            }) + 1
        }
    };
    json.push_str(",\"scriptId\":\"");
    json.push_str(itoa::Buffer::new().format(script));
    json.push_str("\",\"url\":");
    push_string(json, url);
    let zero_based = |v: Option<u32>| v.map_or(-1, |v| i64::from(v) - 1);
    json.push_str(",\"lineNumber\":");
    json.push_str(itoa::Buffer::new().format(zero_based(defined.map(|at| at.line))));
    json.push_str(",\"columnNumber\":");
    json.push_str(itoa::Buffer::new().format(zero_based(defined.and_then(|at| at.column))));
    json.push('}');
}

/// Writes `values` separated by commas.
pub(crate) fn push_list<T: itoa::Integer>(json: &mut String, values: impl Iterator<Item = T>) {
    for (i, value) in values.enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(itoa::Buffer::new().format(value));
    }
}
