//! A sample type as pprof names it (`cpu`/`nanoseconds`, `alloc_space`/`bytes`, `samples`/`count`),
//! and so OTLP profiles, which took pprof's: the metric it is, and what its profile's period says of
//! how it was sampled (pprof's and OTLP's readers); and the fitting of a profile to values that are
//! whole numbers and lines where 0 means none (pprof's and OTLP's writers); the facts of a profile
//! both state alike, named for neither, so that each writes what the other read.

use crate::diag::Diagnostics;
use crate::error::FormatName;
use crate::formats::shared::time_unit;
use crate::model::{
    ops, Frame, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Sampling, Timeline, Unit,
    Value, Values, DEFINED_AT, DURATION,
};
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;
use std::time::Duration;

/// The header fact of the period's type, as `type unit` (`cpu nanoseconds`, `space bytes`). This,
/// the two below and the duration ([`DURATION`]) are facts pprof's Profile and OTLP's, which took
/// pprof's, state alike: they are named for neither format (as [`DEFINED_AT`] is), so that a
/// conversion from one to the other keeps them.
pub(crate) const PERIOD_TYPE: &str = "period-type";
/// The header fact of a period that is no time (a heap profile's bytes between samples): a period
/// of time is the interval.
pub(crate) const PERIOD: &str = "period";
/// The frame fact of the file of the mapping (the program or library) a frame's code was in, where
/// that is not its module (the function's source file).
pub(crate) const MAPPING: &str = "mapping";
/// The facts named for no format that pprof's and OTLP's writers write
/// ([`crate::formats::spec::Rules::keeps_facts`]): those above, the duration and where a function
/// is defined.
pub(crate) const PROFILE_FACTS: &[&str] = &[DEFINED_AT, DURATION, PERIOD_TYPE, PERIOD, MAPPING];

/// The metric kind and unit of the sample type `name`/`unit`, and what a value is multiplied by
/// to be in that unit: `nanoseconds`, `microseconds`, `milliseconds` are time in that unit,
/// `seconds` time in milliseconds, `bytes` allocation, `count` (or none) a count of the kind its
/// name says ([`MetricKind::of_count`]); `None` for a unit proftool does not know.
pub(crate) fn metric_of(name: &str, unit: &str) -> Option<(MetricKind, Unit, i64)> {
    match (unit, time_unit(unit)) {
        (_, Some((time, scale))) => Some((MetricKind::Time, time, scale)),
        ("bytes", _) => Some((MetricKind::Alloc, Unit::Bytes, 1)),
        ("count" | "", _) => Some((MetricKind::of_count(name), Unit::Count, 1)),
        _ => None,
    }
}

/// What noise each of `metrics` has (docs/gate.md), from what the profile says of its period: every
/// pprof producer samples. Counts of samples are counts; Go's heap bytes are sampled once per
/// `period` bytes (`period_type` space), and its object counts come from the same samples (those of
/// the bytes metric of the same name, `alloc_objects` of `alloc_space`); time beside a count of
/// samples or of events (a CPU profile's nanoseconds, a block profile's delay) weighs them; time
/// alone is samples of its period. Other counts of events (contentions) count sampled events; a
/// goroutine or thread count is a census, measured.
pub(crate) fn sampling_of(
    metrics: &[Metric],
    period: Option<(&str, &str, i64)>,
    contention_scale: Option<u64>,
) -> Vec<Sampling> {
    let per = |p: i64| u64::try_from(p).ok().filter(|&p| p > 0);
    let heap_rate = period.filter(|(name, unit, _)| *name == "space" && *unit == "bytes").and_then(|(_, _, p)| per(p));
    let nanos = |unit| time_unit(unit).and_then(|(unit, scale)| Some(unit.nanos()? as u64 * scale as u64));
    let time_period = period.and_then(|(_, unit, p)| per(p)?.checked_mul(nanos(unit)?));
    let counted = metrics
        .iter()
        .find(|m| m.kind == MetricKind::Samples)
        .or_else(|| metrics.iter().find(|m| m.kind == MetricKind::Events && m.unit == Unit::Count));
    metrics
        .iter()
        .map(|metric| match (metric.kind, heap_rate) {
            (MetricKind::Samples | MetricKind::Ticks, _) => Sampling::counts(),
            (MetricKind::Alloc, Some(rate)) => Sampling::Sampled { of: None, per: rate },
            (MetricKind::Objects, Some(rate)) => {
                let bytes = metric.name.replace("objects", "space");
                let of = metrics.iter().any(|m| m.name == bytes && m.kind == MetricKind::Alloc).then_some(bytes);
                Sampling::Sampled { per: if of.is_some() { rate } else { 1 }, of }
            }
            (MetricKind::Events, _) if matches!(metric.name.as_str(), "goroutine" | "threadcreate") => {
                Sampling::Measured
            }
            (MetricKind::Events, _) if metric.name == CONTENTIONS => match contention_scale {
                Some(per) => Sampling::Sampled { of: None, per },
                None => Sampling::counts(),
            },
            (MetricKind::Events | MetricKind::Objects, _) => Sampling::counts(),
            (MetricKind::Time, _) => match (counted, time_period) {
                // A delay weighs the events behind it, each recorded one of `per` counted.
                (Some(counts), _) => match contention_scale.filter(|_| counts.name == CONTENTIONS) {
                    Some(per) => Sampling::Sampled { of: Some(counts.name.clone()), per },
                    None => Sampling::weights_of(&counts.name),
                },
                (None, Some(period)) => Sampling::Sampled { of: None, per: period },
                (None, None) => Sampling::Unstated,
            },
            _ => Sampling::Unstated,
        })
        .collect()
}

