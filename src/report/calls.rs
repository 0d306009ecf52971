//! `proftool calls --fn NAME`: how a function's consumption breaks down by caller (`]PROFILE
//! calls`), or with `--callees` by the functions it calls.
//!
//! A caller's value is the inclusive value of the function's outermost nodes under it, so that the
//! callers add up to the function's total; a recursive call (the function under itself) adds its
//! calls but no value, which its outer call holds already. A callee's value is the inclusive value
//! of the nodes called from the function's outermost nodes, and `(self)` the function's own value
//! there. Call counts are those of the function's nodes under each caller (of each callee's nodes),
//! where the profile counts calls per node.

use super::output::{Block, Cell, Column, Digits, Report};
use super::{digits_of, pct, unit_label, View};
use crate::error::Error;
use crate::model::NodeId;
use regex::Regex;
use rustc_hash::FxHashMap;

/// The name of a root's caller, and of a function's own value among its callees: texts of the
/// report after the row names.
const ROOT: &str = "(root)";
const OWN: &str = "(self)";

/// Which functions `calls` reports on.
#[derive(Clone, Debug)]
pub enum Functions {
    /// The one with this name.
    Named(String),
    /// Every one whose name matches.
    Matching(Regex),
}

/// The switches of `calls`.
#[derive(Clone, Debug)]
pub struct CallsOptions {
    /// `--fn NAME` (with `--regex`, a regex).
    pub functions: Functions,
    /// `--callees`: what the function spends in each function it calls.
    pub callees: bool,
}

/// One row of a block: a caller or callee.
#[derive(Clone, Debug, Default)]
struct Part {
    value: f64,
    calls: Option<i64>,
}

/// The calls report of `view`.
pub fn calls(view: View, options: &CallsOptions) -> Result<Report, Error> {
    let rows = matching_rows(&view, &options.functions)?;
    let metric = view.metric();
    let digits = digits_of(metric);
    let unit = unit_label(metric).to_string();
    let relation = if options.callees { "callee" } else { "caller" };
    let mut columns = vec![
        Column::new("function", "function"),
        Column::new("name", relation),
        Column::new("value", unit.clone()),
        Column::new("pct", "%"),
    ];
    let per_node_calls = matches!(view.calls, super::Calls::PerNode(_));
    if per_node_calls {
        columns.push(Column::new("calls", "calls"));
    }
    let (root, own) = (view.names.len() as u32, view.names.len() as u32 + 1);
    let mut cells = Vec::new();
    let mut blocks = Vec::new();
    for row in rows {
        let (total, parts) = if options.callees { callees(&view, row, own) } else { callers(&view, row, root) };
        blocks.push(block(&view, row, total));
        let name =
            |text: u32| view.names.get(text as usize).map_or(if text == root { ROOT } else { OWN }, String::as_str);
        let mut parts: Vec<(u32, Part)> = parts.into_iter().collect();
        parts.sort_by(|a, b| b.1.value.total_cmp(&a.1.value).then_with(|| name(a.0).cmp(name(b.0))));
        for (part, sums) in parts {
            cells.extend([
                Cell::Text(row),
                Cell::Text(part),
                Cell::Number(sums.value, digits),
                Cell::Number(pct(sums.value, total), Digits::Decimals),
            ]);
            if per_node_calls {
                cells.push(sums.calls.map_or(Cell::Empty, |calls| Cell::Number(calls as f64, Digits::Whole)));
            }
        }
    }
    let mut report = view.report("calls", None, columns, cells);
    report.texts.extend([ROOT.to_string(), OWN.to_string()]);
    report.blocks = Some(blocks);
    Ok(report)
}

/// The block of the function of `row`, whose total is `total`.
fn block(view: &View, row: u32, total: f64) -> Block {
    let calls = match &view.calls {
        super::Calls::PerNode(_) => {
            let nodes = view.profile.tree.nodes().filter(|&n| view.row(n) == row);
            Some(nodes.map(|n| view.node_calls(n).unwrap_or(0)).sum::<i64>())
        }
        super::Calls::PerRow(calls) => Some(calls[row as usize]),
        super::Calls::Unknown => None,
    };
    Block { name: view.names[row as usize].clone(), total, pct: view.pct(total), calls }
}

/// The rows `functions` names, heaviest first; an error when there is none.
fn matching_rows(view: &View, functions: &Functions) -> Result<Vec<u32>, Error> {
    let rows: Vec<u32> = match functions {
        Functions::Named(name) => vec![view.row_named(name)?],
        Functions::Matching(re) => {
            (0..view.names.len() as u32).filter(|&r| re.is_match(&view.names[r as usize])).collect()
        }
    };
    let present: Vec<bool> = {
        let mut present = vec![false; view.names.len()];
        view.profile.tree.nodes().for_each(|n| present[view.row(n) as usize] = true);
        present
    };
    let mut rows: Vec<u32> = rows.into_iter().filter(|&r| present[r as usize]).collect();
    if rows.is_empty() {
        let what = match functions {
            Functions::Named(name) => format!("--fn {name}: no node of it is left after the filters"),
            Functions::Matching(re) => format!("--fn {}: no function matches", re.as_str()),
        };
        return Err(Error::BadOption(what));
    }
    let totals = function_totals(view);
    rows.sort_by(|&a, &b| totals[b as usize].total_cmp(&totals[a as usize]).then_with(|| a.cmp(&b)));
    Ok(rows)
}

/// Every row's total: the inclusive values of its outermost nodes.
fn function_totals(view: &View) -> Vec<f64> {
    let mut totals = vec![0.0; view.names.len()];
    for node in view.profile.tree.nodes().filter(|n| view.outermost[n.index()]) {
        totals[view.row(node) as usize] += view.inclusive[node.index()];
    }
    totals
}

/// Adds `value` and `calls` (where known) to the part named by text `name`.
fn add(parts: &mut FxHashMap<u32, Part>, name: u32, value: f64, calls: Option<i64>) {
    let part = parts.entry(name).or_default();
    part.value += value;
    if let Some(calls) = calls {
        part.calls = Some(part.calls.unwrap_or(0) + calls);
    }
}

/// The function of `row`'s total and its value and calls by caller (`root` for a root's).
fn callers(view: &View, row: u32, root: u32) -> (f64, FxHashMap<u32, Part>) {
    let tree = &view.profile.tree;
    let mut parts = FxHashMap::default();
    let mut total = 0.0;
    for node in tree.nodes().filter(|&n| view.row(n) == row) {
        let value = if view.outermost[node.index()] { view.inclusive[node.index()] } else { 0.0 };
        total += value;
        let caller = tree.parent(node).map_or(root, |p| view.row(p));
        add(&mut parts, caller, value, view.node_calls(node));
    }
    (total, parts)
}

/// The function of `row`'s total and the value and calls of what it calls (`own`: its own value).
fn callees(view: &View, row: u32, own: u32) -> (f64, FxHashMap<u32, Part>) {
    let tree = &view.profile.tree;
    let outer = |n: NodeId| view.row(n) == row && view.outermost[n.index()];
    let mut parts = FxHashMap::default();
    let mut total = 0.0;
    for node in tree.nodes() {
        if outer(node) {
            total += view.inclusive[node.index()];
            add(&mut parts, own, tree.self_value(view.metric, node).as_f64(), None);
        } else if tree.parent(node).is_some_and(outer) {
            add(&mut parts, view.row(node), view.inclusive[node.index()], view.node_calls(node));
        }
    }
    (total, parts)
}
