//! OTLP/JSON: protobuf's JSON mapping of a request with OTLP's exceptions (lowerCamelCase keys, the
//! snake_case names read too; 64-bit integers as decimal strings, numbers read too; trace, span and
//! profile ids in hex, not base64; enums as integers), read into and written from the messages of
//! [`super::proto`], so that both encodings share one reader and one writer.

use super::proto::{self, AnyValue, Value as Any};
use super::read::{self, Part};
use super::{CARRIES, JSON_FORMAT, RULES};
use crate::diag::Diagnostics;
use crate::error::{Error, ParseError, ParseErrorKind};
use crate::formats::json;
use crate::formats::spec::{JsonKind, Reads, Spec, Writes};
use crate::model::Profile;
use serde_json::{json, Map, Value};

/// The OTLP/JSON encoding: what it is, how it is told and read and written.
pub(crate) const SPEC: Spec = Spec {
    name: "otlp-json",
    description: "OpenTelemetry profiles in OTLP/JSON (proto v1.11.0)",
    extensions: &["otlp.json"],
    carries: CARRIES,
    reads: Some(Reads::json(
        JsonKind { what: "OTLP profiles JSON", aside: " (OpenTelemetry's)", check },
        |input, _, diag| read(input, diag).map_err(Error::from),
    )),
    writes: Some(Writes {
        write: super::write_json,
        rules: RULES,
        differential: None,
    }),
};

/// `Ok` for a JSON object whose first bytes name `resourceProfiles` (or `resource_profiles`).
pub(super) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    if !head.is_object() {
        return Err("not a JSON object");
    }
    match head.mentions(b"\"resourceProfiles\"") || head.mentions(b"\"resource_profiles\"") {
        true => Ok(()),
        false => Err("no \"resourceProfiles\""),
    }
}

/// Reads an OTLP/JSON request.
pub(super) fn read(input: &mut (dyn std::io::Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, JSON_FORMAT)?;
    let text = json::text(JSON_FORMAT, &bytes)?;
    let expected = "OTLP/JSON (an ExportProfilesServiceRequest)";
    let value: Value = json::parse(JSON_FORMAT, text, expected)?;
    let request = request(&value).map_err(|(path, found)| {
        let kind = ParseErrorKind::Unexpected { expected: format!("{expected} at {path}"), found };
        json::error_at(JSON_FORMAT, &bytes, 0, kind)
    })?;
    let locate = |part: Part| {
        let at = match part {
            Part::Dictionary => json::nth_key(&bytes, "\"dictionary\"", 0),
            Part::Resource(r) => json::nth_key(&bytes, "\"scopeProfiles\"", r),
        };
        json::error_at(JSON_FORMAT, &bytes, at, ParseErrorKind::Io(std::io::Error::other(""))).position
    };
    read::read(&request, JSON_FORMAT, &locate, diag)
}

/// Why a value is not what its place holds: its JSON path and what it is.
type Wrong = (String, String);

/// The value of `key` (lowerCamelCase, or its snake_case form) of `object`, if it is there and not null.
fn get<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    let snake: String = key
        .chars()
        .flat_map(|c| match c.is_ascii_uppercase() {
            true => vec!['_', c.to_ascii_lowercase()],
            false => vec![c],
        })
        .collect();
    object.get(key).or_else(|| object.get(&snake)).filter(|v| !v.is_null())
}

/// A path's value as an object.
fn object<'v>(value: &'v Value, path: &str) -> Result<&'v Map<String, Value>, Wrong> {
    value.as_object().ok_or_else(|| (path.to_string(), format!("{} (an object was expected)", kind(value))))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The messages of the array `key` of `object` (none where it is not there), each read by `each`.
fn messages<T>(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
    each: impl Fn(&Map<String, Value>, &str) -> Result<T, Wrong>,
) -> Result<Vec<T>, Wrong> {
    let Some(value) = get(object, key) else { return Ok(Vec::new()) };
    let path = format!("{path}.{key}");
    let items = value.as_array().ok_or_else(|| (path.clone(), format!("{} (an array was expected)", kind(value))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = format!("{path}[{i}]");
            each(object_of(item, &path)?, &path)
        })
        .collect()
}

fn object_of<'v>(value: &'v Value, path: &str) -> Result<&'v Map<String, Value>, Wrong> {
    object(value, path)
}

