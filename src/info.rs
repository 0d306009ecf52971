//! `proftool info`: what a profile holds, as text for a person or JSON for a script.
//!
//! Sums of float values (a metric's total, a function's self value over its nodes) are given as
//! the shortest decimal within the rounding error of the sum, so that 0.1 ms and 0.2 ms add up to
//! 0.3, not 0.30000000000000004; sums of counts are exact. Frames are named as the one-name writers
//! (folded) name them: a GHC cost centre as `Module.label`. Text shows the heaviest functions'
//! times and bytes as a report shows a column of them: in the unit their largest picks (`1.38 s`).

use crate::formats::detect::Reason;
use crate::formats::Format;
use crate::model::{Profile, Total, TotalSource, Unit, Value, DURATION};
use crate::report::units::{self, Quantity};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write;

/// How many functions the report lists.
pub(crate) const TOP_FUNCTIONS: usize = 10;

/// The facts `info` reports.
#[derive(Debug, Serialize)]
pub struct Info {
    /// The input's format.
    pub format: &'static str,
    /// How the format was decided.
    pub detected: &'static str,
    /// Title, if any.
    pub title: Option<String>,
    /// Timestamp, if any.
    pub timestamp: Option<String>,
    /// Sampling interval in nanoseconds, if any.
    pub interval_ns: Option<u128>,
    /// Format-specific header facts.
    pub attrs: Vec<(String, String)>,
    /// What the profile's report says of itself ([`crate::model::ReportFacts`]: its kind, the
    /// timer's cost, …), each as what it is and its value.
    pub report: Vec<(String, String)>,
    /// Every metric with its total.
    pub metrics: Vec<MetricInfo>,
    /// Number of roots.
    pub roots: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// Number of distinct frames.
    pub frames: usize,
    /// Deepest depth (roots at 0).
    pub max_depth: Option<u32>,
    /// The metric the heaviest functions are ranked by.
    pub ranked_by: Option<String>,
    /// The heaviest functions by self value (non-zero), heaviest first.
    pub top_functions: Vec<FunctionInfo>,
    /// The unit of the metric they are ranked by: text shows time and bytes in a unit of their
    /// size, as the reports do.
    #[serde(skip)]
    pub ranked_unit: Option<Unit>,
}

/// One metric in the report.
#[derive(Debug, Serialize)]
pub struct MetricInfo {
    /// Its name.
    pub name: String,
    /// What it measures.
    pub kind: &'static str,
    /// Its unit.
    pub unit: &'static str,
    /// `additive` or `per-node`.
    pub aggregation: &'static str,
    /// Its total, the one the reports state ([`Profile::reported_total`]): the sum of its self
    /// values, unless the source states or measured another.
    pub total: f64,
    /// Where the total comes from when it is not the sum of the self values (`the report's
    /// TotalTime`, `the roots' measured inclusive values`).
    pub total_from: Option<String>,
    /// The sum of the self values, when the total is not that.
    pub rows_total: Option<f64>,
}

/// One function in the report.
#[derive(Debug, Serialize)]
pub struct FunctionInfo {
    /// The frame as one name.
    pub name: String,
    /// Its self value in the ranking metric, summed over its nodes.
    #[serde(rename = "self")]
    pub self_value: f64,
}

