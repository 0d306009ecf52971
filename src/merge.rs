//! Adding profiles together (`proftool merge`): the profiles of many runs or machines as one.
//!
//! Profiles are added one at a time into one [`Merger`], so that memory grows with the distinct
//! nodes of the result, not with the number or size of the inputs. Equal stacks add up: a node's
//! values are the sum of the nodes at the same stack in every input. Metrics must agree: each
//! metric of an input is added to the merged metric of its kind (and, where a kind has several, of
//! its name), its values converted into that metric's unit (milliseconds and nanoseconds both add as
//! time); a metric with no counterpart is an error that names it. Threads stay apart by default: a
//! thread (a root thread, a LispWorks process below its root) is named after its input
//! (`Thread_0001 [b.sampler]`), since thread 1 of one run is not thread 1 of another; with
//! `merge_threads`, threads of the same name add up. Header facts that
//! differ between inputs are dropped, by name, but the runs' durations, which add up, and their
//! UTC timestamps, of which the earliest is kept, as pprof's merge does; per-function counts (LispWorks) add up; measured
//! inclusive values (Dyalog) add up while every input has them.

use crate::convert;
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::kit::time::parse_time;
use crate::formats::{effective_interval, Turning};
use crate::model::{
    ops, ChildIndex, FrameId, FrameKind, FrameRef, Meta, Metric, MetricKind, Profile, Repr, StatedTotal, Value, Values,
    DURATION,
};
use std::time::Duration;

/// Profiles added one at a time.
#[derive(Debug, Default)]
pub struct Merger {
    merged: Option<Profile>,
    index: ChildIndex,
    merge_threads: bool,
    /// The interval that turns an input's samples or ticks into time, or time into them, where its
    /// metrics measure time as the merged ones do but in another quantity (`--interval`); else the
    /// counting profile's own.
    interval: Option<Duration>,
    /// The names of the inputs added so far (for messages).
    labels: Vec<String>,
}

/// How an input's metric goes into the merged profile: its index there and the factor that turns its
/// values into that metric's unit.
#[derive(Clone, Copy, Debug)]
struct Target {
    metric: usize,
    factor: f64,
}

impl Merger {
    /// A merger; with `merge_threads`, threads of the same name add up across inputs.
    pub fn new(merge_threads: bool) -> Merger {
        Merger { merge_threads, ..Merger::default() }
    }

    /// This merger with the interval that turns samples or ticks into time, and time into them.
    pub fn with_interval(self, interval: Option<Duration>) -> Merger {
        Merger { interval, ..self }
    }

    /// Adds `profile`, read from the input called `label`. Fails, adding nothing, when its metrics do
    /// not match those of the profiles added before.
    pub fn add(&mut self, mut profile: Profile, label: &str, diag: &mut Diagnostics) -> Result<(), Error> {
        let merged = self.merged.get_or_insert_with(|| empty_like(&profile));
        into_merged_quantities(merged, &mut profile, self.interval, label, diag)?;
        let targets = match_metrics(merged, &profile, label, &self.labels, diag)?;
        if merged.meta.module_namespaces != profile.meta.module_namespaces {
            // One name for a GHC cost centre everywhere: `Module.label`, as folded writes it.
            ops::qualify_names(&mut profile);
            if merged.meta.module_namespaces {
                ops::qualify_names(merged);
            }
        }
        if !self.labels.is_empty() {
            drop_differing_facts(merged, &profile, label, diag);
        }
        if let Some(timeline) = &profile.timeline {
            let n = timeline.samples().len();
            diag.warn("merge-timeline-dropped", None, || {
                format!("{label}: the times of its {n} samples are dropped: the merged profile adds runs up, and has no timeline")
            });
        }
        add_tree(merged, &mut self.index, &profile, &targets, (!self.merge_threads).then_some(label));
        self.labels.push(label.to_string());
        Ok(())
    }

    /// The merged profile, `None` when nothing was added.
    pub fn finish(self) -> Option<Profile> {
        self.merged
    }
}

/// A profile with `profile`'s header and metrics and no nodes.
fn empty_like(profile: &Profile) -> Profile {
    let mut merged = Profile::new(profile.metrics().to_vec());
    merged.meta = profile.meta.clone();
    for m in 0..profile.metrics().len() {
        if profile.tree.measured_inclusive(m).is_some() {
            merged.tree.set_measured_inclusive_column(m, Values::zeros(profile.metrics()[m].repr, 0));
        }
    }
    merged
}

