//! A profile to look at: one self-contained HTML file (no network, no external script) that a
//! browser opens from disk, with a flame graph and an icicle drawn on a canvas, search, a table of
//! functions and each function's sandwich (its callers and callees). Written only.
//!
//! ```text
//! <!doctype html><html><head><meta charset="utf-8"><title>proftool: work</title><style>…</style></head>
//! <body>…<script id="profile" type="application/json">{"title":"work","metrics":[…],"names":[…],…}</script>
//! <script>…the viewer…</script></body></html>
//! ```
//!
//! **Written**: the viewer (`viewer.html` and its script: `model.js`, `view.js`, `graph.js`,
//! `chart.js`, `calltree.js`, `tables.js`) with the profile as JSON in it, compact: names, modules and places interned once
//! each; the tree as flat arrays, a node's parent (as an offset back), frame and self value of each metric, parents
//! before children. Every additive metric is there, each switchable in the page, named and in its
//! unit, with its total as the reports state it; per-node counts (calls) beside them; measured
//! inclusive values (Dyalog's), which the page shows as the reports do. Frames keep their kind
//! (thread roots apart), module, line and where they are defined, and a line its function's frame
//! (one is added where the profile has none), so that the page shows functions by default, as the
//! reports do, and lines on request. The timeline, where the profile has one, as its samples'
//! and slices' times and nodes: the page's time chart (time on the x axis, a lane per thread) and
//! its range selection. `<` is written `\u003c` inside the JSON, so that no name closes the script.
//!
//! **Lost**: header facts but the title and the interval, and per-function facts of the source
//! (LispWorks' Call and Seen counts).

use super::kit::string_table::StringTable;
use super::spec::{self, Carries, Spec, Writes};
use crate::error::{Error, FormatName};
use crate::model::{
    Aggregation, ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Value, Values,
};
use std::collections::HashMap;
use std::io::Write;

/// What its format is and how it is written (proftool does not read it).
pub(crate) const SPEC: Spec = Spec {
    name: "html",
    description: "a self-contained page to look at in a browser: flame graph, icicle, search, functions and their callers and callees",
    extensions: &["html", "htm"],
    carries: Carries {
        lines_nest: true,
        timeline: true,
        slices: true,
        ..Carries::TREE_OF_SAMPLES
            .with_threads()
            .weighing(&[
                MetricKind::Samples,
                MetricKind::Time,
                MetricKind::Ticks,
                MetricKind::Inspections,
                MetricKind::Calls,
                MetricKind::Alloc,
                MetricKind::Objects,
                MetricKind::Events,
            ])
            .with_frame_kinds()
            .with_source_lines()
            .with_modules()
            .with_title()
            .with_interval()
    },
    reads: None,
    // Measured inclusive values kept: a Dyalog tree's totals are measured (docs/formats.md).
    writes: Some(Writes {
        write: |profile, to| write_page(profile, None, to.out),
        rules: spec::Rules {
            // The routine of a BR line names its row in the reports (`MAIN orders.br:10.2`): the
            // page names it as they do.
            keeps_facts: &[crate::model::DEFINED_AT, crate::model::ROUTINE],
            says_which_metric_comes_first: true,
            keeps_measured_inclusive: true,
            ..spec::STACKS_ONLY
        },
        differential: Some(spec::Differential::Sides {
            projected: false,
            write: |sides, compared, out, _, _| write_differential(sides, compared, out),
        }),
    }),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The viewer, with `/*PROFILE*/` where the profile's JSON goes, `/*SCRIPT*/` its script and
/// `<!--TITLE-->` its title.
const VIEWER: &str = include_str!("viewer.html");

/// The viewer's script, in the order it runs: the model (pure functions, which node tests on its
/// own: .ci/html-model.mjs), the state and the numbers, the graph, the time chart, the call tree,
/// then the tables and controls, which draw the first view.
const SCRIPT: [&str; 6] = [
    include_str!("model.js"),
    include_str!("view.js"),
    include_str!("graph.js"),
    include_str!("chart.js"),
    include_str!("calltree.js"),
    include_str!("tables.js"),
];

/// What a differential page (`diff --to html`) shows beside its tree: the metrics that hold BASE's
/// and NEW's values, the sides' names, and the gate's verdict with the functions that tripped it.
struct DiffPage<'a> {
    /// The metric of BASE's values, and of NEW's.
    base: usize,
    new: usize,
    /// The sides' names (their files).
    labels: (&'a str, &'a str),
    /// Whether a function crossed the limits.
    regression: bool,
    /// Every function as the gate judged it, largest change first.
    rows: &'a [spec::Judged<'a>],
}

