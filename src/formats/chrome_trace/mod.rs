//! Chrome's Trace Event Format (JSON): what `chrome://tracing`, Perfetto UI and speedscope open, as
//! py-spy (`py-spy record --format chrometrace`), Clang (`-ftime-trace`) and Chrome's performance
//! panel write it (the "Trace Event Format" document; shared notes `world-formats.md` §3).
//!
//! ```text
//! {"traceEvents":[
//!   {"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"main"}},
//!   {"name":"parse","ph":"B","ts":100,"pid":1,"tid":7,"args":{"filename":"app.py","line":4}},
//!   {"name":"lex","ph":"X","ts":110,"dur":20.5,"pid":1,"tid":7},
//!   {"name":"parse","ph":"E","ts":200,"pid":1,"tid":7}],
//!  "displayTimeUnit":"ms"}
//! ```
//!
//! **Grammar**: a JSON array of events, or an object whose `traceEvents` is that array (its other
//! keys are metadata; `displayTimeUnit`, `ms` or `ns`, only says how a viewer shows times). An event
//! is an object with its phase `ph` (one character), `name`, `ts` (µs, fractions allowed), `pid` and
//! `tid` (numbers or strings), `dur` (µs, `X` only; else `tdur`) and `args` (anything). `B`/`E`
//! begin and end a slice on their thread and nest there (an `E` may omit its name); `X` is a whole
//! slice; `M` is metadata (`thread_name`: `args.name`); `P` events named `Profile` and
//! `ProfileChunk` (and an old `CpuProfile`) carry a V8 CPU profile in `args.data`. Events need not
//! be in time order, and the array may lack its closing `]` (a trace written as it ran).
//!
//! **Model**: each (pid, tid) track is a thread root, named by its `thread_name` metadata or `tid N`;
//! its slices nest by time (an `E` closes the innermost open `B`; `X` slices sorted by start, the
//! longer first where two start together; a slice that outlasts its parent ends with it), and each
//! stack of open slices weighs the time (µs) to the next event of the track: the metric `time`, whole
//! µs as integers (time at no slice is no one's). A frame is named by the event's `name`
//! (`(unnamed)` without one), with Clang's `args.detail` after it in parentheses; its module is
//! `args.filename` (py-spy), `args.file` (Clang) or `args.url`, and with an `args.line` it is that
//! source line (py-spy's slices are lines of functions). Clang's `Total …` tracks (a tid without a
//! thread name whose slices are all `Total NAME` summaries) are dropped. A trace with `Profile` and
//! `ProfileChunk` events is the CPU profile they carry (read as a `.cpuprofile` is, the chunks of the
//! first profile joined in time order; its time and the url as module, not its sample counts nor
//! where functions are defined) under the root of the profile's thread; its slices are not
//! read (as speedscope reads such a trace), said in a warning. `displayTimeUnit` other than `ms` is
//! the header fact `chrome-trace.displayTimeUnit`. Instant, counter, async, flow and other events
//! are counted in one warning; an `E` that does not close the innermost open slice is ignored and
//! slices still open at the end close at the trace's last timestamp (each warned once).
//!
//! **Reading** streams: the JSON is parsed as it comes, event by event (no document in memory);
//! each slice is kept as 32 bytes until its track is laid out at the end (events need not be in
//! order).
//!
//! **Errors**: JSON errors at their line and column; an event without `ph`, a slice without `ts`, a
//! negative `dur`, a CPU profile whose nodes do not form a tree, at the event. A trace cut short
//! between two events is read, with a warning.
//!
//! **Written**: the object form, a `process_name` and per root a `thread_name` metadata event (the
//! roots are threads, one tid each from 1), then per thread its stacks as `X` slices laid out as a
//! flame chart: each node a slice as long as its inclusive time, its callees one after another from
//! its start, its own time after them; `ts` and `dur` in µs, fractions where the time has them.
//! A source line frame or a frame with a module has `args` `filename` and `line` (as py-spy writes
//! them; speedscope then names the frame with them). Roots that are not threads go under a thread
//! `main`; a thread's own time is a slice named after the thread (a track holds slices only); time
//! is rounded to the nanosecond. A profile without time is refused, or its samples or ticks are time
//! at its interval (the conversion says which, on stderr).
//!
//! **Lost**: processes (threads of one name in two processes are one root), the order and
//! timestamps of slices (the flame chart puts callees one after another), time on a thread outside
//! any slice, other `args`, categories, instant, counter, async and flow events; stacks of no time
//! are not written.

