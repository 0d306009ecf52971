//! Reading a processed profile of versions 0 to 70: its tables, where each version has them (those
//! below 41 upgraded first, `upgrade.rs`).

use super::document::{
    Document, FrameTable, FuncTable, Length, ResourceTable, Samples, Sources, StackTable, Tables, Thread,
};
use super::symbols::Naming;
use super::{Category, CATEGORY, DEFAULT_CATEGORY, EXPECTED, FORMAT, READ_VERSIONS, UPGRADED_FROM, WRITTEN_VERSION};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind};
use crate::formats::json;
use crate::formats::kit::time::whole_nanoseconds;
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Sampling, TimedSample,
    Timeline, Unit, Value, DEFINED_AT,
};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// A place (a JSON path), what was expected there and what was found.
type Misplaced = (String, String, String);

/// The timeline of `samples`: starting where the first thread with samples starts (`meta.startTime`,
/// `start_ns`, is only its clock's zero: samply's threads start hours after it, at the time since
/// boot) and ending where the last thread does (else at the first and last samples).
fn timeline(samples: Vec<TimedSample>, threads: &[Thread], start_ns: i64) -> Option<Timeline> {
    let at = |ms: Option<f64>| ms.and_then(|ms| whole_nanoseconds(ms, 1e6)).map(|ns| start_ns.saturating_add(ns));
    let sampled = threads.iter().filter(|t| t.samples.length > 0);
    let begin = sampled.filter_map(|t| at(t.register_time)).min();
    let end = threads.iter().filter_map(|t| at(t.unregister_time.or(t.process_shutdown_time))).max();
    let first = samples.iter().map(|s| s.time).min()?;
    Timeline::new(samples, end.map(|end| (begin.map_or(first, |begin| begin.min(first)), end)))
}

/// Reads a processed profile (see the module documentation).
pub(super) fn read(
    input: &mut (dyn Read + Send),
    path: Option<&Path>,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
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
    // A file that states no version is of version 0, as the profiler takes it.
    let version = versioned.meta.preprocessed_profile_version.unwrap_or(0);
    if !READ_VERSIONS.contains(&version) {
        let (low, high) = (READ_VERSIONS.start(), READ_VERSIONS.end());
        let expected = format!(
            "meta.preprocessedProfileVersion {low} to {high}, the versions proftool reads (it writes {})",
            WRITTEN_VERSION.0
        );
        let at = json::nth_key(text.as_bytes(), "\"preprocessedProfileVersion\"", 0);
        return Err(error_at(at, expected, format!("version {version}")));
    }
    let mut document: Document =
        serde_json::from_str(text).map_err(|e| json::serde_error(FORMAT, text, &e, EXPECTED))?;
    if version < UPGRADED_FROM {
        super::upgrade::upgrade(&mut document.threads, version);
    }
    let naming = Naming::beside(path, &document.libs, diag);
    let mut reader = Reader {
        profile: Profile::new(Vec::new()),
        metrics: HashMap::new(),
        index: ChildIndex::default(),
        shared_frames: Vec::new(),
        stackless: 0,
        timeline: Some(Vec::new()),
        start_ns: 0,
    };
    let meta = &document.meta;
    reader.profile.meta.title = meta.product.clone().filter(|p| !p.is_empty());
    let interval = meta.interval.filter(|&i| i.is_finite() && i > 0.0 && i < 1e12);
    reader.profile.meta.interval = interval.map(|ms| std::time::Duration::from_nanos((ms * 1e6).round() as u64));
    match meta.start_time.map_or(Some(0), |ms| whole_nanoseconds(ms, 1e6)) {
        Some(start) => reader.start_ns = start,
        None => reader.timeline = None,
    }
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
        reader.thread(thread, &document.shared, &name, (&meta.categories, &naming), i).map_err(
            |(place, expected, found)| {
                // The place's table in the text: this thread's, where each thread has one, else the
                // shared one.
                let (table, n) = match place.strip_prefix("shared.") {
                    Some(shared) => (shared, 0),
                    None => (place.split('.').nth(1).unwrap_or("threads"), i),
                };
                let table = table.split(['.', '[']).next().unwrap_or(table);
                let at = json::nth_key(text.as_bytes(), &format!("\"{table}\""), n);
                error_at(at, format!("{expected} at {place}"), found)
            },
        )?;
    }
    unread(&document.threads, diag);
    naming.say(path, diag);
    let start_ns = reader.start_ns;
    reader.profile.timeline = reader.timeline.and_then(|samples| timeline(samples, &document.threads, start_ns));
    if reader.stackless > 0 {
        let n = reader.stackless;
        diag.warn("firefox-no-stack", None, || {
            format!("firefox: {n} samples with no stack left out, as the profiler's call tree leaves them out")
        });
    }
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
    /// Samples with no stack, left out.
    stackless: usize,
    /// Each sample's time (ns) and node, while every sample read has a time.
    timeline: Option<Vec<TimedSample>>,
    /// `meta.startTime` in ns.
    start_ns: i64,
}

