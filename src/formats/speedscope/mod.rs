//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>), the JSON that the
//! speedscope viewer opens in a browser (flame graph, time-ordered and sandwich views), and that
//! py-spy (`py-spy record --format speedscope`) and other profilers write.
//!
//! ```text
//! {"$schema":"https://www.speedscope.app/file-format-schema.json","name":"fib benchmark",
//!  "activeProfileIndex":0,"exporter":"proftool 0.1.0",
//!  "shared":{"frames":[{"name":"Profile root"},{"name":"CL-USER::FIB","file":"fib.lisp","line":12}]},
//!  "profiles":[{"type":"sampled","name":"samples","unit":"none","startValue":0,"endValue":100,
//!    "samples":[[0],[0,1]],"weights":[0,75]},
//!   {"type":"evented","name":"main","unit":"milliseconds","startValue":0,"endValue":14,
//!    "events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":2},{"type":"C","frame":1,"at":9},…]}]}
//! ```
//!
//! **Reading**: a frame's `file` is its module; a frame with a `col` (and `file` and `line`) is a
//! function defined there (the frame attr [`crate::model::DEFINED_AT`], `file:line:col`), as proftool
//! writes where a function is defined (so that two functions of one name in two files stay two); a frame
//! with a `line` and no column a source-line frame of its `file` (py-spy's frames are the lines of
//! functions: they stay apart); else a function with its `file` as its module. Each profile (py-spy
//! writes one per thread) becomes a thread root named after the profile, its weights a metric of its
//! unit (`none` samples, `nanoseconds` … `milliseconds` time in that unit, `seconds` time in
//! milliseconds, `bytes` allocation; a unit speedscope does not define is read as a count of events, with a
//! warning); profiles of one name are one thread. A file proftool wrote (`exporter` `proftool …`)
//! holds one profile per metric of the same stacks, threads included: its profiles are read as the
//! metrics they were, named after them, without thread roots. A `sampled` profile's samples are
//! stacks, root first, with their weights; an `evented` profile's open and close events are a stack
//! whose innermost frame gets the time to the next event. A metric whose values are all whole
//! numbers is read as integers. The file's `name` is the title, the metric of the profile shown first
//! (`activeProfileIndex`) the one the profile is weighed by ([`crate::model::Meta::weighed_by`]). py-spy's `"activeProfileIndex":
//! null` and `"col": null` are accepted. A frame index out of range, samples and weights of different
//! lengths, a negative weight and a close event that does not close the innermost open frame (or
//! frames left open) are errors that name their place as a JSON path (`profiles[0].samples[3]`).
//!
//! **Writing**: `shared.frames` is the profile's frame table (module as `file`, source line as
//! `line`; where the frame attr `defined-at` holds a location, its file, line and column as `file`,
//! `line` and `col`); one `sampled` profile per additive metric (samples, time, ticks, allocation, counts of objects or events), whose
//! samples are the stacks of the nodes with a value, root first, weighted by it (a leaf with none
//! is kept with weight 0, as in folded stacks), in the tree's order. Time keeps its unit
//! (`nanoseconds` … `milliseconds`), allocation is in `bytes`, counts are `none`. The title is the
//! file's `name`, the primary metric's profile the one shown first (`activeProfileIndex`). A line
//! of no named function (a BR line of the main routine) is named by its place.
//!
//! **Lost**: per-node metrics (calls), per-function counts, frame kinds (threads are root frames),
//! header facts but the title, inner nodes of the tree without a value of their own (their
//! stacks are implied by their children's), a source line's clause. A count's kind is read back
//! from its name ([`crate::model::MetricKind::of_count`]: `samples`, `ticks`, `alloc_objects`).

mod read;

use super::json::push_string;
use super::{Carries, Sniff, Structure};
use crate::error::Error;
use crate::model::{MetricKind, Profile, Unit, Value, Walk};
use std::io::Write;

pub(crate) use read::read;

/// What a speedscope file holds.
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: true,
    thread_roots: false,
    frame_kinds: false,
    metrics: &[
        MetricKind::Samples,
        MetricKind::Time,
        MetricKind::Ticks,
        MetricKind::Alloc,
        MetricKind::Objects,
        MetricKind::Events,
    ],
    one_metric: false,
    function_facts: false,
    source_lines: true,
    modules: true,
    title: true,
    timestamp: false,
    interval: false,
    name_replacements: &[],
    lines_nest: false,
    time_unit: None,
    flat_reports: false,
    needs_samples: false,
    weight_is_time: false,
};

