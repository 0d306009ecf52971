//! The OTLP writer: a profile into one request (the rules are in the module comment of [`super`]),
//! encoded as protobuf or as OTLP/JSON.

use super::proto::{self, AnyValue, KeyValue, KeyValueAndUnit, Value as Any, ValueType};
use super::{FORMAT, PROTO_VERSION};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::kit::sample_types;
use crate::formats::kit::string_table::StringTable;
use crate::formats::kit::time::parse_time;
use crate::formats::shared::{unit_word, written_name};
use crate::model::{FrameId, Profile, TimedSample, Value};
use prost::Message;
use std::io::Write;

/// The encoding written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    Protobuf,
    Json,
}

/// Writes `profile` as one request in `encoding`.
pub(super) fn write(
    profile: &Profile,
    out: &mut dyn Write,
    encoding: Encoding,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let request = request(profile, diag);
    diag.warn("otlp-version", None, || {
        format!("written as OTLP profiles of opentelemetry-proto {PROTO_VERSION} (profiles v1development, a signal still in development)")
    });
    match encoding {
        Encoding::Protobuf => out.write_all(&request.encode_to_vec())?,
        Encoding::Json => {
            super::json::write(&request, &mut *out).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// The string table: index 0 is the empty string, each string once.
struct Strings(StringTable);

impl Strings {
    fn index(&mut self, text: &str) -> i32 {
        i32::try_from(self.0.number(text)).unwrap_or(i32::MAX)
    }
}

/// OTLP's header facts whose names start with `prefix` (`resource.`), without it: each key once,
/// the first stated, as OTLP's attributes have unique keys.
fn facts<'p>(profile: &'p Profile, prefix: &str) -> Vec<(&'p str, &'p str)> {
    let rest = |key: &'p str| key.strip_prefix(super::NAME)?.strip_prefix('.')?.strip_prefix(prefix);
    let mut keys = rustc_hash::FxHashSet::default();
    let facts = profile.meta.attrs.iter().filter_map(|(key, value)| Some((rest(key)?, value.as_str())));
    facts.filter(|&(key, _)| keys.insert(key)).collect()
}

/// The request of `profile`.
fn request(profile: &Profile, diag: &mut Diagnostics) -> proto::Request {
    let mut strings = Strings(StringTable::of(vec![String::new()]));
    // Index 0 of every table is its zero value, "one with all default field values" (the proto's
    // words): a link of empty ids, as the Collector's `AppendEmpty` writes it, not of zero bytes.
    let mut dictionary = proto::Dictionary {
        mapping_table: vec![proto::Mapping::default()],
        link_table: vec![proto::Link::default()],
        attribute_table: vec![KeyValueAndUnit::default()],
        stack_table: vec![proto::Stack::default()],
        ..proto::Dictionary::default()
    };
    frames(profile, &mut strings, &mut dictionary);
    let attribute_indices = profile_attributes(profile, &mut strings, &mut dictionary);
    let (period_type, period) = period(profile, &mut strings);
    let time_unix_nano = match profile.meta.timestamp.as_deref() {
        None => 0,
        Some(text) => parse_time(text).and_then(|t| u64::try_from(t).ok()).unwrap_or_else(|| {
            diag.warn("otlp-timestamp", None, || {
                format!("OTLP's time is nanoseconds since 1970: the timestamp {text:?} is dropped")
            });
            0
        }),
    };
    let duration_nano = profile.meta.attr(crate::model::DURATION).and_then(|d| d.parse().ok()).unwrap_or(0);
    let order = metric_order(profile);
    let (samples, rounded) = samples(profile, &order, &mut dictionary);
    if rounded {
        diag.warn("otlp-rounded", None, || "OTLP values are whole numbers: time rounded to whole nanoseconds".into());
    }
    let profiles = order
        .iter()
        .zip(samples)
        .map(|(&m, samples)| {
            let metric = &profile.metrics()[m];
            let unit = unit_word(metric.unit).unwrap_or("count");
            let sample_type =
                ValueType { type_strindex: strings.index(&metric.name), unit_strindex: strings.index(unit) };
            proto::Profile {
                sample_type: Some(sample_type),
                samples,
                time_unix_nano,
                duration_nano,
                period_type: period_type.clone(),
                period,
                attribute_indices: attribute_indices.clone(),
                ..proto::Profile::default()
            }
        })
        .collect();
    let attributes = facts(profile, super::RESOURCE).into_iter().map(|(key, value)| string_kv(key, value)).collect();
    let scope = proto::InstrumentationScope {
        name: "proftool".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        attributes: facts(profile, super::SCOPE).into_iter().map(|(key, value)| string_kv(key, value)).collect(),
        dropped_attributes_count: 0,
    };
    dictionary.string_table = strings.0.into_texts();
    proto::Request {
        resource_profiles: vec![proto::ResourceProfiles {
            resource: Some(proto::Resource { attributes, dropped_attributes_count: 0 }),
            scope_profiles: vec![proto::ScopeProfiles { scope: Some(scope), profiles, schema_url: String::new() }],
            schema_url: String::new(),
        }],
        dictionary: Some(dictionary),
    }
}

fn string_kv(key: &str, value: &str) -> KeyValue {
    KeyValue { key: key.into(), value: Some(AnyValue { value: Some(Any::String(value.into())) }), key_strindex: 0 }
}

/// The metrics written, a profile each: the one the profile is weighed by first, then the others
/// in their order; metrics that do not add up (none are projected here) are left out.
fn metric_order(profile: &Profile) -> Vec<usize> {
    let n = profile.metrics().len();
    let first = profile.primary_metric().filter(|&m| m < n);
    first.into_iter().chain((0..n).filter(|&m| Some(m) != first)).collect()
}

/// A function and a location per frame (location and function index: frame id + 1), and a mapping
/// per `mapping` file ([`sample_types::MAPPING`]).
fn frames(profile: &Profile, strings: &mut Strings, dictionary: &mut proto::Dictionary) {
    dictionary.function_table.push(proto::Function::default());
    dictionary.location_table.push(proto::Location::default());
    let mut mappings: Vec<i32> = Vec::new();
    for (id, frame) in profile.frames.iter() {
        let defined = profile.defined_at(id);
        let index = frame_index(id);
        let filename_strindex = defined.map(|at| at.file).or(frame.module.as_deref()).map_or(0, |f| strings.index(f));
        let start_line = defined.map_or(0, |at| i64::from(at.line));
        let name_strindex = strings.index(&written_name(frame));
        dictionary.function_table.push(proto::Function {
            name_strindex,
            system_name_strindex: 0,
            filename_strindex,
            start_line,
        });
        let line = proto::Line {
            function_index: index,
            line: frame.line.map_or(start_line, i64::from),
            column: frame.line.filter(|&l| i64::from(l) != start_line).and(frame.clause).map_or(0, i64::from),
        };
        let mapping = profile.frame_attr(id, sample_types::MAPPING);
        let mapping = mapping.filter(|file| !file.is_empty());
        let mapping_index = match mapping {
            None => 0,
            Some(file) => {
                let file = strings.index(file);
                match mappings.iter().position(|&m| m == file) {
                    Some(m) => m as i32 + 1,
                    None => {
                        mappings.push(file);
                        dictionary
                            .mapping_table
                            .push(proto::Mapping { filename_strindex: file, ..proto::Mapping::default() });
                        mappings.len() as i32
                    }
                }
            }
        };
        dictionary.location_table.push(proto::Location {
            mapping_index,
            address: 0,
            lines: vec![line],
            attribute_indices: Vec::new(),
        });
    }
}

/// The index of a frame's function and location.
fn frame_index(id: FrameId) -> i32 {
    i32::try_from(id.0).map_or(i32::MAX, |i| i.saturating_add(1))
}

/// The profile attributes: the title's lines as `pprof.profile.comment.N` (as the Collector's pprof
/// translator keeps pprof's comments), the `otlp.profile.…` facts.
fn profile_attributes(profile: &Profile, strings: &mut Strings, dictionary: &mut proto::Dictionary) -> Vec<i32> {
    let comments = profile.meta.title.iter().flat_map(|t| t.split('\n')).enumerate();
    let comments = comments.map(|(n, line)| (format!("{}{n}", super::COMMENT), line));
    let facts = facts(profile, super::PROFILE).into_iter().map(|(k, v)| (k.to_string(), v));
    let mut indices = Vec::new();
    for (key, value) in comments.chain(facts) {
        let value = Some(AnyValue { value: Some(Any::String(value.to_string())) });
        indices.push(dictionary.attribute_table.len() as i32);
        dictionary.attribute_table.push(KeyValueAndUnit { key_strindex: strings.index(&key), value, unit_strindex: 0 });
    }
    indices
}

/// The period type and period ([`sample_types::period_to_write`]), with the strings they name.
fn period(profile: &Profile, strings: &mut Strings) -> (Option<ValueType>, i64) {
    match sample_types::period_to_write(profile) {
        Some((name, unit, period)) => {
            (Some(ValueType { type_strindex: strings.index(name), unit_strindex: strings.index(unit) }), period)
        }
        None => (None, 0),
    }
}

/// A stack per node with a value (or a leaf) in the stack table, and per metric of `order` its
/// samples, one per such node: where the profile has a timeline, its samples' shares of the node's
/// value as values, each at its time (`timestamps_unix_nano`); whether a value had to be rounded.
fn samples(profile: &Profile, order: &[usize], dictionary: &mut proto::Dictionary) -> (Vec<Vec<proto::Sample>>, bool) {
    let tree = &profile.tree;
    let mut per_metric: Vec<Vec<proto::Sample>> = vec![Vec::new(); order.len()];
    let mut rounded = false;
    let mut whole = |value: f64| {
        rounded |= value.fract() != 0.0;
        value.round() as i64
    };
    let timed = Timed::of(profile, order);
    let stacks = tree.for_each_stack(tree.walk(), |visit, stack| {
        let values: Vec<Value> = order.iter().map(|&m| tree.self_value(m, visit.node)).collect();
        if !visit.is_leaf && values.iter().all(|v| v.as_f64() == 0.0) {
            return Ok(());
        }
        let stack_index = dictionary.stack_table.len() as i32;
        let location_indices = stack.iter().rev().map(|&frame| frame_index(frame)).collect();
        dictionary.stack_table.push(proto::Stack { location_indices });
        let at_times = timed.as_ref().map_or(&[][..], |t| &t.of_node[visit.node.index()][..]);
        for (k, (samples, value)) in per_metric.iter_mut().zip(values).enumerate() {
            let (values, timestamps_unix_nano) = match (&timed, at_times.is_empty()) {
                (Some(timed), false) => {
                    (at_times.iter().map(|&i| whole(timed.shares[k][i])).collect(), timed.times(at_times).collect())
                }
                _ => (vec![whole(value.as_f64())], Vec::new()),
            };
            samples.push(proto::Sample { stack_index, values, timestamps_unix_nano, ..proto::Sample::default() });
        }
        Ok::<(), std::convert::Infallible>(())
    });
    let Ok(()) = stacks;
    (per_metric, rounded)
}

/// Drops the timeline where one of its samples has no share of the first profile's metric (where
/// a node weighs another event only, or its value is too small to share out): a reader weighs each
/// observation by its value in the first profile, so such a file would not read back to the same
/// shares; said on stderr. (The fit keeps a timeline only where it holds every value, before.)
pub(super) fn keep_timeline_weighed_by_first(profile: &mut Profile, diag: &mut Diagnostics) {
    let (Some(timeline), Some(&first)) = (&profile.timeline, metric_order(profile).first()) else { return };
    if timeline.shares(&profile.tree, first).is_some_and(|shares| shares.iter().all(|&share| share != 0.0)) {
        return;
    }
    profile.timeline = None;
    let metric = &profile.metrics()[first].name;
    diag.warn("timeline-partial", None, || {
        format!("{FORMAT}: a sample's observations are weighed by their {metric} (the first profile), and some samples have none: the samples are written by stack, without their times")
    });
}

/// The timeline's samples as they are written: per metric of the order, each sample's share of
/// its node's value; per node, its samples in time order.
struct Timed<'p> {
    samples: &'p [TimedSample],
    shares: Vec<Vec<f64>>,
    of_node: Vec<Vec<usize>>,
}

impl<'p> Timed<'p> {
    /// `None` where the profile has no timeline (or, which the fit prevents, one that holds not
    /// every value).
    fn of(profile: &'p Profile, order: &[usize]) -> Option<Timed<'p>> {
        let timeline = profile.timeline.as_ref()?;
        let shares: Vec<Vec<f64>> = order.iter().map(|&m| timeline.shares(&profile.tree, m)).collect::<Option<_>>()?;
        let mut of_node = vec![Vec::new(); profile.tree.len()];
        timeline.samples().iter().enumerate().for_each(|(i, sample)| of_node[sample.node.index()].push(i));
        Some(Timed { samples: timeline.samples(), shares, of_node })
    }

    /// The times of `samples` (indices), as OTLP's unsigned nanoseconds.
    fn times<'a>(&'a self, samples: &'a [usize]) -> impl Iterator<Item = u64> + 'a {
        samples.iter().map(|&i| u64::try_from(self.samples[i].time).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_otlps_each_key_once() {
        let mut profile = Profile::new(Vec::new());
        for (key, value) in [
            ("otlp.resource.service.name", "first"),
            ("pprof.resource.service.name", "pprof's"),
            ("otlp.resource.service.name", "second"),
            ("duration-ns", "5"),
            ("otlp.resource.host.name", "h"),
        ] {
            profile.meta.attrs.push((key.into(), value.into()));
        }
        assert_eq!(facts(&profile, "resource."), [("service.name", "first"), ("host.name", "h")]);
    }

    #[test]
    fn index_0_of_every_table_is_its_zero_value() {
        let mut profile = Profile::new(Vec::new());
        let main = profile.frames.intern(crate::model::FrameRef::function("main"));
        profile.tree.push(None, main);
        let dictionary = request(&profile, &mut Diagnostics::default()).dictionary.unwrap_or_default();
        assert_eq!(dictionary.string_table[0], "");
        assert_eq!(dictionary.mapping_table[0], proto::Mapping::default());
        assert_eq!(dictionary.location_table[0], proto::Location::default());
        assert_eq!(dictionary.function_table[0], proto::Function::default());
        assert_eq!(dictionary.link_table[0], proto::Link::default());
        assert_eq!(dictionary.attribute_table[0], KeyValueAndUnit::default());
        assert_eq!(dictionary.stack_table[0], proto::Stack::default());
    }
}
