//! The Gecko profile JSON of Firefox's built-in profiler, as Firefox ≤ 63's devtools performance
//! panel saved it ("Save profile": a "Recorded Performance Data" file, the Gecko profile under its
//! `profile` key) and as the Firefox Profiler imports it (read only). The bare Gecko profile (the
//! same object at the top of a file) is read the same way.
//!
//! ```text
//! {"label":"simple","duration":15.114,"markers":[],"frames":[],…,
//!  "profile":{"meta":{"version":12,"interval":1,"startTime":1533770187505.331,…},
//!   "threads":[{"name":"GeckoMain","processType":"tab","tid":7,"pid":5,
//!     "samples":{"schema":{"stack":0,"time":1,"responsiveness":2},"data":[[1,0.64,0],[2,1.9,0]]},
//!     "stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1],[1,2]]},
//!     "frameTable":{"schema":{"location":0,"implementation":1,"optimizations":2,"line":3,
//!       "column":4,"category":5},"data":[[0],[1,null,null,null,null,2],…]},
//!     "stringTable":["(root)","a (https://example.com/simple.js:1:11)",…]}],
//!   "processes":[]},
//!  "systemHost":{"name":"Firefox",…},"fileType":"Recorded Performance Data","version":2}
//! ```
//!
//! **Schema**: each table is a `schema` (column name → index) and `data` (rows); a stack is its
//! `prefix` (the stack of its caller, an earlier row, or `null`) and its `frame`; a frame's
//! `location` is a string of `stringTable`: a JS function as `name (file:line:column)` (line
//! 1-based, column 0-based), a label frame (`nsRefreshDriver::Tick`) or an address otherwise; a
//! sample is its `stack` (or `null`) and its `time` in ms. `meta.interval` is the sampling interval
//! in ms; `duration` the recording's length in ms. Subprocesses' profiles are under `processes`
//! (in older versions as JSON strings, as threads may be; up to version 4 a subprocess's whole
//! profile is a JSON string among the threads).
//!
//! **Model**: every frame, as the Firefox Profiler's import names it (its `process-profile`): a
//! location `name (file[:line[:column]])` is a JS function named `name` (`(root scope) file` where
//! the name is empty), its file as module and where it is defined (`file:line:column`, the column
//! 1-based) as [`crate::model::DEFINED_AT`]; `name (in library)` is a native function with its
//! library as module; an address (`0x10a3c5f2e`) is named as it is, the library of `libs` whose
//! range holds it as module; anything else (label frames such as `nsRefreshDriver::Tick`, the
//! `(root)` every stack starts with) is named as it is. Each sample's stack holds from its time to
//! the next sample's: the metric `time` in ms, the one the profile is weighed by; the last sample
//! holds one interval, as the profiler's traced time gives it. A sample with no stack (`null`) is
//! left out, as the profiler's call tree leaves it out (said on stderr with its time).
//! `samples` counts the samples of each stack. speedscope's importer reads JS functions only,
//! leaving out the label frames, addresses and `resource:`/`self-hosted` scripts, and samples left
//! with no frame; the Firefox Profiler, the format's own viewer, shows them all. Each thread is a thread root named after it (a
//! second of one name, a subprocess's `GeckoMain`, with ` (tid N)` after it, or its JSON path;
//! speedscope reads one thread, `GeckoMain` where there are several); a thread without samples (of
//! markers alone) is none; `meta.interval` is the interval, the file's `label` the title.
//!
//! **Errors**: JSON errors at their line and column (in a thread or subprocess kept as a JSON
//! string, at its byte in the file, found as serde_json escapes the string); a table without the
//! columns read, a sample,
//! stack or frame that names no row or string, a stack whose prefix is not an earlier stack, and
//! samples out of time order are errors naming the place as a JSON path.
//!
//! **Lost**: markers (their number said on stderr), memory, allocations, the frames' own lines
//! and categories, libraries but as the modules of addresses, the recording's time outside samples (before the first, after the
//! last: speedscope's whole `duration`). **Timeline**: each sample with a stack at its time (ms
//! as its process gives it: a subprocess's from its own start).