/// Turns each metric of `profile` that measures time in another quantity than every merged metric
/// of its kind (ticks where the merged profile has time, time where it has samples) into the merged
/// metric of that quantity, at the interval of whichever counts ([`effective_interval`]: its
/// profile's own, else `interval`, where counts become time; `interval`, else the merged profile's
/// own, where time becomes counts), each said on stderr. Metrics that cannot convert are left for
/// [`match_metrics`] to name.
fn into_merged_quantities(
    merged: &Profile,
    profile: &mut Profile,
    interval: Option<Duration>,
    label: &str,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    for m in 0..profile.metrics().len() {
        let metric = &profile.metrics()[m];
        let same_kind = |k: &Metric| k.kind == metric.kind && k.aggregation == metric.aggregation;
        if !metric.kind.measures_time() || merged.metrics().iter().any(same_kind) {
            continue;
        }
        let timed = |k: &&Metric| k.kind.measures_time() && k.aggregation == metric.aggregation;
        let taken = |k: &&Metric| profile.metrics().iter().any(|own| own.kind == k.kind);
        let Some(to) = merged.metrics().iter().filter(timed).find(|k| !taken(k)).cloned() else { continue };
        let (own, turning) = match metric.kind {
            MetricKind::Time => (merged.meta.interval, Turning::TimeIntoCounts),
            _ => (profile.meta.interval, Turning::CountsIntoTime),
        };
        let at = effective_interval(interval, own, turning);
        if let Some(change) = convert::into_quantity(profile, m, &to, at)? {
            let assumed = match (interval, own) {
                (None, None) => " (no interval is known: set one with --interval)",
                _ => "",
            };
            diag.warn("merge-converted", None, || format!("{label}: {change}, as the merged {}{assumed}", to.name));
        }
    }
    Ok(())
}

/// Where each metric of `profile` goes in `merged`: the merged metric of the same kind and
/// aggregation (of the same name where the kind has several), with a factor between their units.
/// Runs of one program may differ in which metrics they carry (a JFR recording with no native
/// samples has no such metric): a metric of one side only is zero on the other, said on stderr.
/// Inputs that share no metric at all cannot be merged.
fn match_metrics(
    merged: &mut Profile,
    profile: &Profile,
    label: &str,
    before: &[String],
    diag: &mut Diagnostics,
) -> Result<Vec<Target>, Error> {
    let incompatible = |what: String| {
        let earlier =
            if before.len() == 1 { before[0].clone() } else { format!("the {} inputs before it", before.len()) };
        Error::BadOption(format!("cannot merge {label} with {earlier}: {what}"))
    };
    let mut targets: Vec<Option<Target>> = Vec::with_capacity(profile.metrics().len());
    let mut used = vec![false; merged.metrics().len()];
    for metric in profile.metrics() {
        let same_kind = |m: &Metric| m.kind == metric.kind && m.aggregation == metric.aggregation;
        let candidates: Vec<usize> =
            (0..merged.metrics().len()).filter(|&i| same_kind(&merged.metrics()[i]) && !used[i]).collect();
        let by_name = candidates.iter().copied().find(|&i| merged.metrics()[i].name == metric.name);
        let Some(i) = by_name.or((candidates.len() == 1).then(|| candidates[0])) else {
            targets.push(None);
            continue;
        };
        let Some(factor) = metric.unit.factor_to(merged.metrics()[i].unit) else {
            let theirs = &merged.metrics()[i];
            return Err(incompatible(format!("its metric {metric} cannot be added to {theirs}: the units differ")));
        };
        used[i] = true;
        if (factor != 1.0 || metric.repr == Repr::Float) && merged.metrics()[i].repr == Repr::Int {
            into_floats(merged, i);
        }
        targets.push(Some(Target { metric: i, factor }));
    }
    if !profile.metrics().is_empty() && targets.iter().all(Option::is_none) {
        let theirs = metric_list(merged);
        return Err(incompatible(format!("they share no metric (it has: {}; theirs: {theirs})", metric_list(profile))));
    }
    let mut one_side = Vec::new();
    for (metric, _) in merged.metrics().iter().zip(&used).filter(|(_, used)| !**used) {
        one_side.push(format!("{label} has no {} (zero there)", metric.name));
    }
    let targets = targets
        .into_iter()
        .zip(profile.metrics())
        .map(|(target, metric)| {
            target.unwrap_or_else(|| {
                one_side.push(format!("{} of {label} is in no input before it (zero there)", metric.name));
                merged.add_metric(metric.clone(), Values::zeros(metric.repr, merged.tree.len()));
                Target { metric: merged.metrics().len() - 1, factor: 1.0 }
            })
        })
        .collect();
    if !one_side.is_empty() {
        diag.warn("merge-metric-missing", None, || {
            format!("inputs differ in the metrics they carry: {}", one_side.join("; "))
        });
    }
    Ok(targets)
}

