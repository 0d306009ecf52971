//! The event types the reader takes, what each adds to which metric, and how their fields are
//! read (a plan per event type of a chunk's metadata).

use super::chunk::{current_name, Cursor, Field, Types, Value};
use crate::error::ParseError;
use super::Metrics;
use rustc_hash::FxHashMap;

/// The event type whose events state the recording's settings (the sampling periods).
pub(super) const ACTIVE_SETTING: &str = "jdk.ActiveSetting";
pub(super) const EXECUTION_SAMPLE: &str = "jdk.ExecutionSample";
pub(super) const NATIVE_SAMPLE: &str = "jdk.NativeMethodSample";
pub(super) const STACK_TRACE: &str = "jdk.types.StackTrace";
pub(super) const CLASS: &str = "java.lang.Class";
pub(super) const THREAD: &str = "java.lang.Thread";
pub(super) const STRING: &str = "java.lang.String";

/// What an event adds to its metric.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Weight {
    /// One: the metric counts the events.
    One,
    /// The value of the named `long` field (bytes).
    Field(&'static str),
    /// The event's `duration`, in ticks, as nanoseconds.
    Duration,
}

/// An event type the reader takes: its metric, what each event adds to it, the metric counting its
/// events where that is another, and the field naming a class that is put below the event's stack
/// (with what the class is, the frame's `jfr.frame-type`), as async-profiler's converter does.
pub(super) struct EventKind {
    pub name: &'static str,
    pub metric: usize,
    pub weight: Weight,
    pub count: Option<usize>,
    pub class: Option<(&'static str, &'static str)>,
}

const ALLOCATED: Option<(&str, &str)> = Some(("objectClass", "Allocated class"));
const MONITOR: Option<(&str, &str)> = Some(("monitorClass", "Monitor class"));

/// The events read, each into its metrics. A TLAB event weighs what JMC and async-profiler weigh it
/// by: the new TLAB's size for an allocation that took one (what the thread allocated since its
/// last, as that sampling estimates it), the object's size for one outside a TLAB.
pub(super) const EVENTS: [EventKind; 8] = [
    EventKind { name: EXECUTION_SAMPLE, metric: Metrics::SAMPLES, weight: Weight::One, count: None, class: None },
    EventKind { name: NATIVE_SAMPLE, metric: Metrics::NATIVE_SAMPLES, weight: Weight::One, count: None, class: None },
    EventKind {
        name: "jdk.ObjectAllocationSample",
        metric: Metrics::ALLOC_WEIGHT,
        weight: Weight::Field("weight"),
        count: Some(Metrics::SAMPLED_OBJECTS),
        class: ALLOCATED,
    },
    EventKind {
        name: "jdk.ObjectAllocationInNewTLAB",
        metric: Metrics::NEW_TLAB_BYTES,
        weight: Weight::Field("tlabSize"),
        count: Some(Metrics::NEW_TLAB_OBJECTS),
        class: ALLOCATED,
    },
    EventKind {
        name: "jdk.ObjectAllocationOutsideTLAB",
        metric: Metrics::OUTSIDE_TLAB_BYTES,
        weight: Weight::Field("allocationSize"),
        count: Some(Metrics::OUTSIDE_TLAB_OBJECTS),
        class: ALLOCATED,
    },
    EventKind {
        name: "jdk.JavaMonitorEnter",
        metric: Metrics::MONITOR_ENTER_TIME,
        weight: Weight::Duration,
        count: Some(Metrics::MONITOR_ENTERS),
        class: MONITOR,
    },
    EventKind {
        name: "jdk.JavaMonitorWait",
        metric: Metrics::MONITOR_WAIT_TIME,
        weight: Weight::Duration,
        count: Some(Metrics::MONITOR_WAITS),
        class: MONITOR,
    },
    EventKind {
        name: "jdk.ThreadPark",
        metric: Metrics::PARK_TIME,
        weight: Weight::Duration,
        count: Some(Metrics::PARKS),
        class: Some(("parkedClass", "Parked class")),
    },
];

/// What the reader takes from a field of an event.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Role {
    Skip,
    Thread,
    Stack,
    Weight,
    Class,
    /// The event's `startTime` (ticks).
    Start,
    SettingId,
    SettingName,
    SettingValue,
}

/// How to read one event type: which of [`EVENTS`] it is (`None`: `jdk.ActiveSetting`) and what
/// each of its fields is for.
pub(super) struct Plan {
    pub event: Option<&'static EventKind>,
    pub roles: Vec<Role>,
}

