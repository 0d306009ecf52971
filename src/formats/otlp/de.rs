//! OTLP/JSON deserialized straight into the messages of [`super::proto`] (no tree of JSON values
//! first): keys lowerCamelCase or snake_case, `null` as a field's default, integers as numbers or
//! decimal strings, ids in hex, unknown fields skipped. A value of the wrong kind is serde's error,
//! naming the key it stood at (serde_json adds its line and column).

use super::proto::{self, AnyValue, Value as Any};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A request, as [`crate::formats::json::parse`] reads it.
pub(super) struct Request(pub(super) proto::Request);

impl<'de> Deserialize<'de> for Request {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Request, D::Error> {
        proto::Request::read(d, At("the request", None)).map(Request)
    }
}

/// Where a value stands, for errors: the key of its field, and its index where it is an element.
#[derive(Clone, Copy)]
struct At<'k>(&'k str, Option<usize>);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.1 {
            Some(i) => write!(f, "{}[{i}]", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// What a field of OTLP/JSON holds, read from a value that is not `null`; `at` names it in errors.
trait Read: Sized {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<Self, D::Error>;
}

/// A message: its fields read one key at a time (the key lowerCamelCase), unknown keys skipped.
trait Message: Default {
    /// What the message is, for errors: `a Sample`.
    const WHAT: &'static str;

    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// The value of `key`, the next of `map`: its field's default where it is `null`.
fn value<'de, T: Read + Default, A: MapAccess<'de>>(map: &mut A, key: &str) -> Result<T, A::Error> {
    map.next_value_seed(Field(At(key, None), PhantomData))
}

/// Seed of a field's value: `null` its default.
struct Field<'k, T>(At<'k>, PhantomData<T>);

impl<'de, T: Read + Default> DeserializeSeed<'de> for Field<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, T: Read + Default> Visitor<'de> for Field<'_, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value as {}", self.0)
    }

    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::read(d, self.0)
    }
}

/// Seed of an element of an array: `null` refused, as a value of the wrong kind.
struct Element<'k, T>(At<'k>, PhantomData<T>);

impl<'de, T: Read> DeserializeSeed<'de> for Element<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::read(d, self.0)
    }
}

/// A key of an object as lowerCamelCase: `stack_index` as `stackIndex`, in `buf` where it changes.
fn camel<'k>(key: &'k str, buf: &'k mut [u8; 32]) -> &'k str {
    let bytes = key.as_bytes();
    if !bytes.contains(&b'_') || bytes.len() > buf.len() {
        return key;
    }
    let (mut n, mut upper) = (0, false);
    for &b in bytes {
        match (b, upper) {
            (b'_', false) => upper = true,
            (b'a'..=b'z', true) => (buf[n], n, upper) = (b.to_ascii_uppercase(), n + 1, false),
            // Not a snake_case name of a field: left as it is, to be skipped.
            (_, true) => return key,
            _ => (buf[n], n) = (b, n + 1),
        }
    }
    match upper {
        true => key,
        false => std::str::from_utf8(&buf[..n]).unwrap_or(key),
    }
}

/// A key of an object, borrowed from the input where it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// Visitor of a message, an object.
struct Object<'k, M>(At<'k>, PhantomData<M>);

impl<'de, M: Message> Visitor<'de> for Object<'_, M> {
    type Value = M;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an object ({}) as {}", M::WHAT, self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<M, A::Error> {
        let mut message = M::default();
        let mut buf = [0; 32];
        while let Some(Key(key)) = map.next_key()? {
            message.field(camel(&key, &mut buf), &mut map)?;
        }
        Ok(message)
    }
}

impl<M: Message> Read for M {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<M, D::Error> {
        d.deserialize_map(Object(at, PhantomData))
    }
}

impl<M: Message> Read for Option<M> {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<Option<M>, D::Error> {
        M::read(d, at).map(Some)
    }
}

/// Skips the value of a key no field has.
fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(drop)
}

/// Visitor of an array.
struct Array<'k, T>(At<'k>, PhantomData<T>);

impl<'de, T: Read> Visitor<'de> for Array<'_, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array as {}", self.0)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut items: S) -> Result<Vec<T>, S::Error> {
        let mut all = Vec::with_capacity(items.size_hint().unwrap_or(0).min(4096));
        let At(key, _) = self.0;
        while let Some(item) = items.next_element_seed(Element(At(key, Some(all.len())), PhantomData))? {
            all.push(item);
        }
        Ok(all)
    }
}

impl<T: Read> Read for Vec<T> {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(Array(at, PhantomData))
    }
}

/// Visitor of an integer of `T`'s range: a number, or a decimal string (OTLP/JSON's 64-bit integers).
struct Integer<'k, T>(At<'k>, PhantomData<T>);

