//! Flame graphs as interactive SVG, drawn by inferno (the Rust port of Brendan Gregg's
//! `flamegraph.pl`): the picture most people want from a profile, opened in any browser (click to
//! zoom, Ctrl-F to search). Written only.
//!
//! ```text
//! <?xml version="1.0" standalone="no"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" …>
//! <svg version="1.1" width="1200" height="…" … xmlns="http://www.w3.org/2000/svg" …>
//!   … <g><title>CL-USER::FIB (75 samples, 68.18%)</title><rect x="…" … /><text …>CL-USER::FIB</text></g> …
//! ```
//!
//! **Writing** draws from the model, not from text: the boxes inferno would leave out (narrower
//! than its `min_width`, 0.01 % of the total) are never made into lines. The lines inferno is given are
//! the profile's folded stacks in the order inferno sorts them (line by line as strings, so that
//! `x 5` comes before `x y;…` and that before `x;…`), with every run of boxes too narrow to be drawn
//! folded into one line of its caller (or, at the top, of itself) that covers the same samples in the
//! same place; inferno, told the lines are sorted (`no_sort`), then draws what it would have drawn
//! from the whole folded text: the same boxes, widths and colours (a test compares them). Each frame is
//! a box as wide as its inclusive count, callees above callers, colours from a hash of each name (the
//! same profile always gives the same file). The title is the profile's title, else "Flame Graph";
//! the count is named after the metric the conversion chose (`--metric`). stderr says what share of
//! the samples is in boxes too narrow to draw.
//!
//! **Lost**: what folded stacks lose (every metric but one, modules, line numbers, per-function
//! counts, header facts but the title), and the order of siblings. Boxes narrower than 0.01 % of the
//! total are left out (their counts stay in their callers' boxes).

use super::kit::count_names::one_count_name;
use super::spec::{self, Carries, Spec, Writes, Writing};
use super::{shared, stacks};
use crate::error::{Error, FormatName};
use crate::model::{Children, MetricKind, NodeId, Profile, Values};
use std::io::Write;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "svg",
    description: "an interactive flame graph, as `inferno-flamegraph` draws it",
    extensions: &["svg"],
    carries: CARRIES,
    reads: None,
    writes: Some(Writes {
        write,
        rules: spec::STACKS_ONLY,
        differential: Some(spec::Differential::TwoCountLines(write_differential)),
    }),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a flame graph shows: folded stacks and a title.
pub(crate) const CARRIES: Carries = Carries { title: true, ..Carries::FOLDED_LINES };

/// Writes `profile` (projected onto [`CARRIES`]) as a flame graph.
pub(crate) fn write(profile: &Profile, to: Writing<'_>) -> Result<(), Error> {
    let Writing { out, options: convert, diag } = to;
    let Some(metric) = profile.metrics().first().filter(|_| profile.total(0).as_f64() != 0.0) else {
        // inferno draws nothing and fails: say why instead.
        return Err(Error::Unrepresentable {
            format: FORMAT,
            what: "a flame graph is drawn from counts, and this profile's are all 0".into(),
        });
    };
    let Values::Int(_) = profile.tree.self_values(0) else {
        return Err(Error::Unrepresentable { format: FORMAT, what: "counts must be whole numbers".into() });
    };
    let mut options = inferno::flamegraph::Options::default();
    let mut replaced = 0;
    let title = profile.meta.title.as_deref().unwrap_or("Flame Graph");
    options.title = shared::xml_text(title, &mut replaced).into_owned();
    // A box's count says what it counts: time in its unit (`1,200 ns`), else the metric's name.
    options.count_name = match metric.kind {
        MetricKind::Time => metric.unit.name().to_string(),
        _ => shared::xml_text(&metric.name, &mut replaced).into_owned(),
    };
    let names = profile
        .frames
        .iter()
        .map(|(_, f)| shared::xml_text(&one_count_name(&f.display_name()), &mut replaced).into_owned())
        .collect();
    shared::warn_xml_replaced(FORMAT, replaced, diag);
    options.hash = true;
    options.no_sort = true;
    // inferno's narrowest box, in percent of the whole width (0.01 %).
    let min_width = options.min_width;
    // The lines hold every stack whole: held to the output's limit, as folded stacks are.
    let limit = convert.output_limit();
    let Some((lines, folded_away)) = visible_lines(profile, names, min_width, limit) else {
        let size = format!("the stacks it is drawn from would be more than {}", stacks::bytes(limit));
        return Err(stacks::too_large(FORMAT, &size, stacks::WHOLE_STACKS, convert));
    };
    let total = profile.total(0).as_count();
    if folded_away > 0 {
        let share = folded_away as f64 / total as f64 * 100.0;
        diag.warn("svg-narrow", None, || {
            format!("svg: {share:.2} % of the samples are in boxes narrower than {min_width} % of the width, not drawn (their counts stay in their callers' boxes)")
        });
    }
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), out)?;
    Ok(())
}