/// How each event type the reader takes is read, by the type id its events carry (with the
/// type's index).
pub(super) fn plans(types: &Types) -> FxHashMap<u64, (usize, Plan)> {
    let mut plans = FxHashMap::default();
    let events = EVENTS.iter().map(|e| (e.name, Some(e))).chain([(ACTIVE_SETTING, None)]);
    for (name, event) in events {
        let Some(ty) = types.named(name) else { continue };
        let roles = types.list[ty].fields.iter().map(|field| role(types, event, field)).collect();
        plans.insert(types.list[ty].id, (ty, Plan { event, roles }));
    }
    plans
}

/// What a field of an event of a type the reader takes is for (`event` `None`: a setting).
fn role(types: &Types, event: Option<&EventKind>, field: &Field) -> Role {
    let field_type = types.name(field.ty);
    let reference = field.pool && !field.array;
    let name = field.name.as_str();
    let Some(event) = event else {
        return match name {
            "id" if field_type == "long" => Role::SettingId,
            "name" if field_type == STRING => Role::SettingName,
            "value" if field_type == STRING => Role::SettingValue,
            _ => Role::Skip,
        };
    };
    let weight = match event.weight {
        Weight::Field(field) => field,
        Weight::Duration => "duration",
        Weight::One => "",
    };
    match name {
        "sampledThread" | "eventThread" if reference && field_type == THREAD => Role::Thread,
        "stackTrace" if is_stack(types, field) => Role::Stack,
        "startTime" if field_type == "long" && !field.array => Role::Start,
        _ if name == weight && field_type == "long" && !field.array => Role::Weight,
        _ if event.class.is_some_and(|(class, _)| class == name) && reference && field_type == CLASS => Role::Class,
        _ => Role::Skip,
    }
}

/// Whether a field is an event's stack: `stackTrace`, an id in the stack trace pool.
fn is_stack(types: &Types, field: &Field) -> bool {
    field.name == "stackTrace" && field.pool && !field.array && current_name(types.name(field.ty)) == STACK_TRACE
}

/// The index of the stack field of events of type `ty`, where they have one.
pub(super) fn stack_field(types: &Types, ty: usize) -> Option<usize> {
    types.list[ty].fields.iter().position(|field| is_stack(types, field))
}

/// Whether an event (of type `ty`, whose stack is its field `stack`) has a stack: a type with a
/// stack field has events with none (a thread the JVM started, a periodic event: id 0, as JFR's
/// references to nothing are), which `jfr print` gives as `stackTrace = null`. The fields before
/// it are read past.
pub(super) fn has_stack(types: &Types, (ty, stack): (usize, usize), event: &mut Cursor<'_>) -> Result<bool, ParseError> {
    let fields = &types.list[ty].fields;
    for field in &fields[..stack] {
        event.field(types, field, false)?;
    }
    Ok(matches!(event.field(types, &fields[stack], true)?, Value::Ref(id) if id != 0))
}

/// A class's name as the JDK's `jfr print` writes it: `java.lang.String` for `java/lang/String`,
/// `byte[]` for `[B`, `java.lang.Object[][]` for `[[Ljava/lang/Object;`.
pub(super) fn java_name(internal: &str) -> String {
    let dims = internal.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        return internal.replace('/', ".");
    }
    let element = &internal[dims..];
    let base = match element {
        "B" => "byte".to_string(),
        "C" => "char".to_string(),
        "D" => "double".to_string(),
        "F" => "float".to_string(),
        "I" => "int".to_string(),
        "J" => "long".to_string(),
        "S" => "short".to_string(),
        "Z" => "boolean".to_string(),
        _ => match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(class) => class.replace('/', "."),
            // Not a descriptor: kept as written.
            None => return internal.replace('/', "."),
        },
    };
    format!("{base}{}", "[]".repeat(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_read_as_jfr_print_writes_them() {
        assert_eq!(java_name("java/lang/String"), "java.lang.String");
        assert_eq!(java_name("[B"), "byte[]");
        assert_eq!(java_name("[[J"), "long[][]");
        assert_eq!(java_name("[Ljava/lang/Object;"), "java.lang.Object[]");
        assert_eq!(java_name("Hot$$Lambda$14.0x0000000800c03000"), "Hot$$Lambda$14.0x0000000800c03000");
        assert_eq!(java_name("[Q"), "[Q");
    }
}
