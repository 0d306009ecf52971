//! OpenTelemetry's profiles signal (OTLP profiles, `opentelemetry/proto/profiles/v1development`),
//! pinned at **opentelemetry-proto v1.11.0**: an `ExportProfilesServiceRequest` (the message the
//! OTLP exporter sends, as the OpenTelemetry Collector, its pprof translator and the OpenTelemetry
//! eBPF profiler make it), in protocol buffers (`otlp`, `.otlp`) or in OTLP/JSON (`otlp-json`,
//! `.otlp.json`).
//!
//! ```text
//! ExportProfilesServiceRequest {
//!   resource_profiles: [{resource: {attributes: [{key: "service.name", value: {string_value: "work"}}]},
//!     scope_profiles: [{scope: {name: "proftool"}, profiles: [
//!       {sample_type: {type_strindex: 1, unit_strindex: 2},                   // "samples" "count"
//!        samples: [{stack_index: 1, values: [47]}, {stack_index: 2, values: [11]}, …],
//!        time_unix_nano: 1764063000000000000, duration_nano: 1003165934,
//!        period_type: {type_strindex: 3, unit_strindex: 4}, period: 10000000}, // "cpu" "nanoseconds"
//!       {sample_type: {type_strindex: 3, unit_strindex: 4}, samples: [{stack_index: 1, values: [470000000]}, …]}]}]}]
//!   dictionary: {string_table: ["", "samples", "count", "cpu", "nanoseconds", "main.spin", …],
//!     mapping_table: [{}, {filename_strindex: 9}], function_table: [{}, {name_strindex: 5, filename_strindex: 6}, …],
//!     location_table: [{}, {mapping_index: 1, lines: [{function_index: 1, line: 19}]}, …],
//!     stack_table: [{}, {location_indices: [1, 2, 3]}, …], attribute_table: [{}, …], link_table: [{}]}
//! }
//! ```
//!
//! **Schema**: a request holds resources, each of scopes, each of profiles; every profile refers by
//! index into the one `dictionary` (index 0 of each table is its zero value, present). A profile has
//! one `sample_type` (pprof's `type`/`unit` names), its samples, each a `stack_index` into the stack
//! table (a stack is location indices, leaf first), `values` (one per observation, added up) or
//! only `timestamps_unix_nano` (one each), `attribute_indices` and a `link_index` (a trace span). A
//! location is a mapping (the program or library) and lines, inlined calls innermost first, each a
//! function (name, system name, file, start line), a line and a column. The field numbers are
//! v1.11.0's (`Sample.values` is 4: v1.9.0 had it at 2, an incompatible layout). OTLP/JSON is
//! protobuf's JSON mapping with OTLP's exceptions: lowerCamelCase keys, 64-bit integers as
//! decimal strings (numbers are read too), ids in hex, enums as integers.
//!
//! **Model**: each profile is a metric of its sample type, as pprof's reader reads one
//! ([`super::kit::sample_types`]: `cpu`/`nanoseconds` time, `samples`/`count` samples,
//! `alloc_space`/`bytes` allocation, `alloc_objects`/`count` objects, a unit proftool does not know a
//! count of events, with a warning); profiles of one sample type (several resources) are added up
//! as one metric, with a warning. Profiles share the dictionary's stacks, so a request of several
//! sample types is one profile of several metrics. The first profile's metric is the one the profile
//! is weighed by, as the proto asks tools to show it first. A frame is made as pprof's reader makes
//! one: its function's name (else its system name), its function's file as its module (else the
//! mapping's file), a line frame where the line is not the function's start line (its column the
//! clause), where the function is defined ([`crate::model::DEFINED_AT`]), and the mapping's file
//! where it is not the module (the frame fact `mapping`); a location without lines is named by
//! its address. The first profile's period of time is the interval (its type, and a period that is
//! no time, are the header facts `period-type` and `period`); the earliest `time_unix_nano` the
//! timestamp; the longest `duration_nano` the fact `duration-ns`. Those four are named as pprof's
//! reader names the same fields ([`super::kit::sample_types::PROFILE_FACTS`]), so that pprof converts
//! to OTLP and back with them. Resource attributes are the
//! facts `otlp.resource.KEY`, scope attributes `otlp.scope.KEY`, profile attributes `otlp.profile.KEY`, but `pprof.profile.comment.N` (where the Collector's pprof
//! translator keeps pprof's comments), which are the title, a line each. The first profile's
//! samples' `timestamps_unix_nano` are their observations' times on the timeline, each standing for
//! its value there (else one). Sample attributes and links are dropped, with a warning naming their
//! keys.
//!
//! **Writing**: one request, one resource (its attributes the `otlp.resource.…` facts), one scope
//! (`proftool` and its version, its attributes the `otlp.scope.…` facts), one profile per additive metric (the metric the profile is weighed
//! by first), each with its `sample_type` as pprof names it (`samples`/`count`, `cpu`/`nanoseconds`
//! for time (a time's name as it is, in its unit), the metric's name and `bytes` for allocation), a
//! shared dictionary: a function and a location per frame (as pprof's writer makes them: the
//! function's file the file of `defined-at`, else the module; the line and column of a line frame),
//! a mapping per `mapping` file, a stack per node with a value (or a leaf), each in the stack
//! table once and every profile's sample of that node referring to it (a value per sample; zeros
//! kept, as the translator writes one sample per pprof sample per type); the interval as the period
//! (`cpu`/`nanoseconds`, or the period type read), the timestamp as `time_unix_nano`, the title as
//! `pprof.profile.comment.N` attributes, `otlp.profile.…` facts as profile attributes (strings).
//! A timeline is written in every profile's samples: a stack's sample holds its timeline samples'
//! shares of its value as `values` and their times as `timestamps_unix_nano`, in time order; where
//! a value is in none of them, or a sample has no share of the first profile's metric (which a
//! reader weighs them by), without times, said on stderr.
//! Time with fractions is written in nanoseconds, a line frame at line 0 as its function (OTLP's
//! line 0 is none), with a warning. Protobuf is written in field order; OTLP/JSON
//! with OTLP's exceptions. A warning names the version written.
//!
//! **Errors**: a file cut short (a field that runs past the end, named by its byte), bytes that are
//! no request, JSON errors at their line and column, and indices out of a table's range (a stack,
//! location, function, mapping, string, attribute or link), each naming the index, the table's
//! range and the field that holds it as a path (`resource_profiles[0].scope_profiles[0].profiles[1]
//! .samples[3].stack_index`), at the byte of the dictionary or of the resource it is in.
//!
//! **Lost**: per-node metrics (calls), per-function counts, frame kinds (threads are root frames),
//! header facts but the title, timestamp, interval, pprof's and `otlp.…` facts (values of attributes become
//! strings), inner nodes without a value of their own, time below a whole nanosecond (rounded,
//! with a warning), inlining (a location per frame), addresses, mappings' address ranges and
//! attributes, sample attributes and links, the source's scope name and version (the
//! scope written is proftool's).

