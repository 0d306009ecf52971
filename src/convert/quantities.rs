//! Samples, ticks and time into one another at an interval; units of one quantity by their factor.

use super::Conversion;
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{effective_interval, Turning};
use crate::model::{Metric, MetricKind, Profile, Repr, Sampling, Unit, Values};
use std::time::Duration;

/// Adds a samples metric for a target that needs samples (one BR group per sample) when the profile
/// has none: time divided by the interval, else its ticks (GHC ticks are samples by another name).
pub(super) fn time_into_samples(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let (metrics, target) = (profile.metrics(), to.target);
    if metrics.iter().any(|m| m.kind == MetricKind::Samples) {
        return;
    }
    let time =
        metrics.iter().enumerate().find_map(|(i, m)| Some((i, m.unit.nanos()?)).filter(|_| m.kind == MetricKind::Time));
    let Some((time, unit_nanos)) = time else {
        if let Some(ticks) = metrics.iter().position(|m| m.kind == MetricKind::Ticks) {
            let name = metrics[ticks].name.clone();
            diag.warn("ticks-as-samples", None, || format!("{target} counts samples: {name} are written as samples"));
            let counts = whole_samples(profile.tree.self_values(ticks), 1.0);
            profile.add_metric(Metric::samples(), Values::Int(counts));
        }
        return;
    };
    let interval = conversion_interval(profile, to, Turning::TimeIntoCounts, diag);
    diag.warn("time-to-samples", None, || {
        format!("{target} counts samples: time divided into samples of {interval:?} (set with --interval)")
    });
    let counts = whole_samples(profile.tree.self_values(time), interval.as_nanos() as f64 / unit_nanos);
    profile.meta.interval = Some(interval);
    profile.add_metric(Metric::samples(), Values::Int(counts));
}

/// The interval that turns time into counts, or counts into time that replaces them, for the
/// target ([`effective_interval`] as `turning` says: `--interval` first for new counts, the
/// profile's own first for its counts), as the target states an interval (GHC's `-px` in whole
/// milliseconds: 250 µs is 1 ms there, with a warning), so that the counts are of the interval its
/// header gives. The conversion has applied `--interval` where it is the one taken.
pub(super) fn conversion_interval(
    profile: &Profile,
    to: &Conversion,
    turning: Turning,
    diag: &mut Diagnostics,
) -> Duration {
    let interval = effective_interval(to.options.interval, profile.meta.interval, turning);
    if to.options.interval == Some(interval) {
        to.interval_applied.set(true);
    }
    let Some(step) = to.carries.interval_step else { return interval };
    let stated = crate::formats::stated_interval(interval, step);
    let target = to.target;
    if stated != interval {
        diag.warn("interval-rounded", None, || {
            format!("{target} states its interval in steps of {step:?}: time is counted in intervals of {stated:?}, not {interval:?}")
        });
    }
    stated
}

/// The interval of a profile whose counts are kept as they are (no time was turned into counts):
/// the profile's own, `own`, the interval they were taken at. An `--interval` that differs from it
/// is not applied, with a warning; a profile without an interval of its own takes `--interval`.
pub(super) fn interval_of_kept_counts(
    profile: &mut Profile,
    own: Option<Duration>,
    to: &Conversion,
    diag: &mut Diagnostics,
) {
    let (Some(given), target) = (to.options.interval, to.target) else { return };
    match own {
        None => profile.meta.interval = Some(given),
        Some(own) if own != given => {
            let written = if to.carries.interval {
                format!("{target} gets the profile's own interval, {own:?}")
            } else {
                format!("the profile's own interval is {own:?}")
            };
            diag.warn("interval-not-applied", None, || {
                format!(
                    "--interval {given:?} is not applied: no time is turned into counts, and counts are kept as they were taken; {written}"
                )
            });
            profile.meta.interval = Some(own);
        }
        Some(_) => {}
    }
}

/// Converts time metrics into `unit` (nanoseconds into Dyalog's milliseconds).
pub(super) fn into_time_unit(profile: &mut Profile, unit: Unit) {
    let Some(to) = unit.nanos() else { return };
    for i in 0..profile.metrics().len() {
        let metric = &profile.metrics()[i];
        let Some(from) = metric.unit.nanos().filter(|_| metric.kind == MetricKind::Time && metric.unit != unit) else {
            continue;
        };
        let convert =
            |values: &Values| Values::Float((0..values.len()).map(|n| values.get(n).as_f64() * from / to).collect());
        let converted = convert(profile.tree.self_values(i));
        // Inclusive values are converted too: measured ones so as not to lose them, and whole-number
        // sums (nanoseconds, say) because they are exact, where sums of the converted values are not.
        let inclusive = match (profile.tree.measured_inclusive(i), metric.repr) {
            (Some(measured), _) => Some(convert(measured)),
            (None, Repr::Int) => Some(convert(&profile.tree.derived_inclusive(i))),
            (None, Repr::Float) => None,
        };
        let metric = Metric { unit, repr: Repr::Float, ..metric.clone() };
        profile.replace_metric(i, metric, converted);
        if let Some(inclusive) = inclusive {
            profile.tree.set_measured_inclusive_column(i, inclusive);
        }
    }
}

