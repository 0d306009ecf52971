//! The messages of OTLP profiles that proftool reads and writes, as opentelemetry-proto v1.11.0
//! declares them (`opentelemetry/proto/collector/profiles/v1development/profiles_service.proto`,
//! `profiles/v1development/profiles.proto`, `common/v1/common.proto`, `resource/v1/resource.proto`),
//! with their field numbers; fields proftool has no use for (entity refs) are skipped by prost when
//! decoding.

use prost::{Message, Oneof};

/// `ExportProfilesServiceRequest` (as `ProfilesData`, which has the same fields): what a file holds.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Request {
    #[prost(message, repeated, tag = "1")]
    pub resource_profiles: Vec<ResourceProfiles>,
    #[prost(message, optional, tag = "2")]
    pub dictionary: Option<Dictionary>,
}

/// `ProfilesDictionary`: the tables every profile of a request refers to by index, index 0 of each
/// the zero value.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Dictionary {
    #[prost(message, repeated, tag = "1")]
    pub mapping_table: Vec<Mapping>,
    #[prost(message, repeated, tag = "2")]
    pub location_table: Vec<Location>,
    #[prost(message, repeated, tag = "3")]
    pub function_table: Vec<Function>,
    #[prost(message, repeated, tag = "4")]
    pub link_table: Vec<Link>,
    #[prost(string, repeated, tag = "5")]
    pub string_table: Vec<String>,
    #[prost(message, repeated, tag = "6")]
    pub attribute_table: Vec<KeyValueAndUnit>,
    #[prost(message, repeated, tag = "7")]
    pub stack_table: Vec<Stack>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ResourceProfiles {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_profiles: Vec<ScopeProfiles>,
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "2")]
    pub dropped_attributes_count: u32,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ScopeProfiles {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub profiles: Vec<Profile>,
    #[prost(string, tag = "3")]
    pub schema_url: String,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
    #[prost(message, repeated, tag = "3")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "4")]
    pub dropped_attributes_count: u32,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Profile {
    #[prost(message, optional, tag = "1")]
    pub sample_type: Option<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    #[prost(uint64, tag = "4")]
    pub duration_nano: u64,
    #[prost(message, optional, tag = "5")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "6")]
    pub period: i64,
    #[prost(bytes = "vec", tag = "7")]
    pub profile_id: Vec<u8>,
    #[prost(uint32, tag = "8")]
    pub dropped_attributes_count: u32,
    #[prost(string, tag = "9")]
    pub original_payload_format: String,
    #[prost(bytes = "vec", tag = "10")]
    pub original_payload: Vec<u8>,
    #[prost(int32, repeated, tag = "11")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Link {
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ValueType {
    #[prost(int32, tag = "1")]
    pub type_strindex: i32,
    #[prost(int32, tag = "2")]
    pub unit_strindex: i32,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Sample {
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    #[prost(int32, repeated, tag = "2")]
    pub attribute_indices: Vec<i32>,
    #[prost(int32, tag = "3")]
    pub link_index: i32,
    #[prost(int64, repeated, tag = "4")]
    pub values: Vec<i64>,
    #[prost(fixed64, repeated, tag = "5")]
    pub timestamps_unix_nano: Vec<u64>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Mapping {
    #[prost(uint64, tag = "1")]
    pub memory_start: u64,
    #[prost(uint64, tag = "2")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "3")]
    pub file_offset: u64,
    #[prost(int32, tag = "4")]
    pub filename_strindex: i32,
    #[prost(int32, repeated, tag = "5")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Stack {
    #[prost(int32, repeated, tag = "1")]
    pub location_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Location {
    #[prost(int32, tag = "1")]
    pub mapping_index: i32,
    #[prost(uint64, tag = "2")]
    pub address: u64,
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<Line>,
    #[prost(int32, repeated, tag = "4")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Line {
    #[prost(int32, tag = "1")]
    pub function_index: i32,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Function {
    #[prost(int32, tag = "1")]
    pub name_strindex: i32,
    #[prost(int32, tag = "2")]
    pub system_name_strindex: i32,
    #[prost(int32, tag = "3")]
    pub filename_strindex: i32,
    #[prost(int64, tag = "4")]
    pub start_line: i64,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct KeyValueAndUnit {
    #[prost(int32, tag = "1")]
    pub key_strindex: i32,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    #[prost(int32, tag = "3")]
    pub unit_strindex: i32,
}

/// common.proto's `KeyValue` (resource and scope attributes): its key as text, or (from v1.11.0)
/// as an index of the dictionary's string table.
#[derive(Clone, PartialEq, Message)]
pub(super) struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    #[prost(int32, tag = "3")]
    pub key_strindex: i32,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub value: Option<Value>,
}

#[derive(Clone, PartialEq, Oneof)]
pub(super) enum Value {
    #[prost(string, tag = "1")]
    String(String),
    #[prost(bool, tag = "2")]
    Bool(bool),
    #[prost(int64, tag = "3")]
    Int(i64),
    #[prost(double, tag = "4")]
    Double(f64),
    #[prost(message, tag = "5")]
    Array(ArrayValue),
    #[prost(message, tag = "6")]
    KvList(KeyValueList),
    #[prost(bytes = "vec", tag = "7")]
    Bytes(Vec<u8>),
    #[prost(int32, tag = "8")]
    StringIndex(i32),
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ArrayValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct KeyValueList {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<KeyValue>,
}
