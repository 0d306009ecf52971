//! OTLP/JSON: protobuf's JSON mapping of a request with OTLP's exceptions (lowerCamelCase keys, the
//! snake_case names read too; 64-bit integers as decimal strings, numbers read too; trace, span and
//! profile ids in hex, not base64; enums as integers), read into and written from the messages of
//! [`super::proto`] (by [`super::de`]), so that both encodings share one reader and one writer.

use super::de;
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
    let de::Request(request) = json::parse(JSON_FORMAT, text, expected)?;
    let locate = |part: Part| {
        let at = match part {
            Part::Dictionary => json::nth_key(&bytes, "\"dictionary\"", 0),
            Part::Resource(r) => json::nth_key(&bytes, "\"scopeProfiles\"", r),
        };
        json::error_at(JSON_FORMAT, &bytes, at, ParseErrorKind::Io(std::io::Error::other(""))).position
    };
    read::read(&request, JSON_FORMAT, &locate, diag)
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
