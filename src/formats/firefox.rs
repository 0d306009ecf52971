//! The Firefox Profiler's processed profile JSON (profiler.firefox.com), as samply writes it through
//! the crate `fxprof-processed-profile`: written at version 55 (`meta.preprocessedProfileVersion`
//! 55, `meta.version` 24, those of fxprof-processed-profile 0.8.1), read at versions 41 to 70 (the
//! profiler's own of today), whose tables hold the columns read here, in the places said below.
//!
//! ```text
//! {"meta":{"interval":1.0,"preprocessedProfileVersion":55,"version":24,"product":"work",
//!   "categories":[{"name":"Other","color":"grey","subcategories":["Other"]},…],…},
//!  "libs":[],
//!  "threads":[{"name":"work","pid":"1","tid":1,"processType":"default",…,
//!    "samples":{"length":2,"weightType":"samples","stack":[1,2],"time":[0,1],"weight":[1,1]},
//!    "stackTable":{"length":3,"prefix":[null,0,0],"frame":[0,1,2]},
//!    "frameTable":{"length":3,"func":[0,1,2],"line":[null,4,null],"column":[null,null,null],
//!      "category":[0,0,0],"subcategory":[0,0,0],"address":[-1,-1,-1],…},
//!    "funcTable":{"length":3,"name":[0,1,2],"fileName":[null,3,null],"lineNumber":[null,3,null],
//!      "columnNumber":[null,null,null],"resource":[-1,-1,-1],"isJS":[…],"relevantForJS":[…]},
//!    "resourceTable":{…},"nativeSymbols":{…},"markers":{…},
//!    "stringArray":["main","leaf","fib","work.c"]}],…}
//! ```
//!
//! **Schema** (the profiler's `src/types/profile.js` at version 55): each table is columns of one
//! `length`. A sample is its `stack` (or `null`), its `time` in ms (or, from version 50, its
//! `timeDeltas`) and its `weight` (`null`: 1 each) of the thread's `weightType`: `samples`,
//! `tracing-ms` (ms of time) or `bytes`. A stack is its `prefix` (its caller's stack, an earlier
//! one) and its `frame`; a frame its `func`, the `line` and `column` it is at, its `category` (an
//! index into `meta.categories`) and `subcategory`; a function its `name` (an index into the
//! thread's `stringArray`), its `fileName`, the `lineNumber` and `columnNumber` it is defined at, and
//! its `resource` (a library or a script's host, with a `name`). `meta.interval` is the sampling
//! interval in ms, `meta.product` the program. Later versions move the tables, which are read where
//! each version has them: the strings in `profile.shared.stringArray` from version 56, a function's
//! file as a `source` of `profile.shared.sources` (its `filename`) from 58, the stack, frame,
//! function and resource tables in `profile.shared` (every thread's samples pointing into them) from
//! 60, a stack's caller as its `prefixOffset` (how many stacks before it; 0: none) from 66. Versions
//! below 41 keep libraries and resources per thread otherwise; the profiler upgrades them.
//!
//! **Model**: each thread a thread root named after it (a second thread of one name gets
//! ` (tid N)` after it); its stacks below it, a sample with no stack the thread's own. A frame is a
//! function named by its `name`, its module the function's `fileName`, else its resource's name (the
//! library of an unsymbolicated address, as samply writes them); where the frame has a `line` a
//! source-line frame (its `column` the clause); where the function has a `fileName` and a
//! `lineNumber`, where it is defined ([`crate::model::DEFINED_AT`]); its category's name the frame
//! fact `firefox.category`. Metrics by weight type: `samples` (a count of samples, at
//! `meta.interval`, the profile's interval), `time` in ms (`tracing-ms`), `size` in bytes (`bytes`).
//! `meta.product` is the title.
//!
//! **Errors**: JSON errors at their line and column; a version outside 41 to 70 (naming the versions
//! read); a sample, stack, frame, function or string index out of its table, a prefix that is not an
//! earlier stack, columns shorter than their table's `length`, and an unknown `weightType`, each
//! naming the place as a JSON path.
//!
//! **Written** (version 55, the columns its types require): a thread per thread root (the roots
//! that are not threads together in one thread named after the title, else `proftool`); a stack per
//! node, a frame per function and line (its category from `firefox.category`, else `Other`), a
//! function per name, module and place of definition (`fileName`, `lineNumber`, `columnNumber`); a
//! sample per node with a value, weighed by it, at a running time: each count of samples one
//! interval long (the profile's, else `--interval`, else 1 ms), time as long as it is, bytes one
//! interval each; a thread's own value as a sample with no stack (which the profiler's call tree
//! leaves out: said on stderr). Empty markers, native symbols, resources and libraries.
//!
//! **Lost**: the order of samples in time and their times, markers, counters, `threadCPUDelta`,
//! libraries and addresses, JS and native allocations, subcategories, pages, processes (their
//! threads are kept); the markers, CPU time and allocations a file holds are said on stderr.

