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
mod names;
mod print;
mod runs;

pub use differential::{write_differential, Differential};
pub use names::names_across_runs;
pub use print::DiffPrinter;
use print::{CiVerdict, Gated};
pub use runs::{RunCounts, Side};

use super::gate;
use super::summary::{sums, Sums};
use super::table::{whole_or_float, Cell, Cells, Column, Digits, Table};
use super::{unit_label, units, Header, Report, View};
use crate::convert;
use crate::diag::Diagnostics;
use crate::error::Error;
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
                    Err(refused("a time, and BASE has no interval"))
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
    /// The functions (or lines) that did, largest change first.
    pub flagged: Vec<String>,
}

/// One side of a comparison: its runs (merged, where there are several) in the view its table
/// One row of the table: the sums of one name in each profile.
struct Change<'a> {
    name: &'a str,
    base: Option<&'a Sums>,
    new: Option<&'a Sums>,
}

/// What the gate found of one row.
#[derive(Clone, Copy, Debug, Default)]
struct Judged {
    /// The sampling test, where both sides are sampled.
    test: Option<gate::Test>,
    /// Whether the growth is large: past every limit.
    large: bool,
    /// Whether the growth is clear: a discovery of the test, or large where nothing is tested.
    clear: bool,
}

impl Judged {
    /// Whether the row failed the gate: its growth large and clear.
    fn failed(&self) -> bool {
        self.large && self.clear
    }
}

/// The gate's rule as `options` set it: its limits, and the false discovery rate of its test
/// (`None` with `--no-stats`); no limits at all with `--no-stats` and no `--threshold`.
fn rule(options: &DiffOptions, least: Option<f64>) -> Option<(gate::Limits, Option<f64>)> {
    let limits = |points, relative| gate::Limits { points, relative, floor: least };
    match options.false_discovery_rate {
        Some(q) => {
            let points = options.threshold.unwrap_or(DEFAULT_POINTS);
            Some((limits(points, options.relative.or(Some(DEFAULT_RELATIVE))), Some(q)))
        }
        None => options.threshold.map(|points| (limits(points, options.relative), None)),
    }
}