use super::json;
use super::spec::{Carries, JsonKind, Reads, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind};
use crate::formats::ReadOptions;
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, TimedSample, Timeline, Unit,
    Value, DEFINED_AT,
};
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "gecko",
    description: "Firefox's Gecko profile JSON (Firefox ≤ 63's \"Save profile\"), as the Firefox Profiler opens it",
    extensions: &["gecko.json"],
    carries: Carries {
        time_unit: Some(Unit::Milliseconds),
        weight_is_time: true,
        ..Carries::SAMPLES_PER_THREAD
            .weighing(&[MetricKind::Time, MetricKind::Samples])
            .with_modules()
            .with_title()
            .with_interval()
    },
    reads: Some(Reads::json(
        JsonKind {
            what: "a Firefox Gecko profile",
            aside: " (Firefox's older exports)",
            check,
        },
        read,
    )),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a Gecko profile should be, for serde's errors.
const EXPECTED: &str = "a Gecko profile (meta, threads with samples, stackTable, frameTable, stringTable)";

/// Whether the input is a JSON object whose first key is `label` followed by `duration` (a saved
/// recording, its Gecko profile further on), or whose first key is `meta` with a Gecko `version`
/// and no `preprocessedProfileVersion` (a bare Gecko profile; the processed profile has one) nor a
/// thread's `stringArray` (a processed profile of version 0, which stated none); if not, why not.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let members = head.object()?;
    if members.starts_with(b"\"label\"") {
        return match head.value_of(b"\"duration\"").is_some_and(|v| v.first().is_some_and(u8::is_ascii_digit)) {
            true => Ok(()),
            false => Err("a first key \"label\" without the \"duration\" of a saved recording"),
        };
    }
    let gecko_meta = members.starts_with(b"\"meta\"")
        && head.mentions(b"\"stackwalk\"")
        && !head.mentions(b"\"preprocessedProfileVersion\"")
        && !head.mentions(b"\"stringArray\"");
    match gecko_meta {
        true => Ok(()),
        false => Err("no first key \"label\" (a saved recording) or \"meta\" of a Gecko profile"),
    }
}

/// A saved recording, or a bare Gecko profile (its fields at the top).
#[derive(Deserialize)]
struct Document {
    label: Option<String>,
    profile: Option<Gecko>,
    #[serde(flatten)]
    bare: Gecko,
}

/// A Gecko profile: its meta, threads and subprocesses' profiles.
#[derive(Deserialize, Default)]
struct Gecko {
    meta: Option<Meta>,
    #[serde(default)]
    threads: Vec<Json>,
    #[serde(default)]
    processes: Vec<Json>,
    /// The libraries mapped into the process (in older versions a JSON string of them).
    #[serde(default)]
    libs: Json,
}

/// A library mapped into a process: where addresses in it are, and its name.
#[derive(Deserialize)]
struct Lib {
    start: f64,
    end: f64,
    name: String,
}

/// The libraries of `libs` that name a range and a name (others are not needed to read stacks).
fn libraries(libs: Json) -> Vec<Lib> {
    let libs = unstring(libs).unwrap_or(Json::Null);
    let Json::Array(libs) = libs else { return Vec::new() };
    libs.into_iter().filter_map(|lib| serde_json::from_value(lib).ok()).collect()
}

#[derive(Deserialize)]
struct Meta {
    interval: Option<f64>,
    version: Option<u64>,
}

/// What a process's threads are read with: its libraries, and the version of its profile.
struct Process {
    libs: Vec<Lib>,
    version: u64,
}

/// A thread: its name and tables.
#[derive(Deserialize)]
struct Thread {
    name: Option<String>,
    tid: Option<Json>,
    /// None in a thread of markers alone (old versions).
    #[serde(default)]
    samples: Table,
    #[serde(rename = "stackTable", default)]
    stack_table: Table,
    #[serde(rename = "frameTable", default)]
    frame_table: Table,
    #[serde(rename = "stringTable", default)]
    string_table: Vec<String>,
    markers: Option<Markers>,
}

