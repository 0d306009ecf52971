//! Which metric a target writes, and what it is written as: the default metric, a count of other
//! things refused or relabelled for a target weighed by time, the one metric of a one-number target
//! as whole counts.

use super::quantities::{conversion_interval, whole_samples};
use super::{Conversion, ConvertOptions};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{Format, Turning};
use crate::model::{Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, Values};
use std::collections::BTreeMap;

/// How a profile came to be weighed by time for a target whose weight is time
/// ([`crate::formats::Carries::weight_is_time`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TimeWeight {
    /// It is weighed by samples, ticks or time already (or by the metric `--metric` names).
    AsItWas,
    /// The metric it is weighed by is no time (a heap profile's bytes); the metric that stands in
    /// for it is the one named.
    StandIn(String),
    /// `--metric` named a count of other things, relabelled as the target's weight.
    CountRelabelled(String),
}

/// For a target whose weight is time (samples, ticks or time): the metric `--metric` names, or the
/// one the profile is weighed by, must measure time. A count of other things named with `--metric`
/// is relabelled as the target's weight, with a warning saying what it counts (and the other metrics
/// that measure time are dropped, so that it is the one written); one not named is replaced by the
/// first metric that measures time, said once; a profile with none is refused, naming its metrics.
pub(super) fn weigh_by_time(
    profile: &mut Profile,
    target: Format,
    diag: &mut Diagnostics,
) -> Result<TimeWeight, Error> {
    let metrics = profile.metrics();
    let named = profile.meta.chosen_metric;
    let chosen = named.or_else(|| profile.primary_metric());
    if chosen.is_none_or(|m| metrics[m].kind.measures_time() || !metrics[m].is_additive()) {
        if let Some(counts) = chosen.filter(|&m| matches!(metrics[m].kind, MetricKind::Samples | MetricKind::Ticks)) {
            drop_other_time(profile, counts, target, diag);
        }
        return Ok(TimeWeight::AsItWas);
    }
    let weight = target.carries().metrics.iter().copied().find(|k| k.measures_time()).unwrap_or(MetricKind::Samples);
    if let Some(m) = named {
        let metric = metrics[m].clone();
        let counts = what_it_counts(&metric);
        diag.warn("count-as-weight", None, || {
            format!(
                "{target} weighs stacks by {}: --metric {} is written as its {}, but its numbers count {counts}",
                weight.name(),
                metric.name,
                if weight == MetricKind::Time { "time, one per millisecond" } else { weight.name() }
            )
        });
        let unit = if weight == MetricKind::Time { Unit::Milliseconds } else { Unit::Count };
        let values = profile.tree.self_values(m).clone();
        profile.replace_metric(m, Metric { kind: weight, unit, ..metric.clone() }, values);
        let keep: Vec<bool> =
            profile.metrics().iter().enumerate().map(|(i, k)| i == m || !k.kind.measures_time()).collect();
        report_dropped_metrics(profile, &keep, target, Some(&metric.name), diag);
        profile.retain_metrics(&keep);
        profile.meta.weighed_by = Some(weight);
        return Ok(TimeWeight::CountRelabelled(metric.name));
    }
    let timed = |kind: MetricKind| metrics.iter().position(|m| m.kind == kind && m.is_additive());
    let stand_in = [MetricKind::Samples, MetricKind::Time, MetricKind::Ticks].into_iter().find_map(timed);
    let Some(stand_in) = stand_in else {
        let all: Vec<String> = metrics.iter().map(|m| format!("{} ({})", m.name, what_it_counts(m))).collect();
        let what = format!(
            "it weighs stacks by samples or time, and the profile has neither (it has: {}); name one with --metric to write its numbers as {target}'s {}, knowing they count something else",
            all.join(", "),
            weight.name()
        );
        return Err(Error::Unrepresentable { format: target.into(), what });
    };
    let (instead, name) = (chosen.map(|m| metrics[m].clone()), metrics[stand_in].name.clone());
    if let Some(instead) = instead {
        diag.warn("weight-stand-in", None, || {
            format!(
                "{target} weighs stacks by samples or time, not by {} ({}): writing {name} instead (choose with --metric)",
                instead.name,
                what_it_counts(&instead)
            )
        });
    }
    profile.meta.weighed_by = Some(metrics[stand_in].kind);
    Ok(TimeWeight::StandIn(name))
}

