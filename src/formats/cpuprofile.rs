//! V8's `.cpuprofile`: the CPU profile of the Chrome DevTools protocol (`Profiler.Profile`), as
//! `node --cpu-prof`, Chrome DevTools ("Save profile"), Deno and Electron write it, and Chrome
//! DevTools, VS Code, speedscope and the Firefox Profiler open it.
//!
//! ```text
//! {"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,
//!   "columnNumber":-1},"hitCount":0,"children":[2,3]},
//!  {"id":2,"callFrame":{"functionName":"(program)",…},"hitCount":1},
//!  {"id":3,"callFrame":{"functionName":"leaf","scriptId":"81","url":"file:///work.js",
//!   "lineNumber":1,"columnNumber":13},"hitCount":22,"positionTicks":[{"line":4,"ticks":22}]}],
//!  "startTime":3354278486,"endTime":3354487943,"samples":[2,3,3],"timeDeltas":[13143,20432,3195]}
//! ```
//!
//! **Schema**: `nodes`, each with a unique `id`, a `callFrame` (`functionName`, `url`, 0-based
//! `lineNumber` and `columnNumber`, −1 where unknown), its `hitCount` and its `children` ids (or,
//! as trace events' profile chunks write them, its `parent` id); `startTime` and `endTime` in µs;
//! `samples`, the id of the innermost node of each sample in time order, and `timeDeltas`, the µs
//! from the sample before (the first from `startTime`). The old format (node ≤ 10, Chrome ≤ 60,
//! v8-profiler): a `head` node with its `children` nested, the call frame's fields in the node
//! (`lineNumber` 1-based, as DevTools' `CPUProfileDataModel` reads it), `startTime` and `endTime`
//! in seconds (node 10 writes whole ones), and `timestamps`, each sample's time in µs (one more than
//! the samples where the writer closes the last).
//!
//! **Model**: the tree of nodes, without V8's `(root)` (its children are the roots); `(program)`,
//! `(idle)` and `(garbage collector)` stay where V8 puts them, as functions of those names (a
//! `.cpuprofile` does not say which nodes are no code but by these names; speedscope leaves
//! `(idle)` out of its call tree and shows it as a gap, and puts the other two above the stack
//! before them). A frame is named by its `functionName`; where it is empty (an anonymous function)
//! by where the function is defined, `(anonymous work.js:11:20)` (the url's last part, 1-based line
//! and column), as speedscope names it `(anonymous work.js:11)`, so that ten callbacks of one script
//! are ten functions (a frame is its name, module and kind), else `(anonymous)`. Its module is the
//! url, and where its function is defined (`url:line:column`, 1-based) is the frame fact
//! [`crate::model::DEFINED_AT`]. Metrics: `time` in µs, the metric the
//! profile is weighed by, and `samples`. The time is `endTime` − `startTime`, the total speedscope
//! gives a profile and the one DevTools' call tree shares out among the samples: the samples in
//! time order (DevTools sorts them where a negative delta puts one before another), each weighs the
//! time to the next, the first also the time from `startTime`, the last the time to `endTime` (in
//! speedscope's timeline the time before the first sample and after the last is no stack's; VS Code
//! gives the first none). The old format is read as DevTools reads it: its samples at its
//! timestamps, from the first to the last (its whole-second `startTime` would put seconds before
//! the first sample). A file without `samples` has the `hitCount`s as samples and no time.
//! **Timeline**: the samples at their times, from `startTime` to `endTime` (but those of V8's
//! `(root)`, no node here).
//!
//! **Errors**: JSON errors at their line and column; a node that is a child twice or is its own
//! ancestor, samples and deltas of different lengths, as errors naming the place as a JSON path
//! (`nodes[3].children[1]`). A child id that names no node is skipped, a `parent` id that names no
//! node makes its node a root, and a sample that names no node is the time of the sample before
//! it, as speedscope reads them (a trace cut to some of its chunks, or whose nodes were cut down),
//! each counted in a warning.
//!
//! **Written**: a `(root)` node (id 1) above the tree's roots, each node's call frame (url from its
//! module or where it is defined, line and column from where it is defined, else −1), its
//! `hitCount` and `children`; the samples of the profile's timeline at their times (`startTime`
//! and `endTime` its span, in whole µs) where its samples weigh the profile's time as a
//! `.cpuprofile` weighs them (its own timeline, read back; not a clock's periods, perf's, nor several
//! threads' at once: then, with a warning, as a profile without a timeline); else one sample per sample of the node (one for a node with time and no
//! samples), its time split among them (a profile without time: its samples or ticks at its
//! interval, else `--interval`, else 1 ms), the node's time rounded to whole µs along the running
//! total (so the deltas add up to it) and split evenly among them, each delta after the sample it weighs, then a closing sample of `(root)` so that speedscope
//! gives the last sample its time too; `endTime` is `startTime` plus the deltas.
//!
//! **Lost**: the order of samples in time where the profile has no timeline that weighs its time, `positionTicks` (time per line), `scriptId`s (written
//! anew per url), `deoptReason`; named functions of one name in one script are one frame (two such
//! callees of one caller become one node). An anonymous function's name is written empty again.