/// Turns a count of sampling intervals the target does not hold (samples where it measures time
/// but counts no samples, as Dyalog; GHC ticks where it has no ticks) into time, the count × the
/// interval, unless the profile has time already.
pub(super) fn counts_into_time(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let (metrics, target) = (profile.metrics(), to.target);
    let not_held =
        |m: &Metric| matches!(m.kind, MetricKind::Samples | MetricKind::Ticks) && !to.carries.metrics.contains(&m.kind);
    let Some(samples) = metrics.iter().position(|m| m.is_additive() && not_held(m)) else { return };
    // A time beside the samples is the time they measure (a Go CPU profile's cpu), unless the
    // source says its samples come first: then the time is of something else (a JFR recording's
    // lock waits), and the samples become time.
    let samples_first = profile.meta.weighed_by == Some(MetricKind::Samples);
    if metrics.iter().any(|m| m.kind == MetricKind::Time) && !samples_first {
        return;
    }
    let interval = conversion_interval(profile, to, Turning::CountsIntoTime, diag);
    let ms = interval.as_secs_f64() * 1e3;
    let counts = metrics[samples].name.clone();
    diag.warn("samples-to-time", None, || {
        format!("{target} measures time: {counts} multiplied by an interval of {interval:?} (set with --interval)")
    });
    let values = profile.tree.self_values(samples);
    let times = Values::Float((0..values.len()).map(|i| values.get(i).as_f64() * ms).collect());
    // `time`, unless a metric has that name already: then the samples' own name with `time`.
    let taken = metrics.iter().any(|m| m.name == "time");
    let name = if taken { format!("{} time", metrics[samples].name) } else { "time".into() };
    let metric = Metric {
        name,
        kind: MetricKind::Time,
        unit: Unit::Milliseconds,
        repr: Repr::Float,
        sampling: sampling_in_kind(&metrics[samples], MetricKind::Time, interval),
        ..metrics[samples].clone()
    };
    profile.replace_metric(samples, metric, times);
}

/// For a target each of whose files holds time beside its counts ([`crate::formats::Carries::needs_time`]:
/// a `.cpuprofile`): time that weighs other events than the samples is dropped
/// ([`drop_time_of_other_events`]), and a profile without time gets its samples' (or ticks') time,
/// each count one interval, beside them, in the target's unit (said on stderr).
pub(super) fn time_beside_counts(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    drop_time_of_other_events(profile, to, diag);
    if profile.metric_of_kind(MetricKind::Time).is_some() {
        return;
    }
    let counts = profile.metric_of_kind(MetricKind::Samples).or_else(|| profile.metric_of_kind(MetricKind::Ticks));
    let unit = to.carries.time_unit.unwrap_or(Unit::Milliseconds);
    // The counts are kept: at the interval they were taken at, the profile's own first.
    let interval = effective_interval(to.options.interval, profile.meta.interval, Turning::CountsIntoTime);
    let per_count = interval.as_secs_f64() * (1e9 / unit.nanos().unwrap_or(1e6));
    let values = counts.map_or_else(
        || vec![0.0; profile.tree.len()],
        |m| profile.tree.self_values(m).to_f64().into_iter().map(|c| c * per_count).collect(),
    );
    if let Some(m) = counts {
        let (name, target, unit) = (profile.metrics()[m].name.clone(), to.target, unit.name());
        diag.warn("time-beside-counts", None, || {
            format!("{target} holds time: {name} written as time at {per_count} {unit} each")
        });
    }
    let time = Metric::time(unit, Repr::Float).sampled(Sampling::weights_of("samples"));
    profile.add_metric(time, Values::Float(values));
}

/// Drops, where the profile counts samples, a time that weighs other events than its samples (a JFR
/// recording's lock and park waits, weights of their own events): the target's time is its
/// samples', and a wait is no CPU time. Said on stderr.
fn drop_time_of_other_events(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let counts: Vec<&str> = (profile.metrics().iter())
        .filter(|m| matches!(m.kind, MetricKind::Samples | MetricKind::Ticks))
        .map(|m| m.name.as_str())
        .collect();
    let of_other_events = |m: &Metric| {
        m.kind == MetricKind::Time
            && !counts.is_empty()
            && matches!(&m.sampling, Sampling::Sampled { of: Some(of), .. } if !counts.contains(&of.as_str()))
    };
    let keep: Vec<bool> = profile.metrics().iter().map(|m| !of_other_events(m)).collect();
    if keep.iter().all(|&k| k) {
        return;
    }
    let dropped: Vec<String> =
        profile.metrics().iter().zip(&keep).filter(|(_, k)| !**k).map(|(m, _)| m.name.clone()).collect();
    let target = to.target;
    diag.warn("time-of-other-events", None, || {
        format!("{target}'s time is its samples': {} (time of other events) dropped", dropped.join(", "))
    });
    profile.retain_metrics(&keep);
}

