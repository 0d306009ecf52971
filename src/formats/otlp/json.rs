//! OTLP/JSON: protobuf's JSON mapping of a request with OTLP's exceptions (lowerCamelCase keys, the
//! snake_case names read too; 64-bit integers as decimal strings, numbers read too; trace, span and
//! profile ids in hex, not base64; enums as integers), read into and written from the messages of
//! [`super::proto`] (by [`super::de`] and by this module's `Serialize` implementations), so that
//! both encodings share one reader and one writer.

use super::de;
use super::proto::{self, AnyValue, Value as Any};
use super::read::{self, Part};
use super::{CARRIES, JSON_FORMAT, RULES};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind};
use crate::formats::ReadOptions;
use crate::formats::json;
use crate::formats::spec::{JsonKind, Reads, Spec, Writes};
use crate::model::Profile;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::fmt::{self, Display, Formatter};
use std::io::Write;

/// The OTLP/JSON encoding: what it is, how it is told and read and written.
pub(crate) const SPEC: Spec = Spec {
    name: "otlp-json",
    description: "OpenTelemetry profiles in OTLP/JSON (proto v1.11.0)",
    extensions: &["otlp.json"],
    carries: CARRIES,
    reads: Some(Reads::json(
        JsonKind { what: "OTLP profiles JSON", aside: " (OpenTelemetry's)", check },
        read,
    )),
    writes: Some(Writes::new(super::write_json, RULES)),
};

/// `Ok` for a JSON object whose first bytes name `resourceProfiles` (or `resource_profiles`).
pub(super) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    head.object()?;
    match head.mentions(b"\"resourceProfiles\"") || head.mentions(b"\"resource_profiles\"") {
        true => Ok(()),
        false => Err("no \"resourceProfiles\""),
    }
}

/// Reads an OTLP/JSON request.
pub(super) fn read(input: &mut (dyn std::io::Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
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

/// Writes `request` as OTLP/JSON straight to `out`, default values left out as protobuf's JSON
/// mapping leaves them, through the `Serialize` implementations below (a `serde_json::Value` tree
/// of a large profile first would be many times the size of what is written).
pub(super) fn write(request: &proto::Request, out: &mut dyn Write) -> serde_json::Result<()> {
    serde_json::to_writer(out, request)
}

/// A field's value that protobuf's JSON mapping leaves out where it is the default.
trait Field: Serialize {
    fn is_default(&self) -> bool;
}

impl Field for i32 {
    fn is_default(&self) -> bool {
        *self == 0
    }
}

impl Field for String {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}

impl<T: Serialize> Field for Vec<T> {
    fn is_default(&self) -> bool {
        self.is_empty()
    }
}

/// A message is left out where it is absent, and written (even as `{}`) where it is present.
impl<T: Serialize> Field for Option<T> {
    fn is_default(&self) -> bool {
        self.is_none()
    }
}

/// A 64-bit integer, which OTLP/JSON writes as a decimal string (JavaScript's numbers hold 53 bits).
struct Decimal<T>(T);

impl<T: Display> Serialize for Decimal<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<T: Display + Default + PartialEq> Field for Decimal<T> {
    fn is_default(&self) -> bool {
        self.0 == T::default()
    }
}

/// 64-bit integers, each a [`Decimal`].
struct Decimals<'a, T>(&'a [T]);

impl<T: Display> Serialize for Decimals<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Decimal))
    }
}

impl<T: Display> Field for Decimals<'_, T> {
    fn is_default(&self) -> bool {
        self.0.is_empty()
    }
}

/// A trace or span id, which OTLP/JSON writes in hex (not protobuf's base64).
struct Hex<'a>(&'a [u8]);

impl Display for Hex<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl Serialize for Hex<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Field for Hex<'_> {
    fn is_default(&self) -> bool {
        self.0.is_empty()
    }
}

/// Writes `value` as `key` of `object` unless it is a default.
fn put<M: SerializeMap>(object: &mut M, key: &str, value: &impl Field) -> Result<(), M::Error> {
    match value.is_default() {
        true => Ok(()),
        false => object.serialize_entry(key, value),
    }
}

/// Implements `Serialize` for a message as a JSON object of the fields listed, each written by
/// [`put`] in the order listed.
macro_rules! object {
    ($message:ty, |$m:ident| { $($key:literal: $value:expr),* $(,)? }) => {
        impl Serialize for $message {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let $m = self;
                let mut object = serializer.serialize_map(None)?;
                $(put(&mut object, $key, &$value)?;)*
                object.end()
            }
        }
    };
}

