//! `proftool tree`: the call tree indented, each node with its total, self value and their % of the
//! profile's total; siblings of one name are one node, the heaviest first.

use super::table::{decimal_digits, pad_into, Cell, Column, Digits, Layout, Prefix, Rows, Table, TextStyle};
use super::{digits_of, pct, Header, Printer, Report, View};
use crate::error::Error;
use serde_json::{json, Map, Value as Json};
use std::fmt::Write as _;
use std::io::{self, Write};

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

/// A node of the profile the report may show (above `--depth`), with what its row needs.
#[derive(Clone, Copy, Default)]
struct Shown {
    row: u32,
    /// Its children are the records `first_child..end_child`.
    first_child: u32,
    end_child: u32,
    /// Its node, by which the records of a group are summed in the profile's order.
    node: u32,
    total: f64,
    own: f64,
    calls: i64,
}

const NO_PARENT: u32 = u32::MAX;

/// The records of the nodes above `depth` levels (all of them without a limit), gathered in one
/// pass in arena order and stored so that siblings are side by side: the roots first, then each
/// record's children as one block, in source order. The walk by weight then reads a block of
/// neighbours per node shown, not five arrays of the whole tree at scattered places.
struct ShownTree {
    records: Vec<Shown>,
    /// The roots are the records `0..roots`.
    roots: u32,
}

impl ShownTree {
    fn of(view: &View, depth: Option<u32>) -> ShownTree {
        let tree = &view.profile.tree;
        let limit = depth.unwrap_or(u32::MAX).max(1);
        // Per node: its index among the nodes shown, or `NO_PARENT` for a node below the limit; and
        // per node shown, its depth. A parent comes before its children in the arena, so one
        // forward pass knows every parent's.
        let mut placed: Vec<u32> = Vec::with_capacity(tree.len());
        let mut depths: Vec<u32> = Vec::new();
        // Per node shown, in arena order: the node, its parent's index, how many children it has.
        let (mut nodes, mut parents, mut counts) = (Vec::new(), Vec::new(), Vec::<u32>::new());
        for node in tree.nodes() {
            let (parent, level) = match tree.parent(node).map(|p| placed[p.index()]) {
                None => (NO_PARENT, 0),
                Some(NO_PARENT) => (NO_PARENT, u32::MAX),
                Some(index) => (index, depths[index as usize] + 1),
            };
            if level >= limit {
                placed.push(NO_PARENT);
                continue;
            }
            placed.push(nodes.len() as u32);
            depths.push(level);
            if parent != NO_PARENT {
                counts[parent as usize] += 1;
            }
            nodes.push(node);
            parents.push(parent);
            counts.push(0);
        }
        drop((placed, depths));
        let roots = parents.iter().filter(|&&p| p == NO_PARENT).count() as u32;
        // Where each one's block of children starts; then, as they are placed, where the next goes.
        let mut next = Vec::with_capacity(counts.len());
        let mut end = roots;
        for &count in &counts {
            next.push(end);
            end += count;
        }
        // Each record made where it goes, its node's values read in arena order.
        let mut records = vec![Shown::default(); nodes.len()];
        let mut next_root = 0;
        for (index, (node, parent)) in nodes.into_iter().zip(parents).enumerate() {
            // Its children come after it in arena order: none is placed yet.
            let (first_child, end_child) = (next[index], next[index] + counts[index]);
            let slot = match parent {
                NO_PARENT => &mut next_root,
                parent => &mut next[parent as usize],
            };
            records[*slot as usize] = Shown {
                row: view.row(node),
                first_child,
                end_child,
                node: node.0,
                total: view.inclusive(node),
                own: tree.self_value(view.metric, node).as_f64(),
                calls: view.node_calls(node).unwrap_or(0),
            };
            *slot += 1;
        }
        ShownTree { records, roots }
    }
}

