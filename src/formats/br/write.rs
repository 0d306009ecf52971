//! Writing BR records, and fitting a profile to them first.

use super::FORMAT;
use super::{
    BacktraceOrder, Mode, BACKTRACE, CURRENT_LINE, END, FRAME_LEN, FUNCTION_NAME, GOSUB, GOSUB_VALUE, MAIN_ROUTINE,
    MAIN_ROUTINE_VALUE, MAPPING, NO_FILE, ROUTINE_KEY, TIME, TIME_LEN,
};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::options::{effective_interval, ConvertOptions, Turning};
use crate::formats::spec::Writing;
use crate::model::{FrameId, FrameKind, Metric, MetricKind, Profile, Repr, Unit, Value, Values};
use byteorder::{BigEndian, WriteBytesExt};
use rustc_hash::FxHashMap;
use std::io::Write;

/// Writes `profile` (projected onto what BR carries) as a BR profiler file.
pub(crate) fn write(profile: &Profile, to: Writing<'_>) -> Result<(), Error> {
    let Writing { out, options, diag } = to;
    warn_unwritten_metrics(profile, diag);
    let profile = &*fit_frames(profile, diag);
    let samples = sample_counts(profile)?;
    let total = samples.iter().fold(0u64, |sum, &c| sum.saturating_add(c.max(0) as u64));
    // A group is a sample: a profile of none would be an empty file, which no reader takes.
    if total == 0 {
        let what = "the profile holds no sample, and a BR file of none is an empty file, which no reader takes (pprof and speedscope hold an empty profile)".into();
        return Err(Error::Unrepresentable { format: FORMAT, what });
    }
    if total > options.max_samples {
        let max = options.max_samples;
        let what = format!(
            "{total} samples would be {total} groups, more than --max-samples {max} allows (raise it to write them)"
        );
        return Err(Error::Unrepresentable { format: FORMAT, what });
    }
    let times = group_times(profile);
    let size = output_size(profile, &samples, times.is_some());
    crate::formats::stacks::check_output_size(FORMAT, size, options)?;
    let mut encoder = Encoder::new(profile);
    let tree = &profile.tree;
    // Depth-first; `path` holds the frames from the root down to the current node.
    let mut path: Vec<FrameId> = Vec::new();
    let mut group = Vec::new();
    let backtrace = options.formats.get::<super::Options>().backtrace;
    for visit in tree.walk() {
        path.truncate(visit.depth as usize);
        path.push(tree.frame(visit.node));
        let n = samples[visit.node.index()];
        if n <= 0 {
            continue;
        }
        let head_len = encoder.group(&path, backtrace, &mut group, out)?;
        let (head, tail) = group.split_at(head_len);
        let time = times.as_ref().map(|t| t[visit.node.index()].max(0) as u64);
        write_groups(out, head, tail, n as u64, time)?;
    }
    Ok(())
}

/// The bytes of the file [`write()`] makes of a fitted `profile` whose nodes have `samples` groups
/// each (with a time record each where `timed`): a group holds its whole stack, a record per frame,
/// so the file grows with the tree's depth times its samples, which the format has no way to share
/// (a group is one sample; only module names are mapped once): exact but for the mappings of files
/// no group uses, which it counts too. One pass over the nodes.
fn output_size(profile: &Profile, samples: &[i64], timed: bool) -> u64 {
    let record = |id: FrameId, frame: &crate::model::Frame| {
        let qualifier = match (frame.name.len(), profile.frame_attr(id, ROUTINE_KEY)) {
            (0, Some(MAIN_ROUTINE_VALUE | GOSUB_VALUE)) => 1,
            (0, _) => 0,
            (len, _) => 2 + len,
        };
        (FRAME_LEN + qualifier) as u64
    };
    let records: Vec<u64> = profile.frames.iter().map(|(id, frame)| record(id, frame)).collect();
    let mappings: u64 = profile
        .frames
        .iter()
        .filter_map(|(_, frame)| frame.module.as_deref())
        .collect::<std::collections::HashSet<_>>()
        .iter()
        .map(|file| 5 + file.len() as u64)
        .sum();
    let end_and_time = 1 + if timed { TIME_LEN as u64 } else { 0 };
    let tree = &profile.tree;
    let groups = crate::formats::stacks::whole_stacks_size(
        tree,
        |node| records[tree.frame(node).index()],
        |node, _| (samples[node.index()].max(0) as u64, end_and_time),
    );
    groups.saturating_add(mappings)
}

