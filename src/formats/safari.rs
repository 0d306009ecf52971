//! Safari's Web Inspector timeline recording JSON (Timelines, "Export"), whose JavaScript samples
//! speedscope opens (read only).
//!
//! ```text
//! {"version":1,"recording":{"displayName":"Timeline Recording 1","startTime":4.16,"endTime":6.69,
//!   "instrumentTypes":["timeline-record-type-script",…],"records":[…],
//!   "sampleStackTraces":[{"timestamp":4.4726,"stackFrames":[
//!     {"sourceID":"7","name":"","line":2,"column":10,"url":"a.js","expressionLocation":{…}},
//!     {"sourceID":"6","name":"injectModule","line":109,"column":13,"url":"b.js"}]}],
//!   "sampleDurations":[0.0014]},
//!  "overview":{…}}
//! ```
//!
//! **Schema** (version 1, Safari 13 and later): `recording.sampleStackTraces`, the JavaScript
//! samples, each its `timestamp` (seconds) and `stackFrames`, innermost first, each a function's
//! `name` (empty for an anonymous one), `url`, and the `line` and `column` it is defined at;
//! `recording.sampleDurations`, the seconds each sample stands for, in the same order.
//!
//! **Model**, as speedscope imports it: each sample adds its duration to the `time` (µs) of its
//! stack, root first, and one to its `samples`; frames are named by `name`, an anonymous one
//! `(anonymous FILE:LINE)` (the url's last part) or `(anonymous)`, with the url as module and
//! `url:line:column` as where it is defined ([`crate::model::DEFINED_AT`]). The recording's
//! `displayName` is the title. Weighed by time.
//!
//! **Errors**: JSON errors at their line and column; a version other than 1, fewer durations than
//! samples, a negative or non-finite duration, each naming the place.
//!
//! **Lost**: the timeline's other records (network, layout, rendering, CPU usage), markers, the
//! idle time between samples (speedscope shows it as time of no stack), the current expression
//! of each frame (`expressionLocation`).

use super::json;
use super::kit::source_frame::{Anonymous, SourceFrame};
use super::spec::{Carries, JsonKind, Reads, Spec};
use super::stacks::StackTree;
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError};
use crate::formats::ReadOptions;
use crate::model::{FrameId, Metric, MetricKind, Profile, Repr, Unit, Value};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "safari",
    description: "Safari Web Inspector timeline recording (its JavaScript samples), as speedscope opens it",
    extensions: &["recording.json"],
    carries: Carries {
        time_unit: Some(Unit::Microseconds),
        weight_is_time: true,
        ..Carries::STACKS_OF_SAMPLES.weighing(&[MetricKind::Time, MetricKind::Samples]).with_modules().with_title()
    },
    reads: Some(Reads::json(
        JsonKind { what: "a Safari timeline recording", aside: " (Safari's)", check },
        read,
    )),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a recording should be, for serde's errors.
const EXPECTED: &str = "a Safari timeline recording (version, recording with sampleStackTraces and sampleDurations)";

/// Whether the input is a JSON object with a `recording` that lists its `instrumentTypes` (or its
/// samples); if not, what is missing first.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    head.object()?;
    if !head.mentions(b"\"recording\"") {
        return Err("no \"recording\"");
    }
    match head.mentions(b"\"instrumentTypes\"") || head.mentions(b"\"sampleStackTraces\"") {
        true => Ok(()),
        false => Err("a \"recording\" without Safari's \"instrumentTypes\" or \"sampleStackTraces\""),
    }
}