/// One node of the report: the records of the profile's nodes with one stack of names (siblings of
/// one name are one node, as a LispWorks file or a read that merged lines can repeat them), at
/// `depth`.
struct Group {
    /// Where its records are in the arena of grouped records.
    start: u32,
    len: u32,
    depth: u32,
    row: u32,
    /// Its records' sums, taken as they are grouped (their records are then at hand).
    total: f64,
    own: f64,
    calls: i64,
    /// The children of its one record (of a group of several, each record's are looked up).
    children: std::ops::Range<u32>,
}

/// How siblings become groups: by row, unless no two siblings can share one; and the rank of each
/// row's name, so that groups of equal totals are ordered without comparing strings.
struct Grouping {
    shared_rows: bool,
    rank: Vec<u32>,
}

impl Grouping {
    fn of(view: &View) -> Grouping {
        let mut by_name: Vec<u32> = (0..view.names.len() as u32).collect();
        by_name.sort_unstable_by(|&a, &b| view.names[a as usize].cmp(&view.names[b as usize]));
        let mut rank = vec![0; by_name.len()];
        for (r, &row) in by_name.iter().enumerate() {
            rank[row as usize] = r as u32;
        }
        Grouping { shared_rows: view.siblings_may_share_rows(), rank }
    }
}

/// The tree report of `view`.
///
/// Walked from the roots down with a stack of groups, the heaviest first, grouping each displayed
/// node's children by name as it is shown: a branch left out by `--min-pct` is never grouped, and
/// one below `--depth` never gathered, so `tree --depth 5` of a large profile touches little more
/// than five levels.
pub fn tree(view: View, options: &TreeOptions) -> Result<Report<TreePrinter>, Error> {
    let view = view.select(&options.functions)?;
    let digits = digits_of(view.metric());
    let quantity = view.quantity(view.metric);
    let mut columns = vec![
        Column::new("depth", "depth"),
        Column::amount("total", "total", quantity.clone()),
        Column::new("total_pct", "total %"),
        Column::amount("self", "self", quantity),
        Column::new("self_pct", "self %"),
    ];
    let has_calls = matches!(view.calls, super::Calls::PerNode(_));
    if has_calls {
        columns.push(Column::new("calls", "calls"));
    }
    columns.push(Column::new("name", "name"));
    let floor = options.min_pct.map_or(f64::NEG_INFINITY, |p| p * view.total() / 100.0);
    let (mut pruned_branches, mut pruned_value) = (0u64, 0.0);
    let shown = ShownTree::of(&view, options.depth);
    let grouping = Grouping::of(&view);
    // The records of every group, a group's a range; and the siblings to group next.
    let (mut arena, mut siblings) = (Vec::new(), (0..shown.roots).collect());
    let mut stack = Vec::new();
    push_groups(&shown, &grouping, &mut siblings, 0, &mut arena, &mut stack);
    let mut table = TreeRows { rows: Vec::new(), calls: None, total: view.total(), digits };
    if has_calls {
        table.calls = Some(Vec::new());
    }
    while let Some(group) = stack.pop() {
        if group.total < floor {
            pruned_branches += 1;
            pruned_value += group.total;
            continue;
        }
        let (depth, row, total, own) = (group.depth, group.row, group.total, group.own);
        table.rows.push(TreeRow { depth, row, total, own });
        if let Some(calls) = &mut table.calls {
            calls.push(group.calls);
        }
        match group.len {
            1 => siblings.extend(group.children),
            _ => {
                let members = &arena[group.start as usize..(group.start + group.len) as usize];
                for record in members.iter().map(|&m| &shown.records[m as usize]) {
                    siblings.extend(record.first_child..record.end_child);
                }
            }
        }
        push_groups(&shown, &grouping, &mut siblings, group.depth + 1, &mut arena, &mut stack);
    }
    let pruned = options.min_pct.map(|min_pct| Pruned {
        min_pct,
        branches: pruned_branches,
        value: pruned_value,
        pct: view.pct(pruned_value),
    });
    Ok(view.report("tree", columns, Box::new(table), TreePrinter { pruned }))
}

