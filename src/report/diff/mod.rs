//! Comparing two profiles (`proftool diff BASE NEW`): which metric they are compared by, the table
//! of what changed per function with its CI gate, and the differential outputs the field's tools
//! read: two-count folded lines (`stack base new`, as `inferno-diff-folded` writes them) and the
//! differential flame graph inferno draws from them.
//!
//! **The table.** Each function's (or line's) self and total value in each profile, as a share of
//! that profile's total, and the change in share points (NEW less BASE), so that profiles of
//! different lengths compare; with `absolute`, the values themselves (NEW's converted into BASE's
//! unit). A function in one profile only is `new` or `gone`. Rows are sorted by the size of the
//! change of the total (of the self value with `exclusive`), largest first.
//!
//! **The gate** (`gate` has its statistics, docs/gate.md its measured error rates). A function
//! fails where its growth is large (its total share, or self share with `exclusive`, grew by more
//! than the points `threshold`, by the `relative` part of BASE's share, and by `min_abs` in the
//! metric's unit, all that are set) and clear: where both sides count samples, a one-sided test of
//! its growth (per run where a side has several) that Benjamini–Hochberg lets through at the false
//! discovery rate over all functions; where not, the limits alone. Without the test
//! (`false_discovery_rate` `None`), the limits alone, and none without a `threshold`.

mod differential;
mod judge;
mod names;
mod print;
mod runs;

pub use differential::{no_differential, write_differential};
use judge::{Change, Judged, Judgement, Role, Tested};
pub use names::names_across_runs;
use print::CiVerdict;
pub use print::{DiffPrinter, Gated};
pub use runs::{RunCounts, Side};

use super::gate;
use super::summary::{sums, Sums};
use super::table::{whole_or_float, Cell, Cells, Column, Digits, Table};
use super::{unit_label, units, Header, Report, View};
use crate::convert;
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{effective_interval, Turning};
use crate::model::filter::Filters;
use crate::model::{FrameKind, Metric, MetricKind, Profile};
use regex::Regex;
use serde_json::{json, Map};
use std::collections::BTreeMap;
use std::time::Duration;

/// How `diff` compares, and when it fails.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// Sort and gate by self values instead of totals (`--exclusive`).
    pub exclusive: bool,
    /// Compare the values themselves instead of their shares (`--absolute`).
    pub absolute: bool,
    /// The most share points a function may grow by (`--threshold`; [`DEFAULT_POINTS`] with the
    /// sampling test).
    pub threshold: Option<f64>,
    /// The least growth of a share, as a fraction of BASE's, that fails (`--relative`;
    /// [`DEFAULT_RELATIVE`] with the sampling test).
    pub relative: Option<f64>,
    /// The least growth that fails the run (`--min-abs`).
    pub min_abs: Option<MinAbs>,
    /// The false discovery rate of the sampling test (`--fdr`); `None` for the limits alone
    /// (`--no-stats`), as `diff` gated before it had the test.
    pub false_discovery_rate: Option<f64>,
    /// The least spread of a share between runs, beyond sampling, as a fraction of the share
    /// (`--run-floor`; [`DEFAULT_RUN_FLOOR`]).
    pub run_floor: f64,
    /// Gate a producer's pseudo-frames too (`(idle)`, `(garbage collector)`: `--gate-pseudo`).
    pub gate_pseudo: bool,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            exclusive: false,
            absolute: false,
            threshold: None,
            relative: None,
            min_abs: None,
            false_discovery_rate: Some(DEFAULT_FALSE_DISCOVERY_RATE),
            run_floor: DEFAULT_RUN_FLOOR,
            gate_pseudo: false,
        }
    }
}

/// The points a share must grow by to fail the gate, where `--threshold` does not say: one point,
/// below the two a function growing from 10 % to 12 % shows, above what rounding shows.
pub const DEFAULT_POINTS: f64 = 1.0;
/// The growth relative to BASE's share that fails the gate, where `--relative` does not say: 10 %,
/// so that a function of half the run does not fail for one point.
pub const DEFAULT_RELATIVE: f64 = 0.1;
/// The false discovery rate of the sampling test, where `--fdr` does not say: 5 %, so that two
/// runs of one program fail the gate one time in twenty at most.
pub const DEFAULT_FALSE_DISCOVERY_RATE: f64 = 0.05;

/// How much a function's share varies between two runs of one unchanged program beyond sampling,
/// as a fraction of the share, where a side has one run (which cannot measure it) and
/// `--run-floor` does not say: real runs of five runtimes on a shared 2-core machine vary by 5 to
/// 35 % (docs/gate.md, "Real runs"). With several runs a side it is measured, and a third of this
/// is its least.
pub const DEFAULT_RUN_FLOOR: f64 = 0.3;

/// The least growth, in points of the total, that fails the gate where a side has one run: less is
/// inconclusive however clear. Between unchanged single runs a function's share moved by up to
/// 10.7 points in the recordings of docs/gate.md ("Real runs"): node's `mix`, inlined into its
/// caller by V8 in some runs and not in others, 0.1 % of one run and 10.8 % of another, which no
/// floor proportional to a share can tell from a regression; several runs a side measure it.
pub const ONE_RUN_POINTS: f64 = 15.0;

/// The least growth that fails the run (`--min-abs`): a number in the unit of BASE's metric, or an
/// amount of time or of bytes, which is put in that unit (time in samples or ticks at BASE's
/// interval).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MinAbs {
    /// A bare number, in the unit of BASE's metric.
    InMetricUnit(f64),
    /// Time, in nanoseconds (`50ms`).
    Nanos(f64),
    /// Bytes (`4KiB`).
    Bytes(f64),
}

