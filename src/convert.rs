//! Conversion: projecting a profile onto what a target format carries, naming every loss.
//!
//! Writers consume a profile that already fits their format; this module makes it fit, following the
//! conversion rules of the shared model notes (§3), and says on stderr (through [`Diagnostics`]) what
//! did not survive, one warning per kind of loss:
//!
//! - a target with one number per node gets one metric: `--metric`, else the profile's primary one;
//!   the others are dropped by name. A per-node calls metric becomes per-function call counts where
//!   the target has those (LispWorks Call-Count);
//! - time becomes whole samples by dividing by the sampling interval (`--interval`, else the
//!   profile's own, else 1 ms), rounding node by node while keeping the total; counts that are
//!   counts already (samples, ticks) keep the profile's own interval, and an `--interval` that
//!   differs from it is not applied, with a warning;
//! - line frames merge into their functions where the target has no line numbers;
//! - siblings that share a frame merge where the target stores whole stacks (equal stacks are one);
//! - characters a frame name cannot hold in the target are replaced (`;` in folded stacks);
//! - modules, per-function facts and header facts the target has no place for are dropped by name.

pub use crate::formats::{ConvertOptions, FormatOptions, DEFAULT_INTERVAL, DEFAULT_MAX_SAMPLES};

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{Carries, Format, Structure};
use crate::model::{ops, Frame, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, Values};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;
use std::time::Duration;