/// An integer (a number, or a decimal string), as `T`.
fn integer<T: TryFrom<i128>>(value: &Value, path: &str) -> Result<T, Wrong> {
    let wide: Option<i128> = match value {
        Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    wide.and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| (path.to_string(), format!("{value} (an integer of its field's range was expected)")))
}

/// The integer `key` of `object`, 0 where it is not there.
fn int<T: TryFrom<i128> + Default>(object: &Map<String, Value>, key: &str, path: &str) -> Result<T, Wrong> {
    get(object, key).map_or(Ok(T::default()), |v| integer(v, &format!("{path}.{key}")))
}

/// The integers of the array `key` of `object`.
fn ints<T: TryFrom<i128>>(object: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<T>, Wrong> {
    let Some(value) = get(object, key) else { return Ok(Vec::new()) };
    let path = format!("{path}.{key}");
    let items = value.as_array().ok_or_else(|| (path.clone(), format!("{} (an array was expected)", kind(value))))?;
    items.iter().enumerate().map(|(i, v)| integer(v, &format!("{path}[{i}]"))).collect()
}

/// The string `key` of `object`, empty where it is not there.
fn string(object: &Map<String, Value>, key: &str, path: &str) -> Result<String, Wrong> {
    match get(object, key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err((format!("{path}.{key}"), format!("{} (a string was expected)", kind(v)))),
    }
}

/// The id `key` of `object`, in hex as OTLP/JSON writes ids (empty where it is not there).
fn hex_id(object: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<u8>, Wrong> {
    let text = string(object, key, path)?;
    let wrong = || (format!("{path}.{key}"), format!("{text:?} (an id in hex was expected)"));
    if text.len() % 2 != 0 {
        return Err(wrong());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(wrong))
        .collect()
}

fn request(value: &Value) -> Result<proto::Request, Wrong> {
    let o = object(value, "$")?;
    let resource_profiles = messages(o, "resourceProfiles", "$", resource_profiles)?;
    let dictionary = match get(o, "dictionary") {
        Some(d) => Some(dictionary(object(d, "$.dictionary")?, "$.dictionary")?),
        None => None,
    };
    Ok(proto::Request { resource_profiles, dictionary })
}

fn resource_profiles(o: &Map<String, Value>, path: &str) -> Result<proto::ResourceProfiles, Wrong> {
    let resource = match get(o, "resource") {
        Some(r) => {
            let path = format!("{path}.resource");
            let r = object(r, &path)?;
            let attributes = messages(r, "attributes", &path, key_value)?;
            Some(proto::Resource { attributes, dropped_attributes_count: int(r, "droppedAttributesCount", &path)? })
        }
        None => None,
    };
    Ok(proto::ResourceProfiles {
        resource,
        scope_profiles: messages(o, "scopeProfiles", path, scope_profiles)?,
        schema_url: string(o, "schemaUrl", path)?,
    })
}

fn scope_profiles(o: &Map<String, Value>, path: &str) -> Result<proto::ScopeProfiles, Wrong> {
    let scope = match get(o, "scope") {
        Some(s) => {
            let path = format!("{path}.scope");
            let s = object(s, &path)?;
            Some(proto::InstrumentationScope {
                name: string(s, "name", &path)?,
                version: string(s, "version", &path)?,
                attributes: messages(s, "attributes", &path, key_value)?,
                dropped_attributes_count: int(s, "droppedAttributesCount", &path)?,
            })
        }
        None => None,
    };
    Ok(proto::ScopeProfiles {
        scope,
        profiles: messages(o, "profiles", path, profile)?,
        schema_url: string(o, "schemaUrl", path)?,
    })
}

fn value_type(o: &Map<String, Value>, key: &str, path: &str) -> Result<Option<proto::ValueType>, Wrong> {
    let Some(v) = get(o, key) else { return Ok(None) };
    let path = format!("{path}.{key}");
    let v = object(v, &path)?;
    Ok(Some(proto::ValueType {
        type_strindex: int(v, "typeStrindex", &path)?,
        unit_strindex: int(v, "unitStrindex", &path)?,
    }))
}

fn profile(o: &Map<String, Value>, path: &str) -> Result<proto::Profile, Wrong> {
    Ok(proto::Profile {
        sample_type: value_type(o, "sampleType", path)?,
        samples: messages(o, "samples", path, sample)?,
        time_unix_nano: int(o, "timeUnixNano", path)?,
        duration_nano: int(o, "durationNano", path)?,
        period_type: value_type(o, "periodType", path)?,
        period: int(o, "period", path)?,
        profile_id: hex_id(o, "profileId", path)?,
        dropped_attributes_count: int(o, "droppedAttributesCount", path)?,
        original_payload_format: string(o, "originalPayloadFormat", path)?,
        original_payload: Vec::new(),
        attribute_indices: ints(o, "attributeIndices", path)?,
    })
}

fn sample(o: &Map<String, Value>, path: &str) -> Result<proto::Sample, Wrong> {
    Ok(proto::Sample {
        stack_index: int(o, "stackIndex", path)?,
        attribute_indices: ints(o, "attributeIndices", path)?,
        link_index: int(o, "linkIndex", path)?,
        values: ints(o, "values", path)?,
        timestamps_unix_nano: ints(o, "timestampsUnixNano", path)?,
    })
}

fn dictionary(o: &Map<String, Value>, path: &str) -> Result<proto::Dictionary, Wrong> {
    let strings = match get(o, "stringTable") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| (format!("{path}.stringTable[{i}]"), format!("{} (a string was expected)", kind(s))))
            })
            .collect::<Result<_, _>>()?,
        Some(v) => return Err((format!("{path}.stringTable"), format!("{} (an array was expected)", kind(v)))),
    };
    Ok(proto::Dictionary {
        mapping_table: messages(o, "mappingTable", path, |m, path| {
            Ok(proto::Mapping {
                memory_start: int(m, "memoryStart", path)?,
                memory_limit: int(m, "memoryLimit", path)?,
                file_offset: int(m, "fileOffset", path)?,
                filename_strindex: int(m, "filenameStrindex", path)?,
                attribute_indices: ints(m, "attributeIndices", path)?,
            })
        })?,
        location_table: messages(o, "locationTable", path, |l, path| {
            Ok(proto::Location {
                mapping_index: int(l, "mappingIndex", path)?,
                address: int(l, "address", path)?,
                lines: messages(l, "lines", path, |line, path| {
                    Ok(proto::Line {
                        function_index: int(line, "functionIndex", path)?,
                        line: int(line, "line", path)?,
                        column: int(line, "column", path)?,
                    })
                })?,
                attribute_indices: ints(l, "attributeIndices", path)?,
            })
        })?,
        function_table: messages(o, "functionTable", path, |f, path| {
            Ok(proto::Function {
                name_strindex: int(f, "nameStrindex", path)?,
                system_name_strindex: int(f, "systemNameStrindex", path)?,
                filename_strindex: int(f, "filenameStrindex", path)?,
                start_line: int(f, "startLine", path)?,
            })
        })?,
        link_table: messages(o, "linkTable", path, |l, path| {
            Ok(proto::Link { trace_id: hex_id(l, "traceId", path)?, span_id: hex_id(l, "spanId", path)? })
        })?,
        string_table: strings,
        attribute_table: messages(o, "attributeTable", path, |a, path| {
            Ok(proto::KeyValueAndUnit {
                key_strindex: int(a, "keyStrindex", path)?,
                value: any_value_of(a, path)?,
                unit_strindex: int(a, "unitStrindex", path)?,
            })
        })?,
        stack_table: messages(o, "stackTable", path, |s, path| {
            Ok(proto::Stack { location_indices: ints(s, "locationIndices", path)? })
        })?,
    })
}

