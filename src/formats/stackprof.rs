//! Ruby's stackprof JSON (`StackProf.run(mode:, raw: true)` dumped with `JSON.generate(profile)`,
//! or `stackprof --json`), as speedscope opens it (read only).
//!
//! ```text
//! {"version":1.2,"mode":"wall","interval":1000,"samples":3,"gc_samples":0,"missed_samples":0,
//!  "frames":{"70098916485820":{"name":"Object#d","file":"simple.rb","line":23,
//!    "total_samples":3,"samples":3,"lines":{"26":[3,3]}},
//!   "70098916485860":{"name":"<main>","file":"simple.rb","total_samples":3,"samples":0}},
//!  "raw":[2,70098916485860,70098916485820,3],
//!  "raw_timestamp_deltas":[1162,961,994]}
//! ```
//!
//! **Schema**: `mode` (`cpu`, `wall`, `object`, or `custom`), `interval` (µs of CPU or wall time
//! between samples, or allocations between samples in object mode), `frames` keyed by id (`name`,
//! `file`, the `line` the method starts at, per-frame and per-line sample counts), and, where the
//! profile was taken with `raw: true`, `raw`: one record per distinct run of a stack, its height,
//! its frame ids root first, and how many samples in a row had it; `raw_timestamp_deltas`, the µs
//! from the sample before, one per sample.
//!
//! **Model**: the stacks of `raw`, merged into a tree, frames named by their `name` (`(unknown)`
//! where it is missing), their `file` as module (not the pseudo-files `<cfunc>` and ``), where a
//! method is defined (`file:line`) as the frame fact [`crate::model::DEFINED_AT`]. A stack that is
//! `(garbage collection)` alone goes on top of the stack before it, as speedscope puts it. Metrics,
//! as speedscope weighs each mode: `samples` and `time` in µs for `cpu` (each sample one `interval`)
//! and `wall` (each sample the time to the one before, its delta); `sampled objects` for `object`
//! (a count of allocations, one sample every `interval`), else `samples`. The interval is the
//! profile's in time modes; `version`, `mode`, `gc_samples` and `missed_samples` are header facts.
//!
//! **Errors**: JSON errors at their line and column; a profile without `raw` (taken without
//! `raw: true`: its stacks are not in the file), a `raw` record cut short, a frame id not in
//! `frames`, fewer deltas than samples in wall mode, each an error naming the place. stackprof's own
//! results file (`StackProf.run(out: …)`, a Ruby Marshal dump) is refused by detection with the
//! command that turns it into this JSON (`stackprof --json`).
//!
//! **Timeline**: each sample at its time, its deltas added up (from the first delta's start, in
//! µs), where every sample has one.
//!
//! **Lost**: per-line counts (`lines`), per-frame counts and
//! `edges` (derived from the stacks anyway), `metadata`.

use super::json;
use super::kit::source_frame::{Anonymous, SourceFrame};
use super::spec::{Carries, JsonKind, Reads, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError};
use crate::formats::ReadOptions;
use crate::model::{ChildIndex, Metric, MetricKind, NodeId, Profile, TimedSample, Timeline, Value};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "stackprof",
    description: "Ruby stackprof JSON (`StackProf.run(raw: true)`), as speedscope opens it",
    extensions: &["stackprof.json"],
    carries: Carries {
        time_unit: Some(crate::model::Unit::Microseconds),
        ..Carries::STACKS_OF_SAMPLES
            .weighing(&[MetricKind::Time, MetricKind::Samples, MetricKind::Objects])
            .with_modules()
            .with_interval()
    },
    reads: Some(Reads::json(
        JsonKind { what: "a Ruby stackprof profile", aside: " (Ruby's)", check },
        read,
    )),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a stackprof file should be, for serde's errors.
const EXPECTED: &str = "a stackprof profile (mode, interval, frames, raw, raw_timestamp_deltas)";

/// Whether `head` is stackprof's results as `StackProf.run(out: …)` writes them: a Ruby Marshal dump
/// (version 4.8, `04 08`) of a hash (`{`) whose keys include the symbol `:mode` (`:`, its length 4
/// as Marshal writes it, 9, and `mode`).
pub(crate) fn is_marshal_dump(head: &[u8]) -> bool {
    head.starts_with(b"\x04\x08{") && memchr::memmem::find(head, b":\x09mode").is_some()
}

/// Whether the input is a JSON object with stackprof's `mode` (one of its four) and `frames`; if
/// not, what is missing first.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    head.object()?;
    let modes = [&b"\"cpu\""[..], b"\"wall\"", b"\"object\"", b"\"custom\""];
    let known = head.value_of(b"\"mode\"").is_some_and(|value| modes.iter().any(|m| value.starts_with(m)));
    match (known, head.mentions(b"\"frames\"")) {
        (true, true) => Ok(()),
        (false, _) => Err("no \"mode\" of stackprof's (cpu, wall, object, custom)"),
        (true, false) => Err("a stackprof \"mode\" without \"frames\""),
    }
}