// Each message's keys in alphabetical order (byte order: capitals first): the order the writer
// before these wrote them in, through a `serde_json::Map` (a `BTreeMap` without serde_json's
// `preserve_order`), kept so that the output is the same. Fields not listed are not written.
object!(proto::Request, |r| { "dictionary": r.dictionary, "resourceProfiles": r.resource_profiles });
object!(proto::ResourceProfiles, |r| {
    "resource": r.resource,
    "schemaUrl": r.schema_url,
    "scopeProfiles": r.scope_profiles,
});
object!(proto::Resource, |r| { "attributes": r.attributes });
object!(proto::ScopeProfiles, |s| { "profiles": s.profiles, "schemaUrl": s.schema_url, "scope": s.scope });
object!(proto::InstrumentationScope, |s| { "attributes": s.attributes, "name": s.name, "version": s.version });
object!(proto::Profile, |p| {
    "attributeIndices": p.attribute_indices,
    "durationNano": Decimal(p.duration_nano),
    "period": Decimal(p.period),
    "periodType": p.period_type,
    "sampleType": p.sample_type,
    "samples": p.samples,
    "timeUnixNano": Decimal(p.time_unix_nano),
});
object!(proto::ValueType, |v| { "typeStrindex": v.type_strindex, "unitStrindex": v.unit_strindex });
object!(proto::Sample, |s| {
    "attributeIndices": s.attribute_indices,
    "linkIndex": s.link_index,
    "stackIndex": s.stack_index,
    "timestampsUnixNano": Decimals(&s.timestamps_unix_nano),
    "values": Decimals(&s.values),
});
object!(proto::Dictionary, |d| {
    "attributeTable": d.attribute_table,
    "functionTable": d.function_table,
    "linkTable": d.link_table,
    "locationTable": d.location_table,
    "mappingTable": d.mapping_table,
    "stackTable": d.stack_table,
    "stringTable": d.string_table,
});
object!(proto::Mapping, |m| {
    "attributeIndices": m.attribute_indices,
    "fileOffset": Decimal(m.file_offset),
    "filenameStrindex": m.filename_strindex,
    "memoryLimit": Decimal(m.memory_limit),
    "memoryStart": Decimal(m.memory_start),
});
object!(proto::Location, |l| {
    "address": Decimal(l.address),
    "attributeIndices": l.attribute_indices,
    "lines": l.lines,
    "mappingIndex": l.mapping_index,
});
object!(proto::Line, |l| { "column": Decimal(l.column), "functionIndex": l.function_index, "line": Decimal(l.line) });
object!(proto::Function, |f| {
    "filenameStrindex": f.filename_strindex,
    "nameStrindex": f.name_strindex,
    "startLine": Decimal(f.start_line),
    "systemNameStrindex": f.system_name_strindex,
});
object!(proto::Link, |l| { "spanId": Hex(&l.span_id), "traceId": Hex(&l.trace_id) });
object!(proto::Stack, |s| { "locationIndices": s.location_indices });
object!(proto::KeyValueAndUnit, |a| {
    "keyStrindex": a.key_strindex,
    "unitStrindex": a.unit_strindex,
    "value": a.value,
});
object!(proto::KeyValue, |kv| { "key": kv.key, "keyStrindex": kv.key_strindex, "value": kv.value });

/// An array or key-value list value's members: written even where there are none.
#[derive(Serialize)]
struct Values<'a, T> {
    values: &'a [T],
}