/// `profile` with every frame as a record holds it: a line (0 when it has none) with a clause of at
/// most 255 (0 when it has none) in a module file (the placeholder when it has none), the name and
/// file cut to what their length fields allow. Frames that become equal are one, and stacks that
/// become equal merge, so that the file reads back into the tree it was written from. Borrowed when
/// every frame fits already (a profile read from BR).
fn fit_frames<'p>(profile: &'p Profile, diag: &mut Diagnostics) -> std::borrow::Cow<'p, Profile> {
    let fits = |f: &crate::model::Frame| {
        f.kind == FrameKind::Line
            && f.line.is_some()
            && f.clause.is_some_and(|c| c <= u32::from(u8::MAX))
            && f.module.as_ref().is_some_and(|m| m.len() <= usize::from(u16::MAX))
            && f.name.len() <= usize::from(u8::MAX)
    };
    if profile.frames.iter().all(|(_, f)| fits(f)) {
        return std::borrow::Cow::Borrowed(profile);
    }
    let mut fitted = profile.clone();
    crate::model::ops::map_frames(&mut fitted, |f| (!fits(f)).then(|| fit_frame(f, diag)));
    std::borrow::Cow::Owned(crate::model::ops::merged_siblings(fitted))
}

fn fit_frame(f: &crate::model::Frame, diag: &mut Diagnostics) -> crate::model::Frame {
    let file = f.module.as_deref().unwrap_or_else(|| {
        diag.warn("br-no-file", None, || format!("frames without a module file are written in the file {NO_FILE:?}"));
        NO_FILE
    });
    let line = f.line.unwrap_or_else(|| {
        diag.warn("br-no-line", None, || "frames without a line number are written with line 0".into());
        0
    });
    let clause = f.clause.unwrap_or(0).min(u32::from(u8::MAX));
    if f.clause.is_some_and(|c| c > u32::from(u8::MAX)) {
        diag.warn("br-clause", None, || "clause numbers above 255 are written as 255".into());
    }
    crate::model::Frame {
        name: cut(&f.name, usize::from(u8::MAX), ("br-name-cut", "function names"), diag).to_string(),
        module: Some(cut(file, usize::from(u16::MAX), ("br-file-cut", "module file names"), diag).to_string()),
        line: Some(line),
        clause: Some(clause),
        kind: FrameKind::Line,
    }
}

/// Names the metrics beyond the first samples and the first time metric, which have no place.
fn warn_unwritten_metrics(profile: &Profile, diag: &mut Diagnostics) {
    let mut seen = Vec::new();
    for metric in profile.metrics() {
        if seen.contains(&metric.kind) {
            let name = metric.name.clone();
            diag.warn("br-metric-dropped", None, || {
                format!("br holds one samples and one time metric: metric {name} is dropped")
            });
        }
        seen.push(metric.kind);
    }
}

/// The number of groups of each node: the samples metric, else time divided at the interval.
fn sample_counts(profile: &Profile) -> Result<Vec<i64>, Error> {
    // The conversion step derives samples from time when the profile has only time.
    let Some(m) = profile.metric_of_kind(MetricKind::Samples) else {
        let what = "it needs a samples or time metric, and the profile has neither".into();
        return Err(Error::Unrepresentable { format: FORMAT, what });
    };
    let values = profile.tree.self_values(m);
    Ok((0..values.len()).map(|i| values.get(i).as_count()).collect())
}

/// The nanoseconds of each node's groups together, when the groups get time records (the profile
/// has time: [`fit`] gave it or took it away as `--br-mode` says, in whole nanoseconds).
fn group_times(profile: &Profile) -> Option<Vec<i64>> {
    let (m, _) = time_metric(profile)?;
    let values = profile.tree.self_values(m);
    Some((0..values.len()).map(|i| values.get(i).as_count()).collect())
}

/// The time metric of a profile and its nanoseconds per unit.
fn time_metric(profile: &Profile) -> Option<(usize, f64)> {
    profile
        .metrics()
        .iter()
        .enumerate()
        .find_map(|(i, m)| Some((i, m.unit.nanos().filter(|_| m.kind == MetricKind::Time)?)))
}