/// `profile` reduced to what `target` carries. Works in place: a profile that already fits is
/// returned as it came, without a copy.
pub fn project(
    mut profile: Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, Error> {
    let carries = target.carries();
    let source = Source::of(&profile);
    if carries.weight_is_time {
        weigh_by_time(&mut profile, target, options, diag)?;
    }
    report_dropped_header(&profile, target, &carries, diag);
    if carries.one_metric {
        // First, so that the steps below copy one column, not all.
        keep_one_metric(&mut profile, target, options, diag)?;
    } else if !target.keeps_measured_inclusive() {
        let carried = |m: usize| carries.metrics.contains(&profile.metrics()[m].kind);
        report_measured_inclusive_dropped(&profile, target, carried, diag);
    }
    report_flat_rows(&profile, target, &carries, diag);
    let mut profile = fit_lines(profile, target, &carries, options, diag);
    let mut interval = fit_time_and_counts(&mut profile, target, &carries, options, diag);
    fit_namespaces(&mut profile, target, diag);
    fit_roots_and_frames(&mut profile, target, &carries, source.ghc_namespaces, diag);
    if carries.structure == Structure::Stacks {
        profile = merge_equal_stacks(profile);
    }
    interval = interval.or(fit_metrics(&mut profile, target, &carries, options, diag));
    drop_function_facts(&mut profile, target, &carries, diag);
    let (mut profile, by_target) = fit_by_target(profile, target, options, diag);
    if interval.or(by_target) == IntervalUse::Unused {
        interval_of_kept_counts(&mut profile, source.interval, target, options, diag);
    }
    drop_header_facts(&mut profile.meta, &carries);
    Ok(profile)
}

/// What the projection needs to know of the profile as it came, before the steps change it.
struct Source {
    /// Its own interval, the one its counts were taken at.
    interval: Option<Duration>,
    /// Whether it was read from GHC (whose modules are namespaces), before a GHC target marks it so.
    ghc_namespaces: bool,
}

impl Source {
    fn of(profile: &Profile) -> Source {
        Source { interval: profile.meta.interval, ghc_namespaces: profile.meta.module_namespaces }
    }
}

/// Whether a step measured counts against the interval (time divided into samples or ticks, counts
/// multiplied into time): then `--interval` was applied, and the profile's own interval no longer
/// says what its counts were taken at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
enum IntervalUse {
    /// Counts and time were turned into one another at the interval.
    Applied,
    /// Nothing was.
    Unused,
}

impl IntervalUse {
    /// `Applied` if either is.
    fn or(self, other: IntervalUse) -> IntervalUse {
        if self == IntervalUse::Applied {
            self
        } else {
            other
        }
    }

    fn from_applied(applied: bool) -> IntervalUse {
        if applied {
            IntervalUse::Applied
        } else {
            IntervalUse::Unused
        }
    }
}

/// For a target with one number per node: keeps the metric it writes ([`choose_metric`]), naming
/// the others as dropped (and its measured inclusive values, which the target derives); a target
/// with per-function counts takes a per-node calls metric as its Call-Count first.
fn keep_one_metric(
    profile: &mut Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<usize, Error> {
    let chosen = choose_metric(profile, options, target)?;
    report_measured_inclusive_dropped(profile, target, |m| m == chosen, diag);
    if target.carries().function_facts {
        absorb_calls(profile, chosen);
    }
    keep_only(profile, chosen, target, diag);
    Ok(chosen)
}

/// Says once that a flat report (rows without call structure) becomes stacks of one function each
/// in a target that holds no flat reports, and by how much its rows overlap where they do.
fn report_flat_rows(profile: &Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    if !profile.meta.flat || carries.flat_reports {
        return;
    }
    diag.warn("flat-report", None, || {
        format!("the source is a flat report without call structure: in {target} each function is a stack of its own")
    });
    if let Some((metric, rows, total)) = profile.overlapping_rows() {
        let (unit, excess, source) = (profile.metrics()[metric].unit.name(), rows - total.value, &total.source);
        let amount = |v: f64| format!("{} {unit}", crate::model::significant(v, 10));
        diag.warn("flat-overlap", None, || {
            format!(
                "the source's rows overlap (each function's time holds that of the functions it calls): in {target} they add up to {}, {} ({:.1} %) more than its total of {} ({source})",
                amount(rows), amount(excess), 100.0 * excess / total.value, amount(total.value)
            )
        });
    }
}

/// Fits line frames to the target: unnested where its lines stand in their function's place (BR),
/// named `name[line]` with `--lines` where it has no line numbers, else merged into their functions
/// where it has none (said once).
fn fit_lines(
    mut profile: Profile,
    target: Format,
    carries: &Carries,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Profile {
    let has_lines = profile.frames.iter().any(|(_, f)| f.kind == FrameKind::Line);
    if has_lines && carries.source_lines && !carries.lines_nest && !options.functions {
        profile = ops::unnest_lines(&profile);
    }
    if profile.meta.lines_merged && !options.functions {
        lines_merged(target, diag);
    }
    if has_lines && options.lines && !options.functions && !carries.source_lines {
        diag.warn("lines-named", None, || {
            format!("{target} has no line numbers: line frames written as functions named name[line] (--lines)")
        });
        ops::map_frames(&mut profile, |frame| {
            let named =
                Frame { name: frame.to_string(), line: None, clause: None, kind: FrameKind::Function, ..frame.clone() };
            (frame.kind == FrameKind::Line).then_some(named)
        });
    } else if has_lines && options.merges_lines(target) {
        if !options.functions {
            lines_merged(target, diag);
        }
        profile = ops::merge_lines(&profile);
    }
    profile
}

/// Gives the target the quantities it holds: samples as time where it measures time and counts no
/// samples (Dyalog), time as samples where it is made of one record per sample (BR), time in the
/// unit it writes (Dyalog's ms).
fn fit_time_and_counts(
    profile: &mut Profile,
    target: Format,
    carries: &Carries,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    let mut interval = IntervalUse::Unused;
    if !carries.metrics.contains(&MetricKind::Samples) && carries.metrics.contains(&MetricKind::Time) {
        interval = interval.or(samples_into_time(profile, target, carries, options, diag));
    }
    if carries.needs_samples {
        interval = interval.or(time_into_samples(profile, target, options, diag));
    }
    if let Some(unit) = carries.time_unit {
        into_time_unit(profile, unit);
    }
    interval
}

/// Names frames as the target does: `Module.label` where GHC's namespaces meet a target without
/// them, split back into cost centre and module for a GHC target.
fn fit_namespaces(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    if profile.meta.module_namespaces && !target.module_is_namespace() {
        ops::qualify_names(profile);
    } else if target.module_is_namespace() && !profile.meta.module_namespaces {
        into_namespaces(profile, target, diag);
    }
}

/// Fits the roots and frames: a single-root target's root freed of a thread above it and given the
/// others ([`put_roots_under_one`]), names and kinds fitted ([`fit_frames`]), the target's own rule
/// for roots, and frame facts of other formats dropped.
fn fit_roots_and_frames(
    profile: &mut Profile,
    target: Format,
    carries: &Carries,
    ghc_namespaces: bool,
    diag: &mut Diagnostics,
) {
    if let Some(root) = target.single_root() {
        unwrap_thread_above(profile, root, target, diag);
    }
    fit_frames(profile, target, carries, diag);
    if let Some(root) = target.single_root() {
        put_roots_under_one(profile, root, ghc_namespaces, target, diag);
    }
    target.fit_roots(profile, diag);
    drop_foreign_frame_attrs(profile, target, diag);
}

/// For a target that stores whole stacks, whose stack is its own identity: equal stacks made one,
/// as they would read back as one.
fn merge_equal_stacks(profile: Profile) -> Profile {
    match profile.tree.has_duplicate_siblings(profile.frames.len()) {
        true => ops::merge_siblings(&profile),
        false => profile,
    }
}

/// Gives the target the metrics it holds: the one metric of a one-number target as whole counts
/// ([`single_count`]); for the others, ticks where the target counts ticks only (GHC), and the
/// metrics it has no place for dropped, by name.
fn fit_metrics(
    profile: &mut Profile,
    target: Format,
    carries: &Carries,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    if carries.one_metric {
        return single_count(profile, target, options, diag);
    }
    let holds = |k| carries.metrics.contains(&k);
    let mut interval = IntervalUse::Unused;
    if holds(MetricKind::Ticks) && !holds(MetricKind::Samples) && !holds(MetricKind::Time) {
        interval = counts_as_ticks(profile, target, options, diag);
    }
    let keep: Vec<bool> = profile.metrics().iter().map(|m| holds(m.kind)).collect();
    report_dropped_metrics(profile, &keep, target, None, diag);
    if keep.contains(&false) {
        profile.retain_metrics(&keep);
    }
    interval
}

/// Drops per-function counts (LispWorks Call/Seen/Top) where the target has none, said once.
fn drop_function_facts(profile: &mut Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    if carries.function_facts || profile.function_facts.is_empty() {
        return;
    }
    diag.warn("facts-dropped", None, || {
        format!("{target} has no per-function counts: Call-Count, Seen-Count and Top-Count are dropped")
    });
    // Dropped indeed, before the writer runs: a writer that formats on several threads needs the room.
    profile.function_facts.clear();
}

/// The target's own last step ([`Format::fit`]), and whether it turned counts into time at the
/// interval (BR's timed mode).
fn fit_by_target(
    profile: Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> (Profile, IntervalUse) {
    let has_time = |p: &Profile| p.metrics().iter().any(|m| m.kind == MetricKind::Time);
    let timed = has_time(&profile);
    let profile = target.fit(profile, options, diag);
    let applied = !timed && has_time(&profile);
    (profile, IntervalUse::from_applied(applied))
}

/// Drops the header facts the target has no place for (named before), so that the profile is what
/// it holds.
fn drop_header_facts(meta: &mut crate::model::Meta, carries: &Carries) {
    (meta.title, meta.timestamp, meta.interval) = (
        meta.title.take().filter(|_| carries.title),
        meta.timestamp.take().filter(|_| carries.timestamp),
        meta.interval.take().filter(|_| carries.interval),
    );
}

/// How a profile came to be weighed by time for a target whose weight is time
/// ([`Carries::weight_is_time`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeWeight {
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
fn weigh_by_time(
    profile: &mut Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<TimeWeight, Error> {
    let metrics = profile.metrics();
    let chosen = match &options.metric {
        Some(name) => Some(metric_named(profile, name)?),
        None => profile.primary_metric(),
    };
    if chosen.is_none_or(|m| metrics[m].kind.measures_time() || !metrics[m].is_additive()) {
        return Ok(TimeWeight::AsItWas);
    }
    let weight = target.carries().metrics.iter().copied().find(|k| k.measures_time()).unwrap_or(MetricKind::Samples);
    if let (Some(m), Some(_)) = (chosen, &options.metric) {
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

/// What a metric's numbers count, for messages: `bytes`, `objects`, `contentions events`, ….
fn what_it_counts(metric: &Metric) -> String {
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
fn report_measured_inclusive_dropped(
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

fn lines_merged(target: Format, diag: &mut Diagnostics) {
    diag.lacks("lines-merged", target.name(), "line numbers", || {
        format!(
            "{target} has no line numbers: line frames merged into their functions (--lines keeps them as name[line])"
        )
    });
}

/// Adds a samples metric for a target that needs samples (one BR group per sample) when the profile
/// has none: time divided by the interval, else its ticks (GHC ticks are samples by another name).
fn time_into_samples(
    profile: &mut Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    let metrics = profile.metrics();
    if metrics.iter().any(|m| m.kind == MetricKind::Samples) {
        return IntervalUse::Unused;
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
        return IntervalUse::Unused;
    };
    let interval = conversion_interval(profile, options);
    diag.warn("time-to-samples", None, || {
        format!("{target} counts samples: time divided into samples of {interval:?} (set with --interval)")
    });
    let counts = whole_samples(profile.tree.self_values(time), interval.as_nanos() as f64 / unit_nanos);
    profile.meta.interval = Some(interval);
    profile.add_metric(Metric::samples(), Values::Int(counts));
    IntervalUse::Applied
}

/// The interval that turns time into counts (and counts into time): `--interval`, else the
/// profile's own, else [`DEFAULT_INTERVAL`].
fn conversion_interval(profile: &Profile, options: &ConvertOptions) -> Duration {
    options.interval.or(profile.meta.interval).unwrap_or(DEFAULT_INTERVAL)
}

/// The interval of a profile whose counts are kept as they are (no time was turned into counts):
/// the profile's own, `own`, the interval they were taken at. An `--interval` that differs from it
/// is not applied, with a warning; a profile without an interval of its own takes `--interval`.
fn interval_of_kept_counts(
    profile: &mut Profile,
    own: Option<Duration>,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) {
    let Some(given) = options.interval else { return };
    match own {
        None => profile.meta.interval = Some(given),
        Some(own) if own != given => {
            let written = if target.carries().interval {
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
fn into_time_unit(profile: &mut Profile, unit: Unit) {
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

/// Turns a count of sampling intervals (samples, or GHC ticks where the target has no ticks) into
/// time (the count × the interval) for a target that measures time but not samples, unless the
/// profile has time already.
fn samples_into_time(
    profile: &mut Profile,
    target: Format,
    carries: &Carries,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    let metrics = profile.metrics();
    let timed_counts = |m: &Metric| {
        m.is_additive()
            && (m.kind == MetricKind::Samples || (m.kind == MetricKind::Ticks && !carries.metrics.contains(&m.kind)))
    };
    let Some(samples) = metrics.iter().position(timed_counts) else { return IntervalUse::Unused };
    if metrics.iter().any(|m| m.kind == MetricKind::Time) {
        return IntervalUse::Unused;
    }
    let interval = conversion_interval(profile, options);
    let ms = interval.as_secs_f64() * 1e3;
    let counts = metrics[samples].name.clone();
    diag.warn("samples-to-time", None, || {
        format!("{target} measures time: {counts} multiplied by an interval of {interval:?} (set with --interval)")
    });
    let values = profile.tree.self_values(samples);
    let times = Values::Float((0..values.len()).map(|i| values.get(i).as_f64() * ms).collect());
    let metric = Metric {
        name: "time".into(),
        kind: MetricKind::Time,
        unit: Unit::Milliseconds,
        repr: Repr::Float,
        ..metrics[samples].clone()
    };
    profile.replace_metric(samples, metric, times);
    IntervalUse::Applied
}

/// Fits frames to what `target` can tell apart: names without the characters it cannot hold (one
/// warning per character), no module where it has none, every frame a function where it has no
/// frame kinds. Frames that become equal merge.
fn fit_frames(profile: &mut Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    let bad: Vec<(char, char)> = carries
        .name_replacements
        .iter()
        .copied()
        .filter(|&(c, _)| profile.frames.iter().any(|(_, f)| f.name.contains(c)))
        .collect();
    for &(c, with) in &bad {
        diag.warn(sanitised_key(c), None, || format!("{target} frame names cannot hold {c:?}: written as {with:?}"));
    }
    let fits = |f: &Frame| {
        (carries.modules || f.module.is_none())
            && (carries.frame_kinds || carries.thread_roots || matches!(f.kind, FrameKind::Function | FrameKind::Line))
            && !bad.iter().any(|&(c, _)| f.name.contains(c))
    };
    if profile.frames.iter().all(|(_, f)| fits(f)) {
        return;
    }
    if !carries.modules && profile.frames.iter().any(|(_, f)| f.module.is_some()) {
        diag.lacks("modules-dropped", target.name(), "modules", || {
            format!("{target} has no modules or libraries: they are dropped from frames")
        });
    }
    let fit = |frame: &Frame| Frame {
        // A line of no named function is named by its place where its file cannot be kept.
        name: match frame.is_anonymous_line() && !carries.modules {
            true => frame.to_string(),
            false => frame.name.clone(),
        }
        .chars()
        .map(|ch| bad.iter().find(|&&(c, _)| c == ch).map_or(ch, |&(_, with)| with))
        .collect(),
        module: if carries.modules { frame.module.clone() } else { None },
        // Kinds below the roots of a thread-rooted format are fitted per node, after the roots are.
        kind: if carries.frame_kinds || carries.thread_roots || frame.kind == FrameKind::Line {
            frame.kind
        } else {
            FrameKind::Function
        },
        ..frame.clone()
    };
    // Writers print only what the target holds, so frames that only lose a module or a kind need no
    // new table unless two of them become one (one of the frames that already fit, or each other),
    // or a line of no named function takes its place as its name.
    let renames = !carries.modules && profile.frames.iter().any(|(_, f)| f.is_anonymous_line() && f.module.is_some());
    if bad.is_empty() && !renames {
        let mut fitted: FxHashSet<Frame> = FxHashSet::default();
        let collides = profile.frames.iter().filter(|(_, f)| !fits(f)).any(|(_, f)| {
            let new = fit(f);
            profile.frames.contains(new.as_ref()) || !fitted.insert(new)
        });
        if !collides {
            return;
        }
    }
    ops::map_frames(profile, |frame| (!fits(frame)).then(|| fit(frame)));
}

/// The warning key of replacing `c` in frame names: one per character, so that each replacement
/// is its own warning line.
fn sanitised_key(c: char) -> &'static str {
    match c {
        '"' => "name-sanitised-quote",
        '\n' => "name-sanitised-newline",
        '\r' => "name-sanitised-cr",
        '\t' => "name-sanitised-tab",
        ';' => "name-sanitised-semicolon",
        _ => "name-sanitised",
    }
}

/// On the way to a format whose module is a namespace (GHC) from one whose modules are not: drops the
/// modules (library paths, files), with a warning, and splits names written `Module.label` (as
/// [`ops::qualify_names`] and inferno write cost centres in folded stacks) back into module and label, so
/// that `MAIN.MAIN` is GHC's root again. The profile's modules are namespaces from then on.
fn into_namespaces(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    profile.meta.module_namespaces = true;
    if profile.frames.iter().any(|(_, f)| f.module.is_some()) {
        diag.lacks("modules-dropped", target.name(), "libraries and files", || {
            format!("{target} modules are code namespaces (GHC modules): the input's libraries or files are dropped")
        });
    }
    ops::map_frames(profile, |frame| {
        let split = target.split_qualified(&frame.name);
        match split {
            Some((module, label)) => {
                Some(Frame { name: label.to_string(), module: Some(module.to_string()), ..frame.clone() })
            }
            None => frame.module.is_some().then(|| Frame { module: None, ..frame.clone() }),
        }
    });
}

/// Puts the roots under one `root`, for formats with a single root (GHC's `MAIN`), with a warning:
/// all of them, unless there is one root and it is `root` already, or it is the root stack of a GHC
/// profile (`from_ghc`: MAIN's stack, even where GHC 7.2 left MAIN's cost centre undeclared).
fn put_roots_under_one(
    profile: &mut Profile,
    root: FrameRef<'_>,
    from_ghc: bool,
    target: Format,
    diag: &mut Diagnostics,
) {
    let (first, second) = {
        let mut roots = profile.tree.roots();
        (roots.next(), roots.next())
    };
    match (first, second) {
        (None, _) => return,
        (Some(only), None) if from_ghc || profile.frames.get(profile.tree.frame(only)).as_ref() == root => return,
        _ => {}
    }
    let name = root.name;
    diag.warn("roots-adopted", None, || {
        format!("{target} has one root, {name}: the input's roots are put under a {name} added for them")
    });
    let frame = profile.frames.intern(root);
    *profile = ops::adopt_roots(profile, frame, |_| true);
}

/// For a format with a single root (GHC's `MAIN`): a profile whose one root is a thread with no value
/// of its own and one child, `root` (a GHC profile that went through Sampler), has that thread
/// dropped, with a warning, so that `root` is the root again rather than a frame under another.
fn unwrap_thread_above(profile: &mut Profile, root: FrameRef<'_>, target: Format, diag: &mut Diagnostics) {
    let Some(thread) = thread_above(profile, root) else { return };
    let name = profile.frames.get(profile.tree.frame(thread)).name.clone();
    diag.warn("thread-dropped", None, || {
        format!("{target} has no threads: thread {name:?} above {} is dropped", root.name)
    });
    *profile = ops::unwrap_root(profile, thread);
}

/// The profile's one root when it is a thread with no value of its own whose only child is `root`.
fn thread_above(profile: &Profile, root: FrameRef<'_>) -> Option<NodeId> {
    let tree = &profile.tree;
    let mut roots = tree.roots();
    let (Some(thread), None) = (roots.next(), roots.next()) else { return None };
    let mut children = tree.nodes().filter(|&n| tree.parent(n) == Some(thread));
    let (Some(only_child), None) = (children.next(), children.next()) else { return None };
    let frame = |n: NodeId| profile.frames.get(tree.frame(n));
    let empty = (0..profile.metrics().len()).all(|m| tree.self_value(m, thread).as_f64() == 0.0);
    (frame(thread).kind == FrameKind::Thread && frame(only_child).as_ref() == root && empty).then_some(thread)
}

/// For a target that counts ticks and not samples (GHC): a profile without ticks has its samples
/// written as ticks, or else its time divided into ticks of the interval (`--interval`, else the
/// profile's own, else 1 ms), rounded node by node keeping the total.
fn counts_as_ticks(
    profile: &mut Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    let metrics = profile.metrics();
    if metrics.iter().any(|m| m.kind == MetricKind::Ticks) {
        return IntervalUse::Unused;
    }
    // What the profile is weighed by (a BR timed file: time), else samples, else time.
    let countable = |m: &Metric| m.kind == MetricKind::Samples || (m.kind == MetricKind::Time && m.is_additive());
    let source = profile
        .primary_metric()
        .filter(|&m| countable(&metrics[m]))
        .or_else(|| metrics.iter().position(|m| m.kind == MetricKind::Samples))
        .or_else(|| metrics.iter().position(countable));
    let Some(index) = source else { return IntervalUse::Unused };
    let metric = metrics[index].clone();
    let timed = metric.unit.nanos().is_some();
    let per_tick = match metric.unit.nanos() {
        Some(unit_nanos) => {
            let interval = conversion_interval(profile, options);
            profile.meta.interval = Some(interval);
            let unit = metric.unit.name();
            diag.warn("time-to-ticks", None, || {
                format!(
                    "{target} counts ticks: time in {unit} divided into ticks of {interval:?} (set with --interval)"
                )
            });
            interval.as_nanos() as f64 / unit_nanos
        }
        None => 1.0,
    };
    let counts = whole_samples(profile.tree.self_values(index), per_tick);
    let ticks = Metric { aggregation: metric.aggregation, ..Metric::ticks() };
    if profile.metric_index("ticks").is_some_and(|i| i != index) {
        return IntervalUse::from_applied(timed);
    }
    profile.replace_metric(index, ticks, Values::Int(counts));
    IntervalUse::from_applied(timed)
}

/// Frame attrs belong to the format that wrote them (or to the formats that share one, such as
/// where a function is defined): any other target drops them, by name.
fn drop_foreign_frame_attrs(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    let mut dropped: Vec<String> = Vec::new();
    for attrs in profile.frame_attrs.values_mut() {
        attrs.retain(|(key, _)| {
            let keep = target.keeps_frame_attr(key);
            if !keep && !dropped.contains(key) {
                dropped.push(key.clone());
            }
            keep
        });
    }
    profile.frame_attrs.retain(|_, attrs| !attrs.is_empty());
    if !dropped.is_empty() {
        let keys = dropped.join(", ");
        diag.lacks("frame-attrs-dropped", target.name(), &keys, || {
            format!("{target} has no place for per-frame facts {keys}: dropped")
        });
    }
}

fn report_dropped_header(profile: &Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    let meta = &profile.meta;
    if let (Some(title), false) = (&meta.title, carries.title) {
        diag.lacks("title-dropped", target.name(), "title", || format!("{target} has no title: {title:?} is dropped"));
    }
    if let (Some(ts), false) = (&meta.timestamp, carries.timestamp) {
        diag.lacks("timestamp-dropped", target.name(), "timestamp", || {
            format!("{target} has no timestamp: {ts:?} is dropped")
        });
    }
    if let (Some(iv), false) = (meta.interval, carries.interval) {
        diag.lacks("interval-dropped", target.name(), "interval", || {
            format!("{target} has no sampling interval: {iv:?} is dropped")
        });
    }
    let foreign: Vec<&str> = meta.attrs.iter().map(|(k, _)| k.as_str()).filter(|k| !target.keeps_attr(k)).collect();
    if !foreign.is_empty() {
        let keys = foreign.join(", ");
        diag.lacks("attrs-dropped", target.name(), &format!("header facts {keys}"), || {
            format!("{target} has no place for header facts {keys}: dropped")
        });
    }
}

/// Nanoseconds per unit of `metric` in a profile sampled every `interval`: its unit's for time, the
/// interval's for samples and ticks (one of each is one interval of time); `None` for quantities
/// that are no time (bytes, objects, calls).
fn nanos_per_unit(metric: &Metric, interval: Duration) -> Option<f64> {
    match metric.kind {
        MetricKind::Time => metric.unit.nanos(),
        MetricKind::Samples | MetricKind::Ticks => Some(interval.as_nanos() as f64),
        _ => None,
    }
}

/// What [`into_quantity`] did to a metric, for the one line that says so.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantityChange {
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
pub fn into_quantity(
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
        ..from.clone()
    };
    profile.replace_metric(m, metric.clone(), converted);
    if let Some(measured) = measured {
        profile.tree.set_measured_inclusive_column(m, measured);
    }
    Ok(Some(QuantityChange { from, to: metric, interval }))
}

/// The metric `--metric name` asks for, or an error that lists the profile's metrics.
pub(crate) fn metric_named(profile: &Profile, name: &str) -> Result<usize, Error> {
    profile.metric_index(name).ok_or_else(|| {
        let all: Vec<&str> = profile.metrics().iter().map(|m| m.name.as_str()).collect();
        Error::BadOption(format!("--metric {name}: the profile has no such metric (it has: {})", all.join(", ")))
    })
}

/// The metric to write to a one-number-per-node target.
fn choose_metric(profile: &Profile, options: &ConvertOptions, target: Format) -> Result<usize, Error> {
    match &options.metric {
        Some(name) => metric_named(profile, name),
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
fn samples_standing_for(profile: &Profile, time: usize, options: &ConvertOptions) -> Option<usize> {
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
fn report_dropped_metrics(
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
fn metrics_named(names: &str) -> String {
    if names.contains(", ") {
        format!("metrics {names}")
    } else {
        format!("metric {names}")
    }
}

/// Moves a per-node calls metric into per-function call counts, for targets that have those.
fn absorb_calls(profile: &mut Profile, chosen: usize) {
    let Some(calls) = profile.metrics().iter().position(|m| m.kind == MetricKind::Calls) else {
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
/// values from self values), naming the others as dropped.
fn keep_only(profile: &mut Profile, chosen: usize, target: Format, diag: &mut Diagnostics) {
    let absorbs_calls = target.carries().function_facts;
    let named: Vec<bool> = (profile.metrics().iter().enumerate())
        .map(|(i, m)| i == chosen || (m.kind == MetricKind::Calls && absorbs_calls))
        .collect();
    report_dropped_metrics(profile, &named, target, Some(&profile.metrics()[chosen].name), diag);
    let keep: Vec<bool> = (0..profile.metrics().len()).map(|i| i == chosen).collect();
    profile.retain_metrics(&keep);
    profile.tree.forget_measured_inclusive();
}

/// Turns the one metric left into whole samples (time divided by the interval, floats rounded).
fn single_count(
    profile: &mut Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> IntervalUse {
    let chosen = 0;
    let metric = profile.metrics()[chosen].clone();
    let timed = metric.unit.nanos().is_some();
    let converted = match metric.unit.nanos() {
        Some(_) if !target.carries().weight_is_time && options.interval.is_none() => {
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
            let interval = conversion_interval(profile, options);
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
    IntervalUse::from_applied(timed)
}

/// Time `values` in `unit` as whole numbers of the coarsest unit, no finer than nanoseconds, in
/// which every value is whole (Dyalog's 0.0455 ms as 45500 ns, BR's nanoseconds as they are);
/// nanoseconds rounded (keeping the total) where none is.
fn whole_time(values: &Values, unit: Unit) -> (Unit, Vec<i64>) {
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

/// Divides every value by `per_sample` and rounds to whole samples so that the rounded values add up
/// to the rounded total (largest remainder first), and no value is rounded by more than one.
pub fn whole_samples(values: &Values, per_sample: f64) -> Vec<i64> {
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

/// Writing a profile as a format, the conversion step included: [`project`] onto what the format
/// carries (naming every loss in `diag`), then the format's writer ([`Format::write_fitted`]).
/// `use proftool::convert::Convert` and write with `format.write(profile, out, &options, diag)`.
pub trait Convert {
    /// Projects `profile` onto this format and writes it to `out`.
    fn write(
        self,
        profile: Profile,
        out: &mut dyn std::io::Write,
        options: &ConvertOptions,
        diag: &mut Diagnostics,
    ) -> Result<(), Error>;
}

impl Convert for Format {
    fn write(
        self,
        profile: Profile,
        out: &mut dyn std::io::Write,
        options: &ConvertOptions,
        diag: &mut Diagnostics,
    ) -> Result<(), Error> {
        let projected = project(profile, self, options, diag)?;
        self.write_fitted(&projected, out, options, diag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ReadOptions;
    use crate::model::FrameRef;

    fn read(format: Format, text: &str) -> Profile {
        format.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap()
    }

    /// The folded text of `profile` (one metric of whole counts).
    fn folded(profile: &Profile) -> String {
        let mut out = Vec::new();
        crate::formats::folded::write(profile, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_interval_is_applied_if_any_step_applied_it() {
        use IntervalUse::{Applied, Unused};
        assert_eq!((Unused.or(Unused), Unused.or(Applied), Applied.or(Unused)), (Unused, Applied, Applied));
    }

    #[test]
    fn equal_stacks_are_made_one() {
        // Two roots `main` (as a Dyalog report of several roots can give) become one.
        let mut profile = read(Format::Folded, "main;a 1\nmain;b 2\n");
        let (main, c) =
            (profile.frames.intern(FrameRef::function("main")), profile.frames.intern(FrameRef::function("c")));
        let root = profile.tree.push(None, main);
        let leaf = profile.tree.push(Some(root), c);
        profile.tree.set_self(0, leaf, Value::Int(4));
        assert!(profile.tree.has_duplicate_siblings(profile.frames.len()));
        let merged = merge_equal_stacks(profile);
        assert_eq!(folded(&merged), "main;a 1\nmain;b 2\nmain;c 4\n");
    }

    #[test]
    fn line_frames_merge_into_their_functions_for_a_target_without_lines() {
        let dyalog = read(Format::DyalogXml, include_str!("../fixtures/dyalog-xml/several-roots.xml"));
        assert!(dyalog.frames.iter().any(|(_, f)| f.kind == FrameKind::Line));
        let mut diag = Diagnostics::default();
        let carries = Format::Folded.carries();
        let fitted = fit_lines(dyalog.clone(), Format::Folded, &carries, &ConvertOptions::default(), &mut diag);
        assert!(fitted.frames.iter().all(|(_, f)| f.kind != FrameKind::Line));
        assert!(diag.has("lines-merged"));
        let total = |p: &Profile| p.total(p.metric_index("time").unwrap()).as_f64();
        assert!((total(&fitted) - total(&dyalog)).abs() < 1e-9);
    }

    #[test]
    fn samples_become_time_at_the_interval_for_a_target_of_time() {
        let mut profile = read(Format::Folded, "main;a 3\n");
        let options = ConvertOptions::new(None, Some(Duration::from_millis(5)));
        let (target, mut diag) = (Format::DyalogXml, Diagnostics::default());
        let applied = fit_time_and_counts(&mut profile, target, &target.carries(), &options, &mut diag);
        assert_eq!(applied, IntervalUse::Applied);
        assert_eq!((profile.metrics()[0].kind, profile.total(0)), (MetricKind::Time, Value::Float(15.0)));
    }

    #[test]
    fn one_metric_is_kept_and_the_others_named() {
        let mut px = read(Format::GhcPx, include_str!("../fixtures/ghc-px/notes-example.px"));
        let mut diag = Diagnostics::default();
        let chosen = keep_one_metric(&mut px, Format::Folded, &ConvertOptions::default(), &mut diag).unwrap();
        assert_eq!(chosen, 0);
        let names: Vec<&str> = px.metrics().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["ticks"]);
        assert!(diag.has("metric-dropped"));
    }

    #[test]
    fn per_function_counts_and_header_facts_go_where_the_target_has_none() {
        let mut tree = read(Format::Lispworks, include_str!("../fixtures/lispworks/processes.tree"));
        assert!(!tree.function_facts.is_empty() && tree.meta.title.is_some());
        let (carries, mut diag) = (Format::Folded.carries(), Diagnostics::default());
        drop_function_facts(&mut tree, Format::Folded, &carries, &mut diag);
        drop_header_facts(&mut tree.meta, &carries);
        assert!(tree.function_facts.is_empty() && tree.meta.title.is_none() && diag.has("facts-dropped"));
    }

    #[test]
    fn whole_samples_keep_the_total() {
        let ms = Values::Float(vec![0.4, 0.4, 0.4, 1.7, 0.0]);
        let counts = whole_samples(&ms, 1.0);
        assert_eq!(counts.iter().sum::<i64>(), 3); // 2.9 rounds to 3
        assert_eq!(counts, vec![1, 0, 0, 2, 0]); // largest remainder first, ties by position
        let ns = Values::Int(vec![2_500_000, 500_000]);
        assert_eq!(whole_samples(&ns, 1_000_000.0), vec![3, 0]);
    }
}