/// `name (kind, unit, aggregation), …` of a profile's metrics.
fn metric_list(profile: &Profile) -> String {
    profile.metrics().iter().map(Metric::to_string).collect::<Vec<_>>().join(", ")
}

/// Stores metric `m` of `merged` as floats (values added from another unit are not whole).
fn into_floats(merged: &mut Profile, m: usize) {
    let tree = &merged.tree;
    let to_floats = |v: &Values| Values::Float(v.to_f64());
    let values = to_floats(tree.self_values(m));
    let measured = tree.measured_inclusive(m).map(to_floats);
    let metric = Metric { repr: Repr::Float, ..merged.metrics()[m].clone() };
    merged.replace_metric(m, metric, values);
    if let Some(measured) = measured {
        merged.tree.set_measured_inclusive_column(m, measured);
    }
}

/// Drops the header facts of `merged` that `profile` does not share, naming them once each.
fn drop_differing_facts(merged: &mut Profile, profile: &Profile, label: &str, diag: &mut Diagnostics) {
    let (meta, other) = (&mut merged.meta, &profile.meta);
    let mut dropped: Vec<String> = Vec::new();
    if meta.title.is_some() && meta.title != other.title {
        meta.title = None;
        dropped.push("title".into());
    }
    if meta.timestamp.is_some() && meta.timestamp != other.timestamp {
        meta.timestamp = earliest(meta.timestamp.take(), other.timestamp.as_deref());
        if meta.timestamp.is_none() {
            dropped.push("timestamp".into());
        }
    }
    if meta.interval.is_some() && meta.interval != other.interval {
        meta.interval = None;
        dropped.push("interval".into());
    }
    if meta.weighed_by != other.weighed_by {
        meta.weighed_by = None;
    }
    let summed = add_durations(meta, other);
    meta.attrs.retain(|fact| {
        let shared = (summed && fact.0 == DURATION) || other.attrs.contains(fact);
        if !shared {
            dropped.push(fact.0.clone());
        }
        shared
    });
    // What a report says of itself, kept where both runs say the same.
    dropped.extend(meta.report.keep_shared(&other.report).into_iter().map(|fact| fact.label().to_string()));
    meta.flat |= other.flat;
    meta.lines_merged |= other.lines_merged;
    // The runs' stated totals add up; one that only one of them states is no total of both.
    meta.stated_total = match (meta.stated_total.take(), &other.stated_total) {
        (Some(total), Some(more)) if (&total.metric, total.unit) == (&more.metric, more.unit) => {
            Some(StatedTotal { value: total.value + more.value, ..total })
        }
        _ => None,
    };
    if !dropped.is_empty() {
        let names = dropped.join(", ");
        diag.warn("merge-facts-dropped", None, || {
            format!("{label} has other header facts than the inputs before it: {names} dropped")
        });
    }
}

/// The earlier of two timestamps where both are UTC times as pprof's and OTLP's readers give them
/// (`2026-11-25T09:39:13.436969803Z`), as pprof's merge keeps the earliest; else none (two
/// timestamps proftool cannot compare are no time of both runs).
fn earliest(timestamp: Option<String>, other: Option<&str>) -> Option<String> {
    let (timestamp, other) = (timestamp?, other?);
    let (a, b) = (parse_time(&timestamp)?, parse_time(other)?);
    Some(if b < a { other.to_string() } else { timestamp })
}