#[derive(Deserialize)]
struct Document {
    version: Option<f64>,
    mode: String,
    interval: Option<f64>,
    gc_samples: Option<u64>,
    missed_samples: Option<u64>,
    // In the order of their ids' text, so that frames are interned in the same order every run.
    frames: std::collections::BTreeMap<String, FrameJson>,
    raw: Option<Vec<u64>>,
    raw_timestamp_deltas: Option<Vec<i64>>,
}

#[derive(Deserialize)]
struct FrameJson {
    name: Option<String>,
    file: Option<String>,
    line: Option<u64>,
}

/// How a mode weighs its samples.
#[derive(Clone, Copy, PartialEq)]
enum Weight {
    /// `cpu`: each sample one interval of CPU time.
    Interval(f64),
    /// `wall`: each sample its delta.
    Deltas,
    /// `object`: each sample one sampled allocation.
    Objects,
    /// `custom`: samples alone.
    Samples,
}

/// Reads a stackprof file (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, _: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = json::parse(FORMAT, text, EXPECTED)?;
    let error = |key: &str, expected, found| json::error_at_key(FORMAT, text, key, expected, found);
    let weight = match (document.mode.as_str(), document.interval) {
        ("cpu", Some(interval)) => Weight::Interval(interval),
        ("wall", _) => Weight::Deltas,
        ("object", _) => Weight::Objects,
        _ => Weight::Samples,
    };
    let Some(raw) = &document.raw else {
        let expected = "\"raw\", the stacks of a profile taken with raw: true".to_string();
        return Err(error("\"frames\"", expected, "a profile without them".into()));
    };
    let deltas = document.raw_timestamp_deltas.as_deref().unwrap_or_default();
    let mut profile = Profile::new(metrics(weight));
    let mut frames: HashMap<u64, crate::model::FrameId> = HashMap::with_capacity(document.frames.len());
    // The id of stackprof's `(garbage collection)` frame, if it has one.
    let mut gc = None;
    for (key, frame) in &document.frames {
        let Ok(id) = key.parse::<u64>() else {
            return Err(error(&format!("\"{key}\""), "a frame id, a number".into(), format!("\"{key}\"")));
        };
        frames.insert(id, frame_of(&mut profile, frame));
        if frame.name.as_deref() == Some("(garbage collection)") {
            gc = Some(id);
        }
    }
    let (mut index, mut stack, mut previous) = (ChildIndex::default(), Vec::new(), Vec::new());
    let (mut at_raw, mut sample) = (0usize, 0usize);
    // Each sample's time (ns from the first delta's start) and node, while every sample has a delta.
    let mut timeline = Some(Vec::with_capacity(deltas.len()));
    let mut clock = 0i64;
    while at_raw < raw.len() {
        let cut =
            |what: &str| error("\"raw\"", format!("{what} of the record at raw[{at_raw}]"), "the end of raw".into());
        let height = usize::try_from(raw[at_raw]).unwrap_or(usize::MAX);
        let ids =
            raw.get(at_raw + 1..at_raw.saturating_add(1).saturating_add(height)).ok_or_else(|| cut("the frames"))?;
        let count = *raw.get(at_raw + 1 + height).ok_or_else(|| cut("the sample count"))?;
        stack.clear();
        for id in ids {
            let frame = frames.get(id).ok_or_else(|| {
                error("\"raw\"", format!("frame ids of \"frames\" in the record at raw[{at_raw}]"), id.to_string())
            })?;
            stack.push(*frame);
        }
        // Garbage collection alone goes on top of the stack before it, as speedscope puts it.
        if gc.is_some() && ids.len() == 1 && Some(ids[0]) == gc {
            stack.splice(0..0, previous.iter().copied());
        }
        let mut node: Option<NodeId> = None;
        for &frame in &stack {
            node = Some(index.child_or_insert(&mut profile.tree, node, frame));
        }
        if let Some(node) = node {
            let n = i64::try_from(count).unwrap_or(i64::MAX);
            let n_samples = usize::try_from(count).unwrap_or(usize::MAX);
            let value = match weight {
                Weight::Interval(interval) => Some((interval * count as f64).round() as i64),
                Weight::Deltas => {
                    let taken = deltas.get(sample..sample.saturating_add(n_samples)).ok_or_else(|| {
                        error(
                            "\"raw_timestamp_deltas\"",
                            format!("a delta for each of the samples up to {}", sample.saturating_add(n_samples)),
                            format!("{} deltas", deltas.len()),
                        )
                    })?;
                    Some(taken.iter().fold(0i64, |sum, &d| sum.saturating_add(d.max(0))))
                }
                Weight::Objects | Weight::Samples => None,
            };
            profile.tree.add_self(0, node, Value::Int(n));
            if let Some(value) = value {
                profile.tree.add_self(1, node, Value::Int(value));
            }
            let times = deltas.get(sample..sample.saturating_add(n_samples));
            match (&mut timeline, times) {
                (Some(timeline), Some(times)) => timeline.extend(times.iter().map(|&delta| {
                    clock = clock.saturating_add(delta.max(0));
                    TimedSample { time: clock.saturating_mul(1000), node, weight: 1 }
                })),
                _ => timeline = None,
            }
            sample = sample.saturating_add(n_samples);
        }
        std::mem::swap(&mut previous, &mut stack);
        at_raw += 2 + height;
    }
    header(&mut profile, &document, weight);
    profile.timeline = timeline.and_then(|samples| Timeline::new(samples, None));
    Ok(profile)
}

