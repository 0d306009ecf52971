//! The speedscope reader (the rules are in the module comment of [`super`]).

use super::FORMAT;
use crate::diag::Diagnostics;
use crate::formats::ReadOptions;
use crate::formats::kit::time::whole_nanoseconds;
use crate::error::{ParseError, ParseErrorKind};
use crate::formats::json;
use crate::formats::kit::source_frame::{Anonymous, SourceFrame};
use crate::formats::shared::{time_unit, unique_name, weigh_by};
use crate::formats::stacks::StackTree;
use crate::model::{
    FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Sampling, Slice, TimedSample, Timeline,
    Unit, Value,
};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;
use std::io::Read;

/// What a speedscope file should be, for serde's errors.
const EXPECTED: &str = "JSON in speedscope's file format";

#[derive(Deserialize)]
struct Document<'a> {
    name: Option<String>,
    exporter: Option<String>,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: Option<usize>,
    shared: Shared,
    #[serde(borrow)]
    profiles: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Shared {
    frames: Vec<FrameJson>,
}

#[derive(Deserialize)]
struct FrameJson {
    name: String,
    file: Option<String>,
    line: Option<u32>,
    col: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfileJson {
    #[serde(rename = "type")]
    kind: String,
    name: Option<String>,
    /// The metric a profile of a file proftool wrote holds (files written before 2026-11-27 name it
    /// by the profile's name).
    metric: Option<String>,
    /// The thread whose stacks a profile of a file proftool wrote holds, if any.
    thread: Option<String>,
    unit: String,
    #[serde(default)]
    start_value: f64,
    end_value: Option<f64>,
    /// Whether a sampled profile of a file proftool wrote holds its samples in the order they were
    /// taken (else in its tree's order); other programs' (py-spy's, speedscope's) always do.
    in_time_order: Option<bool>,
    samples: Option<FlatStacks>,
    weights: Option<Vec<f64>>,
    events: Option<Vec<EventJson>>,
}

#[derive(Deserialize)]
struct EventJson {
    #[serde(rename = "type")]
    kind: String,
    at: f64,
    frame: u32,
}

/// The stacks of a sampled profile, flat: every stack's frame indices one after another, and where
/// each stack ends (a vector per stack takes several times the memory of a large file).
#[derive(Default)]
struct FlatStacks {
    frames: Vec<u32>,
    ends: Vec<usize>,
}

impl FlatStacks {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// The stacks, in order.
    fn iter(&self) -> impl Iterator<Item = &[u32]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.frames[start..end])
    }
}

impl<'de> Deserialize<'de> for FlatStacks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FlatStacks, D::Error> {
        deserializer.deserialize_seq(StacksVisitor)
    }
}

/// Reads `samples`, an array of stacks, into [`FlatStacks`].
struct StacksVisitor;

impl<'de> Visitor<'de> for StacksVisitor {
    type Value = FlatStacks;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of stacks (arrays of frame indices)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut stacks: A) -> Result<FlatStacks, A::Error> {
        let mut flat = FlatStacks::default();
        while stacks.next_element_seed(stack(&mut flat.frames))?.is_some() {
            flat.ends.push(flat.frames.len());
        }
        Ok(flat)
    }
}

/// Reads one stack's frame indices onto `frames`.
fn stack(frames: &mut Vec<u32>) -> json::Each<u32, impl FnMut(u32) -> Result<(), String> + '_> {
    json::Each::new("a stack (an array of frame indices)", |frame| {
        frames.push(frame);
        Ok(())
    })
}

/// One profile of the file: where it starts, its path, what it holds.
struct Part {
    offset: usize,
    index: usize,
    json: ProfileJson,
}

/// Reads a speedscope file.
pub(crate) fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document<'_> = json::parse(FORMAT, text, EXPECTED)?;
    let parts = document
        .profiles
        .iter()
        .enumerate()
        .map(|(index, raw)| {
            // Where the profile starts in the input: RawValue borrows from it.
            let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let json = serde_json::from_str(raw.get()).map_err(|e| {
                let inner = json::serde_error(FORMAT, raw.get(), &e, EXPECTED);
                json::error_at(FORMAT, text.as_bytes(), offset + inner.position.byte as usize, inner.kind)
            })?;
            Ok(Part { offset, index, json })
        })
        .collect::<Result<Vec<Part>, ParseError>>()?;
    let own = document.exporter.as_deref().is_some_and(|e| e.starts_with("proftool "));
    let n_frames = document.shared.frames.len();
    let reader = Reader { text, parts: &parts, own, n_frames };
    let (mut profile, metric_of) = reader.profile(diag)?;
    profile.meta.title = document.name;
    if let Some(&active) = document.active_profile_index.and_then(|i| metric_of.get(i)) {
        weigh_by(&mut profile, active);
    }
    let frames = frames(&mut profile, &document.shared.frames);
    reader.fill(&mut profile, &frames, &metric_of)?;
    Ok(profile)
}

