//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>), the JSON that the
//! speedscope viewer opens in a browser (flame graph, time-ordered and sandwich views), and that
//! py-spy (`py-spy record --format speedscope`) and other profilers write.
//!
//! ```text
//! {"$schema":"https://www.speedscope.app/file-format-schema.json","name":"fib benchmark",
//!  "activeProfileIndex":0,"exporter":"proftool 0.1.0",
//!  "shared":{"frames":[{"name":"Profile root"},{"name":"CL-USER::FIB","file":"fib.lisp","line":12}]},
//!  "profiles":[{"type":"sampled","name":"samples","unit":"none","startValue":0,"endValue":100,
//!    "samples":[[0],[0,1]],"weights":[0,75]},
//!   {"type":"evented","name":"main","unit":"milliseconds","startValue":0,"endValue":14,
//!    "events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":2},{"type":"C","frame":1,"at":9},…]}]}
//! ```
//!
//! **Reading**: a frame's `file` is its module; a frame with a `col` (and `file` and `line`) is a
//! function defined there (the frame attr [`crate::model::DEFINED_AT`], `file:line:col`), as proftool
//! writes where a function is defined (so that two functions of one name in two files stay two); a frame
//! with a `line` and no column a source-line frame of its `file` (py-spy's frames are the lines of
//! functions: they stay apart); else a function with its `file` as its module. Each profile (py-spy
//! writes one per thread) becomes a thread root named after the profile, its weights a metric of its
//! unit (`none` samples, `nanoseconds` … `milliseconds` time in that unit, `seconds` time in
//! milliseconds, `bytes` allocation; a unit speedscope does not define is read as a count of events, with a
//! warning); profiles of one name are one thread. A file proftool wrote (`exporter` `proftool …`)
//! names each profile's `metric` and `thread` (see Writing; an older one holds one profile per
//! metric, named after it, threads included as root frames): its profiles are read as the metrics
//! and threads they were. A `sampled` profile's samples are
//! stacks, root first, with their weights; an `evented` profile's open and close events are a stack
//! whose innermost frame gets the time to the next event, and (in a unit of time) each frame open
//! from its open to its close a slice of the profile's timeline; a `sampled` profile of the first
//! metric of time, each sample at `startValue` plus the weights before it (as speedscope's time order
//! lays them out), standing for its weight in the profile's smallest. A metric whose values are all whole
//! numbers is read as integers. The file's `name` is the title, the metric of the profile shown first
//! (`activeProfileIndex`) the one the profile is weighed by ([`crate::model::Meta::weighed_by`]). py-spy's `"activeProfileIndex":
//! null` and `"col": null` are accepted. A frame index out of range, samples and weights of different
//! lengths, a negative weight and a close event that does not close the innermost open frame (or
//! frames left open) are errors that name their place as a JSON path (`profiles[0].samples[3]`).
//!
//! **Writing**: `shared.frames` is the profile's frame table (module as `file`, source line as
//! `line`; where the frame attr `defined-at` holds a location, its file, line and column as `file`,
//! `line` and `col`). Each additive metric (samples, time, ticks, allocation, counts of objects or
//! events) is `sampled` profiles: one per thread at the roots, named after the thread, as speedscope
//! shows the files it imports itself (its thread menu), and one for the roots that are not threads
//! (named after the metric), metric after metric. The first profile of the metric the profile is
//! weighed by is the one speedscope shows first (`activeProfileIndex`); its profiles are named after
//! their threads, the other metrics' `thread (metric)`. A thread's frame is in `shared.frames` only
//! where it is also a frame of stacks. A profile's
//! samples are the stacks of the nodes with a value, root first (without the thread's own frame),
//! weighted by it (a leaf with none is kept with weight 0, as in folded stacks), in the tree's
//! order; `endValue` is their sum. Each profile also says which `metric` and `thread` it holds, keys
//! speedscope ignores, so that proftool reads its file back as it was. Time keeps its unit
//! (`nanoseconds` … `milliseconds`), allocation is in `bytes`, counts are `none`. The title is the
//! file's `name`. A line of no named function (a BR line of the main routine) is named by its place.
//! Each sample holds its whole stack: samples estimated at more than `--max-output-size` (default 100
//! times the input, at least 1 GiB) are refused before anything is written, as folded stacks are.
//!
//! The slices of the profile's timeline, where they are the time of their thread's nodes (the fit
//! keeps those of such threads, and says which it drops), are the first metric of time's profile
//! of their thread as an `evented` profile instead: an open and a close event per slice at its
//! times, in the metric's unit (a close before an open at its time), from the first open to the
//! last close. The samples of the timeline, where they hold every value of a metric, are its
//! sampled profiles' samples in time order, each its share of its node's value
//! ([`crate::model::Timeline::shares`]), from the first sample's time (`startValue`), after the
//! stacks of no value (as a tree writes them), so that speedscope's time order shows them in the
//! order they were taken (the gaps between them closed); `inTimeOrder` says so to proftool's reader,
//! which takes the samples of a sampled profile of its own file as a timeline only then.
//!
//! **Lost**: per-node metrics (calls), the gaps between samples, per-function counts, frame kinds but the threads at the roots,
//! header facts but the title, inner nodes of the tree without a value of their own (their
//! stacks are implied by their children's), a source line's clause. A count's kind is read back
//! from its name ([`crate::model::MetricKind::of_count`]: `samples`, `ticks`, `alloc_objects`).

