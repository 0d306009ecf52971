//! `proftool summary`: consumption per function (or per line with `--lines`), `]PROFILE summary`.

use super::rank::Ranking;
use super::table::{Cell, Cells, Column, Digits};
use super::{digits_of, PlainPrinter, Report, View};
use crate::error::Error;
use crate::model::Values;

/// The switches of `summary`, with `]PROFILE`'s meanings.
#[derive(Clone, Debug, Default)]
pub struct SummaryOptions {
    /// `--exclusive`, `--first`, `--pct`, `--cumpct`, `--avg`.
    pub ranking: Ranking,
    /// Only what these functions call, in turn (`--fn a,b`).
    pub functions: Vec<String>,
}

/// One function's (one row's) sums.
#[derive(Clone, Debug, Default)]
pub(super) struct Sums {
    /// Whether a node of it is in the view.
    pub seen: bool,
    /// Its self value.
    pub own: f64,
    /// Its total, each sample once however often it is on the stack.
    pub total: f64,
    /// Its calls, where the profile counts them.
    pub calls: i64,
    /// The depth of its shallowest node (a root's is 0), so that a caller can be told from its
    /// callee where their sums are alike.
    pub depth: u32,
}

/// The sums of every row of `view`, in one pass over its nodes.
pub(super) fn sums(view: &View) -> Vec<Sums> {
    sums_of(view, view.metric, &view.inclusive)
}

/// The sums of every row of `view` in `metric`, whose inclusive values per node are `inclusive`.
pub(super) fn sums_of(view: &View, metric: usize, inclusive: &Values) -> Vec<Sums> {
    let mut sums = vec![Sums { depth: u32::MAX, ..Sums::default() }; view.names.len()];
    let tree = &view.profile.tree;
    let outermost = view.outermost();
    let depths = tree.depths();
    for node in tree.nodes() {
        let row = &mut sums[view.row(node) as usize];
        row.seen = true;
        row.depth = row.depth.min(depths[node.index()]);
        row.own += tree.self_value(metric, node).as_f64();
        row.calls += view.node_calls(node).unwrap_or(0);
        if outermost[node.index()] {
            row.total += inclusive.get(node.index()).as_f64();
        }
    }
    if let super::Calls::PerRow(calls) = &view.calls {
        sums.iter_mut().zip(calls).for_each(|(row, &calls)| row.calls = calls);
    }
    sums
}

/// The summary of `view`. With `--lines`, a function's row is left out where rows of its lines
/// account for its time (`]PROFILE summary -lines` lists lines), so that the rows rank lines.
pub fn summary(view: View, options: &SummaryOptions) -> Result<Report<PlainPrinter>, Error> {
    let view = view.select(&options.functions)?;
    let ranking = &options.ranking;
    view.check_avg(ranking.avg)?;
    let self_unknown = view.self_unknown(view.metric);
    if self_unknown && ranking.exclusive {
        return Err(Error::BadOption(
            "--exclusive: the profile is a ]PROFILE summary report, which holds inclusive times only: its functions' own times are not in it (a tree report has them, ]PROFILE tree)".into(),
        ));
    }
    let sums = sums(&view);
    let key = |s: &Sums| ranking.key(s.own, s.total);
    // A row's share of the total: the file's own where it gives one for the row as shown.
    let file_percentages = view.file_percentages();
    let total_pct = |r: usize| file_percentages[r].unwrap_or_else(|| view.pct(sums[r].total));
    let key_pct = |r: usize| if ranking.exclusive { view.pct(sums[r].own) } else { total_pct(r) };
    let has_lines = view.functions_with_lines();
    let mut order: Vec<usize> = (0..sums.len()).filter(|&r| sums[r].seen && !has_lines[r]).collect();
    order.sort_by(|&a, &b| key(&sums[b]).total_cmp(&key(&sums[a])).then_with(|| view.names[a].cmp(&view.names[b])));
    let digits = digits_of(view.metric());
    let quantity = view.quantity(view.metric);
    let mut columns = vec![
        Column::new("name", "name"),
        Column::amount("self", "self", quantity.clone()),
        Column::new("self_pct", "self %"),
        Column::amount("total", "total", quantity.clone()),
        Column::new("total_pct", "total %"),
    ];
    let has_calls = view.has_calls();
    if has_calls {
        columns.push(Column::new("calls", "calls"));
    }
    ranking.add_columns(&quantity, &mut columns);
    let mut cells = Vec::new();
    for (&r, cumulative) in ranking.kept(&order, |&r| key_pct(r)) {
        let s = &sums[r];
        cells.push(Cell::Text(r as u32));
        match self_unknown {
            true => cells.extend([Cell::Empty, Cell::Empty]),
            false => cells.extend([Cell::Number(s.own, digits), Cell::Number(view.pct(s.own), Digits::Decimals)]),
        }
        cells.extend([Cell::Number(s.total, digits), Cell::Number(total_pct(r), Digits::Decimals)]);
        if has_calls {
            cells.push(Cell::Number(s.calls as f64, Digits::Whole));
        }
        ranking.add_cells(key(s), has_calls.then_some(s.calls), cumulative, &mut cells);
    }
    let rows = Cells::boxed(&columns, cells);
    Ok(view.report("summary", columns, rows, PlainPrinter))
}
