//! JDK Flight Recorder recordings (`.jfr`), as `java -XX:StartFlightRecording`, `jcmd JFR.dump`
//! and JDK Mission Control write them, and the JDK's own `jfr print` and `jfr summary` read them
//! (read only).
//!
//! ```text
//! 46 4c 52 00  00 02 00 01   chunk header: "FLR\0", version 2.1
//! <chunk size> <last checkpoint's offset> <metadata's offset>      eight bytes each, big-endian
//! <start ns> <duration ns> <start ticks> <ticks per second> <file state, flags: four bytes>
//! <size> 0 …                 the metadata event: its strings, then a tree of elements, the classes
//!                            (types) with their ids and fields (type id, constantPool, dimension)
//! <size> 1 … <delta> …       checkpoint events: constant pools, (type id, count, (id, value)…)…
//! <size> <type id> …         events: their fields in their type's order
//! ```
//!
//! **Grammar** (the JDK's `jdk.jfr.internal` writer and `jdk.jfr.internal.consumer` parser; JDK 11
//! to 25 write version 2.0 or 2.1, JDK 9 and 10 wrote 1.0, and the JDK reads 1.x alike): a recording is chunks one after
//! another, each a 68-byte header (big-endian) and events. Every `short`, `char`, `int` and
//! `long` after the header, sizes and ids included, is LEB128 (seven bits a byte, low first, a
//! ninth byte of eight bits); `float`s and `double`s are big-endian, a `boolean` or `byte` one
//! byte. An event is its size (counting itself), its type id (0 metadata, 1 checkpoint, else a
//! class id of the metadata) and its fields. A string is an encoding byte (0 null, 1 empty, 2 an
//! id in the `java.lang.String` pool, 3 UTF-8, which the JVM writes as Java's modified UTF-8: a
//! character past U+FFFF as its two surrogates of three bytes each, NUL as `C0 80`; 4 `char`s,
//! UTF-16 code units; 5 Latin-1) and its length and contents (`strings.rs`).
//! A field marked `constantPool` holds an id into its type's pool; `dimension="1"` makes it an
//! array (a count, then its items); a field of a class type holds that class's fields inline.
//! The checkpoints of a chunk are a list from the last (the header's offset) back through each
//! one's delta; together they are the chunk's pools, which the chunk's events and pool entries
//! refer to (a stack trace to methods, a method to its class and symbols). Id 0 is no value.
//!
//! **Model**: a root per thread (its Java name, else its OS name), below it the stack of each event
//! read (root first; a stack JFR cut at its depth limit under a `(truncated)` pseudo-frame). A frame
//! is its method as `package.Class.method` (the class's `/` as `.`; a stub's method, whose class is
//! empty, its name alone: `itable stub`), a line frame at its line where the frame has one (a
//! function frame where it has none: native methods), and what JFR says it ran as (`Interpreted`,
//! `JIT compiled`, `Inlined`, `Native`) is the frame fact `jfr.frame-type`, the types a frame was
//! seen as, comma-separated. Below the stack of an allocation event is the allocated class, of a
//! lock event the monitor's (or parked) class, as async-profiler's converter puts them, named as
//! `jfr print` names a class (`byte[]`, `java.lang.String`), its `jfr.frame-type` `Allocated class`,
//! `Monitor class` or `Parked class`. Metrics, each where the recording has events of it, every
//! quantity beside the count of the events it rests on:
//!
//! | event | quantity | its events |
//! |---|---|---|
//! | `jdk.ExecutionSample` | | `samples` |
//! | `jdk.NativeMethodSample` | | `native-samples` (taken at their own period, 20 ms by default: events, never converted to time) |
//! | `jdk.ObjectAllocationSample` | `alloc-weight` (bytes, its `weight`: what JFR says each sample stands for) | `sampled objects` |
//! | `jdk.ObjectAllocationInNewTLAB` | `alloc-new-tlab` (bytes, the new TLAB's `tlabSize`, as JMC and async-profiler weigh it) | `new-tlab objects` |
//! | `jdk.ObjectAllocationOutsideTLAB` | `alloc-outside-tlab` (bytes, its `allocationSize`) | `outside-tlab objects` |
//! | `jdk.JavaMonitorEnter` | `monitor-enter-time` (ns, its `duration`) | `monitor-enter events` |
//! | `jdk.JavaMonitorWait` | `monitor-wait-time` (ns) | `monitor-wait events` |
//! | `jdk.ThreadPark` | `park-time` (ns) | `park events` |
//!
//! Durations are in the chunk's ticks, turned into nanoseconds at its ticks per second (exact where
//! a tick is a nanosecond, as on Linux). The interval is the `period` setting of
//! `jdk.ExecutionSample` that the recording's `jdk.ActiveSetting` events state (where they were
//! recorded, and only when it stayed one value); the header facts `jfr.version`, `jfr.chunks`,
//! `jfr.period` and `jfr.native-period` (the settings as JFR writes them, `10 ms`), and the first
//! chunk's start as the timestamp. Events of other types that have a stack (a stack trace id that
//! is not 0: a type with a stack field has events without one) are counted and named on stderr; a
//! recording with no event the reader takes is refused, naming what it holds.
//!
//! **JFR 1.0** (JDK 9 and 10): the same layout, its events named `com.oracle.jdk.ExecutionSample`
//! and its pool types `com.oracle.jfr.types.StackTrace`, which are read as `jdk.` and `jdk.types.`
//! (as the JDK's parser and JMC's read them). Its integers are compressed where the header's
//! features say so (bit 0 of its last byte), else big-endian of their type's width (`int` 4 bytes,
//! `long` 8, `short` and `char` 2), as JMC's parser reads a 1.x chunk; a 2.x chunk's are always
//! compressed, as the JDK's parser reads them whatever the flag.
//!
//! **Reading**: a chunk at a time, its bytes read whole (JDK chunks are 12 MB at most by default)
//! and nothing else kept of it but the tree: its metadata first, then its checkpoints (the pool
//! entries of the types a stack or thread resolves through, kept as values; stack traces, most
//! of a chunk's pools, kept by their place and read where an event names them), then its events
//! in order, each stack trace of each thread resolved once per chunk and each frame (method,
//! line, frame type) named once per chunk. A chunk's pools are its own, as
//! the JDK writes them (each chunk can be read alone); an id that no checkpoint of the chunk holds
//! is none, as the JDK's parser reads it (a sample of a thread that ended before its pool entry
//! was written), and the references to nothing are counted in a warning at the first. (The JDK's parser reuses the value an id had in the chunk
//! before, which is the same value within one JVM's recording; of recordings of several JVMs
//! joined into one file, proftool reads each chunk's own, `jfr print` the first's.)
//!
//! **Errors**, each at its byte: a chunk whose magic is not `FLR\0`, of a version other than 1 or 2,
//! cut short (its header or its bytes), of no ticks per second, an event whose size runs past its
//! chunk, metadata or checkpoints not where the header says, a string, count or value cut short or
//! longer than its event, types that nest in themselves; a recording of no event the reader takes.
//!
//! **Timeline**: each execution and native sample at its `startTime` (the chunk's ticks from its
//! start, in ns since the epoch), as `jfr print` gives it.
//!
//! **Lost**: every other event (GC, I/O, thread sleeps, …: those with a stack named on stderr), the
//! times of the events but samples, thread states, lock owners and addresses, the methods' descriptors (overloads of
//! one name are one frame) and modifiers, bytecode indices, class loaders, modules and packages.

