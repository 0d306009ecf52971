//! Each side's runs as the gate's test weighs them.

use super::super::{gate, ReportOptions, View};
use crate::error::Error;
use crate::model::{Aggregation, Metric, MetricKind, Profile};

/// shows, and each run's sample counts for the gate's test.
pub struct Side {
    /// The view the table shows.
    pub view: View,
    /// Each run's sample counts; `None` where the metric compared is not sampled.
    pub runs: Option<Vec<RunCounts>>,
}

impl Side {
    /// One run, whose counts are its view's own.
    pub fn of_one_run(view: View) -> Side {
        let runs = RunCounts::of(&view).map(|counts| vec![counts]);
        Side { view, runs }
    }

    /// Several runs: `view` shows them merged, and each run's counts are taken from it as it was
    /// read, prepared as `options` prepare the merged one (its threads hidden, its lines merged).
    pub fn of_runs(view: View, runs: Vec<Profile>, options: &ReportOptions) -> Result<Side, Error> {
        let Some(metric) = RunCounts::counted_metric(&view) else { return Ok(Side { view, runs: None }) };
        let kind = view.profile.metrics()[metric].kind;
        let counts = runs
            .into_iter()
            .map(|mut run| {
                let Some(of_kind) = run.metrics().iter().position(|m| m.kind == kind) else {
                    return Ok(None);
                };
                run.meta.chosen_metric = Some(of_kind);
                Ok(RunCounts::of(&View::new(run, options)?))
            })
            .collect::<Result<Option<Vec<RunCounts>>, Error>>()?;
        Ok(Side { view, runs: counts })
    }
}

/// One run's sample counts per row name: self and total.
#[derive(Clone, Debug)]
pub struct RunCounts {
    rows: rustc_hash::FxHashMap<String, (f64, f64)>,
    /// The run's samples.
    of: f64,
}

impl RunCounts {
    /// The sample counts of `view`'s rows: of its metric where that counts samples or ticks, of
    /// the samples whose weight its time is where it shows time and counts them too (node's
    /// `.cpuprofile`, a pprof CPU profile, a timed BR file); `None` where nothing counts samples
    /// (calls, bytes, a Dyalog time, a trace's durations), which the limits alone gate.
    pub fn of(view: &View) -> Option<RunCounts> {
        let metric = RunCounts::counted_metric(view)?;
        let inclusive = super::super::inclusive_values(&view.profile.tree, metric);
        let of = view.profile.tree.roots().map(|root| inclusive.get(root.index()).as_f64()).sum();
        let sums = super::super::summary::sums_of(view, metric, &inclusive);
        let rows = sums
            .iter()
            .enumerate()
            .filter(|(_, s)| s.seen)
            .map(|(row, s)| (view.names[row].clone(), (s.own, s.total)))
            .collect();
        Some(RunCounts { rows, of })
    }

    /// The metric of `view` that counts the samples it shows: see [`RunCounts::of`].
    pub(super) fn counted_metric(view: &View) -> Option<usize> {
        let counts = |m: &Metric| {
            matches!(m.kind, MetricKind::Samples | MetricKind::Ticks) && m.aggregation == Aggregation::Additive
        };
        match view.metric().kind {
            MetricKind::Samples | MetricKind::Ticks => Some(view.metric),
            MetricKind::Time => view.profile.metrics().iter().position(counts),
            _ => None,
        }
    }

    /// The count of `name` (self with `own`) among the run's samples.
    pub(super) fn count(&self, name: &str, own: bool) -> gate::Count {
        let (self_count, total) = self.rows.get(name).copied().unwrap_or_default();
        gate::Count { count: if own { self_count } else { total }, of: self.of }
    }
}