/// A thread's markers, which are not read but counted.
#[derive(Deserialize)]
struct Markers {
    #[serde(default)]
    data: Vec<serde::de::IgnoredAny>,
}

/// A table: its columns by name and its rows.
#[derive(Deserialize, Default)]
struct Table {
    schema: HashMap<String, usize>,
    data: Vec<Vec<Json>>,
}

/// Reads a saved recording or a Gecko profile (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = serde_json::from_str(text).map_err(|e| json::serde_error(FORMAT, text, &e, EXPECTED))?;
    // At the place's table in the text: the nth thread's, where each thread has one (speedscope's
    // saved recordings have one thread).
    let error = |path: String, expected: &str, found: String| {
        let thread = path.rsplit("threads[").next().and_then(|t| t.split(']').next()?.parse().ok()).unwrap_or(0);
        let table = path.rsplit("].").next().and_then(|t| t.split(['.', '[']).next()).unwrap_or("threads");
        let at = json::nth_key(text.as_bytes(), &format!("\"{table}\""), thread);
        json::error_at(
            FORMAT,
            text.as_bytes(),
            at,
            ParseErrorKind::Unexpected { expected: format!("{expected} at {path}"), found },
        )
    };
    let (root, gecko) = match document.profile {
        Some(profile) => ("profile", profile),
        None => ("", document.bare),
    };
    let mut profile = Profile::new(vec![
        Metric::time(Unit::Milliseconds, Repr::Float).sampled(crate::model::Sampling::weights_of("samples")),
        Metric::samples(),
    ]);
    profile.meta.weighed_by = Some(MetricKind::Time);
    profile.meta.title = document.label.filter(|l| !l.is_empty());
    let interval = gecko.meta.as_ref().and_then(|m| m.interval).filter(|&i| i.is_finite() && i > 0.0 && i < 1e12);
    profile.meta.interval = interval.map(|ms| std::time::Duration::from_nanos((ms * 1e6).round() as u64));
    let mut left_out = LeftOut::default();
    // Subprocesses' profiles, each with its path, taken from a work list (no recursion).
    let version = gecko.meta.as_ref().and_then(|m| m.version).unwrap_or(0);
    let mut pending = vec![(root.to_string(), gecko, version)];
    let mut index = ChildIndex::default();
    let mut timeline = Vec::new();
    while let Some((path, mut gecko, version)) = pending.pop() {
        let version = gecko.meta.as_ref().and_then(|m| m.version).unwrap_or(version);
        let process = Process { libs: libraries(std::mem::take(&mut gecko.libs)), version };
        let at = |key: &str, i: usize| match path.as_str() {
            "" => format!("{key}[{i}]"),
            path => format!("{path}.{key}[{i}]"),
        };
        let misread = |place: String, what: &str, (inner, e): (String, serde_json::Error)| {
            error_in_string(text, &inner, &e, &format!("{what} at {place}"))
        };
        for (i, thread) in gecko.threads.into_iter().enumerate() {
            // Up to version 4 a subprocess's profile is a JSON string among the threads.
            let value = unstring(thread).map_err(|e| misread(at("threads", i), "a thread or a subprocess", e))?;
            if value.get("threads").is_some() {
                let process: Gecko = parse(value)
                    .map_err(|e| error(at("threads", i), "a Gecko profile of a subprocess", json::found(&e)))?;
                pending.push((at("threads", i), process, version));
                continue;
            }
            let thread: Thread = parse(value)
                .map_err(|e| error(at("threads", i), "a thread (name, samples, tables)", json::found(&e)))?;
            add_thread(&mut profile, &mut index, (&thread, &process), &at("threads", i), &mut left_out, &mut timeline)
                .map_err(|(place, expected, found)| error(place, &expected, found))?;
        }
        for (i, process) in gecko.processes.into_iter().enumerate() {
            let what = "a Gecko profile of a subprocess";
            let value = unstring(process).map_err(|e| misread(at("processes", i), what, e))?;
            let process: Gecko = parse(value).map_err(|e| error(at("processes", i), what, json::found(&e)))?;
            pending.push((at("processes", i), process, version));
        }
    }
    left_out.warn(diag);
    profile.timeline = Timeline::new(timeline, None);
    Ok(profile)
}