impl<T: TryFrom<i128>> Integer<'_, T> {
    fn of<E: de::Error>(&self, n: i128, found: Unexpected) -> Result<T, E> {
        T::try_from(n).map_err(|_| E::invalid_value(found, self))
    }
}

impl<'de, T: TryFrom<i128>> Visitor<'de> for Integer<'_, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let bits = std::mem::size_of::<T>() * 8;
        write!(f, "an integer of {bits} bits (a number or a decimal string) as {}", self.0)
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
        self.of(n.into(), Unexpected::Signed(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
        self.of(n.into(), Unexpected::Unsigned(n))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        let n = s.parse().map_err(|_| E::invalid_value(Unexpected::Str(s), &self))?;
        self.of(n, Unexpected::Str(s))
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Read for $t {
            fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<$t, D::Error> {
                d.deserialize_any(Integer(at, PhantomData))
            }
        }

        /// An integer member of a oneof: `Some` where it is there.
        impl Read for Option<$t> {
            fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<Option<$t>, D::Error> {
                <$t>::read(d, at).map(Some)
            }
        }
    )*};
}
integers!(i32, u32, i64, u64);

struct Text<'k>(At<'k>);

impl Visitor<'_> for Text<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a string as {}", self.0)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
        Ok(s.to_string())
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<String, E> {
        Ok(s)
    }
}

impl Read for String {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<String, D::Error> {
        d.deserialize_string(Text(at))
    }
}

/// An id (trace, span, profile) in hex, as OTLP/JSON writes ids.
#[derive(Default)]
struct Hex(Vec<u8>);

impl Read for Hex {
    fn read<'de, D: Deserializer<'de>>(d: D, at: At) -> Result<Hex, D::Error> {
        let text = String::read(d, at)?;
        let byte = |i: usize| text.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok());
        let bytes = match text.len() % 2 {
            0 => (0..text.len()).step_by(2).map(byte).collect(),
            _ => None,
        };
        let expected = format!("an id in hex as {at}");
        bytes.map(Hex).ok_or_else(|| de::Error::invalid_value(Unexpected::Str(&text), &expected.as_str()))
    }
}

/// The messages' fields: `"key" => field` reads the field's own type, `"key" => field as T` reads a
/// `T` and takes its `.0`.
macro_rules! messages {
    ($($t:ty, $what:literal { $($key:literal => $field:ident $(as $wrap:ty)?,)* })*) => {$(
        impl Message for $t {
            const WHAT: &'static str = $what;

            fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
                match key {
                    $($key => self.$field = messages!(@value map, key $(, $wrap)?),)*
                    _ => skip(map)?,
                }
                Ok(())
            }
        }
    )*};
    (@value $map:ident, $key:ident) => { value($map, $key)? };
    (@value $map:ident, $key:ident, $wrap:ty) => { value::<$wrap, _>($map, $key)?.0 };
}

messages! {
    proto::Request, "an ExportProfilesServiceRequest" {
        "resourceProfiles" => resource_profiles,
        "dictionary" => dictionary,
    }
    proto::ResourceProfiles, "a ResourceProfiles" {
        "resource" => resource,
        "scopeProfiles" => scope_profiles,
        "schemaUrl" => schema_url,
    }
    proto::Resource, "a Resource" {
        "attributes" => attributes,
        "droppedAttributesCount" => dropped_attributes_count,
    }
    proto::ScopeProfiles, "a ScopeProfiles" {
        "scope" => scope,
        "profiles" => profiles,
        "schemaUrl" => schema_url,
    }
    proto::InstrumentationScope, "an InstrumentationScope" {
        "name" => name,
        "version" => version,
        "attributes" => attributes,
        "droppedAttributesCount" => dropped_attributes_count,
    }
    proto::Profile, "a Profile" {
        "sampleType" => sample_type,
        "samples" => samples,
        "timeUnixNano" => time_unix_nano,
        "durationNano" => duration_nano,
        "periodType" => period_type,
        "period" => period,
        "profileId" => profile_id as Hex,
        "droppedAttributesCount" => dropped_attributes_count,
        "originalPayloadFormat" => original_payload_format,
        "attributeIndices" => attribute_indices,
    }
    proto::ValueType, "a ValueType" {
        "typeStrindex" => type_strindex,
        "unitStrindex" => unit_strindex,
    }
    proto::Sample, "a Sample" {
        "stackIndex" => stack_index,
        "attributeIndices" => attribute_indices,
        "linkIndex" => link_index,
        "values" => values,
        "timestampsUnixNano" => timestamps_unix_nano,
    }
    proto::Dictionary, "a ProfilesDictionary" {
        "mappingTable" => mapping_table,
        "locationTable" => location_table,
        "functionTable" => function_table,
        "linkTable" => link_table,
        "stringTable" => string_table,
        "attributeTable" => attribute_table,
        "stackTable" => stack_table,
    }
    proto::Mapping, "a Mapping" {
        "memoryStart" => memory_start,
        "memoryLimit" => memory_limit,
        "fileOffset" => file_offset,
        "filenameStrindex" => filename_strindex,
        "attributeIndices" => attribute_indices,
    }
    proto::Location, "a Location" {
        "mappingIndex" => mapping_index,
        "address" => address,
        "lines" => lines,
        "attributeIndices" => attribute_indices,
    }
    proto::Line, "a Line" {
        "functionIndex" => function_index,
        "line" => line,
        "column" => column,
    }
    proto::Function, "a Function" {
        "nameStrindex" => name_strindex,
        "systemNameStrindex" => system_name_strindex,
        "filenameStrindex" => filename_strindex,
        "startLine" => start_line,
    }
    proto::Link, "a Link" {
        "traceId" => trace_id as Hex,
        "spanId" => span_id as Hex,
    }
    proto::KeyValueAndUnit, "a KeyValueAndUnit" {
        "keyStrindex" => key_strindex,
        "value" => value,
        "unitStrindex" => unit_strindex,
    }
    proto::Stack, "a Stack" {
        "locationIndices" => location_indices,
    }
    proto::KeyValue, "a KeyValue" {
        "key" => key,
        "value" => value,
        "keyStrindex" => key_strindex,
    }
    proto::ArrayValue, "an ArrayValue" {
        "values" => values,
    }
    proto::KeyValueList, "a KeyValueList" {
        "values" => values,
    }
}