mod read;

use super::json::push_string;
use super::spec::{self, Carries, JsonKind, Reads, Rules, Spec, Writes, Writing};
use crate::error::{Error, FormatName};
use crate::diag::Diagnostics;
use crate::formats::ConvertOptions;
use crate::model::{
    ops, slice_edges, CallTree, Children, Edge, FrameId, FrameKind, Metric, MetricKind, NodeId, Profile, Repr, Slice,
    Unit, Value, Walk,
};
use std::io::Write;

pub(crate) use read::read;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "speedscope",
    description: "speedscope's file format (and py-spy's)",
    extensions: &["speedscope.json"],
    carries: CARRIES,
    reads: Some(Reads::json(
        JsonKind { what: "speedscope JSON", aside: "", check },
        read,
    )),
    writes: Some(Writes::new(write, Rules {
            fit,
            fit_roots,
            says_which_metric_comes_first: true,
            keeps_facts: &[crate::model::DEFINED_AT],
            ..spec::STACKS_ONLY
        })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a speedscope file holds.
pub(crate) const CARRIES: Carries =
    Carries { thread_roots: true, timeline: true, slices: true, ..Carries::STACKS_OF_ANY_COUNT };

/// Whether the input is JSON that names speedscope's schema, or that has its key `shared` near the
/// start with `profiles` or `frames` (a file written without `$schema`); if not, why not.
pub(crate) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = super::json::Head::of(head);
    let has = |key: &str| head.mentions(key.as_bytes());
    head.object()?;
    match has("speedscope.app/file-format-schema") || (has("\"shared\"") && (has("\"profiles\"") || has("\"frames\"")))
    {
        true => Ok(()),
        false => {
            Err("no \"$schema\" naming speedscope's file format, nor a \"shared\" key with \"profiles\" or \"frames\"")
        }
    }
}

/// Keeps only the threads at the roots, which become profiles: every other frame that is not code
/// (a nested thread, a pseudo-frame) becomes a function of its name, as the file has no kinds.
pub(crate) fn fit_roots(profile: &mut Profile) {
    ops::make_functions(profile, |is_root, kind| kind == FrameKind::Pseudo || ops::is_nested_non_code(is_root, kind));
}

