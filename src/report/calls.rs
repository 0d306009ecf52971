//! `proftool calls --fn NAME`: how a function's consumption breaks down by caller (`]PROFILE
//! calls`), or with `--callees` by the functions it calls.
//!
//! A caller's value is the weight of the samples that pass through its call of the function, each
//! sample once however often that call is on its stack, as pprof's `-peek` and the LispWorks
//! profiler ("which function(s) mostly call it") give it: so a recursive function is its own caller
//! with what its calls of itself hold, and the callers add up to more than its total where it
//! recurses. Callees are pprof's edges (`-peek`) the same way: a callee's value is the inclusive
//! value of its nodes called from any node of the function, each sample once however often that
//! call is on its stack, and a call of the function to itself is no callee (pprof's `-peek` lists
//! none); `(self)` is the function's own value over all its nodes, as `summary` gives it. So a
//! recursive function lists what its deepest calls call. With `--exclusive` a row's value is the
//! self value of the nodes of the edge (the function's under each caller, each callee's called from
//! it). Call counts are those of the nodes of each edge, where the profile counts calls per node.
//!
//! Each row has two shares, named apart: of the profile's total (`]PROFILE calls`'s %, 1.7 ms of
//! 35.6 ms is 4.8 %) and of the function's total (pprof's `-peek` %).

use super::rank::Ranking;
use super::table::{number, whole_or_float, Cell, Cells, Column, Digits, Layout, Table, TextStyle};
use super::{digits_of, pct, Header, Printer, Report, View};
use crate::error::Error;
use regex::Regex;
use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value as Json};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;

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
    /// `--exclusive`, `--first`, `--pct`, `--cumpct`, `--avg`, per block, as `summary` takes them.
    pub ranking: Ranking,
}

/// One row of a block: a caller or callee.
#[derive(Clone, Debug, Default)]
struct Part {
    /// The inclusive value of the edge's nodes, each sample once.
    value: f64,
    /// Their self values.
    own: f64,
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
    /// Adds `value`, `own` and `calls` (where known) to the part named by text `name`.
    fn add(&mut self, name: u32, value: f64, own: f64, calls: Option<i64>) {
        let part = self.parts.entry(name).or_default();
        part.value += value;
        part.own += own;
        if let Some(calls) = calls {
            part.calls = Some(part.calls.unwrap_or(0) + calls);
        }
    }
}

/// The calls report of `view`.
pub fn calls(view: View, options: &CallsOptions) -> Result<Report<CallsPrinter>, Error> {
    let per_node_calls = matches!(view.calls, super::Calls::PerNode(_));
    let ranking = &options.ranking;
    if ranking.avg && !per_node_calls {
        return Err(Error::BadOption(
            "--avg: the profile does not count calls per call path, so there is no value per call of a caller or callee"
                .into(),
        ));
    }
    let rows = matching_rows(&view, &options.functions)?;
    let metric = view.metric();
    let digits = digits_of(metric);
    let relation = if options.callees { "callee" } else { "caller" };
    // The function first: see `FUNCTION_COLUMN`.
    let mut columns = vec![
        Column::new("function", "function"),
        Column::new("name", relation),
        Column::amount("value", if ranking.exclusive { "self" } else { "" }, view.quantity(view.metric)),
        Column::new("pct_of_all", "% of all"),
        Column::new("pct_of_fn", "% of fn"),
    ];
    if per_node_calls {
        columns.push(Column::new("calls", "calls"));
    }
    ranking.add_columns(&view.quantity(view.metric), &mut columns);
    let root = view.names.len() as u32;
    let name = |text: u32| view.names.get(text as usize).map_or(if text == root { ROOT } else { OWN }, String::as_str);
    let key = |part: &Part| ranking.key(part.own, part.value);
    let mut cells = Vec::new();
    let mut blocks = Vec::new();
    let row_of = |cells: &Vec<Cell>| cells.len() / columns.len();
    for (&row, sums) in rows.iter().zip(gather(&view, &rows, options.callees)) {
        let mut block = block(&view, row, &sums);
        block.rows.start = row_of(&cells);
        let mut parts: Vec<(u32, Part)> = sums.parts.into_iter().collect();
        parts.sort_by(|a, b| key(&b.1).total_cmp(&key(&a.1)).then_with(|| name(a.0).cmp(name(b.0))));
        for (&(part, ref part_sums), cumulative) in ranking.kept(&parts, |(_, p)| view.pct(key(p))) {
            let value = key(part_sums);
            cells.extend([
                Cell::Text(row),
                Cell::Text(part),
                Cell::Number(value, digits),
                Cell::Number(view.pct(value), Digits::Decimals),
                Cell::Number(pct(value, sums.total), Digits::Decimals),
            ]);
            if per_node_calls {
                cells.push(part_sums.calls.map_or(Cell::Empty, |calls| Cell::Number(calls as f64, Digits::Whole)));
            }
            ranking.add_cells(value, part_sums.calls, cumulative, &mut cells);
        }
        block.rows.end = row_of(&cells);
        blocks.push(block);
    }
    let rows = Cells::boxed(&columns, cells);
    let mut report = view.report("calls", columns, rows, CallsPrinter { blocks });
    report.table.texts.extend([ROOT.to_string(), OWN.to_string()]);
    Ok(report)
}