/// BR's last step of fitting a projected profile (called by the conversion step): `--br-mode timed`
/// gives a profile without time the interval per group, `--br-mode sampled` drops its time, each with
/// a warning. A file written with time records is a timed file, weighed by its time (in whole
/// nanoseconds, as its records hold it), in which every node with time has a group to hold it.
pub(crate) fn fit(mut profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    let samples = profile.metric_of_kind(MetricKind::Samples);
    // A source that puts its samples first (a JFR recording) has times of something else beside
    // them (lock waits), which are not the time of its samples' records: dropped, said.
    if samples.is_some() && profile.meta.weighed_by == Some(MetricKind::Samples) {
        let times: Vec<String> =
            profile.metrics().iter().filter(|m| m.kind == MetricKind::Time).map(|m| m.name.clone()).collect();
        if !times.is_empty() {
            diag.warn("br-other-time-dropped", None, || {
                format!("{} dropped: not the time of the samples, which the source puts first", times.join(", "))
            });
            let keep: Vec<bool> = profile.metrics().iter().map(|m| m.kind != MetricKind::Time).collect();
            profile.retain_metrics(&keep);
        }
    }
    match (options.formats.get::<super::Options>().mode, time_metric(&profile), samples) {
        (Mode::Sampled, Some((m, _)), _) => {
            diag.warn("br-time-dropped", None, || "--br-mode sampled: the time metric is dropped".into());
            let keep: Vec<bool> = (0..profile.metrics().len()).map(|i| i != m).collect();
            profile.retain_metrics(&keep);
        }
        (Mode::Timed, None, Some(samples)) => {
            let interval = effective_interval(options.interval, profile.meta.interval, Turning::CountsIntoTime);
            diag.warn("br-time-from-samples", None, || {
                format!("--br-mode timed: the profile has no time, so every group gets the interval, {interval:?} (set with --interval)")
            });
            let per_sample = i64::try_from(interval.as_nanos()).unwrap_or(i64::MAX);
            let values = profile.tree.self_values(samples);
            let times = (0..values.len()).map(|i| values.get(i).as_count().max(0).saturating_mul(per_sample));
            profile.add_metric(Metric::time(Unit::Nanoseconds, Repr::Int), Values::Int(times.collect()));
        }
        (_, Some((m, unit_nanos)), Some(samples)) => whole_nanoseconds(&mut profile, m, unit_nanos, samples, diag),
        _ => {}
    }
    profile.meta.weighed_by = time_metric(&profile).map(|_| MetricKind::Time);
    profile
}

/// Makes time metric `m` whole nanoseconds (integer nanoseconds are copied: through f64 they would
/// lose digits above 2^53), and gives a node whose time rounded to no sample one group to hold it.
fn whole_nanoseconds(profile: &mut Profile, m: usize, unit_nanos: f64, samples: usize, diag: &mut Diagnostics) {
    let tree = &mut profile.tree;
    let values = tree.self_values(m);
    let nanos = |v: Value| match v {
        Value::Int(ns) if unit_nanos == 1.0 => ns,
        v => (v.as_f64() * unit_nanos).round() as i64,
    };
    let times: Vec<i64> = (0..values.len()).map(|i| nanos(values.get(i))).collect();
    let mut given = 0usize;
    for node in tree.nodes() {
        if times[node.index()] > 0 && tree.self_value(samples, node).as_count() <= 0 {
            tree.set_self(samples, node, Value::Int(1));
            given += 1;
        }
    }
    if given > 0 {
        diag.warn("br-group-for-time", None, || {
            format!("{given} stacks whose time rounds to no sample get one group each, so that their time is kept")
        });
    }
    let metric = Metric { unit: Unit::Nanoseconds, repr: Repr::Int, ..profile.metrics()[m].clone() };
    profile.replace_metric(m, metric, Values::Int(times));
}

/// Writes `n` groups `head [time record] tail`, splitting `time` evenly (the first groups get the
/// remainder's nanoseconds).
fn write_groups(out: &mut dyn Write, head: &[u8], tail: &[u8], n: u64, time: Option<u64>) -> Result<(), Error> {
    let Some(time) = time else {
        let mut whole = head.to_vec();
        whole.extend_from_slice(tail);
        for _ in 0..n {
            out.write_all(&whole)?;
        }
        return Ok(());
    };
    let (each, remainder) = (time / n, time % n);
    for i in 0..n {
        out.write_all(head)?;
        out.write_u8(TIME)?;
        out.write_u64::<BigEndian>(each + u64::from(i < remainder))?;
        out.write_all(tail)?;
    }
    Ok(())
}

/// Turns frames into records: module numbers from 1 in order of first use, each mapping written
/// right before the first group that needs it.
struct Encoder<'p> {
    profile: &'p Profile,
    /// Per frame: its record body (module, line, clause) and qualifier, once encoded.
    frames: Vec<Option<Box<[u8]>>>,
    modules: FxHashMap<String, u16>,
}