use super::json;
use super::options::ConvertOptions;
use super::spec::{Carries, Encoding, JsonKind, Rules, Sniff, Spec, Structure};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind};
use crate::model::Sampling;
use crate::model::{
    ops, ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, DEFINED_AT,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Read, Write};

/// What its format is, how it is told, read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "firefox",
    description: "Firefox Profiler processed profile JSON (samply), opens at profiler.firefox.com",
    extensions: &["firefox.json"],
    carries: CARRIES,
    encoding: Encoding::Json(JsonKind {
        what: "a Firefox Profiler processed profile",
        aside: " (the Firefox Profiler's)",
        check,
    }),
    sniff,
    read: Some(|input, _, diag| read(input, diag).map_err(Error::from)),
    write: Some(|profile, out, options, _| write(profile, out, options)),
    rules: Rules {
        fit,
        fit_roots,
        // It holds the one metric it is weighed by.
        says_which_metric_comes_first: true,
        keeps_defined_at: true,
        shared_attrs: &[],
        module_is_namespace: false,
        keeps_measured_inclusive: false,
        single_root: None,
    },
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a processed profile holds.
const CARRIES: Carries = Carries {
    structure: Structure::Tree,
    threads: true,
    thread_roots: true,
    frame_kinds: false,
    metrics: &[MetricKind::Samples, MetricKind::Time, MetricKind::Ticks, MetricKind::Alloc],
    // One weight per sample, but a weight of time in ms with fractions: [`fit`] keeps the one.
    one_metric: false,
    function_facts: false,
    source_lines: true,
    modules: true,
    title: true,
    timestamp: false,
    interval: true,
    interval_step: None,
    name_replacements: &[],
    lines_nest: false,
    time_unit: Some(Unit::Milliseconds),
    flat_reports: false,
    needs_samples: false,
    weight_is_time: false,
};

/// The version written: `meta.preprocessedProfileVersion` and `meta.version`, as
/// fxprof-processed-profile 0.8.1 writes them.
const WRITTEN_VERSION: (u32, u32) = (55, 24);

/// The versions read: their tables hold the columns read, where [`Tables`] finds them.
const READ_VERSIONS: std::ops::RangeInclusive<u64> = 41..=70;

/// The frame fact of a frame's category.
const CATEGORY: &str = "firefox.category";

/// The category a frame without one is written in: the profiler's default, the first grey one.
const DEFAULT_CATEGORY: &str = "Other";

/// What a processed profile should be, for serde's errors.
const EXPECTED: &str =
    "a Firefox Profiler processed profile (meta, threads with samples, stackTable, frameTable, funcTable, stringArray)";

/// `Yes` when [`check`] passes.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::of_check(check(head))
}

/// Whether the input is a JSON object that opens with `meta` and states a
/// `preprocessedProfileVersion`; if not, why not.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let Some(members) = head.members() else {
        return Err("not a JSON object");
    };
    match (members.starts_with(b"\"meta\""), head.mentions(b"\"preprocessedProfileVersion\"")) {
        (true, true) => Ok(()),
        (false, _) => Err("no first key \"meta\""),
        (true, false) => Err("a \"meta\" without a \"preprocessedProfileVersion\""),
    }
}

/// Every stack in a thread: the roots that are not threads under one thread named after the title
/// (else `main`); every other frame that is not code becomes a function of its name, as the file
/// has no kinds.
fn fit_roots(profile: &mut Profile) {
    let tree = &profile.tree;
    if tree.roots().any(|r| profile.frames.get(tree.frame(r)).kind != FrameKind::Thread) {
        let name = profile.meta.title.clone().unwrap_or_else(|| "main".into());
        let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        *profile = ops::adopt_roots(profile, thread, |frame| frame.kind != FrameKind::Thread);
    }
    ops::make_functions(profile, ops::is_nested_non_code);
}