/// The column the rows name their block's function in.
const FUNCTION_COLUMN: usize = 0;

/// The printer of `calls`: its table is the rows of every block, one after another, their function
/// in its first column; text shows each block under a title.
#[derive(Debug)]
pub struct CallsPrinter {
    /// The function of each block.
    blocks: Vec<Block>,
}

/// A block of rows about one function.
#[derive(Debug)]
struct Block {
    /// The function.
    name: String,
    /// Its total.
    total: f64,
    /// Its total as a % of the profile's.
    pct: f64,
    /// Its calls, where the profile counts them.
    calls: Option<i64>,
    /// Its rows in the table (none where `--pct` or `--first` left none).
    rows: Range<usize>,
}

impl Printer for CallsPrinter {
    /// `Total: …`, then each block: its title (`#.ch.CH∆Q: total 23.8 ms (33.7 % of all), 311
    /// calls`), the column headings and its rows, laid out as one table without the function
    /// column, which the title names.
    fn write_text(&self, header: &Header, table: &Table, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
        let layout = Layout::new(table, style, &[FUNCTION_COLUMN], None);
        let mut text = header.total_line(style) + "\n";
        for block in &self.blocks {
            let total = header.amount_text(block.total, style);
            let pct = number(block.pct, Digits::Decimals, style.decimals);
            let calls = block.calls.map(|c| format!(", {c} calls")).unwrap_or_default();
            let _ = write!(text, "\n{}: total {total} ({pct} % of all){calls}\n", block.name);
            layout.headings_into(&mut text);
            layout.lines_into(&mut text, block.rows.clone());
        }
        out.write_all(text.as_bytes())
    }

    /// `functions`: each block's function, its total and calls.
    fn json_fields(&self) -> Map<String, Json> {
        let functions = self.blocks.iter().map(|b| {
            json!({ "name": b.name, "total": whole_or_float(b.total), "pct": whole_or_float(b.pct), "calls": b.calls })
        });
        Map::from_iter([("functions".to_string(), Json::Array(functions.collect()))])
    }
}

/// The sums of every block (the functions of `rows`) in one pass over the nodes and one walk, by
/// caller or, with `callees`, by callee: linear in the tree however many functions a regex matches.
fn gather(view: &View, rows: &[u32], callees: bool) -> Vec<Sums> {
    let tree = &view.profile.tree;
    let own = view.names.len() as u32 + 1;
    let mut block_of: Vec<Option<usize>> = vec![None; view.names.len()];
    for (block, &row) in rows.iter().enumerate() {
        block_of[row as usize] = Some(block);
    }
    let mut sums: Vec<Sums> = rows.iter().map(|_| Sums::default()).collect();
    let outermost_nodes = view.outermost();
    for node in tree.nodes() {
        let Some(b) = block_of[view.row(node) as usize] else { continue };
        let block = &mut sums[b];
        block.calls += view.node_calls(node).unwrap_or(0);
        if outermost_nodes[node.index()] {
            block.total += view.inclusive(node);
        }
        if callees {
            let self_value = tree.self_value(view.metric, node).as_f64();
            block.add(own, self_value, self_value, None);
        }
    }
    add_edges(view, &block_of, &mut sums, callees);
    sums
}

/// Adds to each block its callers or, with `callees`, the functions it calls, in one walk: the call
/// from a function of row `a` to one of row `b` is an edge of the block of `b` (of `a` for callees),
/// keyed `(block, other row)`, and only a node where that edge is not open already on its stack adds
/// its inclusive value (each sample once, as pprof counts an edge); every node of the edge adds its
/// self value and calls.
fn add_edges(view: &View, block_of: &[Option<usize>], sums: &mut [Sums], callees: bool) {
    let tree = &view.profile.tree;
    let root = view.names.len() as u32;
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
        let caller = tree.parent(node).map(|p| view.row(p));
        let edge = match callees {
            true => {
                caller.filter(|&caller| caller != row).and_then(|caller| block_of[caller as usize]).map(|b| (b, row))
            }
            false => block_of[row as usize].map(|b| (b, caller.unwrap_or(root))),
        };
        if let Some(edge) = edge {
            let count = open.entry(edge).or_default();
            let value = if *count == 0 { view.inclusive(node) } else { 0.0 };
            *count += 1;
            let self_value = tree.self_value(view.metric, node).as_f64();
            sums[edge.0].add(edge.1, value, self_value, view.node_calls(node));
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
    Block { name: view.names[row as usize].clone(), total: sums.total, pct: view.pct(sums.total), calls, rows: 0..0 }
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