impl Info {
    /// Gathers the report for `profile`, read as `format`.
    pub fn of(profile: &Profile, format: Format, reason: Reason) -> Info {
        let metrics = profile
            .metrics()
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let rows = Sum::of(profile.tree.nodes().map(|node| profile.tree.self_value(i, node))).value();
                let reported = m.is_additive().then(|| profile.reported_total(i));
                let from = reported.and_then(|total| total_from(total, rows));
                MetricInfo {
                    name: m.name.clone(),
                    kind: m.kind.name(),
                    unit: m.unit.name(),
                    aggregation: if m.is_additive() { "additive" } else { "per-node" },
                    total: reported.filter(|_| from.is_some()).map_or(rows, |total| total.value),
                    rows_total: from.is_some().then_some(rows),
                    total_from: from,
                }
            })
            .collect();
        let ranked = profile.primary_metric();
        Info {
            format: format.name(),
            detected: reason.describe(),
            title: profile.meta.title.clone(),
            timestamp: profile.meta.timestamp.clone(),
            interval_ns: profile.meta.interval.map(|d| d.as_nanos()),
            attrs: profile.meta.attrs.clone(),
            report: (profile.meta.report.stated().into_iter())
                .filter_map(|fact| Some((fact.label().to_string(), profile.meta.report.describe(fact)?)))
                .collect(),
            metrics,
            roots: profile.tree.roots().count(),
            nodes: profile.tree.len(),
            frames: profile.frames.len(),
            max_depth: profile.max_depth(),
            ranked_by: ranked.map(|m| profile.metrics()[m].name.clone()),
            top_functions: ranked.map(|m| heaviest(profile, m)).unwrap_or_default(),
            ranked_unit: ranked.map(|m| profile.metrics()[m].unit),
        }
    }

    /// The report as text for a terminal.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "format     {} ({})", self.format, self.detected);
        if let Some(t) = &self.title {
            let _ = writeln!(s, "title      {t}");
        }
        if let Some(t) = &self.timestamp {
            let _ = writeln!(s, "timestamp  {t}");
        }
        if let Some(ns) = self.interval_ns {
            let _ = writeln!(s, "interval   {:?}", std::time::Duration::from_nanos(ns as u64));
        }
        for (k, v) in self.attrs.iter().chain(&self.report) {
            let _ = match (k.as_str(), v.parse()) {
                // How long the run lasted, shown as the interval is (`1.003165934s`).
                (DURATION, Ok(ns)) => writeln!(s, "duration   {:?}", std::time::Duration::from_nanos(ns)),
                _ => writeln!(s, "{k:<10} {v}"),
            };
        }
        for m in &self.metrics {
            let from = match (&m.total_from, m.rows_total) {
                (Some(from), Some(rows)) => format!(" ({from}; the rows add up to {})", number(rows)),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "metric     {} ({}, {}, {}): total {}{from}",
                m.name,
                m.kind,
                m.unit,
                m.aggregation,
                number(m.total)
            );
        }
        let depth = self.max_depth.map_or("-".into(), |d| d.to_string());
        let _ = writeln!(
            s,
            "tree       {} {}, {} nodes, {} frames, max depth {depth}",
            self.roots,
            if self.roots == 1 { "root" } else { "roots" },
            self.nodes,
            self.frames
        );
        if let Some(metric) = &self.ranked_by {
            let total = self.metrics.iter().find(|m| &m.name == metric).map_or(0.0, |m| m.total);
            let _ = writeln!(s, "heaviest functions by self {metric}:");
            let values = self.top_values();
            let width = values.iter().map(String::len).max().unwrap_or(0);
            for (f, value) in self.top_functions.iter().zip(&values) {
                let share = if total > 0.0 { 100.0 * f.self_value / total } else { 0.0 };
                let _ =
                    writeln!(s, "  {value:>width$}  {share:5.1}%  {}", crate::report::safe_text::in_a_cell(&f.name));
            }
        }
        s
    }

    /// The heaviest functions' values as text shows them: time and bytes in the unit in which the
    /// largest is at least 1, named (`1.38 s`, `0.10 s`), with three significant digits of it, as
    /// `summary` shows a column; in the metric's own unit (counts, Dyalog's milliseconds) as they
    /// are, the metric's line naming it.
    fn top_values(&self) -> Vec<String> {
        let values = self.top_functions.iter().map(|f| f.self_value);
        let largest = values.clone().fold(0.0, |largest: f64, v| largest.max(v.abs()));
        let quantity =
            |unit| Quantity { unit, name: String::new(), label: String::new(), ticks: false, interval_nanos: None };
        match self.ranked_unit.and_then(|unit| units::shown(&quantity(unit), largest, None)) {
            Some(shown) if !shown.own => {
                let places = units::decimals_for(largest / shown.divisor);
                values.map(|v| format!("{:.places$} {}", v / shown.divisor, shown.word)).collect()
            }
            _ => values.map(number).collect(),
        }
    }
}

