//! `proftool data`: the figures of each function and of each of its lines, `]PROFILE data` (the
//! `]PROFILE` guide, docs/sources.md: Calls, msec(inc), msec(exc), ticks(inc), ticks(exc), "without
//! bias adjustment, but with counters for the number of clock inspections").
//!
//! A function's row comes first, then its lines' rows in line order. Each row has its calls where
//! the profile counts them and, for every metric that adds up along the tree (time and timer
//! inspections in a Dyalog report, samples elsewhere), its inclusive value (each sample once, as
//! `summary`'s total) and its exclusive value: a line's self value, a function's own and its
//! lines', as the report's ExclusiveTime. Functions come heaviest first in the reported
//! metric. The view keeps lines and, unless `--bias` is given, times as measured (see
//! [`super::ReportOptions::measured_times`]).

use super::calls::Functions;
use super::summary::{sums_of, Sums};
use super::table::{Cell, Cells, Column, Digits};
use super::{digits_of, inclusive_values, PlainPrinter, Report, View};
use crate::error::Error;
use crate::model::FrameKind;
use rustc_hash::FxHashMap;

/// The switches of `data`.
#[derive(Clone, Debug, Default)]
pub struct DataOptions {
    /// Only the function named (`--fn NAME`, as `summary` and `calls` take it), or every one whose
    /// name matches (`--regex --fn RE`), with their lines.
    pub functions: Option<Functions>,
}

/// A function and its lines: the rows shown together.
#[derive(Default)]
pub(super) struct Group {
    /// The function's own row, where the profile has one (a Go profile at line granularity has
    /// only its lines).
    pub function: Option<u32>,
    /// Its lines' rows, with their line and clause to sort them by.
    pub lines: Vec<(u32, u32, u32)>,
}

impl Group {
    /// The function's row, then its lines'.
    fn rows(&self) -> impl Iterator<Item = u32> + '_ {
        self.function.into_iter().chain(self.lines.iter().map(|&(row, _, _)| row))
    }
}

/// The data report of `view`.
pub fn data(view: View, options: &DataOptions) -> Result<Report<PlainPrinter>, Error> {
    let groups = groups(&view, options.functions.as_ref())?;
    let metrics: Vec<(usize, Vec<Sums>)> = (view.profile.metrics().iter().enumerate())
        .filter(|(_, m)| m.is_additive())
        .map(|(m, _)| (m, sums_of(&view, m, &inclusive_values(&view.profile.tree, m))))
        .collect();
    let calls = view.has_calls().then(|| super::summary::sums(&view));
    let mut columns = vec![Column::new("function", "function"), Column::new("name", "name")];
    if calls.is_some() {
        columns.push(Column::new("calls", "calls"));
    }
    for &(m, _) in &metrics {
        let metric = &view.profile.metrics()[m];
        let key = |part: &str| -> std::borrow::Cow<'static, str> { format!("{}_{part}", metric.name).into() };
        columns.push(Column::amount(key("inc"), "inc", view.quantity(m)));
        columns.push(Column::amount(key("exc"), "exc", view.quantity(m)));
    }
    let mut cells = Vec::new();
    // A function without a row of its own is named by a text after the rows' names.
    let mut unrowed = Vec::new();
    for (name, group) in &groups {
        let function = group.function.unwrap_or_else(|| {
            unrowed.push(name.clone());
            (view.names.len() + unrowed.len() - 1) as u32
        });
        for row in group.rows() {
            cells.extend([Cell::Text(function), Cell::Text(row)]);
            if let Some(calls) = &calls {
                cells.push(Cell::Number(calls[row as usize].calls as f64, Digits::Whole));
            }
            for (m, sums) in &metrics {
                let digits = digits_of(&view.profile.metrics()[*m]);
                // A function's exclusive value is the file's: its own and its lines' (the model
                // keeps each line's apart, below the function).
                let exclusive = match Some(row) == group.function {
                    true => group.lines.iter().map(|&(line, _, _)| sums[line as usize].own).sum::<f64>(),
                    false => 0.0,
                } + sums[row as usize].own;
                let exclusive = match view.self_unknown(*m) {
                    true => Cell::Empty,
                    false => Cell::Number(exclusive, digits),
                };
                cells.extend([Cell::Number(sums[row as usize].total, digits), exclusive]);
            }
        }
    }
    let rows = Cells::boxed(&columns, cells);
    let mut report = view.report("data", columns, rows, PlainPrinter);
    report.table.texts.extend(unrowed);
    Ok(report)
}

/// The groups of `view`'s rows of the `functions` (the one named: the group of a row that name
/// names, as `calls --fn` finds it; or every one whose function's name matches), by the function's
/// name, heaviest first (by its function's total, else its heaviest line's).
pub(super) fn groups(view: &View, functions: Option<&Functions>) -> Result<Vec<(String, Group)>, Error> {
    let profile = &view.profile;
    let mut seen = vec![false; view.names.len()];
    profile.tree.nodes().for_each(|n| seen[view.row(n) as usize] = true);
    let mut by_function: FxHashMap<String, Group> = FxHashMap::default();
    for (id, frame) in profile.frames.iter() {
        let row = view.row_of_frame[id.index()];
        if !seen[row as usize] {
            continue;
        }
        seen[row as usize] = false;
        if frame.kind == FrameKind::Line && !frame.is_anonymous_line() {
            let group = by_function.entry(profile.function_name(id).into_owned()).or_default();
            group.lines.push((row, frame.line.unwrap_or(0), frame.clause.unwrap_or(0)));
        } else {
            by_function.entry(view.names[row as usize].clone()).or_default().function = Some(row);
        }
    }
    match functions {
        None => {}
        Some(Functions::Matching(re)) => by_function.retain(|name, _| re.is_match(name)),
        Some(Functions::Named(name)) => {
            let mut named = vec![false; view.names.len()];
            view.rows_named(name)?.into_iter().for_each(|row| named[row as usize] = true);
            by_function.retain(|_, group| group.rows().any(|row| named[row as usize]));
        }
    }
    if by_function.is_empty() {
        return Err(Error::BadOption(match functions {
            Some(Functions::Matching(re)) => format!("--fn {}: no function matches", re.as_str()),
            Some(Functions::Named(name)) => format!("--fn {name}: no node of it is left after the filters"),
            None => "the profile has no functions".into(),
        }));
    }
    let totals = super::summary::sums(view);
    let weight = |group: &Group| match group.function {
        Some(row) => totals[row as usize].total,
        None => group.lines.iter().map(|&(row, _, _)| totals[row as usize].total).fold(0.0, f64::max),
    };
    let mut groups: Vec<(String, Group)> = by_function.into_iter().collect();
    groups.iter_mut().for_each(|(_, g)| g.lines.sort_by_key(|&(row, line, clause)| (line, clause, row)));
    groups.sort_by(|a, b| weight(&b.1).total_cmp(&weight(&a.1)).then_with(|| a.0.cmp(&b.0)));
    Ok(groups)
}