/// Writes a comparison as the differential flame graph inferno draws from its two-count lines:
/// widths from NEW, red where a stack grew, blue where it shrank. With `negate`, widths from BASE,
/// as `inferno-diff-folded` advises (the counts swapped, the hues switched back, so that red still
/// means grew).
fn write_differential(lines: &str, compared: &spec::Compared<'_>, out: &mut dyn Write) -> Result<(), Error> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = format!("Differential Flame Graph: {} against {}", compared.labels.1, compared.labels.0);
    options.hash = true;
    options.negate_differentials = compared.negate;
    // A name that ends in a number would read as a third count: its last space becomes a no-break space.
    let safe: Vec<String> = lines
        .lines()
        .filter_map(|line| {
            let (rest, after) = line.rsplit_once(' ')?;
            let (stack, before) = rest.rsplit_once(' ')?;
            let frames: Vec<String> = stack.split(';').map(|f| one_count_name(f).into_owned()).collect();
            let (first, second) = if compared.negate { (after, before) } else { (before, after) };
            Some(format!("{} {first} {second}", frames.join(";")))
        })
        .collect();
    let counted = |line: &&String| line.rsplit(' ').take(2).any(|count| count.parse::<f64>().is_ok_and(|c| c != 0.0));
    if !safe.iter().any(|line| counted(&line)) {
        // inferno draws nothing and fails: say why instead.
        return Err(Error::BadOption(
            "a differential flame graph is drawn from counts, and both profiles' are all 0".into(),
        ));
    }
    inferno::flamegraph::from_lines(&mut options, safe.iter().map(String::as_str), out)?;
    Ok(())
}

/// One thing a node's callees add to its lines, sorted as inferno sorts lines: a callee's own line
/// (`name count`, its self count) or the lines of a callee's callees (`name;…`, the rest of its
/// inclusive count).
struct Item {
    callee: NodeId,
    own: bool,
    width: i64,
}

impl Item {
    /// What follows the callee's name in the line the item stands for: ` count` or `;`.
    fn suffix<'d>(&self, digits: &'d mut itoa::Buffer) -> impl Iterator<Item = &'d u8> {
        let (separator, count): (&[u8], &[u8]) = match self.own {
            true => (b" ", digits.format(self.width).as_bytes()),
            false => (b";", b""),
        };
        separator.iter().chain(count)
    }
}

/// The profile as inferno will lay it out: names, inclusive counts, callees, and the narrowest box
/// it draws.
struct Layout<'p> {
    profile: &'p Profile,
    names: Vec<String>,
    totals: Vec<i64>,
    children: Children,
    /// inferno's test, to the bit: a box is left out when `(end - start) as f64 < minwidth_time`.
    minwidth_time: f64,
}

impl Layout<'_> {
    fn narrow(&self, width: i64) -> bool {
        (width as f64) < self.minwidth_time
    }

    /// How inferno orders the lines two items stand for: as the strings `name count` (own) and
    /// `name;` (callees') compare, compared without making them.
    fn order(&self, a: &Item, b: &Item) -> std::cmp::Ordering {
        let tree = &self.profile.tree;
        let (x, y) =
            (self.names[tree.frame(a.callee).index()].as_bytes(), self.names[tree.frame(b.callee).index()].as_bytes());
        let common = x.len().min(y.len());
        match x[..common].cmp(&y[..common]) {
            std::cmp::Ordering::Equal => {
                // One name starts the other: the rest of each key decides.
                let (mut digits_a, mut digits_b) = (itoa::Buffer::new(), itoa::Buffer::new());
                let rest_a = x[common..].iter().chain(a.suffix(&mut digits_a));
                let rest_b = y[common..].iter().chain(b.suffix(&mut digits_b));
                rest_a.cmp(rest_b)
            }
            order => order,
        }
    }

    /// The items of the callees `nodes`, in inferno's order.
    fn items(&self, nodes: &[NodeId]) -> Vec<Item> {
        let mut items: Vec<Item> = self.unsorted_items(nodes).collect();
        items.sort_unstable_by(|a, b| self.order(a, b));
        items
    }

    /// The items of the callees `nodes`, in theirs.
    fn unsorted_items<'n>(&'n self, nodes: &'n [NodeId]) -> impl Iterator<Item = Item> + 'n {
        let tree = &self.profile.tree;
        nodes.iter().flat_map(move |&node| {
            let own = tree.self_value(0, node).as_count();
            let below = self.totals[node.index()] - own;
            // A folded line per node with a count of its own, as folded stacks write no line of 0.
            let own_line = (own != 0).then_some(Item { callee: node, own: true, width: own });
            let has_callees = !self.children.of_node(node).is_empty() && below != 0;
            let callees_line = has_callees.then_some(Item { callee: node, own: false, width: below });
            own_line.into_iter().chain(callees_line)
        })
    }

    /// The start of the first line (in inferno's order) that `item` stands for, below its caller:
    /// the callee's own line, or its first callee's name for the callees' lines. Frames further
    /// down are in boxes narrower than this one's (the callee's, or its first callee's when the
    /// callee's is drawn), which are not drawn: inferno draws the same from the short line, and
    /// has fewer frames to open and close.
    fn first_stack(&self, item: &Item) -> String {
        let tree = &self.profile.tree;
        let mut stack = self.names[tree.frame(item.callee).index()].clone();
        if !item.own {
            // The least item, not all of them sorted: items that sort alike have one name.
            let least = self.unsorted_items(self.children.of_node(item.callee)).min_by(|a, b| self.order(a, b));
            if let Some(first) = least {
                stack.push(';');
                stack.push_str(&self.names[tree.frame(first.callee).index()]);
            }
        }
        stack
    }
}

