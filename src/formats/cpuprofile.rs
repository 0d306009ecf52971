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
//!
//! **Errors**: JSON errors at their line and column; a child id that names no node, a node that is
//! a child twice or is its own ancestor, samples and deltas of different lengths, as errors naming
//! the place as a JSON path (`nodes[3].children[1]`). A `parent` id that names no node makes its
//! node a root, and a sample that names no node is the time of the sample before it, as speedscope
//! reads them (a trace cut to some of its chunks), each counted in a warning.
//!
//! **Written**: a `(root)` node (id 1) above the tree's roots, each node's call frame (url from its
//! module or where it is defined, line and column from where it is defined, else −1), its
//! `hitCount` and `children`; one sample per sample of the node (one for a node with time and no
//! samples), its time split among them (a profile without time: its samples or ticks at its
//! interval, else `--interval`, else 1 ms), the node's time rounded to whole µs along the running
//! total (so the deltas add up to it) and split evenly among them, each delta after the sample it weighs, then a closing sample of `(root)` so that speedscope
//! gives the last sample its time too; `endTime` is `startTime` plus the deltas.
//!
//! **Lost**: the order of samples in time, `positionTicks` (time per line), `scriptId`s (written
//! anew per url), `deoptReason`; named functions of one name in one script are one frame (two such
//! callees of one caller become one node). An anonymous function's name is written empty again.

use super::json::{self, push_string};
use super::kit::source_frame::{anonymous_name, CallFrame};
use super::options::{effective_interval, ConvertOptions, IntervalFirst};
use super::spec::{self, Carries, Encoding, JsonKind, Reads, Rules, Spec, Writes};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind};
use crate::model::{ChildIndex, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, Values};
use serde::Deserialize;
use std::io::{Read, Write};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "cpuprofile",
    description: "V8 CPU profile (`node --cpu-prof`, Chrome DevTools); opens in VS Code",
    extensions: &["cpuprofile"],
    carries: CARRIES,
    reads: Some(Reads {
        encoding: Encoding::Json(JsonKind { what: "a V8 CPU profile (.cpuprofile)", aside: " (V8's)", check }),
        read: |input, _, diag| read(input, diag).map_err(Error::from),
    }),
    writes: Some(Writes {
        write: |profile, out, options, _| write(profile, out, options),
        rules: Rules { fit, keeps_defined_at: true, merges_siblings: true, ..spec::STACKS_ONLY },
    }),
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
    ..Carries::TREE_OF_SAMPLES
};

/// The latest time a CPU profile or a trace may name, in µs: far beyond any clock (10^18 µs is
/// 31,000 years), so that no difference of two overflows and time stays exact in whole µs (i64); a
/// time past it is a damaged file, refused, not a total to cap.
pub(crate) const MAX_TIME_US: f64 = 1e18;

/// What a time must be, in the error that refuses one past [`MAX_TIME_US`].
pub(crate) const BELOW_MAX_TIME: &str = "times below 10^18 us";

/// What a `.cpuprofile` should be, for serde's errors.
const EXPECTED: &str = "a V8 CPU profile (nodes, startTime, endTime, samples, timeDeltas)";