/// Merges siblings of one frame and keeps the one metric a thread's samples are weighed by (the
/// chosen one, else the one the profile is weighed by), naming the others as dropped; ticks become
/// time at the interval.
fn fit(profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    // A stack per frame under each caller, as the reader builds them.
    let mut profile = match profile.tree.has_duplicate_siblings(profile.frames.len()) {
        true => ops::merge_siblings(&profile),
        false => profile,
    };
    let Some(kept) = profile.meta.chosen_metric.or_else(|| profile.primary_metric()) else {
        return profile;
    };
    let keep: Vec<bool> = (0..profile.metrics().len()).map(|m| m == kept).collect();
    let dropped: Vec<&str> = (profile.metrics().iter().enumerate())
        .filter(|&(m, _)| m != kept)
        .map(|(_, metric)| metric.name.as_str())
        .collect();
    if !dropped.is_empty() {
        let (dropped, kept) = (dropped.join(", "), &profile.metrics()[kept].name);
        diag.warn("firefox-one-weight", None, || {
            format!("firefox weighs samples by one number: {dropped} dropped (writing {kept})")
        });
    }
    profile.retain_metrics(&keep);
    // A thread's own value (a sample with no frame below the thread) is a sample with no stack,
    // which the profiler's call tree leaves out.
    let own: Vec<NodeId> =
        profile.tree.roots().filter(|&root| profile.tree.self_value(0, root).as_f64() > 0.0).collect();
    if !own.is_empty() {
        let total: f64 = own.iter().map(|&root| profile.tree.self_value(0, root).as_f64()).sum();
        let (n, metric) = (own.len(), profile.metrics()[0].name.clone());
        diag.warn("firefox-no-stack", None, || {
            format!("firefox: {total} {metric} of {n} threads' own (no frame below the thread) written as samples with no stack, which the profiler's call tree leaves out")
        });
    }
    // GHC's ticks are time at the interval: written as tracing-ms.
    if profile.metrics()[0].kind == MetricKind::Ticks {
        let interval = profile.meta.interval.or(options.interval).unwrap_or(super::options::DEFAULT_INTERVAL);
        let ms = interval.as_secs_f64() * 1e3;
        let values: Vec<f64> = profile.tree.self_values(0).to_f64().into_iter().map(|t| t * ms).collect();
        let name = profile.metrics()[0].name.clone();
        diag.warn("firefox-ticks", None, || format!("firefox holds time: {name} written as time at {ms} ms each"));
        profile.replace_metric(0, Metric::time(Unit::Milliseconds, Repr::Float), crate::model::Values::Float(values));
    }
    profile
}

#[derive(Deserialize)]
struct Document {
    meta: Meta,
    threads: Vec<Thread>,
    /// From version 56 the strings, from 58 the sources, from 60 the tables of all threads.
    #[serde(default)]
    shared: Tables,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default)]
    interval: Option<f64>,
    #[serde(default)]
    product: Option<String>,
    #[serde(default)]
    categories: Vec<Category>,
}

#[derive(Deserialize, Serialize)]
struct Category {
    name: String,
    color: String,
    subcategories: Vec<String>,
}

#[derive(Deserialize)]
struct Thread {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tid: Option<serde_json::Value>,
    samples: Samples,
    #[serde(default)]
    markers: Option<Length>,
    #[serde(default, rename = "jsAllocations")]
    js_allocations: Option<Length>,
    #[serde(default, rename = "nativeAllocations")]
    native_allocations: Option<Length>,
    /// Its own tables up to version 59 (its strings up to 55).
    #[serde(flatten)]
    tables: Tables,
}

/// The tables a thread's samples point into: the thread's own, or `profile.shared`'s.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Tables {
    #[serde(default)]
    stack_table: Option<StackTable>,
    #[serde(default)]
    frame_table: Option<FrameTable>,
    #[serde(default)]
    func_table: Option<FuncTable>,
    #[serde(default)]
    resource_table: Option<ResourceTable>,
    #[serde(default)]
    string_array: Option<Vec<String>>,
    #[serde(default)]
    sources: Option<Sources>,
}

