//! The OTLP reader: a decoded request (from protobuf or OTLP/JSON) into the model (the rules are in
//! the module comment of [`super`]).

use super::proto::{self, AnyValue, Dictionary, Value as Any};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::kit::sample_types::{self, clamp_negative, metric_of, sampling_of, warn_defined_twice, LocationLine};
use crate::formats::kit::time::format_time;
use crate::formats::shared::{unique_name, weigh_by};
use crate::formats::stacks::StackTree;
use crate::model::{
    FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, TimedSample, Timeline, Unit, Value,
};
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;

/// The part of a request an error is in, for its position: the dictionary, or a resource's profiles.
#[derive(Clone, Copy)]
pub(super) enum Part {
    Dictionary,
    Resource(usize),
}

/// Where each part of the request is in the input.
pub(super) type Locate<'a> = &'a dyn Fn(Part) -> Position;

/// Reads `request` into a profile: `locate` places its errors.
pub(super) fn read(
    request: &proto::Request,
    format: FormatName,
    locate: Locate<'_>,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let empty = Dictionary::default();
    let dictionary = request.dictionary.as_ref().unwrap_or(&empty);
    let mut reader = Reader { dictionary, format, locate, diag };
    reader.read(request)
}

/// A profile's metric and what its values are multiplied by (seconds become milliseconds).
type Column = (usize, i64);

/// A profile of the request with where it is (`resource_profiles[r].scope_profiles[s].profiles[p]`).
struct Found<'r> {
    profile: &'r proto::Profile,
    resource: usize,
    path: String,
}

struct Reader<'r, 'd> {
    dictionary: &'r Dictionary,
    format: FormatName,
    locate: Locate<'r>,
    diag: &'d mut Diagnostics,
}