/// For a target that counts ticks and not samples (GHC): a profile without ticks has its samples
/// written as ticks, or else its time divided into ticks of the interval (`--interval`, else the
/// profile's own, else 1 ms), rounded node by node keeping the total.
pub(super) fn counts_as_ticks(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let (metrics, target) = (profile.metrics(), to.target);
    if metrics.iter().any(|m| m.kind == MetricKind::Ticks) {
        return;
    }
    // What the profile is weighed by (a BR timed file: time), else samples, else time.
    let countable = |m: &Metric| m.kind == MetricKind::Samples || (m.kind == MetricKind::Time && m.is_additive());
    let source = profile
        .primary_metric()
        .filter(|&m| countable(&metrics[m]))
        .or_else(|| metrics.iter().position(|m| m.kind == MetricKind::Samples))
        .or_else(|| metrics.iter().position(countable));
    let Some(index) = source else { return };
    let metric = metrics[index].clone();
    let per_tick = match metric.unit.nanos() {
        Some(unit_nanos) => {
            let interval = conversion_interval(profile, to, Turning::TimeIntoCounts, diag);
            profile.meta.interval = Some(interval);
            let unit = metric.unit.name();
            diag.warn("time-to-ticks", None, || {
                format!(
                    "{target} counts ticks: time in {unit} divided into ticks of {interval:?} (set with --interval)"
                )
            });
            interval.as_nanos() as f64 / unit_nanos
        }
        None => samples_per_stated_tick(profile, to, diag),
    };
    let counts = whole_samples(profile.tree.self_values(index), per_tick);
    let ticks = Metric { aggregation: metric.aggregation, ..Metric::ticks() };
    if profile.metric_index("ticks").is_none_or(|i| i == index) {
        profile.replace_metric(index, ticks, Values::Int(counts));
    }
}

/// How many samples make a tick of the interval the target states: 1 where it can state the
/// samples' own (the profile's, else `--interval`); else theirs over the one it states (samples of
/// 1.5 ms are ticks of GHC's whole 2 ms, 4 to 3), which becomes the profile's, said, so that the
/// ticks are the samples' time.
fn samples_per_stated_tick(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) -> f64 {
    let Some(step) = to.carries.interval_step else { return 1.0 };
    let taken = effective_interval(to.options.interval, profile.meta.interval, Turning::CountsIntoTime);
    let stated = crate::formats::stated_interval(taken, step);
    if stated == taken || (profile.meta.interval.is_none() && to.options.interval.is_none()) {
        return 1.0;
    }
    if to.options.interval == Some(taken) {
        to.interval_applied.set(true);
    }
    let target = to.target;
    diag.warn("interval-rounded", None, || {
        format!("{target} states its interval in steps of {step:?}: samples of {taken:?} are counted in ticks of {stated:?}")
    });
    profile.meta.interval = Some(stated);
    stated.as_nanos() as f64 / taken.as_nanos() as f64
}

/// Nanoseconds per unit of `metric` in a profile sampled every `interval`: its unit's for time, the
/// interval's for samples and ticks (one of each is one interval of time); `None` for quantities
/// that are no time (bytes, objects, calls).
pub(super) fn nanos_per_unit(metric: &Metric, interval: Duration) -> Option<f64> {
    match metric.kind {
        MetricKind::Time => metric.unit.nanos(),
        MetricKind::Samples | MetricKind::Ticks => Some(interval.as_nanos() as f64),
        _ => None,
    }
}

/// What [`into_quantity`] did to a metric, for the one line that says so.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QuantityChange {
    /// The metric as it was (`ticks (ticks, count, additive)`).
    pub from: Metric,
    /// The metric it became.
    pub to: Metric,
    /// The interval that turned counts into time or time into counts, where one did.
    pub interval: Option<Duration>,
}

impl std::fmt::Display for QuantityChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (from, to) = (&self.from, &self.to);
        let what = |m: &Metric| match m.kind {
            MetricKind::Time => format!("time in {}", m.unit.name()),
            kind => kind.name().to_string(),
        };
        write!(f, "{} ({}) taken as {}", from.name, what(from), what(to))?;
        match self.interval {
            Some(interval) => write!(f, " at an interval of {interval:?}"),
            None => Ok(()),
        }
    }
}