/// Writes a comparison as a differential page: both sides in one tree, widths from NEW, colours
/// by the change of each frame's share (red grew, blue shrank), BASE's values on hover, and the
/// gate's verdict at the top.
fn write_differential(
    (base, new): (&Profile, &Profile),
    compared: &spec::Compared<'_>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let both = both_sides(base, new, compared.labels);
    let page =
        DiffPage { base: 0, new: 1, labels: compared.labels, regression: compared.regression, rows: compared.judged };
    write_page(&both, Some(&page), out)
}

/// `base` and `new` (each weighed by its metric 0, in one unit) as one tree of frames named as the
/// reports name them, each node's self value of BASE and of NEW: metrics `base` and `new` of NEW's
/// kind, a path of either side a path of the tree.
fn both_sides(base: &Profile, new: &Profile, labels: (&str, &str)) -> Profile {
    let metric = new.metrics()[0].clone();
    let side = |name: &str| Metric { name: name.into(), repr: Repr::Float, ..metric.clone() };
    let mut both = Profile::new(vec![side("base"), side("new")]);
    both.meta.title = Some(format!("{} against {}", labels.1, labels.0));
    let mut index = ChildIndex::default();
    for (column, profile) in [(1, new), (0, base)] {
        let tree = &profile.tree;
        // Each of the side's frames as a frame of both, named once.
        let ids: Vec<FrameId> = profile
            .frames
            .iter()
            .map(|(frame, f)| both.frames.intern(FrameRef::named(&profile.frame_name(frame), f.kind)))
            .collect();
        let mut at = vec![NodeId(0); tree.len()];
        for node in tree.nodes() {
            let id = ids[tree.frame(node).index()];
            let parent = tree.parent(node).map(|p| at[p.index()]);
            let here = index.child_or_insert(&mut both.tree, parent, id);
            at[node.index()] = here;
            both.tree.add_self(column, here, Value::Float(tree.self_value(0, node).as_f64()));
        }
    }
    both.meta.chosen_metric = Some(1);
    both
}

/// The page of `profile`, differential where `diff` says how.
fn write_page(profile: &Profile, diff: Option<&DiffPage<'_>>, out: &mut dyn Write) -> Result<(), Error> {
    let title = profile.meta.title.as_deref().unwrap_or("profile");
    let mut data = profile_json(profile);
    if let Some(diff) = diff {
        data.pop();
        data.push_str(&diff_json(diff));
        data.push('}');
    }
    let (before, after) = VIEWER.split_once("/*PROFILE*/").ok_or_else(|| Error::Unrepresentable {
        format: FORMAT,
        what: "the viewer has no place for the profile (a build without its template)".into(),
    })?;
    let (middle, after) = after.split_once("/*SCRIPT*/").ok_or_else(|| Error::Unrepresentable {
        format: FORMAT,
        what: "the viewer has no place for its script (a build without its template)".into(),
    })?;
    let before = before.replace("<!--TITLE-->", &html_text(title));
    out.write_all(before.as_bytes())?;
    out.write_all(data.as_bytes())?;
    out.write_all(middle.as_bytes())?;
    for part in SCRIPT {
        out.write_all(part.as_bytes())?;
    }
    out.write_all(after.as_bytes())?;
    Ok(())
}