impl MinAbs {
    /// `text` as `--min-abs` takes it: a number not below 0, bare or followed by a unit `--unit`
    /// takes, of time (ns, us or µs, ms, s) or of bytes (B, KiB, MiB, GiB, TiB).
    pub fn parse(text: &str) -> Result<MinAbs, String> {
        let text = text.trim();
        let split =
            text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E')).unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let value: f64 = number.parse().map_err(|_| format!("{text:?} does not start with a number"))?;
        if !(value.is_finite() && value >= 0.0) {
            return Err(format!("{text:?} is not a number of at least 0"));
        }
        let unit = unit.trim();
        if unit.is_empty() {
            return Ok(MinAbs::InMetricUnit(value));
        }
        match super::units::amount_of(unit) {
            Some((crate::model::Unit::Bytes, size)) => Ok(MinAbs::Bytes(value * size)),
            Some((_, nanos)) => Ok(MinAbs::Nanos(value * nanos)),
            None => Err(format!(
                "unknown unit {unit:?} in {text:?}: a bare number is in the metric's unit; else ns, us, ms, s or B, KiB, MiB, GiB, TiB"
            )),
        }
    }

    /// The growth in the unit of `metric` (BASE's), whose samples or ticks last `interval`.
    fn in_unit_of(self, metric: &Metric, interval: Option<Duration>) -> Result<f64, Error> {
        let refused = |what: &str| {
            Error::BadOption(format!(
                "--min-abs {self}: {what}; BASE's metric {} counts {} ({}): give a number of those",
                metric.name,
                metric.kind.name(),
                unit_label(metric)
            ))
        };
        match self {
            MinAbs::InMetricUnit(value) => Ok(value),
            MinAbs::Nanos(nanos) => match (metric.unit.nanos(), metric.kind, interval) {
                (Some(unit), _, _) => Ok(nanos / unit),
                (None, MetricKind::Samples | MetricKind::Ticks, Some(interval)) => {
                    Ok(nanos / interval.as_nanos() as f64)
                }
                (None, MetricKind::Samples | MetricKind::Ticks, None) => {
                    Err(refused("a time, and BASE states no interval (give one with --interval)"))
                }
                _ => Err(refused("a time")),
            },
            MinAbs::Bytes(bytes) => match metric.unit {
                crate::model::Unit::Bytes => Ok(bytes),
                _ => Err(refused("an amount of bytes")),
            },
        }
    }
}

impl std::fmt::Display for MinAbs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MinAbs::InMetricUnit(value) => write!(f, "{value}"),
            MinAbs::Nanos(nanos) => write!(f, "{nanos}ns"),
            MinAbs::Bytes(bytes) => write!(f, "{bytes}B"),
        }
    }
}

/// A diff's table and its verdict.
pub struct Comparison {
    /// The table, for text, CSV or JSON.
    pub report: Report<DiffPrinter>,
    /// Whether a function crossed the limits.
    pub regression: bool,
}

impl Comparison {
    /// Every function as the gate judged it, in the table's order (largest change first).
    pub fn judged(&self) -> &[Gated] {
        &self.report.printer.ci.gated
    }
}