/// A table of which only its length is read.
#[derive(Deserialize)]
struct Length {
    length: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Samples {
    /// CPU time of the thread between samples: any number makes the thread one whose CPU time is
    /// not read.
    #[serde(default, rename = "threadCPUDelta")]
    thread_cpu_delta: Option<Vec<Option<f64>>>,
    length: usize,
    stack: Vec<Option<u64>>,
    #[serde(default)]
    weight: Option<Vec<Option<f64>>>,
    #[serde(default)]
    weight_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StackTable {
    length: usize,
    /// A stack's caller, up to version 65.
    #[serde(default)]
    prefix: Option<Vec<Option<u64>>>,
    /// How many stacks before it its caller is (0: none), from version 66.
    #[serde(default)]
    prefix_offset: Option<Vec<u64>>,
    frame: Vec<u64>,
}

#[derive(Deserialize)]
struct FrameTable {
    length: usize,
    func: Vec<u64>,
    #[serde(default)]
    line: Vec<Option<u32>>,
    #[serde(default)]
    column: Vec<Option<u32>>,
    #[serde(default)]
    category: Vec<Option<u64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FuncTable {
    length: usize,
    name: Vec<u64>,
    /// Its file up to version 57 (a string).
    #[serde(default)]
    file_name: Vec<Option<u64>>,
    /// Its file from version 58 (a source).
    #[serde(default)]
    source: Vec<Option<u64>>,
    #[serde(default)]
    line_number: Vec<Option<u32>>,
    #[serde(default)]
    column_number: Vec<Option<u32>>,
    #[serde(default)]
    resource: Vec<Option<i64>>,
}

#[derive(Deserialize)]
struct ResourceTable {
    name: Vec<u64>,
}

#[derive(Deserialize)]
struct Sources {
    filename: Vec<Option<u64>>,
}

/// A place (a JSON path), what was expected there and what was found.
type Misplaced = (String, String, String);

/// Reads a processed profile (see the module documentation).
fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let error_at = |at: usize, expected: String, found: String| {
        json::error_at(FORMAT, text.as_bytes(), at, ParseErrorKind::Unexpected { expected, found })
    };
    // The version first, so that a file of another version is refused for its version, not for a
    // table it lays out otherwise.
    #[derive(Deserialize)]
    struct Versioned {
        meta: VersionOnly,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct VersionOnly {
        preprocessed_profile_version: Option<u64>,
    }
    let versioned: Versioned = serde_json::from_str(text).map_err(|e| json::serde_error(FORMAT, text, &e, EXPECTED))?;
    let version = versioned.meta.preprocessed_profile_version;
    if !version.is_some_and(|v| READ_VERSIONS.contains(&v)) {
        let (low, high) = (READ_VERSIONS.start(), READ_VERSIONS.end());
        let expected = format!("meta.preprocessedProfileVersion {low} to {high}, the versions proftool reads (it writes {}; the profiler at profiler.firefox.com upgrades any older version to its own)", WRITTEN_VERSION.0);
        let found = version.map_or("none".to_string(), |v| format!("version {v}"));
        let at = json::nth_key(text.as_bytes(), "\"preprocessedProfileVersion\"", 0);
        return Err(error_at(at, expected, found));
    }
    let document: Document = serde_json::from_str(text).map_err(|e| json::serde_error(FORMAT, text, &e, EXPECTED))?;
    let mut reader = Reader {
        profile: Profile::new(Vec::new()),
        metrics: HashMap::new(),
        index: ChildIndex::default(),
        shared_frames: Vec::new(),
    };
    let meta = &document.meta;
    reader.profile.meta.title = meta.product.clone().filter(|p| !p.is_empty());
    let interval = meta.interval.filter(|&i| i.is_finite() && i > 0.0 && i < 1e12);
    reader.profile.meta.interval = interval.map(|ms| std::time::Duration::from_nanos((ms * 1e6).round() as u64));
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, thread) in document.threads.iter().enumerate() {
        let name = thread.name.clone().unwrap_or_else(|| "thread".into());
        let seen = names.entry(name.clone()).or_default();
        *seen += 1;
        let name = match (*seen, &thread.tid) {
            (1, _) => name,
            (_, Some(serde_json::Value::String(tid))) => format!("{name} (tid {tid})"),
            (_, Some(tid)) => format!("{name} (tid {tid})"),
            (n, None) => format!("{name} ({n})"),
        };
        reader.thread(thread, &document.shared, &name, &meta.categories, i).map_err(|(place, expected, found)| {
            // The place's table in the text: this thread's, where each thread has one, else the
            // shared one.
            let (table, n) = match place.strip_prefix("shared.") {
                Some(shared) => (shared, 0),
                None => (place.split('.').nth(1).unwrap_or("threads"), i),
            };
            let table = table.split(['.', '[']).next().unwrap_or(table);
            let at = json::nth_key(text.as_bytes(), &format!("\"{table}\""), n);
            error_at(at, format!("{expected} at {place}"), found)
        })?;
    }
    unread(&document.threads, diag);
    Ok(reader.profile)
}

/// Says what of the threads is not read: markers, CPU time, allocations.
fn unread(threads: &[Thread], diag: &mut Diagnostics) {
    let length = |table: &Option<Length>| table.as_ref().map_or(0, |t| t.length);
    let markers: usize = threads.iter().map(|t| length(&t.markers)).sum();
    let allocations: usize = threads.iter().map(|t| length(&t.js_allocations) + length(&t.native_allocations)).sum();
    let timed = |t: &&Thread| t.samples.thread_cpu_delta.as_ref().is_some_and(|d| d.iter().any(Option::is_some));
    let cpu = threads.iter().filter(timed).count();
    let mut parts = Vec::new();
    if markers > 0 {
        parts.push(format!("{markers} markers"));
    }
    if cpu > 0 {
        parts.push(format!("the CPU time between samples of {cpu} threads (threadCPUDelta)"));
    }
    if allocations > 0 {
        parts.push(format!("{allocations} allocation samples"));
    }
    if !parts.is_empty() {
        diag.warn("firefox-unread", None, || format!("firefox: not read: {}", parts.join(", ")));
    }
}

struct Reader {
    profile: Profile,
    /// Each weight type's metric.
    metrics: HashMap<&'static str, usize>,
    index: ChildIndex,
    /// The model's frame of each frame of the shared frame table, as far as known.
    shared_frames: Vec<Option<FrameId>>,
}

/// A thread's tables, its own or the shared ones, each with the JSON path of its place.
struct Found<'a, T> {
    table: &'a T,
    place: String,
}

impl Reader {
    /// The metric of a weight type, added where it is new: `samples`, `tracing-ms`, `bytes`.
    fn metric(&mut self, weight_type: &str, place: &str) -> Result<usize, Misplaced> {
        let (key, metric) = match weight_type {
            "samples" => ("samples", Metric::samples()),
            // Traced time is measured, not sampled.
            "tracing-ms" => ("tracing-ms", Metric::time(Unit::Milliseconds, Repr::Float).sampled(Sampling::Measured)),
            "bytes" => ("bytes", Metric::new("size", MetricKind::Alloc, Unit::Bytes, Repr::Int)),
            other => {
                return Err((
                    format!("{place}.samples.weightType"),
                    "a weight type of samples, tracing-ms or bytes".into(),
                    format!("\"{other}\""),
                ))
            }
        };
        if let Some(&m) = self.metrics.get(key) {
            return Ok(m);
        }
        let m = self.profile.metrics().len();
        let repr = metric.repr;
        self.profile.add_metric(metric, crate::model::Values::zeros(repr, self.profile.tree.len()));
        self.metrics.insert(key, m);
        Ok(m)
    }