/// For a target of several metrics whose time is one (a `.cpuprofile`'s deltas, a trace's slices):
/// where the profile is weighed by samples or ticks (`counts`), their time at the interval is the
/// time written, so the metrics of other time (a pprof's `cpu` beside its `samples`) are dropped,
/// said once.
fn drop_other_time(profile: &mut Profile, counts: usize, target: Format, diag: &mut Diagnostics) {
    let keep: Vec<bool> =
        profile.metrics().iter().enumerate().map(|(i, m)| i == counts || m.kind != MetricKind::Time).collect();
    if keep.iter().all(|&k| k) {
        return;
    }
    let dropped: Vec<&str> =
        profile.metrics().iter().zip(&keep).filter(|(_, &k)| !k).map(|(m, _)| m.name.as_str()).collect();
    let (dropped, counted) = (metrics_named(&dropped.join(", ")), profile.metrics()[counts].name.clone());
    diag.warn("other-time-dropped", None, || {
        format!("{target} holds one time: {dropped} dropped (writing the time of {counted} at the interval)")
    });
    profile.retain_metrics(&keep);
}

/// What a metric's numbers count, for messages: `bytes`, `objects`, `contentions events`, ….
pub(super) fn what_it_counts(metric: &Metric) -> String {
    match metric.kind {
        MetricKind::Samples => "samples".into(),
        MetricKind::Time => format!("time in {}", metric.unit.name()),
        MetricKind::Ticks => "ticks".into(),
        MetricKind::Alloc => metric.unit.name().into(),
        MetricKind::Objects => "objects".into(),
        MetricKind::Events => format!("{} events", metric.name),
        MetricKind::Calls => "calls".into(),
        MetricKind::Inspections => "timer inspections".into(),
    }
}

/// Names, in one line, measured inclusive values (Dyalog) of the metrics `kept` that the target
/// cannot keep and that differ from what a node's own value and its children's add up to (a report
/// cut short, time in code the profiler did not list): `target` derives inclusive values, so that
/// difference is lost. A difference within rounding (1%, and 0.01 of the unit) is not worth a line.
pub(super) fn report_measured_inclusive_dropped(
    profile: &Profile,
    target: Format,
    kept: impl Fn(usize) -> bool,
    diag: &mut Diagnostics,
) {
    let tree = &profile.tree;
    let mut parts = Vec::new();
    for (m, metric) in profile.metrics().iter().enumerate().filter(|&(m, _)| kept(m)) {
        let Some(measured) = tree.measured_inclusive(m) else { continue };
        let derived = tree.derived_inclusive(m);
        let (mut differing, mut largest) = (0usize, None::<(f64, usize)>);
        for i in 0..tree.len() {
            let (want, got) = (measured.get(i).as_f64(), derived.get(i).as_f64());
            let gap = (want - got).abs();
            if gap > 0.01 && gap > 0.01 * want.abs().max(got.abs()) {
                differing += 1;
                if largest.is_none_or(|(g, _)| gap > g) {
                    largest = Some((gap, i));
                }
            }
        }
        let Some((_, i)) = largest else { continue };
        let frame = profile.frames.get(tree.frame(NodeId(i as u32)));
        let amount = |v: Value| match metric.unit {
            Unit::Count => format!("{}", (v.as_f64() * 1000.0).round() / 1000.0),
            unit => format!("{} {}", (v.as_f64() * 1000.0).round() / 1000.0, unit.name()),
        };
        parts.push(format!(
            "{} on {differing} node{} (most: {frame}, {} measured, {} from its own value and its children's)",
            metric.name,
            if differing == 1 { "" } else { "s" },
            amount(measured.get(i)),
            amount(derived.get(i)),
        ));
    }
    if !parts.is_empty() {
        diag.warn("measured-inclusive-dropped", None, || {
            format!(
                "{target} derives inclusive values, so measured inclusive values that differ are dropped: {}",
                parts.join("; ")
            )
        });
    }
}

