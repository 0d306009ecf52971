//! Chrome's Trace Event Format (JSON): what `chrome://tracing`, Perfetto UI and speedscope open, as
//! py-spy (`py-spy record --format chrometrace`), Clang (`-ftime-trace`) and Chrome's performance
//! panel write it (the "Trace Event Format" document).
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
//! is an object with its phase `ph` (one character), `name`, `ts` (µs, fractions allowed; a string
//! of a number too, as Hermes writes it), `pid` and `tid` (numbers or strings; a string of a whole
//! number is that number), `dur` (µs, `X` only; else `tdur`) and `args` (anything). `B`/`E` begin
//! and end a slice on their thread and nest there (an `E` may omit its name); `X` is a whole slice;
//! `M` is metadata (`thread_name`: `args.name`); `P` events named `Profile` and `ProfileChunk` (and
//! an old `CpuProfile`) carry a V8 CPU profile in `args.data` (Chrome 141 writes chunks without
//! it). The object may also hold the sampling form (Chrome's sampling traces, Hermes' profiles of
//! React Native): `samples` (`ts`, `pid`, `tid`, `sf`, the innermost stack frame's id; `weight`)
//! and `stackFrames` (id → `name`, `category`, `parent`). Events need not be in time order, and the
//! array may lack its closing `]` (a trace written as it ran).
//!
//! **Model**: each (pid, tid) track is a thread root, named by its `thread_name` metadata or `tid N`
//! (a name two tracks share followed by ` (pid N)`, or ` (pid N, tid N)` where their process is one);
//! its slices nest as speedscope's importer (`trace-event.ts`) nests them, which settles what the
//! events leave open or contradict, but for what an `X` states of its own end: `X` slices in start
//! order, the longer first where two start together, each a begin at its start and an end at
//! `ts + dur`, one of no length begun and ended at once, holding nothing (speedscope queues its end
//! with the others', before a sibling's begin at its time and so before its own: Clang's traces of
//! `-ftime-trace-granularity=0` were left open from there); the begins and the ends each in time
//! order, file order where equal; of a begin and an end at one time, the end first unless they are
//! a `B` and an `E` of one name and args (a slice of no length, as speedscope takes them); an end
//! at the time of others closes the innermost open slice if one of them is its (by name and args,
//! else by name; an `X`'s end that is the innermost's closes it); an end that names another
//! slice (an `X` ending after its parent, an `E` of another name) is ignored, its time too; an `E`
//! without a name closes the innermost slice (speedscope ignores it: the format allows it). Each
//! stack of open slices weighs the time (µs) to the next begin or end: the metric `time`, whole µs
//! as integers (time at no slice is no one's). A frame is named by the event's `name` (`(unnamed)`
//! without one), with Clang's `args.detail` after it in parentheses; its module is `args.filename`
//! (py-spy), `args.file` (Clang) or `args.url`, and with an `args.line` it is that source line
//! (py-spy's slices are lines of functions). Clang's `Total …` tracks (a tid without a thread name
//! whose slices are all `Total NAME` summaries) are dropped. A trace with `Profile` and
//! `ProfileChunk` events is the CPU profiles they carry (what DevTools' Performance panel saves),
//! each read as a `.cpuprofile` is, its chunks joined in time order, under the root of the thread of
//! its `Profile` event (with ` (pid N)` after the thread's name where profiles come from several
//! processes): a profile is its process and `id` (each Chromium process numbers its own from
//! `0x1`), else its thread. Their time and samples, as the same profile saved as a `.cpuprofile` is
//! read (weighed by time), and the url as module (not where functions are defined); a profile
//! without an `endTime` gives its last sample no time, as speedscope does (a sample still); chunks without `args.data`, and chunks of no profile declared before them, are
//! skipped. The trace's slices (the browser's tasks beside the samples) are then not read, as
//! speedscope reads such a trace; said in a warning. A trace with `samples` and `stackFrames` is
//! those samples (as speedscope reads it): each weighs the time to the next sample of its thread
//! (the last none), its stack its frame and the frame's parents, under its thread's root. Stacks of
//! nothing are not kept (a trace writes no slice of no time: a conversion into one drops them). `displayTimeUnit` other than `ms` is the header fact
//! `chrome-trace.displayTimeUnit`. Instant, counter, async, flow and other events are counted in
//! one warning; ends ignored, `E`s whose (not empty) args differ from their slice's, `X` slices' ends
//! that close another slice of their name (the two overlap), and slices still open at their track's
//! last begin or end (closed there, as speedscope closes them) are each counted in a warning.
//!
//! **Reading** streams: the JSON is parsed as it comes, event by event (no document in memory);
//! each slice is kept as 32 bytes until its track is laid out at the end (events need not be in
//! order).
//!
//! **Errors**: JSON errors at their line and column; an event without `ph`, a slice without `ts`, a
//! negative `dur`, a CPU profile whose nodes do not form a tree (a child id that names no node is
//! skipped, a parent id that names none makes its node a root, a sample that names none is the
//! sample's before it, each warned, as speedscope reads them), a sample's stack frame that is missing or in a cycle of parents, at the
//! event. A trace cut short between two events is read, with a warning. A Perfetto trace
//! (protocol buffers, Chromium's default) is another format, `perfetto`, which reads its slices.
//!
//! **Timeline**: each slice laid out, from its begin to its end (ns), on its node; or each CPU
//! profile's samples at their times, over the span from the earliest `startTime` to the latest end.
//!
//! **Written**: the object form, a `process_name` and per root a `thread_name` metadata event (the
//! roots are threads, one tid each from 1). Where the timeline's samples weigh the time of each
//! thread as a CPU profile's do (each the time to the next; a `.cpuprofile`'s, a trace's own CPU
//! profiles) and no frame is a source line, each thread is a CPU profile, as DevTools saves one: a
//! `Profile` event (`id` `0x` and the tid, its `startTime`) and one `ProfileChunk` of its nodes
//! (each with its `parent`), its samples and `timeDeltas` in µs and its `endTime`, the thread's
//! span told by its time (the first sample's node's time before it, the last's after it), a closing
//! `(root)` sample at the end that gives the last its time in speedscope; each sample once, and the
//! metric samples kept where it counts them (else dropped, said). Else the samples' times are
//! dropped, said on stderr, and each thread is slices: the slices of the profile's timeline at
//! their times, as `B` and `E` events (an end before a begin at its time), where each node's time
//! is the length of its slices (the fit checks it, and says where it is not: a frame hidden, lines
//! merged); else its stacks as slices laid out as a flame chart: each node a `B` and an `E` event as far apart as its inclusive time, its callees one
//! after another from its start, its own time after them, in nesting order. Times are added up in
//! whole nanoseconds and written as µs with up to three decimals, so that a callee that ends with
//! its caller ends at the very same number (as sums of floats they differed in the last digit, and
//! viewers closed the caller first). A begin of a source line frame or a frame with a module has
//! `args` `filename` and `line` (as py-spy writes them; speedscope then names the frame with them);
//! an end has empty `args`, so that speedscope never takes it for the end of a slice of no length
//! that begins at its time (see `write`). speedscope builds from this file the call tree it builds
//! from the speedscope conversion, stack for stack (`.ci/speedscope-import.mjs` checks every
//! fixture). Roots that are not threads go under a thread `main`; a thread's own time is a slice
//! named after the thread (a track holds slices only); time is rounded to the nanosecond. A profile
//! without time is refused, or its samples or ticks are time at its interval (the conversion says
//! which, on stderr).
//!
//! **Lost**: processes (threads of one name in two processes are one root, unless they carry CPU
//! profiles), the order and timestamps of slices and samples where the profile has none of its own
//! that the trace holds (the flame chart puts callees one after another), samples beside slices,
//! where functions are defined (an anonymous function keeps the name it is given),
//! time on a thread outside any slice, other `args`, categories, instant, counter, async and flow
//! events; stacks of no time are not written.