use super::spec::{Carries, Reads, Sniff, Spec};
use crate::error::FormatName;
use crate::model::Sampling;
use crate::model::{Metric, MetricKind, Repr, Unit};
use std::time::Duration;

mod chunk;
mod events;
mod read;
mod strings;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "jfr",
    description: "JDK Flight Recorder recording (`java -XX:StartFlightRecording`, JDK 9 to 25): execution and native method samples per thread, allocations (samples, TLABs) as bytes and objects below their class, monitor enters, waits and parks as time and events",
    extensions: &["jfr"],
    carries: Carries::SAMPLES_PER_THREAD
        .weighing(&[MetricKind::Samples, MetricKind::Events, MetricKind::Alloc, MetricKind::Objects, MetricKind::Time])
        .with_source_lines()
        .with_timestamp()
        .with_interval(),
    reads: Some(Reads::binary(sniff, |input, _, diag| read::Reader::new().read(input, diag))),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The frame fact naming the frame types a frame was seen as.
const FRAME_TYPE: &str = "jfr.frame-type";

/// `Yes` for a chunk's magic.
fn sniff(head: &[u8]) -> Sniff {
    if head.starts_with(chunk::MAGIC) {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// The metrics a recording is read into, in order (those without events are dropped at the end).
/// Every quantity that stands for what was sampled (bytes, time) has beside it the count of the
/// events behind it, so that a comparison can judge how many observations a figure rests on.
struct Metrics;

impl Metrics {
    const SAMPLES: usize = 0;
    const NATIVE_SAMPLES: usize = 1;
    const ALLOC_WEIGHT: usize = 2;
    const SAMPLED_OBJECTS: usize = 3;
    const NEW_TLAB_BYTES: usize = 4;
    const NEW_TLAB_OBJECTS: usize = 5;
    const OUTSIDE_TLAB_BYTES: usize = 6;
    const OUTSIDE_TLAB_OBJECTS: usize = 7;
    const MONITOR_ENTER_TIME: usize = 8;
    const MONITOR_ENTERS: usize = 9;
    const MONITOR_WAIT_TIME: usize = 10;
    const MONITOR_WAITS: usize = 11;
    const PARK_TIME: usize = 12;
    const PARKS: usize = 13;
    const COUNT: usize = 14;

    fn all() -> Vec<Metric> {
        // Every metric counts events that were sampled (execution and allocation samples) or
        // recorded past a threshold (TLAB refills, locks past their 20 ms), or weighs them: each
        // quantity's events are counted in the metric just after it.
        let count = |name: &str, kind| Metric::new(name, kind, Unit::Count, Repr::Int).sampled(Sampling::counts());
        const WEIGHED: [(&str, MetricKind, Unit, &str, MetricKind); 6] = [
            ("alloc-weight", MetricKind::Alloc, Unit::Bytes, "sampled objects", MetricKind::Objects),
            ("alloc-new-tlab", MetricKind::Alloc, Unit::Bytes, "new-tlab objects", MetricKind::Objects),
            ("alloc-outside-tlab", MetricKind::Alloc, Unit::Bytes, "outside-tlab objects", MetricKind::Objects),
            ("monitor-enter-time", MetricKind::Time, Unit::Nanoseconds, "monitor-enter events", MetricKind::Events),
            ("monitor-wait-time", MetricKind::Time, Unit::Nanoseconds, "monitor-wait events", MetricKind::Events),
            ("park-time", MetricKind::Time, Unit::Nanoseconds, "park events", MetricKind::Events),
        ];
        let weighed = WEIGHED.iter().flat_map(|&(name, kind, unit, events, counted)| {
            let quantity = Metric::new(name, kind, unit, Repr::Int).sampled(Sampling::weights_of(events));
            [quantity, count(events, counted)]
        });
        [Metric::samples(), count("native-samples", MetricKind::Events)].into_iter().chain(weighed).collect()
    }
}

/// A period as JFR's settings write one (`10 ms`, `1 s`, `20 us`), as a duration; `None` for the
/// others (`everyChunk`, `beginChunk`, `endChunk`, `0 ms`).
fn parse_period(text: &str) -> Option<Duration> {
    let (number, unit) = text.trim().split_once(' ')?;
    let n: u64 = number.parse().ok()?;
    let nanos = crate::model::nanoseconds_per(unit.trim())?;
    Some(Duration::from_nanos(n.checked_mul(nanos)?)).filter(|d| !d.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_read_as_jfr_writes_them() {
        // The units are the model's (`nanoseconds_per`); JFR writes a number, a space and one.
        assert_eq!(parse_period("10 ms"), Some(Duration::from_millis(10)));
        assert_eq!(parse_period("1 h"), Some(Duration::from_secs(3600)));
        for other in ["everyChunk", "beginChunk", "endChunk", "0 ms", "10ms"] {
            assert_eq!(parse_period(other), None, "{other}");
        }
    }
}