/// The metric to write to a one-number-per-node target: the one chosen ([`crate::model::Meta::chosen_metric`]), else the
/// default.
pub(super) fn choose_metric(profile: &Profile, options: &ConvertOptions, target: Format) -> Result<usize, Error> {
    match profile.meta.chosen_metric {
        Some(chosen) => Ok(chosen),
        None => {
            let primary = profile.primary_metric().ok_or_else(|| Error::Unrepresentable {
                format: target.into(),
                what: "the profile has no metric to write".into(),
            })?;
            Ok(samples_standing_for(profile, primary, options).unwrap_or(primary))
        }
    }
}

/// The samples metric whose counts are time metric `time` at the profile's interval, node by node
/// (a Go CPU profile's `samples` beside its `cpu`, at its 10 ms period): a one-number target writes
/// those exact counts for the time, as it would divide the time into them anyway.
pub(super) fn samples_standing_for(profile: &Profile, time: usize, options: &ConvertOptions) -> Option<usize> {
    let metric = &profile.metrics()[time];
    let unit_nanos = metric.unit.nanos().filter(|_| metric.kind == MetricKind::Time)?;
    let interval = profile.meta.interval.filter(|&own| options.interval.is_none_or(|given| given == own))?;
    let per_sample = interval.as_nanos() as f64 / unit_nanos;
    let samples = profile.metrics().iter().position(|m| m.kind == MetricKind::Samples && m.is_additive())?;
    let (times, counts) = (profile.tree.self_values(time), profile.tree.self_values(samples));
    (0..times.len()).all(|i| times.get(i).as_f64() == counts.get(i).as_f64() * per_sample).then_some(samples)
}

