//! `proftool tree`: the call tree indented, each node with its total, self value and their % of the
//! profile's total; siblings of one name are one node, the heaviest first.

use super::output::{Cell, Column, Digits, Report};
use super::{digits_of, unit_label, View};
use crate::error::Error;
use crate::model::ops;
use std::cmp::Ordering;

/// The switches of `tree`.
#[derive(Clone, Debug, Default)]
pub struct TreeOptions {
    /// Show this many levels (`--depth N`: roots are level 1).
    pub depth: Option<u32>,
    /// Leave out branches under this % of the total (`--min-pct P`), saying how much.
    pub min_pct: Option<f64>,
    /// The subtrees rooted at these functions, in turn (`--fn a,b`).
    pub functions: Vec<String>,
}

/// A value sorted heaviest first.
#[derive(PartialEq)]
struct Heaviest(f64);

impl Eq for Heaviest {}

impl PartialOrd for Heaviest {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Heaviest {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// The tree report of `view`.
pub fn tree(view: View, options: &TreeOptions) -> Result<Report, Error> {
    let view = view.select(&options.functions)?;
    // Siblings of one frame (a LispWorks file may repeat one) are one node of the report.
    let view = match view.profile.tree.has_duplicate_siblings(view.profile.frames.len()) {
        true => View::of(ops::merge_siblings(&view.profile), view.metric, Some(view.total)),
        false => view,
    };
    let tree = &view.profile.tree;
    let mut children = tree.children();
    children.sort_by_key(|n| (Heaviest(view.inclusive[n.index()]), view.names[view.row(n) as usize].as_str()));
    let metric = view.metric();
    let digits = digits_of(metric);
    let unit = unit_label(metric);
    let mut columns = vec![
        Column::new("depth", "depth"),
        Column::new("total", format!("total {unit}")),
        Column::new("total_pct", "total %"),
        Column::new("self", format!("self {unit}")),
        Column::new("self_pct", "self %"),
    ];
    let has_calls = matches!(view.calls, super::Calls::PerNode(_));
    if has_calls {
        columns.push(Column::new("calls", "calls"));
    }
    columns.push(Column::new("name", "name"));
    let name_column = columns.len() - 1;
    let floor = options.min_pct.map_or(f64::NEG_INFINITY, |p| p * view.total() / 100.0);
    let (mut pruned_branches, mut pruned_value) = (0u64, 0.0);
    // Nodes deeper than this are in a branch left out (pruned or below --depth).
    let mut skip_below: Option<u32> = None;
    let mut rows = Vec::new();
    for visit in tree.walk_with(children) {
        if skip_below.is_some_and(|d| visit.depth > d) {
            continue;
        }
        skip_below = None;
        let node = visit.node;
        let inclusive = view.inclusive[node.index()];
        if inclusive < floor {
            pruned_branches += 1;
            pruned_value += inclusive;
            skip_below = Some(visit.depth);
            continue;
        }
        if options.depth.is_some_and(|d| visit.depth + 1 >= d) {
            skip_below = Some(visit.depth);
        }
        let own = tree.self_value(view.metric, node).as_f64();
        let mut row = vec![
            Cell::Number(visit.depth as f64, Digits::Whole),
            Cell::Number(inclusive, digits),
            Cell::Number(view.pct(inclusive), Digits::Decimals),
            Cell::Number(own, digits),
            Cell::Number(view.pct(own), Digits::Decimals),
        ];
        if has_calls {
            row.push(Cell::Number(view.node_calls(node).unwrap_or(0) as f64, Digits::Whole));
        }
        row.push(Cell::Text(view.names[view.row(node) as usize].clone()));
        rows.push(row);
    }
    let selected = (!options.functions.is_empty()).then(|| view.selected());
    let mut report = view.report("tree", selected, columns, rows);
    report.indent = Some((0, name_column));
    if let Some(min_pct) = options.min_pct {
        let note = format!(
            "pruned: {pruned_branches} {} under {min_pct} % of the total, {} {unit} ({:.1} %)",
            if pruned_branches == 1 { "branch" } else { "branches" },
            crate::model::significant(pruned_value, 6),
            view.pct(pruned_value)
        );
        let json =
            serde_json::json!({ "branches": pruned_branches, "value": pruned_value, "pct": view.pct(pruned_value) });
        report.notes.push(("pruned", json, note));
    }
    Ok(report)
}
