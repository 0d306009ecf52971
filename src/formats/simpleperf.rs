//! Android simpleperf's samples as `simpleperf report-sample --protobuf` writes them (the
//! `report_sample` protobuf, `system/extras/simpleperf/cmd_report_sample.proto`; read only), the
//! file Android Studio and the Firefox Profiler import.
//! (The text simpleperf's `report_sample.py` prints of a recording is `perf script`'s, which the
//! `perf` format reads; this is the protobuf, which holds the same samples with their files' symbol
//! tables, thread names and event types.)
//!
//! ```text
//! "SIMPLEPERF"  LittleEndian16(version) = 1
//! LittleEndian32(size_0)  Record_0 (size_0 bytes)
//! …
//! LittleEndian32(size_N)  Record_N
//! LittleEndian32(0)
//!
//! Record { oneof: sample = 1, lost = 2, file = 3, thread = 4, meta_info = 5, context_switch = 6 }
//! Sample { time = 1, thread_id = 2, callchain = 3 [{vaddr_in_file = 1, file_id = 2, symbol_id = 3,
//!          execution_type = 4}], event_count = 4, event_type_id = 5, unwinding_result = 6 }
//! File { id = 1, path = 2, symbol = 3 (demangled), mangled_symbol = 4 }
//! Thread { thread_id = 1, process_id = 2, thread_name = 3 }
//! MetaInfo { event_type = 1 (["cpu-clock", …]), app_package_name = 2, … trace_offcpu = 6 }
//! LostSituation { sample_count = 1, lost_count = 2 }
//! ```
//!
//! **Grammar**: the ten bytes `SIMPLEPERF`, a 16-bit version (1), then records, each a 32-bit
//! little-endian size and a `Record` message of that size, up to a size 0. simpleperf writes the
//! meta info first, then the samples (and context switches), then the lost situation, the files
//! and the threads, so the samples are read once every record is. A sample's call chain is leaf
//! first (its first entry the instruction sampled); a frame's `symbol_id` indexes the `symbol`
//! table of the file `file_id` names, or is -1 where simpleperf found no symbol.
//!
//! **Model**, as the Firefox Profiler's importer (`src/profile-logic/import/simpleperf.ts`) reads
//! it: each sample a stack under its thread (a thread frame `NAME-PID/TID`, as `perf --perf-tid`
//! names one), its frames the files' symbols with the file's path as module; a frame without a
//! symbol is named `BASENAME+0xVADDR`, as the importer names it, with a warning. Metrics, as the
//! `perf` reader makes them from the same events: for each event type of the meta info, the sum of
//! its samples' `event_count` (time in nanoseconds for the clock events `cpu-clock` and
//! `task-clock`, whose counts are nanoseconds; else a count of events named by the event, `cpu-cycles`)
//! and its samples (`samples`, or `EVENT samples` where there are several events); the profile is
//! weighed by the first event's counts, and the first sample's count of a clock event is the
//! interval. The importer weighs samples by `cpu-clock`'s counts (in ms) only, and counts samples of
//! every other event, `task-clock` too: proftool keeps both, the importer's figure being the samples
//! metric. A sample of a thread no `Thread` record names (the importer drops it with a console
//! warning) is kept under `[unknown]-?/TID`, with a warning. Lost samples (`LostSituation`) are said
//! on stderr; where its `sample_count` is not the number of samples read, which the importer refuses,
//! a warning says so and the samples read are kept.
//!
//! **Errors**: a file that does not start with `SIMPLEPERF`; a record whose size runs past the end
//! (cut short) or that does not decode, at the byte of its size; a call chain entry naming a file
//! no `File` record holds or a symbol past its file's table, a sample naming an event type the meta
//! info does not have, at the byte of the sample's record. A file that ends after whole records
//! without its size 0 is read, with a warning that it looks cut short.
//!
//! **Timeline**: each sample at its `time` (ns) on the node of its stack.
//!
//! **Lost**: addresses (but of unsymbolized frames), mangled names, execution types
//! (interpreted, JIT, ART), unwinding results, context switches (counted in a warning) and the meta
//! info but the event names and the app's package name (the title).