/// Adds `other`'s duration to `meta`'s where both state one ([`DURATION`]), as pprof's merge adds
/// the runs' durations up: whether it did.
fn add_durations(meta: &mut Meta, other: &Meta) -> bool {
    let duration = |meta: &Meta| meta.attr(DURATION)?.parse::<u64>().ok();
    let Some(sum) = duration(meta).zip(duration(other)).and_then(|(a, b)| a.checked_add(b)) else { return false };
    meta.attrs.iter_mut().filter(|(key, _)| key == DURATION).for_each(|(_, value)| *value = sum.to_string());
    true
}

/// Adds every node of `profile` to `merged` at the same stack, its values converted by `targets`;
/// threads named after `label` when it is given (threads kept apart).
fn add_tree(merged: &mut Profile, index: &mut ChildIndex, profile: &Profile, targets: &[Target], label: Option<&str>) {
    let src = &profile.tree;
    let mut frame_of: Vec<Option<FrameId>> = vec![None; profile.frames.len()];
    let mut new_node = vec![None; src.len()];
    // A metric this input did not measure inclusively is not measured in the sum either.
    for (m, target) in targets.iter().enumerate() {
        if src.measured_inclusive(m).is_none() {
            merged.tree.forget_measured_inclusive_of(target.metric);
        }
    }
    for visit in src.walk() {
        let node = visit.node;
        let frame = profile.frames.get(src.frame(node));
        let parent = src.parent(node).and_then(|p| new_node[p.index()]);
        let id = match (parent, label) {
            (_, Some(label)) if frame.kind == FrameKind::Thread => {
                let name = format!("{} [{label}]", frame.name);
                merged.frames.intern(FrameRef { name: &name, ..frame.as_ref() })
            }
            _ => *frame_of[src.frame(node).index()].get_or_insert_with(|| merged.frames.intern(frame.as_ref())),
        };
        let merged_node = index.child_or_insert(&mut merged.tree, parent, id);
        new_node[node.index()] = Some(merged_node);
        for (m, target) in targets.iter().enumerate() {
            let value = converted(src.self_value(m, node), target.factor);
            merged.tree.add_self(target.metric, merged_node, value);
            if let Some(measured) = src.measured_inclusive(m) {
                if let Some(sum) = merged.tree.measured_inclusive(target.metric).map(|v| v.get(merged_node.index())) {
                    let added =
                        Value::Float(sum.as_f64() + converted(measured.get(node.index()), target.factor).as_f64());
                    merged.tree.set_measured_inclusive(target.metric, merged_node, added);
                }
            }
        }
    }
    for (&frame, facts) in &profile.function_facts {
        let Some(id) = frame_of[frame.index()] else { continue };
        let sum = merged.function_facts.entry(id).or_default();
        let add = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        (sum.calls, sum.seen, sum.top) =
            (add(sum.calls, facts.calls), add(sum.seen, facts.seen), add(sum.top, facts.top));
    }
    for (&frame, attrs) in &profile.frame_attrs {
        if let Some(id) = frame_of[frame.index()] {
            merged.frame_attrs.entry(id).or_insert_with(|| attrs.clone());
        }
    }
}