/// The printer of `tree`: its table is a row per node shown, in the order shown, the name last;
/// text shows the name indented by the depth.
#[derive(Debug)]
pub struct TreePrinter {
    /// What `--min-pct` left out, when it was given.
    pruned: Option<Pruned>,
}

/// The branches `--min-pct` left out, and how much they hold.
#[derive(Debug)]
struct Pruned {
    min_pct: f64,
    branches: u64,
    value: f64,
    /// Their value as a % of the profile's total.
    pct: f64,
}

impl Printer for TreePrinter {
    /// `Total: …`, then the table, the name column indented by the depth instead of showing it,
    /// then what `--min-pct` left out.
    fn write_text(&self, header: &Header, table: &Table, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
        out.write_all(format!("{}\n\n", header.total_line(style)).as_bytes())?;
        let name_column = table.columns.len() - 1;
        Layout::new(table, style, &[DEPTH_COLUMN], Some((name_column, &Indent))).write(out)?;
        if let Some(Pruned { min_pct, branches, value, pct }) = &self.pruned {
            let what = if *branches == 1 { "branch" } else { "branches" };
            // As the total is shown: in a unit of its own size (`333 ms`), a count by its word.
            let value = header.amount_text(*value, style);
            writeln!(out, "pruned: {branches} {what} under {min_pct} % of the total, {value} ({pct:.1} %)")?;
        }
        Ok(())
    }

    /// `pruned`, where `--min-pct` was given.
    fn json_fields(&self) -> Map<String, Json> {
        let mut fields = Map::new();
        if let Some(Pruned { branches, value, pct, .. }) = &self.pruned {
            fields.insert("pruned".into(), json!({ "branches": branches, "value": value, "pct": pct }));
        }
        fields
    }
}

/// Levels of the tree indented in full; deeper nodes are indented this far and show their depth.
const MAX_INDENT: usize = 40;

/// The indent of a row's name: two spaces per level of its depth, up to [`MAX_INDENT`] levels;
/// deeper, the depth shown (`[1000] `).
struct Indent;

impl Indent {
    /// The depth `row` gives its node.
    fn depth(row: &[Cell]) -> usize {
        match row[DEPTH_COLUMN] {
            Cell::Number(depth, _) => depth as usize,
            _ => 0,
        }
    }
}

impl Prefix for Indent {
    fn width(&self, row: &[Cell]) -> usize {
        let depth = Indent::depth(row);
        2 * depth.min(MAX_INDENT) + if depth > MAX_INDENT { decimal_digits(depth as u64) + 3 } else { 0 }
    }

    fn write_into(&self, buffer: &mut String, row: &[Cell]) {
        let depth = Indent::depth(row);
        pad_into(buffer, 2 * depth.min(MAX_INDENT));
        if depth > MAX_INDENT {
            let _ = write!(buffer, "[{depth}] ");
        }
    }
}

/// The rows of the report, in the order shown.
#[derive(Debug)]
struct TreeRows {
    rows: Vec<TreeRow>,
    /// Each row's calls, where the profile counts them per node.
    calls: Option<Vec<i64>>,
    /// The profile's total, which the % columns are of.
    total: f64,
    digits: Digits,
}

/// A row of the tree: a group's depth, name and sums.
#[derive(Debug)]
struct TreeRow {
    depth: u32,
    row: u32,
    total: f64,
    own: f64,
}

/// The columns of a row's depth, total and self value, as [`TreeRows::row_into`] puts them.
const DEPTH_COLUMN: usize = 0;
const TOTAL_COLUMN: usize = 1;
const SELF_COLUMN: usize = 3;

impl Rows for TreeRows {
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// Read off the rows, without making their cells.
    fn largest(&self, column: usize) -> f64 {
        let value = |row: &TreeRow| match column {
            TOTAL_COLUMN => row.total,
            SELF_COLUMN => row.own,
            _ => 0.0,
        };
        self.rows.iter().map(value).filter(|v| v.is_finite()).fold(0.0, |largest, v| largest.max(v.abs()))
    }

