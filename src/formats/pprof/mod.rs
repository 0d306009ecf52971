//! pprof's profile format (google/pprof `proto/profile.proto`), gzipped protocol buffers: what
//! `go tool pprof`, Go's `runtime/pprof`, Grafana Pyroscope, Parca and many other tools read and write.
//!
//! ```text
//! Profile {
//!   sample_type: [{type: "samples", unit: "count"}, {type: "alloc", unit: "bytes"}]
//!   sample:      [{location_id: [3, 2, 1], value: [25, 4096], label: [{key: "thread", str: "main"}]}, …]
//!   mapping:     [{id: 1, filename: "/usr/bin/prog"}, …]
//!   location:    [{id: 1, mapping_id: 1, line: [{function_id: 2, line: 14}, {function_id: 1, line: 12}]}, …]
//!   function:    [{id: 1, name: "main.fib", filename: "fib.go", start_line: 10}, …]
//!   string_table: ["", "samples", "count", …]
//!   time_nanos: 1764063000000000000, duration_nanos: 2000000000
//!   period_type: {type: "cpu", unit: "nanoseconds"}, period: 10000000, comment: ["fib benchmark"]
//!   default_sample_type: 1                                              // "samples"
//! }
//! ```
//!
//! **Reading** (gzipped or raw; an input read through [`crate::files::Input`] is decompressed there,
//! others here, to the same limit): every sample type is an additive metric named by its type, by
//! its unit: `nanoseconds`, `microseconds`, `milliseconds` are time in that unit, `seconds` time in
//! milliseconds, `bytes` allocation (also for `inuse_space`: the model has one kind of memory),
//! `count` a count under its own name, of the kind its name says ([`crate::model::MetricKind::of_count`]: the
//! sample count `samples` is samples, `ticks` ticks, `alloc_objects` objects, `contentions` events),
//! and any unit proftool does not know (with a warning) events of that name. The
//! default sample type (else the last, as pprof shows it) is the one the profile is weighed by
//! ([`crate::model::Meta::weighed_by`]), moved to be the first metric of its kind. A string of the
//! string table that is not UTF-8 (protobuf's `string` must be; Go's pprof writes a label value's
//! bytes as they are, and reads them) is read with U+FFFD for its bad bytes, said on stderr. A sample's
//! locations are its stack, leaf first; a location's lines are inlined calls, innermost first, each
//! a frame: its function's name (else its system name), its function's source file as its module
//! (else the location's mapping's file), so that a line reads `main.count[main.go:31]` as
//! `go tool pprof -lines` places it, the line's number as the frame's line (a source-line frame; a
//! line at the function's own start line, or none, is the function itself) and its column as the
//! clause; a function's file and start line are where it is defined (the frame attr
//! [`crate::model::DEFINED_AT`]), and the mapping's file (the program or library; empty for none),
//! where it is not the module, the frame fact `mapping`; a location without lines is named by
//! its address. Values of one
//! stack are added up; a node left below zero (a profile diff) is read as 0, with a warning.
//! `comment`s are the title (one line each), `time_nanos` the timestamp (RFC 3339, UTC), a period
//! of time the interval; `duration_nanos` and the period type (and a period that is no time, such as
//! a heap profile's bytes) are the header facts `duration-ns`, `period-type` (and `period`), named
//! for no format as the mapping's file is (`kit::sample_types::PROFILE_FACTS`): OTLP's profiles
//! state them alike, and pprof converts to OTLP and back with them. Sample labels are dropped with
//! one warning naming their keys, except those named with `--tag KEY`, whose values become root frames
//! `KEY:value` above the stack (pprof's `-tagroot`). String, location, function and mapping
//! references that are not defined are errors that name them. A sample's `timestamp_ns` label (a
//! number, ns: perf_to_profile's, which writes one sample a perf record) is its time on the
//! profile's timeline, standing for as many samples as its count of samples says (else one).
//!
//! **Writing**: one value per additive metric (samples and ticks as counts, time in its unit, or in
//! nanoseconds where it has fractions (fitted so before it is written), allocation in bytes); one sample per node with a value (or a leaf, with zeros), its locations from
//! the leaf up; a location and a function per frame, the function named by the frame, its file name
//! the file of `defined-at` where that holds a location (whose line is the function's start line, and
//! the location's line for a frame that is not a source line), else the frame's module; a mapping
//! per file frames were in (`mapping`, else the module where it is no source file: callgrind's
//! `clone.S` is none), the program's first (the first met
//! that is no library, kernel or JIT code), as `go tool pprof` takes the first for the program;
//! the frame's source line (and clause, as its column);
//! the interval as the period (CPU time in nanoseconds, or the period type read); the title as
//! comments; the timestamp as `time_nanos` where it is an RFC 3339 UTC time as proftool reads one
//! (else dropped, with a warning); the profile's primary metric (samples, else time, else ticks, else
//! allocation) as the default sample type, which pprof shows first (without one it shows the last,
//! allocation in a GHC profile). A line of no named function (a BR line of the main routine) is
//! named by its place; a line frame at line 0 becomes its function (pprof's line 0 is none), with a
//! warning. The output is gzipped, as pprof writes it ([`crate::files::gzip`]): at the default level
//! as Go's `profile` package does, and from 1 MiB of protocol buffer at the fastest level, as Go's
//! `runtime/pprof` does, in blocks compressed on two threads. A profile with a timeline is written
//! as perf_to_profile writes perf's records: one sample per sample of the timeline, in time order,
//! of its node's stack with its share of every metric ([`crate::model::Timeline::shares`]) and its
//! time as the label `timestamp_ns` (after the stacks of no value, so that a file read back writes
//! the same bytes); where some value is in none of its samples, by stack, without times (said).
//!
//! **Lost**: per-node metrics (calls), per-function counts, frame kinds (threads are root frames),
//! header facts but the title, timestamp and interval, inner nodes without a value of their own, and
//! time below a whole nanosecond (pprof values are integers: rounded, with a warning).