/// Each sample's time (ms from `meta.startTime`): its `time`, or its `timeDeltas` added up;
/// `None` where a sample has none.
fn sample_times(samples: &Samples) -> Option<Vec<f64>> {
    let times: Option<Vec<f64>> = match (&samples.time, &samples.time_deltas) {
        (Some(time), _) => time.iter().copied().collect(),
        (None, Some(deltas)) => deltas
            .iter()
            .scan(0.0, |at, delta| {
                *at += (*delta)?;
                Some(Some(*at))
            })
            .collect(),
        (None, None) => None,
    };
    times.filter(|t| t.len() >= samples.length)
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
        (categories, naming): (&[Category], &Naming),
        t: usize,
    ) -> Result<(), Misplaced> {
        let place = format!("threads[{t}]");
        let own = &thread.tables;
        let stacks = pick(&own.stack_table, &shared.stack_table, &place, "stackTable")?;
        let frames = pick(&own.frame_table, &shared.frame_table, &place, "frameTable")?;
        let funcs = pick(&own.func_table, &shared.func_table, &place, "funcTable")?;
        let strings = pick(&own.string_array, &shared.string_array, &place, "stringArray")?;
        let resources = own.resource_table.as_ref().or(shared.resource_table.as_ref());
        let sources = own.sources.as_ref().or(shared.sources.as_ref());
        columns_are_whole((&stacks, &frames, &funcs), &thread.samples, &place)?;
        let samples = &thread.samples;
        let metric = self.metric(samples.weight_type.as_deref().unwrap_or("samples"), &place)?;
        let is_shared = frames.place.starts_with("shared.");
        if is_shared && self.shared_frames.len() != frames.table.length {
            self.shared_frames = vec![None; frames.table.length];
        }
        let mut own_frames = if is_shared { Vec::new() } else { vec![None; frames.table.length] };
        let tables =
            ReadTables { frames: &frames, funcs: &funcs, strings: &strings, resources, sources, categories, naming };
        let root_frame = self.profile.frames.intern(FrameRef::named(name, FrameKind::Thread));
        let root = self.index.child_or_insert(&mut self.profile.tree, None, root_frame);
        let times = sample_times(samples);
        if times.is_none() {
            self.timeline = None;
        }
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
            // A sample with no stack is in none of the profiler's call trees.
            let Some(stack) = stack else {
                self.stackless += 1;
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
                let weight = self.add(metric, caller, samples, i);
                self.add_to_timeline(times.as_deref(), i, caller, weight);
            }
        }
        Ok(())
    }

    /// Adds sample `i`'s weight to `node`; what it weighs on the timeline: a count of samples its
    /// weight, any other weight 1 (the sample's time is its weight there).
    fn add(&mut self, metric: usize, node: NodeId, samples: &Samples, i: usize) -> u32 {
        let weight = samples.weight.as_ref().map_or(Some(1.0), |w| w[i]).unwrap_or(1.0);
        let value = match self.profile.metrics()[metric].repr {
            Repr::Int => Value::Int(weight.round() as i64),
            Repr::Float => Value::Float(weight),
        };
        self.profile.tree.add_self(metric, node, value);
        match self.profile.metrics()[metric].kind {
            MetricKind::Samples => weight.clamp(0.0, f64::from(u32::MAX)).round() as u32,
            _ => u32::from(weight != 0.0),
        }
    }

    /// Puts sample `i` of node `node` on the timeline at its time, where it has one (else the
    /// profile has no timeline).
    fn add_to_timeline(&mut self, times: Option<&[f64]>, i: usize, node: NodeId, weight: u32) {
        let Some(timeline) = &mut self.timeline else { return };
        match times.and_then(|t| whole_nanoseconds(t[i], 1e6)) {
            Some(time) if weight > 0 => timeline.push(TimedSample { time: self.start_ns.saturating_add(time), node, weight }),
            Some(_) => {}
            None => self.timeline = None,
        }
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
/// The table `key` of a thread: its own (at `place`), else `shared`'s.
fn pick<'a, T>(own: &'a Option<T>, shared: &'a Option<T>, place: &str, key: &str) -> Result<Found<'a, T>, Misplaced> {
    match (own, shared) {
        (Some(table), _) => Ok(Found { table, place: format!("{place}.{key}") }),
        (None, Some(table)) => Ok(Found { table, place: format!("shared.{key}") }),
        (None, None) => Err((format!("{place}.{key}"), format!("a {key}, the thread's or shared's"), "none".into())),
    }
}

/// Whether each column read of the tables and of thread `place`'s samples holds as many entries as
/// its table's length says; if not, the first short one.
fn columns_are_whole(
    (stacks, frames, funcs): (&Found<StackTable>, &Found<FrameTable>, &Found<FuncTable>),
    samples: &Samples,
    place: &str,
) -> Result<(), Misplaced> {
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
    short(&format!("{place}.samples"), "stack", samples.stack.len(), samples.length)?;
    if let Some(weights) = &samples.weight {
        short(&format!("{place}.samples"), "weight", weights.len(), samples.length)?;
    }
    Ok(())
}

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
    naming: &'a Naming,
}