    /// Adds the samples of thread `t` under a thread root named `name`; its tables are its own, or
    /// (from version 60) `shared`'s.
    fn thread(
        &mut self,
        thread: &Thread,
        shared: &Tables,
        name: &str,
        categories: &[Category],
        t: usize,
    ) -> Result<(), Misplaced> {
        let place = format!("threads[{t}]");
        fn pick<'a, T>(
            own: &'a Option<T>,
            shared: &'a Option<T>,
            place: &str,
            key: &str,
        ) -> Result<Found<'a, T>, Misplaced> {
            match (own, shared) {
                (Some(table), _) => Ok(Found { table, place: format!("{place}.{key}") }),
                (None, Some(table)) => Ok(Found { table, place: format!("shared.{key}") }),
                (None, None) => {
                    Err((format!("{place}.{key}"), format!("a {key}, the thread's or shared's"), "none".into()))
                }
            }
        }
        let own = &thread.tables;
        let stacks = pick(&own.stack_table, &shared.stack_table, &place, "stackTable")?;
        let frames = pick(&own.frame_table, &shared.frame_table, &place, "frameTable")?;
        let funcs = pick(&own.func_table, &shared.func_table, &place, "funcTable")?;
        let strings = pick(&own.string_array, &shared.string_array, &place, "stringArray")?;
        let resources = own.resource_table.as_ref().or(shared.resource_table.as_ref());
        let sources = own.sources.as_ref().or(shared.sources.as_ref());
        let short = |found: &str, column: &str, len: usize, length: usize| -> Result<(), Misplaced> {
            match len >= length {
                true => Ok(()),
                false => Err((format!("{found}.{column}"), format!("{length} entries (its length)"), format!("{len}"))),
            }
        };
        short(&funcs.place, "name", funcs.table.name.len(), funcs.table.length)?;
        short(&frames.place, "func", frames.table.func.len(), frames.table.length)?;
        short(&stacks.place, "frame", stacks.table.frame.len(), stacks.table.length)?;
        let prefix_len = match (&stacks.table.prefix, &stacks.table.prefix_offset) {
            (Some(prefix), _) => prefix.len(),
            (None, Some(offsets)) => offsets.len(),
            (None, None) => 0,
        };
        short(&stacks.place, "prefix", prefix_len, stacks.table.length)?;
        let samples = &thread.samples;
        short(&format!("{place}.samples"), "stack", samples.stack.len(), samples.length)?;
        if let Some(weights) = &samples.weight {
            short(&format!("{place}.samples"), "weight", weights.len(), samples.length)?;
        }
        let metric = self.metric(samples.weight_type.as_deref().unwrap_or("samples"), &place)?;
        let is_shared = frames.place.starts_with("shared.");
        if is_shared && self.shared_frames.len() != frames.table.length {
            self.shared_frames = vec![None; frames.table.length];
        }
        let mut own_frames = if is_shared { Vec::new() } else { vec![None; frames.table.length] };
        let tables = ReadTables { frames: &frames, funcs: &funcs, strings: &strings, resources, sources, categories };
        let root_frame = self.profile.frames.intern(FrameRef::named(name, FrameKind::Thread));
        let root = self.index.child_or_insert(&mut self.profile.tree, None, root_frame);
        // Each stack's node: a thread's own stacks all, in their order (as the writer lays a tree
        // out, stacks of no sample included); the shared table's (every thread's) where a sample
        // names one.
        let (mut nodes, mut chain) = (HashMap::new(), Vec::new());
        let own_stacks = if is_shared { 0 } else { stacks.table.length };
        for task in 0..own_stacks + samples.length {
            let (stack, sample) = match task.checked_sub(own_stacks) {
                None => (Some(task as u64), None),
                Some(i) => (samples.stack[i], Some(i)),
            };
            let Some(stack) = stack else {
                self.add(metric, root, samples, task - own_stacks);
                continue;
            };
            let mut s = usize::try_from(stack).unwrap_or(usize::MAX);
            if s >= stacks.table.length {
                let expected = "an index into stackTable".to_string();
                let i = task - own_stacks;
                return Err((format!("{place}.samples.stack[{i}]"), expected, stack.to_string()));
            }
            // The stacks up to one known (or a root), then their nodes, callers first.
            chain.clear();
            let mut caller = root;
            loop {
                if let Some(&node) = nodes.get(&s) {
                    caller = node;
                    break;
                }
                chain.push(s);
                match prefix_of(&stacks, s)? {
                    Some(p) => s = p,
                    None => break,
                }
            }
            for &s in chain.iter().rev() {
                let f = stacks.table.frame[s] as usize;
                let frame = match is_shared {
                    true => self.frame(&tables, f)?,
                    false => self.frame_own(&tables, f, &mut own_frames)?,
                }
                .ok_or_else(|| {
                    (format!("{}.frame[{s}]", stacks.place), "an index into frameTable".into(), f.to_string())
                })?;
                caller = self.index.child_or_insert(&mut self.profile.tree, Some(caller), frame);
                nodes.insert(s, caller);
            }
            if let Some(i) = sample {
                self.add(metric, caller, samples, i);
            }
        }
        Ok(())
    }

    /// Adds sample `i`'s weight to `node`.
    fn add(&mut self, metric: usize, node: NodeId, samples: &Samples, i: usize) {
        let weight = samples.weight.as_ref().map_or(Some(1.0), |w| w[i]).unwrap_or(1.0);
        let value = match self.profile.metrics()[metric].repr {
            Repr::Int => Value::Int(weight.round() as i64),
            Repr::Float => Value::Float(weight),
        };
        self.profile.tree.add_self(metric, node, value);
    }

    /// The model's frame of frame `f` of the shared table (`None`: no such frame).
    fn frame(&mut self, tables: &ReadTables, f: usize) -> Result<Option<FrameId>, Misplaced> {
        let Some(known) = self.shared_frames.get(f).copied() else { return Ok(None) };
        if let Some(id) = known {
            return Ok(Some(id));
        }
        let id = tables.frame(&mut self.profile, f)?;
        self.shared_frames[f] = Some(id);
        Ok(Some(id))
    }

    /// The model's frame of frame `f` of a thread's own table (`None`: no such frame).
    fn frame_own(
        &mut self,
        tables: &ReadTables,
        f: usize,
        known: &mut [Option<FrameId>],
    ) -> Result<Option<FrameId>, Misplaced> {
        let Some(slot) = known.get_mut(f) else { return Ok(None) };
        if slot.is_none() {
            *slot = Some(tables.frame(&mut self.profile, f)?);
        }
        Ok(*slot)
    }
}