/// The count of Go's block and mutex profiles, each recorded event scaled by the profile's rate.
pub(crate) const CONTENTIONS: &str = "contentions";

/// Time metrics with fractions, in a unit above nanoseconds, in nanoseconds (which pprof's and
/// OTLP's writers round, with a warning: their values are whole numbers); whole numbers keep their
/// unit.
pub(crate) fn fractions_in_nanoseconds(profile: &mut Profile) {
    for m in 0..profile.metrics().len() {
        let metric = &profile.metrics()[m];
        let (Repr::Float, Some(nanos)) = (metric.repr, metric.unit.nanos().filter(|&n| n > 1.0)) else { continue };
        let Values::Float(values) = profile.tree.self_values(m) else { continue };
        let values = Values::Float(values.iter().map(|v| v * nanos).collect());
        let metric = Metric { unit: Unit::Nanoseconds, ..metric.clone() };
        profile.replace_metric(m, metric, values);
    }
}

/// Line frames at line 0 (a Dyalog call from an unknown line) as their functions, merged with the
/// function's node where it has one: pprof's and OTLP's line 0 means no line. Said once, as `key`.
pub(crate) fn lines_0_as_functions(
    profile: Profile,
    format: FormatName,
    key: &'static str,
    diag: &mut Diagnostics,
) -> Profile {
    let at_line_0 = |f: &Frame| f.kind == FrameKind::Line && f.line == Some(0) && !f.is_anonymous_line();
    let names: Vec<String> = profile.frames.iter().filter(|(_, f)| at_line_0(f)).map(|(_, f)| f.name.clone()).collect();
    if names.is_empty() {
        return profile;
    }
    diag.warn(key, None, || {
        format!("{format} has no line 0: lines 0 of {} written as their functions", names.join(", "))
    });
    let mut profile = profile;
    ops::map_frames(&mut profile, |f| {
        at_line_0(f).then(|| Frame { kind: FrameKind::Function, line: None, clause: None, ..f.clone() })
    });
    ops::merge_siblings(&profile)
}

/// What a profile's period says, stated as pprof and OTLP state it (its type, its unit and the
/// period in that unit): the interval where it is a time, and the header facts of its type and of
/// a period that is no time ([`PERIOD_TYPE`], [`PERIOD`]).
pub(crate) fn period_facts((name, unit, period): (&str, &str, i64)) -> (Option<Duration>, Vec<(String, String)>) {
    let mut facts = vec![(PERIOD_TYPE.to_string(), format!("{name} {unit}"))];
    let nanos = time_unit(unit).and_then(|(unit, scale)| Some(unit.nanos()? as u64 * scale as u64));
    let interval = match nanos.and_then(|n| u64::try_from(period).ok()?.checked_mul(n)) {
        Some(nanos) if nanos > 0 => Some(Duration::from_nanos(nanos)),
        _ => {
            facts.push((PERIOD.to_string(), period.to_string()));
            None
        }
    };
    (interval, facts)
}

/// The period type and period to write: the interval (of the period type read, in its unit where
/// the interval is a whole number of it, else CPU time in nanoseconds), else a period that is no
/// time as read; `None` where the profile says neither.
pub(crate) fn period_to_write(profile: &Profile) -> Option<(&str, &str, i64)> {
    let read_type = profile.meta.attr(PERIOD_TYPE).and_then(|t| t.split_once(' '));
    if let Some(interval) = profile.meta.interval {
        return Some(period_of_interval(interval, read_type));
    }
    let (name, unit) = read_type?;
    Some((name, unit, profile.meta.attr(PERIOD)?.parse().ok()?))
}