/// Names the metrics `kept` leaves out: a loss of numbers, said in a line of its own, for additive
/// metrics; per-node facts (calls, entries) among what the target has no place for. `writing` is the
/// one metric a one-number target writes.
pub(super) fn report_dropped_metrics(
    profile: &Profile,
    kept: &[bool],
    target: Format,
    writing: Option<&str>,
    diag: &mut Diagnostics,
) {
    let dropped = |additive: bool| {
        let metrics = profile.metrics().iter().zip(kept);
        let names: Vec<&str> =
            metrics.filter(|(m, &k)| !k && m.is_additive() == additive).map(|(m, _)| m.name.as_str()).collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    if let Some(names) = dropped(true) {
        diag.warn("metric-dropped", None, || match writing {
            Some(kept) => {
                format!("{target} holds one number per node: {} dropped (writing {kept})", metrics_named(&names))
            }
            None => format!("{target} has no place for {}: dropped", metrics_named(&names)),
        });
    }
    if let Some(names) = dropped(false) {
        let what = metrics_named(&names);
        diag.lacks("per-node-metric-dropped", target.name(), &what, || {
            format!("{target} has no place for the per-node {what}: dropped")
        });
    }
}

/// `metric a` or `metrics a, b`, for messages.
pub(super) fn metrics_named(names: &str) -> String {
    if names.contains(", ") {
        format!("metrics {names}")
    } else {
        format!("metric {names}")
    }
}

/// Moves a per-node calls metric into per-function call counts, for targets that have those.
pub(super) fn absorb_calls(profile: &mut Profile, chosen: usize) {
    let Some(calls) = profile.metric_of_kind(MetricKind::Calls) else {
        return;
    };
    if calls == chosen || profile.function_facts.values().any(|f| f.calls.is_some()) {
        return;
    }
    let mut sums: BTreeMap<_, i64> = BTreeMap::new();
    for node in profile.tree.nodes() {
        let v = profile.tree.self_value(calls, node);
        let sum = sums.entry(profile.tree.frame(node)).or_default();
        *sum = sum.saturating_add(v.as_count());
    }
    for (frame, sum) in sums {
        profile.function_facts.entry(frame).or_default().calls = Some(sum);
    }
}

/// Keeps only metric `chosen` (without measured inclusive values: the target derives inclusive
/// values from self values), naming the others as dropped; where the samples `chosen` stand for
/// the default metric, a time (a Go CPU profile's `cpu`), the message says so.
pub(super) fn keep_only(profile: &mut Profile, chosen: usize, target: Format, diag: &mut Diagnostics) {
    let absorbs_calls = target.carries().function_facts;
    let named: Vec<bool> = (profile.metrics().iter().enumerate())
        .map(|(i, m)| i == chosen || (m.kind == MetricKind::Calls && absorbs_calls))
        .collect();
    let metrics = profile.metrics();
    let default = profile.primary_metric().filter(|&p| profile.meta.chosen_metric.is_none() && p != chosen);
    let writing = match default {
        Some(default) if metrics[default].kind == MetricKind::Time && metrics[chosen].kind == MetricKind::Samples => {
            let interval = profile.meta.interval.map_or(String::new(), |i| format!(" at its {i:?} interval"));
            format!("{}, which count the default {} exactly{interval}", metrics[chosen].name, metrics[default].name)
        }
        _ => metrics[chosen].name.clone(),
    };
    report_dropped_metrics(profile, &named, target, Some(&writing), diag);
    let keep: Vec<bool> = (0..profile.metrics().len()).map(|i| i == chosen).collect();
    profile.retain_metrics(&keep);
    profile.tree.forget_measured_inclusive();
}

/// Turns the one metric left into whole samples (time divided by the interval, floats rounded).
pub(super) fn single_count(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let (chosen, target) = (0, to.target);
    let metric = profile.metrics()[chosen].clone();
    let converted = match metric.unit.nanos() {
        Some(_) if !to.carries.weight_is_time && to.options.interval.is_none() => {
            let (unit, counts) = whole_time(profile.tree.self_values(chosen), metric.unit);
            let (from, name) = (metric.unit.name(), metric.name.clone());
            diag.warn("time-as-count", None, || {
                format!(
                    "{target} holds one whole number per stack: {name} (in {from}) is written in whole {} (read it back with --folded-unit {0}; --interval divides it into samples instead)",
                    unit.name()
                )
            });
            Some((Metric { unit, repr: Repr::Int, ..metric }, counts))
        }
        Some(unit_nanos) => {
            let interval = conversion_interval(profile, to, Turning::TimeIntoCounts, diag);
            let per_sample = interval.as_nanos() as f64 / unit_nanos;
            let unit = metric.unit.name();
            diag.warn("time-to-samples", None, || {
                format!("{target} counts samples: time in {unit} divided into samples of {interval:?} (set with --interval)")
            });
            profile.meta.interval = Some(interval);
            let counts = whole_samples(profile.tree.self_values(chosen), per_sample);
            let samples = Metric {
                name: "samples".into(),
                kind: MetricKind::Samples,
                unit: Unit::Count,
                repr: Repr::Int,
                ..metric
            };
            Some((samples, counts))
        }
        None if metric.repr == Repr::Float => {
            let name = metric.name.clone();
            diag.warn("rounded", None, || format!("{target} holds whole numbers: {name} values are rounded"));
            let counts = whole_samples(profile.tree.self_values(chosen), 1.0);
            Some((Metric { repr: Repr::Int, ..metric }, counts))
        }
        None => None,
    };
    if let Some((metric, counts)) = converted {
        profile.replace_metric(0, metric, Values::Int(counts));
    }
}

/// Time `values` in `unit` as whole numbers of the coarsest unit, no finer than nanoseconds, in
/// which every value is whole (Dyalog's 0.0455 ms as 45500 ns, BR's nanoseconds as they are);
/// nanoseconds rounded (keeping the total) where none is.
pub(super) fn whole_time(values: &Values, unit: Unit) -> (Unit, Vec<i64>) {
    let from = unit.nanos().unwrap_or(1.0);
    let finer = [Unit::Milliseconds, Unit::Microseconds, Unit::Nanoseconds]
        .into_iter()
        .filter(|u| u.nanos().is_some_and(|n| n <= from));
    let whole = |x: f64| (x - x.round()).abs() <= 1e-9 * x.abs().max(1.0);
    let per_unit = |to: Unit| to.nanos().unwrap_or(1.0) / from;
    let unit = match values {
        Values::Int(_) => unit,
        Values::Float(v) => {
            finer.clone().find(|&to| v.iter().all(|&x| whole(x / per_unit(to)))).unwrap_or(Unit::Nanoseconds)
        }
    };
    (unit, whole_samples(values, per_unit(unit)))
}