mod proto;
mod read;

use super::kit::sample_types;
use super::kit::string_table::StringTable;
use super::kit::time::{format_time, parse_time};
use super::kit::wire;
use super::options::ConvertOptions;
use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes, Writing};
use super::stacks::check_output_size;
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName};
use crate::model::{Frame, FrameId, NodeId, Profile, Timeline, Unit};
use prost::Message;
use proto::{Function, Line, Location, Mapping, Sample, ValueType};
use std::io::Write;

pub(crate) use read::read;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "pprof",
    description: "pprof protocol buffers (`go tool pprof`, Go's `runtime/pprof`)",
    extensions: &["pb.gz", "pprof", "pb"],
    carries: CARRIES,
    reads: Some(Reads::binary(sniff, read)),
    writes: Some(Writes {
        write,
        rules: Rules {
            fit,
            says_which_metric_comes_first: true,
            keeps_facts: sample_types::PROFILE_FACTS,
            ..spec::STACKS_ONLY
        },
        differential: Some(spec::Differential::Sides { projected: true, write: write_differential }),
    }),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a pprof profile holds: stacks of any count, and the interval (as the period) and timestamp.
pub(crate) const CARRIES: Carries =
    Carries { timestamp: true, interval: true, timeline: true, ..Carries::STACKS_OF_ANY_COUNT };

/// pprof's own options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The keys of sample labels whose values become root frames (`--tag KEY`, pprof's
    /// `-tagroot`), outermost first.
    pub tags: Vec<String>,
}

