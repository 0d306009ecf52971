//! pprof's profile format (google/pprof `proto/profile.proto`), gzipped protocol buffers: what
//! `go tool pprof`, Grafana Pyroscope, Parca and many other tools read. Written only.
//!
//! ```text
//! Profile {
//!   sample_type: [{type: "samples", unit: "count"}, {type: "alloc", unit: "bytes"}]
//!   sample:      [{location_id: [3, 2, 1], value: [25, 4096]}, …]   // leaf first
//!   location:    [{id: 1, line: [{function_id: 1, line: 12}]}, …]
//!   function:    [{id: 1, name: "CL-USER::FIB", filename: "fib.lisp"}, …]
//!   string_table: ["", "samples", "count", …]
//!   period_type: {type: "cpu", unit: "nanoseconds"}, period: 10000000, comment: ["fib benchmark"]
//!   default_sample_type: 1                                              // "samples"
//! }
//! ```
//!
//! **Writing**: one value per additive metric (samples and ticks as counts, time in nanoseconds,
//! allocation in bytes); one sample per node with a value (or a leaf, with zeros), its locations from
//! the leaf up; a location and a function per frame, the function named by the frame with its
//! module as the file name, and the frame's source line; where the frame attr `defined-at` holds a
//! location, its file is the file name and its line the function's start line (and the location's
//! line, for a frame that is not a source line); the interval as the period (CPU time in
//! nanoseconds); the title as a comment; the profile's primary metric (samples, else time, else
//! ticks, else allocation) as the default sample type, which pprof shows first (without one it
//! shows the last, allocation in a GHC profile). The output is gzipped, as pprof writes it.
//!
//! **Lost**: per-node metrics (calls), per-function counts, frame kinds (threads are root frames),
//! header facts but the title and interval, inner nodes without a value of their own, and time
//! below a whole nanosecond (pprof values are integers: rounded, with a warning).

use super::{Carries, Sniff};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::model::{Profile, Unit, Value};
use prost::Message;
use std::io::Write;

/// What a pprof profile holds: what a speedscope file holds, and the interval (as the period), with
/// time in nanoseconds.
pub(crate) const CARRIES: Carries =
    Carries { interval: true, time_unit: Some(Unit::Nanoseconds), ..super::speedscope::CARRIES };

/// proftool does not read pprof profiles.
pub(crate) fn sniff(_head: &[u8]) -> Sniff {
    Sniff::No
}

