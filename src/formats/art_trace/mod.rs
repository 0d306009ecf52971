//! Android ART's method traces: the `.trace` file `Debug.startMethodTracing`, `am profile start`
//! and Android Studio write (ART's `runtime/trace.cc`; the "dmtrace" format of Dalvik's
//! `dmtracedump` and Android Studio's `VmTraceParser`), read only, in both layouts ART writes.
//!
//! ```text
//! *version                          ← regular layout: a text header …
//! 3
//! data-file-overflow=false
//! clock=dual
//! elapsed-time-usec=8758407
//! vm=art
//! pid=15355
//! *threads
//! 15355  main
//! *methods
//! 0x2ac  java.lang.BootClassLoader  findClass  (Ljava/lang/String;)Ljava/lang/Class;  ClassLoader.java
//! *end
//! SLOW u16 version u16 header-length u64 start-µs [u16 record-size]   ← … then the binary part
//! records: u16 tid (u8 in version 1), u32 method|action, [u32 thread-cpu µs], [u32 wall µs]
//! ```
//!
//! (The fields of a thread or method line are separated by tabs, shown here as two spaces.)
//!
//! **Grammar**: the regular layout is the text sections `*version` (the version, then `key=value`
//! lines), `*threads` (`TID<TAB>NAME`), `*methods` (`0xID<TAB>CLASS<TAB>NAME<TAB>SIGNATURE<TAB>FILE`)
//! and `*end`, then the binary part: the magic `SLOW` (0x574f4c53 little-endian), the version (1
//! to 3, the same as the text's), the header's length (32), the start time, and from version 3 the
//! size of a record; records from the header's end to the end of the file, each the thread, the
//! method id with its action in its two low bits (0 enter, 1 exit, 2 exit by an exception), and
//! the clocks the summary's `clock=` names (`dual`: the thread's CPU time, then the wall time;
//! `wall`; `thread-cpu`, also where no clock is named), in microseconds, the wall time from the
//! trace's start and the CPU time from the thread's first record. Versions 1 and 2 have records of
//! 9 and 10 bytes. The streaming layout (`--streaming`, Android Studio) is the binary header alone,
//! its version ORed with 0xF0, then records interleaved with what they refer to, each of those
//! starting with a 16-bit 0 and an op: 1 a method (a 16-bit length and a method line), 2 a thread (a
//! 16-bit tid, a 16-bit length and its name), 3 the summary (a 32-bit length and the text of the
//! regular header, whose `clock=` says how the records before it are laid out), which ends the
//! trace.
//!
//! **Model**, as the Firefox Profiler's importer (`src/profile-logic/import/art-trace.ts`) reads it:
//! each thread a call tree under a thread frame `NAME-PID/TID` (the summary's `pid`), a method
//! entered a frame `CLASS.NAME` (overloads one frame, as the importer names them) with its source
//! file as module, an exit leaving the method on top whatever method it names (counted in a warning
//! where it names another), an exit with nothing entered ignored (counted in a warning), as the
//! importer does. The time between a thread's record and its next is the own time of the method
//! on top between them (the thread's own where none is): `wall` (µs) and `cpu` (µs, the thread's
//! CPU time) as the clocks the summary names, `wall` first, and `calls`, how often each node was
//! entered. The importer makes the same tree of samples it fakes every 0.1 ms of wall time (or at
//! the interval it guesses where the trace comes from ART's sampling mode), which the wall time is
//! to the microsecond. Where the importer and ART differ proftool follows ART: a record of a thread
//! the trace does not name (an error to the importer) is kept under the thread `?-PID/TID`, with a
//! warning; a method the trace does not name is `<unknown method ID 0x…>`, as the importer names
//! it, with a warning. Methods still entered at the end are counted in a warning. The summary's
//! `key=value` facts are kept as `art-trace.KEY`; `data-file-overflow=true` (ART's buffer filled and
//! the trace stopped early) is warned.
//!
//! **Errors**: a header that is not the sections above in order, a version other than 1 to 3 or two
//! that differ, a binary part without `SLOW`, a record size too small for the clocks, a record cut
//! short by the end of the file, an action 3, an op of the streaming layout other than 1 to 3, a
//! method line whose id is no hex number: at their line or byte.
//!
//! **Lost**: signatures (overloads are one frame), the start time, the summary's other facts but as
//! header facts, the order of calls in time.

use super::json::read_all;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value};
use rustc_hash::FxHashMap;

mod layout;

