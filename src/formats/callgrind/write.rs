//! Writing a profile as a callgrind file: each function's own cost per line, and its calls with
//! their counts and inclusive costs, from the tree.

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::spec::Writing;
use crate::model::{Frame, FrameKind, NodeId, Profile, Unit, Value};
use rustc_hash::FxHashMap;
use std::io::Write;

/// A function as callgrind names it: its file (module) and its name.
type Function = (Option<String>, String);

/// The calls of a function from one line to another function: how many, and their inclusive costs.
type Call = (i64, Vec<i64>);

/// What the tree adds up to per function.
#[derive(Default)]
struct FunctionCosts {
    /// Its own costs per line, in order of first appearance.
    lines: Vec<(u32, Vec<i64>)>,
    line_index: FxHashMap<u32, usize>,
    /// Its calls per line and callee: count and inclusive costs.
    calls: Vec<((u32, usize), Call)>,
    call_index: FxHashMap<(u32, usize), usize>,
}

/// Writes `profile` (fitted to the format: time in nanoseconds, lines in their functions' places).
pub(crate) fn write(profile: &Profile, Writing { out, diag, .. }: Writing<'_>) -> Result<(), Error> {
    let (events, calls_metric) = events(profile, diag);
    let (functions, totals, rounded) = costs_by_function(profile, &events, calls_metric);
    if rounded {
        diag.warn("callgrind-rounded", None, || {
            "callgrind counts are whole numbers: values rounded to whole ones".into()
        });
    }
    write_file(profile, &events, &functions, &totals, out)
}

/// The metrics written as events (the additive ones, the primary one first, as callgrind_annotate
/// sorts by the first) and the one written as calls, if any; the others are dropped, said in `diag`.
fn events(profile: &Profile, diag: &mut Diagnostics) -> (Vec<usize>, Option<usize>) {
    let metrics = profile.metrics();
    // Events: the additive metrics, the primary one first, as callgrind_annotate sorts by the first.
    let mut events: Vec<usize> = (0..metrics.len()).filter(|&m| metrics[m].is_additive()).collect();
    if let Some(primary) = profile.primary_metric().and_then(|p| events.iter().position(|&m| m == p)) {
        events[..=primary].rotate_right(1);
    }
    let calls_metric =
        (0..metrics.len()).find(|&m| !metrics[m].is_additive() && metrics[m].kind == crate::model::MetricKind::Calls);
    let dropped: Vec<&str> = (0..metrics.len())
        .filter(|&m| !metrics[m].is_additive() && Some(m) != calls_metric)
        .map(|m| metrics[m].name.as_str())
        .collect();
    if !dropped.is_empty() {
        let names = dropped.join(", ");
        diag.warn("callgrind-per-node", None, || {
            format!("callgrind has no place for per-node metrics but calls: {names} dropped")
        });
    }
    (events, calls_metric)
}

/// Each function's own costs per line and its calls per line and callee, the events' totals, and
/// whether a value had to be rounded to a whole number.
fn costs_by_function(
    profile: &Profile,
    events: &[usize],
    calls_metric: Option<usize>,
) -> (Vec<(Function, FunctionCosts)>, Vec<i64>, bool) {
    let n = events.len();
    let tree = &profile.tree;
    let inclusive: Vec<Vec<i64>> = events
        .iter()
        .map(|&m| match tree.derived_inclusive(m) {
            crate::model::Values::Int(v) => v,
            crate::model::Values::Float(v) => v.iter().map(|x| x.round() as i64).collect(),
        })
        .collect();
    let mut rounded = false;
    let mut self_of = |node: NodeId, e: usize| match tree.self_value(events[e], node) {
        Value::Int(v) => v,
        Value::Float(v) => {
            rounded |= v.fract() != 0.0;
            v.round() as i64
        }
    };
    // The function and line of each node's frame.
    let place = |frame: &Frame| -> (Function, u32) {
        let function = frame.function();
        let name = super::super::shared::written_name(&function).into_owned();
        let line = if frame.kind == FrameKind::Line { frame.line.unwrap_or(0) } else { 0 };
        ((function.module.clone(), name), line)
    };
    let mut function_ids: FxHashMap<Function, usize> = FxHashMap::default();
    let mut functions: Vec<(Function, FunctionCosts)> = Vec::new();
    let mut frame_places: FxHashMap<crate::model::FrameId, (usize, u32)> = FxHashMap::default();
    let mut place_of = |frame_id, functions: &mut Vec<(Function, FunctionCosts)>| {
        *frame_places.entry(frame_id).or_insert_with(|| {
            let (function, line) = place(profile.frames.get(frame_id));
            let next = functions.len();
            let id = *function_ids.entry(function.clone()).or_insert(next);
            if id == next {
                functions.push((function, FunctionCosts::default()));
            }
            (id, line)
        })
    };
    let mut totals = vec![0i64; n];
    for node in tree.nodes() {
        let (function, line) = place_of(tree.frame(node), &mut functions);
        let costs: Vec<i64> = (0..n).map(|e| self_of(node, e)).collect();
        if costs.iter().any(|&c| c != 0) || tree.parent(node).is_none() {
            totals.iter_mut().zip(&costs).for_each(|(t, &c)| *t = t.saturating_add(c));
            let entry = &mut functions[function].1;
            let next = entry.lines.len();
            let i = *entry.line_index.entry(line).or_insert(next);
            if i == next {
                entry.lines.push((line, vec![0; n]));
            }
            entry.lines[i].1.iter_mut().zip(&costs).for_each(|(s, &c)| *s = s.saturating_add(c));
        }
        let Some(parent) = tree.parent(node) else { continue };
        let (caller, call_line) = place_of(tree.frame(parent), &mut functions);
        // A line below a node of its own function (a function row, then its lines, some perhaps
        // inlined from another file) is no call.
        let (caller_frame, frame) = (profile.frames.get(tree.frame(parent)), profile.frames.get(tree.frame(node)));
        let nested = functions[caller].0 .1 == functions[function].0 .1
            && caller_frame.kind != FrameKind::Line
            && frame.kind == FrameKind::Line;
        if nested {
            continue;
        }
        let count = calls_metric.map_or(0, |m| tree.self_value(m, node).as_count());
        let entry = &mut functions[caller].1;
        let next = entry.calls.len();
        let i = *entry.call_index.entry((call_line, function)).or_insert(next);
        if i == next {
            entry.calls.push(((call_line, function), (0, vec![0; n])));
        }
        let (calls, costs) = &mut entry.calls[i].1;
        *calls = calls.saturating_add(count);
        costs.iter_mut().zip(&inclusive).for_each(|(c, inc)| *c = c.saturating_add(inc[node.index()]));
    }
    (functions, totals, rounded)
}