#[derive(Deserialize)]
struct Document {
    version: f64,
    recording: Recording,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recording {
    display_name: Option<String>,
    sample_stack_traces: Vec<Sample>,
    sample_durations: Vec<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sample {
    stack_frames: Vec<StackFrame>,
}

#[derive(Deserialize, PartialEq, Eq, Hash)]
struct StackFrame {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    line: u64,
    #[serde(default)]
    column: u64,
}

/// Reads a Safari timeline recording (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, _: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = json::parse(FORMAT, text, EXPECTED)?;
    let error = |key: &str, expected, found| json::error_at_key(FORMAT, text, key, expected, found);
    if document.version != 1.0 {
        return Err(error(
            "\"version\"",
            "version 1 (Safari 13 and later)".into(),
            format!("version {}", document.version),
        ));
    }
    let recording = &document.recording;
    let (samples, durations) = (&recording.sample_stack_traces, &recording.sample_durations);
    if durations.len() < samples.len() {
        let expected = format!("a duration for each of the {} samples", samples.len());
        return Err(error("\"sampleDurations\"", expected, format!("{} durations", durations.len())));
    }
    let mut profile = Profile::new(vec![
        Metric::time(Unit::Microseconds, Repr::Float).sampled(crate::model::Sampling::weights_of("samples")),
        Metric::samples(),
    ]);
    let mut stacks = StackTree::default();
    let mut frames: HashMap<&StackFrame, FrameId> = HashMap::new();
    for (index, (sample, &duration)) in samples.iter().zip(durations).enumerate() {
        if !(duration.is_finite() && duration >= 0.0) {
            let expected = "durations of zero seconds or more".to_string();
            return Err(error("\"sampleDurations\"", expected, format!("{duration} for sample {index}")));
        }
        let path = stacks.next();
        for frame in sample.stack_frames.iter().rev() {
            let id = *frames.entry(frame).or_insert_with(|| frame_of(&mut profile, frame));
            path.push(id);
        }
        if let Some(leaf) = stacks.add(&mut profile.tree) {
            profile.tree.add_self(0, leaf, Value::Float(duration * 1e6));
            profile.tree.add_self(1, leaf, Value::Int(1));
        }
    }
    profile.meta.title = recording.display_name.clone().filter(|name| !name.is_empty());
    profile.meta.weighed_by = Some(MetricKind::Time);
    profile.meta.attrs.push(("safari.version".into(), document.version.to_string()));
    Ok(profile)
}

/// The model's frame of a stack frame (see the module documentation).
fn frame_of(profile: &mut Profile, frame: &StackFrame) -> FrameId {
    let file = Some(frame.url.as_str()).filter(|url| !url.is_empty());
    let source = SourceFrame { name: &frame.name, file, line: Some(frame.line), column: Some(frame.column) };
    source.intern(profile, Anonymous::ByLine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_is_told_by_its_recording_and_instruments() {
        assert_eq!(check(br#"{"version":1,"recording":{"displayName":"R","instrumentTypes":[]}}"#), Ok(()));
        assert!(check(br#"{"version":1,"recording":{}}"#).is_err());
        assert!(check(br#"{"nodes":[]}"#).is_err());
    }

    /// Durations become µs of the stack, root first; anonymous functions are named by place.
    #[test]
    fn samples_weigh_their_durations() {
        let text = r#"{"version":1,"recording":{"displayName":"R","sampleStackTraces":[
            {"timestamp":1.0,"stackFrames":[{"name":"","url":"https://x/a.js","line":2,"column":10},{"name":"main","url":"https://x/b.js","line":1,"column":1}]},
            {"timestamp":1.5,"stackFrames":[{"name":"main","url":"https://x/b.js","line":1,"column":1}]}],
            "sampleDurations":[0.25,0.5]}}"#;
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        assert_eq!(profile.total(0), Value::Float(750_000.0));
        assert_eq!(profile.total(1), Value::Int(2));
        let names: Vec<&str> = profile.frames.iter().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(names, ["main", "(anonymous a.js:2)"]);
        let short = text.replace("[0.25,0.5]", "[0.25]");
        let error = read(&mut short.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap_err().to_string();
        assert!(error.contains("a duration for each of the 2 samples, found 1 durations"), "{error}");
    }
}
