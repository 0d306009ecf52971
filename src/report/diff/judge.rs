//! The gate's verdict on each row of a diff: which rows it tests (functions that could pass the
//! limits, not a producer's pseudo-frames or a side's synthetic root), the test that decides each,
//! Benjamini–Hochberg over those tested, and the verdict (docs/gate.md).

use super::super::gate::{self, Limits, Model, Test};
use super::super::summary::Sums;
use super::runs::{Noise, RunCounts};
use super::{
    amount, names, DiffOptions, DEFAULT_FALSE_DISCOVERY_RATE, DEFAULT_POINTS, DEFAULT_RELATIVE, ONE_RUN_POINTS,
};
use crate::model::Sampling;

/// One row of the table: the sums of one name in each profile, and what it is.
pub(super) struct Change<'a> {
    pub(super) name: &'a str,
    pub(super) base: Option<&'a Sums>,
    pub(super) new: Option<&'a Sums>,
    pub(super) role: Role,
}

/// What a row is, for the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// Code: gated.
    Function,
    /// A frame the producer made, not code of the program (`(idle)`, `(garbage collector)`, Go's
    /// `runtime._GC`, a thread): reported, gated only with `--gate-pseudo`.
    Pseudo,
    /// A root that holds the whole of one side and is absent from the other (a Sampler file's
    /// `Profiler root` against its LispWorks rendering): never new, never gated.
    SyntheticRoot,
}

/// What the gate found of one row.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Judged {
    /// The test, where the row was tested.
    pub(super) test: Option<Test>,
    /// Whether the growth is large: past every limit.
    pub(super) large: bool,
    /// Whether the growth is clear: a discovery of the test, or large where the limits alone judge.
    pub(super) clear: bool,
    /// Whether the gate judges the row at all (not a pseudo-frame or a synthetic root).
    pub(super) gated: bool,
    /// Whether, with one run a side, the growth is large and clear of sampling but not of how much
    /// single runs may vary (the floor, or [`ONE_RUN_POINTS`]): inconclusive, not failed.
    pub(super) suspect: bool,
}

impl Judged {
    /// Whether the row failed the gate: gated, its growth large and clear.
    pub(super) fn failed(&self) -> bool {
        self.gated && self.large && self.clear
    }
}

/// How the gate judged the comparison as a whole.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Judgement {
    /// No limits: `--no-stats` without `--threshold`.
    None,
    /// The limits alone (`--no-stats`, or a measured metric).
    Limits,
    /// The test, under this model.
    Tested(Model),
    /// A side has one run and the noise is not sampling's alone (a metric not known to be sampled,
    /// or delays): nothing can tell it, so a growth past the limits is inconclusive, not a failure.
    Untestable(Noise),
}

/// How many times smaller the floor is where a side has several runs, which measure their spread,
/// than where it has one, which cannot.
const SEVERAL_RUNS_FLOOR: f64 = 6.0;

/// The gate's rule as `options` set it: its limits, and the false discovery rate of its test
/// (`None` with `--no-stats`); no limits at all with `--no-stats` and no `--threshold`.
pub(super) fn rule(options: &DiffOptions, least: Option<f64>) -> Option<(Limits, Option<f64>)> {
    let limits = |points, relative| Limits { points, relative, floor: least };
    match options.false_discovery_rate {
        Some(q) => {
            let points = options.threshold.unwrap_or(DEFAULT_POINTS);
            Some((limits(points, options.relative.or(Some(DEFAULT_RELATIVE))), Some(q)))
        }
        None => options.threshold.map(|points| (limits(points, options.relative), None)),
    }
}