/// `Yes` for a protocol buffer that reads as a Profile message: the whole input decoded, when the
/// head is all of it, else the head's fields, each of a Profile's field numbers and wire types.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let whole = head.len() < crate::files::HEAD_LEN;
    let fits = if whole {
        // Its strings as read (not UTF-8 ones replaced), then decoded.
        read::without_samples(head)
            .ok()
            .and_then(|(tables, ..)| proto::Profile::decode(tables.as_slice()).ok())
            .is_some_and(|p| p.string_table.first().is_some_and(String::is_empty))
    } else {
        profile_fields(head)
    };
    if fits && !head.is_empty() && !wire::is_perfetto_trace(head) {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// Whether `head` (the start of a longer input) is a sequence of fields of a Profile message, each
/// with a field number and wire type profile.proto gives it: at least three whole ones.
fn profile_fields(head: &[u8]) -> bool {
    let mut whole = 0;
    for field in wire::fields(head) {
        match field {
            Ok(field) if matches!((field.number, field.wire), (1..=6 | 11 | 13, 2) | (7..=10 | 12..=14, 0)) => {
                whole += 1;
            }
            // Cut off by the end of the head.
            Err(wire::Stop::CutShort(_)) => break,
            Ok(_) | Err(wire::Stop::Invalid(_)) => return false,
        }
    }
    whole >= 3
}

/// The byte offset of the `nth` field numbered `number` of the encoded Profile message `bytes` (else
/// of its last such field, as a packed repeated field holds many values in one; else 0).
fn field_offset(bytes: &[u8], number: u64, nth: usize) -> usize {
    let starts = wire::fields(bytes).map_while(Result::ok).filter(|f| f.number == number).map(|f| f.start);
    let mut last = 0;
    for (i, start) in starts.enumerate() {
        if i == nth {
            return start;
        }
        last = start;
    }
    last
}

/// Fits a profile to pprof, whose values are whole numbers and whose line 0 means no line: time with
/// fractions (Dyalog's milliseconds) in nanoseconds, and a line frame at line 0 (a Dyalog call from
/// an unknown line) its function, merged with the function's node where it has one.
pub(crate) fn fit(mut profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    sample_types::fractions_in_nanoseconds(&mut profile);
    let mut profile = sample_types::lines_0_as_functions(profile, FORMAT, "pprof-line-0", diag);
    sample_types::keep_timeline_of_every_value(&mut profile, FORMAT, diag);
    profile
}

/// The label key of a sample's time in nanoseconds, a number: perf_to_profile's
/// (`TimestampNsLabelKey`, perf_data_converter), which writes one sample per perf record with it.
const TIMESTAMP_NS: &str = "timestamp_ns";

/// Writes `profile` (projected onto [`CARRIES`]) as a gzipped pprof profile.
pub(crate) fn write(profile: &Profile, to: Writing<'_>) -> Result<(), Error> {
    let Writing { out, options, diag } = to;
    check_output_size(FORMAT, samples_size(profile), options)?;
    encode(profile, out, diag, |_, _| {})
}

/// The label `go tool pprof -diff_base` puts on the samples of the base profile.
const BASE_LABEL: (&str, &str) = ("pprof::base", "true");

/// Writes NEW minus BASE as one pprof profile, as `go tool pprof -diff_base BASE -proto NEW` writes
/// it: NEW's samples as they are, BASE's negated and labelled `pprof::base=true`, so that pprof's own
/// views show the difference (and take BASE's total for its percentages). Both profiles are
/// projected onto [`CARRIES`] with the same metrics, in the same order and units.
fn write_differential(
    (base, new): (&Profile, &Profile),
    _: &spec::Compared<'_>,
    out: &mut dyn Write,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    check_output_size(FORMAT, samples_size(base).saturating_add(samples_size(new)), options)?;
    let mut combined = new.clone();
    // BASE's frames in the combined table (its own frame facts where NEW has none).
    let frame_of: Vec<u64> = base
        .frames
        .iter()
        .map(|(id, frame)| {
            let combined_id = combined.frames.intern(frame.as_ref());
            if let Some(attrs) = base.frame_attrs.get(&id) {
                combined.frame_attrs.entry(combined_id).or_insert_with(|| attrs.clone());
            }
            u64::from(combined_id.0) + 1
        })
        .collect();
    encode(&combined, out, diag, |strings, bytes| {
        let label =
            proto::Label { key: strings.index(BASE_LABEL.0), str: strings.index(BASE_LABEL.1), num: 0, num_unit: 0 };
        encode_samples(base, bytes, |_| true, |sample| {
            sample.location_id.iter_mut().for_each(|id| *id = frame_of[*id as usize - 1]);
            sample.value.iter_mut().for_each(|v| *v = v.saturating_neg());
            sample.label.push(label.clone());
        });
    })
}

/// About the bytes `profile`'s samples take encoded (before compression): each holds its whole
/// stack as location ids, so they grow with the tree's depth times its nodes with a value, not with
/// its nodes. One pass over the nodes (exact but for the length fields of long stacks), and one over
/// the timeline's samples, each of which is written with its node's whole stack (about: three bytes
/// a location, sixteen for the label and values).
fn samples_size(profile: &Profile) -> u64 {
    let tree = &profile.tree;
    let timed: u64 = match profile.timeline.as_ref().filter(|t| !t.samples().is_empty()) {
        None => 0,
        Some(timeline) => {
            let depths = tree.depths();
            timeline.samples().iter().map(|s| u64::from(depths[s.node.index()] + 1) * 3 + 16).sum()
        }
    };
    let n_metrics = profile.metrics().len();
    let varint = |v: u64| u64::from((64 - (v | 1).leading_zeros()).div_ceil(7));
    crate::formats::stacks::whole_stacks_size(
        tree,
        |node| varint(u64::from(tree.frame(node).0) + 1),
        |node, is_leaf| {
            let values = (0..n_metrics).map(|m| tree.self_value(m, node).as_f64());
            match is_leaf || values.clone().any(|v| v != 0.0) {
                // The sample's and its two lists' tags and lengths, and its values.
                true => (1, 6 + values.map(|v| varint(v.abs() as u64)).sum::<u64>()),
                false => (0, 0),
            }
        },
    ) + timed
}

/// Writes `profile`, and the samples `more` adds (made with the profile's string table, location ids
/// frame ids + 1, encoded as samples of the message), as a gzipped pprof profile. The samples are
/// encoded one at a time into the message's bytes, never held as values: each holds its whole stack.
fn encode(
    profile: &Profile,
    out: &mut dyn Write,
    diag: &mut Diagnostics,
    more: impl FnOnce(&mut Strings, &mut Vec<u8>),
) -> Result<(), Error> {
    let mut strings = Strings::default();
    let sample_type: Vec<ValueType> = profile
        .metrics()
        .iter()
        .map(|m| ValueType { r#type: strings.index(&m.name), unit: strings.index(unit_name(m.unit)) })
        .collect();
    let mapping = mappings(profile, &mut strings);
    let mapping_ids: std::collections::HashMap<i64, u64> = mapping.iter().map(|m| (m.filename, m.id)).collect();
    // A function and a location per frame, both with the frame's id (1 up: 0 means none).
    let (function, location) = profile
        .frames
        .iter()
        .map(|(frame_id, frame)| {
            let defined = profile.defined_at(frame_id);
            let id = u64::from(frame_id.0) + 1;
            let filename = defined.map(|at| at.file).or(frame.module.as_deref()).map_or(0, |f| strings.index(f));
            let start_line = defined.map_or(0, |at| i64::from(at.line));
            let name = strings.index(&super::shared::written_name(frame));
            let function = Function { id, name, system_name: 0, filename, start_line };
            // A source-line frame's own line, else the line its function is defined at; its column
            // where that line is not the function's start line (a line there reads back as the
            // function itself, which has no column).
            let line = Line {
                function_id: id,
                line: frame.line.map_or(start_line, i64::from),
                column: frame.line.filter(|&l| i64::from(l) != start_line).and(frame.clause).map_or(0, i64::from),
            };
            let mapping_id = mapping_file(profile, frame_id, frame)
                .map_or(0, |file| mapping_ids.get(&strings.index(file)).copied().unwrap_or(0));
            (function, Location { id, mapping_id, address: 0, line: vec![line] })
        })
        .unzip();
    // The fields in the order prost writes them, by number: sample types, samples, then the rest.
    let mut bytes = Vec::new();
    for value_type in &sample_type {
        prost::encoding::message::encode(SAMPLE_TYPE_FIELD, value_type, &mut bytes);
    }
    let rounded = match profile.timeline.as_ref().and_then(|timeline| shares_of_every_metric(profile, timeline)) {
        None => encode_samples(profile, &mut bytes, |_| true, |_| {}),
        Some(shares) => {
            // The stacks of no value and no time first, as the tree's samples write them (a leaf
            // with zeros): read back, they are the tree's first nodes, so written again in this order.
            let timed = profile.timeline.as_ref().map_or_else(Vec::new, |t| t.nodes_with_samples(profile.tree.len()));
            let rounded = encode_samples(profile, &mut bytes, |node| !timed[node.index()], |_| {});
            rounded | encode_timed_samples(profile, &shares, strings.index(TIMESTAMP_NS), &mut bytes)
        }
    };
    more(&mut strings, &mut bytes);
    if rounded {
        diag.warn("pprof-rounded", None, || "pprof values are whole numbers: time rounded to whole nanoseconds".into());
    }
    let (period_type, period) = period(profile, &mut strings);
    let comment = profile.meta.title.iter().flat_map(|t| t.split('\n')).map(|t| strings.index(t)).collect();
    let time_nanos = match profile.meta.timestamp.as_deref() {
        None => 0,
        Some(text) => parse_time(text).unwrap_or_else(|| {
            diag.warn("pprof-timestamp", None, || {
                format!("pprof's timestamp is a time in nanoseconds: the timestamp {text:?} is dropped")
            });
            0
        }),
    };
    let duration_nanos = profile.meta.attr(crate::model::DURATION).and_then(|d| d.parse().ok()).unwrap_or(0);
    let default_sample_type = profile.primary_metric().map_or(0, |m| strings.index(&profile.metrics()[m].name));
    let message = proto::Profile {
        sample_type: Vec::new(),
        sample: Vec::new(),
        mapping,
        location,
        function,
        string_table: strings.0.into_texts(),
        time_nanos,
        duration_nanos,
        period_type,
        period,
        comment,
        default_sample_type,
    };
    message.encode_raw(&mut bytes);
    crate::files::gzip(&bytes, out)?;
    Ok(())
}

/// The field numbers of a Profile's sample types and samples (`proto::Profile`).
const SAMPLE_TYPE_FIELD: u32 = 1;
const SAMPLE_FIELD: u32 = 2;

/// The file of the mapping `frame` was in: the one it was read from (none where that is empty: it
/// had none), else its module where that is an object file, not source (callgrind's `clone.S`,
/// which `go tool pprof` would name as the program's `File:`).
fn mapping_file<'p>(profile: &'p Profile, id: FrameId, frame: &'p Frame) -> Option<&'p str> {
    let object = frame.module.as_deref().filter(|module| !is_source_file(module));
    profile.frame_attr(id, sample_types::MAPPING).or(object).filter(|file| !file.is_empty())
}

/// Whether `file` is named as source code is (`work.c`, `clone.S`, `main.go`, `app.js`), by its
/// extension: no object code a mapping could be of.
fn is_source_file(file: &str) -> bool {
    const SOURCE: &[&str] = &[
        "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "inl", "S", "s", "asm", "rs", "go", "zig", "py", "rb", "js",
        "mjs", "cjs", "ts", "java", "kt", "scala", "hs", "lhs", "ml", "swift", "m", "mm", "php", "lua", "pl",
    ];
    let name = file.rsplit('/').next().unwrap_or(file);
    name.rsplit_once('.').is_some_and(|(stem, extension)| !stem.is_empty() && SOURCE.contains(&extension))
}

/// A mapping per file frames were in, the program first, as pprof expects (`go tool pprof` names
/// the first mapping's file as the profile's `File:` and symbolises by it): the first met that is
/// not a library, the kernel or JIT code ([`is_library`]).
fn mappings(profile: &Profile, strings: &mut Strings) -> Vec<Mapping> {
    let mut files: Vec<&str> = Vec::new();
    for (id, frame) in profile.frames.iter() {
        if let Some(file) = mapping_file(profile, id, frame).filter(|file| !files.contains(file)) {
            files.push(file);
        }
    }
    files.sort_by_key(|file| is_library(file));
    (1..).zip(files).map(|(id, file)| Mapping { id, filename: strings.index(file), has_functions: true }).collect()
}

/// Whether the code of `file` is a shared library (`libc.so.6`, `.dylib`, `.dll`), the kernel or a
/// module of it (`[kernel.kallsyms]`, `.ko`), perf's other pseudo-files (`[vdso]`, `[unknown]`) or
/// JIT code (`/tmp/perf-PID.map`, `jitted-*.so`): no program.
fn is_library(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    let shared = name.ends_with(".so") || name.contains(".so.") || name.ends_with(".dylib") || name.ends_with(".dll");
    shared || name.starts_with('[') || name.ends_with(".ko") || name.ends_with(".map")
}

/// The period type and period ([`sample_types::period_to_write`]), with the strings they name.
fn period(profile: &Profile, strings: &mut Strings) -> (Option<ValueType>, i64) {
    match sample_types::period_to_write(profile) {
        Some((name, unit, period)) => (Some(ValueType { r#type: strings.index(name), unit: strings.index(unit) }), period),
        None => (None, 0),
    }
}

/// Encodes one sample per node that `written` takes with a value (or a leaf) as a Profile's sample
/// field into `bytes`, each after `adjust`; whether a value had to be rounded.
fn encode_samples(
    profile: &Profile,
    bytes: &mut Vec<u8>,
    written: impl Fn(NodeId) -> bool,
    mut adjust: impl FnMut(&mut Sample),
) -> bool {
    let tree = &profile.tree;
    let n_metrics = profile.metrics().len();
    let mut rounded = false;
    let mut sample = Sample::default();
    let stacks = tree.for_each_stack(tree.walk(), |visit, stack| {
        let values = (0..n_metrics).map(|m| tree.self_value(m, visit.node));
        if !written(visit.node) || (!visit.is_leaf && values.clone().all(|v| v.as_f64() == 0.0)) {
            return Ok(());
        }
        sample.value.clear();
        sample.value.extend(values.map(|v| whole(v.as_f64(), &mut rounded)));
        // Location ids are frame ids + 1, leaf first.
        sample.location_id.clear();
        sample.location_id.extend(stack.iter().rev().map(|frame| u64::from(frame.0) + 1));
        sample.label.clear();
        adjust(&mut sample);
        prost::encoding::message::encode(SAMPLE_FIELD, &sample, bytes);
        Ok::<(), std::convert::Infallible>(())
    });
    let Ok(()) = stacks;
    rounded
}

/// `value` as pprof's whole number, noting in `rounded` whether it had a fraction.
fn whole(value: f64, rounded: &mut bool) -> i64 {
    *rounded |= value.fract() != 0.0;
    value.round() as i64
}

/// Per metric, each sample's share of its node's value ([`Timeline::shares`]); `None` where the
/// samples do not hold every value (the conversion's fit dropped such a timeline already).
fn shares_of_every_metric(profile: &Profile, timeline: &Timeline) -> Option<Vec<Vec<f64>>> {
    (0..profile.metrics().len()).map(|m| timeline.shares(&profile.tree, m)).collect()
}

/// Encodes each sample of the timeline, in time order, as a sample of its node's stack with its
/// `shares` of every metric and its time as the label `key` (`timestamp_ns`), as perf_to_profile
/// writes a perf record; whether a value had to be rounded.
fn encode_timed_samples(profile: &Profile, shares: &[Vec<f64>], key: i64, bytes: &mut Vec<u8>) -> bool {
    let tree = &profile.tree;
    let mut rounded = false;
    let (mut sample, mut stack) = (Sample::default(), Vec::new());
    let timed = profile.timeline.iter().flat_map(|t| t.samples());
    for (i, timed) in timed.enumerate() {
        sample.value.clear();
        sample.value.extend(shares.iter().map(|metric| whole(metric[i], &mut rounded)));
        // Location ids are frame ids + 1, leaf first.
        tree.frames_up(timed.node, &mut stack);
        sample.location_id.clear();
        sample.location_id.extend(stack.iter().map(|frame| u64::from(frame.0) + 1));
        sample.label.clear();
        sample.label.push(proto::Label { key, str: 0, num: timed.time, num_unit: 0 });
        prost::encoding::message::encode(SAMPLE_FIELD, &sample, bytes);
    }
    rounded
}

/// pprof's name of a unit: counts are `count`.
fn unit_name(unit: Unit) -> &'static str {
    super::shared::unit_word(unit).unwrap_or("count")
}

/// The string table: index 0 is the empty string, each string once.
struct Strings(StringTable);

impl Default for Strings {
    fn default() -> Strings {
        Strings(StringTable::of(vec![String::new()]))
    }
}

impl Strings {
    fn index(&mut self, text: &str) -> i64 {
        self.0.number(text) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_input_is_sniffed_by_its_fields() {
        // sample_type {1, 2}, then a string table entry cut off by the end of the head.
        let head = [&[0x0a, 4, 0x08, 1, 0x10, 2][..], &[0x0a, 4, 0x08, 3, 0x10, 4], &[0x60, 5], &[0x32, 200, 1, b'a']]
            .concat();
        assert!(profile_fields(&head));
        assert!(!profile_fields(b"main;work 12\nmain 3\n"));
        assert!(!profile_fields(b"LispWorks Profiler Tree"));
    }
}