/// The caller of stack `s`: its `prefix`, or (from version 66) `s` less its `prefixOffset`; an
/// error where it is not an earlier stack.
fn prefix_of(stacks: &Found<StackTable>, s: usize) -> Result<Option<usize>, Misplaced> {
    let table = stacks.table;
    let (prefix, column) = match (&table.prefix, &table.prefix_offset) {
        (Some(prefix), _) => (prefix[s].map(|p| usize::try_from(p).unwrap_or(usize::MAX)), "prefix"),
        (None, Some(offsets)) => match offsets[s] {
            0 => (None, "prefixOffset"),
            k => (s.checked_sub(usize::try_from(k).unwrap_or(usize::MAX)).or(Some(usize::MAX)), "prefixOffset"),
        },
        (None, None) => (None, "prefix"),
    };
    match prefix {
        Some(p) if p >= s => Err((
            format!("{}.{column}[{s}]", stacks.place),
            "the caller's stack, an earlier one".into(),
            match column {
                "prefix" => p.to_string(),
                _ => format!("an offset of {}", table.prefix_offset.as_ref().map_or(0, |o| o[s])),
            },
        )),
        prefix => Ok(prefix),
    }
}

/// The tables a thread's frames are read from.
struct ReadTables<'a> {
    frames: &'a Found<'a, FrameTable>,
    funcs: &'a Found<'a, FuncTable>,
    strings: &'a Found<'a, Vec<String>>,
    resources: Option<&'a ResourceTable>,
    sources: Option<&'a Sources>,
    categories: &'a [Category],
}

