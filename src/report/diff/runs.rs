//! Each side's runs as the gate's test weighs them: per row, each run's value and what sampling
//! noise it has, from the metric's [`Sampling`] (docs/gate.md, "What each format's metrics are").

use super::super::{gate, ReportOptions, View};
use crate::error::Error;
use crate::model::{Metric, MetricKind, Profile, Sampling, Unit, Values};
use rustc_hash::FxHashMap;

/// One side of a comparison: its runs (merged, where there are several) in the view its table
/// shows, and each run's values for the gate's test.
pub struct Side {
    /// The view the table shows.
    pub view: View,
    /// Each run's values; `None` where the metric compared is measured (no noise to test).
    pub runs: Option<Vec<RunCounts>>,
}

impl Side {
    /// One run, whose values are its view's own.
    pub fn of_one_run(view: View) -> Side {
        let runs = RunCounts::of(&view).map(|counts| vec![counts]);
        Side { view, runs }
    }

    /// Several runs: `view` shows them merged, and each run's values are taken from it as it was
    /// read, prepared as `options` prepare the merged one (its threads hidden, its lines merged). A
    /// run without the metric compared (a JFR recording with no native samples) has none of it.
    pub fn of_runs(view: View, runs: Vec<Profile>, options: &ReportOptions) -> Result<Side, Error> {
        if RunCounts::of(&view).is_none() {
            return Ok(Side { view, runs: None });
        }
        let metric = view.metric().clone();
        let counts = runs
            .into_iter()
            .map(|mut run| {
                let same = |m: &Metric| m.name == metric.name && m.kind == metric.kind;
                let Some(own) = run.metrics().iter().position(same).or_else(|| {
                    run.metrics().iter().position(|m| m.kind == metric.kind && m.sampling == metric.sampling)
                }) else {
                    return Ok(RunCounts::empty(&metric));
                };
                run.meta.chosen_metric = Some(own);
                Ok(RunCounts::of(&View::new(run, options)?).unwrap_or_else(|| RunCounts::empty(&metric)))
            })
            .collect::<Result<Vec<RunCounts>, Error>>()?;
        Ok(Side { view, runs: Some(counts) })
    }
}

/// One run's values per row name (self and total) and, where the metric is sampled, the sums of
/// the squared weights of the samples behind them, which make their sampling variance.
#[derive(Clone, Debug)]
pub struct RunCounts {
    rows: FxHashMap<String, Row>,
    /// The run's total, and the sum of its samples' squared weights.
    of: (f64, f64),
    /// What noise its values have (the squares are known where sampled, not merely unstated).
    noise: Noise,
}

/// A row's self value and total, and the squared weights of their samples.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    own: (f64, f64),
    total: (f64, f64),
}

/// What a run says of the noise of its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Noise {
    /// Sampled: the samples behind each value are known.
    Sampled,
    /// Sampled delays of events (Go's block and mutex profiles): the events behind each value are
    /// known, but how long goroutines waited is the run's scheduling, which varies between runs far
    /// beyond the events (docs/gate.md): only several runs tell, by their spread.
    Delays,
    /// Not known whether sampled: only the spread between runs tells.
    Unstated,
}

impl Noise {
    /// The noise of `metric`'s values (one of `metrics`, which it may be sampled behind); `None`
    /// where measured.
    pub(super) fn of(metric: &Metric, metrics: &[Metric]) -> Option<Noise> {
        match metric.sampling {
            Sampling::Measured => None,
            Sampling::Unstated => Some(Noise::Unstated),
            Sampling::Sampled { .. } if is_delay(metric, metrics) => Some(Noise::Delays),
            Sampling::Sampled { .. } => Some(Noise::Sampled),
        }
    }
}

/// Whether `metric` is time sampled behind a count of events, not of samples: delays (Go's block
/// and mutex profiles' `delay` behind their `contentions`), where a CPU profile's time weighs its
/// samples.
fn is_delay(metric: &Metric, metrics: &[Metric]) -> bool {
    let Sampling::Sampled { of: Some(of), .. } = &metric.sampling else { return false };
    metric.unit.nanos().is_some() && metrics.iter().any(|m| &m.name == of && m.kind == MetricKind::Events)
}

impl RunCounts {
    /// The values of `view`'s rows in its metric, with the squared weights of their samples where
    /// the metric is sampled (a count weighs 1 a sample; time or bytes weigh their value over the
    /// samples behind it, node by node); `None` where the metric is measured, which the limits
    /// alone gate.
    pub fn of(view: &View) -> Option<RunCounts> {
        let noise = Noise::of(view.metric(), view.profile.metrics())?;
        let tree = &view.profile.tree;
        let values = super::super::inclusive_values(tree, view.metric);
        let of = tree.roots().map(|root| values.get(root.index()).as_f64()).sum();
        let own: Vec<f64> = tree.self_values(view.metric).to_f64();
        let squares = squared_weights(view, &own);
        let sums = sums_by_row(view, &own, &squares);
        let of_squares = if noise == Noise::Sampled { squares.iter().sum() } else { 0.0 };
        let rows =
            sums.into_iter().enumerate().filter_map(|(row, sums)| Some((view.names[row].clone(), sums?))).collect();
        Some(RunCounts { rows, of: (of, of_squares), noise })
    }