/// Whether the input is a JSON object whose first key is `nodes` and whose nodes have call frames,
/// or (the old format) whose first key is `head` and whose nodes have function names and hit
/// counts; if not, what is missing first. V8's heap profile (`.heapprofile`) also has a `head` node
/// with function names, in `callFrame`s, but sizes (`selfSize`) where a CPU profile's nodes have
/// `hitCount`: it is not taken for a CPU profile.
pub(crate) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let Some(members) = head.members() else {
        return Err("not a JSON object");
    };
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Document {
    #[serde(default)]
    pub(crate) nodes: Vec<NodeJson>,
    #[serde(default)]
    pub(crate) start_time: f64,
    #[serde(default)]
    pub(crate) end_time: f64,
    #[serde(default)]
    pub(crate) samples: Option<Vec<u64>>,
    #[serde(default)]
    pub(crate) time_deltas: Option<Vec<f64>>,
    /// The old format's tree of nodes.
    #[serde(default)]
    pub(crate) head: Option<OldNode>,
    /// The old format's time of each sample (µs).
    #[serde(default)]
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
    fn into_new_format(mut self) -> Document {
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
    #[serde(default)]
    parent: Option<u64>,
}

/// Reads a `.cpuprofile`.
pub(crate) fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = json::parse(FORMAT, text, EXPECTED)?;
    let document = document.into_new_format();
    let at = |key: &str| memchr::memmem::find(text.as_bytes(), key.as_bytes()).unwrap_or(0);
    let error = |key: &str, expected: String, found: String| {
        json::error_at(FORMAT, text.as_bytes(), at(key), ParseErrorKind::Unexpected { expected, found })
    };
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
    let unknown = add_tree(&mut profile, &mut ChildIndex::default(), None, document, error)?;
    warn_unknown(&unknown, diag);
    Ok(profile)
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
/// it names that is no node (a node whose `parent` is none is a root).
pub(crate) fn add_tree(
    profile: &mut Profile,
    index: &mut ChildIndex,
    root: Option<NodeId>,
    document: &Document,
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<Unknown, ParseError> {
    let nodes = &document.nodes;
    let position: rustc_hash::FxHashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    if position.len() != nodes.len() {
        return Err(error("\"nodes\"", "a unique id per node".into(), "an id used twice".into()));
    }
    let find = |id: u64, path: &dyn Fn() -> String| {
        position
            .get(&id)
            .copied()
            .ok_or_else(|| error("\"nodes\"", "the id of a node".into(), format!("{id} at {}", path())))
    };
    // The parent of each node, from children lists or parent ids.
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for (j, &child) in node.children.iter().enumerate() {
            let c = find(child, &|| format!("nodes[{i}].children[{j}]"))?;
            if parent[c].is_some_and(|p| p != i) || c == i {
                let found = format!("node {child} a child again at nodes[{i}].children[{j}]");
                return Err(error("\"nodes\"", "a tree: each node the child of one node".into(), found));
            }
            parent[c] = Some(i);
        }
    }
    // A parent id that names no node leaves its node a root, as speedscope reads it (a trace cut
    // to some of its chunks loses the parents of later nodes).
    let mut unknown = Unknown::default();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            match position.get(&p) {
                Some(&p) => parent[i] = Some(p),
                None => unknown.parents += 1,
            }
        }
    }
    let (samples, time, unknown_samples) = weights(document, &position, error)?;
    // Children lists in file order, then a walk from the roots with a stack (no recursion).
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
        if let Some(n) = model_node {
            let (time_metric, samples_metric) = (time.as_ref().map(|_| 0), usize::from(time.is_some()));
            if let (Some(m), Some(time)) = (time_metric, &time) {
                profile.tree.add_self(m, n, Value::Int(time[i]));
            }
            profile.tree.add_self(samples_metric, n, Value::Int(samples[i]));
        }
        walk.extend(children[i].iter().rev().map(|&c| (c, model_node.or(parent_node), model_node.is_none() && top)));
    }
    if seen != nodes.len() {
        return Err(error("\"nodes\"", "a tree of nodes under a root".into(), "nodes in a cycle".into()));
    }
    unknown.samples = unknown_samples;
    Ok(unknown)
}

/// What a CPU profile names that is not among its nodes.
#[derive(Default)]
pub(crate) struct Unknown {
    /// Nodes whose `parent` names no node.
    parents: u64,
    /// Samples that name no node.
    samples: u64,
}