/// `text` safe in HTML text.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The profile as the viewer reads it (see the module documentation): `title`, `intervalNs`, `weighedBy`, `metrics` (name, kind, unit, whether it rolls up),
/// `totals` (each metric's total as the reports state it), `flat`, `strings`, `frames` as four
/// numbers each (name, module or −1, line or −1, kind: 0 function, 1 line, 2 thread, 3 other),
/// `function` (per frame, the frame of its function: itself but for a line), `defined` (a frame's
/// place, a string or −1), `parentOffset` (how far back a node's parent is, 0 for a root), `frame`, `values` (self values, a column per
/// metric) and `measured` (per metric, the measured inclusive values or null).
fn profile_json(profile: &Profile) -> String {
    let mut strings = StringTable::default();
    let mut json = String::with_capacity(64 + profile.tree.len() * 24);
    push_header(&mut json, profile);
    json.push_str(",\"frames\":[");
    let frames = page_frames(profile, &mut strings);
    for (i, frame) in frames.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        push_numbers(&mut json, [frame.name, frame.module, frame.line, frame.kind].into_iter());
    }
    json.push_str("],\"function\":[");
    push_numbers(&mut json, frames.iter().map(|f| f.function));
    json.push_str("],\"defined\":[");
    push_numbers(&mut json, frames.iter().map(|f| f.defined));
    json.push(']');
    push_tree(&mut json, profile);
    push_timeline(&mut json, profile);
    json.push_str(",\"strings\":");
    push_strings(&mut json, strings.texts().iter().map(|text| text.as_ref()));
    json.push('}');
    json
}

/// The members before the frames: title, interval, metrics and their totals.
fn push_header(json: &mut String, profile: &Profile) {
    json.push_str("{\"title\":");
    push_string(json, profile.meta.title.as_deref().unwrap_or(""));
    json.push_str(",\"intervalNs\":");
    match profile.meta.interval {
        Some(interval) => push_number(json, i64::try_from(interval.as_nanos()).unwrap_or(i64::MAX)),
        None => json.push_str("null"),
    }
    json.push_str(",\"weighedBy\":");
    // The metric shown first: the one chosen, else the one the source is weighed by, as the reports.
    let shown = profile.meta.chosen_metric.or_else(|| profile.primary_metric()).unwrap_or(0);
    push_number(json, shown as i64);
    json.push_str(",\"metrics\":[");
    for (i, metric) in profile.metrics().iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str("{\"name\":");
        push_string(json, &metric.name);
        json.push_str(",\"kind\":");
        push_string(json, metric.kind.name());
        json.push_str(",\"unit\":");
        push_string(json, metric.unit.name());
        json.push_str(if metric.aggregation == Aggregation::Additive {
            ",\"additive\":true}"
        } else {
            ",\"additive\":false}"
        });
    }
    // The totals every report states (a source's own figure, a Dyalog tree's measured roots), so
    // that the page's percentages are of what `summary` says.
    json.push_str("],\"totals\":[");
    for metric in 0..profile.metrics().len() {
        if metric > 0 {
            json.push(',');
        }
        push_value(json, Value::Float(profile.reported_total(metric).value));
    }
    json.push_str(if profile.meta.flat { "],\"flat\":true" } else { "],\"flat\":false" });
}

/// The tree: `parentOffset`, `frame`, the self values of each metric and the measured inclusive
/// ones. A node's parent is given as how many nodes before it the parent is (0: a root), mostly
/// one digit where the parent's number would be up to seven: a third of a large page's bytes.
fn push_tree(json: &mut String, profile: &Profile) {
    let tree = &profile.tree;
    json.push_str(",\"parentOffset\":[");
    push_numbers(json, tree.nodes().map(|n| tree.parent(n).map_or(0, |p| (n.index() - p.index()) as i64)));
    json.push_str("],\"frame\":[");
    push_numbers(json, tree.nodes().map(|n| i64::from(tree.frame(n).0)));
    json.push_str("],\"values\":[");
    for metric in 0..profile.metrics().len() {
        if metric > 0 {
            json.push(',');
        }
        push_values(json, tree.self_values(metric));
    }
    // Dyalog's InclusiveTime is measured, not the sum of the self values below (the `]PROFILE`
    // guide's `#.Rain`: 68.4 ms measured, 0.9 ms of self values): the page shows what the reports
    // show.
    json.push_str("],\"measured\":[");
    for metric in 0..profile.metrics().len() {
        if metric > 0 {
            json.push(',');
        }
        match tree.measured_inclusive(metric) {
            Some(values) => push_values(json, values),
            None => json.push_str("null"),
        }
    }
    json.push(']');
}