use layout::{Clock, Record, Trace};

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "art-trace",
    description: "Android ART method traces (`Debug.startMethodTracing`, `am profile`: `.trace`, regular and streaming), as the Firefox Profiler imports them",
    extensions: &["trace"],
    carries: Carries::SAMPLES_PER_THREAD
        .as_tree()
        .weighing(&[MetricKind::Time, MetricKind::Calls])
        .with_frame_kinds()
        .with_modules(),
    reads: Some(Reads::binary(sniff, read)),
    writes: None,
};

const FORMAT: FormatName = SPEC.format_name();

/// `Yes` for the regular layout's first section (`*version` and a version 1 to 3) or the streaming
/// layout's header (`SLOW` and a version with 0xF0 set).
fn sniff(head: &[u8]) -> Sniff {
    let regular = head.len() >= 11 && head.starts_with(b"*version\n") && matches!(head[9], b'1'..=b'3');
    let streaming = head.len() >= 6 && head.starts_with(layout::MAGIC) && head[4] & 0xF0 == 0xF0 && head[5] == 0;
    Sniff::yes_if(regular && matches!(head[10], b'\n' | b'\r') || streaming)
}

/// Reads a whole trace, either layout.
fn read(input: &mut (dyn std::io::Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = read_all(input, FORMAT)?;
    let trace = layout::parse(&bytes)?;
    Calls::new(&trace).build(&bytes, &trace, diag)
}

/// The error at `position`: `expected`, `found`.
fn error(position: Position, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
    let kind = ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() };
    ParseError { format: FORMAT, position, kind }
}

/// A thread being read: its root and the methods entered, with the node of each, and its clocks
/// at its last record.
struct Thread {
    root: NodeId,
    stack: Vec<(NodeId, u32)>,
    last: [Option<u32>; 2],
}

/// What was said of the records read, counted.
#[derive(Default)]
struct Counts {
    mismatched_exits: u64,
    exits_with_nothing_entered: u64,
    unknown_threads: u64,
    unknown_methods: u64,
    backwards: u64,
}

/// The trees of the threads being made from the records.
struct Calls {
    profile: Profile,
    /// The metrics of the clocks: wall, then thread-cpu, each where the trace has it.
    clocks: Vec<(usize, usize)>,
    calls: usize,
    threads: FxHashMap<u16, Thread>,
    frames: FxHashMap<u32, FrameId>,
    children: FxHashMap<(NodeId, FrameId), NodeId>,
    counts: Counts,
}

impl Calls {
    /// The profile of `trace`'s clocks and calls.
    fn new(trace: &Trace) -> Calls {
        // Each clock's index in a record's clocks ([thread-cpu, wall] as `layout` reads them).
        let (wall, cpu) = (|| Metric::time(Unit::Microseconds, Repr::Int), || Metric::time(Unit::Microseconds, Repr::Int));
        let mut metrics = Vec::new();
        let mut clocks = Vec::new();
        if trace.clock.has_wall() {
            metrics.push(Metric { name: "wall".into(), ..wall() });
            clocks.push((metrics.len() - 1, 1));
        }
        if trace.clock.has_cpu() {
            metrics.push(Metric { name: "cpu".into(), ..cpu() });
            clocks.push((metrics.len() - 1, 0));
        }
        metrics.push(Metric::entries("calls"));
        let calls = metrics.len() - 1;
        let mut profile = Profile::new(metrics);
        profile.meta.weighed_by = Some(MetricKind::Time);
        profile.meta.attrs = trace.details.iter().map(|(k, v)| (format!("art-trace.{k}"), v.clone())).collect();
        let (threads, frames, children) = (FxHashMap::default(), FxHashMap::default(), FxHashMap::default());
        Calls { profile, clocks, calls, threads, frames, children, counts: Counts::default() }
    }

    /// Every record of `trace` taken, then the profile, with what was said.
    fn build(mut self, bytes: &[u8], trace: &Trace, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        for &at in &trace.records {
            let record = trace.record(bytes, at)?;
            self.take(&record, trace);
        }
        if trace.records.is_empty() {
            return Err(error(Position::byte(bytes.len() as u64), "a method record", "none: the trace holds no record"));
        }
        let open: usize = self.threads.values().map(|t| t.stack.len()).sum();
        self.say(open, trace, diag);
        Ok(self.profile)
    }

