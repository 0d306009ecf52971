//! The pprof reader: a decoded `Profile` message into the model (the rules are in the module
//! comment of [`super`]).

use super::proto;
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::files::{self, DEFAULT_MAX_INPUT_SIZE};
use crate::formats::kit::sample_types::{self, clamp_negative, sampling_of, warn_defined_twice, LocationLine, CONTENTIONS};
use crate::formats::kit::wire;
use crate::formats::options::ReadOptions;
use crate::formats::shared::{unique_name, weigh_by};
use crate::formats::stacks::StackTree;
use crate::model::{
    FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, TimedSample, Timeline, Unit, Value,
};
use prost::Message;
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::io::Read;
use std::ops::Range;

/// Reads a pprof profile, gzipped or not.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| io_error(e, bytes.len()))?;
    if files::is_gzip(&bytes) {
        let limit = if options.max_input_size == 0 { DEFAULT_MAX_INPUT_SIZE } else { options.max_input_size };
        let mut raw = Vec::new();
        files::gunzip(&bytes[..], limit).read_to_end(&mut raw).map_err(|e| io_error(e, 0))?;
        bytes = raw;
    }
    // No bytes decode as a Profile with no field set, but no tool writes one: the file is empty
    // because its writer failed, and saying so beats a later "no metric to write".
    if bytes.is_empty() {
        return Err(not_a_profile(0, "nothing: the input is empty".into()));
    }
    let (tables, samples, not_utf8) = without_samples(&bytes)?;
    if let Some((n, first)) = not_utf8 {
        diag.warn("pprof-not-utf8", None, || {
            format!(
                "{n} string(s) of the string table are not UTF-8 (the first: string {first}): read with their bad bytes \
                 as U+FFFD (go tool pprof keeps the bytes)"
            )
        });
    }
    let message = proto::Profile::decode(tables.as_slice())
        .map_err(|e| not_a_profile(0, format!("bytes that do not decode as one ({e})")))?;
    Reader::new(&message, &bytes, diag).read(options, samples)
}

/// The error for bytes that are no Profile message, at byte `at`.
fn not_a_profile(at: usize, found: String) -> ParseError {
    ParseError {
        format: FORMAT,
        position: Position::byte(at as u64),
        kind: ParseErrorKind::Unexpected {
            expected: "a protobuf Profile message (google/pprof profile.proto)".into(),
            found,
        },
    }
}

/// How many strings of a string table were not UTF-8, and the index of the first.
type NotUtf8 = (usize, usize);

/// The encoded message without its samples, which [`Reader::samples`] decodes one at a time (all of
/// them at once take several times the input's memory), how many there are, and how many strings
/// of the string table were not UTF-8 (with the first's index), re-encoded with their bad bytes
/// replaced (protobuf's `string` is UTF-8, which prost holds it to; Go's pprof writes and reads any
/// bytes, as Pyroscope's test file `invalid_utf8.pb.gz` has them); or an error where a field does
/// not parse.
pub(super) fn without_samples(bytes: &[u8]) -> Result<(Vec<u8>, usize, Option<NotUtf8>), ParseError> {
    let (mut tables, mut samples) = (Vec::new(), 0);
    let (mut strings, mut not_utf8) = (0, None);
    for field in wire::fields(bytes) {
        let field = field.map_err(|stop| match stop {
            wire::Stop::CutShort(at) => not_a_profile(at, "a field cut short by the end of the input".into()),
            wire::Stop::Invalid(at) => not_a_profile(at, "bytes that are no protobuf field".into()),
        })?;
        match (field.number, field.wire) {
            (SAMPLE, 2) => samples += 1,
            (SAMPLE, _) => return Err(not_a_profile(field.start, "a sample that is no message".into())),
            (STRING_TABLE, 2) => {
                let text = &bytes[field.payload.clone()];
                if std::str::from_utf8(text).is_err() {
                    not_utf8.get_or_insert((0, strings)).0 += 1;
                    let text = String::from_utf8_lossy(text);
                    prost::encoding::encode_key(
                        STRING_TABLE as u32,
                        prost::encoding::WireType::LengthDelimited,
                        &mut tables,
                    );
                    prost::encoding::encode_varint(text.len() as u64, &mut tables);
                    tables.extend_from_slice(text.as_bytes());
                } else {
                    tables.extend_from_slice(&bytes[field.start..field.payload.end]);
                }
                strings += 1;
            }
            _ => tables.extend_from_slice(&bytes[field.start..field.payload.end]),
        }
    }
    Ok((tables, samples, not_utf8))
}

