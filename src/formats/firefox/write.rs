//! Writing a processed profile of version 55: a thread per thread root, tables per thread.

use super::{Category, CATEGORY, DEFAULT_CATEGORY, FORMAT, WRITTEN_VERSION};
use crate::error::Error;
use crate::formats::options::{effective_interval, Turning};
use crate::formats::spec::Writing;
use crate::model::{FrameId, FrameKind, MetricKind, NodeId, Profile, Value};
use serde::Serialize;
use serde_json::Number;
use std::borrow::Cow;
use std::collections::HashMap;

/// A processed profile as written: its meta first, as profilers write it (and detection reads it).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DocumentOut<'a> {
    meta: MetaOut<'a>,
    libs: [(); 0],
    pages: [(); 0],
    counters: [(); 0],
    profiler_overhead: [(); 0],
    threads: Vec<ThreadOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetaOut<'a> {
    interval: f64,
    start_time: f64,
    process_type: u32,
    product: &'a str,
    stackwalk: u32,
    debug: bool,
    version: u32,
    preprocessed_profile_version: u32,
    categories: Vec<Category>,
    marker_schema: [(); 0],
    sample_units: SampleUnits,
    symbolicated: bool,
    paused_ranges: [(); 0],
    uses_only_one_stack_type: bool,
    source_code_is_not_on_searchfox: bool,
    imported_from: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SampleUnits {
    time: &'static str,
    event_delay: &'static str,
    #[serde(rename = "threadCPUDelta")]
    thread_cpu_delta: &'static str,
}

/// The columns of a thread as written: a table per field.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreadOut<'a> {
    name: &'a str,
    process_name: &'a str,
    process_type: &'static str,
    process_startup_time: f64,
    process_shutdown_time: Option<f64>,
    register_time: f64,
    unregister_time: Option<f64>,
    paused_ranges: [(); 0],
    is_main_thread: bool,
    pid: String,
    tid: usize,
    samples: SamplesOut,
    markers: MarkersOut,
    stack_table: StackTableOut,
    frame_table: FrameTableOut,
    func_table: FuncTableOut,
    resource_table: ResourceTableOut,
    native_symbols: NativeSymbolsOut,
    string_array: Vec<Cow<'a, str>>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct SamplesOut {
    length: usize,
    weight_type: &'static str,
    stack: Vec<Option<usize>>,
    time: Vec<f64>,
    weight: Vec<Number>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct MarkersOut {
    length: usize,
    data: [(); 0],
    name: [(); 0],
    start_time: [(); 0],
    end_time: [(); 0],
    phase: [(); 0],
    category: [(); 0],
}

#[derive(Serialize, Default)]
struct StackTableOut {
    length: usize,
    prefix: Vec<Option<usize>>,
    frame: Vec<usize>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct FrameTableOut {
    length: usize,
    address: Vec<i64>,
    inline_depth: Vec<u32>,
    category: Vec<usize>,
    subcategory: Vec<usize>,
    func: Vec<usize>,
    native_symbol: Vec<Option<usize>>,
    #[serde(rename = "innerWindowID")]
    inner_window_id: Vec<Option<u64>>,
    line: Vec<Option<u32>>,
    column: Vec<Option<u32>>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct FuncTableOut {
    length: usize,
    name: Vec<usize>,
    #[serde(rename = "isJS")]
    is_js: Vec<bool>,
    #[serde(rename = "relevantForJS")]
    relevant_for_js: Vec<bool>,
    resource: Vec<i64>,
    file_name: Vec<Option<usize>>,
    line_number: Vec<Option<u32>>,
    column_number: Vec<Option<u32>>,
}

#[derive(Serialize, Default)]
struct ResourceTableOut {
    length: usize,
    lib: [(); 0],
    name: [(); 0],
    host: [(); 0],
    #[serde(rename = "type")]
    kind: [(); 0],
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct NativeSymbolsOut {
    length: usize,
    lib_index: [(); 0],
    address: [(); 0],
    name: [(); 0],
    function_size: [(); 0],
}

/// The weight type a metric is written as.
fn weight_type(kind: MetricKind) -> &'static str {
    match kind {
        MetricKind::Time => "tracing-ms",
        MetricKind::Alloc => "bytes",
        _ => "samples",
    }
}

/// A function as written: its name, file, and the line and column it is defined at (strings by
/// index).
type FuncKey = (usize, Option<usize>, Option<u32>, Option<u32>);

/// A thread being written: its tables, and the keys of its functions and frames.
#[derive(Default)]
struct ThreadTables<'p> {
    strings: Vec<Cow<'p, str>>,
    string_ids: HashMap<Cow<'p, str>, usize>,
    funcs: FuncTableOut,
    func_ids: HashMap<FuncKey, usize>,
    frames: FrameTableOut,
    frame_ids: HashMap<(usize, Option<u32>, Option<u32>, usize), usize>,
    stacks: StackTableOut,
}

impl<'p> ThreadTables<'p> {
    fn string(&mut self, text: Cow<'p, str>) -> usize {
        let next = self.strings.len();
        *self.string_ids.entry(text).or_insert_with_key(|text| {
            self.strings.push(text.clone());
            next
        })
    }