/// `value`, or the JSON a JSON string holds (older versions keep subprocesses and their threads
/// so); else the string and serde's error in it.
fn unstring(value: Json) -> Result<Json, (String, serde_json::Error)> {
    match value {
        Json::String(inner) => serde_json::from_str(&inner).map_err(|e| (inner, e)),
        value => Ok(value),
    }
}

/// `value` as a `T`.
fn parse<T: serde::de::DeserializeOwned>(value: Json) -> Result<T, serde_json::Error> {
    serde_json::from_value(value)
}

/// A JSON error at byte `e` of a JSON string `inner` of the file `text`, at its place in the file:
/// where the string stands escaped as serde_json escapes it (as Firefox's `JSON.stringify` did),
/// the error's byte within it escaped the same way; else the string's own line and column.
fn error_in_string(text: &str, inner: &str, e: &serde_json::Error, expected: &str) -> ParseError {
    let in_string = json::serde_error(FORMAT, inner, e, expected);
    let at = usize::try_from(in_string.position.byte).unwrap_or(usize::MAX).min(inner.len());
    let escaped = |part: &str| serde_json::to_string(part).unwrap_or_default();
    let start = memchr::memmem::find(text.as_bytes(), escaped(inner).as_bytes());
    match (start, inner.get(..at)) {
        (Some(start), Some(before)) => json::error_at(
            FORMAT,
            text.as_bytes(),
            start + escaped(before).len() - 1,
            ParseErrorKind::Unexpected { expected: expected.into(), found: json::found(e) },
        ),
        _ => {
            let (line, column) = (e.line(), e.column());
            let found = format!("{} (at line {line}, column {column} of the JSON string)", json::found(e));
            ParseError { kind: ParseErrorKind::Unexpected { expected: expected.into(), found }, ..in_string }
        }
    }
}

/// What the reading leaves out, for the warnings.
#[derive(Default)]
struct LeftOut {
    /// Samples with no stack, and their time in ms.
    idle: usize,
    /// The threads' markers.
    markers: usize,
    idle_ms: f64,
}

impl LeftOut {
    fn warn(&self, diag: &mut Diagnostics) {
        if self.markers > 0 {
            let n = self.markers;
            diag.warn("gecko-markers", None, || format!("gecko: {n} markers not read"));
        }
        if self.idle > 0 {
            let (n, ms) = (self.idle, self.idle_ms);
            diag.warn("gecko-idle", None, || {
                let samples = if n == 1 { "1 sample".to_string() } else { format!("{n} samples") };
                format!(
                    "gecko: {samples} with no stack ({ms:.3} ms) left out, as the profiler's call tree leaves them out"
                )
            });
        }
    }
}

/// A place (a JSON path), what was expected there and what was found.
type Misplaced = (String, String, String);