/// What an error points at, since prost decodes whole messages: a field of the Profile message, by
/// its number in profile.proto and its place among the fields of that number, or a byte.
#[derive(Clone, Copy)]
enum Place {
    Field { field: u64, nth: usize },
    Byte(usize),
}

const SAMPLE_TYPE: u64 = 1;
const SAMPLE: u64 = 2;
const MAPPING: u64 = 3;
const LOCATION: u64 = 4;
const FUNCTION: u64 = 5;
const PERIOD_TYPE: u64 = 11;
const COMMENT: u64 = 13;
const DEFAULT_SAMPLE_TYPE: u64 = 14;
const STRING_TABLE: u64 = 6;

/// The greatest common divisor of `a` and `b` (Euclid's); `gcd(0, b)` is `b`.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn place(field: u64, nth: usize) -> Place {
    Place::Field { field, nth }
}

fn io_error(e: std::io::Error, at: usize) -> ParseError {
    ParseError { format: FORMAT, position: Position::byte(at as u64), kind: ParseErrorKind::Io(e) }
}

/// The decoded message and its tables by id.
struct Reader<'m, 'd> {
    message: &'m proto::Profile,
    /// The encoded message, for the byte offsets of errors.
    bytes: &'m [u8],
    /// Functions by id, with their place in the message.
    functions: FxHashMap<u64, (usize, &'m proto::Function)>,
    mappings: FxHashMap<u64, (usize, &'m proto::Mapping)>,
    diag: &'d mut Diagnostics,
}

impl<'m, 'd> Reader<'m, 'd> {
    fn new(message: &'m proto::Profile, bytes: &'m [u8], diag: &'d mut Diagnostics) -> Reader<'m, 'd> {
        let functions = message.function.iter().enumerate().map(|(i, f)| (f.id, (i, f))).collect();
        let mappings = message.mapping.iter().enumerate().map(|(i, m)| (m.id, (i, m))).collect();
        Reader { message, bytes, functions, mappings, diag }
    }

    /// An error at `place`: what was expected there, and what was found.
    fn error(&self, place: Place, expected: &str, found: String) -> ParseError {
        let at = match place {
            Place::Field { field, nth } => super::field_offset(self.bytes, field, nth),
            Place::Byte(at) => at,
        };
        let position = Position::byte(at as u64);
        ParseError { format: FORMAT, position, kind: ParseErrorKind::Unexpected { expected: expected.into(), found } }
    }

    /// String `index` of the string table, for `what` at `place`.
    fn string(&self, index: i64, place: Place, what: impl FnOnce() -> String) -> Result<&'m str, ParseError> {
        let table = &self.message.string_table;
        usize::try_from(index).ok().and_then(|i| table.get(i)).map(String::as_str).ok_or_else(|| {
            self.error(
                place,
                &format!("string indices below {} (the string table's length)", table.len()),
                format!("{index} as {}", what()),
            )
        })
    }

    /// The profile, of `n_samples` samples.
    fn read(mut self, options: &ReadOptions, n_samples: usize) -> Result<Profile, ParseError> {
        let Metrics { metrics, columns, default } = self.metrics()?;
        let mut profile = Profile::new(metrics);
        if let Some(default) = default {
            weigh_by(&mut profile, default);
        }
        self.meta(&mut profile)?;
        let stacks = self.locations(&mut profile)?;
        let tags = &options.formats.get::<super::Options>().tags;
        let contentions = self.samples(&mut profile, (&stacks, n_samples), &columns, tags)?;
        if let Some(per) = contentions.filter(|&divisor| divisor > 1) {
            let sampling = sampling_of(profile.metrics(), self.period()?, Some(per));
            sampling.into_iter().enumerate().for_each(|(metric, sampling)| profile.set_sampling(metric, sampling));
        }
        Ok(profile)
    }

    /// A metric per sample type, the default one first of its kind; each metric's column: the index
    /// of its sample type and what a value is multiplied by (seconds become milliseconds); and the
    /// default's index.
    fn metrics(&mut self) -> Result<Metrics, ParseError> {
        let mut metrics: Vec<(Metric, Column)> = Vec::new();
        let mut unknown_units = Vec::new();
        for (i, t) in self.message.sample_type.iter().enumerate() {
            let name = self.string(t.r#type, place(SAMPLE_TYPE, i), || format!("the type of sample_type[{i}]"))?;
            let unit = self.string(t.unit, place(SAMPLE_TYPE, i), || format!("the unit of sample_type[{i}]"))?;
            let (kind, model_unit, scale) = sample_types::metric_of(name, unit).unwrap_or_else(|| {
                unknown_units.push(format!("{name} ({unit})"));
                (MetricKind::Events, Unit::Count, 1)
            });
            let taken = |candidate: &str| metrics.iter().any(|(m, _)| m.name == candidate);
            let name = if name.is_empty() { "samples" } else { name };
            let name = if taken(name) { unique_name(format!("{name} ({unit})"), taken) } else { name.to_string() };
            metrics.push((Metric::new(name, kind, model_unit, Repr::Int), Column { index: i, scale }));
        }
        if !unknown_units.is_empty() {
            self.diag.warn("pprof-unit", None, || {
                format!(
                    "sample types of units proftool does not know, read as counts of events of their name: {}",
                    unknown_units.join(", ")
                )
            });
        }
        let default = match self.message.default_sample_type {
            0 => None,
            index => Some(self.string(index, place(DEFAULT_SAMPLE_TYPE, 0), || "default_sample_type".into())?),
        };
        // pprof shows the default sample type, and without one the last.
        let default = match default {
            Some(name) => metrics.iter().position(|(m, _)| m.name == name),
            None => metrics.len().checked_sub(1),
        };
        let default = default.map(|default| {
            // The model's primary metric is the first of the kind the profile is weighed by.
            let kind = metrics[default].0.kind;
            let first_of_kind = metrics.iter().position(|(m, _)| m.kind == kind).unwrap_or(default);
            let moved = metrics.remove(default);
            metrics.insert(first_of_kind, moved);
            first_of_kind
        });
        let (mut metrics, columns): (Vec<Metric>, Vec<Column>) = metrics.into_iter().unzip();
        let sampling = sampling_of(&metrics, self.period()?, None);
        metrics.iter_mut().zip(sampling).for_each(|(metric, sampling)| metric.sampling = sampling);
        Ok(Metrics { metrics, columns, default })
    }

    /// The profile's `period_type` (its type and unit) and `period`, where it has one.
    fn period(&self) -> Result<Option<(&'m str, &'m str, i64)>, ParseError> {
        let Some(period_type) = &self.message.period_type else { return Ok(None) };
        let at = place(PERIOD_TYPE, 0);
        let name = self.string(period_type.r#type, at, || "the type of period_type".into())?;
        let unit = self.string(period_type.unit, at, || "the unit of period_type".into())?;
        Ok(Some((name, unit, self.message.period)))
    }

    /// The title (comments), timestamp (`time_nanos`), interval (a period of time) and the header
    /// facts the model has no field for.
    fn meta(&mut self, profile: &mut Profile) -> Result<(), ParseError> {
        let message = self.message;
        let comments: Vec<&str> = message
            .comment
            .iter()
            .enumerate()
            .map(|(i, &c)| self.string(c, place(COMMENT, i), || format!("comment[{i}]")))
            .collect::<Result<_, _>>()?;
        let meta = &mut profile.meta;
        meta.title = (!comments.is_empty()).then(|| comments.join("\n"));
        meta.timestamp = (message.time_nanos != 0).then(|| super::format_time(message.time_nanos));
        if message.duration_nanos != 0 {
            meta.attrs.push((crate::model::DURATION.into(), message.duration_nanos.to_string()));
        }
        if let Some(period) = self.period()? {
            let (interval, facts) = sample_types::period_facts(period);
            profile.meta.interval = interval;
            profile.meta.attrs.extend(facts);
        }
        Ok(())
    }

    /// Every location's frames, root first (a location's lines are inlined calls, innermost first),
    /// as ranges of one list.
    fn locations(&mut self, profile: &mut Profile) -> Result<Stacks, ParseError> {
        let mut stacks = Stacks::default();
        let mut conflicts = BTreeSet::new();
        let (mut addressed, mut inlining) = (0u64, 0u64);
        for (j, location) in self.message.location.iter().enumerate() {
            addressed += u64::from(location.address != 0 && !location.line.is_empty());
            inlining += u64::from(location.line.len() > 1);
            let start = stacks.frames.len();
            let at = place(LOCATION, j);
            let module = match location.mapping_id {
                0 => None,
                id => {
                    let &(m, mapping) = self.mappings.get(&id).ok_or_else(|| {
                        self.error(at, "mapping ids that are defined", format!("{id} in location {}", location.id))
                    })?;
                    Some(self.string(mapping.filename, place(MAPPING, m), || format!("the file of mapping {id}"))?)
                        .filter(|f| !f.is_empty())
                }
            };
            if location.line.is_empty() {
                // Not symbolised: pprof names it by its address.
                let name = format!("{:#x}", location.address);
                let frame = FrameRef { module, ..FrameRef::function(&name) };
                stacks.frames.push(profile.frames.intern(frame));
            }
            for line in location.line.iter().rev() {
                let frame = self.frame(profile, (at, location.id), module, line, &mut conflicts)?;
                stacks.frames.push(frame);
            }
            if stacks.ranges.insert(location.id, start..stacks.frames.len()).is_some() {
                return Err(self.error(at, "location ids defined once", format!("{} twice", location.id)));
            }
        }
        warn_defined_twice(self.diag, "pprof-defined-twice", conflicts);
        say_locations_not_kept(self.diag, addressed, inlining);
        Ok(stacks)
    }

    /// The frame of one line of a location: its function's name, its function's source file as its
    /// module (as `go tool pprof -lines` places a line), else the location's mapping's file, the
    /// line's number as its line (a frame at its function's own start line, or at none, is the
    /// function), where the function is defined (its file and start line), and the mapping's file
    /// where it is not the module.
    fn frame(
        &self,
        profile: &mut Profile,
        (at, location): (Place, u64),
        module: Option<&str>,
        line: &proto::Line,
        conflicts: &mut BTreeSet<String>,
    ) -> Result<FrameId, ParseError> {
        let &(f, function) = self.functions.get(&line.function_id).ok_or_else(|| {
            self.error(at, "function ids that are defined", format!("{} in location {location}", line.function_id))
        })?;
        let (id, function_at) = (function.id, place(FUNCTION, f));
        let mut name = self.string(function.name, function_at, || format!("the name of function {id}"))?;
        if name.is_empty() {
            name = self.string(function.system_name, function_at, || format!("the system name of function {id}"))?;
        }
        let file = self.string(function.filename, function_at, || format!("the file of function {id}"))?;
        let number = |n: i64, what: &str, at: Place| {
            u32::try_from(n).map_err(|_| {
                self.error(
                    at,
                    &format!("{what} from 0 to {}", u32::MAX),
                    format!("{n} in function {id} of location {location}"),
                )
            })
        };
        let start = number(function.start_line, "start lines", function_at)?;
        let line_number = number(line.line, "line numbers", at)?;
        let column = number(line.column, "columns", at)?;
        let line = LocationLine { name, file, start, line: line_number, column, module };
        // The mapping, where the module does not say it: empty for none.
        let mapping = (line.source().is_some() && line.source() != module).then(|| module.unwrap_or_default());
        let frame = line.frame(profile, mapping.map(|mapping| (sample_types::MAPPING.to_string(), mapping.to_string())), conflicts);
        Ok(frame)
    }

    /// Adds every sample's values to the node of its stack (under its tags' values, for `--tag`).
    ///
    /// Returns what each recorded event counts for in Go's block and mutex profiles (a
    /// `contentions` count): Go multiplies each event it records by the profile's rate
    /// (`SetMutexProfileFraction`) and does not write the rate. The greatest common divisor of the
    /// counts is the largest rate they agree with: the noisiest reading of them, which the gate can
    /// trust (counts 50 and 50 of a fraction of 5 are read as one event each of 50).
    fn samples(
        &mut self,
        profile: &mut Profile,
        (stacks, n_samples): (&Stacks, usize),
        columns: &[Column],
        tags: &[String],
    ) -> Result<Option<u64>, ParseError> {
        let contentions = (profile.metrics().iter().zip(columns))
            .find(|(m, _)| m.name == CONTENTIONS && m.kind == MetricKind::Events)
            .map(|(_, column)| column.index);
        let mut divisor = 0;
        let mut tree = StackTree::default();
        // Room for a node per sample to start with: a profile written from a tree has one sample per node.
        tree.reserve(&mut profile.tree, n_samples);
        // One sample decoded at a time, into the same vectors.
        let mut sample = proto::Sample::default();
        let mut dropped_labels: BTreeSet<&str> = BTreeSet::new();
        // Per tag, the frame of each value seen.
        let mut tag_frames: Vec<FxHashMap<String, FrameId>> = vec![FxHashMap::default(); tags.len()];
        let mut touched: FxHashSet<NodeId> = FxHashSet::default();
        let n_metrics = columns.len();
        // Samples taken at a time (a `timestamp_ns` label, as perf_to_profile writes it), each
        // standing for the samples its count says (else one).
        let mut timed = Vec::new();
        let sample_count = (profile.metrics().first().zip(columns.first()))
            .filter(|(metric, _)| metric.kind == MetricKind::Samples)
            .map(|(_, column)| column.index);
        let fields = wire::fields(self.bytes).map_while(Result::ok).filter(|f| f.number == SAMPLE);
        for (i, field) in fields.enumerate() {
            let at = Place::Byte(field.start);
            sample.clear();
            sample
                .merge(&self.bytes[field.payload])
                .map_err(|e| self.error(at, "a Sample message", format!("one that does not decode ({e})")))?;
            if sample.value.len() != n_metrics {
                return Err(self.error(
                    at,
                    &format!("one value per sample type ({n_metrics})"),
                    format!("{} in sample {i}", sample.value.len()),
                ));
            }
            self.stack(profile, (&sample, i, at), stacks, tags, &mut tag_frames, tree.next())?;
            let mut time = None;
            for label in &sample.label {
                let key = self.string(label.key, at, || format!("a label key of sample {i}"))?;
                if key == super::TIMESTAMP_NS && label.str == 0 {
                    time = Some(label.num);
                } else if !tags.iter().any(|t| t == key) {
                    dropped_labels.insert(key);
                }
            }
            let node = tree.add(&mut profile.tree);
            let Some(node) = node else { continue };
            if let Some(time) = time {
                let weight = sample_count.map_or(1, |column| sample.value[column].clamp(1, i64::from(u32::MAX)) as u32);
                timed.push(TimedSample { time, node, weight });
            }
            for (metric, column) in columns.iter().enumerate() {
                let value = sample.value[column.index];
                let value = value.checked_mul(column.scale).ok_or_else(|| {
                    self.error(at, "values that fit 64 bits in milliseconds", format!("{value} seconds in sample {i}"))
                })?;
                profile.tree.add_self(metric, node, Value::Int(value));
            }
            if sample.value.iter().any(|&v| v < 0) {
                touched.insert(node);
            }
            if let Some(column) = contentions {
                divisor = gcd(divisor, sample.value[column].unsigned_abs());
            }
        }
        let clamped = clamp_negative(profile, touched);
        if clamped > 0 {
            self.diag.warn("pprof-negative", None, || {
                format!("{clamped} negative self values (a difference of profiles?) read as 0")
            });
        }
        profile.timeline = Timeline::new(timed, None);
        if !dropped_labels.is_empty() {
            let keys: Vec<&str> = dropped_labels.into_iter().collect();
            self.diag.warn("pprof-labels", None, || {
                format!("sample labels dropped: {} (--tag KEY makes a label's values root frames)", keys.join(", "))
            });
        }
        Ok(contentions.map(|_| divisor))
    }

    /// Fills `path` with the frames of `sample` (number `i`, at `at`), root first: its tags' values
    /// (`--tag`), then its locations' frames (a location's inlined lines innermost last).
    fn stack(
        &self,
        profile: &mut Profile,
        (sample, i, at): (&proto::Sample, usize, Place),
        stacks: &Stacks,
        tags: &[String],
        tag_frames: &mut [FxHashMap<String, FrameId>],
        path: &mut Vec<FrameId>,
    ) -> Result<(), ParseError> {
        for (tag, frames) in tags.iter().zip(tag_frames) {
            let Some(value) = self.label_value(sample, tag, (at, i))? else { continue };
            // Looked up by the value as read: a key is made only for a value not seen before.
            let frame = match frames.get(value.as_ref()) {
                Some(&frame) => frame,
                None => {
                    let frame = profile.frames.intern(FrameRef::named(&format!("{tag}:{value}"), FrameKind::Pseudo));
                    *frames.entry(value.into_owned()).or_insert(frame)
                }
            };
            path.push(frame);
        }
        if sample.location_id.is_empty() {
            path.push(profile.frames.intern(FrameRef::named(NO_LOCATION, FrameKind::Pseudo)));
        }
        for &location in sample.location_id.iter().rev() {
            let range = stacks
                .ranges
                .get(&location)
                .ok_or_else(|| self.error(at, "location ids that are defined", format!("{location} in sample {i}")))?;
            path.extend_from_slice(&stacks.frames[range.clone()]);
        }
        Ok(())
    }

    /// The value of `sample`'s label `key` as text (`value`, or `number unit`), if it has one.
    fn label_value(
        &self,
        sample: &proto::Sample,
        key: &str,
        (at, i): (Place, usize),
    ) -> Result<Option<Cow<'m, str>>, ParseError> {
        for label in &sample.label {
            if self.string(label.key, at, || format!("a label key of sample {i}"))? != key {
                continue;
            }
            if label.str != 0 {
                let value = self.string(label.str, at, || format!("the value of label {key} of sample {i}"))?;
                return Ok(Some(Cow::Borrowed(value)));
            }
            let unit = self.string(label.num_unit, at, || format!("the unit of label {key} of sample {i}"))?;
            let number = if unit.is_empty() { label.num.to_string() } else { format!("{} {unit}", label.num) };
            return Ok(Some(Cow::Owned(number)));
        }
        Ok(None)
    }
}

/// The metrics of the sample types, each one's column, and the default one's index.
struct Metrics {
    metrics: Vec<Metric>,
    columns: Vec<Column>,
    default: Option<usize>,
}

/// Where a metric's values are in a sample: the index of its sample type, and what they are
/// multiplied by.
struct Column {
    index: usize,
    scale: i64,
}

/// The frame of a sample without locations, so that its values count.
const NO_LOCATION: &str = "[no location]";

/// The frames of every location, root first, in one list.
#[derive(Default)]
struct Stacks {
    frames: Vec<FrameId>,
    ranges: FxHashMap<u64, Range<usize>>,
}

/// Says what of the locations the model does not keep, where they hold it: their addresses (a
/// frame is a function and its line, so `go tool pprof -addresses` and `-disasm` have nothing to
/// show of a file written again) and which of their lines are inlined calls (each a frame of its
/// own, as `-lines` lists them, without its `(inline)` mark).
fn say_locations_not_kept(diag: &mut Diagnostics, addressed: u64, inlining: u64) {
    let mut parts = Vec::new();
    if addressed > 0 {
        parts.push(format!("the addresses of {addressed} locations"));
    }
    if inlining > 0 {
        parts.push(format!(
            "which frames of {inlining} locations of several lines are inlined calls (each a frame of its own)"
        ));
    }
    if !parts.is_empty() {
        diag.warn("pprof-locations", None, || format!("not kept: {}", parts.join("; ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sampling;
    use std::io::Write;

    /// Go's mutex profile counts each recorded contention as its fraction (5 here, unwritten):
    /// counts 65 and 80 of one run share 5, each of 5 events and its delay weighs 5 of them;
    /// counts that share nothing are counts of events.
    #[test]
    fn go_contentions_weigh_the_rate_their_counts_share() {
        let metrics = [
            Metric::new(CONTENTIONS, MetricKind::Events, Unit::Count, Repr::Int),
            Metric::new("delay", MetricKind::Time, Unit::Nanoseconds, Repr::Int),
        ];
        assert_eq!(gcd(gcd(0, 65), 80), 5);
        let period = Some(("contentions", "count", 1));
        let [contentions, delay] = <[Sampling; 2]>::try_from(sampling_of(&metrics, period, Some(5))).unwrap();
        assert_eq!(contentions, Sampling::Sampled { of: None, per: 5 });
        assert_eq!(delay, Sampling::Sampled { of: Some(CONTENTIONS.into()), per: 5 });
        let unscaled = sampling_of(&metrics, period, None);
        assert_eq!(unscaled, [Sampling::counts(), Sampling::weights_of(CONTENTIONS)]);
    }

    /// `bytes` gzipped.
    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(bytes).unwrap();
        gzip.finish().unwrap()
    }

    fn read_bytes(bytes: &[u8], options: &ReadOptions) -> Result<Profile, ParseError> {
        read(&mut &bytes[..], options, &mut Diagnostics::default())
    }

    /// A mutex profile of two samples of 65 and 80 contentions (a fraction of 5): each recorded
    /// event weighs 5, and the delay weighs those events; one of 7 and 9 is of events of 1.
    #[test]
    fn a_mutex_profile_s_contentions_are_read_as_events_of_their_rate() {
        let profile = |counts: [i64; 2]| {
            let strings = ["", "contentions", "count", "delay", "nanoseconds"].map(String::from).to_vec();
            let value_type = |r#type, unit| proto::ValueType { r#type, unit };
            let sample = |count| proto::Sample { value: vec![count, 1000], ..Default::default() };
            let message = proto::Profile {
                sample_type: vec![value_type(1, 2), value_type(3, 4)],
                sample: counts.map(sample).to_vec(),
                period_type: Some(value_type(1, 2)),
                period: 1,
                string_table: strings,
                ..Default::default()
            };
            let profile = read_bytes(&message.encode_to_vec(), &ReadOptions::default()).unwrap();
            profile.metrics().iter().map(|m| m.sampling.clone()).collect::<Vec<_>>()
        };
        let of_five =
            [Sampling::Sampled { of: None, per: 5 }, Sampling::Sampled { of: Some(CONTENTIONS.into()), per: 5 }];
        assert_eq!(profile([65, 80]), of_five);
        assert_eq!(profile([7, 9]), [Sampling::counts(), Sampling::weights_of(CONTENTIONS)]);
    }

    #[test]
    fn gzip_given_to_the_reader_is_decompressed_to_the_limit() {
        // A string table of "" and a thousand x's: 1,005 bytes encoded.
        let message = proto::Profile { string_table: vec![String::new(), "x".repeat(1000)], ..Default::default() };
        let zipped = gzip(&message.encode_to_vec());
        assert!(read_bytes(&zipped, &ReadOptions::default()).is_ok());
        let options = ReadOptions { max_input_size: 1000, ..ReadOptions::default() };
        let err = read_bytes(&zipped, &options).unwrap_err().to_string();
        assert!(err.contains("decompresses to more than 1000 bytes; raise the limit with --max-input-size"), "{err}");
        let err = read_bytes(&zipped[..zipped.len() - 8], &ReadOptions::default()).unwrap_err().to_string();
        assert!(err.contains("the gzip-compressed input is cut short"), "{err}");
    }
}