    fn row_into(&self, index: usize, cells: &mut Vec<Cell>) {
        let row = &self.rows[index];
        cells.clear();
        cells.extend([
            Cell::Number(f64::from(row.depth), Digits::Whole),
            Cell::Number(row.total, self.digits),
            Cell::Number(pct(row.total, self.total), Digits::Decimals),
            Cell::Number(row.own, self.digits),
            Cell::Number(pct(row.own, self.total), Digits::Decimals),
        ]);
        if let Some(calls) = &self.calls {
            cells.push(Cell::Number(calls[index] as f64, Digits::Whole));
        }
        cells.push(Cell::Text(row.row));
    }
}

/// Pushes `siblings` (emptied) onto `stack` grouped by row, their records added to `arena`: the
/// lightest first, ties by name reversed, so that the stack pops the heaviest first.
fn push_groups(
    shown: &ShownTree,
    grouping: &Grouping,
    siblings: &mut Vec<u32>,
    depth: u32,
    arena: &mut Vec<u32>,
    stack: &mut Vec<Group>,
) {
    let first = stack.len();
    let row = |r: u32| shown.records[r as usize].row;
    let push = |run: &[u32]| {
        let (start, len, row) = (arena.len() as u32, run.len() as u32, row(run[0]));
        let mut group = Group { start, len, depth, row, total: 0.0, own: 0.0, calls: 0, children: 0..0 };
        for record in run.iter().map(|&r| &shown.records[r as usize]) {
            group.total += record.total;
            group.own += record.own;
            group.calls += record.calls;
            group.children = record.first_child..record.end_child;
        }
        stack.push(group);
        arena.extend_from_slice(run);
    };
    if grouping.shared_rows {
        // Records of one row in node order, so that floats are added in the order the profile has.
        siblings.sort_unstable_by_key(|&r| (row(r), shown.records[r as usize].node));
        siblings.chunk_by(|&a, &b| row(a) == row(b)).for_each(push);
    } else {
        siblings.chunks(1).for_each(push);
    }
    siblings.clear();
    // Groups have distinct rows, so their order is total: an unstable sort is deterministic.
    let rank = |g: &Group| grouping.rank[g.row as usize];
    stack[first..].sort_unstable_by(|a, b| a.total.total_cmp(&b.total).then_with(|| rank(b).cmp(&rank(a))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FrameRef, Metric, Profile, Repr, Unit, Value};
    use crate::report::{ReportOptions, View};

    #[test]
    fn a_group_adds_its_nodes_up_in_the_order_of_the_profile() {
        // Two siblings `a`, each with an `x` below; the second a's x was made first. Float sums
        // depend on their order: the group `a;x` adds 0.1, 0.2, 0.3 in node order.
        let mut p = Profile::new(vec![Metric::time(Unit::Milliseconds, Repr::Float)]);
        let (r, a, x) = (
            p.frames.intern(FrameRef::function("r")),
            p.frames.intern(FrameRef::function("a")),
            p.frames.intern(FrameRef::function("x")),
        );
        let root = p.tree.push(None, r);
        let (first_a, second_a) = (p.tree.push(Some(root), a), p.tree.push(Some(root), a));
        for (parent, value) in [(second_a, 0.1), (first_a, 0.2), (first_a, 0.3)] {
            let node = p.tree.push(Some(parent), x);
            p.tree.add_self(0, node, Value::Float(value));
        }
        let view = View::new(p, &ReportOptions::default()).unwrap();
        let report = tree(view, &TreeOptions::default()).unwrap();
        let mut cells = Vec::new();
        report.table.rows.row_into(2, &mut cells);
        assert_eq!(cells[1], Cell::Number((0.1 + 0.2) + 0.3, Digits::Decimals));
        assert_eq!(
            report.table.texts[cells.last().map_or(0, |c| match c {
                Cell::Text(t) => *t as usize,
                _ => 0,
            })],
            "x"
        );
    }
}