/// Adds the stacks of `thread` (at JSON path `path`) under a thread root named after it, and its
/// samples to `timeline` at their times.
fn add_thread(
    profile: &mut Profile,
    index: &mut ChildIndex,
    (thread, process): (&Thread, &Process),
    path: &str,
    left_out: &mut LeftOut,
    timeline: &mut Vec<TimedSample>,
) -> Result<(), Misplaced> {
    left_out.markers += thread.markers.as_ref().map_or(0, |m| m.data.len());
    if thread.samples.data.is_empty() {
        return Ok(());
    }
    let column = |table: &Table, name: &str, key: &str| {
        table
            .schema
            .get(key)
            .copied()
            .ok_or_else(|| (format!("{path}.{name}.schema"), format!("a column \"{key}\""), "none".to_string()))
    };
    let (prefix, frame_column) =
        (column(&thread.stack_table, "stackTable", "prefix")?, column(&thread.stack_table, "stackTable", "frame")?);
    let location = column(&thread.frame_table, "frameTable", "location")?;
    let (stack_column, time_column) =
        (column(&thread.samples, "samples", "stack")?, column(&thread.samples, "samples", "time")?);
    let index_at = |row: &[Json], column: usize| row.get(column).and_then(Json::as_u64).map(|i| i as usize);
    // Each frame of the frame table as the model's.
    let mut frames: Vec<FrameId> = Vec::with_capacity(thread.frame_table.data.len());
    for (i, row) in thread.frame_table.data.iter().enumerate() {
        let text = index_at(row, location).and_then(|s| thread.string_table.get(s)).ok_or_else(|| {
            (format!("{path}.frameTable.data[{i}]"), "a location, an index into stringTable".into(), "none".into())
        })?;
        frames.push(frame_of(profile, text, process));
    }
    // A second thread of one name (a subprocess's GeckoMain) is another root.
    let mut name = thread.name.clone().unwrap_or_else(|| "thread".into());
    if profile.frames.contains(FrameRef::named(&name, FrameKind::Thread)) {
        name = match &thread.tid {
            Some(Json::String(tid)) => format!("{name} (tid {tid})"),
            Some(tid) => format!("{name} (tid {tid})"),
            None => format!("{name} ({path})"),
        };
    }
    let thread_frame = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
    let root = index.child_or_insert(&mut profile.tree, None, thread_frame);
    // Each stack's node: its prefix's with its frame below (prefixes come first).
    let mut nodes: Vec<NodeId> = Vec::with_capacity(thread.stack_table.data.len());
    for (i, row) in thread.stack_table.data.iter().enumerate() {
        let place = || format!("{path}.stackTable.data[{i}]");
        let caller = match row.get(prefix) {
            None | Some(Json::Null) => None,
            Some(value) => {
                let p = value
                    .as_u64()
                    .filter(|&p| (p as usize) < i)
                    .ok_or_else(|| (place(), "a prefix that is an earlier stack".into(), value.to_string()))?;
                Some(nodes[p as usize])
            }
        };
        let frame = index_at(row, frame_column).and_then(|f| frames.get(f)).ok_or_else(|| {
            (place(), "a frame, an index into frameTable".into(), format!("{:?}", row.get(frame_column)))
        })?;
        nodes.push(index.child_or_insert(&mut profile.tree, Some(caller.unwrap_or(root)), *frame));
    }
    let samples = &thread.samples.data;
    let times = sample_times(samples, time_column, path)?;
    // The last sample holds one interval, as the profiler's traced timing gives it.
    let last_held = profile.meta.interval.map_or(0.0, |interval| interval.as_secs_f64() * 1e3);
    for (i, row) in samples.iter().enumerate() {
        let node = match row.get(stack_column) {
            None | Some(Json::Null) => None,
            Some(value) => Some(*value.as_u64().and_then(|s| nodes.get(s as usize)).ok_or_else(|| {
                (format!("{path}.samples.data[{i}]"), "a stack, an index into stackTable".into(), value.to_string())
            })?),
        };
        let held = times.get(i + 1).map_or(last_held, |next| next - times[i]);
        match node {
            Some(node) => {
                profile.tree.add_self(0, node, Value::Float(held));
                profile.tree.add_self(1, node, Value::Int(1));
                // Times are finite; ms far past any clock (292 years) end where an i64 does.
                let time = (times[i] * 1e6).round().clamp(i64::MIN as f64, i64::MAX as f64) as i64;
                timeline.push(TimedSample { time, node, weight: 1 });
            }
            None => {
                left_out.idle += 1;
                left_out.idle_ms += held;
            }
        }
    }
    Ok(())
}

/// The time (ms) of each sample of `samples` (rows of a thread's at JSON path `path`), in time
/// order: a sample without one, or before the one before it, is an error at its place.
fn sample_times(samples: &[Vec<Json>], time_column: usize, path: &str) -> Result<Vec<f64>, Misplaced> {
    let mut times = Vec::with_capacity(samples.len());
    for (i, row) in samples.iter().enumerate() {
        let time = row.get(time_column).and_then(Json::as_f64).filter(|t| t.is_finite());
        let time = time.ok_or_else(|| (format!("{path}.samples.data[{i}]"), "a time in ms".into(), "none".into()))?;
        if times.last().is_some_and(|&last| time < last) {
            return Err((
                format!("{path}.samples.data[{i}]"),
                "samples in time order".into(),
                format!("a time of {time} ms after one of {} ms", times[i - 1]),
            ));
        }
        times.push(time);
    }
    Ok(times)
}