/// How the rows are judged, from the rule and each side's runs.
pub(super) fn judgement(
    rule: Option<(Limits, Option<f64>)>,
    runs: (Option<&[RunCounts]>, Option<&[RunCounts]>),
    rows: &[Change<'_>],
    options: &DiffOptions,
) -> Judgement {
    let Some((_, q)) = rule else { return Judgement::None };
    let (Some(_), Some(b), Some(n)) = (q, runs.0, runs.1) else { return Judgement::Limits };
    // One run a side tells nothing of a noise that is not sampling's alone: a metric not known to
    // be sampled, or delays that are the run's scheduling.
    let other = b.iter().chain(n).map(RunCounts::noise).find(|&noise| noise != Noise::Sampled);
    if let (Some(noise), true) = (other, b.len() < 2 || n.len() < 2) {
        return Judgement::Untestable(noise);
    }
    // Delays are judged as a metric not known to be sampled: by the runs' spread alone.
    let sampled = other.is_none();
    let own = options.exclusive;
    let per_function = |runs: &[RunCounts]| -> Vec<Vec<gate::Count>> {
        rows.iter().map(|c| runs.iter().map(|r| r.count(c.name, own)).collect()).collect()
    };
    let (b, n) = (per_function(b), per_function(n));
    // Several runs measure how much they vary (their dispersion, and each function's spread): the
    // floor assumed for one run is then a sixth as large, a guard against runs that happen to agree.
    let floor = |runs: usize| if runs > 1 { options.run_floor / SEVERAL_RUNS_FLOOR } else { options.run_floor };
    let dispersion = |functions: &[Vec<gate::Count>]| gate::dispersion(functions.iter().map(Vec::as_slice));
    let floors = (floor(b.first().map_or(1, Vec::len)), floor(n.first().map_or(1, Vec::len)));
    let dispersions = (dispersion(&b), dispersion(&n));
    let prior = |functions: &[Vec<gate::Count>], (dispersion, floor)| {
        gate::prior_freedom(functions.iter().map(Vec::as_slice), dispersion, floor)
    };
    let prior_freedoms = (prior(&b, (dispersions.0, floors.0)), prior(&n, (dispersions.1, floors.1)));
    Judgement::Tested(Model { dispersions, floors, sampled, prior_freedoms })
}

/// Each row judged: the rows that could pass the limits (their NEW share above the points limit)
/// and are gated are tested, and Benjamini–Hochberg lets through those clear at the false
/// discovery rate over the tested; a row not tested is clear where the limits alone judge.
pub(super) fn judge(
    rows: &[Change<'_>],
    judgement: &Judgement,
    rule: Option<(Limits, Option<f64>)>,
    runs: (Option<&[RunCounts]>, Option<&[RunCounts]>),
    options: &DiffOptions,
    shares: impl Fn(&Change<'_>) -> ((f64, f64), f64),
) -> (Vec<Judged>, Option<Tested>) {
    let Some((limits, q)) = rule else { return (rows.iter().map(|_| Judged::default()).collect(), None) };
    let own = options.exclusive;
    let mut judged: Vec<Judged> = rows
        .iter()
        .map(|c| {
            let (shares, growth) = shares(c);
            let gated = c.role == Role::Function || (c.role == Role::Pseudo && options.gate_pseudo);
            let large = limits.crossed(shares, growth);
            Judged { test: None, large, clear: matches!(judgement, Judgement::Limits), gated, suspect: false }
        })
        .collect();
    let Judgement::Tested(model) = judgement else { return (judged, None) };
    let (Some(b), Some(n)) = runs else { return (judged, None) };
    let candidate = |i: usize| judged[i].gated && shares(&rows[i]).0 .1 * 100.0 > limits.points;
    let tested: Vec<usize> = (0..rows.len()).filter(|&i| candidate(i)).collect();
    let q = q.unwrap_or(DEFAULT_FALSE_DISCOVERY_RATE);
    let discoveries = |model: &Model, judged: &mut [Judged]| {
        let tests: Vec<Option<Test>> = tested
            .iter()
            .map(|&i| {
                let counts = |runs: &[RunCounts]| runs.iter().map(|r| r.count(rows[i].name, own)).collect::<Vec<_>>();
                gate::test_growth(&counts(b), &counts(n), model)
            })
            .collect();
        let p: Vec<f64> = tests.iter().map(|t| t.map_or(1.0, |t| t.p)).collect();
        for ((&i, found), test) in tested.iter().zip(gate::discoveries(&p, q)).zip(&tests) {
            (judged[i].clear, judged[i].test) = (found, *test);
        }
    };
    // One run a side cannot measure how much runs vary: a growth clear of a sixth of the floor
    // assumed, as several runs would be judged, but not of the floor itself is inconclusive.
    let one_run = b.len() == 1 || n.len() == 1;
    if one_run {
        let several =
            Model { floors: (model.floors.0 / SEVERAL_RUNS_FLOOR, model.floors.1 / SEVERAL_RUNS_FLOOR), ..*model };
        discoveries(&several, &mut judged);
        judged.iter_mut().for_each(|j| j.suspect = j.gated && j.large && j.clear);
    }
    discoveries(model, &mut judged);
    // A floor of 0 (`--run-floor 0`) says runs vary by sampling alone: no points are held either.
    if one_run && options.run_floor > 0.0 {
        hold_below_one_run_points(&mut judged, rows, &shares);
    }
    let flagged = judged.iter().filter(|j| j.failed()).count();
    (judged, Some(Tested { functions: tested.len(), of: rows.len(), q, flagged }))
}

/// With one run a side, a failure whose share grew by less than [`ONE_RUN_POINTS`] is made
/// inconclusive: single runs of a JIT move that much between them.
fn hold_below_one_run_points(
    judged: &mut [Judged],
    rows: &[Change<'_>],
    shares: impl Fn(&Change<'_>) -> ((f64, f64), f64),
) {
    for (judged, row) in judged.iter_mut().zip(rows) {
        let ((base, new), _) = shares(row);
        if judged.failed() && (new - base) * 100.0 < ONE_RUN_POINTS {
            (judged.clear, judged.suspect) = (false, true);
        }
    }
}

/// How many functions the test weighed (of how many rows), and how many it flagged, at false
/// discovery rate `q`.
pub(super) struct Tested {
    pub(super) functions: usize,
    pub(super) of: usize,
    pub(super) q: f64,
    pub(super) flagged: usize,
}

impl Tested {
    /// The false alarms expected among the functions flagged: at most `q` of them, and, when nothing
    /// changed at all, a run that fails with a probability of at most `q`.
    pub(super) fn expected_false_alarms(&self) -> f64 {
        self.q * self.flagged as f64
    }
}

/// The role of the row `name`, of sums `base` and `new` in profiles of totals `totals`: a
/// synthetic root where it holds the whole of one side and is absent from the other; a
/// pseudo-frame where its producer made it ([`names::is_pseudo`]) or its frames are no code.
pub(super) fn role(name: &str, sums: (Option<&Sums>, Option<&Sums>), totals: (f64, f64), no_code: bool) -> Role {
    let whole = |s: Option<&Sums>, total: f64| total > 0.0 && amount(s, false) >= total * (1.0 - 1e-9);
    match sums {
        (None, new) if whole(new, totals.1) => Role::SyntheticRoot,
        (base, None) if whole(base, totals.0) => Role::SyntheticRoot,
        _ if no_code || names::is_pseudo(name) => Role::Pseudo,
        _ => Role::Function,
    }
}

/// The gate's rule, in words: what noise it tests against and how, and the limits.
pub(super) fn rule_line(
    judgement: &Judgement,
    rule: Option<(Limits, Option<f64>)>,
    runs: (usize, usize),
    metric: &crate::model::Metric,
    unit: &str,
) -> String {
    let Some((limits, q)) = rule else { return "Gate: none.".into() };
    let mut large = format!("grew by more than {} point(s)", limits.points);
    if let Some(relative) = limits.relative {
        large.push_str(&format!(" and by at least {} % of BASE's share", relative * 100.0));
    }
    if let Some(floor) = limits.floor {
        large.push_str(&format!(" and by at least {floor} {unit}"));
    }
    let name = &metric.name;
    let Some(q) = q else { return format!("Gate (--no-stats): a function fails it where its share {large}.") };
    let fdr = q * 100.0;
    match judgement {
        Judgement::None => "Gate: none.".into(),
        Judgement::Limits => {
            format!("Gate ({name}, measured: no sampling noise to test): a function fails where its share {large}.")
        }
        Judgement::Untestable(noise) => {
            let why = match noise {
                Noise::Delays => "delays of events, which vary with each run's scheduling",
                _ => "",
            };
            let (sep, sampling) = (if why.is_empty() { "" } else { ": " }, metric.sampling.describe());
            format!(
                "Gate ({name}, {sampling}{sep}{why}: one run a side cannot tell its noise): a function whose share {large} is inconclusive, not a failure; give several runs a side (--base a b c --new d e f) to test their spread."
            )
        }
        Judgement::Tested(model) => {
            let noise = match (model.sampled, &metric.sampling) {
                (true, Sampling::Sampled { of: None, per: 1 }) => "sampling noise of its samples".to_string(),
                (true, _) => "sampling noise of the samples behind its values".to_string(),
                (false, _) => format!("the spread between runs ({})", metric.sampling.describe()),
            };
            let spread = match runs {
                (1, 1) => String::new(),
                (b, n) => format!(" and its runs' spread (a moderated Welch's t; {b} BASE, {n} NEW)"),
            };
            let vary = match runs {
                (b, n) if b == 1 || n == 1 => format!(
                    "runs assumed to vary by {:.0} % of a share (--run-floor) and by up to {ONE_RUN_POINTS} points (a growth less than that is inconclusive with one run a side)",
                    model.floors.0.max(model.floors.1) * 100.0
                ),
                _ => format!(
                    "runs varying by {:.0} % (BASE) and {:.0} % (NEW) of a share",
                    model.floors.0 * 100.0,
                    model.floors.1 * 100.0
                ),
            };
            format!(
                "Gate ({name}): a function fails where a one-sided test against the {noise}{spread}, {vary}, finds its growth clear (Benjamini–Hochberg at a false discovery rate of {fdr} % over the functions that could pass the limits) and its share {large}."
            )
        }
    }
}