/// Compares `base` and `new` (views of the metric `shared_metric` chose in each), named `labels`
/// in the heading.
pub fn compare(base: &Side, new: &Side, labels: (&str, &str), options: &DiffOptions) -> Result<Comparison, Error> {
    let (base_runs, new_runs) = (base.runs.as_deref(), new.runs.as_deref());
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
    let mut changes: BTreeMap<&str, Change<'_>> = BTreeMap::new();
    for (view, all, is_base) in [(base, &base_sums, true), (new, &new_sums, false)] {
        for (row, sums) in all.iter().enumerate().filter(|(_, s)| s.seen) {
            let name = view.names[row].as_str();
            let change = changes.entry(name).or_insert(Change { name, base: None, new: None });
            match is_base {
                true => change.base = Some(sums),
                false => change.new = Some(sums),
            }
        }
    }
    // A share in points of its profile's total, and the values shown: shares, or values in BASE's unit.
    let share = |view: &View, sums: Option<&Sums>, own: bool| view.pct(amount(sums, own));
    let value = |view: &View, sums: Option<&Sums>, own: bool, scale: f64| match options.absolute {
        true => amount(sums, own) * scale,
        false => share(view, sums, own),
    };
    let key =
        |c: &Change<'_>| value(new, c.new, options.exclusive, factor) - value(base, c.base, options.exclusive, 1.0);
    let mut rows: Vec<&Change<'_>> = changes.values().collect();
    rows.sort_by(|a, b| key(b).abs().total_cmp(&key(a).abs()).then_with(|| a.name.cmp(b.name)));
    let own = options.exclusive;
    let rule = rule(options, least);
    let sampled = base_runs.zip(new_runs).filter(|_| rule.is_some_and(|(_, q)| q.is_some()));
    let tests: Option<Vec<gate::Test>> = sampled.map(|(b, n)| {
        let counts = |runs: &[RunCounts], name: &str| runs.iter().map(|r| r.count(name, own)).collect::<Vec<_>>();
        let per_function = |runs: &[RunCounts]| rows.iter().map(|c| counts(runs, c.name)).collect::<Vec<_>>();
        let (b, n) = (per_function(b), per_function(n));
        let dispersions =
            (gate::dispersion(b.iter().map(Vec::as_slice)), gate::dispersion(n.iter().map(Vec::as_slice)));
        b.iter().zip(&n).map(|(b, n)| gate::test_growth(b, n, dispersions)).collect()
    });
    let q = rule.and_then(|(_, q)| q).unwrap_or(DEFAULT_FALSE_DISCOVERY_RATE);
    let discoveries = tests.as_ref().map(|tests| gate::discoveries(&tests.iter().map(|t| t.p).collect::<Vec<_>>(), q));
    let judged: Vec<Judged> = rows
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let Some((limits, _)) = rule else { return Judged::default() };
            let shares = (share(base, c.base, own) / 100.0, share(new, c.new, own) / 100.0);
            let large = limits.crossed(shares, amount(c.new, own) * factor - amount(c.base, own));
            let test = tests.as_ref().map(|tests| tests[i]);
            let clear = discoveries.as_ref().is_none_or(|found| found[i]);
            Judged { test, large, clear }
        })
        .collect();
    let (columns, digits) = columns(base, options.absolute, tests.is_some());
    let mut texts: Vec<String> = vec!["new".into(), "gone".into()];
    let mut cells = Vec::with_capacity(rows.len() * columns.len());
    for (change, judged) in rows.iter().zip(&judged) {
        texts.push(change.name.to_string());
        cells.push(Cell::Text(texts.len() as u32 - 1));
        cells.push(match (change.base, change.new) {
            (None, _) => Cell::Text(0),
            (_, None) => Cell::Text(1),
            _ => Cell::Empty,
        });
        for own in [true, false] {
            let (b, n) = (value(base, change.base, own, 1.0), value(new, change.new, own, factor));
            cells.extend([Cell::Number(b, digits), Cell::Number(n, digits), Cell::Number(n - b, Digits::Signed)]);
        }
        if let Some(test) = judged.test {
            cells.push(Cell::Number(test.p, Digits::Places(4)));
        }
        cells.push(Cell::Flag(judged.failed()));
    }
    let over: Vec<usize> = (0..rows.len()).filter(|&i| judged[i].failed()).collect();
    let regression = !over.is_empty();
    let tested = Tested { functions: rows.len(), q, flagged: over.len() };
    let metric_json = |view: &View, label: &str, runs: Option<&[RunCounts]>| {
        let total = whole_or_float(view.total());
        let runs = runs.map(<[RunCounts]>::len);
        json!({ "file": label, "metric": view.metric().name, "unit": unit_label(view.metric()), "total": total, "runs": runs })
    };
    let verdict = match (rule, regression) {
        (None, _) => "none",
        (Some(_), true) => "regression",
        (Some(_), false) => "pass",
    };
    let on = if own { "self" } else { "total" };
    let limits = json!({
        "threshold": rule.map(|(l, _)| l.points),
        "relative": rule.and_then(|(l, _)| l.relative),
        "min_abs": least,
        "on": on,
        "false_discovery_rate": rule.and_then(|(_, q)| q),
    });
    let rule_line = gate_rule(base_runs, new_runs, rule, base_metric);
    let gate_json = json!({
        "rule": rule_line,
        "tested": tests.as_ref().map(|_| tested.functions),
        "expected_false_alarms": tests.as_ref().map(|_| tested.expected_false_alarms()),
        "flagged": over.iter().map(|&i| rows[i].name).collect::<Vec<_>>(),
        "p": tests.as_ref().map(|tests| tests.iter().zip(&rows).map(|(t, c)| (c.name.to_string(), json!(t.p))).collect::<Map<_, _>>()),
    });
    let explanation = explain(base, new, &rows, &judged, own, tests.as_ref().map(|_| &tested));
    let verdict_line = match rule {
        None => "No limits set (--threshold, or leave out --no-stats).".to_string(),
        Some(_) if regression => {
            format!("Regression: {} function(s) marked * grew their {on} share past the limits.", over.len())
        }
        Some(_) => format!("Pass: no function's {on} share grew past the limits."),
    };
    let header = Header {
        kind: "diff",
        metric: new.metric().name.clone(),
        unit: unit_label(base.metric()).to_string(),
        total: new.total(),
        selected: None,
        digits,
        amount: None,
    };
    let fields = Map::from_iter([
        ("base".to_string(), metric_json(base, labels.0, base_runs)),
        ("new".to_string(), metric_json(new, labels.1, new_runs)),
        ("limits".to_string(), limits),
        ("gate".to_string(), gate_json),
        ("verdict".to_string(), json!(verdict)),
    ]);
    let table = Table { rows: Cells::boxed(&columns, cells), columns, texts };
    let title = title(base, new, labels, options);
    let gated = rows
        .iter()
        .zip(&judged)
        .map(|(c, j)| Gated {
            name: c.name.to_string(),
            status: match (c.base, c.new) {
                (None, _) => "new",
                (_, None) => "gone",
                _ => "",
            },
            shares: (share(base, c.base, own), share(new, c.new, own)),
            p: j.test.map(|t| t.p),
            failed: j.failed(),
        })
        .collect();
    let verdict_words = match verdict {
        "regression" => "❌ regression",
        "pass" => "✅ pass",
        _ => "no gate",
    };
    let ci = CiVerdict { verdict: verdict_words, on, labels: (labels.0.to_string(), labels.1.to_string()), gated };
    let printer = DiffPrinter { title, rule_line, fields, verdict_line, explanation, ci };
    let flagged = over.iter().map(|&i| rows[i].name.to_string()).collect();
    Ok(Comparison { report: Report { header, table, printer }, regression, flagged })
}