/// The metrics of a mode: its count first, then its time where it has one.
fn metrics(weight: Weight) -> Vec<Metric> {
    match weight {
        Weight::Interval(_) | Weight::Deltas => {
            vec![
                Metric::samples(),
                Metric::time(crate::model::Unit::Microseconds, crate::model::Repr::Int)
                    .sampled(crate::model::Sampling::weights_of("samples")),
            ]
        }
        Weight::Objects => {
            let samples = Metric::samples();
            vec![Metric { name: "sampled objects".into(), kind: MetricKind::Objects, ..samples }]
        }
        Weight::Samples => vec![Metric::samples()],
    }
}

/// The model's frame of a stackprof frame (see the module documentation).
fn frame_of(profile: &mut Profile, frame: &FrameJson) -> crate::model::FrameId {
    let name = frame.name.as_deref().unwrap_or("(unknown)");
    let file = frame.file.as_deref().filter(|f| !f.is_empty() && *f != "<cfunc>");
    SourceFrame { name, file, line: frame.line, column: None }.intern(profile, Anonymous::AsWritten)
}

/// The profile's header: its interval (time modes), weight, and stackprof's own facts.
fn header(profile: &mut Profile, document: &Document, weight: Weight) {
    let timed = matches!(weight, Weight::Interval(_) | Weight::Deltas);
    if timed {
        profile.meta.weighed_by = Some(MetricKind::Time);
        let interval = document.interval.filter(|&i| i.is_finite() && i > 0.0 && i < 1e15);
        profile.meta.interval = interval.map(|i| std::time::Duration::from_nanos((i * 1000.0).round() as u64));
    }
    let mut fact = |key: &str, value: Option<String>| {
        if let Some(value) = value {
            profile.meta.attrs.push((format!("stackprof.{key}"), value));
        }
    };
    fact("version", document.version.map(|v| v.to_string()));
    fact("mode", Some(document.mode.clone()));
    fact("gc_samples", document.gc_samples.map(|n| n.to_string()));
    fact("missed_samples", document.missed_samples.map(|n| n.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// stackprof's JSON is told by its mode and frames; other JSON is not taken for it.
    #[test]
    fn a_stackprof_profile_is_told_by_its_mode_and_frames() {
        assert_eq!(check(br#"{"version":1.2,"mode":"wall","interval":1000,"frames":{}}"#), Ok(()));
        assert_eq!(check(b"{\n  \"mode\" : \"cpu\",\n  \"frames\": {}}"), Ok(()));
        assert!(check(br#"{"mode":"fast","frames":{}}"#).is_err());
        assert!(check(br#"{"mode":"cpu"}"#).is_err());
        assert!(check(br#"[{"mode":"cpu","frames":1}]"#).is_err());
    }

    /// A record cut short and a frame id not in `frames` are errors that say where.
    #[test]
    fn a_damaged_raw_is_refused_with_its_place() {
        let frames = r#""frames":{"1":{"name":"main"},"2":{"name":"work"}}"#;
        let read_text = |raw: &str| {
            let text = format!(r#"{{"mode":"object","interval":1,{frames},"raw":{raw}}}"#);
            read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).map(|p| p.total(0)).map_err(|e| e.to_string())
        };
        assert_eq!(read_text("[2,1,2,3,1,1,4]"), Ok(Value::Int(7)));
        let cut = read_text("[2,1,2,3,3,1]").unwrap_err();
        assert!(cut.contains("the frames of the record at raw[4]"), "{cut}");
        let unknown = read_text("[2,1,9,3]").unwrap_err();
        assert!(
            unknown.contains("frame ids of \"frames\" in the record at raw[0]") && unknown.contains("found 9"),
            "{unknown}"
        );
    }
}