mod read;
mod write;

pub(crate) use read::read;
pub(crate) use write::write;

use super::spec::{self, Carries, JsonKind, Reads, Rules, Spec, Writes};
use crate::diag::Diagnostics;
use crate::error::FormatName;
use crate::formats::ConvertOptions;
use crate::model::{FrameKind, FrameRef, MetricKind, NodeId, Profile, Repr, Unit, Values};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "chrome-trace",
    description: "Chrome trace events (py-spy, Clang `-ftime-trace`, Chrome); opens in Perfetto",
    // py-spy and Clang write `.json`: content decides.
    extensions: &["trace.json", "json"],
    carries: CARRIES,
    reads: Some(Reads::json(
        JsonKind { what: "a Chrome trace (JSON trace events)", aside: "", check },
        read,
    )),
    writes: Some(Writes::new(write, Rules { fit, ..spec::STACKS_ONLY })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a Chrome trace holds.
pub(crate) const CARRIES: Carries = Carries {
    // Samples in CPU profiles only, ticks as time only: the fit drops them once time is made.
    metrics: &[MetricKind::Time, MetricKind::Samples, MetricKind::Ticks],
    one_metric: false,
    source_lines: true,
    modules: true,
    time_unit: Some(Unit::Microseconds),
    weight_is_time: true,
    needs_time: true,
    timeline: true,
    slices: true,
    ..Carries::SAMPLES_PER_THREAD
};

/// The header fact of a `displayTimeUnit` other than `ms`.
const DISPLAY_TIME_UNIT: &str = "chrome-trace.displayTimeUnit";

/// Whether the input is a JSON object with the key `traceEvents` in the head, or an array of
/// objects with a `ph` key; if not, why not.
pub(crate) fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = super::json::Head::of(head);
    let of_objects = |rest: &[u8]| rest.trim_ascii_start().starts_with(b"{");
    match head.bytes().split_first() {
        Some((b'[', rest)) if of_objects(rest) && head.mentions(b"\"ph\"") => Ok(()),
        Some((b'[', rest)) if of_objects(rest) => Err("an array of objects without a \"ph\" key (an event's phase)"),
        Some((b'{', _)) if head.mentions(b"\"traceEvents\"") => Ok(()),
        Some((b'{', _)) => Err("an object without a \"traceEvents\" key"),
        _ => Err("neither an array of events nor an object with \"traceEvents\""),
    }
}

