//! `proftool tree`: the call tree indented, each node with its total, self value and their % of the
//! profile's total; siblings of one name are one node, the heaviest first.

use super::output::{Cell, Column, Digits, Report};
use super::{digits_of, unit_label, View};
use crate::error::Error;
use crate::model::NodeId;

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

/// One node of the report: the nodes of the profile with one stack of names (siblings of one name
/// are one node, as a LispWorks file or a read that merged lines can repeat them), at `depth`.
struct Group {
    /// Where its nodes are in the arena of grouped nodes.
    start: usize,
    len: usize,
    depth: u32,
    total: f64,
}

/// The tree report of `view`.
///
/// Walked from the roots down with a stack of groups, the heaviest first, grouping each displayed
/// node's children by name as it is shown: a branch left out (`--depth`, `--min-pct`) is never
/// grouped, so `tree --depth 5` of a large profile touches little more than five levels.
pub fn tree(view: View, options: &TreeOptions) -> Result<Report, Error> {
    let view = view.select(&options.functions)?;
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
    let tree = &view.profile.tree;
    let children = tree.children();
    // The nodes of every group, a group's a range; and the siblings to group next.
    let (mut arena, mut siblings) = (Vec::new(), children.roots().to_vec());
    let mut stack = Vec::new();
    push_groups(&view, &mut siblings, 0, &mut arena, &mut stack);
    let mut cells = Vec::new();
    while let Some(group) = stack.pop() {
        let nodes = &arena[group.start..group.start + group.len];
        if group.total < floor {
            pruned_branches += 1;
            pruned_value += group.total;
            continue;
        }
        let own: f64 = nodes.iter().map(|&n| tree.self_value(view.metric, n).as_f64()).sum();
        cells.extend([
            Cell::Number(group.depth as f64, Digits::Whole),
            Cell::Number(group.total, digits),
            Cell::Number(view.pct(group.total), Digits::Decimals),
            Cell::Number(own, digits),
            Cell::Number(view.pct(own), Digits::Decimals),
        ]);
        if has_calls {
            let calls: i64 = nodes.iter().map(|&n| view.node_calls(n).unwrap_or(0)).sum();
            cells.push(Cell::Number(calls as f64, Digits::Whole));
        }
        cells.push(Cell::Text(view.row(nodes[0])));
        if options.depth.is_none_or(|d| group.depth + 1 < d) {
            siblings.extend(nodes.iter().flat_map(|&n| children.of_node(n).iter().copied()));
            push_groups(&view, &mut siblings, group.depth + 1, &mut arena, &mut stack);
        }
    }
    let selected = (!options.functions.is_empty()).then(|| view.selected());
    let mut report = view.report("tree", selected, columns, cells);
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

/// Pushes `siblings` (emptied) onto `stack` grouped by name, their nodes added to `arena`: the
/// lightest first, ties by name reversed, so that the stack pops the heaviest first.
fn push_groups(view: &View, siblings: &mut Vec<NodeId>, depth: u32, arena: &mut Vec<NodeId>, stack: &mut Vec<Group>) {
    siblings.sort_unstable_by_key(|&n| (view.row(n), n));
    let first = stack.len();
    for run in siblings.chunk_by(|&a, &b| view.row(a) == view.row(b)) {
        let total = run.iter().map(|n| view.inclusive[n.index()]).sum();
        stack.push(Group { start: arena.len(), len: run.len(), depth, total });
        arena.extend_from_slice(run);
    }
    siblings.clear();
    let name = |g: &Group| view.names[view.row(arena[g.start]) as usize].as_str();
    stack[first..].sort_by(|a, b| a.total.total_cmp(&b.total).then_with(|| name(b).cmp(name(a))));
}