/// Compares `base` and `new` (views of the metric `shared_metric` chose in each), named `labels`
/// in the heading.
pub fn compare(base: &Side, new: &Side, labels: (&str, &str), options: &DiffOptions) -> Result<Comparison, Error> {
    let runs = (base.runs.as_deref(), new.runs.as_deref());
    let (base, new) = (&base.view, &new.view);
    let (base_metric, new_metric) = (base.metric(), new.metric());
    // NEW's values in BASE's unit (milliseconds and nanoseconds both time).
    let factor = new_metric.unit.factor_to(base_metric.unit);
    let least = options.min_abs.map(|m| m.in_unit_of(base_metric, base.profile.meta.interval)).transpose()?;
    let needs_units = options.absolute || least.is_some();
    let Some(factor) = factor.or((!needs_units).then_some(1.0)) else {
        let (b, n) = (base_metric.unit.name(), new_metric.unit.name());
        return Err(Error::BadOption(format!(
            "--absolute and --min-abs compare values, and BASE's are in {b}, NEW's in {n}: compare shares instead"
        )));
    };
    let (base_sums, new_sums) = (sums(base), sums(new));
    let rows = changes(base, new, (&base_sums, &new_sums), options, factor);
    let own = options.exclusive;
    let share = |view: &View, sums: Option<&Sums>, own: bool| view.pct(amount(sums, own));
    let rule = judge::rule(options, least);
    let judgement = judge::judgement(rule, runs, &rows, options);
    let shares_of = |c: &Change<'_>| {
        let shares = (share(base, c.base, own) / 100.0, share(new, c.new, own) / 100.0);
        (shares, amount(c.new, own) * factor - amount(c.base, own))
    };
    let (judged, tested) = judge::judge(&rows, &judgement, rule, runs, options, shares_of);
    let table = table(base, new, &rows, &judged, options, factor, tested.is_some());
    let over: Vec<usize> = (0..rows.len()).filter(|&i| judged[i].failed()).collect();
    let regression = !over.is_empty();
    let unclear = matches!(judgement, Judgement::Untestable(_)) && judged.iter().any(|j| j.gated && j.large)
        || judged.iter().any(|j| j.suspect && !j.failed());
    let verdict = match (rule, regression, unclear) {
        (None, _, _) => "none",
        (Some(_), true, _) => "regression",
        (Some(_), false, true) => "inconclusive",
        (Some(_), false, false) => "pass",
    };
    let on = if own { "self" } else { "total" };
    let run_counts = (runs.0.map_or(1, <[RunCounts]>::len), runs.1.map_or(1, <[RunCounts]>::len));
    let rule_line = judge::rule_line(&judgement, rule, run_counts, base_metric, unit_label(base_metric));
    let metric_json = |view: &View, label: &str, runs: Option<&[RunCounts]>| {
        let total = whole_or_float(view.total());
        let runs = runs.map(<[RunCounts]>::len);
        let sampling = view.metric().sampling.describe();
        json!({ "file": label, "metric": view.metric().name, "unit": unit_label(view.metric()), "total": total, "runs": runs, "sampling": sampling })
    };
    let limits = json!({
        "threshold": rule.map(|(l, _)| l.points),
        "relative": rule.and_then(|(l, _)| l.relative),
        "min_abs": least,
        "on": on,
        "false_discovery_rate": rule.and_then(|(_, q)| q),
        "run_floor": match judgement { Judgement::Tested(model) => Some([model.floors.0, model.floors.1]), _ => None },
    });
    let gate_json = json!({
        "rule": rule_line,
        "tested": tested.as_ref().map(|t| t.functions),
        "expected_false_alarms": tested.as_ref().map(Tested::expected_false_alarms),
        "flagged": over.iter().map(|&i| rows[i].name).collect::<Vec<_>>(),
        "p": tested.as_ref().map(|_| rows.iter().zip(&judged).filter_map(|(c, j)| Some((c.name.to_string(), json!(j.test?.p)))).collect::<Map<_, _>>()),
        "tests": tested.as_ref().map(|_| rows.iter().zip(&judged).filter_map(|(c, j)| Some((c.name.to_string(), test_json(&j.test?)))).collect::<Map<_, _>>()),
        "not_gated": rows.iter().zip(&judged).filter(|(_, j)| !j.gated).map(|(c, _)| c.name).collect::<Vec<_>>(),
        "inconclusive": rows.iter().zip(&judged).filter(|(_, j)| j.suspect && !j.failed()).map(|(c, _)| c.name).collect::<Vec<_>>(),
    });
    let explanation = explain(base, new, &rows, &judged, own, tested.as_ref());
    let verdict_line = match verdict {
        "none" => "No limits set (--threshold, or leave out --no-stats).".to_string(),
        "regression" => format!("Regression: {} function(s) marked * grew their {on} share past the limits.", over.len()),
        "inconclusive" => format!("Inconclusive: a function's {on} share grew past the limits, and one run a side cannot tell whether that is noise: record several runs a side (--base a1 a2 a3 --new b1 b2 b3)."),
        _ => match judged.iter().filter(|j| j.gated && j.large && !j.clear).count() {
            0 => format!("Pass: no function's {on} share grew past the limits."),
            // Past the limits, but not clearly of the noise: said, not hidden under "no function".
            n => format!(
                "Pass: no function's {on} share grew past the limits beyond the noise; {n} grew past them within it (Not clear, below)."
            ),
        },
    };
    let header = Header {
        kind: "diff",
        metric: new.metric().name.clone(),
        unit: unit_label(base.metric()).to_string(),
        total: new.total(),
        selected: None,
        digits: table.1,
        amount: None,
    };
    let fields = Map::from_iter([
        ("base".to_string(), metric_json(base, labels.0, runs.0)),
        ("new".to_string(), metric_json(new, labels.1, runs.1)),
        ("limits".to_string(), limits),
        ("gate".to_string(), gate_json),
        ("verdict".to_string(), json!(verdict)),
    ]);
    let title = title(base, new, labels, options);
    let ci = ci_verdict(base, new, &rows, &judged, own, verdict, labels);
    let printer = DiffPrinter { title, rule_line, fields, verdict_line, explanation, ci };
    Ok(Comparison { report: Report { header, table: table.0, printer }, regression })
}

/// The verdict as CI shows it (`verdict`: regression, pass, inconclusive or none): each row judged.
fn ci_verdict(
    base: &View,
    new: &View,
    rows: &[Change<'_>],
    judged: &[Judged],
    own: bool,
    verdict: &str,
    labels: (&str, &str),
) -> CiVerdict {
    let share = |view: &View, sums: Option<&Sums>| view.pct(amount(sums, own));
    let gated = rows
        .iter()
        .zip(judged)
        .map(|(c, j)| Gated {
            name: c.name.to_string(),
            status: status(c),
            shares: (share(base, c.base), share(new, c.new)),
            p: j.test.map(|t| t.p),
            failed: j.failed(),
            outcome: match (j.gated, j.failed(), j.suspect, j.large) {
                (false, ..) => "not gated",
                (_, true, ..) => "failed",
                (_, _, true, _) => "inconclusive",
                (_, _, _, true) => "not clear",
                _ => "passed",
            },
        })
        .collect();
    let verdict = match verdict {
        "regression" => "❌ regression",
        "pass" => "✅ pass",
        "inconclusive" => "❔ inconclusive",
        _ => "no gate",
    };
    let on = if own { "self" } else { "total" };
    CiVerdict { verdict, on, labels: (labels.0.to_string(), labels.1.to_string()), gated }
}

/// The rows of the table: every function of either view with its sums in each, and its role for
/// the gate, sorted by the size of the change of the value gated, largest first.
fn changes<'a>(
    base: &'a View,
    new: &'a View,
    (base_sums, new_sums): (&'a [Sums], &'a [Sums]),
    options: &DiffOptions,
    factor: f64,
) -> Vec<Change<'a>> {
    let mut by_name: BTreeMap<&str, (Option<&Sums>, Option<&Sums>, bool)> = BTreeMap::new();
    for (view, all, is_base) in [(base, base_sums, true), (new, new_sums, false)] {
        let no_code = view.rows_of_no_code();
        for (row, sums) in all.iter().enumerate().filter(|(_, s)| s.seen) {
            let entry = by_name.entry(view.names[row].as_str()).or_insert((None, None, true));
            match is_base {
                true => entry.0 = Some(sums),
                false => entry.1 = Some(sums),
            }
            entry.2 &= no_code[row];
        }
    }
    let totals = (base.total(), new.total());
    let mut rows: Vec<Change<'a>> = by_name
        .into_iter()
        .map(|(name, (b, n, no_code))| Change {
            name,
            base: b,
            new: n,
            role: judge::role(name, (b, n), totals, no_code),
        })
        .collect();
    let value = |view: &View, sums: Option<&Sums>, scale: f64| match options.absolute {
        true => amount(sums, options.exclusive) * scale,
        false => view.pct(amount(sums, options.exclusive)),
    };
    let key = |c: &Change<'_>| value(new, c.new, factor) - value(base, c.base, 1.0);
    // Of rows that changed alike (a caller whose growth is all its only callee's, as Java's
    // `Work.lambda$main$2` is `Work.render`'s), the one whose other quantity (its self value where
    // totals are compared) changed more first, else the deeper: the callee, where the work is.
    let other = |c: &Change<'_>| {
        let value = |view: &View, sums: Option<&Sums>| view.pct(amount(sums, !options.exclusive));
        value(new, c.new) - value(base, c.base)
    };
    let depth = |c: &Change<'_>| c.new.or(c.base).map_or(0, |s| s.depth);
    rows.sort_by(|a, b| {
        (key(b).abs().total_cmp(&key(a).abs()))
            .then_with(|| other(b).abs().total_cmp(&other(a).abs()))
            .then_with(|| depth(b).cmp(&depth(a)))
            .then_with(|| a.name.cmp(b.name))
    });
    rows
}

