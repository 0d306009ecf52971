//! `convert --dyalog-report summary|data`: a profile as `]PROFILE summary` or `]PROFILE data`
//! writes it (the `]PROFILE` guide, docs/sources.md: `]profile data -outfile=c:\temp\data.csv
//! -format=csv -separators=",;"`), a flat report for a Dyalog output.
//!
//! The rows are the reports' own (`data` and `summary` in this module's siblings): a data report's
//! are each function, heaviest first, then its lines, with calls, the exclusive time (its own and
//! its lines') and the inclusive one, and the timer inspections, times as measured (a data report is
//! raw); a summary's are each function's inclusive time, bias-adjusted, and its calls, with the
//! profile's total as the total its PctOfTot is of.

use super::data::{groups, Group};
use super::summary::sums_of;
use super::{inclusive_values, ReportOptions, View};
use crate::error::Error;
use crate::model::{
    DerivedColumns, FrameKind, FrameRef, Metric, MetricKind, Profile, ReportFacts, ReportKind, Value, Values,
};

/// The flat `]PROFILE` reports proftool writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatReport {
    /// `]PROFILE summary`: each function's inclusive time.
    Summary,
    /// `]PROFILE data`: each function and its lines, raw.
    Data,
}

impl std::str::FromStr for FlatReport {
    type Err = String;

    fn from_str(s: &str) -> Result<FlatReport, String> {
        match s {
            "summary" => Ok(FlatReport::Summary),
            "data" => Ok(FlatReport::Data),
            _ => Err(format!("expected summary or data, found {s:?}")),
        }
    }
}

impl FlatReport {
    /// The kind of report it is ([`crate::model::ReportFacts::kind`]).
    pub fn kind(self) -> ReportKind {
        match self {
            FlatReport::Summary => ReportKind::Summary,
            FlatReport::Data => ReportKind::Data,
        }
    }
}

/// `profile` as the flat report `kind`, and what it could not do as asked (for stderr). The report
/// says what it is ([`crate::model::ReportFacts`]): its kind, the run's timer cost, and for a
/// summary the total its percentages (a derived column) are of, so that a writer of such reports
/// (Dyalog's) writes it as one.
pub fn flat_report(profile: Profile, kind: FlatReport) -> Result<(Profile, Vec<String>), Error> {
    let timer_cost = profile.meta.report.timer_cost;
    let title = profile.meta.title.clone();
    let options = ReportOptions { lines: true, measured_times: kind == FlatReport::Data, ..ReportOptions::default() };
    let view = View::new(profile, &options)?;
    let notes = view.notes().to_vec();
    let source = &view.profile;
    let additive = |kind| source.metrics().iter().position(|m| m.kind == kind && m.is_additive());
    let Some(time) = additive(MetricKind::Time) else {
        return Err(Error::BadOption(
            "--dyalog-report: the profile has no time; convert it to a Dyalog tree first (samples become time at --interval), then that tree to a summary or data report".into(),
        ));
    };
    let columns: Vec<usize> = [Some(time), additive(MetricKind::Inspections)].into_iter().flatten().collect();
    let sums: Vec<_> = columns.iter().map(|&m| sums_of(&view, m, &inclusive_values(&source.tree, m))).collect();
    let calls = view.has_calls().then(|| super::summary::sums(&view));
    let mut metrics: Vec<Metric> = calls.iter().map(|_| Metric::entries("calls")).collect();
    metrics.extend(columns.iter().map(|&m| source.metrics()[m].clone()));
    let mut flat = Profile::new(metrics);
    let first_value = usize::from(calls.is_some());
    let mut measured: Vec<Values> = columns.iter().map(|&m| Values::new(source.metrics()[m].repr)).collect();
    let mut groups: Vec<(String, Group)> = groups(&view, None)?;
    if kind == FlatReport::Summary {
        // A summary ranks functions by their inclusive time, lines left out.
        let total = |g: &Group| g.function.map_or(0.0, |row| sums.first().map_or(0.0, |s| s[row as usize].total));
        groups.retain(|(_, g)| g.function.is_some());
        groups.sort_by(|a, b| total(&b.1).total_cmp(&total(&a.1)).then_with(|| a.0.cmp(&b.0)));
    }
    for (name, group) in &groups {
        let lines = group.lines.iter().filter(|_| kind == FlatReport::Data);
        let mut parent = None;
        for (row, line) in
            group.function.map(|row| (row, None)).into_iter().chain(lines.map(|&(row, line, _)| (row, Some(line))))
        {
            let frame = match line {
                None => flat.frames.intern(FrameRef::function(name)),
                Some(line) => {
                    flat.frames.intern(FrameRef { line: Some(line), ..FrameRef::named(name, FrameKind::Line) })
                }
            };
            let node = flat.tree.push(parent.filter(|_| line.is_some()), frame);
            if line.is_none() {
                parent = Some(node);
            }
            let row = row as usize;
            if let Some(calls) = &calls {
                flat.tree.add_self(0, node, Value::Int(calls[row].calls));
            }
            for (i, sums) in sums.iter().enumerate() {
                let (own, total) = (sums[row].own, sums[row].total);
                // A summary's one time is inclusive; a data report's own is the unattributed part.
                let own = if kind == FlatReport::Summary { total } else { own };
                flat.tree.add_self(first_value + i, node, value_in(&measured[i], own));
                push(&mut measured[i], total);
            }
        }
    }
    for (i, inclusive) in measured.into_iter().enumerate() {
        flat.tree.set_measured_inclusive_column(first_value + i, inclusive);
    }
    flat.meta.flat = true;
    flat.meta.self_unknown = kind == FlatReport::Summary;
    flat.meta.title = title;
    let summary = kind == FlatReport::Summary;
    flat.meta.report = ReportFacts {
        kind: Some(kind.kind()),
        timer_cost,
        // A summary's percentages of the total, of the profile's total.
        percentages_of: summary.then(|| view.total()),
        derived: DerivedColumns { percent_of_total: summary, ..DerivedColumns::default() },
        row_percentages: None,
    };
    Ok((flat, notes))
}

/// `v` in the representation of `column`.
fn value_in(column: &Values, v: f64) -> Value {
    match column {
        Values::Int(_) => Value::Int(v.round() as i64),
        Values::Float(_) => Value::Float(v),
    }
}

fn push(column: &mut Values, v: f64) {
    match column {
        Values::Int(values) => values.push(v.round() as i64),
        Values::Float(values) => values.push(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::formats::{Format, ReadOptions};

    #[test]
    fn a_flat_report_says_what_it_is() {
        let text = include_str!("../../fixtures/dyalog-xml/v1.37-stats-tree.xml");
        let tree = Format::DyalogXml.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default());
        let tree = tree.unwrap();
        let (summary, _) = flat_report(tree.clone(), FlatReport::Summary).unwrap();
        let facts = &summary.meta.report;
        assert_eq!((facts.kind, facts.timer_cost), (Some(ReportKind::Summary), tree.meta.report.timer_cost));
        let time = tree.metric_of_kind(MetricKind::Time).unwrap();
        assert_eq!(facts.percentages_of, Some(tree.reported_total(time).value));
        assert!(facts.derived.percent_of_total && summary.meta.flat && summary.meta.self_unknown);
        let (data, _) = flat_report(tree.clone(), FlatReport::Data).unwrap();
        assert!(data.meta.report.times_as_measured() && data.meta.report.percentages_of.is_none());
        assert!(!data.meta.report.derived.any() && !data.meta.self_unknown);
    }
}