    /// The frame of `id` in this thread's tables, added where it is new.
    fn frame(&mut self, profile: &'p Profile, id: FrameId, categories: &mut Vec<&'p str>) -> usize {
        let frame = profile.frames.get(id);
        let defined = profile.defined_at(id);
        let name = self.string(crate::formats::shared::written_name(frame));
        let file = defined.map(|at| at.file).or(frame.module.as_deref()).map(|f| self.string(Cow::Borrowed(f)));
        let (line_number, column_number) = (defined.map(|at| at.line), defined.and_then(|at| at.column));
        let func = *self.func_ids.entry((name, file, line_number, column_number)).or_insert_with(|| {
            let funcs = &mut self.funcs;
            funcs.name.push(name);
            funcs.is_js.push(false);
            funcs.relevant_for_js.push(false);
            funcs.resource.push(-1);
            funcs.file_name.push(file);
            funcs.line_number.push(line_number);
            funcs.column_number.push(column_number);
            funcs.length += 1;
            funcs.length - 1
        });
        let category_name = profile
            .frame_attrs
            .get(&id)
            .and_then(|facts| facts.iter().find(|(key, _)| key == CATEGORY))
            .map_or(DEFAULT_CATEGORY, |(_, name)| name.as_str());
        let category = categories.iter().position(|&c| c == category_name).unwrap_or_else(|| {
            categories.push(category_name);
            categories.len() - 1
        });
        let (line, column) = (frame.line, frame.line.and(frame.clause));
        *self.frame_ids.entry((func, line, column, category)).or_insert_with(|| {
            let frames = &mut self.frames;
            frames.address.push(-1);
            frames.inline_depth.push(0);
            frames.category.push(category);
            frames.subcategory.push(0);
            frames.func.push(func);
            frames.native_symbol.push(None);
            frames.inner_window_id.push(None);
            frames.line.push(line);
            frames.column.push(column);
            frames.length += 1;
            frames.length - 1
        })
    }
}

/// The color the profiler gives a category of this name (its Gecko categories' colors), else grey.
fn color(category: &str) -> &'static str {
    match category {
        "Idle" => "transparent",
        "Layout" => "purple",
        "JavaScript" | "User" => "yellow",
        "GC / CC" | "Kernel" => "orange",
        "Network" => "lightblue",
        "Graphics" | "JIT app cache" => "green",
        "DOM" => "blue",
        _ => "grey",
    }
}

/// Writes `profile` (projected onto `SPEC`'s carries: one metric, time in ms) as a
/// processed profile of version 55 (see the module documentation).
pub(super) fn write(profile: &Profile, Writing { out, options, .. }: Writing<'_>) -> Result<(), Error> {
    let Some(metric) = profile.metrics().first() else {
        let what = "the profile has none of the weights a sample has in it (samples, time, bytes)".to_string();
        return Err(Error::Unrepresentable { format: FORMAT, what });
    };
    let interval = effective_interval(options.interval, profile.meta.interval, Turning::CountsIntoTime);
    let clock = Clock { kind: metric.kind, interval_ms: interval.as_secs_f64() * 1e3 };
    let title = profile.meta.title.as_deref().unwrap_or("proftool");
    let mut categories: Vec<&str> = vec![DEFAULT_CATEGORY];
    let parts = threads_of(profile, title);
    let mut timed = timed_parts(profile, &parts);
    let mut threads: Vec<ThreadOut> = (parts.into_iter().enumerate())
        .map(|(tid, part)| {
            let samples = timed.as_mut().map(|t| (std::mem::take(&mut t.per_part[tid]), t.span));
            thread_out(profile, tid, part, title, clock, &mut categories, samples)
        })
        .collect();
    // Every thread ends where the last ends: the span of the profile's timeline, read back.
    let end = threads.iter().filter_map(|t| t.unregister_time).fold(0.0, f64::max);
    for thread in &mut threads {
        (thread.process_shutdown_time, thread.unregister_time) = (Some(end), Some(end));
    }
    let start_ms = timed.map_or(0.0, |t| t.start as f64 / 1e6);
    let document = DocumentOut {
        meta: meta_out(title, clock.interval_ms, start_ms, &categories),
        libs: [],
        pages: [],
        counters: [],
        profiler_overhead: [],
        threads,
    };
    serde_json::to_writer(&mut *out, &document).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// A thread as written: its name and the nodes at the base of its stacks (a thread root's own value
/// is none: `fit` leaves it out).
struct ThreadPart<'p> {
    name: &'p str,
    bases: Vec<NodeId>,
}