/// The model's frames of `shared.frames`, by index.
fn frames(profile: &mut Profile, frames: &[FrameJson]) -> Vec<FrameId> {
    frames
        .iter()
        .map(|f| {
            let file = f.file.as_deref().filter(|file| !file.is_empty());
            match (file, f.line, f.col) {
                (Some(file), Some(line), Some(col)) => {
                    // Two functions of one name defined in two files (two scripts' `(anonymous)`)
                    // stay two: the file is their module too.
                    let (line, column) = (Some(line.into()), Some(col.into()));
                    SourceFrame { name: &f.name, file: Some(file), line, column }.intern(profile, Anonymous::AsWritten)
                }
                (_, Some(line), _) => profile.frames.intern(FrameRef {
                    module: file,
                    line: Some(line),
                    kind: FrameKind::Line,
                    ..FrameRef::function(&f.name)
                }),
                (_, None, _) => profile.frames.intern(FrameRef { module: file, ..FrameRef::function(&f.name) }),
            }
        })
        .collect()
}

/// What a profile gives, in order: a sampled profile its stacks, an evented one its events.
enum Step<'s> {
    /// A sampled stack's frame indices, root first, and its weight.
    Stack(&'s [u32], f64),
    /// An evented profile's frame opened, called by the innermost one open, and when (`at`).
    Open(u32, f64),
    /// The innermost open frame closed, and when.
    Close(f64),
    /// The time from one event to the next, with frames open: the innermost one's.
    Time(f64),
}

/// What noise `metric`, of the profiles `parts`, has (docs/gate.md): an evented profile's times
/// are measured; a sampled profile's counts are samples; a sampled profile's time where every
/// sample weighs one period (py-spy's seconds at its rate) is samples of that period; other weights
/// are not known to be sampled.
fn sampling(metric: &Metric, parts: Vec<&Part>) -> Sampling {
    if parts.iter().any(|part| part.json.kind != "sampled") {
        return Sampling::Measured;
    }
    if metric.unit == Unit::Count {
        return Sampling::of_kind(metric.kind);
    }
    let mut weights = parts.iter().flat_map(|part| part.json.weights.iter().flatten());
    let Some(&first) = weights.next() else { return Sampling::Unstated };
    let nanos = time_unit(&parts[0].json.unit).and_then(|(unit, scale)| Some(first * scale as f64 * unit.nanos()?));
    match nanos.filter(|&n| n >= 1.0) {
        Some(per) if weights.all(|&w| w == first) => Sampling::Sampled { of: None, per: per.round() as u64 },
        _ => Sampling::Unstated,
    }
}

struct Reader<'a> {
    text: &'a str,
    parts: &'a [Part],
    /// Whether proftool wrote the file: its profiles are metrics of one set of stacks.
    own: bool,
    /// How many frames `shared.frames` declares.
    n_frames: usize,
}