/// `value` times `factor` (as it is when the factor is 1).
fn converted(value: Value, factor: f64) -> Value {
    if factor == 1.0 {
        value
    } else {
        Value::Float(value.as_f64() * factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Format, ReadOptions};
    use crate::model::dump::dump;
    use crate::model::Unit;

    fn read(format: Format, text: &str) -> Profile {
        format.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap()
    }

    fn merged(inputs: &[Profile], merge_threads: bool) -> Result<Profile, Error> {
        let mut merger = Merger::new(merge_threads);
        for (i, p) in inputs.iter().enumerate() {
            merger.add(p.clone(), &format!("in{i}"), &mut Diagnostics::default())?;
        }
        Ok(merger.finish().unwrap())
    }

    /// The runs' durations add up and the earliest of their UTC timestamps is kept, as pprof's
    /// merge does (1 s and 2.5 s; 09:39 before 10:00); a run that states no duration, or a
    /// timestamp of another form, leaves the sum with none, said dropped.
    #[test]
    fn durations_add_up_and_the_earliest_timestamp_is_kept() {
        let run = |duration: Option<&str>, timestamp: &str| {
            let mut profile = read(Format::Folded, "a 1\n");
            profile.meta.attrs.extend(duration.map(|d| (DURATION.to_string(), d.to_string())));
            profile.meta.timestamp = Some(timestamp.to_string());
            profile
        };
        let (late, early) = ("2026-11-25T10:00:00.000000000Z", "2026-11-25T09:39:13.436969803Z");
        let two = merged(&[run(Some("1000000000"), late), run(Some("2500000000"), early)], false).unwrap();
        assert_eq!(two.meta.attr(DURATION), Some("3500000000"));
        assert_eq!(two.meta.timestamp.as_deref(), Some(early));
        let three = [run(Some("1000000000"), early), run(Some("2500000000"), late), run(None, "Tue 25 Nov")];
        let three = merged(&three, false).unwrap();
        assert_eq!((three.meta.attr(DURATION), three.meta.timestamp.as_deref()), (None, None));
    }

    #[test]
    fn n_copies_are_the_profile_times_n() {
        let px = include_str!("../fixtures/ghc-px/notes-example.px");
        let one = read(Format::GhcPx, px);
        let three = merged(&[one.clone(), one.clone(), one.clone()], false).unwrap();
        let mut times_three = one.clone();
        for m in 0..one.metrics().len() {
            for node in one.tree.nodes() {
                times_three.tree.set_self(m, node, Value::Int(one.tree.self_value(m, node).as_count() * 3));
            }
        }
        assert_eq!(dump(&ops::normalize(&three)), dump(&ops::normalize(&times_three)));
        // Same header everywhere: kept.
        assert_eq!(three.meta, one.meta);
    }

    #[test]
    fn totals_are_the_sums_of_the_inputs_and_units_are_converted() {
        let a = read(Format::Folded, "main;parse 3\nmain 1\n");
        let b = read(Format::Folded, "main;render 5\nworker 2\n");
        let ab = merged(&[a, b], false).unwrap();
        assert_eq!(ab.total(0), Value::Int(11)); // 4 + 7
                                                 // By hand: main 1, main;parse 3, main;render 5, worker 2.
        let folded = "main 1\nmain;parse 3\nmain;render 5\nworker 2\n";
        let mut out = Vec::new();
        let options = crate::convert::ConvertOptions::default();
        Format::Folded.write_fitted(&ab, &mut out, &options, &mut Diagnostics::default()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), folded);
        // Milliseconds and nanoseconds add up as time, in the first input's unit.
        let timed = |metric: Metric, value: Value| {
            let mut p = Profile::new(vec![metric]);
            let f = p.frames.intern(FrameRef::function("f"));
            let node = p.tree.push(None, f);
            p.tree.set_self(0, node, value);
            p
        };
        let ms = timed(Metric::time(Unit::Milliseconds, Repr::Float), Value::Float(2.5));
        let ns = timed(Metric::time(Unit::Nanoseconds, Repr::Int), Value::Int(500_000));
        let both = merged(&[ms, ns], false).unwrap();
        assert_eq!((both.metrics()[0].unit, both.total(0)), (Unit::Milliseconds, Value::Float(3.0)));
    }

    #[test]
    fn every_metric_adds_up_across_different_profiles() {
        let a = read(Format::GhcPx, include_str!("../fixtures/ghc-px/notes-example.px"));
        let b = read(Format::GhcPx, include_str!("../fixtures/ghc-px/ghc72-undeclared.px"));
        let ab = merged(&[a.clone(), b.clone()], false).unwrap();
        for (m, metric) in ab.metrics().iter().enumerate() {
            let sum = a.total(m).as_f64() + b.total(m).as_f64();
            assert_eq!(ab.total(m).as_f64(), sum, "{metric}");
        }
    }

    /// Runs that differ in the metrics they carry merge: a metric of one input only is zero in the
    /// others, said once. The folded file's one sample and the -px file's ticks (as samples) add up;
    /// the -px file's entries and allocation are the -px file's alone.
    #[test]
    fn a_metric_of_one_input_is_zero_in_the_others() {
        let folded = read(Format::Folded, "a 1\n");
        let px = read(Format::GhcPx, include_str!("../fixtures/ghc-px/notes-example.px"));
        let mut diag = Diagnostics::default();
        let mut merger = Merger::new(false);
        merger.add(folded.clone(), "in0", &mut diag).unwrap();
        merger.add(px.clone(), "in1", &mut diag).unwrap();
        let both = merger.finish().unwrap();
        let entries = both.metric_index("entries").unwrap();
        assert_eq!(both.total(entries), px.total(px.metric_index("entries").unwrap()));
        let said = |diag: &Diagnostics, what: &str| diag.warnings().iter().any(|w| w.message.contains(what));
        assert!(said(&diag, "entries of in1 is in no input before it (zero there)"), "{:?}", diag.warnings());
        // The other way round: the folded file has none of the -px file's entries.
        let mut diag = Diagnostics::default();
        let mut merger = Merger::new(false);
        merger.add(px, "in0", &mut diag).unwrap();
        merger.add(folded, "in1", &mut diag).unwrap();
        assert!(said(&diag, "in1 has no entries (zero there)"), "{:?}", diag.warnings());
    }

    /// Inputs that share no metric cannot be merged.
    #[test]
    fn inputs_that_share_no_metric_are_named() {
        let folded = read(Format::Folded, "a 1\n");
        let calls = Profile::new(vec![Metric::entries("calls")]);
        let err = merged(&[folded, calls], false).unwrap_err().to_string();
        assert!(err.starts_with("cannot merge in1 with in0: they share no metric"), "{err}");
    }

    #[test]
    fn samples_ticks_and_time_add_up_at_the_interval() {
        // 2.5 ms of time, then 3 samples at 5 ms: 17.5 ms.
        let mut time = Profile::new(vec![Metric::time(Unit::Milliseconds, Repr::Float)]);
        let f = time.frames.intern(FrameRef::function("f"));
        let node = time.tree.push(None, f);
        time.tree.set_self(0, node, Value::Float(2.5));
        let samples = read(Format::Folded, "a 3\n");
        let mut merger = Merger::new(false).with_interval(Some(Duration::from_millis(5)));
        let mut diag = Diagnostics::default();
        merger.add(time, "time", &mut diag).unwrap();
        merger.add(samples, "samples", &mut diag).unwrap();
        let both = merger.finish().unwrap();
        assert_eq!((both.metrics()[0].kind, both.total(0)), (MetricKind::Time, Value::Float(17.5)));
        assert!(diag.has("merge-converted"));
    }

    #[test]
    fn threads_stay_apart_unless_merged() {
        // A process "main" below the root of a LispWorks tree, run twice.
        let text = "LispWorks Profiler Tree: a\n0|3|0|3|0|\"Profile root\"\n1|3|0|3|0|\"main\"\n2|3|0|3|3|F\n";
        let a = read(Format::Lispworks, text);
        let threads = |p: &Profile| -> Vec<String> {
            let root = p.tree.roots().collect::<Vec<_>>();
            assert_eq!(root.len(), 1, "{}", dump(p));
            let below = p.tree.nodes().filter(|&n| p.tree.parent(n) == Some(root[0]));
            below.map(|n| p.frames.get(p.tree.frame(n)).name.clone()).collect()
        };
        let apart = merged(&[a.clone(), a.clone()], false).unwrap();
        assert_eq!(threads(&apart), ["main [in0]", "main [in1]"], "{}", dump(&apart));
        let together = merged(&[a.clone(), a], true).unwrap();
        assert_eq!(threads(&together), ["main"]);
        assert_eq!(together.total(0), Value::Int(6));
    }

    #[test]
    fn what_a_report_says_of_itself_is_kept_where_the_runs_agree_and_named_where_not() {
        let tree = read(Format::DyalogXml, include_str!("../fixtures/dyalog-xml/v1.37-stats-tree.xml"));
        let summary = read(Format::DyalogXml, include_str!("../fixtures/dyalog-xml/v1.37-stats-summary.xml"));
        let twice = merged(&[tree.clone(), tree.clone()], false).unwrap();
        assert_eq!(twice.meta.report, tree.meta.report);
        let mut merger = Merger::new(false);
        let mut diag = Diagnostics::default();
        merger.add(tree, "tree", &mut diag).unwrap();
        merger.add(summary, "summary", &mut diag).unwrap();
        let both = merger.finish().unwrap();
        assert_eq!(both.meta.report.kind, None);
        let warning = diag.warnings().iter().find(|w| w.key == "merge-facts-dropped").unwrap().to_string();
        assert!(warning.contains("report kind"), "{warning}");
    }
}