/// The threads written: each thread at the roots (roots of one name together, as a thread's name
/// is its identity when read back), and the roots that are not threads together in one named
/// `title`.
fn threads_of<'p>(profile: &'p Profile, title: &'p str) -> Vec<ThreadPart<'p>> {
    let tree = &profile.tree;
    let children = tree.children();
    let mut parts: Vec<ThreadPart> = Vec::new();
    let mut part_of: HashMap<&str, usize> = HashMap::new();
    let mut loose = Vec::new();
    for &root in children.roots() {
        let frame = profile.frames.get(tree.frame(root));
        if frame.kind != FrameKind::Thread {
            loose.push(root);
            continue;
        }
        let at = *part_of.entry(frame.name.as_str()).or_insert_with(|| {
            parts.push(ThreadPart { name: frame.name.as_str(), bases: Vec::new() });
            parts.len() - 1
        });
        parts[at].bases.extend_from_slice(children.of_node(root));
    }
    if !loose.is_empty() || parts.is_empty() {
        parts.push(ThreadPart { name: title, bases: loose });
    }
    parts
}

/// The samples of a profile's timeline by the thread they are written in, where the timeline
/// holds all of the metric written: each at its time, with its share of its node's value.
struct TimedParts {
    /// The timeline's start (ns): the profile's `startTime`, from which sample times count.
    start: i64,
    /// The span of the timeline (ns).
    span: i64,
    per_part: Vec<Vec<TimedShare>>,
}

/// A sample of the timeline as written: its time from the start (ns), its node, its weight.
struct TimedShare {
    time: i64,
    node: NodeId,
    share: f64,
}

fn timed_parts(profile: &Profile, parts: &[ThreadPart]) -> Option<TimedParts> {
    let (tree, timeline) = (&profile.tree, profile.timeline.as_ref()?);
    let shares = timeline.shares(tree, 0)?;
    // The part of each node: that of its base, below a thread root (parents come first).
    let mut part_of: Vec<Option<usize>> = vec![None; tree.len()];
    for (i, part) in parts.iter().enumerate() {
        part.bases.iter().for_each(|base| part_of[base.index()] = Some(i));
    }
    for node in tree.nodes() {
        if let (None, Some(p)) = (part_of[node.index()], tree.parent(node)) {
            part_of[node.index()] = part_of[p.index()];
        }
    }
    let mut per_part: Vec<Vec<TimedShare>> = parts.iter().map(|_| Vec::new()).collect();
    for (sample, share) in timeline.samples().iter().zip(shares) {
        // A sample of no weight in the metric written (a thread's own, moved below it) is none.
        if let (Some(part), true) = (part_of[sample.node.index()], share != 0.0) {
            let time = sample.time - timeline.start;
            per_part[part].push(TimedShare { time, node: sample.node, share });
        }
    }
    Some(TimedParts { start: timeline.start, span: timeline.end - timeline.start, per_part })
}

/// How long each sample written lasts: a count of samples an interval each, time as long as it
/// is, bytes one interval each.
#[derive(Clone, Copy)]
struct Clock {
    kind: MetricKind,
    interval_ms: f64,
}

impl Clock {
    /// The weight written for a value (time in ms with its fractions, as read back; counts and
    /// bytes whole) and how long its sample lasts.
    fn weigh(self, value: Value) -> (Number, f64) {
        let lasts = value.as_f64();
        match self.kind {
            MetricKind::Time => (Number::from_f64(lasts).unwrap_or_else(|| 0.into()), lasts),
            MetricKind::Samples => (Number::from(value.as_count()), lasts * self.interval_ms),
            _ => (Number::from(value.as_count()), self.interval_ms),
        }
    }
}