/// `Yes` for JSON that names speedscope's schema, or that has its key `shared` near the start with
/// `profiles` or `frames` (a file written without `$schema`).
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let has = |key: &str| memchr::memmem::find(head, key.as_bytes()).is_some();
    let json = head.trim_ascii_start().starts_with(b"{");
    let keys = has("\"shared\"") && (has("\"profiles\"") || has("\"frames\""));
    if json && (has("speedscope.app/file-format-schema") || keys) {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// Writes `profile` (projected onto [`CARRIES`]) as a speedscope file.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write) -> Result<(), Error> {
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":");
    push_string(&mut json, profile.meta.title.as_deref().unwrap_or("proftool"));
    // The profile speedscope shows first: the primary metric's.
    json.push_str(",\"activeProfileIndex\":");
    json.push_str(itoa::Buffer::new().format(profile.primary_metric().unwrap_or(0)));
    json.push_str(",\"exporter\":");
    push_string(&mut json, concat!("proftool ", env!("CARGO_PKG_VERSION")));
    json.push_str(",\"shared\":{\"frames\":[");
    for (i, (id, frame)) in profile.frames.iter().enumerate() {
        json.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
        push_string(&mut json, &super::written_name(frame));
        let defined = profile.defined_at(id);
        if let Some(file) = defined.map(|at| at.file).or(frame.module.as_deref()) {
            json.push_str(",\"file\":");
            push_string(&mut json, file);
        }
        // A source-line frame's own line, else the line (and column) its function is defined at.
        let (line, column) = match (frame.line, defined) {
            (Some(line), _) => (Some(line), None),
            (None, Some(at)) => (Some(at.line), at.column),
            (None, None) => (None, None),
        };
        for (key, value) in [(",\"line\":", line), (",\"col\":", column)] {
            if let Some(value) = value {
                json.push_str(key);
                json.push_str(itoa::Buffer::new().format(value));
            }
        }
        json.push('}');
    }
    json.push_str("]},\"profiles\":[");
    // Child lists (for a tree not built in pre-order) are made once for all the metrics' walks.
    let tree = &profile.tree;
    let children = (!tree.is_preorder()).then(|| tree.children());
    for metric in 0..profile.metrics().len() {
        if metric > 0 {
            json.push(',');
        }
        let walk = match &children {
            Some(children) => tree.walk_roots(children, children.roots()),
            None => tree.walk(),
        };
        write_profile(profile, metric, walk, &mut json, out)?;
    }
    json.push_str("]}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Appends (and writes out as it grows) the sampled profile of `metric`.
fn write_profile(
    profile: &Profile,
    metric: usize,
    walk: Walk<'_>,
    json: &mut String,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let tree = &profile.tree;
    let m = &profile.metrics()[metric];
    json.push_str("{\"type\":\"sampled\",\"name\":");
    push_string(json, &m.name);
    json.push_str(",\"unit\":\"");
    json.push_str(unit_name(m.unit));
    json.push_str("\",\"startValue\":0,\"endValue\":");
    push_number(json, profile.total(metric))?;
    json.push_str(",\"samples\":[");
    let mut weights = String::new();
    tree.for_each_stack(walk, |visit, stack| {
        let value = tree.self_value(metric, visit.node);
        if value.as_f64() == 0.0 && !visit.is_leaf {
            return Ok(());
        }
        if !weights.is_empty() {
            json.push(',');
            weights.push(',');
        }
        json.push('[');
        for (i, frame) in stack.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            json.push_str(itoa::Buffer::new().format(frame.0));
        }
        json.push(']');
        push_number(&mut weights, value)?;
        if json.len() >= 1 << 16 {
            out.write_all(json.as_bytes())?;
            json.clear();
        }
        Ok::<(), Error>(())
    })?;
    json.push_str("],\"weights\":[");
    json.push_str(&weights);
    json.push_str("]}");
    Ok(())
}

/// speedscope's name of a unit: counts are `none`.
fn unit_name(unit: Unit) -> &'static str {
    super::unit_word(unit).unwrap_or("none")
}

/// A JSON number: whole numbers as they are, floats shortest-round-trip.
fn push_number(json: &mut String, value: Value) -> Result<(), Error> {
    if let Value::Float(v) = value {
        if !v.is_finite() {
            return Err(Error::Unrepresentable {
                format: super::Format::Speedscope.into(),
                what: format!("the value {v}: JSON numbers are finite"),
            });
        }
    }
    // Written in place, not through a String per weight.
    let _ = std::fmt::Write::write_fmt(json, format_args!("{value}"));
    Ok(())
}