impl ReadTables<'_> {
    fn string(&self, index: u64, at: String) -> Result<&str, Misplaced> {
        let strings = self.strings.table;
        strings
            .get(usize::try_from(index).unwrap_or(usize::MAX))
            .map(String::as_str)
            .ok_or_else(|| (at, "an index into stringArray".into(), format!("{index}, of {} strings", strings.len())))
    }

    /// The model's frame of frame `i` (which is in the table): see the module documentation.
    fn frame(&self, profile: &mut Profile, i: usize) -> Result<FrameId, Misplaced> {
        let (frames, funcs) = (self.frames.table, self.funcs.table);
        let func = usize::try_from(frames.func[i]).unwrap_or(usize::MAX);
        if func >= funcs.length {
            let found = format!("{func}, of {} functions", funcs.length);
            return Err((format!("{}.func[{i}]", self.frames.place), "an index into funcTable".into(), found));
        }
        let at = |column: &str, i: usize| format!("{}.{column}[{i}]", self.funcs.place);
        let name = self.string(funcs.name[func], at("name", func))?;
        let file = match (funcs.file_name.get(func).copied().flatten(), funcs.source.get(func).copied().flatten()) {
            (Some(s), _) => Some(self.string(s, at("fileName", func))?),
            (None, Some(source)) => {
                let filename =
                    self.sources.and_then(|sources| sources.filename.get(source as usize).copied().flatten());
                match filename {
                    Some(s) => Some(self.string(s, format!("shared.sources.filename[{source}]"))?),
                    None => None,
                }
            }
            (None, None) => None,
        };
        let resource = funcs.resource.get(func).copied().flatten().and_then(|r| usize::try_from(r).ok());
        let library = match resource.and_then(|r| Some((r, *self.resources?.name.get(r)?))) {
            Some((r, s)) => Some(self.string(s, format!("resourceTable.name[{r}]"))?),
            None => None,
        };
        let module = file.or(library).filter(|m| !m.is_empty());
        let line = frames.line.get(i).copied().flatten();
        let frame = FrameRef {
            module,
            line,
            clause: line.and(frames.column.get(i).copied().flatten()),
            kind: if line.is_some() { FrameKind::Line } else { FrameKind::Function },
            ..FrameRef::function(name)
        };
        let id = profile.frames.intern(frame);
        // A frame of no fact (no file, the default category) has no entry: not an empty one.
        if let std::collections::btree_map::Entry::Vacant(entry) = profile.frame_attrs.entry(id) {
            let mut facts = Vec::new();
            if let (Some(file), Some(line)) = (file, funcs.line_number.get(func).copied().flatten()) {
                let at = match funcs.column_number.get(func).copied().flatten() {
                    Some(column) => format!("{file}:{line}:{column}"),
                    None => format!("{file}:{line}"),
                };
                facts.push((DEFINED_AT.to_string(), at));
            }
            let category = frames.category.get(i).copied().flatten().and_then(|c| self.categories.get(c as usize));
            if let Some(category) = category.filter(|c| c.name != DEFAULT_CATEGORY) {
                facts.push((CATEGORY.to_string(), category.name.clone()));
            }
            if !facts.is_empty() {
                entry.insert(facts);
            }
        }
        Ok(id)
    }
}

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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SamplesOut {
    length: usize,
    weight_type: &'static str,
    stack: Vec<Option<usize>>,
    time: Vec<f64>,
    weight: Vec<serde_json::Number>,
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
        let name = self.string(super::shared::written_name(frame));
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

/// Writes `profile` (projected onto [`CARRIES`]: one metric, time in ms) as a processed profile of
/// version 55 (see the module documentation).
fn write(profile: &Profile, out: &mut dyn Write, options: &ConvertOptions) -> Result<(), Error> {
    let tree = &profile.tree;
    let Some(metric) = profile.metrics().first() else {
        let what = "the profile has none of the weights a sample has in it (samples, time, bytes)".to_string();
        return Err(Error::Unrepresentable { format: FORMAT, what });
    };
    let kind = metric.kind;
    let interval = profile.meta.interval.or(options.interval).unwrap_or(super::options::DEFAULT_INTERVAL);
    let interval_ms = interval.as_secs_f64() * 1e3;
    let title = profile.meta.title.as_deref().unwrap_or("proftool");
    let children = tree.children();
    // Each thread at the roots is a thread; the other roots are one thread together.
    let is_thread = |node: NodeId| profile.frames.get(tree.frame(node)).kind == FrameKind::Thread;
    // Roots of one thread are one thread (a thread's name is its identity when read back).
    let mut parts: Vec<(&str, Vec<NodeId>, Vec<NodeId>)> = Vec::new();
    let mut part_of: HashMap<&str, usize> = HashMap::new();
    let mut loose = Vec::new();
    for &root in children.roots() {
        if !is_thread(root) {
            loose.push(root);
            continue;
        }
        let name = profile.frames.get(tree.frame(root)).name.as_str();
        let at = *part_of.entry(name).or_insert_with(|| {
            parts.push((name, Vec::new(), Vec::new()));
            parts.len() - 1
        });
        parts[at].1.push(root);
        parts[at].2.extend_from_slice(children.of_node(root));
    }
    if !loose.is_empty() || parts.is_empty() {
        parts.push((title, Vec::new(), loose));
    }
    let mut categories: Vec<&str> = vec![DEFAULT_CATEGORY];
    let mut threads = Vec::with_capacity(parts.len());
    for (tid, (name, thread_roots, roots)) in parts.iter().enumerate() {
        let mut tables = ThreadTables::default();
        let mut samples = SamplesOut {
            length: 0,
            weight_type: weight_type(kind),
            stack: Vec::new(),
            time: Vec::new(),
            weight: Vec::new(),
        };
        let mut clock = 0.0;
        let mut sample = |stack: Option<usize>, node: NodeId, samples: &mut SamplesOut| {
            let value = tree.self_value(0, node);
            if value.as_f64() == 0.0 {
                return;
            }
            samples.stack.push(stack);
            samples.time.push(clock);
            // Time in ms with its fractions (read back as such), counts and bytes whole.
            let lasts = value.as_f64();
            let number = match kind {
                MetricKind::Time => serde_json::Number::from_f64(lasts).unwrap_or_else(|| 0.into()),
                _ => serde_json::Number::from(value.as_count()),
            };
            clock += match kind {
                MetricKind::Time => lasts,
                MetricKind::Samples => lasts * interval_ms,
                _ => interval_ms,
            };
            samples.weight.push(number);
            samples.length += 1;
        };
        for &root in thread_roots {
            sample(None, root, &mut samples);
        }
        // Nodes in pre-order with an explicit stack, each with its caller's stack.
        let mut pending: Vec<(NodeId, Option<usize>)> = roots.iter().rev().map(|&n| (n, None)).collect();
        while let Some((node, prefix)) = pending.pop() {
            let frame = tables.frame(profile, tree.frame(node), &mut categories);
            let stacks = &mut tables.stacks;
            stacks.prefix.push(prefix);
            stacks.frame.push(frame);
            stacks.length += 1;
            let stack = stacks.length - 1;
            sample(Some(stack), node, &mut samples);
            pending.extend(children.of_node(node).iter().rev().map(|&n| (n, Some(stack))));
        }
        let ThreadTables { strings, funcs, frames, stacks, .. } = tables;
        threads.push(ThreadOut {
            name,
            process_name: title,
            process_type: "default",
            process_startup_time: 0.0,
            process_shutdown_time: Some(clock),
            register_time: 0.0,
            unregister_time: Some(clock),
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
        });
    }
    let categories: Vec<Category> = categories
        .iter()
        .map(|&name| Category {
            name: name.into(),
            color: color(name).into(),
            subcategories: vec![DEFAULT_CATEGORY.into()],
        })
        .collect();
    let document = DocumentOut {
        meta: MetaOut {
            interval: interval_ms,
            start_time: 0.0,
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
        },
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A processed profile is told by its meta and version; a Gecko profile (no
    /// preprocessedProfileVersion) and other JSON are not taken for one.
    #[test]
    fn a_processed_profile_is_told_by_its_meta_and_version() {
        assert_eq!(check(br#"{"meta":{"interval":1,"preprocessedProfileVersion":49},"threads":[]}"#), Ok(()));
        assert!(check(br#"{"meta":{"version":24,"stackwalk":0},"threads":[]}"#).is_err());
        assert!(check(br#"{"threads":[],"meta":{"preprocessedProfileVersion":55}}"#).is_err());
        assert!(check(b"[]").is_err());
    }

    /// A stack whose caller is not an earlier stack is refused with its place, by prefix or offset.
    #[test]
    fn a_caller_after_its_stack_is_refused() {
        let read_text = |stacks: &str| {
            let text = format!(
                r#"{{"meta":{{"preprocessedProfileVersion":66}},"threads":[{{"name":"t","samples":{{"length":1,"stack":[1],"weight":null}}}}],
                "shared":{{"stringArray":["f"],"stackTable":{stacks},
                "frameTable":{{"length":1,"func":[0]}},"funcTable":{{"length":1,"name":[0]}}}}}}"#
            );
            read(&mut text.as_bytes(), &mut Diagnostics::default()).map(|p| p.total(0)).map_err(|e| e.to_string())
        };
        assert_eq!(read_text(r#"{"length":2,"prefixOffset":[0,1],"frame":[0,0]}"#), Ok(Value::Int(1)));
        let offset = read_text(r#"{"length":2,"prefixOffset":[0,2],"frame":[0,0]}"#).unwrap_err();
        assert!(offset.contains("the caller's stack, an earlier one at shared.stackTable.prefixOffset[1]"), "{offset}");
        let prefix = read_text(r#"{"length":2,"prefix":[null,1],"frame":[0,0]}"#).unwrap_err();
        assert!(prefix.contains("at shared.stackTable.prefix[1], found 1"), "{prefix}");
    }
}
