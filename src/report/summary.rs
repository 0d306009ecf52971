//! `proftool summary`: consumption per function (or per line with `--lines`), `]PROFILE summary`.

use super::output::{Cell, Cells, Column, Digits, Report};
use super::{amount_column, digits_of, View};
use crate::error::Error;

/// The switches of `summary`, with `]PROFILE`'s meanings.
#[derive(Clone, Debug, Default)]
pub struct SummaryOptions {
    /// Sort by self value instead of total (`--exclusive`).
    pub exclusive: bool,
    /// At most this many rows (`--first N`).
    pub first: Option<usize>,
    /// Rows while the cumulative % stays at most this (`--pct P`).
    pub pct: Option<f64>,
    /// Show the cumulative % (`--cumpct`).
    pub cumpct: bool,
    /// Show the value per call (`--avg`).
    pub avg: bool,
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
}

/// The sums of every row of `view`, in one pass over its nodes.
pub(super) fn sums(view: &View) -> Vec<Sums> {
    let mut sums = vec![Sums::default(); view.names.len()];
    let tree = &view.profile.tree;
    let outermost = view.outermost();
    for node in tree.nodes() {
        let row = &mut sums[view.row(node) as usize];
        row.seen = true;
        row.own += tree.self_value(view.metric, node).as_f64();
        row.calls += view.node_calls(node).unwrap_or(0);
        if outermost[node.index()] {
            row.total += view.inclusive(node);
        }
    }
    if let super::Calls::PerRow(calls) = &view.calls {
        sums.iter_mut().zip(calls).for_each(|(row, &calls)| row.calls = calls);
    }
    sums
}

/// The summary of `view`.
pub fn summary(view: View, options: &SummaryOptions) -> Result<Report, Error> {
    let view = view.select(&options.functions)?;
    view.check_avg(options.avg)?;
    let sums = sums(&view);
    let key = |s: &Sums| if options.exclusive { s.own } else { s.total };
    let mut order: Vec<usize> = (0..sums.len()).filter(|&r| sums[r].seen).collect();
    order.sort_by(|&a, &b| key(&sums[b]).total_cmp(&key(&sums[a])).then_with(|| view.names[a].cmp(&view.names[b])));
    let metric = view.metric();
    let digits = digits_of(metric);
    let mut columns = vec![
        Column::new("name", "name"),
        amount_column("self", "self", metric),
        Column::new("self_pct", "self %"),
        amount_column("total", "total", metric),
        Column::new("total_pct", "total %"),
    ];
    let has_calls = view.has_calls();
    if has_calls {
        columns.push(Column::new("calls", "calls"));
    }
    if options.avg {
        columns.push(amount_column("avg", "avg", metric));
    }
    if options.cumpct {
        columns.push(Column::new("cum_pct", "cum %"));
    }
    let mut cells = Vec::new();
    let mut cumulative = 0.0;
    for &r in order.iter().take(options.first.unwrap_or(usize::MAX)) {
        let s = &sums[r];
        cumulative += view.pct(key(s));
        if options.pct.is_some_and(|limit| cumulative > limit) {
            break;
        }
        cells.extend([
            Cell::Text(r as u32),
            Cell::Number(s.own, digits),
            Cell::Number(view.pct(s.own), Digits::Decimals),
            Cell::Number(s.total, digits),
            Cell::Number(view.pct(s.total), Digits::Decimals),
        ]);
        if has_calls {
            cells.push(Cell::Number(s.calls as f64, Digits::Whole));
        }
        if options.avg {
            cells.push(match s.calls {
                0 => Cell::Empty,
                calls => Cell::Number(key(s) / calls as f64, Digits::Decimals),
            });
        }
        if options.cumpct {
            cells.push(Cell::Number(cumulative, Digits::Decimals));
        }
    }
    let selected = view.selected_if_narrowed();
    Ok(view.report("summary", selected, Cells::boxed(&columns, cells), columns))
}