/// Turns additive metric `m` of `profile` into the quantity of `to` (its kind and unit, and its name
/// where the profile has no other metric of that name): units of one quantity by their factor
/// (milliseconds into nanoseconds), samples, ticks and time into one another at `interval` (the
/// interval of the counts: `--interval`, else their profile's own). Values stay whole where the factor
/// keeps them so. Returns what it did, `None` when `m` is `to`'s quantity already; an error naming
/// both where they cannot convert (bytes and time).
pub(crate) fn into_quantity(
    profile: &mut Profile,
    m: usize,
    to: &Metric,
    interval: Duration,
) -> Result<Option<QuantityChange>, Error> {
    let from = profile.metrics()[m].clone();
    if from.kind == to.kind && from.unit == to.unit {
        return Ok(None);
    }
    let cannot = |why: &str| Error::BadOption(format!("{from} cannot be taken as {to}: {why}"));
    let (factor, interval) = match (from.kind == to.kind, from.unit.factor_to(to.unit)) {
        (true, Some(factor)) => (factor, None),
        _ if from.kind.measures_time() && to.kind.measures_time() => {
            let (Some(a), Some(b)) = (nanos_per_unit(&from, interval), nanos_per_unit(to, interval)) else {
                return Err(cannot("their units differ"));
            };
            (a / b, Some(interval))
        }
        _ => return Err(cannot("they measure different things")),
    };
    let whole = factor.fract() == 0.0 && factor >= 1.0 && from.repr == Repr::Int;
    let scale = |values: &Values| match whole {
        true => {
            Values::Int((0..values.len()).map(|i| values.get(i).as_count().saturating_mul(factor as i64)).collect())
        }
        false => Values::Float((0..values.len()).map(|i| values.get(i).as_f64() * factor).collect()),
    };
    let converted = scale(profile.tree.self_values(m));
    // Measured inclusive values (Dyalog's) are the same quantity: they are scaled alike.
    let measured = profile.tree.measured_inclusive(m).map(scale);
    let name_taken = profile.metrics().iter().enumerate().any(|(i, other)| i != m && other.name == to.name);
    let metric = Metric {
        name: if name_taken { from.name.clone() } else { to.name.clone() },
        kind: to.kind,
        unit: to.unit,
        repr: if whole { Repr::Int } else { Repr::Float },
        sampling: interval.map_or_else(|| from.sampling.clone(), |interval| sampling_in_kind(&from, to.kind, interval)),
        ..from.clone()
    };
    profile.replace_metric(m, metric.clone(), converted);
    if let Some(measured) = measured {
        profile.tree.set_measured_inclusive_column(m, measured);
    }
    Ok(Some(QuantityChange { from, to: metric, interval }))
}

/// The sampling of `from` once its values are turned into `kind` at `interval` (samples into time,
/// time into samples): samples become time of one interval a sample; time of samples becomes their
/// count; any other sampling stays what it was.
fn sampling_in_kind(from: &Metric, kind: MetricKind, interval: Duration) -> Sampling {
    let sampled = matches!(from.sampling, Sampling::Sampled { .. });
    match (from.kind, kind) {
        (MetricKind::Samples | MetricKind::Ticks, MetricKind::Time) if sampled => {
            Sampling::Sampled { of: None, per: u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX).max(1) }
        }
        (MetricKind::Time, MetricKind::Samples | MetricKind::Ticks) if sampled => Sampling::counts(),
        _ => from.sampling.clone(),
    }
}

/// Divides every value by `per_sample` and rounds to whole samples so that the rounded values add up
/// to the rounded total (largest remainder first), and no value is rounded by more than one.
pub(crate) fn whole_samples(values: &Values, per_sample: f64) -> Vec<i64> {
    if let (Values::Int(v), true) = (values, per_sample == 1.0) {
        return v.clone();
    }
    let exact: Vec<f64> = (0..values.len()).map(|i| values.get(i).as_f64() / per_sample).collect();
    let mut counts: Vec<i64> = exact.iter().map(|e| e.floor() as i64).collect();
    let target = exact.iter().sum::<f64>().round() as i64;
    let floor_sum: i64 = counts.iter().fold(0i64, |a, &b| a.saturating_add(b));
    let missing = usize::try_from(target.saturating_sub(floor_sum)).unwrap_or(0).min(counts.len());
    if missing > 0 {
        // The `missing` largest remainders (ties: first node first), found without sorting them all.
        let mut order: Vec<(f64, u32)> = exact.iter().enumerate().map(|(i, e)| (e - e.floor(), i as u32)).collect();
        drop(exact);
        order.select_nth_unstable_by(missing - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, i) in &order[..missing] {
            counts[i as usize] += 1;
        }
    }
    counts
}