/// AnyValue's oneof: of several members, the first of `stringValue`, `boolValue`, `intValue`,
/// `doubleValue`, `arrayValue`, `kvlistValue`, `stringValueStrindex`, `bytesValue` (whose bytes
/// are not kept); a string or boolean or double of another kind is its zero value.
impl Message for AnyValue {
    const WHAT: &'static str = "an AnyValue";

    fn field<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        const RANKS: [&str; 8] = [
            "stringValue",
            "boolValue",
            "intValue",
            "doubleValue",
            "arrayValue",
            "kvlistValue",
            "stringValueStrindex",
            "bytesValue",
        ];
        let rank = |v: &Option<Any>| match v {
            Some(Any::String(_)) => 0,
            Some(Any::Bool(_)) => 1,
            Some(Any::Int(_)) => 2,
            Some(Any::Double(_)) => 3,
            Some(Any::Array(_)) => 4,
            Some(Any::KvList(_)) => 5,
            Some(Any::StringIndex(_)) => 6,
            Some(Any::Bytes(_)) => 7,
            None => RANKS.len(),
        };
        let Some(at) = RANKS.iter().position(|k| *k == key) else { return skip(map) };
        let value = match at {
            0 => value::<Scalar, A>(map, key)?.0.map(|s| Any::String(s.string())),
            1 => value::<Scalar, A>(map, key)?.0.map(|s| Any::Bool(matches!(s, Loose::Bool(true)))),
            2 => value::<Option<i64>, A>(map, key)?.map(Any::Int),
            3 => value::<Scalar, A>(map, key)?.0.map(|s| Any::Double(s.double())),
            4 => value::<Option<proto::ArrayValue>, A>(map, key)?.map(Any::Array),
            5 => value::<Option<proto::KeyValueList>, A>(map, key)?.map(Any::KvList),
            6 => value::<Option<i32>, A>(map, key)?.map(Any::StringIndex),
            _ => value::<Scalar, A>(map, key)?.0.map(|_| Any::Bytes(Vec::new())),
        };
        if value.is_some() && at < rank(&self.value) {
            self.value = value;
        }
        Ok(())
    }
}

/// A value of AnyValue's string, boolean or double, whatever its kind.
enum Loose {
    String(String),
    Bool(bool),
    Number(f64),
    Other,
}

impl Loose {
    fn string(self) -> String {
        match self {
            Loose::String(s) => s,
            _ => String::new(),
        }
    }

    fn double(self) -> f64 {
        match self {
            Loose::Number(n) => n,
            Loose::String(s) => s.parse().unwrap_or_default(),
            _ => 0.0,
        }
    }
}

/// A [`Loose`] value, `None` where it is `null`.
#[derive(Default)]
struct Scalar(Option<Loose>);