/// How many functions the test weighed, and how many it flagged, at false discovery rate `q`.
struct Tested {
    functions: usize,
    q: f64,
    flagged: usize,
}

impl Tested {
    /// The false alarms expected among the functions flagged: at most `q` of them, and, when nothing
    /// changed at all, a run that fails with a probability of at most `q`.
    fn expected_false_alarms(&self) -> f64 {
        match self.flagged {
            0 => 0.0,
            flagged => self.q * flagged as f64,
        }
    }
}

/// The rule the gate applied, in words: the test (where both sides count samples) and the limits.
fn gate_rule(
    base: Option<&[RunCounts]>,
    new: Option<&[RunCounts]>,
    rule: Option<(gate::Limits, Option<f64>)>,
    metric: &Metric,
) -> String {
    let Some((limits, q)) = rule else { return "Gate: none.".into() };
    let mut large = format!("grew by more than {} point(s)", limits.points);
    if let Some(relative) = limits.relative {
        large.push_str(&format!(" and by at least {} % of BASE's share", relative * 100.0));
    }
    if let Some(floor) = limits.floor {
        large.push_str(&format!(" and by at least {floor} {}", unit_label(metric)));
    }
    let Some(q) = q else { return format!("Gate (--no-stats): a function fails it where its share {large}.") };
    match base.zip(new) {
        Some((b, n)) => {
            let test = match (b.len(), n.len()) {
                (1, 1) => "the two-proportion test on sample counts".to_string(),
                (b, n) => format!("Welch's t on the runs' shares ({b} BASE, {n} NEW)"),
            };
            format!(
                "Gate ({}, sampled): a function fails where {test} finds its growth clear (one-sided, Benjamini–Hochberg at a false discovery rate of {} %) and its share {large}.",
                metric.name,
                q * 100.0
            )
        }
        None => format!(
            "Gate ({}, not sampled: no sampling noise to test): a function fails where its share {large}.",
            metric.name
        ),
    }
}