impl<'r> Reader<'r, '_> {
    /// The header or frame fact `name`, under OTLP's name in either encoding
    /// (`otlp.resource.service.name`).
    fn fact(&self, name: &str) -> String {
        format!("{}.{name}", super::NAME)
    }

    fn error(&self, part: Part, expected: String, found: String) -> ParseError {
        ParseError {
            format: self.format,
            position: (self.locate)(part),
            kind: ParseErrorKind::Unexpected { expected, found },
        }
    }

    /// Entry `index` of the dictionary's table `table` (`items`), for `what` (a path) in `part`;
    /// index 0 is the zero value, present or not.
    fn entry<'t, T>(
        &self,
        items: &'t [T],
        index: i32,
        table: &str,
        part: Part,
        what: impl FnOnce() -> String,
    ) -> Result<Option<&'t T>, ParseError> {
        if index == 0 && items.is_empty() {
            return Ok(None);
        }
        match usize::try_from(index).ok().and_then(|i| items.get(i)) {
            Some(item) => Ok(Some(item)),
            None => Err(self.error(
                part,
                format!("indices of dictionary.{table} from 0 to {}", items.len().saturating_sub(1)),
                format!("{index} as {}", what()),
            )),
        }
    }

    /// String `index` of the string table, for `what` in `part`.
    fn string(&self, index: i32, part: Part, what: impl FnOnce() -> String) -> Result<&'r str, ParseError> {
        let table = &self.dictionary.string_table;
        Ok(self.entry(table, index, "string_table", part, what)?.map_or("", String::as_str))
    }

    fn read(&mut self, request: &'r proto::Request) -> Result<Profile, ParseError> {
        let found = profiles(request);
        let (metrics, of_profile) = self.metrics(&found)?;
        let first_metric = of_profile.first().map(|&(m, _)| m);
        let mut profile = Profile::new(metrics);
        if let Some(metric) = first_metric {
            weigh_by(&mut profile, metric);
        }
        self.meta(request, &found, &mut profile)?;
        let locations = self.locations(&mut profile)?;
        self.samples(&found, &of_profile, &locations, &mut profile)?;
        warn_original_payloads(&found, self.diag);
        Ok(profile)
    }

    /// A metric per sample type (profiles of one type and unit are added up), and each profile's
    /// metric and what its values are multiplied by; each metric's sampling from its period.
    fn metrics(&mut self, found: &[Found<'r>]) -> Result<(Vec<Metric>, Vec<Column>), ParseError> {
        let mut metrics: Vec<Metric> = Vec::new();
        let mut types: Vec<(&str, &str)> = Vec::new();
        let (mut unknown, mut added) = (Vec::new(), Vec::new());
        let mut of_profile = Vec::new();
        for f in found {
            let part = Part::Resource(f.resource);
            let st = f.profile.sample_type.clone().unwrap_or_default();
            let name = self.string(st.type_strindex, part, || format!("{}.sample_type.type_strindex", f.path))?;
            let unit = self.string(st.unit_strindex, part, || format!("{}.sample_type.unit_strindex", f.path))?;
            let (kind, model_unit, scale) = metric_of(name, unit).unwrap_or_else(|| {
                unknown.push(format!("{name} ({unit})"));
                (MetricKind::Events, Unit::Count, 1)
            });
            if let Some(m) = types.iter().position(|&t| t == (name, unit)) {
                added.push(format!("{name} ({unit})"));
                of_profile.push((m, scale));
                continue;
            }
            let taken = |candidate: &str| metrics.iter().any(|m| m.name == candidate);
            let shown = if name.is_empty() { "samples" } else { name };
            let shown = if taken(shown) { unique_name(format!("{shown} ({unit})"), taken) } else { shown.to_string() };
            of_profile.push((metrics.len(), scale));
            types.push((name, unit));
            metrics.push(Metric::new(shown, kind, model_unit, Repr::Int));
        }
        if !unknown.is_empty() {
            self.diag.warn("otlp-unit", None, || {
                format!(
                    "sample types of units proftool does not know, read as counts of events of their name: {}",
                    unknown.join(", ")
                )
            });
        }
        if !added.is_empty() {
            self.diag.warn("otlp-same-type", None, || {
                format!("several profiles of one sample type, added up as one metric: {}", added.join(", "))
            });
        }
        let period = match found.first() {
            Some(f) => self.period(f)?,
            None => None,
        };
        let sampling = sampling_of(&metrics, period, None);
        metrics.iter_mut().zip(sampling).for_each(|(metric, sampling)| metric.sampling = sampling);
        Ok((metrics, of_profile))
    }

    /// A profile's `period_type` (type and unit) and `period`, where it has one.
    fn period(&self, f: &Found<'r>) -> Result<Option<(&'r str, &'r str, i64)>, ParseError> {
        let Some(pt) = &f.profile.period_type else { return Ok(None) };
        let part = Part::Resource(f.resource);
        let name = self.string(pt.type_strindex, part, || format!("{}.period_type.type_strindex", f.path))?;
        let unit = self.string(pt.unit_strindex, part, || format!("{}.period_type.unit_strindex", f.path))?;
        Ok(Some((name, unit, f.profile.period)).filter(|(name, unit, _)| !name.is_empty() || !unit.is_empty()))
    }

    /// The timestamp (the earliest `time_unix_nano`), interval (a period of time), title (the
    /// comments pprof's translator keeps as attributes) and header facts: resource, scope and
    /// profile attributes, the duration, a period that is no time.
    fn meta(
        &mut self,
        request: &'r proto::Request,
        found: &[Found<'r>],
        profile: &mut Profile,
    ) -> Result<(), ParseError> {
        let mut attrs: Vec<(String, String)> = Vec::new();
        let mut push = |key: String, value: String| {
            if !attrs.iter().any(|(k, _)| *k == key) {
                attrs.push((key, value));
            }
        };
        for (r, resource) in request.resource_profiles.iter().enumerate() {
            let part = Part::Resource(r);
            for kv in resource.resource.iter().flat_map(|res| &res.attributes) {
                let (key, value) = self.key_value(kv, part)?;
                push(self.fact(&format!("{}{key}", super::RESOURCE)), value);
            }
            for scope in resource.scope_profiles.iter().filter_map(|s| s.scope.as_ref()) {
                for kv in &scope.attributes {
                    let (key, value) = self.key_value(kv, part)?;
                    push(self.fact(&format!("{}{key}", super::SCOPE)), value);
                }
            }
        }
        let mut comments: Vec<(u32, String)> = Vec::new();
        for f in found {
            let part = Part::Resource(f.resource);
            for &a in &f.profile.attribute_indices {
                let (key, value) = self.attribute(a, part, || format!("{}.attribute_indices", f.path))?;
                match key.strip_prefix(super::COMMENT).and_then(|n| n.parse().ok()) {
                    Some(n) if !comments.iter().any(|(m, _)| *m == n) => comments.push((n, value)),
                    Some(_) => {}
                    None => push(self.fact(&format!("{}{key}", super::PROFILE)), value),
                }
            }
        }
        comments.sort();
        let meta = &mut profile.meta;
        meta.title =
            (!comments.is_empty()).then(|| comments.into_iter().map(|(_, c)| c).collect::<Vec<_>>().join("\n"));
        let time = found.iter().map(|f| f.profile.time_unix_nano).filter(|&t| t != 0).min();
        meta.timestamp = time.and_then(|t| i64::try_from(t).ok()).map(format_time);
        if let Some(duration) = found.iter().map(|f| f.profile.duration_nano).max().filter(|&d| d != 0) {
            push(crate::model::DURATION.to_string(), duration.to_string());
        }
        if let Some(period) = match found.first() {
            Some(f) => self.period(f)?,
            None => None,
        } {
            let (interval, facts) = sample_types::period_facts(period);
            profile.meta.interval = interval;
            facts.into_iter().for_each(|(key, value)| push(key, value));
        }
        profile.meta.attrs.extend(attrs);
        Ok(())
    }

    /// A resource attribute's key (its text, else its string index) and value as text.
    fn key_value(&self, kv: &'r proto::KeyValue, part: Part) -> Result<(String, String), ParseError> {
        let key = match kv.key.is_empty() {
            true => self.string(kv.key_strindex, part, || "a resource attribute's key_strindex".into())?,
            false => kv.key.as_str(),
        };
        Ok((key.to_string(), self.value_text(kv.value.as_ref(), part)?))
    }

    /// Attribute `index` of the attribute table: its key and its value as text (with its unit).
    fn attribute(&self, index: i32, part: Part, what: impl FnOnce() -> String) -> Result<(String, String), ParseError> {
        let table = &self.dictionary.attribute_table;
        let Some(a) = self.entry(table, index, "attribute_table", part, what)? else {
            return Ok((String::new(), String::new()));
        };
        let key = self.string(a.key_strindex, part, || format!("the key of dictionary.attribute_table[{index}]"))?;
        let unit = self.string(a.unit_strindex, part, || format!("the unit of dictionary.attribute_table[{index}]"))?;
        let value = self.value_text(a.value.as_ref(), part)?;
        let value = if unit.is_empty() { value } else { format!("{value} {unit}") };
        Ok((key.to_string(), value))
    }

    /// An attribute's value as text: a string as it is, numbers and booleans as JSON writes them,
    /// bytes in hex, arrays and lists as JSON.
    fn value_text(&self, value: Option<&'r AnyValue>, part: Part) -> Result<String, ParseError> {
        let Some(value) = value.and_then(|v| v.value.as_ref()) else { return Ok(String::new()) };
        Ok(match value {
            Any::String(s) => s.clone(),
            Any::StringIndex(i) => self.string(*i, part, || "an attribute's string_value_strindex".into())?.to_string(),
            Any::Bool(b) => b.to_string(),
            Any::Int(i) => i.to_string(),
            Any::Double(d) => d.to_string(),
            Any::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
            Any::Array(a) => {
                let items: Vec<String> =
                    a.values.iter().map(|v| self.value_text(Some(v), part)).collect::<Result<_, _>>()?;
                format!("[{}]", items.join(", "))
            }
            Any::KvList(l) => {
                let items: Vec<String> = l
                    .values
                    .iter()
                    .map(|kv| self.key_value(kv, part).map(|(k, v)| format!("{k}: {v}")))
                    .collect::<Result<_, _>>()?;
                format!("{{{}}}", items.join(", "))
            }
        })
    }

    /// Fills `path` with the frames of stack `s` of the stack table, root first: each stack is
    /// resolved where a sample refers to it, not held (the table holds every stack whole already).
    fn stack(&self, s: usize, locations: &[Vec<FrameId>], path: &mut Vec<FrameId>) -> Result<(), ParseError> {
        let Some(stack) = self.dictionary.stack_table.get(s) else { return Ok(()) };
        for (j, &l) in stack.location_indices.iter().enumerate().rev() {
            match usize::try_from(l).ok().and_then(|l| locations.get(l)) {
                Some(location) => path.extend_from_slice(location),
                None => {
                    let what = || format!("dictionary.stack_table[{s}].location_indices[{j}]");
                    self.entry(&self.dictionary.location_table, l, "location_table", Part::Dictionary, what)?;
                }
            }
        }
        Ok(())
    }

    /// Every location's frames, root first (its lines are inlined calls, innermost first).
    fn locations(&mut self, profile: &mut Profile) -> Result<Vec<Vec<FrameId>>, ParseError> {
        let dictionary = self.dictionary;
        let mut conflicts = BTreeSet::new();
        let mut locations = Vec::with_capacity(dictionary.location_table.len());
        for (l, location) in dictionary.location_table.iter().enumerate() {
            let what = || format!("the mapping_index of dictionary.location_table[{l}]");
            let mapping =
                self.entry(&dictionary.mapping_table, location.mapping_index, "mapping_table", Part::Dictionary, what)?;
            let module = match mapping {
                Some(m) => Some(self.string(m.filename_strindex, Part::Dictionary, || {
                    format!("the file of mapping {}", location.mapping_index)
                })?),
                None => None,
            }
            .filter(|f| !f.is_empty());
            let mut frames = Vec::with_capacity(location.lines.len().max(1));
            if location.lines.is_empty() && l != 0 {
                let name = format!("{:#x}", location.address);
                frames.push(profile.frames.intern(FrameRef { module, ..FrameRef::function(&name) }));
            }
            for (k, line) in location.lines.iter().enumerate().rev() {
                frames.push(self.frame(profile, (l, k), module, line, &mut conflicts)?);
            }
            locations.push(frames);
        }
        warn_defined_twice(self.diag, "otlp-defined-twice", conflicts);
        Ok(locations)
    }

    /// The frame of line `k` of location `l`: as pprof's reader makes it (its function's name, else
    /// system name; its function's file as its module, else the mapping's file; a line frame where
    /// the line is not the function's start line; where it is defined; the mapping where it is not
    /// the module).
    fn frame(
        &self,
        profile: &mut Profile,
        (l, k): (usize, usize),
        module: Option<&str>,
        line: &proto::Line,
        conflicts: &mut BTreeSet<String>,
    ) -> Result<FrameId, ParseError> {
        let at = Part::Dictionary;
        let here = || format!("dictionary.location_table[{l}].lines[{k}].function_index");
        let function = self.entry(&self.dictionary.function_table, line.function_index, "function_table", at, here)?;
        let function = function.cloned().unwrap_or_default();
        let f = line.function_index;
        let mut name =
            self.string(function.name_strindex, at, || format!("the name of dictionary.function_table[{f}]"))?;
        if name.is_empty() {
            name = self.string(function.system_name_strindex, at, || {
                format!("the system name of dictionary.function_table[{f}]")
            })?;
        }
        let file =
            self.string(function.filename_strindex, at, || format!("the file of dictionary.function_table[{f}]"))?;
        let number = |n: i64, what: &str| {
            u32::try_from(n).map_err(|_| {
                self.error(
                    at,
                    format!("{what} from 0 to {}", u32::MAX),
                    format!("{n} in dictionary.location_table[{l}].lines[{k}]"),
                )
            })
        };
        let start = number(function.start_line, "start lines")?;
        let line_number = number(line.line, "line numbers")?;
        let column = number(line.column, "columns")?;
        let line = LocationLine { name, file, start, line: line_number, column, module };
        // The mapping, where the module does not say it (none is no fact: the module is then the
        // function's file, which is written back as such).
        let mapping = module.filter(|&m| line.source().is_some_and(|s| s != m));
        let mapping = mapping.map(|mapping| (sample_types::MAPPING.to_string(), mapping.to_string()));
        let frame = line.frame(profile, mapping, conflicts);
        Ok(frame)
    }

    /// Adds every sample's value (the sum of its values, else one per timestamp) to the node of its
    /// stack, in its profile's metric.
    fn samples(
        &mut self,
        found: &[Found<'r>],
        of_profile: &[Column],
        locations: &[Vec<FrameId>],
        profile: &mut Profile,
    ) -> Result<(), ParseError> {
        let mut tree = StackTree::default();
        let (mut dropped, mut links) = (BTreeSet::new(), 0usize);
        let mut touched: FxHashSet<NodeId> = FxHashSet::default();
        // The first profile's samples at their times (every profile's are the same observations).
        let mut timed = Vec::new();
        for (p, (f, &(metric, scale))) in found.iter().zip(of_profile).enumerate() {
            let part = Part::Resource(f.resource);
            for (i, sample) in f.profile.samples.iter().enumerate() {
                let what = || format!("{}.samples[{i}].stack_index", f.path);
                let stack = usize::try_from(sample.stack_index).ok().filter(|&s| s < self.dictionary.stack_table.len());
                if stack.is_none() {
                    self.entry(&self.dictionary.stack_table, sample.stack_index, "stack_table", part, what)?;
                }
                for &a in &sample.attribute_indices {
                    let (key, _) = self.attribute(a, part, || format!("{}.samples[{i}].attribute_indices", f.path))?;
                    dropped.insert(key);
                }
                if sample.link_index != 0 {
                    let what = || format!("{}.samples[{i}].link_index", f.path);
                    self.entry(&self.dictionary.link_table, sample.link_index, "link_table", part, what)?;
                    links += 1;
                }
                let value = match sample.values.is_empty() {
                    true => sample.timestamps_unix_nano.len() as i64,
                    false => sample.values.iter().fold(0i64, |sum, &v| sum.saturating_add(v)),
                };
                let value = value.checked_mul(scale).ok_or_else(|| {
                    self.error(
                        part,
                        "values that fit 64 bits in milliseconds".into(),
                        format!("{value} seconds in {}.samples[{i}]", f.path),
                    )
                })?;
                let path = tree.next();
                if let Some(stack) = stack {
                    self.stack(stack, locations, path)?;
                }
                if path.is_empty() {
                    path.push(profile.frames.intern(FrameRef::named(NO_LOCATION, FrameKind::Pseudo)));
                }
                let Some(node) = tree.add(&mut profile.tree) else { continue };
                if p == 0 {
                    timed.extend(timed_samples(sample, node));
                }
                profile.tree.add_self(metric, node, Value::Int(value));
                if value < 0 {
                    touched.insert(node);
                }
            }
        }
        let clamped = clamp_negative(profile, touched);
        if clamped > 0 {
            self.diag.warn("otlp-negative", None, || format!("{clamped} negative self values read as 0"));
        }
        profile.timeline = Timeline::new(timed, None);
        if !dropped.is_empty() {
            let keys: Vec<String> = dropped.into_iter().collect();
            self.diag.warn("otlp-attributes", None, || format!("sample attributes dropped: {}", keys.join(", ")));
        }
        if links > 0 {
            self.diag.warn("otlp-links", None, || format!("links of {links} samples to trace spans dropped"));
        }
        Ok(())
    }
}

/// Says that the profiles' original payloads (the profile each was converted from, kept whole in
/// `original_payload`, of the format `original_payload_format` names) are dropped: a profile is
/// read from its samples, and no target has a place for the bytes of another file.
fn warn_original_payloads(found: &[Found<'_>], diag: &mut Diagnostics) {
    let carried = |p: &proto::Profile| !(p.original_payload.is_empty() && p.original_payload_format.is_empty());
    let carrying: Vec<&proto::Profile> = found.iter().map(|f| f.profile).filter(|&p| carried(p)).collect();
    if carrying.is_empty() {
        return;
    }
    let formats: BTreeSet<&str> = carrying.iter().map(|p| p.original_payload_format.as_str()).collect();
    let formats: Vec<&str> = formats.into_iter().map(|f| if f.is_empty() { "no format named" } else { f }).collect();
    diag.warn("otlp-original-payload", None, || {
        let (count, total, formats) = (carrying.len(), found.len(), formats.join(", "));
        format!("original payloads dropped ({formats}): the profiles they were converted from, carried by {count} of {total} profiles")
    });
}

/// The frame of a sample without locations, so that its values count.
const NO_LOCATION: &str = "[no location]";

/// Every profile of the request, in order, with where it is.
fn profiles(request: &proto::Request) -> Vec<Found<'_>> {
    let mut found = Vec::new();
    for (r, resource) in request.resource_profiles.iter().enumerate() {
        for (s, scope) in resource.scope_profiles.iter().enumerate() {
            for (p, profile) in scope.profiles.iter().enumerate() {
                let path = format!("resource_profiles[{r}].scope_profiles[{s}].profiles[{p}]");
                found.push(Found { profile, resource: r, path });
            }
        }
    }
    found
}

/// A sample's observations at their times (`timestamps_unix_nano`), at `node`: each standing for
/// its value where it has one (else one).
fn timed_samples(sample: &proto::Sample, node: NodeId) -> impl Iterator<Item = TimedSample> + '_ {
    let values = (sample.values.len() == sample.timestamps_unix_nano.len()).then_some(&sample.values);
    let times = sample.timestamps_unix_nano.iter().enumerate().filter_map(|(j, &t)| Some((j, i64::try_from(t).ok()?)));
    times.map(move |(j, time)| {
        let weight = values.map_or(1, |v| v[j].clamp(1, i64::from(u32::MAX)) as u32);
        TimedSample { time, node, weight }
    })
}