impl ReadTables<'_> {
    fn string(&self, index: u64, at: String) -> Result<&str, Misplaced> {
        let strings = self.strings.table;
        strings
            .get(usize::try_from(index).unwrap_or(usize::MAX))
            .map(String::as_str)
            .ok_or_else(|| (at, "an index into stringArray".into(), format!("{index}, of {} strings", strings.len())))
    }

    /// The function samply's symbols name at native frame `i`'s address in its library.
    fn symbol(&self, i: usize, resource: Option<usize>) -> Option<&str> {
        let lib = resource
            .and_then(|r| self.resources?.lib.get(r).copied().flatten())
            .and_then(|lib| usize::try_from(lib).ok());
        let address = self.frames.table.address.get(i).copied().flatten().and_then(|a| u64::try_from(a).ok());
        self.naming.name(lib, address)
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
        let resource_name =
            |r: usize| self.resources?.name.get(r).copied().flatten().and_then(|s| u64::try_from(s).ok());
        let library = match resource.and_then(|r| Some((r, resource_name(r)?))) {
            Some((r, s)) => Some(self.string(s, format!("resourceTable.name[{r}]"))?),
            None => None,
        };
        let module = file.or(library).filter(|m| !m.is_empty());
        // An address is named by samply's symbols where they name it, else with its library, as
        // the profiler shows it unsymbolicated.
        let address = (file.is_none() && is_address(name)).then(|| self.symbol(i, resource));
        let addressed = match (address, module) {
            (Some(Some(symbol)), _) => std::borrow::Cow::Borrowed(symbol),
            (Some(None), Some(library)) => format!("{library}!{name}").into(),
            _ => std::borrow::Cow::Borrowed(name),
        };
        let line = frames.line.get(i).copied().flatten();
        let frame = FrameRef {
            module,
            line,
            clause: line.and(frames.column.get(i).copied().flatten()),
            kind: if line.is_some() { FrameKind::Line } else { FrameKind::Function },
            ..FrameRef::function(&addressed)
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

/// Whether a function's name is an address (`0x1a49b`), as samply names what it did not symbolicate.
fn is_address(name: &str) -> bool {
    name.strip_prefix("0x").is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    /// A processed profile is told by its meta and version; a Gecko profile (no
    /// preprocessedProfileVersion, threads of a stringTable) and other JSON are not taken for one;
    /// keys sorted (`meta` after `libs`) and version 0 (no version, threads of a stringArray) are.
    #[test]
    fn a_processed_profile_is_told_by_its_meta_and_version() {
        assert_eq!(check(br#"{"meta":{"interval":1,"preprocessedProfileVersion":49},"threads":[]}"#), Ok(()));
        assert!(check(br#"{"meta":{"version":24,"stackwalk":0},"threads":[{"stringTable":[]}]}"#).is_err());
        assert_eq!(check(br#"{"libs":[],"meta":{"preprocessedProfileVersion":55},"threads":[]}"#), Ok(()));
        assert_eq!(check(br#"{"meta":{"version":3,"stackwalk":1},"threads":[{"stringArray":[]}]}"#), Ok(()));
        assert!(check(br#"{"preprocessedProfileVersion":55}"#).is_err());
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
            read(&mut text.as_bytes(), None, &mut Diagnostics::default()).map(|p| p.total(0)).map_err(|e| e.to_string())
        };
        assert_eq!(read_text(r#"{"length":2,"prefixOffset":[0,1],"frame":[0,0]}"#), Ok(Value::Int(1)));
        let offset = read_text(r#"{"length":2,"prefixOffset":[0,2],"frame":[0,0]}"#).unwrap_err();
        assert!(offset.contains("the caller's stack, an earlier one at shared.stackTable.prefixOffset[1]"), "{offset}");
        let prefix = read_text(r#"{"length":2,"prefix":[null,1],"frame":[0,0]}"#).unwrap_err();
        assert!(prefix.contains("at shared.stackTable.prefix[1], found 1"), "{prefix}");
    }
}