/// `new`, `gone`, `root` (a synthetic root), `pseudo` (a producer's frame, not gated), or empty.
fn status(change: &Change<'_>) -> &'static str {
    match (change.role, change.base, change.new) {
        (Role::SyntheticRoot, _, _) => "root",
        (_, None, _) => "new",
        (_, _, None) => "gone",
        (Role::Pseudo, _, _) => "pseudo",
        _ => "",
    }
}

/// The table of `rows` as judged, and how its values print.
fn table(
    base: &View,
    new: &View,
    rows: &[Change<'_>],
    judged: &[Judged],
    options: &DiffOptions,
    factor: f64,
    tested: bool,
) -> (Table, Digits) {
    let value = |view: &View, sums: Option<&Sums>, own: bool, scale: f64| match options.absolute {
        true => amount(sums, own) * scale,
        false => view.pct(amount(sums, own)),
    };
    let (columns, digits) = columns(base, options.absolute, tested);
    let mut texts: Vec<String> = ["new", "gone", "root", "pseudo"].map(String::from).to_vec();
    let mut cells = Vec::with_capacity(rows.len() * columns.len());
    for (change, judged) in rows.iter().zip(judged) {
        texts.push(change.name.to_string());
        cells.push(Cell::Text(texts.len() as u32 - 1));
        cells.push(match status(change) {
            "" => Cell::Empty,
            word => Cell::Text(texts.iter().position(|t| t == word).unwrap_or(0) as u32),
        });
        for own in [true, false] {
            let (b, n) = (value(base, change.base, own, 1.0), value(new, change.new, own, factor));
            cells.extend([Cell::Number(b, digits), Cell::Number(n, digits), Cell::Number(n - b, Digits::Signed)]);
        }
        if tested {
            cells.push(judged.test.map_or(Cell::Empty, |test| Cell::Number(test.p, Digits::Places(4))));
        }
        cells.push(Cell::Flag(judged.failed()));
    }
    (Table { rows: Cells::boxed(&columns, cells), columns, texts }, digits)
}

/// A test as JSON: the shares and their intervals, the statistic, p, and the variance that decided.
fn test_json(test: &gate::Test) -> serde_json::Value {
    json!({
        "shares": [test.shares.0, test.shares.1],
        "margins": [test.margins.0, test.margins.1],
        "statistic": test.statistic,
        "p": test.p,
        "method": match test.method { gate::Method::Sampling => "sampling", gate::Method::Spread => "spread" },
        "freedom": test.freedom,
    })
}

/// The lines below the verdict: each function that failed the gate with its shares before and
/// after (and their 95 % intervals by the test that decided), its p-value and the caller path
/// that grew most; those large but not clear, and the runs that would decide them; the functions
/// new and gone, and those not gated.
fn explain(
    base: &View,
    new: &View,
    rows: &[Change<'_>],
    judged: &[Judged],
    own: bool,
    tested: Option<&Tested>,
) -> String {
    let mut text = String::new();
    let on = if own { "self" } else { "total" };
    for (change, judged) in rows.iter().zip(judged).filter(|(_, j)| j.failed()) {
        let (b, n) = (base.pct(amount(change.base, own)), new.pct(amount(change.new, own)));
        text.push_str(&format!("* {}: {on} {b:.1} % → {n:.1} % ({:+.1} points", change.name, n - b));
        if let Some(test) = judged.test {
            text.push_str(&format!("; {}", test_words(&test)));
        }
        let other = if own { "total" } else { "self" };
        let (ob, on) = (base.pct(amount(change.base, !own)), new.pct(amount(change.new, !own)));
        text.push_str(&format!("); {other} {ob:.1} % → {on:.1} %\n"));
        if let Some((path, grew)) = path_that_grew_most(base, new, change.name) {
            text.push_str(&format!("    grew most on the path {path} ({grew:+.1} points)\n"));
        }
    }
    if let Some(tested) = tested {
        text.push_str(&format!(
            "Tested {} function(s) of {} (those whose share could pass the limits); expected false alarms among the {} flagged: {:.2} (at most {} % of them).\n",
            tested.functions,
            tested.of,
            tested.flagged,
            tested.expected_false_alarms(),
            tested.q * 100.0
        ));
        text.push_str(&not_clear(rows, judged, tested));
    }
    let listed = |text: &mut String, status: &str, names: Vec<&str>| {
        if !names.is_empty() {
            let shown = names.iter().take(10).copied().collect::<Vec<_>>().join(", ");
            let more = if names.len() > 10 { format!(" and {} more", names.len() - 10) } else { String::new() };
            text.push_str(&format!("{status}: {shown}{more}\n"));
        }
    };
    let gated = |c: &&Change<'_>| c.role != Role::SyntheticRoot;
    listed(&mut text, "New", rows.iter().filter(gated).filter(|c| c.base.is_none()).map(|c| c.name).collect());
    listed(&mut text, "Gone", rows.iter().filter(gated).filter(|c| c.new.is_none()).map(|c| c.name).collect());
    let not_gated = rows.iter().zip(judged).filter(|(_, j)| !j.gated).map(|(c, _)| c.name).collect();
    listed(
        &mut text,
        "Not gated (a producer's frames or a side's synthetic root; --gate-pseudo gates the former)",
        not_gated,
    );
    text
}

/// `95 % intervals 10.1 ± 2.0 → 20.3 ± 2.6 %, p = 3.4e-9 (sampling)`: a test's figures, in the
/// words of the variance that decided.
fn test_words(test: &gate::Test) -> String {
    let pct = |share: f64| format!("{:.1}", share * 100.0);
    let (mb, mn) = test.margins;
    let method = match (test.method, test.freedom) {
        (gate::Method::Spread, Some(df)) => format!("Welch's t on the runs' spread, {df:.1} degrees of freedom"),
        _ => "z, sampling and the between-run floor".to_string(),
    };
    format!(
        "95 % intervals {} ± {:.1} → {} ± {:.1} %, p = {:.2e} ({method})",
        pct(test.shares.0),
        mb * 100.0,
        pct(test.shares.1),
        mn * 100.0,
        test.p
    )
}

/// The functions that grew past the limits but not clearly, and about how many runs a side would
/// decide the clearest of them: what to do next.
fn not_clear(rows: &[Change<'_>], judged: &[Judged], tested: &Tested) -> String {
    let alpha = tested.q / tested.functions.max(1) as f64;
    let unclear: Vec<(&str, gate::Test)> = rows
        .iter()
        .zip(judged)
        .filter(|(_, j)| j.gated && j.large && !j.clear)
        .filter_map(|(c, j)| Some((c.name, j.test?)))
        .collect();
    if unclear.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = unclear.iter().map(|(name, _)| *name).take(5).collect();
    let more = if unclear.len() > 5 { format!(" and {} more", unclear.len() - 5) } else { String::new() };
    let decide = match unclear.iter().filter_map(|(_, t)| gate::runs_to_decide(t, alpha)).min() {
        Some(decide) => format!("; about {decide} run(s) a side would decide the clearest"),
        None => String::new(),
    };
    format!(
        "Not clear: {} function(s) grew past the limits within the noise ({}{more}){decide}.\n",
        unclear.len(),
        names.join(", ")
    )
}

/// Of the stacks (root to the function, outermost nodes of `name`) of either view, the one whose
/// share grew most, and by how many points.
fn path_that_grew_most(base: &View, new: &View, name: &str) -> Option<(String, f64)> {
    let mut growth: BTreeMap<String, f64> = BTreeMap::new();
    for (view, sign) in [(base, -1.0), (new, 1.0)] {
        let Some(row) = view.names.iter().position(|n| n == name) else { continue };
        let outermost = view.outermost();
        let tree = &view.profile.tree;
        for node in tree.nodes().filter(|&n| view.row(n) as usize == row && outermost[n.index()]) {
            let mut path: Vec<&str> =
                tree.ancestors(node).iter().map(|&a| view.names[view.row(a) as usize].as_str()).collect();
            path.push(name);
            *growth.entry(path.join(";")).or_default() += sign * view.pct(view.inclusive(node));
        }
    }
    growth.into_iter().filter(|(_, g)| *g > 0.0).max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The self value (with `own`) or total of `sums`, 0 for a function the profile does not have.
pub(super) fn amount(sums: Option<&Sums>, own: bool) -> f64 {
    sums.map_or(0.0, |s| if own { s.own } else { s.total })
}

/// The table's columns, and how its values print.
fn columns(base: &View, absolute: bool, tested: bool) -> (Vec<Column>, Digits) {
    let (unit, digits) = match absolute {
        true => (unit_label(base.metric()).to_string(), super::digits_of(base.metric())),
        false => ("%".to_string(), Digits::Decimals),
    };
    let change = if absolute { "change".to_string() } else { "± pts".to_string() };
    // With --absolute, values and changes are of BASE's metric: one quantity, shown in one unit
    // (a change of a count headed without the count's word, as before).
    let quantity = base.quantity(base.metric);
    let changes = units::Quantity { label: String::new(), ..quantity.clone() };
    let value = |key: &'static str, heading: &str| match absolute {
        true => Column::amount(key, heading, quantity.clone()),
        false => Column::new(key, format!("{heading} {unit}")),
    };
    let change_of = |key: &'static str, of: &str| match absolute {
        true => Column::amount(key, format!("{of} {change}"), changes.clone()),
        false => Column::new(key, format!("{of} {change}")),
    };
    let columns = vec![
        Column::new("name", "name"),
        Column::new("status", "status"),
        value("base_self", "base self"),
        value("new_self", "new self"),
        change_of("self_change", "self"),
        value("base_total", "base total"),
        value("new_total", "new total"),
        change_of("total_change", "total"),
    ];
    let p = tested.then(|| Column::new("p", "p"));
    let columns = columns.into_iter().chain(p).chain([Column::new("crossed", "over")]).collect();
    (columns, digits)
}

/// The heading: each profile, its metric and total, and what is compared (the limits are the
/// gate's rule, below the table).
fn title(base: &View, new: &View, labels: (&str, &str), options: &DiffOptions) -> String {
    let side = |label: &str, view: &View| {
        let unit = unit_label(view.metric());
        format!("{label}: {} ({}), total {} {unit}", view.metric().name, view.metric().kind.name(), view.total())
    };
    let compared = match options.absolute {
        true => "values (NEW in BASE's unit)",
        false => "shares of each profile's total, changes in points",
    };
    format!("BASE {}\nNEW  {}\nCompared: {compared}", side(labels.0, base), side(labels.1, new))
}

/// Whether metrics `a` and `b` measure one quantity: of one kind, or both time (samples, ticks and
/// time turn into one another at an interval), and both additive or both not.
fn comparable(a: &Metric, b: &Metric) -> bool {
    a.aggregation == b.aggregation && (a.kind == b.kind || (a.kind.measures_time() && b.kind.measures_time()))
}

/// BASE's metric `b` and NEW's `n`, where they compare.
fn comparable_pair(base: &Profile, new: &Profile, b: usize, n: usize) -> Option<(usize, usize)> {
    Some((b, n)).filter(|_| comparable(&base.metrics()[b], &new.metrics()[n]))
}

/// Chooses the metric named `name` (`--metric`) in `base` and `new` as the one they are compared
/// by ([`crate::model::Meta::chosen_metric`]): in a profile without it, its own metric of a
/// quantity that converts (ticks for time). An error names what each has when they cannot compare
/// by it.
pub fn choose_metric(base: &mut Profile, new: &mut Profile, name: &str) -> Result<(), Error> {
    let pair = |b: usize, n: usize| comparable_pair(base, new, b, n);
    let stand_in = |p: &Profile, other: &Metric| {
        let fits = |m: &usize| comparable(&p.metrics()[*m], other);
        p.primary_metric().filter(fits).or_else(|| (0..p.metrics().len()).find(fits))
    };
    let chosen = match (base.metric_index(name), new.metric_index(name)) {
        (Some(b), Some(n)) => pair(b, n),
        (Some(b), None) => stand_in(new, &base.metrics()[b]).map(|n| (b, n)),
        (None, Some(n)) => stand_in(base, &new.metrics()[n]).map(|b| (b, n)),
        (None, None) => None,
    };
    let Some((b, n)) = chosen else {
        return Err(Error::BadOption(format!(
            "--metric {name}: both profiles must have it, or one of a quantity it converts into (BASE has: {}; NEW has: {})",
            metric_names(base),
            metric_names(new)
        )));
    };
    (base.meta.chosen_metric, new.meta.chosen_metric) = (Some(b), Some(n));
    Ok(())
}

/// A profile's metrics, for messages.
fn metric_names(profile: &Profile) -> String {
    profile.metrics().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ")
}

/// The metric each of `base` and `new` is compared by (their indices): the ones chosen
/// ([`choose_metric`]), else each profile's own default ([`Profile::primary_metric`], what every
/// command shows) where the two compare, else the first kind both have. An error names what each
/// has when they share nothing.
pub(crate) fn shared_metric(base: &Profile, new: &Profile) -> Result<(usize, usize), Error> {
    if let (Some(b), Some(n)) = (base.meta.chosen_metric, new.meta.chosen_metric) {
        return Ok((b, n));
    }
    let pair = |b: usize, n: usize| comparable_pair(base, new, b, n);
    let own = base.primary_metric().zip(new.primary_metric()).and_then(|(b, n)| pair(b, n));
    // Else the first kind both have, in the order of preference; timer inspections, which count
    // the profiler's own work, are no measure of a change.
    let kinds = MetricKind::PREFERENCE.into_iter().filter(|&kind| kind != MetricKind::Inspections);
    let shared = || kinds.clone().find_map(|kind| Some((base.metric_of_kind(kind)?, new.metric_of_kind(kind)?)));
    own.or_else(shared).ok_or_else(|| {
        Error::BadOption(format!(
            "the two profiles share no kind of metric to compare (BASE has: {}; NEW has: {})",
            metric_names(base),
            metric_names(new)
        ))
    })
}

/// How `diff` matches two profiles before it compares them.
#[derive(Clone, Debug, Default)]
pub struct Matching {
    /// The interval that turns samples or ticks into time (`--interval`), else the profile's own.
    pub interval: Option<Duration>,
    /// Compare threads and processes by name (`--by-thread`) instead of as if merged.
    pub by_thread: bool,
}

/// Two profiles made comparable: NEW's metric in BASE's kind, and how their threads are matched.
#[derive(Clone)]
pub struct Matched {
    /// BASE, as compared.
    pub base: Profile,
    /// NEW, as compared.
    pub new: Profile,
    /// The metric of each that they are compared by.
    pub metrics: (usize, usize),
    /// What hides the threads and processes of both (unless `by_thread`), so that their stacks
    /// meet as if merged: the views' filter, which keeps each profile's total, and the differential
    /// outputs' own.
    pub threads: Filters,
}

/// Makes `base` and `new` comparable: their threads and processes merged (two runs name theirs
/// apart: py-spy's `Thread 17137` then `Thread 20001`, a pid in a process name) unless
/// `by_thread`; the metric each is compared by (`shared_metric`); NEW's metric turned into BASE's
/// kind where they differ (ticks into time at NEW's interval), said on stderr.
pub fn match_profiles(
    base: Profile,
    new: Profile,
    matching: &Matching,
    diag: &mut Diagnostics,
) -> Result<Matched, Error> {
    let hide = (!matching.by_thread).then(|| threads_hidden(&base, &new)).flatten();
    if hide.is_some() {
        diag.warn("diff-threads-merged", None, || {
            "threads and processes are compared as if merged (--by-thread compares them by name)".into()
        });
    }
    let threads = Filters { hide, ..Filters::default() };
    let mut new = new;
    let mut base = base;
    let metrics = shared_metric(&base, &new)?;
    // Each is then shown and compared by its metric of the two.
    (base.meta.chosen_metric, new.meta.chosen_metric) = (Some(metrics.0), Some(metrics.1));
    let to = base.metrics()[metrics.0].clone();
    if new.metrics()[metrics.1].kind == to.kind {
        // Units of one kind (ms and ns) are compared as they are, NEW's values put in BASE's unit.
        return Ok(Matched { base, new, metrics, threads });
    }
    // The interval of whichever side counts samples or ticks: NEW's time divided into BASE's
    // counts, or NEW's counts taken as time.
    let (counts_side, turning) = match new.metrics()[metrics.1].kind {
        MetricKind::Time => (&base, Turning::TimeIntoCounts),
        _ => (&new, Turning::CountsIntoTime),
    };
    let own = counts_side.meta.interval;
    let interval = effective_interval(matching.interval, own, turning);
    if let Some(change) = convert::into_quantity(&mut new, metrics.1, &to, interval)? {
        let assumed = match (change.interval, matching.interval, own) {
            (Some(_), None, None) => " (no interval is known: set one with --interval)",
            _ => "",
        };
        diag.warn("diff-converted", None, || format!("NEW's {change}, to compare with BASE's {}{assumed}", to.name));
    }
    Ok(Matched { base, new, metrics, threads })
}

/// A `--hide` pattern of the names of the threads and processes of either profile, whatever kind
/// of frame bears the name in the other (a Sampler file keeps a LispWorks process as a function
/// below its thread); `None` when neither has one.
fn threads_hidden(base: &Profile, new: &Profile) -> Option<Regex> {
    let mut names: Vec<String> = [base, new]
        .iter()
        .flat_map(|p| p.frames.iter().filter(|(_, f)| f.kind == FrameKind::Thread).map(|(_, f)| regex::escape(&f.name)))
        .collect();
    names.sort_unstable();
    names.dedup();
    // Names escaped, so the pattern is valid.
    (!names.is_empty()).then(|| Regex::new(&format!("^(?:{})$", names.join("|"))).ok()).flatten()
}

/// `profile`'s folded stacks of its metric `metric`.
#[cfg(test)]
mod tests {
    use super::differential::differential_folded;
    use super::*;
    use crate::convert::ConvertOptions;
    use crate::formats::Format;

    /// A floor of time on samples is a number of samples at the interval: 50 ms of 10 ms samples
    /// is 5, by hand; without an interval, or on bytes, it is refused.
    #[test]
    fn a_floor_of_time_is_samples_at_the_interval() {
        let samples = Metric::samples();
        let ms = Some(Duration::from_millis(10));
        assert_eq!(MinAbs::parse("50ms").unwrap().in_unit_of(&samples, ms).unwrap(), 5.0);
        assert!(MinAbs::parse("50ms").unwrap().in_unit_of(&samples, None).is_err());
        let alloc =
            Metric { name: "alloc".into(), kind: MetricKind::Alloc, unit: crate::model::Unit::Bytes, ..samples };
        assert_eq!(MinAbs::parse("4KiB").unwrap().in_unit_of(&alloc, ms).unwrap(), 4096.0);
        assert!(MinAbs::parse("50ms").unwrap().in_unit_of(&alloc, ms).is_err());
        assert!(MinAbs::parse("-1").is_err() && MinAbs::parse("NaN").is_err() && MinAbs::parse("ms").is_err());
    }
    use crate::formats::ReadOptions;

    fn read(format: Format, text: &str) -> Profile {
        format.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap()
    }

    /// Each rule on a name of the kind it is for, by hand.
    #[test]
    fn what_differs_between_runs_is_taken_out_of_names() {
        let mut profile = read(
            Format::Folded,
            "main;core::ptr::drop::h0123456789abcdef;parse.constprop.3;Foo$$Lambda$123/0x0000000800c01234.apply 1\n\
             main;[perf-4242.map];jitted-4242-17.so;0x7f3a12345678 1\n\
             thread (9505): MainThread;Work$$Lambda$93+0x00007f1b9c009000.27319466.accept 1\n\
             process 4242:\"python3 app.py\";thread (0x7F3A12345678);Bar$$Lambda/0x0000000800c0b1d8.run 1\n\
             <module> (work.py:70);render (work.py:36);render.<locals>.<genexpr> (work.py:36);f (a (b).py:3) 1\n",
        );
        assert_eq!(names_across_runs(&mut profile).len(), 14);
        let mut names: Vec<String> = profile.frames.iter().map(|(_, f)| f.name.clone()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "0x…",
                "<module> (work.py)",
                "Bar$$Lambda.run",
                "Foo$$Lambda.apply",
                "Work$$Lambda.accept",
                "[perf-PID.map]",
                "core::ptr::drop",
                // Not py-spy's: a file name of parentheses.
                "f (a (b).py:3)",
                "jitted-PID.so",
                "main",
                "parse.constprop",
                "process …:\"python3 app.py\"",
                "render (work.py)",
                "render.<locals>.<genexpr> (work.py)",
                "thread (…)",
                "thread (…): MainThread",
            ]
        );
    }

    /// An unsymbolicated frame of a library is an offset in it, the same in every run: two stay two
    /// rows, whether the reader named them by their library (`libm.so.6!0x1a49b`, samply's files)
    /// or gave the library as their module; a bare address of no library is one row `0x…`.
    #[test]
    fn addresses_in_a_library_stay_apart() {
        let mut profile =
            read(Format::Folded, "main;libm.so.6!0x1a49b 1\nmain;libm.so.6!0x1a4c0 1\nmain;0x7f3a12345678 1\n");
        let frame = crate::model::FrameRef {
            module: Some("/usr/lib/libc.so.6"),
            ..crate::model::FrameRef::function("0x27249")
        };
        let libc = profile.frames.intern(frame);
        let root = profile.tree.roots().next().unwrap();
        profile.tree.push(Some(root), libc);
        names_across_runs(&mut profile);
        let mut names: Vec<String> = profile.frames.iter().map(|(_, f)| f.name.clone()).collect();
        names.sort();
        assert_eq!(names, ["0x…", "libc.so.6!0x27249", "libm.so.6!0x1a49b", "libm.so.6!0x1a4c0", "main"]);
    }

    #[test]
    fn the_two_count_lines_are_inferno_diff_folded_s() {
        let base = read(Format::Folded, include_str!("../../../fixtures/cli/diff-base.folded"));
        let new = read(Format::Folded, include_str!("../../../fixtures/cli/diff-new.folded"));
        let metrics = shared_metric(&base, &new).unwrap();
        let lines = differential_folded(base, new, metrics, &ConvertOptions::default(), &mut Diagnostics::default());
        assert_eq!(lines.unwrap(), include_str!("../../../fixtures/cli/diff.inferno-diff-folded"));
    }

    #[test]
    fn each_differential_output_is_written_from_the_matched_profiles() {
        let base = read(Format::Folded, include_str!("../../../fixtures/cli/diff-base.folded"));
        let new = read(Format::Folded, include_str!("../../../fixtures/cli/diff-new.folded"));
        let matched = match_profiles(base, new, &Matching::default(), &mut Diagnostics::default()).unwrap();
        let write = |format: Format| {
            let mut out = Vec::new();
            let options = (&ConvertOptions::default(), false);
            let b = Gated {
                name: "b".into(),
                status: "",
                shares: (10.0, 20.0),
                p: Some(1e-3),
                failed: true,
                outcome: "failed",
            };
            let verdict = (true, std::slice::from_ref(&b));
            write_differential(
                format,
                matched.clone(),
                ("a", "b"),
                options,
                verdict,
                &mut out,
                &mut Diagnostics::default(),
            )
            .unwrap();
            out
        };
        let folded = write(Format::Folded);
        assert_eq!(String::from_utf8(folded).unwrap(), include_str!("../../../fixtures/cli/diff.inferno-diff-folded"));
        let svg = String::from_utf8(write(Format::Svg)).unwrap();
        assert!(svg.contains("Differential Flame Graph: b against a"), "{svg}");
        // gzip's magic number: a pprof profile as go tool pprof reads it.
        assert_eq!(write(Format::Pprof)[..2], [0x1f, 0x8b]);
        let page = String::from_utf8(write(Format::Html)).unwrap();
        assert!(page
            .contains(r#""diff":{"base":0,"new":1,"baseLabel":"a","newLabel":"b","regression":true,"rows":{"name":["b"],"status":[""],"outcome":["failed"],"base":[10],"new":[20],"p":[0.001]}}"#));
        let mut names: Vec<String> = Format::differential_names().split(", ").map(String::from).collect();
        names.sort();
        assert_eq!(names, ["folded", "html", "pprof", "svg"]);
        let refused = write_differential(
            Format::Speedscope,
            matched.clone(),
            ("a", "b"),
            (&ConvertOptions::default(), false),
            (false, &[]),
            &mut Vec::new(),
            &mut Diagnostics::default(),
        );
        assert!(matches!(refused, Err(Error::BadOption(_))));
    }

    #[test]
    fn profiles_are_compared_by_a_kind_both_have() {
        let folded = read(Format::Folded, "a 1\n");
        let px = read(Format::GhcPx, include_str!("../../../fixtures/ghc-px/notes-example.px"));
        // Samples and ticks both measure time: they compare.
        let (f, p) = shared_metric(&folded, &px).unwrap();
        assert_eq!((folded.metrics()[f].kind, px.metrics()[p].kind), (MetricKind::Samples, MetricKind::Ticks));
        // Bytes are no time.
        let mut bytes = read(Format::Folded, "a 1\n");
        let alloc = Metric { kind: MetricKind::Alloc, unit: crate::model::Unit::Bytes, ..bytes.metrics()[0].clone() };
        let values = bytes.tree.self_values(0).clone();
        bytes.replace_metric(0, alloc, values);
        let err = shared_metric(&folded, &bytes).unwrap_err().to_string();
        assert!(err.starts_with("the two profiles share no kind of metric to compare (BASE has: samples"), "{err}");
        let dyalog = read(Format::DyalogXml, include_str!("../../../fixtures/dyalog-xml/v1.37-stats-tree.xml"));
        // A Dyalog report (calls, time) and a BR timed file (samples, time) meet on time.
        let timed = Format::Br
            .read(
                &mut &include_bytes!("../../../fixtures/br/timed.br")[..],
                &ReadOptions::default(),
                &mut Diagnostics::default(),
            )
            .unwrap();
        let (d, b) = shared_metric(&dyalog, &timed).unwrap();
        assert_eq!((dyalog.metrics()[d].kind, timed.metrics()[b].kind), (MetricKind::Time, MetricKind::Time));
        // Named, samples compare with the Dyalog report's time, which they turn into.
        let (mut dyalog, mut timed) = (dyalog, timed);
        assert!(choose_metric(&mut dyalog, &mut timed, "alloc").is_err());
        choose_metric(&mut dyalog, &mut timed, "samples").unwrap();
        let (d, b) = shared_metric(&dyalog, &timed).unwrap();
        assert_eq!((dyalog.metrics()[d].kind, timed.metrics()[b].kind), (MetricKind::Time, MetricKind::Samples));
    }
}