/// Keeps the slices of the profile's timeline only where they are the time they are written as
/// (its first metric of time, [`crate::model::Timeline::keep_slices_that_are_the_time`]), saying so where they are not.
fn fit(mut profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    if let (Some((m, nanos)), Some(timeline)) = (timed_metric(&profile), &mut profile.timeline) {
        let dropped = timeline.keep_slices_that_are_the_time(&profile.tree, m, nanos);
        if dropped > 0 {
            diag.warn("timeline-partial", None, || {
                format!("{FORMAT}: the slices of {dropped} threads are not their time (a filter or a merge changed it): their time is written as sampled profiles, not as events at their times")
            });
        }
    }
    keep_samples_in_time(&mut profile, diag);
    profile
}

/// Each sample's share of its node's value of the metric of time ([`timed_metric`]), where the
/// samples hold the time of every thread that has no slices (the threads written as events).
fn shares_in_time(profile: &Profile) -> Option<Vec<f64>> {
    let (tree, timeline) = (&profile.tree, profile.timeline.as_ref()?);
    let (metric, _) = timed_metric(profile)?;
    let mut sliced = vec![false; tree.len()];
    timeline.slices().iter().for_each(|s| sliced[s.node.index()] = true);
    // A thread's slices begin at its root's children: a root is sliced where any node below it is.
    let root_of = tree.per_root(|root| root.index());
    let mut sliced_root = vec![false; tree.len()];
    tree.nodes().filter(|n| sliced[n.index()]).for_each(|n| sliced_root[root_of[n.index()]] = true);
    timeline.shares_within(tree, metric, |node| !sliced_root[root_of[node.index()]])
}

/// Drops the samples of the profile's timeline where they cannot be written in time order: where
/// it has no metric of time, or some node's time is in none of them ([`crate::model::Timeline::shares`]);
/// said on stderr.
fn keep_samples_in_time(profile: &mut Profile, diag: &mut Diagnostics) {
    if profile.timeline.as_ref().is_none_or(|t| t.samples().is_empty()) {
        return;
    }
    let held = shares_in_time(profile).is_some();
    let Some(timeline) = profile.timeline.take() else { return };
    let samples = timeline.samples().len();
    profile.timeline = if held { Some(timeline) } else { timeline.without_samples() };
    if !held {
        let why = match timed_metric(profile) {
            None => "the profile has no metric of time, whose profiles keep their order",
            Some(_) => "the time of some nodes is in none of them",
        };
        diag.warn("timeline-partial", None, || {
            format!("{FORMAT}: the {samples} samples are written by stack, not in the order they were taken: {why}")
        });
    }
}

/// The metric a timeline's slices and samples are written in: the first of time, and the ns of its
/// unit.
fn timed_metric(profile: &Profile) -> Option<(usize, f64)> {
    let m = profile.metric_of_kind(MetricKind::Time)?;
    Some((m, profile.metrics()[m].unit.nanos()?))
}