use super::json;
use super::kit::v8_profile::{add_tree, metrics, warn_unknown, Document};
use super::kit::v8_profile_writer::{add_weights, check_max_samples, micros, push_call_frame, push_list, weigh_time, Layout};
use super::options::{effective_interval, ConvertOptions, ReadOptions, Turning};
use super::spec::{self, Carries, JsonKind, Reads, Rules, Spec, Writes, Writing};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError};
use crate::model::{ChildIndex, Metric, MetricKind, NodeId, Profile, Unit, Values, DEFINED_AT};
use std::io::Read;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "cpuprofile",
    description: "V8 CPU profile (`node --cpu-prof`, Chrome DevTools); opens in VS Code",
    extensions: &["cpuprofile"],
    carries: CARRIES,
    reads: Some(Reads::json(
        JsonKind { what: "a V8 CPU profile (.cpuprofile)", aside: " (V8's)", check },
        read,
    )),
    writes: Some(Writes::new(write, Rules { fit, keeps_facts: &[DEFINED_AT], merges_siblings: true, ..spec::STACKS_ONLY })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a `.cpuprofile` holds.
pub(crate) const CARRIES: Carries = Carries {
    threads: true,
    metrics: &[MetricKind::Time, MetricKind::Samples, MetricKind::Ticks],
    one_metric: false,
    modules: true,
    // Not written as such: the length of a sample or tick where the profile has no time.
    interval: true,
    time_unit: Some(Unit::Microseconds),
    weight_is_time: true,
    needs_time: true,
    timeline: true,
    ..Carries::TREE_OF_SAMPLES
};

/// What a `.cpuprofile` should be, for serde's errors.
const EXPECTED: &str = "a V8 CPU profile (nodes, startTime, endTime, samples, timeDeltas)";

/// Whether the input is a JSON object whose first key is `nodes` and whose nodes have call frames,
/// or (the old format) whose first key is `head` and whose nodes have function names and hit
/// counts; if not, what is missing first. V8's heap profile (`.heapprofile`) also has a `head` node
/// with function names, in `callFrame`s, but sizes (`selfSize`) where a CPU profile's nodes have
/// `hitCount`: it is not taken for a CPU profile.
pub(crate) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let members = head.object()?;
    if members.starts_with(b"\"nodes\"") {
        return if head.mentions(b"\"callFrame\"") { Ok(()) } else { Err("\"nodes\" without a \"callFrame\"") };
    }
    if !members.starts_with(b"\"head\"") {
        return Err("its first key is neither \"nodes\" nor the old format's \"head\"");
    }
    match (head.mentions(b"\"functionName\""), head.mentions(b"\"hitCount\"")) {
        (true, true) => Ok(()),
        (false, _) => Err("a \"head\" tree without a \"functionName\""),
        (true, false) => Err("a \"head\" tree without a \"hitCount\" (a V8 heap profile's has \"selfSize\"s instead)"),
    }
}