/// Writes the file: its header, each function's costs and calls, and the totals.
fn write_file(
    profile: &Profile,
    events: &[usize],
    functions: &[(Function, FunctionCosts)],
    totals: &[i64],
    out: &mut dyn Write,
) -> Result<(), Error> {
    let names: Vec<String> = events.iter().map(|&m| event_name(&profile.metrics()[m])).collect();
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "# callgrind format\nversion: 1")?;
    if profile.meta.attr("callgrind.creator").is_none() {
        writeln!(w, "creator: proftool {}", env!("CARGO_PKG_VERSION"))?;
    }
    for (key, value) in &profile.meta.attrs {
        if let Some(key) = key.strip_prefix("callgrind.") {
            writeln!(w, "{key}: {}", one_line(value))?;
        }
    }
    if let Some(title) = &profile.meta.title {
        writeln!(w, "cmd: {}", one_line(title))?;
    }
    writeln!(w, "positions: line\nevents: {}", names.join(" "))?;
    let counts = |costs: &[i64]| costs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
    writeln!(w, "summary: {}\n", counts(totals))?;
    let mut files = Compressor::default();
    let mut fns = Compressor::default();
    for ((file, name), costs) in functions {
        if costs.lines.is_empty() && costs.calls.is_empty() {
            continue;
        }
        let file = file.as_deref().unwrap_or(super::UNKNOWN_FILE);
        writeln!(w, "fl={}", files.name(file))?;
        writeln!(w, "fn={}", fns.name(name))?;
        let mut last: Option<u32> = None;
        let mut position = |line: u32, w: &mut dyn Write| -> std::io::Result<()> {
            match last {
                Some(l) if l == line => write!(w, "*"),
                Some(l) if line > l => write!(w, "+{}", line - l),
                Some(l) => write!(w, "-{}", l - line),
                None => write!(w, "{line}"),
            }?;
            last = Some(line);
            Ok(())
        };
        let mut lines: Vec<&(u32, Vec<i64>)> = costs.lines.iter().collect();
        lines.sort_by_key(|(line, _)| *line);
        for (line, own) in lines {
            position(*line, &mut w)?;
            writeln!(w, " {}", counts(own))?;
        }
        for ((line, callee), (calls, inclusive)) in &costs.calls {
            let ((callee_file, callee_name), callee_costs) = &functions[*callee];
            let callee_file = callee_file.as_deref().unwrap_or(super::UNKNOWN_FILE);
            if callee_file != file {
                writeln!(w, "cfi={}", files.name(callee_file))?;
            }
            writeln!(w, "cfn={}", fns.name(callee_name))?;
            let target = callee_costs.lines.iter().map(|(l, _)| *l).min().unwrap_or(0);
            writeln!(w, "calls={} {target}", (*calls).max(1))?;
            position(*line, &mut w)?;
            writeln!(w, " {}", counts(inclusive))?;
        }
        writeln!(w)?;
    }
    writeln!(w, "totals: {}", counts(totals))?;
    w.flush()?;
    Ok(())
}

/// The event a metric is written as: its name, with its unit where that is not a count
/// (`time_ns`), whitespace (which separates events) as `_`.
fn event_name(metric: &crate::model::Metric) -> String {
    let name: String = metric.name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
    match metric.unit {
        Unit::Count => name,
        unit => format!("{name}_{}", unit.name()),
    }
}

/// `text` on one line: a header value cannot hold a line break.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// Name compression: a name's number and the name the first time, the number after.
#[derive(Default)]
struct Compressor {
    ids: FxHashMap<String, usize>,
}

impl Compressor {
    fn name(&mut self, name: &str) -> String {
        match self.ids.get(name) {
            Some(id) => format!("({id})"),
            None => {
                let id = self.ids.len() + 1;
                self.ids.insert(name.to_string(), id);
                format!("({id}) {name}")
            }
        }
    }
}
