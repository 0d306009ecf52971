//! The canonical text dump of a profile: what golden tests compare and what a reviewer reads.
//!
//! ```text
//! title: "Fib"
//! metric 0: samples (samples, count, additive)
//! nodes 3, roots 1, frames 3, max depth 2
//! tree:
//! "main" [function] samples=1 (total 10)
//!   "fib" [function] samples=9 (total 9)
//! functions:
//!   "fib": calls=0 seen=9 top=9
//! ```
//!
//! One line per node, indented two spaces per level, in pre-order. Names are quoted with Rust's
//! escaping so that spaces, quotes and control characters are visible. Additive metrics show the
//! derived inclusive total; a measured inclusive value, where the source has one, follows it. A
//! timeline, where the profile has one, follows the tree: its span, size and first samples.

use super::{Frame, FrameId, Profile};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders `profile` in the canonical dump format.
pub fn dump(profile: &Profile) -> String {
    let mut out = String::new();
    dump_header(profile, &mut out);
    dump_tree(profile, &mut out);
    dump_timeline(profile, &mut out);
    dump_functions(profile, &mut out);
    dump_frame_attrs(profile, &mut out);
    out
}

fn dump_header(profile: &Profile, out: &mut String) {
    let meta = &profile.meta;
    if let Some(title) = &meta.title {
        let _ = writeln!(out, "title: {title:?}");
    }
    if let Some(ts) = &meta.timestamp {
        let _ = writeln!(out, "timestamp: {ts:?}");
    }
    if let Some(interval) = meta.interval {
        let _ = writeln!(out, "interval: {}ns", interval.as_nanos());
    }
    if meta.flat {
        let _ = writeln!(out, "flat report (no call structure)");
    }
    if meta.module_namespaces {
        out.push_str("modules: namespaces (one-name outputs write module.name)\n");
    }
    if let Some(kind) = meta.weighed_by {
        let _ = writeln!(out, "weighed by: {}", kind.name());
    }
    if let Some(total) = &meta.stated_total {
        let overlap = if total.rows_overlap { ", rows overlap" } else { "" };
        let _ = writeln!(
            out,
            "stated total: {} {} {} ({}{overlap})",
            total.metric,
            total.value,
            total.unit.name(),
            total.source
        );
    }
    for fact in meta.report.stated() {
        let _ = writeln!(out, "{}: {}", fact.label(), meta.report.describe(fact).unwrap_or_default());
    }
    for (key, value) in &meta.attrs {
        let _ = writeln!(out, "attr {key}: {value:?}");
    }
    for (i, metric) in profile.metrics().iter().enumerate() {
        let _ = writeln!(out, "metric {i}: {metric}");
    }
    let roots = profile.tree.roots().count();
    let depth = profile.max_depth().map_or("-".to_string(), |d| d.to_string());
    let _ = writeln!(
        out,
        "nodes {}, roots {roots}, frames {}, max depth {depth}",
        profile.tree.len(),
        profile.frames.len()
    );
}

/// One frame as the dump shows it: quoted name, then the optional fields, then the kind.
pub(crate) fn frame_label(frame: &Frame) -> String {
    let mut s = format!("{:?}", frame.name);
    if let Some(module) = &frame.module {
        let _ = write!(s, " module={module:?}");
    }
    if let Some(line) = frame.line {
        let _ = write!(s, " line={line}");
    }
    if let Some(clause) = frame.clause {
        let _ = write!(s, " clause={clause}");
    }
    let _ = write!(s, " [{}]", frame.kind.name());
    s
}

fn dump_tree(profile: &Profile, out: &mut String) {
    let tree = &profile.tree;
    let metrics = profile.metrics();
    let totals: Vec<_> =
        (0..metrics.len()).map(|m| metrics[m].is_additive().then(|| tree.derived_inclusive(m))).collect();
    out.push_str("tree:\n");
    for visit in tree.walk() {
        let (node, depth) = (visit.node, visit.depth);
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(&frame_label(profile.frames.get(tree.frame(node))));
        for (m, metric) in metrics.iter().enumerate() {
            let _ = write!(out, " {}={}", metric.name, tree.self_value(m, node));
            if let Some(total) = &totals[m] {
                let _ = write!(out, " (total {}", total.get(node.index()));
                if let Some(measured) = tree.measured_inclusive(m) {
                    let _ = write!(out, ", measured {}", measured.get(node.index()));
                }
                out.push(')');
            }
        }
        out.push('\n');
    }
}

/// How many of a timeline's first samples the dump shows.
const TIMELINE_SHOWN: usize = 10;

/// The timeline's span and size, then its first samples (each one's time from the start and the
/// frame its stack ends at) and slices (when each began and ended, and its frame).
fn dump_timeline(profile: &Profile, out: &mut String) {
    let Some(timeline) = &profile.timeline else { return };
    let _ = writeln!(out, "timeline: from {} to {} ns", timeline.start, timeline.end);
    let samples = timeline.samples();
    if !samples.is_empty() {
        let weight: u64 = samples.iter().map(|s| u64::from(s.weight)).sum();
        let _ = writeln!(out, "samples: {} (weight {weight})", samples.len());
    }
    for s in samples.iter().take(TIMELINE_SHOWN) {
        let frame = frame_label(profile.frames.get(profile.tree.frame(s.node)));
        let _ = writeln!(out, "  +{} ns {frame} x{}", s.time - timeline.start, s.weight);
    }
    if samples.len() > TIMELINE_SHOWN {
        let _ = writeln!(out, "  … {} more", samples.len() - TIMELINE_SHOWN);
    }
    let slices = timeline.slices();
    if !slices.is_empty() {
        let _ = writeln!(out, "slices: {}", slices.len());
    }
    for s in slices.iter().take(TIMELINE_SHOWN) {
        let frame = frame_label(profile.frames.get(profile.tree.frame(s.node)));
        let _ = writeln!(out, "  +{}..+{} ns {frame}", s.start - timeline.start, s.end - timeline.start);
    }
    if slices.len() > TIMELINE_SHOWN {
        let _ = writeln!(out, "  … {} more", slices.len() - TIMELINE_SHOWN);
    }
}

/// The entries of a per-frame map in frame order (not interning order, which says nothing).
fn by_frame<'p, T>(profile: &'p Profile, map: &'p BTreeMap<FrameId, T>) -> Vec<(FrameId, &'p T)> {
    let mut entries: Vec<(FrameId, &T)> = map.iter().map(|(&f, v)| (f, v)).collect();
    entries.sort_by(|a, b| profile.frames.get(a.0).cmp(profile.frames.get(b.0)));
    entries
}

fn dump_frame_attrs(profile: &Profile, out: &mut String) {
    if profile.frame_attrs.is_empty() {
        return;
    }
    out.push_str("frame attrs:\n");
    for (frame, attrs) in by_frame(profile, &profile.frame_attrs) {
        let attrs: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
        let _ = writeln!(out, "  {}: {}", frame_label(profile.frames.get(frame)), attrs.join(" "));
    }
}

fn dump_functions(profile: &Profile, out: &mut String) {
    if profile.function_facts.is_empty() {
        return;
    }
    out.push_str("functions:\n");
    let show = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
    for (frame, facts) in by_frame(profile, &profile.function_facts) {
        let _ = writeln!(
            out,
            "  {}: calls={} seen={} top={}",
            frame_label(profile.frames.get(frame)),
            show(facts.calls),
            show(facts.seen),
            show(facts.top)
        );
    }
}