/// A JS function's frame, as speedscope's importer parses a location.
#[derive(Debug, PartialEq)]
struct JsFrame<'a> {
    name: &'a str,
    file: &'a str,
    line: Option<u32>,
    /// 0-based, as Gecko writes it.
    column: Option<u32>,
}

/// The parts of `name (file:line:column)` (line and column optional) where `location` is one, as
/// speedscope's pattern `(.*)\s+\((.*?)(?::(\d+))?(?::(\d+))?\)$` takes it: the name is everything
/// before the last white space followed by `(`. The source index newer versions put after it
/// (`[12]`) is left out. A native function's `name (in library)` is not one.
fn js_frame(location: &str) -> Option<JsFrame<'_>> {
    // From Gecko profile version 32 a JS location ends in its source's index, `[12]`.
    let location = match location.strip_suffix(']').and_then(|rest| rest.rsplit_once('[')) {
        Some((rest, index)) if crate::text::is_digits(index) => rest,
        _ => location,
    };
    let Some(inner_end) = location.strip_suffix(')') else {
        // A script's own code (its first run) is its place alone, `file:line[:column]`.
        let (file, line, column) = place(location);
        return (!file.is_empty() && line.is_some()).then_some(JsFrame { name: "", file, line, column });
    };
    let open = inner_end
        .char_indices()
        .rev()
        .filter(|&(i, c)| c == '(' && inner_end[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i)
        .next()?;
    let before = &inner_end[..open];
    let space = before.char_indices().next_back().map_or(0, |(i, _)| i);
    let name = &before[..space];
    let (file, line, column) = place(&inner_end[open + 1..]);
    if file.starts_with("in ") && line.is_none() {
        return None;
    }
    Some(JsFrame { name, file, line, column })
}

/// The file, line and column of `file[:line[:column]]`.
fn place(text: &str) -> (&str, Option<u32>, Option<u32>) {
    let mut file = text;
    let mut numbers = Vec::new();
    while numbers.len() < 2 {
        let Some((rest, last)) = file.rsplit_once(':') else { break };
        match crate::text::is_digits(last).then(|| last.parse::<u32>().ok()).flatten() {
            Some(n) => {
                numbers.insert(0, n);
                file = rest;
            }
            None => break,
        }
    }
    (file, numbers.first().copied(), numbers.get(1).copied())
}

/// The model's frame of a frame table's location (see the module documentation).
fn frame_of(profile: &mut Profile, location: &str, process: &Process) -> FrameId {
    if let Some(js) = js_frame(location) {
        return js_function(profile, &js);
    }
    let (name, module) = match native_function(location) {
        Some((name, library)) => (name, Some(library)),
        None => match address_library(location, &process.libs) {
            Some(library) => (location, Some(library)),
            // Before version 14 a JS entry point's label is `AutoEntryScript reason`, which the
            // profiler's upgrade names `reason`.
            None if process.version < 14 => (location.strip_prefix("AutoEntryScript ").unwrap_or(location), None),
            None => (location, None),
        },
    };
    profile.frames.intern(FrameRef { module, ..FrameRef::function(name) })
}

/// The name and library of a native function's location, `name (in library)` with what the
/// profiler allows after it (` + 1234`, ` (file:line)`).
fn native_function(location: &str) -> Option<(&str, &str)> {
    let (name, rest) = location.split_once(" (in ")?;
    let (library, after) = rest.split_once(')')?;
    let after_allowed = after.is_empty()
        || after.strip_prefix(" + ").is_some_and(crate::text::is_digits)
        || (after.starts_with(" (") && after.ends_with(')') && after.contains(':'));
    after_allowed.then_some((name, library))
}