/// The period type and period of a profile sampled at `interval`, of the period type it was read
/// with (`read`, `cpu nanoseconds`) in that type's unit where the interval is a whole number of it,
/// else CPU time in nanoseconds: pprof's and OTLP's `period_type` and `period`.
fn period_of_interval<'a>(interval: std::time::Duration, read: Option<(&'a str, &'a str)>) -> (&'a str, &'a str, i64) {
    let nanos = interval.as_nanos();
    let unit_nanos = |unit: &str| {
        let (unit, scale) = time_unit(unit)?;
        Some(unit.nanos()? as u128 * scale as u128).filter(|&n| nanos.is_multiple_of(n))
    };
    let (name, unit, per_unit) = match read {
        Some((name, unit)) => match unit_nanos(unit) {
            Some(per_unit) => (name, unit, per_unit),
            None => (name, "nanoseconds", 1),
        },
        None => ("cpu", "nanoseconds", 1),
    };
    (name, unit, i64::try_from(nanos / per_unit).unwrap_or(i64::MAX))
}

/// A line of a location as pprof and OTLP state it: its function's name, source file and start
/// line, the line's number and column, and the module of the location's mapping.
pub(crate) struct LocationLine<'a> {
    pub(crate) name: &'a str,
    pub(crate) file: &'a str,
    pub(crate) start: u32,
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) module: Option<&'a str>,
}

impl LocationLine<'_> {
    /// The function's source file, where it states one.
    pub(crate) fn source(&self) -> Option<&str> {
        Some(self.file).filter(|file| !file.is_empty())
    }

    /// Its frame in `profile`, as `go tool pprof -lines` places a line: the function's source file
    /// as its module, else the mapping's; a line frame where the line is not the function's start
    /// line (or none); where the function is defined, and `mapping` (a fact the reader names), as
    /// frame facts. A function of one name met again with other facts keeps the first and is added
    /// to `conflicts` ([`warn_defined_twice`]).
    pub(crate) fn frame(
        &self,
        profile: &mut Profile,
        mapping: Option<(String, String)>,
        conflicts: &mut BTreeSet<String>,
    ) -> FrameId {
        let is_line = self.line != 0 && self.line != self.start;
        let source = self.source();
        let frame = profile.frames.intern(FrameRef {
            name: self.name,
            module: source.or(self.module),
            line: is_line.then_some(self.line),
            clause: (is_line && self.column != 0).then_some(self.column),
            kind: if is_line { FrameKind::Line } else { FrameKind::Function },
        });
        let defined_at =
            source.filter(|_| self.start != 0).map(|file| (DEFINED_AT.to_string(), format!("{file}:{}", self.start)));
        for (key, value) in [mapping, defined_at].into_iter().flatten() {
            let attrs = profile.frame_attrs.entry(frame).or_default();
            match attrs.iter().find(|(k, _)| *k == key) {
                None => attrs.push((key, value)),
                Some((_, first)) if *first != value => {
                    conflicts.insert(self.name.to_string());
                }
                Some(_) => {}
            }
        }
        frame
    }
}

/// Sets to 0 the self values of `nodes` that negative values (a profile subtracted from another,
/// `pprof -diff_base`) left below zero, as the model's self values are not negative: how many.
pub(crate) fn clamp_negative(profile: &mut Profile, nodes: FxHashSet<NodeId>) -> usize {
    let mut clamped = 0;
    for node in nodes {
        for metric in 0..profile.metrics().len() {
            if profile.tree.self_value(metric, node).as_f64() < 0.0 {
                profile.tree.set_self(metric, node, Value::Int(0));
                clamped += 1;
            }
        }
    }
    clamped
}

/// Says, as `key`, which functions of one name a reader found defined in several places (it keeps
/// the first place).
pub(crate) fn warn_defined_twice(diag: &mut Diagnostics, key: &'static str, conflicts: BTreeSet<String>) {
    if !conflicts.is_empty() {
        diag.warn(key, None, || {
            let names = conflicts.into_iter().collect::<Vec<_>>().join(", ");
            format!("functions of one name defined in several places, the first place kept: {names}")
        });
    }
}

/// Drops the timeline where some node's value of some metric is in none of its samples: a pprof or
/// OTLP sample written at its time carries its share of every metric, so the samples must hold them
/// all (else the stacks are written as they add up, without times), said on stderr.
pub(crate) fn keep_timeline_of_every_value(profile: &mut Profile, format: FormatName, diag: &mut Diagnostics) {
    let every = 0..profile.metrics().len();
    let lacking = every.clone().find(|&m| Timeline::drop_unless_holding(&mut profile.timeline, &profile.tree, m));
    if let Some(m) = lacking {
        let metric = &profile.metrics()[m].name;
        diag.warn("timeline-partial", None, || {
            format!("{format}: the {metric} of some nodes is in none of the timeline's samples: the samples are written by stack, without their times")
        });
    }
}