mod de;
pub(crate) mod json;
mod proto;
mod read;
mod write;

use super::kit::wire;
use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes};
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use prost::Message;
use read::Part;

/// The protobuf encoding: what it is, how it is told and read and written.
pub(crate) const SPEC: Spec = Spec {
    name: NAME,
    description: "OpenTelemetry profiles (OTLP `ExportProfilesServiceRequest`, protobuf; proto v1.11.0)",
    extensions: &["otlp"],
    carries: CARRIES,
    reads: Some(Reads::binary(sniff, read_protobuf)),
    writes: Some(Writes::new(|profile, to| write::write(profile, to.out, write::Encoding::Protobuf, to.diag), RULES)),
};

/// Writes `profile` as OTLP/JSON: [`json::SPEC`]'s writer, here, as `write.rs` writes JSON through
/// `json.rs` (which names no writer back).
fn write_json(profile: &crate::model::Profile, to: spec::Writing<'_>) -> Result<(), Error> {
    write::write(profile, to.out, write::Encoding::Json, to.diag)
}

/// What a conversion to OTLP does: time with fractions in nanoseconds (values are whole numbers),
/// a line frame at line 0 its function (line 0 is none);
/// it says which metric comes first (its first profile) and keeps where functions are defined.
pub(super) const RULES: Rules = Rules {
    fit: |mut profile, _, diag| {
        super::kit::sample_types::fractions_in_nanoseconds(&mut profile);
        let mut profile = super::kit::sample_types::lines_0_as_functions(profile, FORMAT, "otlp-line-0", diag);
        super::kit::sample_types::keep_timeline_of_every_value(&mut profile, FORMAT, diag);
        write::keep_timeline_weighed_by_first(&mut profile, diag);
        profile
    },
    says_which_metric_comes_first: true,
    keeps_facts: super::kit::sample_types::PROFILE_FACTS,
    facts_named_as: Some(NAME),
    ..spec::STACKS_ONLY
};

/// What an OTLP request holds: stacks of any count, and the interval (as the period) and timestamp.
pub(crate) const CARRIES: Carries =
    Carries { timestamp: true, interval: true, timeline: true, ..Carries::STACKS_OF_ANY_COUNT };

/// The version of opentelemetry-proto read and written.
pub(crate) const PROTO_VERSION: &str = "v1.11.0";

/// Header facts `otlp.…` of the prefixes of resource, profile and scope attributes, in either
/// encoding (the duration and the period are named for no format: [`super::kit::sample_types`]).
const RESOURCE: &str = "resource.";
const PROFILE: &str = "profile.";
const SCOPE: &str = "scope.";
/// The profile attributes the Collector's pprof translator keeps pprof's comments in, numbered.
const COMMENT: &str = "pprof.profile.comment.";