fn key_value(o: &Map<String, Value>, path: &str) -> Result<proto::KeyValue, Wrong> {
    Ok(proto::KeyValue {
        key: string(o, "key", path)?,
        value: any_value_of(o, path)?,
        key_strindex: int(o, "keyStrindex", path)?,
    })
}

/// The `value` of `o`, an AnyValue.
fn any_value_of(o: &Map<String, Value>, path: &str) -> Result<Option<AnyValue>, Wrong> {
    let Some(v) = get(o, "value") else { return Ok(None) };
    any_value(object(v, &format!("{path}.value"))?, &format!("{path}.value")).map(Some)
}

fn any_value(o: &Map<String, Value>, path: &str) -> Result<AnyValue, Wrong> {
    let value = if let Some(v) = get(o, "stringValue") {
        Some(Any::String(v.as_str().unwrap_or_default().to_string()))
    } else if let Some(v) = get(o, "boolValue") {
        Some(Any::Bool(v.as_bool().unwrap_or_default()))
    } else if get(o, "intValue").is_some() {
        Some(Any::Int(int(o, "intValue", path)?))
    } else if let Some(v) = get(o, "doubleValue") {
        Some(Any::Double(v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or_default()))
    } else if let Some(v) = get(o, "arrayValue") {
        let path = format!("{path}.arrayValue");
        Some(Any::Array(proto::ArrayValue { values: messages(object(v, &path)?, "values", &path, any_value)? }))
    } else if let Some(v) = get(o, "kvlistValue") {
        let path = format!("{path}.kvlistValue");
        Some(Any::KvList(proto::KeyValueList { values: messages(object(v, &path)?, "values", &path, key_value)? }))
    } else if get(o, "stringValueStrindex").is_some() {
        Some(Any::StringIndex(int(o, "stringValueStrindex", path)?))
    } else {
        get(o, "bytesValue").map(|_| Any::Bytes(Vec::new()))
    };
    Ok(AnyValue { value })
}