    /// A run that holds none of `metric`.
    fn empty(metric: &Metric) -> RunCounts {
        let noise = Noise::of(metric, &[]).unwrap_or(Noise::Unstated);
        RunCounts { rows: FxHashMap::default(), of: (0.0, 0.0), noise }
    }

    /// What the run says of its noise.
    pub fn noise(&self) -> Noise {
        self.noise
    }

    /// The value of `name` (self with `own`) in the run.
    pub(super) fn count(&self, name: &str, own: bool) -> gate::Count {
        let row = self.rows.get(name).copied().unwrap_or_default();
        let (count, squares) = if own { row.own } else { row.total };
        gate::Count { count, of: self.of.0, squares, squares_of: self.of.1 }
    }
}

/// Per node, the sum of the squared weights of the samples behind its self value `own[node]`:
/// `own² / n` for `n` samples of equal weight (a count: `n = own`, each weighs 1). The samples
/// behind a node are the value of the metric the sampling names (this one where it names none)
/// over its `per`; a node of value but no sample counted is one sample. Unstated sampling: none.
fn squared_weights(view: &View, own: &[f64]) -> Vec<f64> {
    let profile = &view.profile;
    let metric = view.metric();
    let Sampling::Sampled { of, per } = &metric.sampling else { return vec![0.0; own.len()] };
    let counted = of.as_ref().and_then(|name| profile.metrics().iter().position(|m| &m.name == name));
    let (values, unit) = match counted {
        Some(m) => (profile.tree.self_values(m).to_f64(), profile.metrics()[m].unit),
        None => (own.to_vec(), metric.unit),
    };
    let counts_samples = of.is_none() && *per == 1 && unit == Unit::Count;
    // `per` is in nanoseconds for time, in the unit itself for bytes and counts.
    let per = *per as f64 / unit.nanos().unwrap_or(1.0);
    own.iter()
        .zip(&values)
        .map(|(&value, &behind)| match counts_samples {
            true => value,
            false if value == 0.0 => 0.0,
            false => value * value / (behind / per).max(1.0),
        })
        .collect()
}

/// Per row of `view`, its self value and total of the self values `own` per node, and the same of
/// `squares`; `None` for a row no node is of.
fn sums_by_row(view: &View, own: &[f64], squares: &[f64]) -> Vec<Option<Row>> {
    let tree = &view.profile.tree;
    // A node is pushed after its parent: backwards, each node's inclusive sums are whole when
    // they are added to its parent's.
    let mut inclusive: Vec<(f64, f64)> = own.iter().zip(squares).map(|(&v, &s)| (v, s)).collect();
    for node in tree.nodes().rev() {
        if let Some(parent) = tree.parent(node) {
            let (v, s) = inclusive[node.index()];
            inclusive[parent.index()].0 += v;
            inclusive[parent.index()].1 += s;
        }
    }
    let measured = tree.measured_inclusive(view.metric).map(Values::to_f64);
    let outermost = view.outermost();
    let mut rows: Vec<Option<Row>> = vec![None; view.names.len()];
    for node in tree.nodes() {
        let i = node.index();
        let row = rows[view.row(node) as usize].get_or_insert_with(Row::default);
        row.own.0 += own[i];
        row.own.1 += squares[i];
        if outermost[i] {
            row.total.0 += measured.as_ref().map_or(inclusive[i].0, |m| m[i]);
            row.total.1 += inclusive[i].1;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Repr;

    /// Time behind a count of events is a delay (Go's block and mutex profiles); time behind a count
    /// of samples weighs them (a Go CPU profile's nanoseconds), and time sampled alone is samples.
    #[test]
    fn a_delay_is_time_sampled_behind_a_count_of_events() {
        let contentions = Metric::new("contentions", MetricKind::Events, Unit::Count, Repr::Int);
        let samples = Metric::new("samples", MetricKind::Samples, Unit::Count, Repr::Int);
        let time = |of: &str| {
            Metric::new("t", MetricKind::Time, Unit::Nanoseconds, Repr::Int)
                .sampled(Sampling::Sampled { of: Some(of.into()), per: 5 })
        };
        let metrics = [contentions, samples];
        assert_eq!(Noise::of(&time("contentions"), &metrics), Some(Noise::Delays));
        assert_eq!(Noise::of(&time("samples"), &metrics), Some(Noise::Sampled));
        let alone = Metric::new("t", MetricKind::Time, Unit::Nanoseconds, Repr::Int)
            .sampled(Sampling::Sampled { of: None, per: 10_000_000 });
        assert_eq!(Noise::of(&alone, &metrics), Some(Noise::Sampled));
    }
}