/// Reads a `.cpuprofile`.
pub(crate) fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = json::parse(FORMAT, text, EXPECTED)?;
    let document = document.into_new_format();
    let error = |key: &str, expected, found| json::error_at_key(FORMAT, text, key, expected, found);
    profile(&document, &error, diag)
}

/// The profile of a parsed CPU profile; `error` makes an error at the key named, with what was
/// expected and what was found.
fn profile(
    document: &Document,
    error: &dyn Fn(&str, String, String) -> ParseError,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let timed = document.samples.is_some();
    let mut profile = Profile::new(metrics(timed));
    if timed {
        profile.meta.weighed_by = Some(MetricKind::Time);
    }
    let added = add_tree(&mut profile, &mut ChildIndex::default(), None, document, error)?;
    warn_unknown(&added.unknown, diag);
    profile.timeline = added.timeline;
    Ok(profile)
}

/// Fits a profile projected onto [`CARRIES`] to what a `.cpuprofile` holds, both time and samples
/// (its time from its samples is the conversion's, [`Carries::needs_time`]): a sample per node with
/// time where it has no samples. The profile is then weighed by its time. (Siblings of one frame
/// are one node already: `merges_siblings`.)
pub(crate) fn fit(mut profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    if profile.timeline.is_some() && !timeline_weighs_time(&profile) {
        profile.timeline = None;
        diag.warn("timeline-partial", None, || {
            "cpuprofile: a .cpuprofile's time is the time between its samples, and the profile's time is not (a clock's periods, or several threads at once): the samples are laid out in tree order, not at their times".into()
        });
    }
    if profile.metric_of_kind(MetricKind::Samples).is_none() {
        let values = match (profile.metric_of_kind(MetricKind::Ticks), profile.metric_of_kind(MetricKind::Time)) {
            (Some(m), _) => profile.tree.self_values(m).to_f64().into_iter().map(|c| c as i64).collect(),
            (None, Some(m)) => profile.tree.self_values(m).to_f64().into_iter().map(|t| i64::from(t > 0.0)).collect(),
            (None, None) => vec![0; profile.tree.len()],
        };
        profile.add_metric(Metric::samples(), Values::Int(values));
    }
    profile.meta.weighed_by = Some(MetricKind::Time);
    profile
}