/// `request` as OTLP/JSON: default values left out, as protobuf's JSON mapping leaves them.
pub(super) fn to_json(request: &proto::Request) -> Value {
    let mut o = Map::new();
    let resources: Vec<Value> = request.resource_profiles.iter().map(resource_json).collect();
    put(&mut o, "resourceProfiles", Value::Array(resources));
    if let Some(d) = &request.dictionary {
        put(&mut o, "dictionary", dictionary_json(d));
    }
    Value::Object(o)
}

/// Puts `value` as `key` of `o` unless it is a default (0, "", false, [], {}).
fn put(o: &mut Map<String, Value>, key: &str, value: Value) {
    let default = match &value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty() || s == "0",
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    };
    if !default {
        o.insert(key.to_string(), value);
    }
}

fn object_from(fields: Vec<(&str, Value)>) -> Value {
    let mut o = Map::new();
    fields.into_iter().for_each(|(k, v)| put(&mut o, k, v));
    Value::Object(o)
}

fn resource_json(r: &proto::ResourceProfiles) -> Value {
    let resource = r.resource.as_ref().map(|res| {
        object_from(vec![("attributes", Value::Array(res.attributes.iter().map(key_value_json).collect()))])
    });
    let scopes = r.scope_profiles.iter().map(|s| {
        let scope = s.scope.as_ref().map(|scope| {
            object_from(vec![
                ("name", json!(scope.name)),
                ("version", json!(scope.version)),
                ("attributes", Value::Array(scope.attributes.iter().map(key_value_json).collect())),
            ])
        });
        object_from(vec![
            ("scope", scope.unwrap_or(Value::Null)),
            ("profiles", Value::Array(s.profiles.iter().map(profile_json).collect())),
            ("schemaUrl", json!(s.schema_url)),
        ])
    });
    object_from(vec![
        ("resource", resource.unwrap_or(Value::Null)),
        ("scopeProfiles", Value::Array(scopes.collect())),
        ("schemaUrl", json!(r.schema_url)),
    ])
}

fn value_type_json(v: &Option<proto::ValueType>) -> Value {
    match v {
        Some(v) => {
            object_from(vec![("typeStrindex", json!(v.type_strindex)), ("unitStrindex", json!(v.unit_strindex))])
        }
        None => Value::Null,
    }
}

fn profile_json(p: &proto::Profile) -> Value {
    let samples = p.samples.iter().map(|s| {
        object_from(vec![
            ("stackIndex", json!(s.stack_index)),
            ("attributeIndices", json!(s.attribute_indices)),
            ("linkIndex", json!(s.link_index)),
            ("values", Value::Array(s.values.iter().map(|v| json!(v.to_string())).collect())),
            ("timestampsUnixNano", Value::Array(s.timestamps_unix_nano.iter().map(|v| json!(v.to_string())).collect())),
        ])
    });
    object_from(vec![
        ("sampleType", value_type_json(&p.sample_type)),
        ("samples", Value::Array(samples.collect())),
        ("timeUnixNano", json!(p.time_unix_nano.to_string())),
        ("durationNano", json!(p.duration_nano.to_string())),
        ("periodType", value_type_json(&p.period_type)),
        ("period", json!(p.period.to_string())),
        ("attributeIndices", json!(p.attribute_indices)),
    ])
}

