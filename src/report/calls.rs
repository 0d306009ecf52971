//! `proftool calls --fn NAME`: how a function's consumption breaks down by caller (`]PROFILE
//! calls`), or with `--callees` by the functions it calls.
//!
//! A caller's value is the inclusive value of the function's outermost nodes under it, so that the
//! callers add up to the function's total; a recursive call (the function under itself) adds its
//! calls but no value, which its outer call holds already. Callees are pprof's edges (`-peek`): a
//! callee's value is the inclusive value of its nodes called from any node of the function, each
//! sample once however often that call is on its stack, and a call of the function to itself is no
//! callee; `(self)` is the function's own value over all its nodes, as `summary` gives it. So a
//! recursive function lists what its deepest calls call, not itself. Call counts are those of the
//! function's nodes under each caller (of each callee's nodes called from the function), where the
//! profile counts calls per node.

use super::output::{Block, Cell, Cells, Column, Digits, Report};
use super::{amount_column, digits_of, pct, View};
use crate::error::Error;
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

/// What one pass gathers for a block: the function's total and calls, and its parts by name (the
/// text index of a row name, or of `(root)` or `(self)`).
#[derive(Default)]
struct Sums {
    total: f64,
    calls: i64,
    parts: FxHashMap<u32, Part>,
}

impl Sums {
    /// Adds `value` and `calls` (where known) to the part named by text `name`.
    fn add(&mut self, name: u32, value: f64, calls: Option<i64>) {
        let part = self.parts.entry(name).or_default();
        part.value += value;
        if let Some(calls) = calls {
            part.calls = Some(part.calls.unwrap_or(0) + calls);
        }
    }
}

/// The calls report of `view`.
pub fn calls(view: View, options: &CallsOptions) -> Result<Report, Error> {
    let rows = matching_rows(&view, &options.functions)?;
    let metric = view.metric();
    let digits = digits_of(metric);
    let relation = if options.callees { "callee" } else { "caller" };
    let mut columns = vec![
        Column::new("function", "function"),
        Column::new("name", relation),
        amount_column("value", "", metric),
        Column::new("pct", "%"),
    ];
    let per_node_calls = matches!(view.calls, super::Calls::PerNode(_));
    if per_node_calls {
        columns.push(Column::new("calls", "calls"));
    }
    let root = view.names.len() as u32;
    let name = |text: u32| view.names.get(text as usize).map_or(if text == root { ROOT } else { OWN }, String::as_str);
    let mut cells = Vec::new();
    let mut blocks = Vec::new();
    for (&row, sums) in rows.iter().zip(gather(&view, &rows, options.callees)) {
        blocks.push(block(&view, row, &sums));
        let mut parts: Vec<(u32, Part)> = sums.parts.into_iter().collect();
        parts.sort_by(|a, b| b.1.value.total_cmp(&a.1.value).then_with(|| name(a.0).cmp(name(b.0))));
        for (part, part_sums) in parts {
            cells.extend([
                Cell::Text(row),
                Cell::Text(part),
                Cell::Number(part_sums.value, digits),
                Cell::Number(pct(part_sums.value, sums.total), Digits::Decimals),
            ]);
            if per_node_calls {
                cells.push(part_sums.calls.map_or(Cell::Empty, |calls| Cell::Number(calls as f64, Digits::Whole)));
            }
        }
    }
    let mut report = view.report("calls", view.selected_if_narrowed(), Cells::boxed(&columns, cells), columns);
    report.texts.extend([ROOT.to_string(), OWN.to_string()]);
    report.blocks = Some(blocks);
    Ok(report)
}

/// The sums of every block (the functions of `rows`) in one pass over the nodes, by caller or, with
/// `callees`, by callee: linear in the tree however many functions a regex matches.
fn gather(view: &View, rows: &[u32], callees: bool) -> Vec<Sums> {
    let tree = &view.profile.tree;
    let (root, own) = (view.names.len() as u32, view.names.len() as u32 + 1);
    let mut block_of: Vec<Option<usize>> = vec![None; view.names.len()];
    for (block, &row) in rows.iter().enumerate() {
        block_of[row as usize] = Some(block);
    }
    let mut sums: Vec<Sums> = rows.iter().map(|_| Sums::default()).collect();
    let outermost_nodes = view.outermost();
    for node in tree.nodes() {
        let Some(b) = block_of[view.row(node) as usize] else { continue };
        let outermost = outermost_nodes[node.index()];
        let inclusive = view.inclusive(node);
        let block = &mut sums[b];
        block.calls += view.node_calls(node).unwrap_or(0);
        if outermost {
            block.total += inclusive;
        }
        if !callees {
            let caller = tree.parent(node).map_or(root, |p| view.row(p));
            block.add(caller, if outermost { inclusive } else { 0.0 }, view.node_calls(node));
        } else {
            block.add(own, tree.self_value(view.metric, node).as_f64(), None);
        }
    }
    if callees {
        add_callees(view, &block_of, &mut sums);
    }
    sums
}

/// Adds to each block the functions it calls, in one walk: the call from a block's function to a
/// function of row `r` is the edge `(block, r)`, and only a node where that edge is not open already
/// on its stack adds its inclusive value (each sample once, as pprof counts an edge); every node of
/// the edge adds its calls.
fn add_callees(view: &View, block_of: &[Option<usize>], sums: &mut [Sums]) {
    let tree = &view.profile.tree;
    let mut open: FxHashMap<(usize, u32), u32> = FxHashMap::default();
    // The edge each node on the path opened, if any.
    let mut path: Vec<Option<(usize, u32)>> = Vec::new();
    for visit in tree.walk() {
        while path.len() > visit.depth as usize {
            if let Some(Some(edge)) = path.pop() {
                open.entry(edge).and_modify(|count| *count -= 1);
            }
        }
        let node = visit.node;
        let row = view.row(node);
        let edge = (tree.parent(node).map(|p| view.row(p)))
            .filter(|&caller| caller != row)
            .and_then(|caller| block_of[caller as usize])
            .map(|block| (block, row));
        if let Some(edge) = edge {
            let count = open.entry(edge).or_default();
            let value = if *count == 0 { view.inclusive(node) } else { 0.0 };
            *count += 1;
            sums[edge.0].add(row, value, view.node_calls(node));
        }
        path.push(edge);
    }
}

/// The block of the function of `row`.
fn block(view: &View, row: u32, sums: &Sums) -> Block {
    let calls = match &view.calls {
        super::Calls::PerNode(_) => Some(sums.calls),
        super::Calls::PerRow(calls) => Some(calls[row as usize]),
        super::Calls::Unknown => None,
    };
    Block { name: view.names[row as usize].clone(), total: sums.total, pct: view.pct(sums.total), calls }
}

/// The rows `functions` names, heaviest first; an error when there is none.
fn matching_rows(view: &View, functions: &Functions) -> Result<Vec<u32>, Error> {
    let rows: Vec<u32> = match functions {
        Functions::Named(name) => view.rows_named(name)?,
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
    let outermost = view.outermost();
    for node in view.profile.tree.nodes().filter(|n| outermost[n.index()]) {
        totals[view.row(node) as usize] += view.inclusive(node);
    }
    totals
}