mod read;
mod write;

pub(crate) use read::read;
pub(crate) use write::write;

use super::{Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::model::{FrameKind, FrameRef, MetricKind, NodeId, Profile, Repr, Unit, Values};

const FORMAT: Format = Format::ChromeTrace;

/// What a Chrome trace holds.
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: true,
    thread_roots: true,
    frame_kinds: false,
    metrics: &[MetricKind::Time],
    one_metric: false,
    function_facts: false,
    source_lines: true,
    modules: true,
    title: false,
    timestamp: false,
    interval: false,
    name_replacements: &[],
    lines_nest: false,
    time_unit: Some(Unit::Microseconds),
    flat_reports: false,
    needs_samples: false,
    weight_is_time: true,
};

/// The header fact of a `displayTimeUnit` other than `ms`.
const DISPLAY_TIME_UNIT: &str = "chrome-trace.displayTimeUnit";

/// `Yes` for a JSON object with the key `traceEvents` in the head, or an array of objects with a
/// `ph` key.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let head = head.trim_ascii_start();
    let has = |key: &[u8]| memchr::memmem::find(head, key).is_some();
    let array = head.strip_prefix(b"[").is_some_and(|rest| rest.trim_ascii_start().starts_with(b"{")) && has(b"\"ph\"");
    match array || (head.starts_with(b"{") && has(b"\"traceEvents\"")) {
        true => Sniff::Yes,
        false => Sniff::No,
    }
}

/// Fits a profile projected onto [`CARRIES`] to what a trace holds: every root a thread (roots
/// that are not go under one thread, `main`; frames below them functions), a thread's own time in a slice named after it (a
/// track holds slices only), time to the nanosecond (rounded); the last two said on stderr.
pub(crate) fn fit(profile: Profile, diag: &mut Diagnostics) -> Profile {
    let is_thread = |f: &crate::model::Frame| f.kind == FrameKind::Thread;
    let loose = profile.tree.roots().any(|r| !is_thread(profile.frames.get(profile.tree.frame(r))));
    let mut profile = profile;
    if loose {
        let name =
            super::unique_name("main".into(), |name| profile.frames.contains(FrameRef::named(name, FrameKind::Thread)));
        let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        profile = crate::model::ops::adopt_roots(&profile, thread, |f| !is_thread(f));
    }
    // A thread is a track: below the roots every frame is a function.
    super::sampler::make_nested_frames_functions(&mut profile);
    let Some(time) = profile.metrics().iter().position(|m| m.kind == MetricKind::Time) else { return profile };
    if let Values::Float(values) = profile.tree.self_values(time) {
        let rounded: Vec<f64> = values.iter().copied().map(to_nanosecond).collect();
        if rounded != *values {
            diag.warn("chrome-trace-rounded", None, || {
                format!("{FORMAT} is written to the nanosecond: time below a whole nanosecond is rounded")
            });
            let metric = profile.metrics()[time].clone();
            profile.replace_metric(time, metric, Values::Float(rounded));
        }
    }
    let roots: Vec<NodeId> =
        profile.tree.roots().filter(|&r| profile.tree.self_value(time, r).as_f64() != 0.0).collect();
    if !roots.is_empty() {
        let zero = match profile.metrics()[time].repr {
            Repr::Int => crate::model::Value::Int(0),
            Repr::Float => crate::model::Value::Float(0.0),
        };
        for &root in &roots {
            let name = profile.frames.get(profile.tree.frame(root)).name.clone();
            let own = profile.frames.intern(FrameRef::function(&name));
            let value = profile.tree.self_value(time, root);
            let node = profile.tree.push(Some(root), own);
            profile.tree.set_self(time, node, value);
            profile.tree.set_self(time, root, zero);
        }
        if profile.tree.has_duplicate_siblings(profile.frames.len()) {
            profile = crate::model::ops::merge_siblings(&profile);
        }
        diag.warn("chrome-trace-thread-time", None, || {
            format!(
                "{FORMAT} holds slices of threads: the time of {} threads of their own is a slice named after the thread",
                roots.len()
            )
        });
    }
    profile
}

/// Time in µs to the nanosecond: what a trace's slices hold, laid out as sums of fractions, read
/// back as it was written (the error of adding floats is far below a nanosecond).
fn to_nanosecond(micros: f64) -> f64 {
    (micros * 1e3).round() / 1e3
}