fn dictionary_json(d: &proto::Dictionary) -> Value {
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let all = |items: Vec<Value>| Value::Array(items);
    object_from(vec![
        (
            "mappingTable",
            all(d
                .mapping_table
                .iter()
                .map(|m| {
                    object_from(vec![
                        ("memoryStart", json!(m.memory_start.to_string())),
                        ("memoryLimit", json!(m.memory_limit.to_string())),
                        ("fileOffset", json!(m.file_offset.to_string())),
                        ("filenameStrindex", json!(m.filename_strindex)),
                        ("attributeIndices", json!(m.attribute_indices)),
                    ])
                })
                .collect()),
        ),
        (
            "locationTable",
            all(d
                .location_table
                .iter()
                .map(|l| {
                    object_from(vec![
                        ("mappingIndex", json!(l.mapping_index)),
                        ("address", json!(l.address.to_string())),
                        (
                            "lines",
                            all(l
                                .lines
                                .iter()
                                .map(|line| {
                                    object_from(vec![
                                        ("functionIndex", json!(line.function_index)),
                                        ("line", json!(line.line.to_string())),
                                        ("column", json!(line.column.to_string())),
                                    ])
                                })
                                .collect()),
                        ),
                        ("attributeIndices", json!(l.attribute_indices)),
                    ])
                })
                .collect()),
        ),
        (
            "functionTable",
            all(d
                .function_table
                .iter()
                .map(|f| {
                    object_from(vec![
                        ("nameStrindex", json!(f.name_strindex)),
                        ("systemNameStrindex", json!(f.system_name_strindex)),
                        ("filenameStrindex", json!(f.filename_strindex)),
                        ("startLine", json!(f.start_line.to_string())),
                    ])
                })
                .collect()),
        ),
        (
            "linkTable",
            all(d
                .link_table
                .iter()
                .map(|l| object_from(vec![("traceId", json!(hex(&l.trace_id))), ("spanId", json!(hex(&l.span_id)))]))
                .collect()),
        ),
        ("stringTable", json!(d.string_table)),
        (
            "attributeTable",
            all(d
                .attribute_table
                .iter()
                .map(|a| {
                    object_from(vec![
                        ("keyStrindex", json!(a.key_strindex)),
                        ("value", a.value.as_ref().map_or(Value::Null, any_value_json)),
                        ("unitStrindex", json!(a.unit_strindex)),
                    ])
                })
                .collect()),
        ),
        (
            "stackTable",
            all(d
                .stack_table
                .iter()
                .map(|s| object_from(vec![("locationIndices", json!(s.location_indices))]))
                .collect()),
        ),
    ])
}

fn key_value_json(kv: &proto::KeyValue) -> Value {
    object_from(vec![
        ("key", json!(kv.key)),
        ("value", kv.value.as_ref().map_or(Value::Null, any_value_json)),
        ("keyStrindex", json!(kv.key_strindex)),
    ])
}

fn any_value_json(v: &AnyValue) -> Value {
    let mut o = Map::new();
    match &v.value {
        Some(Any::String(s)) => o.insert("stringValue".into(), json!(s)),
        Some(Any::Bool(b)) => o.insert("boolValue".into(), json!(b)),
        Some(Any::Int(i)) => o.insert("intValue".into(), json!(i.to_string())),
        Some(Any::Double(d)) => o.insert("doubleValue".into(), json!(d)),
        Some(Any::StringIndex(i)) => o.insert("stringValueStrindex".into(), json!(i)),
        Some(Any::Array(a)) => {
            o.insert("arrayValue".into(), json!({"values": a.values.iter().map(any_value_json).collect::<Vec<_>>()}))
        }
        Some(Any::KvList(l)) => {
            o.insert("kvlistValue".into(), json!({"values": l.values.iter().map(key_value_json).collect::<Vec<_>>()}))
        }
        Some(Any::Bytes(_)) | None => None,
    };
    Value::Object(o)
}