/// The timeline (`null` without one): its `end`, and its samples' and slices' times (ns from its
/// start) with their nodes (and the samples' weights), for the time chart.
fn push_timeline(json: &mut String, profile: &Profile) {
    json.push_str(",\"timeline\":");
    let Some(timeline) = &profile.timeline else {
        json.push_str("null");
        return;
    };
    let from = |t: i64| t - timeline.start;
    let (samples, slices) = (timeline.samples(), timeline.slices());
    json.push_str("{\"end\":");
    push_number(json, from(timeline.end));
    json.push_str(",\"sampleTimes\":[");
    push_numbers(json, samples.iter().map(|s| from(s.time)));
    json.push_str("],\"sampleNodes\":[");
    push_numbers(json, samples.iter().map(|s| i64::from(s.node.0)));
    json.push_str("],\"sampleWeights\":[");
    push_numbers(json, samples.iter().map(|s| i64::from(s.weight)));
    json.push_str("],\"sliceStarts\":[");
    push_numbers(json, slices.iter().map(|s| from(s.start)));
    json.push_str("],\"sliceEnds\":[");
    push_numbers(json, slices.iter().map(|s| from(s.end)));
    json.push_str("],\"sliceNodes\":[");
    push_numbers(json, slices.iter().map(|s| i64::from(s.node.0)));
    json.push_str("]}");
}

/// A column of values as a JSON array.
fn push_values(json: &mut String, values: &Values) {
    json.push('[');
    match values {
        Values::Int(values) => push_numbers(json, values.iter().copied()),
        Values::Float(values) => {
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    json.push(',');
                }
                push_value(json, Value::Float(*value));
            }
        }
    }
    json.push(']');
}

/// A frame as the page holds it: numbers into the strings (or −1), its kind's number, and the
/// frame of its function.
struct PageFrame {
    name: i64,
    module: i64,
    line: i64,
    kind: i64,
    function: i64,
    defined: i64,
}

/// The profile's frames, in its order, then the function of each line frame that is not a frame
/// of the profile already: the page merges lines into their functions as the reports do
/// (`ops::merge_lines`), a line frame becoming its function's frame, named as the reports name it.
fn page_frames(profile: &Profile, strings: &mut StringTable) -> Vec<PageFrame> {
    let mut frames: Vec<PageFrame> = Vec::with_capacity(profile.frames.len());
    for (id, frame) in profile.frames.iter() {
        let kind = match frame.kind {
            FrameKind::Function => 0,
            FrameKind::Line => 1,
            FrameKind::Thread => 2,
            _ => 3,
        };
        frames.push(PageFrame {
            name: strings.number(&profile.row_name(id)) as i64,
            module: frame.module.as_deref().map_or(-1, |m| strings.number(m) as i64),
            line: frame.line.map_or(-1, i64::from),
            kind,
            function: frames.len() as i64,
            defined: profile.frame_attr(id, crate::model::DEFINED_AT).map_or(-1, |at| strings.number(at) as i64),
        });
    }
    if !profile.frames.iter().any(|(_, f)| f.kind == FrameKind::Line) {
        return frames;
    }
    let mut of_frame: HashMap<crate::model::Frame, usize> = profile
        .frames
        .iter()
        .filter(|(_, f)| f.kind != FrameKind::Line)
        .map(|(id, f)| (f.clone(), id.index()))
        .collect();
    for (id, frame) in profile.frames.iter().filter(|(_, f)| f.kind == FrameKind::Line) {
        let function = frame.function().into_owned();
        let defined = frames[id.index()].defined;
        let next = frames.len();
        let index = *of_frame.entry(function).or_insert(next);
        if index == next {
            // Its row's name as the reports give the merged frame, which keeps its first line's facts.
            let name = profile.function_row_name(id);
            frames.push(PageFrame {
                name: strings.number(&name) as i64,
                module: frames[id.index()].module,
                line: -1,
                kind: 0,
                function: next as i64,
                defined,
            });
        }
        frames[id.index()].function = index as i64;
    }
    frames
}