/// One thread's tables: a stack per node (in pre-order, with an explicit stack); the samples of
/// the timeline at their times where `timed` gives them, else a sample per node with a value at a
/// running time.
fn thread_out<'p>(
    profile: &'p Profile,
    tid: usize,
    part: ThreadPart<'p>,
    title: &'p str,
    clock: Clock,
    categories: &mut Vec<&'p str>,
    timed: Option<(Vec<TimedShare>, i64)>,
) -> ThreadOut<'p> {
    let tree = &profile.tree;
    let children = tree.children();
    let mut tables = ThreadTables::default();
    let mut samples = SamplesOut { weight_type: weight_type(clock.kind), ..SamplesOut::default() };
    // The running time in whole picoseconds, added up exactly: ms added as floats would write the
    // noise of adding (0.009000000000000001 for three samples of 0.003 ms).
    let mut now_ps: i128 = 0;
    // In whole ns, as a timeline holds them: a profile read back lays its samples out alike.
    let ms = |ps: i128| (ps as f64 / 1e3).round() / 1e6;
    let mut sample = |stack: Option<usize>, node: NodeId, samples: &mut SamplesOut| {
        let value = tree.self_value(0, node);
        if value.as_f64() == 0.0 {
            return;
        }
        let (weight, lasts) = clock.weigh(value);
        samples.stack.push(stack);
        samples.time.push(ms(now_ps));
        samples.weight.push(weight);
        samples.length += 1;
        now_ps += (lasts * 1e9).round() as i128;
    };
    let mut pending: Vec<(NodeId, Option<usize>)> = part.bases.iter().rev().map(|&n| (n, None)).collect();
    let mut stack_of: HashMap<NodeId, usize> = HashMap::new();
    while let Some((node, prefix)) = pending.pop() {
        let frame = tables.frame(profile, tree.frame(node), categories);
        let stacks = &mut tables.stacks;
        stacks.prefix.push(prefix);
        stacks.frame.push(frame);
        stacks.length += 1;
        let stack = stacks.length - 1;
        match &timed {
            Some(_) => _ = stack_of.insert(node, stack),
            None => sample(Some(stack), node, &mut samples),
        }
        pending.extend(children.of_node(node).iter().rev().map(|&n| (n, Some(stack))));
    }
    if let Some((timed, span)) = timed {
        now_ps = i128::from(span) * 1000;
        for TimedShare { time, node, share } in timed {
            samples.stack.push(stack_of.get(&node).copied());
            samples.time.push(time as f64 / 1e6);
            samples.weight.push(match clock.kind {
                MetricKind::Time => Number::from_f64(share).unwrap_or_else(|| 0.into()),
                _ => Number::from(share as i64),
            });
            samples.length += 1;
        }
    }
    let ThreadTables { strings, funcs, frames, stacks, .. } = tables;
    ThreadOut {
        name: part.name,
        process_name: title,
        process_type: "default",
        process_startup_time: 0.0,
        process_shutdown_time: Some(ms(now_ps)),
        register_time: 0.0,
        unregister_time: Some(ms(now_ps)),
        paused_ranges: [],
        is_main_thread: tid == 0,
        pid: "0".into(),
        tid,
        samples,
        markers: MarkersOut::default(),
        stack_table: stacks,
        frame_table: frames,
        func_table: funcs,
        resource_table: ResourceTableOut::default(),
        native_symbols: NativeSymbolsOut::default(),
        string_array: strings,
    }
}

/// The profile's meta: its interval, product, the categories its frames are in, the version.
fn meta_out<'a>(title: &'a str, interval_ms: f64, start_ms: f64, categories: &[&str]) -> MetaOut<'a> {
    let categories = (categories.iter())
        .map(|&name| Category {
            name: name.into(),
            color: color(name).into(),
            subcategories: vec![DEFAULT_CATEGORY.into()],
        })
        .collect();
    MetaOut {
        interval: interval_ms,
        start_time: start_ms,
        process_type: 0,
        product: title,
        stackwalk: 0,
        debug: false,
        version: WRITTEN_VERSION.1,
        preprocessed_profile_version: WRITTEN_VERSION.0,
        categories,
        marker_schema: [],
        sample_units: SampleUnits { time: "ms", event_delay: "ms", thread_cpu_delta: "µs" },
        symbolicated: true,
        paused_ranges: [],
        uses_only_one_stack_type: true,
        source_code_is_not_on_searchfox: true,
        imported_from: concat!("proftool ", env!("CARGO_PKG_VERSION")),
    }
}