use super::json::read_all;
use super::kit::sink::{Order, Reason, StackSink};
use super::kit::wire;
use super::shared::unique_name;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{
    FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, TimedSample, Timeline, Unit,
};
use prost::Message;
use rustc_hash::FxHashMap;
use std::ops::Range;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "simpleperf",
    description: "Android simpleperf's samples (`simpleperf report-sample --protobuf`), as the Firefox Profiler imports them",
    extensions: &["trace"],
    carries: Carries::SAMPLES_PER_THREAD
        .weighing(&[MetricKind::Samples, MetricKind::Time, MetricKind::Events])
        .with_frame_kinds()
        .with_modules()
        .with_title()
        .with_interval(),
    reads: Some(Reads::binary(sniff, read)),
    writes: None,
};

const FORMAT: FormatName = SPEC.format_name();
const MAGIC: &[u8] = b"SIMPLEPERF";
/// The magic and the version before the first record.
const HEADER_LEN: usize = MAGIC.len() + 2;

/// `Yes` for a file that starts with simpleperf's magic.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(head.starts_with(MAGIC))
}

/// The messages read, with cmd_report_sample.proto's field numbers (fields not read are skipped).
mod proto {
    use prost::Message;

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct Record {
        #[prost(message, optional, tag = "1")]
        pub sample: Option<Sample>,
        #[prost(message, optional, tag = "2")]
        pub lost: Option<LostSituation>,
        #[prost(message, optional, tag = "3")]
        pub file: Option<File>,
        #[prost(message, optional, tag = "4")]
        pub thread: Option<Thread>,
        #[prost(message, optional, tag = "5")]
        pub meta_info: Option<MetaInfo>,
        #[prost(message, optional, tag = "6")]
        pub context_switch: Option<ContextSwitch>,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct Sample {
        /// When it was taken (ns, the recording's clock).
        #[prost(uint64, tag = "1")]
        pub time: u64,
        #[prost(int32, tag = "2")]
        pub thread_id: i32,
        #[prost(message, repeated, tag = "3")]
        pub callchain: Vec<CallChainEntry>,
        #[prost(uint64, tag = "4")]
        pub event_count: u64,
        #[prost(uint32, tag = "5")]
        pub event_type_id: u32,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct CallChainEntry {
        #[prost(uint64, tag = "1")]
        pub vaddr_in_file: u64,
        #[prost(uint32, tag = "2")]
        pub file_id: u32,
        #[prost(int32, tag = "3")]
        pub symbol_id: i32,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct LostSituation {
        #[prost(uint64, tag = "1")]
        pub sample_count: u64,
        #[prost(uint64, tag = "2")]
        pub lost_count: u64,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct File {
        #[prost(uint32, tag = "1")]
        pub id: u32,
        #[prost(string, tag = "2")]
        pub path: String,
        #[prost(string, repeated, tag = "3")]
        pub symbol: Vec<String>,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct Thread {
        #[prost(uint32, tag = "1")]
        pub thread_id: u32,
        #[prost(uint32, tag = "2")]
        pub process_id: u32,
        #[prost(string, tag = "3")]
        pub thread_name: String,
    }

    #[derive(Clone, PartialEq, Message)]
    pub(super) struct MetaInfo {
        #[prost(string, repeated, tag = "1")]
        pub event_type: Vec<String>,
        #[prost(string, optional, tag = "2")]
        pub app_package_name: Option<String>,
    }

    /// A switch to or from the thread: counted, not read further.
    #[derive(Clone, PartialEq, Message)]
    pub(super) struct ContextSwitch {}
}

/// Everything but the samples, read in a first pass, and where each sample's record is.
#[derive(Default)]
struct Records {
    /// Each sample's record: its size's byte and its message's bytes.
    samples: Vec<(usize, Range<usize>)>,
    files: FxHashMap<u32, proto::File>,
    threads: FxHashMap<u32, proto::Thread>,
    meta: Option<proto::MetaInfo>,
    lost: Option<proto::LostSituation>,
    context_switches: u64,
}

/// Reads a whole report_sample file.
fn read(input: &mut (dyn std::io::Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = read_all(input, FORMAT)?;
    if !bytes.starts_with(MAGIC) || bytes.len() < HEADER_LEN {
        return Err(ParseError {
            format: FORMAT,
            position: Position::byte(0),
            kind: ParseErrorKind::MissingMarker { format: FORMAT, expected: "the magic SIMPLEPERF and a 16-bit version" },
        });
    }
    let version = u16::from_le_bytes([bytes[MAGIC.len()], bytes[MAGIC.len() + 1]]);
    if version != 1 {
        diag.warn("simpleperf-version", Some(Position::byte(MAGIC.len() as u64)), || {
            format!("version {version}, where simpleperf writes 1: read as version 1")
        });
    }
    let records = walk(&bytes, diag)?;
    if records.samples.is_empty() {
        let found = "none: the file holds no sample".to_string();
        return Err(error_at(HEADER_LEN, "a sample record".into(), found));
    }
    if let Some(lost) = &records.lost {
        say_lost(lost, records.samples.len(), diag);
    }
    if records.context_switches > 0 {
        let count = records.context_switches;
        diag.warn("simpleperf-context-switches", None, || {
            format!("{count} context switches (--trace-offcpu) left out: proftool reads the samples")
        });
    }
    Samples::new(&records).read(&bytes, &records, diag)
}

/// The records of `bytes` after the header: the samples' places, and the rest decoded.
fn walk(bytes: &[u8], diag: &mut Diagnostics) -> Result<Records, ParseError> {
    let mut records = Records::default();
    let mut at = HEADER_LEN;
    loop {
        let Some(size) = bytes.get(at..at + 4) else {
            diag.warn("simpleperf-cut-short", Some(Position::byte(at as u64)), || {
                "the file ends without the record size 0 that ends it: it looks cut short (the whole records are read)"
                    .into()
            });
            return Ok(records);
        };
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        if size == 0 {
            return Ok(records);
        }
        let body = at + 4..at + 4 + size;
        if body.end > bytes.len() {
            let found = format!("the end of the input after {} of its bytes: the file looks cut short", bytes.len() - body.start);
            return Err(error_at(at, format!("a record of {size} bytes"), found));
        }
        // A sample (a record of field 1 alone) is decoded when every file and thread is known.
        let mut fields = wire::fields(&bytes[body.clone()]);
        if let (Some(Ok(wire::Field { number: 1, wire: 2, .. })), None) = (fields.next(), fields.next()) {
            records.samples.push((at, body.clone()));
            at = body.end;
            continue;
        }
        let record = proto::Record::decode(&bytes[body.clone()]).map_err(|e| undecodable(at, &e))?;
        match record {
            proto::Record { sample: Some(_), .. } => records.samples.push((at, body.clone())),
            proto::Record { file: Some(file), .. } => drop(records.files.insert(file.id, file)),
            proto::Record { thread: Some(thread), .. } => drop(records.threads.insert(thread.thread_id, thread)),
            proto::Record { meta_info: Some(meta), .. } => records.meta = Some(meta),
            proto::Record { lost: Some(lost), .. } => records.lost = Some(lost),
            proto::Record { context_switch: Some(_), .. } => records.context_switches += 1,
            _ => {}
        }
        at = body.end;
    }
}

/// Says how many samples simpleperf lost, and a count of samples that is not those read.
fn say_lost(lost: &proto::LostSituation, read: usize, diag: &mut Diagnostics) {
    if lost.lost_count > 0 {
        let (lost, of) = (lost.lost_count, lost.sample_count);
        diag.warn("simpleperf-lost", None, || format!("simpleperf lost {lost} samples (it kept {of}): they are not in the file"));
    }
    if lost.sample_count != read as u64 {
        let stated = lost.sample_count;
        diag.warn("simpleperf-sample-count", None, || {
            format!("the file says it holds {stated} samples, and {read} were read (the Firefox Profiler refuses such a file)")
        });
    }
}

/// Frames left unsymbolized, said once.
static UNSYMBOLIZED: Reason = Reason::new("simpleperf-unsymbolized", |count, _| {
    format!("{count} call chain entries had no symbol (symbol_id -1): each is named by its file and address, FILE+0xVADDR")
});

/// Samples of threads no Thread record names, said once.
static UNKNOWN_THREAD: Reason = Reason::new("simpleperf-unknown-thread", |count, _| {
    format!("{count} samples of threads no Thread record names: kept under [unknown]-?/TID")
});

/// The samples being made into stacks: a metric pair per event, each frame and thread interned once.
struct Samples {
    sink: StackSink,
    /// For each event type, its counts' metric and its samples' metric.
    events: Vec<(usize, usize)>,
    frames: FxHashMap<(u32, i64), FrameId>,
    threads: FxHashMap<u32, FrameId>,
    stack: Vec<FrameId>,
    /// Each sample's time and node.
    timeline: Vec<TimedSample>,
}

impl Samples {
    /// The sink and metrics of `records`' event types (one unnamed event where there is no meta info).
    fn new(records: &Records) -> Samples {
        let names: Vec<String> = match &records.meta {
            Some(meta) if !meta.event_type.is_empty() => meta.event_type.clone(),
            _ => vec![String::new()],
        };
        let several = names.len() > 1;
        let mut metrics: Vec<Metric> = Vec::new();
        let mut events = Vec::new();
        for name in &names {
            let samples = if several { format!("{name} samples") } else { "samples".into() };
            let samples = unique_name(samples, |n| metrics.iter().any(|m| m.name == n) || n == "event_count");
            let (kind, unit) = match is_clock(name) {
                true => (MetricKind::Time, Unit::Nanoseconds),
                false => (MetricKind::Events, Unit::Count),
            };
            let counted = if name.is_empty() { "event_count" } else { name };
            let counted = unique_name(counted.to_string(), |n| metrics.iter().any(|m| m.name == n));
            metrics.push(Metric::new(counted, kind, unit, Repr::Int).sampled(Sampling::weights_of(&samples)));
            metrics.push(Metric { name: samples, ..Metric::samples() });
            events.push((metrics.len() - 2, metrics.len() - 1));
        }
        let mut sink = StackSink::new(FORMAT, metrics);
        let profile = sink.profile();
        profile.meta.weighed_by = Some(profile.metrics()[0].kind);
        profile.meta.title = records.meta.as_ref().and_then(|m| m.app_package_name.clone()).filter(|t| !t.is_empty());
        let (frames, threads) = (FxHashMap::default(), FxHashMap::default());
        Samples { sink, events, frames, threads, stack: Vec::new(), timeline: Vec::new() }
    }

    /// Every sample of `records` added as a stack, then the profile.
    fn read(mut self, bytes: &[u8], records: &Records, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let mut interval = None;
        for (at, body) in &records.samples {
            let record = proto::Record::decode(&bytes[body.clone()]).map_err(|e| undecodable(*at, &e))?;
            let Some(sample) = record.sample else { continue };
            let event = sample.event_type_id as usize;
            let Some(&(counts, samples)) = self.events.get(event) else {
                let found = format!("event type {event}, of {} the meta info names", self.events.len());
                return Err(error_at(*at, "a sample of an event type the meta info names".into(), found));
            };
            if event == 0 && interval.is_none() {
                interval = Some(sample.event_count);
            }
            self.stack.clear();
            for entry in &sample.callchain {
                let frame = self.frame(entry, records, *at)?;
                self.stack.push(frame);
            }
            let thread = self.thread(sample.thread_id, records, *at);
            self.stack.push(thread);
            let count = i64::try_from(sample.event_count).unwrap_or(i64::MAX);
            let frames = std::mem::take(&mut self.stack);
            let weights = [(counts, count), (samples, 1)];
            if let Some(node) = self.sink.add_weights_at(Order::LeafFirst, frames.iter().copied(), &weights) {
                let time = i64::try_from(sample.time).unwrap_or(i64::MAX);
                self.timeline.push(TimedSample { time, node, weight: 1 });
            }
            self.stack = frames;
        }
        let first_is_clock = records.meta.as_ref().and_then(|m| m.event_type.first()).is_some_and(|e| is_clock(e));
        self.sink.profile().meta.interval =
            interval.filter(|&n| first_is_clock && n > 0).map(std::time::Duration::from_nanos);
        let mut profile = self.sink.finish(None, diag)?;
        profile.timeline = Timeline::new(self.timeline, None);
        Ok(profile)
    }

    /// The frame of a call chain entry (in the record at byte `at`).
    fn frame(&mut self, entry: &proto::CallChainEntry, records: &Records, at: usize) -> Result<FrameId, ParseError> {
        let Some(file) = records.files.get(&entry.file_id) else {
            let found = format!("file {}, which no File record has", entry.file_id);
            return Err(error_at(at, "a call chain entry of a file a File record names".into(), found));
        };
        let key = match entry.symbol_id {
            id if id >= 0 => (entry.file_id, i64::from(id)),
            // Unsymbolized: the address, kept apart from symbol ids by its sign.
            _ => (entry.file_id, -1 - i64::try_from(entry.vaddr_in_file).unwrap_or(i64::MAX)),
        };
        if let Some(&frame) = self.frames.get(&key) {
            if key.1 < 0 {
                self.sink.leave_out(&UNSYMBOLIZED, Some(Position::byte(at as u64)), 0i64);
            }
            return Ok(frame);
        }
        let module = Some(file.path.as_str());
        let frame = match usize::try_from(entry.symbol_id) {
            Ok(id) => {
                let Some(name) = file.symbol.get(id) else {
                    let found = format!("symbol {id} of {}, which has {} symbols", file.path, file.symbol.len());
                    return Err(error_at(at, "a call chain entry of a symbol its file has".into(), found));
                };
                self.sink.frame(FrameRef { module, ..FrameRef::function(name) })
            }
            Err(_) => {
                self.sink.leave_out(&UNSYMBOLIZED, Some(Position::byte(at as u64)), 0i64);
                let base = file.path.rsplit(['/', '\\']).next().unwrap_or("");
                let name = format!("{base}+0x{:x}", entry.vaddr_in_file);
                self.sink.frame(FrameRef { module, ..FrameRef::function(&name) })
            }
        };
        self.frames.insert(key, frame);
        Ok(frame)
    }

    /// The thread frame of `tid` (in the record at byte `at`): `NAME-PID/TID`.
    fn thread(&mut self, tid: i32, records: &Records, at: usize) -> FrameId {
        let tid = tid as u32;
        let known = records.threads.get(&tid);
        if known.is_none() {
            self.sink.leave_out(&UNKNOWN_THREAD, Some(Position::byte(at as u64)), 0i64);
        }
        if let Some(&frame) = self.threads.get(&tid) {
            return frame;
        }
        let name = match known {
            Some(thread) => format!("{}-{}/{tid}", thread.thread_name, thread.process_id),
            None => format!("[unknown]-?/{tid}"),
        };
        let frame = self.sink.frame(FrameRef::named(&name, FrameKind::Thread));
        self.threads.insert(tid, frame);
        frame
    }
}

/// Whether `event` (`cpu-clock`, `task-clock:u`) is a clock, whose counts are nanoseconds.
fn is_clock(event: &str) -> bool {
    matches!(event.split(':').next(), Some("cpu-clock" | "task-clock"))
}

/// The error of a record at byte `at` that does not decode.
fn undecodable(at: usize, error: &prost::DecodeError) -> ParseError {
    error_at(at, "a Record message (cmd_report_sample.proto)".into(), format!("bytes that do not decode as one ({error})"))
}

/// The error of the record whose size is at byte `at`.
fn error_at(at: usize, expected: String, found: String) -> ParseError {
    ParseError { format: FORMAT, position: Position::byte(at as u64), kind: ParseErrorKind::Unexpected { expected, found } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_events_are_told_by_their_names() {
        assert!(is_clock("cpu-clock") && is_clock("task-clock:u"));
        assert!(!is_clock("cpu-cycles") && !is_clock("sched:sched_switch"));
        assert_eq!(sniff(b"SIMPLEPERF\x01\x00"), Sniff::Yes);
        assert_eq!(sniff(b"PERFILE2"), Sniff::No);
    }
}