/// The member `"diff"` of a differential page's profile (see [`DiffPage`]), with its comma.
fn diff_json(diff: &DiffPage<'_>) -> String {
    let mut json = String::from(",\"diff\":{\"base\":");
    push_number(&mut json, diff.base as i64);
    json.push_str(",\"new\":");
    push_number(&mut json, diff.new as i64);
    json.push_str(",\"baseLabel\":");
    push_string(&mut json, diff.labels.0);
    json.push_str(",\"newLabel\":");
    push_string(&mut json, diff.labels.1);
    json.push_str(if diff.regression { ",\"regression\":true" } else { ",\"regression\":false" });
    // The rows as columns: names, statuses and outcomes, shares and p-values (null where none).
    json.push_str(",\"rows\":{\"name\":");
    push_strings(&mut json, diff.rows.iter().map(|r| r.name));
    json.push_str(",\"status\":");
    push_strings(&mut json, diff.rows.iter().map(|r| r.status));
    json.push_str(",\"outcome\":");
    push_strings(&mut json, diff.rows.iter().map(|r| r.outcome));
    for (key, column) in [("base", 0), ("new", 1), ("p", 2)] {
        json.push_str(&format!(",\"{key}\":["));
        for (i, r) in diff.rows.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            match (column, r.p) {
                (0, _) => push_value(&mut json, Value::Float(r.shares.0)),
                (1, _) => push_value(&mut json, Value::Float(r.shares.1)),
                (_, Some(p)) => push_value(&mut json, Value::Float(p)),
                (_, None) => json.push_str("null"),
            }
        }
        json.push(']');
    }
    json.push_str("}}");
    json
}

/// `texts` as a JSON array of strings.
fn push_strings<'t>(json: &mut String, texts: impl Iterator<Item = &'t str>) {
    json.push('[');
    for (i, text) in texts.enumerate() {
        if i > 0 {
            json.push(',');
        }
        push_string(json, text);
    }
    json.push(']');
}

/// `text` as a JSON string, with `<` escaped so that no text ends the script it is in.
fn push_string(json: &mut String, text: &str) {
    let start = json.len();
    super::json::push_string(json, text);
    if json[start..].contains('<') {
        let escaped = json[start..].replace('<', "\\u003c");
        json.truncate(start);
        json.push_str(&escaped);
    }
}

fn push_number(json: &mut String, number: i64) {
    json.push_str(itoa::Buffer::new().format(number));
}

fn push_numbers(json: &mut String, numbers: impl Iterator<Item = i64>) {
    for (i, number) in numbers.enumerate() {
        if i > 0 {
            json.push(',');
        }
        push_number(json, number);
    }
}

/// A value as a JSON number: a float the shortest text that reads back to it, 0 for one that is
/// not finite (JSON has no such number).
fn push_value(json: &mut String, value: Value) {
    match value {
        Value::Int(v) => push_number(json, v),
        Value::Float(v) if v.is_finite() => {
            use std::fmt::Write as _;
            let _ = write!(json, "{v}");
        }
        Value::Float(_) => json.push('0'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FrameRef, Metric};

    /// Names are interned once and a `<` in them cannot close the script.
    #[test]
    fn the_profiles_json_interns_names_and_escapes_script_ends() {
        let mut profile = Profile::new(vec![Metric::samples()]);
        let main = profile.frames.intern(FrameRef::function("main"));
        let evil = profile.frames.intern(FrameRef::function("</script><b>"));
        let root = profile.tree.push(None, main);
        let leaf = profile.tree.push(Some(root), evil);
        profile.tree.add_self(0, leaf, Value::Int(3));
        let again = profile.tree.push(Some(leaf), main);
        profile.tree.add_self(0, again, Value::Int(2));
        let json = profile_json(&profile);
        assert!(!json.contains("</"), "{json}");
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed["strings"], serde_json::json!(["main", "</script><b>"]));
        assert_eq!(parsed["parentOffset"], serde_json::json!([0, 1, 1]));
        assert_eq!(parsed["frame"], serde_json::json!([0, 1, 0]));
        assert_eq!(parsed["values"], serde_json::json!([[0, 3, 2]]));
    }
}