/// Writes `profile` (projected onto [`CARRIES`]) as a gzipped pprof profile.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write, diag: &mut Diagnostics) -> Result<(), Error> {
    let mut strings = Strings::default();
    let sample_type = profile
        .metrics()
        .iter()
        .map(|m| ValueType { r#type: strings.index(&m.name), unit: strings.index(unit_name(m.unit)) })
        .collect();
    // A function and a location per frame, both with the frame's id (1 up: 0 means none).
    let (function, location) = profile
        .frames
        .iter()
        .map(|(id, frame)| {
            let defined = profile.defined_at(id);
            let id = u64::from(id.0) + 1;
            let filename = defined.map(|at| at.file).or(frame.module.as_deref()).map_or(0, |f| strings.index(f));
            let start_line = defined.map_or(0, |at| i64::from(at.line));
            let function = Function { id, name: strings.index(&frame.name), system_name: 0, filename, start_line };
            // A source-line frame's own line, else the line its function is defined at.
            let line = Line { function_id: id, line: frame.line.map_or(start_line, i64::from) };
            (function, Location { id, line: vec![line] })
        })
        .unzip();
    let (period_type, period) = match profile.meta.interval {
        Some(interval) => (
            Some(ValueType { r#type: strings.index("cpu"), unit: strings.index("nanoseconds") }),
            i64::try_from(interval.as_nanos()).unwrap_or(i64::MAX),
        ),
        None => (None, 0),
    };
    let comment = profile.meta.title.as_deref().map(|t| strings.index(t)).into_iter().collect();
    let default_sample_type = profile.primary_metric().map_or(0, |m| strings.index(&profile.metrics()[m].name));
    let after_samples = PprofProfile {
        location,
        function,
        string_table: strings.table,
        period_type,
        period,
        comment,
        default_sample_type,
        ..PprofProfile::default()
    };
    // A message is its fields in tag order: the sample types, the samples (most of the message),
    // then the rest, each encoded on its own, make the bytes of the whole message without holding
    // the samples.
    let mut gzip = flate2::write::GzEncoder::new(out, flate2::Compression::default());
    gzip.write_all(&PprofProfile { sample_type, ..PprofProfile::default() }.encode_to_vec())?;
    let rounded = write_samples(profile, &mut gzip)?;
    gzip.write_all(&after_samples.encode_to_vec())?;
    gzip.finish()?;
    if rounded {
        diag.warn("pprof-rounded", None, || "pprof values are whole numbers: time rounded to whole nanoseconds".into());
    }
    Ok(())
}

/// Writes the samples field of the message: one sample per node with a value (or a leaf), each
/// encoded into one reused buffer. Returns whether a value had to be rounded.
fn write_samples(profile: &Profile, out: &mut impl Write) -> Result<bool, Error> {
    let tree = &profile.tree;
    let n_metrics = profile.metrics().len();
    let mut rounded = false;
    // A message of one sample is the samples field's key, length and sample.
    let mut one = SampleField { sample: vec![Sample::default()] };
    let mut bytes: Vec<u8> = Vec::with_capacity(1 << 17);
    tree.for_each_stack(tree.walk(), |visit, stack| {
        let values = (0..n_metrics).map(|m| tree.self_value(m, visit.node));
        if !visit.is_leaf && values.clone().all(|v| v.as_f64() == 0.0) {
            return Ok(());
        }
        let sample = &mut one.sample[0];
        sample.value.clear();
        sample.value.extend(values.map(|v| match v {
            Value::Int(i) => i,
            Value::Float(f) => {
                rounded |= f.fract() != 0.0;
                f.round() as i64
            }
        }));
        // Location ids are frame ids + 1, leaf first.
        sample.location_id.clear();
        sample.location_id.extend(stack.iter().rev().map(|frame| u64::from(frame.0) + 1));
        one.encode(&mut bytes).map_err(std::io::Error::other)?;
        if bytes.len() >= 1 << 16 {
            out.write_all(&bytes)?;
            bytes.clear();
        }
        Ok::<(), Error>(())
    })?;
    out.write_all(&bytes)?;
    Ok(rounded)
}

/// pprof's name of a unit.
fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Nanoseconds | Unit::Microseconds | Unit::Milliseconds => "nanoseconds",
        Unit::Bytes => "bytes",
        Unit::Count | Unit::Words => "count",
    }
}

/// The string table: index 0 is the empty string, each string once.
struct Strings {
    table: Vec<String>,
    index: std::collections::HashMap<String, i64>,
}

impl Default for Strings {
    fn default() -> Strings {
        Strings { table: vec![String::new()], index: std::collections::HashMap::from([(String::new(), 0)]) }
    }
}

impl Strings {
    fn index(&mut self, text: &str) -> i64 {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(text.to_string());
        self.index.insert(text.to_string(), i);
        i
    }
}

// The messages of profile.proto that proftool writes, with their field numbers.

#[derive(Clone, PartialEq, Message)]
struct PprofProfile {
    #[prost(message, repeated, tag = "1")]
    sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    sample: Vec<Sample>,
    #[prost(message, repeated, tag = "4")]
    location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    string_table: Vec<String>,
    #[prost(message, optional, tag = "11")]
    period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    period: i64,
    #[prost(int64, repeated, tag = "13")]
    comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    default_sample_type: i64,
}

#[derive(Clone, PartialEq, Message)]
struct ValueType {
    #[prost(int64, tag = "1")]
    r#type: i64,
    #[prost(int64, tag = "2")]
    unit: i64,
}

/// The samples field alone, to encode one sample as it is in the whole message.
#[derive(Clone, PartialEq, Message)]
struct SampleField {
    #[prost(message, repeated, tag = "2")]
    sample: Vec<Sample>,
}

#[derive(Clone, PartialEq, Message)]
struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    value: Vec<i64>,
}

#[derive(Clone, PartialEq, Message)]
struct Location {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(message, repeated, tag = "4")]
    line: Vec<Line>,
}

#[derive(Clone, PartialEq, Message)]
struct Line {
    #[prost(uint64, tag = "1")]
    function_id: u64,
    #[prost(int64, tag = "2")]
    line: i64,
}

#[derive(Clone, PartialEq, Message)]
struct Function {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(int64, tag = "2")]
    name: i64,
    #[prost(int64, tag = "3")]
    system_name: i64,
    #[prost(int64, tag = "4")]
    filename: i64,
    #[prost(int64, tag = "5")]
    start_line: i64,
}