/// The name of the library in whose range `location` is, where it is an address (`0x…`).
fn address_library<'l>(location: &str, libs: &'l [Lib]) -> Option<&'l str> {
    let address = u64::from_str_radix(location.strip_prefix("0x")?, 16).ok()? as f64;
    libs.iter().find(|lib| lib.start <= address && address < lib.end).map(|lib| lib.name.as_str())
}

/// The model's frame of a JS function (see the module documentation).
fn js_function(profile: &mut Profile, js: &JsFrame) -> FrameId {
    let module = (!js.file.is_empty()).then_some(js.file);
    let root_scope;
    let name = match js.name {
        "" => {
            root_scope = format!("(root scope) {}", js.file);
            &root_scope
        }
        name => name,
    };
    let id = profile.frames.intern(FrameRef { module, ..FrameRef::function(name) });
    if let (Some(file), Some(line)) = (module, js.line) {
        let attrs = profile.frame_attrs.entry(id).or_default();
        if attrs.is_empty() {
            let at = match js.column {
                Some(column) => format!("{file}:{line}:{}", u64::from(column) + 1),
                None => format!("{file}:{line}"),
            };
            attrs.push((DEFINED_AT.to_string(), at));
        }
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved recording and a bare Gecko profile are told apart from the processed profile.
    #[test]
    fn a_recording_and_a_gecko_profile_are_told_by_their_first_keys() {
        assert_eq!(check(br#"{"label":"","duration":74.1,"markers":[]}"#), Ok(()));
        assert_eq!(check(br#"{"meta":{"version":9,"stackwalk":0},"threads":[]}"#), Ok(()));
        assert!(check(br#"{"meta":{"version":24,"stackwalk":0,"preprocessedProfileVersion":55}}"#).is_err());
        assert!(check(br#"{"label":"x","nodes":[]}"#).is_err());
    }

    /// Locations are split as speedscope's pattern splits them; a native function's is not one.
    #[test]
    fn locations_are_split_as_speedscope_splits_them() {
        let js = |name, file, line, column| Some(JsFrame { name, file, line, column });
        assert_eq!(js_frame("a (https://x.org/s.js:1:10)"), js("a", "https://x.org/s.js", Some(1), Some(10)));
        assert_eq!(js_frame("a b (http://x:80/s.js:7)"), js("a b", "http://x:80/s.js", Some(7), None));
        assert_eq!(js_frame("f (s.js)"), js("f", "s.js", None, None));
        assert_eq!(js_frame("g (self-hosted:12:3)"), js("g", "self-hosted", Some(12), Some(3)));
        assert_eq!(js_frame("h (resource://gre/x.jsm:1:1)"), js("h", "resource://gre/x.jsm", Some(1), Some(1)));
        assert_eq!(js_frame("free (in libc.so.6)"), None);
        assert_eq!(js_frame("http://x:8000/s.js:1:0"), js("", "http://x:8000/s.js", Some(1), Some(0)));
        assert_eq!(js_frame("Startup::XRE_Main"), None);
        assert_eq!(js_frame("nsRefreshDriver::Tick"), None);
        assert_eq!(js_frame("(root)"), None);
        assert_eq!(js_frame("0x1234"), None);
        assert_eq!(js_frame("a (https://x.org/s.js:1:10)[7]"), js("a", "https://x.org/s.js", Some(1), Some(10)));
    }

    /// Native functions and addresses are named as the profiler names them, with their libraries.
    #[test]
    fn native_frames_keep_their_libraries() {
        assert_eq!(native_function("free (in libc.so.6)"), Some(("free", "libc.so.6")));
        assert_eq!(native_function("f (in XUL) + 1234"), Some(("f", "XUL")));
        assert_eq!(native_function("f (in XUL) (a.cpp:12)"), Some(("f", "XUL")));
        assert_eq!(native_function("f (in XUL) junk"), None);
        let libs = [Lib { start: 4096.0, end: 8192.0, name: "firefox".into() }];
        assert_eq!(address_library("0x1000", &libs), Some("firefox"));
        assert_eq!(address_library("0x2000", &libs), None);
        assert_eq!(address_library("nsRefreshDriver::Tick", &libs), None);
    }
}