/// Writes `profile` (projected onto [`CARRIES`]) as a speedscope file.
/// Samples larger than `options` allow ([`ConvertOptions::output_limit`](super::options::ConvertOptions::output_limit)) are refused before
/// a byte is written.
pub(crate) fn write(profile: &Profile, Writing { out, options, .. }: Writing<'_>) -> Result<(), Error> {
    let parts = Parts::of(profile);
    super::stacks::check_output_size(FORMAT, parts.samples_size(profile), options)?;
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":");
    push_string(&mut json, profile.meta.title.as_deref().unwrap_or("proftool"));
    // The profile speedscope shows first: the primary metric's first.
    let primary = profile.primary_metric().unwrap_or(0);
    json.push_str(",\"activeProfileIndex\":");
    json.push_str(itoa::Buffer::new().format(primary * parts.parts.len()));
    json.push_str(",\"exporter\":");
    push_string(&mut json, concat!("proftool ", env!("CARGO_PKG_VERSION")));
    json.push_str(",\"shared\":{\"frames\":[");
    let written = profile.frames.iter().filter(|&(id, _)| parts.index(id).is_some());
    for (i, (id, frame)) in written.enumerate() {
        json.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
        push_string(&mut json, &super::shared::written_name(frame));
        let defined = profile.defined_at(id);
        if let Some(file) = defined.map(|at| at.file).or(frame.module.as_deref()) {
            json.push_str(",\"file\":");
            push_string(&mut json, file);
        }
        // A source-line frame's own line, else the line (and column) its function is defined at.
        let (line, column) = match (frame.line, defined) {
            (Some(line), _) => (Some(line), None),
            (None, Some(at)) => (Some(at.line), at.column),
            (None, None) => (None, None),
        };
        for (key, value) in [(",\"line\":", line), (",\"col\":", column)] {
            if let Some(value) = value {
                json.push_str(key);
                json.push_str(itoa::Buffer::new().format(value));
            }
        }
        json.push('}');
    }
    json.push_str("]},\"profiles\":[");
    let mut slices = parts.slices(profile);
    let timed = parts.timed_samples(profile);
    let in_time = timed_metric(profile).map(|(m, _)| m);
    let shares_in_time = timed.as_ref().and_then(|_| shares_in_time(profile));
    for metric in 0..profile.metrics().len() {
        let shares = shares_in_time.as_ref().filter(|_| in_time == Some(metric));
        for (i, part) in parts.parts.iter().enumerate() {
            if metric + i > 0 {
                json.push(',');
            }
            let which = (metric, metric == primary);
            match slices.as_mut().filter(|(m, _)| *m == metric).map(|(_, s)| std::mem::take(&mut s[i])) {
                Some(events) if !events.is_empty() => write_events(profile, which, part, &parts, &events, &mut json)?,
                _ => {
                    let in_time = shares.map(Vec::as_slice).zip(timed.as_ref()).map(|(shares, timed)| (&timed[i][..], shares));
                    write_profile(profile, which, (part, &parts), in_time, &mut json, out)?
                }
            }
        }
    }
    json.push_str("]}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Whether `node`'s frame is a thread.
fn is_thread(profile: &Profile, node: NodeId) -> bool {
    profile.frames.get(profile.tree.frame(node)).kind == FrameKind::Thread
}

/// The profiles a metric is written as: one per thread at the roots (speedscope's thread menu, as
/// it shows the files it imports itself), and one for the roots that are not threads.
struct Parts {
    parts: Vec<Part>,
    /// Child lists, where a part's roots are not one run of a tree built in pre-order.
    children: Option<Children>,
    /// Each frame's index in `shared.frames`, if it is one of them.
    indices: Vec<Option<u32>>,
}

/// The roots of one profile: a thread's (whose frame is left out of the stacks), or the roots that
/// are not threads.
struct Part {
    thread: Option<FrameId>,
    roots: Vec<NodeId>,
}

impl Parts {
    fn of(profile: &Profile) -> Parts {
        let tree = &profile.tree;
        let is_thread = |node: NodeId| is_thread(profile, node);
        let threads = tree.roots().any(is_thread);
        let children = (threads || !tree.is_preorder()).then(|| tree.children());
        let mut parts: Vec<Part> = Vec::new();
        let mut loose = Part { thread: None, roots: Vec::new() };
        for &root in children.as_ref().filter(|_| threads).map_or(&[][..], |c| c.roots()) {
            if !is_thread(root) {
                loose.roots.push(root);
                continue;
            }
            let frame = tree.frame(root);
            match parts.iter_mut().find(|part| part.thread == Some(frame)) {
                Some(part) => part.roots.push(root),
                None => parts.push(Part { thread: Some(frame), roots: vec![root] }),
            }
        }
        // Without threads, the whole tree (no roots named) as one profile per metric.
        if !loose.roots.is_empty() || !threads {
            parts.push(loose);
        }
        // Frames no stack holds (a thread's that is a profile, one a fitting step replaced) are left
        // out, so that the file reads back to the frames it was written from.
        let mut in_stacks = vec![false; profile.frames.len()];
        for node in tree.nodes().filter(|&node| tree.parent(node).is_some() || !is_thread(node)) {
            in_stacks[tree.frame(node).index()] = true;
        }
        let mut next = 0u32;
        let indices = in_stacks
            .iter()
            .map(|&kept| {
                let index = kept.then_some(next);
                next += u32::from(kept);
                index
            })
            .collect();
        Parts { parts, children, indices }
    }

    /// About the bytes of the samples and weights [`write_profile`] writes for every metric: each
    /// sample its stack of frame indices (a thread's root frame left out) and a weight.
    fn samples_size(&self, profile: &Profile) -> u64 {
        let tree = &profile.tree;
        let index_bytes = |node: NodeId| match self.index(tree.frame(node)) {
            Some(index) if tree.parent(node).is_some() || !is_thread(profile, node) => {
                1 + itoa::Buffer::new().format(index).len() as u64
            }
            _ => 0,
        };
        // In every metric that writes the sample: brackets, commas and a weight (at most 20
        // characters as an integer, about 17 as a fraction).
        let samples = |node: NodeId, is_leaf: bool| {
            let values = (0..profile.metrics().len()).map(|metric| tree.self_value(metric, node));
            let written = values.filter(|value| is_leaf || value.as_f64() != 0.0);
            written.fold((0, 0), |(times, widest), value| {
                let width = match value {
                    Value::Int(v) => itoa::Buffer::new().format(v).len() as u64,
                    Value::Float(_) => 17,
                };
                (times + 1, width.max(widest))
            })
        };
        super::stacks::whole_stacks_size(tree, index_bytes, |node, is_leaf| {
            let (times, weight) = samples(node, is_leaf);
            (times, 3 + weight)
        })
    }

    /// The metric of time the profile's slices are written in (`timed_metric`'s), and the slices of
    /// each part in the order they begin; `None` where it has none.
    fn slices(&self, profile: &Profile) -> Option<(usize, Vec<Vec<Slice>>)> {
        let (tree, timeline) = (&profile.tree, profile.timeline.as_ref()?);
        let (metric, _) = timed_metric(profile).filter(|_| !timeline.slices().is_empty())?;
        let part_of = self.part_of(tree);
        let mut by_part: Vec<Vec<Slice>> = vec![Vec::new(); self.parts.len()];
        timeline.slices().iter().for_each(|s| by_part[part_of[s.node.index()]].push(*s));
        Some((metric, by_part))
    }

    /// The samples of the timeline of each part, as indices in time order; `None` where it has none.
    fn timed_samples(&self, profile: &Profile) -> Option<Vec<Vec<usize>>> {
        let timeline = profile.timeline.as_ref().filter(|t| !t.samples().is_empty())?;
        let part_of = self.part_of(&profile.tree);
        let mut by_part: Vec<Vec<usize>> = vec![Vec::new(); self.parts.len()];
        timeline.samples().iter().enumerate().for_each(|(i, s)| by_part[part_of[s.node.index()]].push(i));
        Some(by_part)
    }

    /// The part of each node: a thread root's and its nodes', their thread's; any other's, the last
    /// (the roots of no thread).
    fn part_of(&self, tree: &CallTree) -> Vec<usize> {
        let mut of_root: Vec<usize> = vec![self.parts.len().saturating_sub(1); tree.len()];
        for (i, part) in self.parts.iter().enumerate().filter(|(_, part)| part.thread.is_some()) {
            part.roots.iter().for_each(|root| of_root[root.index()] = i);
        }
        tree.per_root(|root| of_root[root.index()])
    }

    /// `frame`'s index in `shared.frames`, if it is one of them.
    fn index(&self, frame: FrameId) -> Option<u32> {
        self.indices[frame.index()]
    }

    /// The walk over `part`'s nodes.
    fn walk<'t>(&'t self, tree: &'t CallTree, part: &Part) -> Walk<'t> {
        match (&self.children, part.roots.is_empty()) {
            (Some(children), true) => tree.walk_roots(children, children.roots()),
            (Some(children), false) => tree.walk_roots(children, &part.roots),
            (None, _) => tree.walk(),
        }
    }
}

/// Appends a profile's name (its thread's, and its metric's unless it is the one the profile is
/// weighed by), the `metric` and `thread` it holds for proftool's reader, and its unit.
fn push_names(profile: &Profile, (m, primary): (&Metric, bool), part: &Part, json: &mut String) {
    let thread = part.thread.map(|frame| super::shared::written_name(profile.frames.get(frame)));
    json.push_str(",\"name\":");
    match (&thread, primary) {
        (Some(thread), true) => push_string(json, thread),
        (Some(thread), false) => push_string(json, &format!("{thread} ({})", m.name)),
        (None, _) => push_string(json, &m.name),
    }
    json.push_str(",\"metric\":");
    push_string(json, &m.name);
    if let Some(thread) = &thread {
        json.push_str(",\"thread\":");
        push_string(json, thread);
    }
    json.push_str(",\"unit\":\"");
    json.push_str(unit_name(m.unit));
    json.push('"');
}

/// Appends (and writes out as it grows) the sampled profile of `metric` over `part`'s stacks, named
/// after its thread (and after the metric too, unless it is the one the profile is weighed by).
/// `metric` and `thread` name them for proftool's reader, which speedscope's ignores. `in_time`,
/// where the timeline holds the metric: the part's samples of it and every sample's share, which are
/// its samples then, in time order, after the stacks of no value.
fn write_profile(
    profile: &Profile,
    (metric, primary): (usize, bool),
    (part, parts): (&Part, &Parts),
    in_time: Option<(&[usize], &[f64])>,
    json: &mut String,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let tree = &profile.tree;
    let m = &profile.metrics()[metric];
    json.push_str("{\"type\":\"sampled\"");
    push_names(profile, (m, primary), part, json);
    // Speedscope's time order lays the samples out from startValue: the first one's time.
    let first = in_time.and_then(|(samples, _)| Some(profile.timeline.as_ref()?.samples()[*samples.first()?].time));
    let start = first.zip(m.unit.nanos()).map_or(Value::Int(0), |(ns, nanos)| Value::Float(ns as f64 / nanos));
    json.push_str(",\"startValue\":");
    push_number(json, start)?;
    if in_time.is_some() {
        json.push_str(",\"inTimeOrder\":true");
    }
    json.push_str(",\"samples\":[");
    let mut sampled = Sampled { parts, weights: String::new(), whole: 0, float: 0.0 };
    // A thread's own frame is the profile, not a frame of its stacks.
    let skip = usize::from(part.thread.is_some());
    // The nodes of a sample with a share: a sample of none is left out (it would read back as no
    // sample), and a node of no share is written as the tree writes it.
    let timed = in_time.map(|(samples, shares)| {
        let mut timed = vec![false; tree.len()];
        let timeline = profile.timeline.as_ref().map_or(&[][..], |t| t.samples());
        samples.iter().filter(|&&i| shares[i] != 0.0).for_each(|&i| timed[timeline[i].node.index()] = true);
        timed
    });
    tree.for_each_stack(parts.walk(tree, part), |visit, stack| {
        let value = tree.self_value(metric, visit.node);
        let in_its_time = timed.as_ref().is_some_and(|timed| timed[visit.node.index()] || value.as_f64() != 0.0);
        if in_its_time || (value.as_f64() == 0.0 && (!visit.is_leaf || stack.len() == skip)) {
            return Ok(());
        }
        sampled.push(json, &stack[skip..], value)?;
        if json.len() >= 1 << 16 {
            out.write_all(json.as_bytes())?;
            json.clear();
        }
        Ok::<(), Error>(())
    })?;
    if let Some((samples, shares)) = in_time {
        let timeline = profile.timeline.as_ref().map_or(&[][..], |t| t.samples());
        let mut stack = Vec::new();
        for &i in samples.iter().filter(|&&i| shares[i] != 0.0) {
            tree.frames_up(timeline[i].node, &mut stack);
            stack.reverse();
            let value = if m.repr == Repr::Int { Value::Int(shares[i] as i64) } else { Value::Float(shares[i]) };
            sampled.push(json, &stack[skip..], value)?;
        }
    }
    json.push_str("],\"weights\":[");
    json.push_str(&sampled.weights);
    // Last, once the part's stacks are added up (as the model adds a metric up, Values::sum): JSON
    // keys have no order.
    json.push_str("],\"endValue\":");
    let total = if m.repr == Repr::Int { Value::Int(sampled.whole) } else { Value::Float(sampled.float) };
    push_number(json, if first.is_some() { Value::Float(start.as_f64() + total.as_f64()) } else { total })?;
    json.push('}');
    Ok(())
}

/// The samples of a sampled profile as they are written: their weights apart, and their sum.
struct Sampled<'p> {
    parts: &'p Parts,
    weights: String,
    whole: i64,
    float: f64,
}