impl std::ops::AddAssign for Unknown {
    fn add_assign(&mut self, other: Unknown) {
        self.parents += other.parents;
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
    if unknown.samples > 0 {
        diag.warn("cpuprofile-unknown-samples", None, || {
            format!(
                "samples that name no node are the sample's before them, as speedscope reads them: {}",
                unknown.samples
            )
        });
    }
}

/// The samples and (where the file has its samples) time in µs of each node, and how many samples
/// name no node.
type Weights = (Vec<i64>, Option<Vec<i64>>, u64);

fn weights(
    document: &Document,
    position: &rustc_hash::FxHashMap<u64, usize>,
    error: &dyn Fn(&str, String, String) -> ParseError,
) -> Result<Weights, ParseError> {
    let mut samples = vec![0i64; document.nodes.len()];
    let Some(ids) = &document.samples else {
        for (count, node) in samples.iter_mut().zip(&document.nodes) {
            *count = i64::try_from(node.hit_count).unwrap_or(i64::MAX);
        }
        return Ok((samples, None, 0));
    };
    let deltas = document.time_deltas.as_deref().unwrap_or_default();
    if deltas.len() != ids.len() {
        let (n, m) = (ids.len(), deltas.len());
        return Err(error("\"timeDeltas\"", format!("as many timeDeltas as samples ({n})"), m.to_string()));
    }
    // Each sample's time, and the samples in time order (DevTools sorts them where a negative
    // delta puts one before another).
    let at: Vec<f64> = deltas
        .iter()
        .scan(document.start_time, |at, &delta| {
            *at += delta;
            Some(*at)
        })
        .collect();
    // NaN and the infinities are past MAX_TIME_US too.
    let within = |t: f64| t.is_finite() && t.abs() < MAX_TIME_US;
    if let Some(i) = at.iter().position(|&t| !within(t)) {
        let found = format!("{} at sample {i} (startTime plus its timeDeltas)", at[i]);
        return Err(error("\"timeDeltas\"", BELOW_MAX_TIME.into(), found));
    }
    // An endTime of -inf is none (a trace's profile): the time then ends at the last sample.
    if !within(document.start_time) || !(within(document.end_time) || document.end_time == f64::NEG_INFINITY) {
        let found = format!("startTime {}, endTime {}", document.start_time, document.end_time);
        return Err(error("\"endTime\"", BELOW_MAX_TIME.into(), found));
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| at[a].total_cmp(&at[b]));
    let mut time = vec![0f64; document.nodes.len()];
    let (mut unknown, mut before) = (0, None);
    for (k, &i) in order.iter().enumerate() {
        // A sample that names no node leaves the stack before it where it is (speedscope).
        let node = match position.get(&ids[i]) {
            Some(&node) => {
                samples[node] += 1;
                node
            }
            None => {
                unknown += 1;
                let Some(node) = before else { continue };
                node
            }
        };
        before = Some(node);
        // From the sample before (the first from startTime) to the next (the last to endTime).
        let from = if k == 0 { document.start_time.min(at[i]) } else { at[i] };
        let to = order.get(k + 1).map_or(document.end_time, |&next| at[next]);
        time[node] += (to - from).max(0.0);
    }
    Ok((samples, Some(time.into_iter().map(|t| t.round() as i64).collect()), unknown))
}

/// Fits a profile projected onto [`CARRIES`] to what a `.cpuprofile` holds, both time and samples:
/// time from the samples (or ticks) at the profile's interval, else `--interval`, else 1 ms, where
/// it has none (said on stderr); a sample per node with time where it has no samples. The profile is
/// then weighed by its time. (Siblings of one frame are one node already: `merges_siblings`.)
pub(crate) fn fit(mut profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    drop_time_of_other_events(&mut profile, diag);
    let kind = |profile: &Profile, kind| profile.metrics().iter().position(|m| m.kind == kind);
    let counts = kind(&profile, MetricKind::Samples).or_else(|| kind(&profile, MetricKind::Ticks));
    if kind(&profile, MetricKind::Time).is_none() {
        let interval = effective_interval(options.interval, profile.meta.interval, IntervalFirst::Own);
        let micros = interval.as_secs_f64() * 1e6;
        let values = counts.map_or_else(
            || vec![0.0; profile.tree.len()],
            |m| profile.tree.self_values(m).to_f64().into_iter().map(|c| c * micros).collect(),
        );
        if let Some(m) = counts {
            let name = profile.metrics()[m].name.clone();
            diag.warn("cpuprofile-time", None, || {
                format!("cpuprofile holds time: {name} written as time at {micros} us each")
            });
        }
        profile.add_metric(
            Metric::time(Unit::Microseconds, Repr::Float).sampled(crate::model::Sampling::weights_of("samples")),
            Values::Float(values),
        );
    }
    if kind(&profile, MetricKind::Samples).is_none() {
        let values = match (counts, kind(&profile, MetricKind::Time)) {
            (Some(m), _) => profile.tree.self_values(m).to_f64().into_iter().map(|c| c as i64).collect(),
            (None, Some(m)) => profile.tree.self_values(m).to_f64().into_iter().map(|t| i64::from(t > 0.0)).collect(),
            (None, None) => vec![0; profile.tree.len()],
        };
        profile.add_metric(Metric::samples(), Values::Int(values));
    }
    profile.meta.weighed_by = Some(MetricKind::Time);
    profile
}

/// Drops, where the profile counts samples, a time that weighs other events than its samples (a JFR
/// recording's lock and park waits, weights of their own events): a `.cpuprofile`'s time is its
/// samples', and a wait is no CPU time. Said on stderr.
fn drop_time_of_other_events(profile: &mut Profile, diag: &mut Diagnostics) {
    let counts: Vec<&str> = (profile.metrics().iter())
        .filter(|m| matches!(m.kind, MetricKind::Samples | MetricKind::Ticks))
        .map(|m| m.name.as_str())
        .collect();
    let of_other_events = |m: &Metric| {
        m.kind == MetricKind::Time
            && !counts.is_empty()
            && matches!(&m.sampling, crate::model::Sampling::Sampled { of: Some(of), .. } if !counts.contains(&of.as_str()))
    };
    let keep: Vec<bool> = profile.metrics().iter().map(|m| !of_other_events(m)).collect();
    if keep.iter().all(|&k| k) {
        return;
    }
    let dropped: Vec<String> =
        profile.metrics().iter().zip(&keep).filter(|(_, k)| !**k).map(|(m, _)| m.name.clone()).collect();
    diag.warn("cpuprofile-other-time", None, || {
        format!("cpuprofile's time is its samples': {} (time of other events) dropped", dropped.join(", "))
    });
    profile.retain_metrics(&keep);
}

/// Writes `profile` (projected onto [`CARRIES`]: time in µs) as a `.cpuprofile`. A profile without
/// time has its samples (or ticks) laid out at its interval, else `--interval`, else 1 ms.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write, options: &ConvertOptions) -> Result<(), Error> {
    let tree = &profile.tree;
    let time = profile.metrics().iter().position(|m| m.kind == MetricKind::Time);
    let count = profile.metrics().iter().position(|m| m.kind == MetricKind::Samples);
    let count = count.or_else(|| profile.metrics().iter().position(|m| m.kind == MetricKind::Ticks));
    let interval = effective_interval(options.interval, profile.meta.interval, IntervalFirst::Own);
    let per_count = interval.as_secs_f64() * 1e6;
    let children = tree.children();
    // Nodes in pre-order (as the reader builds them back), with an explicit stack: ids from 2 in
    // that order, (root) being 1.
    let mut order: Vec<NodeId> = Vec::with_capacity(tree.len());
    let mut stack: Vec<NodeId> = children.roots().iter().rev().copied().collect();
    while let Some(node) = stack.pop() {
        order.push(node);
        stack.extend(children.of_node(node).iter().rev());
    }
    // A sample per count (at least one for a node with time, or a leaf where none is counted).
    let hits_of = |node: NodeId| {
        let hits = count.map_or(0, |m| tree.self_value(m, node).as_count().max(0) as u64);
        let micros = time.map_or(hits as f64 * per_count, |m| tree.self_value(m, node).as_f64());
        let at_least_one = hits == 0 && (micros > 0.0 || (count.is_none() && children.of_node(node).is_empty()));
        (if at_least_one { 1 } else { hits }, micros)
    };
    // Each sample is an entry of `samples` and `timeDeltas`: the file grows with the count, so a
    // count past --max-samples stops here, before any memory is taken for it.
    let total_hits = order.iter().fold(0u64, |sum, &node| sum.saturating_add(hits_of(node).0));
    if total_hits > options.max_samples {
        let max = options.max_samples;
        let what = format!("{total_hits} samples would be {total_hits} entries of samples and timeDeltas, more than --max-samples {max} allows (raise it to write them)");
        return Err(Error::Unrepresentable { format: FORMAT, what });
    }
    let mut ids = vec![0u64; tree.len()];
    for (i, &node) in order.iter().enumerate() {
        ids[node.index()] = i as u64 + 2;
    }
    let id = |n: NodeId| ids[n.index()];
    let mut urls: Vec<&str> = Vec::new();
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":1,\"children\":[");
    push_ids(&mut json, children.roots().iter().map(|&n| id(n)));
    json.push_str("]}");
    // Samples in the tree's order, and the running time (µs) after each.
    let mut samples: Vec<u64> = Vec::new();
    let mut deltas: Vec<i64> = Vec::new();
    let (mut total, mut written) = (0f64, 0i64);
    for &node in &order {
        let (hits, micros) = hits_of(node);
        // The node's whole µs on the running total, split evenly, the odd ones first: a node's time
        // read back is a whole number, which a second write splits the same way.
        total += micros;
        let span = total.round() as i64 - written;
        written += span;
        if hits > 0 {
            let (each, odd) = (span.div_euclid(hits as i64), span.rem_euclid(hits as i64));
            for hit in 0..hits as i64 {
                samples.push(id(node));
                deltas.push(each + i64::from(hit < odd));
            }
        }
        json.push_str(",{\"id\":");
        json.push_str(itoa::Buffer::new().format(id(node)));
        push_call_frame(&mut json, profile, node, &mut urls);
        json.push_str(",\"hitCount\":");
        json.push_str(itoa::Buffer::new().format(hits));
        json.push_str(",\"children\":[");
        push_ids(&mut json, children.of_node(node).iter().map(|&n| id(n)));
        json.push_str("]}");
        if json.len() >= 1 << 16 {
            out.write_all(json.as_bytes())?;
            json.clear();
        }
    }
    // Each delta follows the sample it weighs: the first is 0, the closing (root) sample gets the last.
    samples.push(1);
    deltas.insert(0, 0);
    json.push_str("],\"startTime\":0,\"endTime\":");
    json.push_str(itoa::Buffer::new().format(written));
    json.push_str(",\"samples\":[");
    push_ids(&mut json, samples.into_iter());
    json.push_str("],\"timeDeltas\":[");
    for (i, delta) in deltas.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(itoa::Buffer::new().format(*delta));
    }
    json.push_str("]}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Writes the `callFrame` of `node`'s frame; `urls` are the scripts named so far, whose place in
/// it (from 1) is a script's id.
fn push_call_frame<'p>(json: &mut String, profile: &'p Profile, node: NodeId, urls: &mut Vec<&'p str>) {
    let tree = &profile.tree;
    let frame = profile.frames.get(tree.frame(node));
    json.push_str(",\"callFrame\":{\"functionName\":");
    let name = super::shared::written_name(frame);
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

fn push_ids(json: &mut String, ids: impl Iterator<Item = u64>) {
    for (i, id) in ids.enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(itoa::Buffer::new().format(id));
    }
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
        let profile = read(&mut &json[..], &mut Diagnostics::default()).unwrap();
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
        let profile = read(&mut &json[..], &mut Diagnostics::default()).unwrap();
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
        write(&profile, &mut out, &ConvertOptions::default()).unwrap();
        let text = String::from_utf8(out).unwrap();
        for (line, column) in [(2, 14), (7, 4)] {
            let frame = format!(
                r#""functionName":"","scriptId":"1","url":"file:///srv/server.js","lineNumber":{line},"columnNumber":{column}"#
            );
            assert!(text.contains(&frame), "{text}");
        }
        let mut out = Vec::new();
        crate::formats::speedscope::write(&profile, &mut out, &ConvertOptions::default()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#"{"name":"(anonymous server.js:8:5)","file":"file:///srv/server.js","line":8,"col":5}"#),
            "{text}"
        );
    }
}