/// Fits a profile projected onto [`CARRIES`] to what a trace holds: every root a thread (roots
/// that are not go under one thread, `main`; frames below them functions), a thread's own time in a slice named after it (a
/// track holds slices only), time to the nanosecond (rounded); the last two said on stderr.
pub(crate) fn fit(profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    let is_thread = |f: &crate::model::Frame| f.kind == FrameKind::Thread;
    let loose = profile.tree.roots().any(|r| !is_thread(profile.frames.get(profile.tree.frame(r))));
    let mut profile = profile;
    if loose {
        let name = super::shared::unique_name("main".into(), |name| {
            profile.frames.contains(FrameRef::named(name, FrameKind::Thread))
        });
        let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        profile = crate::model::ops::adopt_roots(&profile, thread, |f| !is_thread(f));
    }
    // A thread is a track: below the roots every frame is a function, and one of a function's name
    // beside it is the same slice (read back as one).
    crate::model::ops::make_functions(&mut profile, crate::model::ops::is_nested_non_code);
    let mut profile = crate::model::ops::merged_siblings(profile);
    let Some(time) = profile.metric_of_kind(MetricKind::Time) else { return profile };
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
            if let Some(timeline) = &mut profile.timeline {
                timeline.move_samples(root, node);
            }
        }
        profile = crate::model::ops::merged_siblings(profile);
        diag.warn("chrome-trace-thread-time", None, || {
            format!(
                "{FORMAT} holds slices of threads: the time of {} threads of their own is a slice named after the thread",
                roots.len()
            )
        });
    }
    let dropped = profile.timeline.as_mut().map_or(0, |t| t.keep_slices_that_are_the_time(&profile.tree, time, 1e3));
    if dropped > 0 {
        diag.warn("timeline-partial", None, || {
            format!("{FORMAT}: the slices of {dropped} threads are not their time (a filter or a merge changed it): their slices are laid out as a flame chart, not at their times")
        });
    }
    let profile = keep_samples_that_are_cpu_profiles(profile, diag);
    let cpu_profiles = profile.timeline.as_ref().is_some_and(|t| !t.samples().is_empty());
    let profile = keep_samples_written(profile, cpu_profiles, diag);
    let Some(time) = profile.metric_of_kind(MetricKind::Time) else { return profile };
    // A stack of no time is no slice (a CPU profile's last sample, read from a trace with its
    // samples beside the time): the model is what the trace written holds. The trace writes no
    // frame facts, which the copy drops.
    let inclusive = profile.tree.derived_inclusive(time);
    let timeless =
        profile.tree.nodes().any(|n| profile.tree.parent(n).is_some() && inclusive.get(n.index()).as_f64() == 0.0);
    match timeless && !cpu_profiles {
        true => read::without_timeless_stacks(&profile),
        false => profile,
    }
}