/// `Yes` for a protocol buffer that reads as a request: one that starts as one
/// ([`is_request_start`]) and, when the head is all of it, decodes, else whose fields in the head
/// are all `resource_profiles` (1) and `dictionary` (2), messages.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let whole = head.len() < crate::files::HEAD_LEN;
    let fits = match whole {
        true => proto::Request::decode(head).is_ok(),
        false => wire::fields(head).all(|f| match f {
            Ok(f) => matches!((f.number, f.wire), (1 | 2, 2)),
            Err(stop) => matches!(stop, wire::Stop::CutShort(_)),
        }),
    };
    Sniff::yes_if(is_request_start(head) && fits)
}

/// Whether `head` starts as a request does, the rest cut off or not: its first field a
/// `resource_profiles` whose own fields in the head are a ResourceProfiles' (1 to 3, messages or
/// strings), at least one, the second of them (`scope_profiles`) starting with a ScopeProfiles'
/// field; or a `dictionary` starting with one of its tables (1 to 7). A pprof Profile starts with
/// a ValueType of numbers, a Perfetto trace with packets of numbers (a timestamp, a sequence id),
/// which detection tells apart from a request cut short by this.
pub(crate) fn is_request_start(head: &[u8]) -> bool {
    let Some((first, inner)) = first_field(head) else { return false };
    let own = |f: &wire::Field, last: u64| f.wire == 2 && (1..=last).contains(&f.number);
    match first {
        1 => {
            let fields: Vec<wire::Field> = wire::fields(inner).map_while(Result::ok).collect();
            let scopes = fields.iter().find(|f| f.number == 2).map(|f| &inner[f.payload.clone()]);
            let scope_starts = scopes.is_none_or(|s| first_field(s).is_some_and(|(n, _)| (1..=3).contains(&n)));
            !fields.is_empty() && fields.iter().all(|f| own(f, 3)) && scope_starts
        }
        2 => wire::fields(inner).next().is_some_and(|f| f.is_ok_and(|f| own(&f, 7)) || inner.is_empty()),
        _ => false,
    }
}

/// The number of the first field of `bytes` where it is a message (length-delimited), and its
/// payload as far as `bytes` holds it.
fn first_field(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let (tag, after) = wire::varint(bytes, 0)?;
    let (len, from) = wire::varint(bytes, after)?;
    let end = usize::try_from(len).map_or(bytes.len(), |len| from.saturating_add(len).min(bytes.len()));
    (tag & 7 == 2).then(|| (tag >> 3, &bytes[from.min(end)..end]))
}

/// Reads a protobuf request.
fn read_protobuf(
    input: &mut (dyn std::io::Read + Send),
    _: &ReadOptions,
    diag: &mut crate::diag::Diagnostics,
) -> Result<crate::model::Profile, ParseError> {
    let bytes = super::json::read_all(input, FORMAT)?;
    if bytes.is_empty() {
        return Err(not_a_request(0, "nothing: the input is empty".into()));
    }
    // A field cut short is said as such, with its byte, before prost's less telling error.
    for field in wire::fields(&bytes) {
        match field {
            Ok(_) => {}
            Err(wire::Stop::CutShort(at)) => {
                return Err(not_a_request(
                    at,
                    "a field cut short by the end of the input: the file looks cut short".into(),
                ))
            }
            Err(wire::Stop::Invalid(at)) => return Err(not_a_request(at, "bytes that are no protobuf field".into())),
        }
    }
    let request = proto::Request::decode(bytes.as_slice())
        .map_err(|e| not_a_request(0, format!("bytes that do not decode as one ({e})")))?;
    let locate = |part: Part| {
        let (number, nth) = match part {
            Part::Dictionary => (2, 0),
            Part::Resource(r) => (1, r),
        };
        let at =
            wire::fields(&bytes).map_while(Result::ok).filter(|f| f.number == number).nth(nth).map_or(0, |f| f.start);
        Position::byte(at as u64)
    };
    read::read(&request, FORMAT, &locate, diag)
}

/// OTLP's name, which its header and frame facts are named under in either encoding.
const NAME: &str = "otlp";

/// The format's names in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();
const JSON_FORMAT: FormatName = json::SPEC.format_name();

/// The error for bytes that are no request, at byte `at`.
fn not_a_request(at: usize, found: String) -> ParseError {
    ParseError {
        format: FORMAT,
        position: Position::byte(at as u64),
        kind: ParseErrorKind::Unexpected {
            expected: format!(
                "a protobuf ExportProfilesServiceRequest (opentelemetry-proto {PROTO_VERSION} profiles v1development)"
            ),
            found,
        },
    }
}