/// Writes `profile` (projected onto [`CARRIES`]: time in µs) as a `.cpuprofile`: its timeline's
/// samples at their times where the timeline holds its time ([`Layout::of_samples`]; `fit` keeps a timeline only where it weighs the profile's time), else a sample
/// per count laid out in tree order ([`tree_layout`]). A profile without time has its samples (or
/// ticks) laid out at its interval, else `--interval`, else 1 ms.
pub(crate) fn write(profile: &Profile, Writing { out, options, .. }: Writing<'_>) -> Result<(), Error> {
    let tree = &profile.tree;
    let children = tree.children();
    // Nodes in pre-order (as the reader builds them back), with an explicit stack: ids from 2 in
    // that order, (root) being 1.
    let mut order: Vec<NodeId> = Vec::with_capacity(tree.len());
    let mut stack: Vec<NodeId> = children.roots().iter().rev().copied().collect();
    while let Some(node) = stack.pop() {
        order.push(node);
        stack.extend(children.of_node(node).iter().rev());
    }
    let layout = match &profile.timeline {
        Some(timeline) => {
            let span = (micros(timeline.start), micros(timeline.end));
            Layout::of_samples(timeline.samples(), span, tree.len(), options.max_samples, FORMAT)?
        }
        None => tree_layout(profile, &order, options)?,
    };
    let mut ids = vec![0u64; tree.len()];
    for (i, &node) in order.iter().enumerate() {
        ids[node.index()] = i as u64 + 2;
    }
    let id = |n: NodeId| ids[n.index()];
    let mut urls: Vec<&str> = Vec::new();
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":1,\"children\":[");
    push_list(&mut json, children.roots().iter().map(|&n| id(n)));
    json.push_str("]}");
    for &node in &order {
        json.push_str(",{\"id\":");
        json.push_str(itoa::Buffer::new().format(id(node)));
        push_call_frame(&mut json, profile, node, &mut urls);
        json.push_str(",\"hitCount\":");
        json.push_str(itoa::Buffer::new().format(layout.hits[node.index()]));
        json.push_str(",\"children\":[");
        push_list(&mut json, children.of_node(node).iter().map(|&n| id(n)));
        json.push_str("]}");
        if json.len() >= 1 << 16 {
            out.write_all(json.as_bytes())?;
            json.clear();
        }
    }
    json.push_str("],\"startTime\":");
    json.push_str(itoa::Buffer::new().format(layout.start));
    json.push_str(",\"endTime\":");
    json.push_str(itoa::Buffer::new().format(layout.end));
    json.push_str(",\"samples\":[");
    push_list(&mut json, layout.samples.iter().map(|s| s.map_or(1, id)));
    json.push_str("],\"timeDeltas\":[");
    push_list(&mut json, layout.deltas.iter().copied());
    json.push_str("]}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Whether the profile's timeline weighs its time: in a `.cpuprofile` each sample weighs the µs
/// to the next, the first also from the start, the last to the end (as the reader shares time
/// out), and each node's samples must so weigh its time, to the µs. A `.cpuprofile`'s own timeline
/// does; one whose time is a clock's periods (perf's `cpu-clock`), or several threads' at once,
/// does not.
fn timeline_weighs_time(profile: &Profile) -> bool {
    let (tree, Some(timeline)) = (&profile.tree, &profile.timeline) else { return false };
    let Some(time) = profile.metric_of_kind(MetricKind::Time) else { return false };
    let mut weighs = vec![0i64; tree.len()];
    add_weights(timeline.samples(), (micros(timeline.start), micros(timeline.end)), &mut weighs);
    weigh_time(tree, time, &weighs)
}

/// A sample per count of each node (at least one for a node with time, or a leaf where none is
/// counted) in tree order, its time split among them: the node's time rounded to whole µs along
/// the running total (so that the deltas add up to it), split evenly, the odd ones first; then a
/// closing `(root)` sample, which gets the last one's time.
fn tree_layout(profile: &Profile, order: &[NodeId], options: &ConvertOptions) -> Result<Layout, Error> {
    let tree = &profile.tree;
    let children = tree.children();
    let time = profile.metric_of_kind(MetricKind::Time);
    let count = profile.metric_of_kind(MetricKind::Samples);
    let count = count.or_else(|| profile.metric_of_kind(MetricKind::Ticks));
    let interval = effective_interval(options.interval, profile.meta.interval, Turning::CountsIntoTime);
    let per_count = interval.as_secs_f64() * 1e6;
    let hits_of = |node: NodeId| {
        let hits = count.map_or(0, |m| tree.self_value(m, node).as_count().max(0) as u64);
        let micros = time.map_or(hits as f64 * per_count, |m| tree.self_value(m, node).as_f64());
        let at_least_one = hits == 0 && (micros > 0.0 || (count.is_none() && children.of_node(node).is_empty()));
        (if at_least_one { 1 } else { hits }, micros)
    };
    let total = order.iter().fold(0u64, |sum, &node| sum.saturating_add(hits_of(node).0));
    check_max_samples(total, options.max_samples, FORMAT)?;
    let mut layout = Layout { hits: vec![0; tree.len()], samples: Vec::new(), deltas: vec![0], start: 0, end: 0 };
    let (mut total, mut written) = (0f64, 0i64);
    for &node in order {
        let (hits, micros) = hits_of(node);
        // The node's whole µs on the running total: a node's time read back is a whole number,
        // which a second write splits the same way.
        total += micros;
        let span = total.round() as i64 - written;
        written += span;
        layout.hits[node.index()] = hits;
        if hits > 0 {
            let (each, odd) = (span.div_euclid(hits as i64), span.rem_euclid(hits as i64));
            for hit in 0..hits as i64 {
                layout.samples.push(Some(node));
                // Each delta follows the sample it weighs: the first is 0, the closing one the last.
                layout.deltas.push(each + i64::from(hit < odd));
            }
        }
    }
    layout.samples.push(None);
    layout.end = written;
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dump::dump;

    /// The `hitCount`-only form (no samples), with `parent` links as trace profile chunks write them:
    /// the hit counts are the samples, there is no time.
    #[test]
    fn hit_counts_without_samples_are_the_samples() {
        let json = br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1}},
            {"id":2,"callFrame":{"functionName":"main","url":"file:///app.js","lineNumber":9,"columnNumber":4},"parent":1,"hitCount":3},
            {"id":3,"callFrame":{"functionName":"","url":"file:///app.js","lineNumber":20,"columnNumber":10},"parent":2,"hitCount":5},
            {"id":4,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1,"columnNumber":-1},"parent":1,"hitCount":1}],
            "startTime":0,"endTime":1000}"#;
        let profile = read(&mut &json[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let dump = dump(&profile);
        assert!(dump.contains("metric 0: samples (samples, count, additive)\n"), "{dump}");
        assert!(!dump.contains("metric 1"), "{dump}");
        assert!(dump.contains("\"main\" module=\"file:///app.js\" [function] samples=3 (total 8)\n"), "{dump}");
        assert!(
            dump.contains("  \"(anonymous app.js:21:11)\" module=\"file:///app.js\" [function] samples=5 (total 5)\n"),
            "{dump}"
        );
        assert!(dump.contains("\"(garbage collector)\" [function] samples=1 (total 1)\n"), "{dump}");
        assert!(dump.contains("defined-at=\"file:///app.js:21:11\""), "{dump}");
    }

    /// Two anonymous functions of one script (callbacks at lines 3 and 8, 0-based 2 and 7) are two
    /// functions, named where they are defined; written back, each has an empty name and its own
    /// line and column again (0-based), and speedscope's and pprof's writers get their places.
    #[test]
    fn anonymous_functions_of_one_script_stay_apart() {
        let json = br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
            {"id":2,"callFrame":{"functionName":"","url":"file:///srv/server.js","lineNumber":2,"columnNumber":14}},
            {"id":3,"callFrame":{"functionName":"","url":"file:///srv/server.js","lineNumber":7,"columnNumber":4}}],
            "startTime":0,"endTime":30,"samples":[2,3],"timeDeltas":[0,10]}"#;
        let profile = read(&mut &json[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let dump = dump(&profile);
        // 10 µs to the second sample, 20 from it to endTime.
        assert!(
            dump.contains("\"(anonymous server.js:3:15)\" module=\"file:///srv/server.js\" [function] time=10 "),
            "{dump}"
        );
        assert!(
            dump.contains("\"(anonymous server.js:8:5)\" module=\"file:///srv/server.js\" [function] time=20 "),
            "{dump}"
        );
        let mut out = Vec::new();
        write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let text = String::from_utf8(out).unwrap();
        for (line, column) in [(2, 14), (7, 4)] {
            let frame = format!(
                r#""functionName":"","scriptId":"1","url":"file:///srv/server.js","lineNumber":{line},"columnNumber":{column}"#
            );
            assert!(text.contains(&frame), "{text}");
        }
        let mut out = Vec::new();
        crate::formats::speedscope::write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#"{"name":"(anonymous server.js:8:5)","file":"file:///srv/server.js","line":8,"col":5}"#),
            "{text}"
        );
    }
}