/// `profile` with the samples of its timeline where they are CPU profiles
/// ([`write::cpu_profiles`]: each thread's samples weigh its time as V8's do, and there are no
/// slices); else without them, said on stderr: its threads are then slices (a trace holds either).
fn keep_samples_that_are_cpu_profiles(mut profile: Profile, diag: &mut Diagnostics) -> Profile {
    let samples = profile.timeline.as_ref().map_or(0, |t| t.samples().len());
    if samples == 0 {
        return profile;
    }
    if write::cpu_profiles(&profile).is_some() {
        let time = profile.metric_of_kind(MetricKind::Time);
        let fractions = time.is_some_and(|m| profile.tree.self_values(m).to_f64().iter().any(|t| t.fract() != 0.0));
        if fractions {
            diag.warn("chrome-trace-rounded", None, || {
                format!("{FORMAT} holds samples as CPU profiles, whose deltas are whole microseconds: time below a microsecond is rounded")
            });
        }
        return profile;
    }
    profile.timeline = profile.timeline.take().and_then(|t| t.without_samples());
    diag.warn("timeline-partial", None, || {
        format!("{FORMAT} holds samples as CPU profiles, of functions, each sample weighing the time to the next; this profile's samples do not weigh its time so (a clock's periods, several profiles of a thread at once, slices beside them) or its frames are source lines: the times of {samples} samples are dropped, the threads laid out as a flame chart of slices")
    });
    profile
}

/// `profile` with a metric of samples where the trace holds it: in CPU profiles (`cpu_profiles`),
/// the one that counts the timeline's samples of each node (each written once); the others, and
/// ticks (whose time the conversion made), dropped, said on stderr.
fn keep_samples_written(mut profile: Profile, cpu_profiles: bool, diag: &mut Diagnostics) -> Profile {
    let tree = &profile.tree;
    let is_count = |m: usize| matches!(profile.metrics()[m].kind, MetricKind::Samples | MetricKind::Ticks);
    let counts = profile.timeline.as_ref().filter(|_| cpu_profiles).map(|timeline| {
        let mut counts = vec![0f64; tree.len()];
        timeline.samples().iter().for_each(|s| counts[s.node.index()] += 1.0);
        counts
    });
    let counts_them = |m: usize| counts.as_ref().is_some_and(|c| tree.nodes().all(|n| tree.self_value(m, n).as_f64() == c[n.index()]));
    let written = (0..profile.metrics().len())
        .find(|&m| profile.metrics()[m].kind == MetricKind::Samples && counts_them(m));
    let keep: Vec<bool> = (0..profile.metrics().len()).map(|m| !is_count(m) || Some(m) == written).collect();
    let dropped: Vec<String> =
        keep.iter().enumerate().filter(|(_, &kept)| !kept).map(|(m, _)| profile.metrics()[m].name.clone()).collect();
    if !dropped.is_empty() {
        let held = match cpu_profiles {
            true => "its CPU profiles count the samples of the timeline, which these do not",
            false => "slices of time hold no counts",
        };
        let names = dropped.join(", ");
        diag.warn("chrome-trace-samples", None, || format!("{FORMAT} has no place for {names} ({held}): dropped"));
        profile.retain_metrics(&keep);
    }
    if written.is_some() {
        // Weighed by its time, as the trace's CPU profiles are read.
        profile.meta.weighed_by = Some(MetricKind::Time);
    }
    profile
}

/// Time in µs to the nanosecond: what a trace's slices hold, laid out as sums of fractions, read
/// back as it was written (the error of adding floats is far below a nanosecond).
fn to_nanosecond(micros: f64) -> f64 {
    (micros * 1e3).round() / 1e3
}