impl Sampled<'_> {
    /// Appends a sample: its stack's frame indices to `json`, `value` to the weights.
    fn push(&mut self, json: &mut String, stack: &[FrameId], value: Value) -> Result<(), Error> {
        match value {
            Value::Int(v) => self.whole = self.whole.saturating_add(v),
            Value::Float(v) => self.float += v,
        }
        if !self.weights.is_empty() {
            json.push(',');
            self.weights.push(',');
        }
        json.push('[');
        for (i, frame) in stack.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            // Every frame below a thread's root is one of shared.frames.
            json.push_str(itoa::Buffer::new().format(self.parts.index(*frame).unwrap_or(u32::MAX)));
        }
        json.push(']');
        push_number(&mut self.weights, value)
    }
}

/// Appends the evented profile of `metric` (of time) over `part`: its slices as open and close
/// events at their times (in the metric's unit; a close before an open at its time), named as
/// [`write_profile`] names a profile.
fn write_events(
    profile: &Profile,
    (metric, primary): (usize, bool),
    part: &Part,
    parts: &Parts,
    slices: &[Slice],
    json: &mut String,
) -> Result<(), Error> {
    let m = &profile.metrics()[metric];
    let nanos = m.unit.nanos().unwrap_or(1.0);
    json.push_str("{\"type\":\"evented\"");
    push_names(profile, (m, primary), part, json);
    let at = |ns: i64| Value::Float(ns as f64 / nanos);
    let (start, end) = (slices.iter().map(|s| s.start).min(), slices.iter().map(|s| s.end).max());
    json.push_str(",\"startValue\":");
    push_number(json, at(start.unwrap_or(0)))?;
    json.push_str(",\"endValue\":");
    push_number(json, at(end.unwrap_or(0)))?;
    json.push_str(",\"events\":[");
    let event = |json: &mut String, kind: &str, node: NodeId, ns: i64| -> Result<(), Error> {
        if !json.ends_with('[') {
            json.push(',');
        }
        json.push_str(kind);
        json.push_str(itoa::Buffer::new().format(parts.index(profile.tree.frame(node)).unwrap_or(u32::MAX)));
        json.push_str(",\"at\":");
        push_number(json, at(ns))?;
        json.push('}');
        Ok(())
    };
    for edge in slice_edges(slices) {
        match edge {
            Edge::Begin(s) => event(json, "{\"type\":\"O\",\"frame\":", s.node, s.start)?,
            Edge::End(s) => event(json, "{\"type\":\"C\",\"frame\":", s.node, s.end)?,
        }
    }
    json.push_str("]}");
    Ok(())
}

/// speedscope's name of a unit: counts are `none`.
fn unit_name(unit: Unit) -> &'static str {
    super::shared::unit_word(unit).unwrap_or("none")
}

/// A JSON number: whole numbers as they are, floats shortest-round-trip.
fn push_number(json: &mut String, value: Value) -> Result<(), Error> {
    if let Value::Float(v) = value {
        if !v.is_finite() {
            return Err(Error::Unrepresentable {
                format: FORMAT,
                what: format!("the value {v}: JSON numbers are finite"),
            });
        }
    }
    // Written in place, not through a String per weight.
    let _ = std::fmt::Write::write_fmt(json, format_args!("{value}"));
    Ok(())
}