    /// One record taken: its clocks' time since the thread's last given to the method on top, then
    /// its enter or exit.
    fn take(&mut self, record: &Record, trace: &Trace) {
        let thread = self.thread(record.tid, trace);
        let top = self.threads[&record.tid].stack.last().map_or(thread, |&(node, _)| node);
        for &(metric, clock) in &self.clocks {
            let Some(state) = self.threads.get_mut(&record.tid) else { return };
            let now = record.clocks[clock];
            if let Some(last) = state.last[clock] {
                let delta = now.checked_sub(last).unwrap_or_else(|| {
                    self.counts.backwards += 1;
                    0
                });
                self.profile.tree.add_self(metric, top, Value::Int(i64::from(delta)));
            }
            state.last[clock] = Some(now);
        }
        match record.action {
            0 => {
                let frame = self.frame(record.method, trace);
                let child = *self.children.entry((top, frame)).or_insert_with(|| self.profile.tree.push(Some(top), frame));
                self.profile.tree.add_self(self.calls, child, Value::Int(1));
                if let Some(state) = self.threads.get_mut(&record.tid) {
                    state.stack.push((child, record.method));
                }
            }
            _ => match self.threads.get_mut(&record.tid).and_then(|state| state.stack.pop()) {
                Some((_, method)) => self.counts.mismatched_exits += u64::from(method != record.method),
                None => self.counts.exits_with_nothing_entered += 1,
            },
        }
    }

    /// The root of thread `tid`, made at its first record.
    fn thread(&mut self, tid: u16, trace: &Trace) -> NodeId {
        if let Some(thread) = self.threads.get(&tid) {
            return thread.root;
        }
        let pid = trace.details.iter().find(|(k, _)| k == "pid").map_or("?", |(_, v)| v.as_str());
        let name = match trace.threads.get(&tid) {
            Some(name) => format!("{name}-{pid}/{tid}"),
            None => {
                self.counts.unknown_threads += 1;
                format!("?-{pid}/{tid}")
            }
        };
        let frame = self.profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        let root = self.profile.tree.push(None, frame);
        self.threads.insert(tid, Thread { root, stack: Vec::new(), last: [None, None] });
        root
    }

    /// The frame of method `id`: `CLASS.NAME`, its file the module.
    fn frame(&mut self, id: u32, trace: &Trace) -> FrameId {
        if let Some(&frame) = self.frames.get(&id) {
            return frame;
        }
        let frame = match trace.methods.get(&id) {
            Some(method) => {
                let name = format!("{}.{}", method.class, method.name);
                let module = Some(method.file.as_str()).filter(|f| !f.is_empty());
                self.profile.frames.intern(FrameRef { module, ..FrameRef::function(&name) })
            }
            None => {
                self.counts.unknown_methods += 1;
                self.profile.frames.intern(FrameRef::function(&format!("<unknown method ID {id:#x}>")))
            }
        };
        self.frames.insert(id, frame);
        frame
    }

    /// What was counted, said once each.
    fn say(&self, open: usize, trace: &Trace, diag: &mut Diagnostics) {
        let c = &self.counts;
        let said: [(&'static str, u64, String); 6] = [
            ("art-trace-mismatched-exit", c.mismatched_exits, format!("{} exits named another method than the one on top of their thread's stack: the one on top was left, as the Firefox Profiler does", c.mismatched_exits)),
            ("art-trace-exit-of-nothing", c.exits_with_nothing_entered, format!("{} exits with no method entered on their thread: left out, as the Firefox Profiler does", c.exits_with_nothing_entered)),
            ("art-trace-unknown-thread", c.unknown_threads, format!("{} threads the trace does not name: kept as ?-PID/TID (the Firefox Profiler refuses such a trace)", c.unknown_threads)),
            ("art-trace-unknown-method", c.unknown_methods, format!("{} methods the trace does not name: each <unknown method ID 0x…>", c.unknown_methods)),
            ("art-trace-backwards", c.backwards, format!("{} records whose clock went back from the thread's last: 0 µs each", c.backwards)),
            ("art-trace-open", open as u64, format!("{open} methods still entered at the end of the trace: their time runs to their thread's last record")),
        ];
        for (key, count, message) in said {
            if count > 0 {
                diag.warn(key, None, || message);
            }
        }
        if trace.details.iter().any(|(k, v)| k == "data-file-overflow" && v == "true") {
            diag.warn("art-trace-overflow", None, || {
                "data-file-overflow=true: ART's trace buffer filled up and the trace stops early".into()
            });
        }
    }
}

impl Clock {
    fn has_wall(self) -> bool {
        matches!(self, Clock::Dual | Clock::Wall)
    }

    fn has_cpu(self) -> bool {
        matches!(self, Clock::Dual | Clock::ThreadCpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_are_told_by_their_start() {
        assert_eq!(sniff(b"*version\n3\nclock=dual\n"), Sniff::Yes);
        assert_eq!(sniff(b"*version\n4\n"), Sniff::No);
        assert_eq!(sniff(b"SLOW\xf3\x00\x20\x00"), Sniff::Yes);
        assert_eq!(sniff(b"SLOW\x03\x00\x20\x00"), Sniff::No);
    }
}