/// The value's one member, written even where it is a default (`{"boolValue":false}`); a bytes
/// value is written as `{}`, as no value.
impl Serialize for AnyValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_map(None)?;
        match &self.value {
            Some(Any::String(s)) => object.serialize_entry("stringValue", s)?,
            Some(Any::Bool(b)) => object.serialize_entry("boolValue", b)?,
            Some(Any::Int(i)) => object.serialize_entry("intValue", &Decimal(i))?,
            Some(Any::Double(d)) => object.serialize_entry("doubleValue", d)?,
            Some(Any::StringIndex(i)) => object.serialize_entry("stringValueStrindex", i)?,
            Some(Any::Array(a)) => object.serialize_entry("arrayValue", &Values { values: &a.values })?,
            Some(Any::KvList(l)) => object.serialize_entry("kvlistValue", &Values { values: &l.values })?,
            Some(Any::Bytes(_)) | None => {}
        }
        object.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::{KeyValue, KeyValueAndUnit};

    fn any(value: Any) -> Option<AnyValue> {
        Some(AnyValue { value: Some(value) })
    }

    /// A request with every field that is written set to a value not a default, and an attribute
    /// value of each kind.
    fn full() -> proto::Request {
        let attribute = |value| KeyValue { key: "k".into(), value: any(value), key_strindex: 1 };
        let kinds = [
            Any::String("s".into()),
            Any::Bool(true),
            Any::Int(-2),
            Any::Double(1.5),
            Any::StringIndex(3),
            Any::Array(proto::ArrayValue { values: vec![AnyValue { value: Some(Any::Bool(false)) }] }),
            Any::KvList(proto::KeyValueList { values: vec![attribute(Any::Int(1))] }),
        ];
        let attributes: Vec<KeyValue> = kinds.into_iter().map(attribute).collect();
        let value_type = Some(proto::ValueType { type_strindex: 1, unit_strindex: 2 });
        let sample = proto::Sample {
            stack_index: 1,
            attribute_indices: vec![1],
            link_index: 1,
            values: vec![7],
            timestamps_unix_nano: vec![8],
        };
        let profile = proto::Profile {
            sample_type: value_type.clone(),
            samples: vec![sample],
            time_unix_nano: 9,
            duration_nano: 10,
            period_type: value_type,
            period: 11,
            attribute_indices: vec![1],
            ..proto::Profile::default()
        };
        let scope = proto::InstrumentationScope {
            name: "proftool".into(),
            version: "1".into(),
            attributes: attributes.clone(),
            dropped_attributes_count: 0,
        };
        let dictionary = proto::Dictionary {
            mapping_table: vec![proto::Mapping {
                memory_start: 1,
                memory_limit: 2,
                file_offset: 3,
                filename_strindex: 4,
                attribute_indices: vec![5],
            }],
            location_table: vec![proto::Location {
                mapping_index: 1,
                address: 2,
                lines: vec![proto::Line { function_index: 1, line: 2, column: 3 }],
                attribute_indices: vec![4],
            }],
            function_table: vec![proto::Function {
                name_strindex: 1,
                system_name_strindex: 2,
                filename_strindex: 3,
                start_line: 4,
            }],
            link_table: vec![proto::Link { trace_id: vec![0xab; 16], span_id: vec![1; 8] }],
            string_table: vec![String::new(), "main".into()],
            attribute_table: vec![KeyValueAndUnit { key_strindex: 1, value: any(Any::Int(1)), unit_strindex: 2 }],
            stack_table: vec![proto::Stack { location_indices: vec![1, 2] }],
        };
        proto::Request {
            resource_profiles: vec![proto::ResourceProfiles {
                resource: Some(proto::Resource { attributes, dropped_attributes_count: 0 }),
                scope_profiles: vec![proto::ScopeProfiles {
                    scope: Some(scope),
                    profiles: vec![profile],
                    schema_url: "s".into(),
                }],
                schema_url: "r".into(),
            }],
            dictionary: Some(dictionary),
        }
    }

    #[test]
    fn every_key_is_written_in_the_order_of_a_serde_json_map() {
        let written = serde_json::to_string(&full()).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(written, parsed.to_string(), "a Map writes its keys sorted");
        let keys = ["schemaUrl", "timestampsUnixNano", "memoryStart", "column", "systemNameStrindex", "spanId"];
        for key in keys.into_iter().chain(["kvlistValue"]) {
            assert!(written.contains(&format!("\"{key}\"")), "{key} in {written}");
        }
    }

    #[test]
    fn defaults_are_left_out_but_messages_present_and_attribute_values() {
        let empty_array = Any::Array(proto::ArrayValue::default());
        let values =
            [None, Some(Any::Bool(false)), Some(Any::Double(0.0)), Some(Any::String(String::new())), Some(empty_array)];
        let mut attribute_table = vec![KeyValueAndUnit::default()];
        let attribute = |value| KeyValueAndUnit { value: Some(AnyValue { value }), ..KeyValueAndUnit::default() };
        attribute_table.extend(values.into_iter().chain([Some(Any::Bytes(vec![1]))]).map(attribute));
        let profile = proto::Profile {
            sample_type: Some(proto::ValueType::default()),
            samples: vec![proto::Sample { values: vec![0], ..proto::Sample::default() }],
            ..proto::Profile::default()
        };
        // A text "0" is no default (the 64-bit zeros written as text are).
        let scope = proto::InstrumentationScope { name: "0".into(), ..proto::InstrumentationScope::default() };
        let request = proto::Request {
            resource_profiles: vec![proto::ResourceProfiles {
                resource: Some(proto::Resource::default()),
                scope_profiles: vec![proto::ScopeProfiles {
                    scope: Some(scope),
                    profiles: vec![profile],
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
            dictionary: Some(proto::Dictionary {
                string_table: vec![String::new()],
                link_table: vec![proto::Link::default()],
                attribute_table,
                ..proto::Dictionary::default()
            }),
        };
        let expected = concat!(
            r#"{"dictionary":{"attributeTable":[{},{"value":{}},{"value":{"boolValue":false}},"#,
            r#"{"value":{"doubleValue":0.0}},{"value":{"stringValue":""}},{"value":{"arrayValue":{"values":[]}}},"#,
            r#"{"value":{}}],"linkTable":[{}],"stringTable":[""]},"#,
            r#""resourceProfiles":[{"resource":{},"scopeProfiles":[{"profiles":[{"sampleType":{},"#,
            r#""samples":[{"values":["0"]}]}],"scope":{"name":"0"}}]}]}"#,
        );
        assert_eq!(serde_json::to_string(&request).unwrap(), expected);
    }
}