impl Reader<'_> {
    /// An error at the start of profile `part`: what was expected, what was found where (a JSON path).
    fn error(&self, part: &Part, expected: String, found: String) -> ParseError {
        json::error_at(FORMAT, self.text.as_bytes(), part.offset, ParseErrorKind::Unexpected { expected, found })
    }

    /// An error unless `frame` (at `path`) is an index of `shared.frames`.
    fn check_frame(&self, part: &Part, frame: u32, path: impl FnOnce() -> String) -> Result<(), ParseError> {
        if usize::try_from(frame).is_ok_and(|f| f < self.n_frames) {
            return Ok(());
        }
        Err(self.error(
            part,
            format!("frame indices below {} (shared.frames)", self.n_frames),
            format!("{frame} at {}", path()),
        ))
    }

    /// The profile with its metrics declared, and the metric of each part: one per profile of a file
    /// proftool wrote (named after it), else one per unit; integers where every value is whole.
    fn profile(&self, diag: &mut Diagnostics) -> Result<(Profile, Vec<usize>), ParseError> {
        let mut metrics: Vec<Metric> = Vec::new();
        let mut metric_of: Vec<usize> = Vec::new();
        let mut keys: Vec<&str> = Vec::new();
        let mut unknown: Vec<&str> = Vec::new();
        for part in self.parts {
            let unit = part.json.unit.as_str();
            let key = match self.own {
                true => part.json.metric.as_deref().or(part.json.name.as_deref()).unwrap_or(unit),
                false => unit,
            };
            let whole = self.is_whole(part)?;
            if let Some(existing) = keys.iter().position(|&k| k == key) {
                if !whole {
                    metrics[existing].repr = Repr::Float;
                }
                metric_of.push(existing);
                continue;
            }
            let (kind, model_unit) = match (unit, time_unit(unit)) {
                (_, Some((time, _))) => (MetricKind::Time, time),
                // proftool names its counts after their metric; other writers' (py-spy's) are samples.
                ("none", _) if self.own => (MetricKind::of_count(key), Unit::Count),
                ("none", _) => (MetricKind::Samples, Unit::Count),
                ("bytes", _) => (MetricKind::Alloc, Unit::Bytes),
                (other, _) => {
                    unknown.push(other);
                    (MetricKind::Events, Unit::Count)
                }
            };
            let name = if self.own { key.to_string() } else { default_name(kind, unit) };
            let name = unique_name(name, |n| metrics.iter().any(|m| m.name == n));
            let repr = if whole { Repr::Int } else { Repr::Float };
            metrics.push(Metric::new(name, kind, model_unit, repr));
            metric_of.push(keys.len());
            keys.push(key);
        }
        if !unknown.is_empty() {
            diag.warn("speedscope-unit", None, || {
                format!(
                    "profiles of units speedscope does not define, read as counts of events named by the unit: {}",
                    unknown.join(", ")
                )
            });
        }
        for (m, metric) in metrics.iter_mut().enumerate() {
            let parts = self.parts.iter().zip(&metric_of).filter(|(_, &of)| of == m).map(|(part, _)| part);
            metric.sampling = sampling(metric, parts.collect());
        }
        Ok((Profile::new(metrics), metric_of))
    }

    /// Whether every value `part` gives is a whole number (its weights, or its events' times).
    fn is_whole(&self, part: &Part) -> Result<bool, ParseError> {
        let whole = |v: f64| v.fract() == 0.0 && v.abs() < 2f64.powi(53);
        let scale = time_unit(&part.json.unit).map_or(1.0, |(_, scale)| scale as f64);
        let mut all = true;
        self.visit(part, &mut |step| {
            if let Step::Stack(_, weight) | Step::Time(weight) = step {
                all &= whole(weight * scale);
            }
            Ok(())
        })?;
        Ok(all)
    }

    /// Calls `f` with every step of `part` (its stacks and their weights, or its events), checking
    /// the profile's shape.
    fn visit(&self, part: &Part, f: &mut dyn FnMut(Step<'_>) -> Result<(), ParseError>) -> Result<(), ParseError> {
        let i = part.index;
        match part.json.kind.as_str() {
            "sampled" => {
                let (Some(samples), Some(weights)) = (&part.json.samples, &part.json.weights) else {
                    return Err(self.error(part, "samples and weights".into(), format!("neither at profiles[{i}]")));
                };
                if samples.len() != weights.len() {
                    return Err(self.error(
                        part,
                        format!("as many weights as samples ({})", samples.len()),
                        format!("{} at profiles[{i}].weights", weights.len()),
                    ));
                }
                for (j, (stack, &weight)) in samples.iter().zip(weights).enumerate() {
                    for (k, &frame) in stack.iter().enumerate() {
                        self.check_frame(part, frame, || format!("profiles[{i}].samples[{j}][{k}]"))?;
                    }
                    if weight < 0.0 {
                        let found = format!("{weight} at profiles[{i}].weights[{j}]");
                        return Err(self.error(part, "weights of 0 or more".into(), found));
                    }
                    f(Step::Stack(stack, weight))?;
                }
                Ok(())
            }
            "evented" => self.visit_events(part, f),
            other => Err(self.error(
                part,
                "a profile of type \"sampled\" or \"evented\"".into(),
                format!("{other:?} at profiles[{i}].type"),
            )),
        }
    }

    /// The events of an evented profile: between two events, the open frames are a stack that gets
    /// the time from one to the next. Each event is a step, so that a stack is never handed whole
    /// (which would make the profile's nesting quadratic).
    fn visit_events(
        &self,
        part: &Part,
        f: &mut dyn FnMut(Step<'_>) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        let i = part.index;
        let Some(events) = &part.json.events else {
            return Err(self.error(part, "events".into(), format!("none at profiles[{i}]")));
        };
        let mut open: Vec<u32> = Vec::new();
        let mut last = part.json.start_value;
        for (j, event) in events.iter().enumerate() {
            if event.at < last {
                let found = format!("at {} after {last} at profiles[{i}].events[{j}]", event.at);
                return Err(self.error(part, "events in time order".into(), found));
            }
            if !open.is_empty() && event.at > last {
                f(Step::Time(event.at - last))?;
            }
            last = event.at;
            match event.kind.as_str() {
                "O" => {
                    self.check_frame(part, event.frame, || format!("profiles[{i}].events[{j}].frame"))?;
                    open.push(event.frame);
                    f(Step::Open(event.frame, event.at))?;
                }
                "C" if open.last() == Some(&event.frame) => {
                    open.pop();
                    f(Step::Close(event.at))?;
                }
                "C" => {
                    let innermost = open.last().map_or("no frame open".into(), |top| format!("frame {top} open"));
                    return Err(self.error(
                        part,
                        format!("a close event of the innermost open frame ({innermost})"),
                        format!("frame {} closed at profiles[{i}].events[{j}]", event.frame),
                    ));
                }
                other => {
                    let found = format!("{other:?} at profiles[{i}].events[{j}].type");
                    return Err(self.error(part, "an event of type \"O\" or \"C\"".into(), found));
                }
            }
        }
        if !open.is_empty() {
            let found = format!("frames {open:?} still open at the end of profiles[{i}].events");
            return Err(self.error(part, "a close event for every open event".into(), found));
        }
        Ok(())
    }

    /// Adds every profile's stacks to the tree: under a thread named after the profile, or where
    /// proftool wrote the file, under the thread it names, if any; and their times to the timeline.
    fn fill(&self, profile: &mut Profile, frames: &[FrameId], metric_of: &[usize]) -> Result<(), ParseError> {
        let mut tree = StackTree::default();
        let mut times = Times { slices: Some(Vec::new()), samples: Some(Vec::new()), open: Vec::new(), span: None };
        let timed_metric = profile.metric_of_kind(MetricKind::Time);
        // The profiles in time order last: the tree's nodes are made in the order of the others'
        // stacks (a tree's, in a file proftool wrote), as they were written.
        let mut order: Vec<(&Part, usize, Clock)> = (self.parts.iter().zip(metric_of))
            .map(|(part, &metric)| (part, metric, Clock::of(part, (metric, timed_metric), self.own)))
            .collect();
        order.sort_by_key(|(_, _, clock)| clock.sampled);
        for (part, metric, clock) in order {
            let scale = time_unit(&part.json.unit).map_or(1.0, |(_, scale)| scale as f64);
            let thread = match self.own {
                true => part.json.thread.clone(),
                false => Some(part.json.name.clone().unwrap_or_else(|| format!("profile {}", part.index))),
            };
            let thread = thread.map(|name| profile.frames.intern(FrameRef::named(&name, FrameKind::Thread)));
            // The thread's node, though the profile may have no stacks.
            tree.next().extend(thread);
            tree.add(&mut profile.tree);
            let i = part.index;
            let repr = profile.metrics()[metric].repr;
            let value = |weight: f64| match repr {
                Repr::Int => Value::Int((weight * scale) as i64),
                Repr::Float => Value::Float(weight * scale),
            };
            let mut elapsed = part.json.start_value;
            times.span(&clock, part);
            self.visit(part, &mut |step| {
                let (node, weight) = match step {
                    Step::Stack(stack, weight) => {
                        let path = tree.next();
                        path.extend(thread);
                        // Every index is one of shared.frames: visit checks them.
                        path.extend(stack.iter().filter_map(|&f| frames.get(usize::try_from(f).ok()?)));
                        let node = match tree.add(&mut profile.tree) {
                            Some(node) => node,
                            None if weight == 0.0 => return Ok(()),
                            None => {
                                let found = format!("an empty one at profiles[{i}]");
                                return Err(self.error(part, "a stack for every weight".into(), found));
                            }
                        };
                        times.sample(&clock, node, (elapsed, weight));
                        elapsed += weight;
                        (node, weight)
                    }
                    Step::Open(frame, when) => {
                        // Every index is one of shared.frames: visit checks them.
                        if let Some(&frame) = frames.get(frame as usize) {
                            times.open(&clock, tree.open(&mut profile.tree, frame), when);
                        }
                        return Ok(());
                    }
                    Step::Close(when) => {
                        tree.close();
                        times.close(&clock, when);
                        return Ok(());
                    }
                    // Only while a frame is open, so never the thread's node.
                    Step::Time(weight) => match tree.innermost() {
                        Some(node) => (node, weight),
                        None => return Ok(()),
                    },
                };
                profile.tree.add_self(metric, node, value(weight));
                Ok(())
            })?;
        }
        profile.timeline = times.timeline();
        Ok(())
    }
}

/// A profile's times in ns: where its unit is one of time, each time, and where it is a sampled
/// profile of the first metric of time, its samples' (speedscope's time order: `startValue` plus
/// the weights before each), each standing for its weight in ns.
struct Clock {
    nanos: Option<f64>,
    sampled: bool,
}

impl Clock {
    fn of(part: &Part, (metric, timed_metric): (usize, Option<usize>), own: bool) -> Clock {
        let nanos = time_unit(&part.json.unit).and_then(|(unit, scale)| Some(unit.nanos()? * scale as f64));
        let in_order = !own || part.json.in_time_order == Some(true);
        let sampled = part.json.kind == "sampled" && nanos.is_some() && timed_metric == Some(metric) && in_order;
        Clock { nanos, sampled }
    }

    /// `at` (in the profile's unit) in whole ns, where it is a time and fits.
    fn at(&self, at: f64) -> Option<i64> {
        self.nanos.and_then(|n| whole_nanoseconds(at, n))
    }
}

/// The timeline the profiles give, while every time fits it: the slices of evented profiles of
/// time, and the samples of sampled profiles of the first metric of time ([`Clock`]).
struct Times {
    slices: Option<Vec<Slice>>,
    samples: Option<Vec<TimedSample>>,
    /// The slices open, by index.
    open: Vec<usize>,
    /// From the first `startValue` to the last `endValue` of the profiles that give times.
    span: Option<(i64, i64)>,
}

impl Times {
    /// Widens the span to `part`'s, where it gives times (an evented profile of time, a sampled one
    /// of the first metric of time).
    fn span(&mut self, clock: &Clock, part: &Part) {
        if !clock.sampled && part.json.kind != "evented" {
            return;
        }
        let (Some(start), Some(end)) = (clock.at(part.json.start_value), part.json.end_value.and_then(|e| clock.at(e)))
        else {
            return;
        };
        let (first, last) = self.span.unwrap_or((start, end));
        self.span = Some((first.min(start), last.max(end)));
    }

    fn open(&mut self, clock: &Clock, node: NodeId, when: f64) {
        match (&mut self.slices, clock.at(when)) {
            (Some(all), Some(start)) => {
                self.open.push(all.len());
                all.push(Slice { start, end: start, node });
            }
            _ => self.slices = None,
        }
    }

    fn close(&mut self, clock: &Clock, when: f64) {
        match (&mut self.slices, clock.at(when), self.open.pop()) {
            (Some(all), Some(end), Some(slice)) => all[slice].end = end,
            _ => self.slices = None,
        }
    }

    /// A sampled stack's sample, taken `elapsed` into the profile, of `weight` (none of no weight).
    fn sample(&mut self, clock: &Clock, node: NodeId, (elapsed, weight): (f64, f64)) {
        if !clock.sampled || weight <= 0.0 {
            return;
        }
        match (&mut self.samples, clock.at(elapsed), clock.at(weight)) {
            (Some(all), Some(time), Some(nanos)) => {
                let weight = nanos.clamp(1, i64::from(u32::MAX)) as u32;
                all.push(TimedSample { time, node, weight });
            }
            _ => self.samples = None,
        }
    }

    fn timeline(self) -> Option<Timeline> {
        Timeline::of_both(self.samples.unwrap_or_default(), self.slices.unwrap_or_default(), self.span)
    }
}

/// The name of a metric of `kind` read from a profile of `unit`.
fn default_name(kind: MetricKind, unit: &str) -> String {
    match kind {
        MetricKind::Events => unit.to_string(),
        kind => kind.name().to_string(),
    }
}