/// Where `total` comes from, when it is not `rows`, the self values added up (beyond the rounding
/// of adding them up: a tree whose roots measured what its rows hold says nothing).
fn total_from(total: Total<'_>, rows: f64) -> Option<String> {
    let beyond_rounding = (total.value - rows).abs() > 1e-9 * rows.abs().max(total.value.abs());
    match total.source {
        _ if !beyond_rounding => None,
        TotalSource::Rows => None,
        TotalSource::Stated(source) => Some(source.to_string()),
        TotalSource::Measured => Some("the roots' measured inclusive values".to_string()),
    }
}

/// A value for people: twelve significant digits, so sums of times read `0.011`, not
/// `0.011000000000000003`.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return Value::Float(v).to_string();
    }
    crate::model::significant(v, 12)
}

/// The functions with the largest summed self value of `metric`, heaviest first, ties by name; a
/// function's lines (a Go profile's frame per source line) are added up into it.
fn heaviest(profile: &Profile, metric: usize) -> Vec<FunctionInfo> {
    let mut by_name: HashMap<String, Sum> = HashMap::new();
    let tree = &profile.tree;
    let mut by_frame = vec![Sum::default(); profile.frames.len()];
    for node in tree.nodes() {
        by_frame[tree.frame(node).index()].add(tree.self_value(metric, node));
    }
    for (id, _) in profile.frames.iter() {
        by_name.entry(profile.function_name(id).into_owned()).or_default().merge(&by_frame[id.index()]);
    }
    let mut all: Vec<FunctionInfo> = by_name
        .into_iter()
        .map(|(name, sum)| FunctionInfo { name, self_value: sum.value() })
        .filter(|f| f.self_value != 0.0)
        .collect();
    all.sort_by(|a, b| b.self_value.total_cmp(&a.self_value).then_with(|| a.name.cmp(&b.name)));
    all.truncate(TOP_FUNCTIONS);
    all
}

/// A sum of metric values: counts exactly, floats with what it takes to tell their sum from the
/// binary noise of adding them.
#[derive(Clone, Copy, Default)]
struct Sum {
    counts: i128,
    floats: f64,
    /// The sum of the floats' magnitudes, and how many there are: the scale of the rounding error.
    magnitude: f64,
    terms: u64,
}

impl Sum {
    fn of(values: impl Iterator<Item = Value>) -> Sum {
        let mut sum = Sum::default();
        values.for_each(|v| sum.add(v));
        sum
    }

    fn add(&mut self, value: Value) {
        match value {
            Value::Int(v) => self.counts += i128::from(v),
            Value::Float(v) => {
                self.floats += v;
                self.magnitude += v.abs();
                self.terms += 1;
            }
        }
    }

    fn merge(&mut self, other: &Sum) {
        self.counts += other.counts;
        self.floats += other.floats;
        self.magnitude += other.magnitude;
        self.terms += other.terms;
    }

    /// The sum, its floats as the shortest decimal within their rounding error
    /// ([`crate::model::decimal_sum`]).
    fn value(&self) -> f64 {
        self.counts as f64 + crate::model::decimal_sum(self.floats, self.terms, self.magnitude)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_sums_lose_the_noise_of_adding() {
        let sum = |values: &[f64]| Sum::of(values.iter().map(|&v| Value::Float(v))).value();
        assert_eq!(sum(&[0.1, 0.2]), 0.3);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.6);
        assert_eq!(sum(&[0.2, 236.563]), 236.763);
        // One value is as it is, however many digits it has.
        assert_eq!(sum(&[0.8205615629464091]), 0.8205615629464091);
        assert_eq!(sum(&[0.1, 0.25]), 0.35);
        assert_eq!(Sum::of([Value::Int(i64::MAX), Value::Int(1)].into_iter()).value(), 9_223_372_036_854_775_808.0);
    }
}