/// `path;stack count`, or `stack count` at the top.
fn line(path: &str, stack: &str, count: i64) -> String {
    match path.is_empty() {
        true => format!("{stack} {count}"),
        false => format!("{path};{stack} {count}"),
    }
}

/// The folded lines inferno needs to draw what it would draw from all of `profile`'s (its frames
/// named `names`), sorted as it sorts them, and how many samples are in boxes too narrow to draw (`min_width` percent of the
/// total). A node's callees are written run by run (a run: the consecutive items of one callee):
/// a wide run item by item, a wide item of callees' lines by expanding it; consecutive narrow runs
/// together, as one line that is the first of them with their count, so that every drawn box covers
/// the same samples in the same place and no line draws a box inferno would not. `None` when the
/// lines would be more than `limit` bytes: each holds its whole stack, so a deep tree of many boxes
/// makes far more of them than it has nodes, which inferno holds in memory.
fn visible_lines(profile: &Profile, names: Vec<String>, min_width: f64, limit: u64) -> Option<(Vec<String>, i64)> {
    let tree = &profile.tree;
    let Values::Int(totals) = tree.derived_inclusive(0) else { return Some((Vec::new(), 0)) };
    let timemax: i64 = tree.roots().map(|r| totals[r.index()]).sum();
    let layout = Layout {
        profile,
        names,
        totals,
        children: tree.children(),
        minwidth_time: min_width / (100.0 / timemax as f64),
    };
    let mut lines = BoundedLines { lines: Vec::new(), bytes: 0, limit };
    let mut folded_away = 0i64;
    // The callers being expanded, innermost last: their items, the next one, and their path's
    // length in `path`.
    let roots: Vec<NodeId> = tree.roots().collect();
    let mut path = String::new();
    let mut levels: Vec<(Vec<Item>, usize, usize)> = vec![(layout.items(&roots), 0, 0)];
    while let Some((items, next, path_len)) = levels.last_mut() {
        path.truncate(*path_len);
        if *next >= items.len() {
            levels.pop();
            continue;
        }
        // The runs from `next`: (where each ends, its callee, its width).
        let run_end = |from: usize| from + items[from..].iter().take_while(|i| i.callee == items[from].callee).count();
        let start = *next;
        let mut end = run_end(start);
        let mut width: i64 = items[start..end].iter().map(|i| i.width).sum();
        if layout.narrow(width) {
            // Consecutive narrow runs go together while they stay narrow, but never up to a run of the
            // first one's callee (whose box would then take theirs in).
            let first_callee = items[start].callee;
            let mut group_end = end;
            while group_end < items.len() {
                let after = run_end(group_end);
                let more: i64 = items[group_end..after].iter().map(|i| i.width).sum();
                let next_callee = items.get(after).map(|i| i.callee);
                if !layout.narrow(width + more)
                    || items[group_end].callee == first_callee
                    || next_callee == Some(first_callee)
                {
                    break;
                }
                width += more;
                group_end = after;
            }
            end = group_end;
            folded_away += width;
            lines.push(line(&path, &layout.first_stack(&items[start]), width))?;
            *next = end;
            continue;
        }
        *next = end;
        let mut expand = None;
        for item in &items[start..end] {
            let name = &layout.names[tree.frame(item.callee).index()];
            if item.own {
                lines.push(line(&path, name, item.width))?;
            } else if layout.narrow(item.width) {
                folded_away += item.width;
                lines.push(line(&path, &layout.first_stack(item), item.width))?;
            } else {
                expand = Some((item.callee, name.clone()));
            }
        }
        if let Some((callee, name)) = expand {
            if !path.is_empty() {
                path.push(';');
            }
            path.push_str(&name);
            let below = layout.items(layout.children.of_node(callee));
            levels.push((below, 0, path.len()));
        }
    }
    Some((lines.lines, folded_away))
}

/// Lines made while their bytes stay within a limit.
struct BoundedLines {
    lines: Vec<String>,
    bytes: u64,
    limit: u64,
}

impl BoundedLines {
    /// Keeps `line`; `None` once the lines are more than the limit.
    fn push(&mut self, line: String) -> Option<()> {
        self.bytes += line.len() as u64 + 1;
        self.lines.push(line);
        (self.bytes <= self.limit).then_some(())
    }
}