impl<'de> Visitor<'de> for Scalar {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Loose, E> {
        Ok(Loose::Number(n as f64))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Loose, E> {
        Ok(Loose::Number(n as f64))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Loose, E> {
        Ok(Loose::Number(n))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Loose, E> {
        Ok(Loose::String(s.to_string()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Loose, E> {
        Ok(Loose::String(s))
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut items: S) -> Result<Loose, S::Error> {
        while items.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Loose, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
}

impl Read for Scalar {
    fn read<'de, D: Deserializer<'de>>(d: D, _: At) -> Result<Scalar, D::Error> {
        d.deserialize_any(Scalar(None)).map(|v| Scalar(Some(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json;

    fn read(text: &str) -> Result<proto::Request, String> {
        let parsed: Result<Request, _> = json::parse(super::super::JSON_FORMAT, text, "OTLP/JSON");
        parsed.map(|Request(r)| r).map_err(|e| e.to_string())
    }

    #[test]
    fn snake_case_null_numbers_and_unknown_keys_read_as_camel_case_strings() {
        let camel = r#"{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{"timeUnixNano": "7",
            "profileId": "0aff", "samples": [{"stackIndex": 1, "values": ["-3", 4]}]}]}]}],
            "dictionary": {"stringTable": ["", "main"], "linkTable": [{"traceId": "01", "spanId": null}],
            "attributeTable": [{"keyStrindex": 1, "value": {"intValue": "5"}}]}}"#;
        let snake = r#"{"resource_profiles": [{"scope_profiles": [{"profiles": [{"time_unix_nano": 7,
            "profile_id": "0AFF", "period": null, "unknown": {"a": [1, {}]}, "samples": [{"stack_index": "1",
            "values": [-3, "4"], "timestamps_unix_nano": null}]}]}]}], "dictionary": {"string_table": ["", "main"],
            "link_table": [{"trace_id": "01"}], "attribute_table": [{"key_strindex": 1,
            "value": {"int_value": 5, "bool_value": null}}], "mapping_table": null}, "stack_Index": 1}"#;
        let (camel, snake) = (read(camel).unwrap(), read(snake).unwrap());
        assert_eq!(camel, snake);
        let profile = &camel.resource_profiles[0].scope_profiles[0].profiles[0];
        assert_eq!((profile.time_unix_nano, &profile.profile_id[..]), (7, &[0x0a, 0xff][..]));
        assert_eq!(profile.samples[0].values, [-3, 4]);
        let value = camel.dictionary.as_ref().map(|d| d.attribute_table[0].value.clone());
        assert_eq!(value, Some(Some(AnyValue { value: Some(Any::Int(5)) })));
    }

    #[test]
    fn any_value_takes_its_first_member_and_loose_scalars() {
        let any = |member: &str| {
            let text = format!(r#"{{"dictionary": {{"attributeTable": [{{"value": {{{member}}}}}]}}}}"#);
            read(&text).unwrap().dictionary.unwrap().attribute_table[0].value.clone().unwrap().value
        };
        assert_eq!(any(r#""intValue": "2", "stringValue": "s""#), Some(Any::String("s".into())));
        assert_eq!(any(r#""stringValue": 3"#), Some(Any::String(String::new())));
        assert_eq!(any(r#""doubleValue": "1.5""#), Some(Any::Double(1.5)));
        assert_eq!(any(r#""boolValue": true"#), Some(Any::Bool(true)));
        assert_eq!(any(r#""bytesValue": "AAE=""#), Some(Any::Bytes(Vec::new())));
        assert_eq!(any(r#""kvlistValue": {"values": [{"key": "k"}]}"#).map(|v| matches!(v, Any::KvList(_))), Some(true));
        assert_eq!(any(r#""stringValue": null"#), None);
    }

    #[test]
    fn wrong_values_are_refused_naming_the_key_and_where() {
        let cases = [
            (r#"{"resourceProfiles": {}}"#, "line 1, column 21", "expected an array as resourceProfiles"),
            (
                "{\"dictionary\": {\n\"stackTable\": [{\"locationIndices\": [1, \"x\"]}]}}",
                "line 2, column 42",
                "expected an integer of 32 bits (a number or a decimal string) as locationIndices[1]",
            ),
            (r#"{"dictionary": {"mappingTable": [{"memoryStart": -1}]}}"#, "column 51", "integer `-1`"),
            (r#"{"dictionary": {"linkTable": [{"traceId": "abc"}]}}"#, "column 48", "an id in hex as traceId"),
            (r#"{"dictionary": {"functionTable": [null]}}"#, "column 38", "an object (a Function) as functionTable[0]"),
            (r#"[]"#, "column 1", "an object (an ExportProfilesServiceRequest) as the request"),
        ];
        for (text, at, expected) in cases {
            let err = read(text).unwrap_err();
            assert!(err.contains(at) && err.contains(expected), "{text}: {err}");
        }
    }
}