impl<'p> Encoder<'p> {
    fn new(profile: &'p Profile) -> Encoder<'p> {
        Encoder { profile, frames: vec![None; profile.frames.len()], modules: FxHashMap::default() }
    }

    /// Encodes the group of the stack `path` (root first) into `group` (END included), writing the
    /// mappings it needs first; returns the length of its head (the current line and its qualifier),
    /// after which a time record goes.
    fn group(
        &mut self,
        path: &[FrameId],
        order: BacktraceOrder,
        group: &mut Vec<u8>,
        out: &mut dyn Write,
    ) -> Result<usize, Error> {
        group.clear();
        let Some((&current, callers)) = path.split_last() else {
            return Ok(0);
        };
        group.push(CURRENT_LINE);
        group.extend_from_slice(self.frame(current, out)?);
        let head_len = group.len();
        let mut push = |encoder: &mut Self, frame: FrameId| -> Result<(), Error> {
            group.push(BACKTRACE);
            group.extend_from_slice(encoder.frame(frame, out)?);
            Ok(())
        };
        match order {
            BacktraceOrder::InnermostFirst => callers.iter().rev().try_for_each(|&f| push(self, f))?,
            BacktraceOrder::OutermostFirst => callers.iter().try_for_each(|&f| push(self, f))?,
        }
        group.push(END);
        Ok(head_len)
    }

    /// The record body and qualifier of `frame`, encoding it (and mapping its module) on first use.
    fn frame(&mut self, frame: FrameId, out: &mut dyn Write) -> Result<&[u8], Error> {
        if self.frames[frame.index()].is_none() {
            let encoded = self.encode(frame, out)?;
            self.frames[frame.index()] = Some(encoded);
        }
        Ok(self.frames[frame.index()].as_deref().unwrap_or_default())
    }

    /// A fitted frame's record body (module, line, clause) and qualifier (see [`fit_frames`]).
    fn encode(&mut self, frame: FrameId, out: &mut dyn Write) -> Result<Box<[u8]>, Error> {
        let f = self.profile.frames.get(frame);
        let module = self.module(f.module.as_deref().unwrap_or(NO_FILE), out)?;
        let clause = u8::try_from(f.clause.unwrap_or(0)).unwrap_or(u8::MAX);
        let mut bytes = Vec::with_capacity(FRAME_LEN + 2 + f.name.len());
        bytes.write_u16::<BigEndian>(module)?;
        bytes.write_u32::<BigEndian>(f.line.unwrap_or(0))?;
        bytes.push(clause);
        let routine =
            self.profile.frame_attrs.get(&frame).and_then(|attrs| attrs.iter().find(|(k, _)| k == ROUTINE_KEY));
        match (f.name.as_str(), routine.map(|(_, v)| v.as_str())) {
            ("", Some(MAIN_ROUTINE_VALUE)) => bytes.push(MAIN_ROUTINE),
            ("", Some(GOSUB_VALUE)) => bytes.push(GOSUB),
            ("", _) => {}
            (name, _) => {
                let name = &name.as_bytes()[..name.len().min(usize::from(u8::MAX))];
                bytes.push(FUNCTION_NAME);
                bytes.push(name.len() as u8);
                bytes.extend_from_slice(name);
            }
        }
        Ok(bytes.into_boxed_slice())
    }

    /// The number of the module `file`, writing its mapping when it is new.
    fn module(&mut self, file: &str, out: &mut dyn Write) -> Result<u16, Error> {
        if let Some(&number) = self.modules.get(file) {
            return Ok(number);
        }
        let Ok(number) = u16::try_from(self.modules.len() + 1) else {
            let what = "more than 65,535 distinct module files".into();
            return Err(Error::Unrepresentable { format: FORMAT, what });
        };
        // A fitted file name fits its length field; the bound only keeps the record well-formed.
        let name = &file.as_bytes()[..file.len().min(usize::from(u16::MAX))];
        out.write_u8(MAPPING)?;
        out.write_u16::<BigEndian>(number)?;
        out.write_u16::<BigEndian>(name.len() as u16)?;
        out.write_all(name)?;
        self.modules.insert(file.to_string(), number);
        Ok(number)
    }
}

/// `text` cut to at most `max` bytes at a character boundary, with a warning when it is cut.
fn cut<'t>(text: &'t str, max: usize, (key, what): (&'static str, &str), diag: &mut Diagnostics) -> &'t str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    diag.warn(key, None, || format!("br {what} hold at most {max} bytes: longer ones are cut at a character boundary"));
    &text[..end]
}