/// The lines below the verdict: each function that failed the gate with its shares before and
/// after (and their 95 % intervals), its p-value and the caller path that grew most; those large
/// but not clear, and the runs that would decide them; the functions new and gone.
fn explain(
    base: &View,
    new: &View,
    rows: &[&Change<'_>],
    judged: &[Judged],
    own: bool,
    tested: Option<&Tested>,
) -> String {
    let mut text = String::new();
    let on = if own { "self" } else { "total" };
    let pct = |share: f64| format!("{:.1} %", share * 100.0);
    for (change, judged) in rows.iter().zip(judged).filter(|(_, j)| j.failed()) {
        let (b, n) = (base.pct(amount(change.base, own)), new.pct(amount(change.new, own)));
        text.push_str(&format!("* {}: {on} {b:.1} % → {n:.1} % ({:+.1} points", change.name, n - b));
        if let Some(test) = judged.test {
            let (mb, mn) = test.margins;
            text.push_str(&format!(
                "; 95 % intervals {} ± {:.1} → {} ± {:.1}, p = {:.2e}",
                pct(test.shares.0),
                mb * 100.0,
                pct(test.shares.1),
                mn * 100.0,
                test.p
            ));
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
            "Tested {} function(s); expected false alarms among the {} flagged: {:.2} (at most {} % of them).\n",
            tested.functions,
            tested.flagged,
            tested.expected_false_alarms(),
            tested.q * 100.0
        ));
        let alpha = tested.q / tested.functions.max(1) as f64;
        let unclear: Vec<(&str, gate::Test)> = rows
            .iter()
            .zip(judged)
            .filter(|(_, j)| j.large && !j.clear)
            .filter_map(|(c, j)| Some((c.name, j.test?)))
            .collect();
        if let Some(decide) = unclear.iter().filter_map(|(_, t)| gate::runs_to_decide(t, alpha)).min() {
            let names: Vec<&str> = unclear.iter().map(|(name, _)| *name).take(5).collect();
            let more = if unclear.len() > 5 { format!(" and {} more", unclear.len() - 5) } else { String::new() };
            text.push_str(&format!(
                "Not clear: {} function(s) grew past the limits within sampling noise ({}{more}); about {decide} run(s) a side would decide the clearest.\n",
                unclear.len(),
                names.join(", ")
            ));
        }
    }
    for (status, side_missing) in [("New", true), ("Gone", false)] {
        let names: Vec<&str> = rows
            .iter()
            .filter(|c| if side_missing { c.base.is_none() } else { c.new.is_none() })
            .map(|c| c.name)
            .collect();
        if !names.is_empty() {
            let shown = names.iter().take(10).copied().collect::<Vec<_>>().join(", ");
            let more = if names.len() > 10 { format!(" and {} more", names.len() - 10) } else { String::new() };
            text.push_str(&format!("{status}: {shown}{more}\n"));
        }
    }
    text
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
fn amount(sums: Option<&Sums>, own: bool) -> f64 {
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
    let first_of = |p: &Profile, kind| p.metrics().iter().position(|m| m.kind == kind);
    // Else the first kind both have, in the order of preference; timer inspections, which count
    // the profiler's own work, are no measure of a change.
    let kinds = MetricKind::PREFERENCE.into_iter().filter(|&kind| kind != MetricKind::Inspections);
    let shared = || kinds.clone().find_map(|kind| Some((first_of(base, kind)?, first_of(new, kind)?)));
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
    // The interval of whichever side counts samples or ticks.
    let counts_side = match new.metrics()[metrics.1].kind {
        MetricKind::Time => &base,
        _ => &new,
    };
    let own = counts_side.meta.interval;
    let interval = matching.interval.or(own).unwrap_or(convert::DEFAULT_INTERVAL);
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
             main;[perf-4242.map];jitted-4242-17.so;0x7f3a12345678 1\n",
        );
        assert_eq!(names_across_runs(&mut profile), 6);
        let mut names: Vec<String> = profile.frames.iter().map(|(_, f)| f.name.clone()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "0x…",
                "Foo$$Lambda/0x….apply",
                "[perf-PID.map]",
                "core::ptr::drop",
                "jitted-PID.so",
                "main",
                "parse.constprop"
            ]
        );
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
        let write = |kind: Differential| {
            let mut out = Vec::new();
            let options = (&ConvertOptions::default(), false);
            let verdict = (true, &["b".to_string()][..]);
            write_differential(
                kind,
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
        let folded = write("folded".parse().unwrap());
        assert_eq!(String::from_utf8(folded).unwrap(), include_str!("../../../fixtures/cli/diff.inferno-diff-folded"));
        let svg = String::from_utf8(write(Differential::Svg)).unwrap();
        assert!(svg.contains("Differential Flame Graph: b against a"), "{svg}");
        // gzip's magic number: a pprof profile as go tool pprof reads it.
        assert_eq!(write(Differential::Pprof)[..2], [0x1f, 0x8b]);
        let page = String::from_utf8(write(Differential::Html)).unwrap();
        assert!(page
            .contains(r#""diff":{"base":0,"new":1,"baseLabel":"a","newLabel":"b","regression":true,"flagged":["b"]}"#));
        assert!("flame".parse::<Differential>().is_err());
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
        let dyalog = read(Format::DyalogXml, include_str!("../../../fixtures/dyalog-xml/v1.37-tree.xml"));
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
