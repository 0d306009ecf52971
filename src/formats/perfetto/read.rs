//! The Perfetto reader: packets, a sequence's interned tables, samples and heap dumps gathered by
//! thread or process and stack, then made a profile (the rules are in the module comment of
//! [`super`]).

use super::proto::{self, TracePacket};
use super::slices::{Owner, Slices, Timing};
use super::{error, packets, FORMAT};
use crate::diag::Diagnostics;
use crate::error::{ParseError, Position};
use crate::formats::ReadOptions;
use crate::formats::kit::wire;
use crate::formats::kit::sink::{LeftOut, Order, Reason, StackSink};
use crate::model::{
    FrameId, FrameKind, FrameRef, FrameTable, Metric, MetricKind, NodeId, Profile, Repr, Sampling, Slice,
    TimedSample, Timeline, Unit,
};
use indexmap::IndexSet;
use prost::Message;
use std::io::Read;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

/// Reads a trace, a packet at a time.
pub(super) fn read(input: &mut (dyn std::io::Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut packets = packets(input);
    let mut reader = Reader::default();
    while let Some(at) = packets.next()? {
        let mut packet = decode(&packets.packet, at)?;
        let compressed = packet.compressed_packets.take();
        reader.packet(packet, at);
        if let Some(compressed) = compressed {
            reader.compressed(&compressed, at)?;
        }
    }
    let no_dump = reader.dumps.values().all(|dump| dump.values.is_empty());
    if reader.samples.is_empty() && no_dump && reader.slices.time.is_empty() {
        let found = format!("none in its {} bytes{}", packets.at, reader.left_out());
        let expected = "a profile: PerfSample, StreamingProfilePacket, heapprofd ProfilePacket or track-event slices";
        return Err(error(0, expected, found));
    }
    reader.slices.close_open(&mut reader.stacks);
    reader.finish(diag)
}

/// The packet of `bytes`, which start at byte `at`.
fn decode(bytes: &[u8], at: u64) -> Result<TracePacket, ParseError> {
    TracePacket::decode(bytes).map_err(|e| error(at, "a TracePacket", format!("bytes that do not decode as one ({e})")))
}

/// The most a packet of compressed packets may hold once inflated: its packets are read from
/// memory, as `trace_processor` inflates them.
const INFLATED_LIMIT: u64 = 1 << 30;

/// The uuids of the tracks of sequences' threads, for slices of no track (older Chrome): this bit
/// and the sequence's id.
const THREAD_TRACKS: u64 = 1 << 63;

/// A thread (its process and thread ids; a sequence of no thread descriptor has no thread id).
type Thread = (i64, Option<i64>);

/// One sequence's interned tables (`iid` → entry), whether they are whole, and what was resolved
/// of them.
#[derive(Default)]
struct Sequence {
    /// Whether its tables are whole: cleared once, no packet lost since.
    whole: bool,
    function_names: FxHashMap<u64, String>,
    mapping_paths: FxHashMap<u64, String>,
    mappings: FxHashMap<u64, Vec<u64>>,
    frames: FxHashMap<u64, proto::Frame>,
    callstacks: FxHashMap<u64, Vec<u64>>,
    /// Callstacks resolved: their index in [`Reader::stacks`]; frames resolved, and whether they
    /// have a function name.
    resolved: FxHashMap<u64, u32>,
    resolved_frames: FxHashMap<u64, (FrameId, bool)>,
    /// The thread of its `ThreadDescriptor` (Chrome's sampler writes one per sequence).
    thread: Option<Thread>,
    /// The time of its thread's samples (ns): its `ThreadDescriptor`'s `reference_timestamp_us`,
    /// moved on by each `timestamp_delta_us` of its StreamingProfilePackets, as trace_processor
    /// times Chrome's samples.
    thread_time: Option<i64>,
    /// Its clocks and defaults, and the names of its track events.
    timing: Timing,
    event_names: FxHashMap<u64, String>,
}

impl Sequence {
    /// Starts its tables anew.
    fn clear(&mut self) {
        let (thread, thread_time) = (self.thread, self.thread_time);
        *self = Sequence { whole: true, thread, thread_time, ..Sequence::default() };
    }

    /// Adds `data`'s entries to its tables.
    fn intern(&mut self, data: proto::InternedData) {
        let text = |s: proto::InternedString| (s.iid, String::from_utf8_lossy(&s.str).into_owned());
        self.function_names.extend(data.function_names.into_iter().map(text));
        self.event_names.extend(data.event_names.into_iter().map(|e| (e.iid, e.name)));
        self.mapping_paths.extend(data.mapping_paths.into_iter().map(text));
        self.tables(data.mappings, data.frames, data.callstacks);
    }

    /// Adds mappings, frames and callstacks to its tables.
    fn tables(&mut self, mappings: Vec<proto::Mapping>, frames: Vec<proto::Frame>, stacks: Vec<proto::Callstack>) {
        self.mappings.extend(mappings.into_iter().map(|m| (m.iid, m.path_string_ids)));
        self.frames.extend(frames.into_iter().map(|f| (f.iid, f)));
        self.callstacks.extend(stacks.into_iter().map(|c| (c.iid, c.frame_ids)));
    }
}

/// The latest heap dump of a process's heap: its time, and each stack's unreleased size and
/// count, total size and count.
#[derive(Default)]
struct Dump {
    timestamp: u64,
    values: FxHashMap<u32, [i64; 4]>,
}

#[derive(Default)]
struct Reader {
    frames: FrameTable,
    sequences: FxHashMap<u32, Sequence>,
    /// Every distinct stack, its frames outermost first.
    stacks: IndexSet<Vec<FrameId>, FxBuildHasher>,
    /// CPU samples by thread and stack.
    samples: FxHashMap<u64, i64>,
    /// The threads samples are of, in the order met: a sample's key is its thread's index here
    /// (high half) and its stack's (low half).
    threads: IndexSet<Thread, FxBuildHasher>,
    /// Each CPU sample's time (ns, on its sequence's clock) and key, in the order read; how many
    /// samples had no time.
    sample_times: Vec<(i64, u64)>,
    untimed_samples: u64,
    /// The latest dump of each process's heap (by pid and heap name), and how many earlier ones
    /// were left out.
    dumps: FxHashMap<(u64, String), Dump>,
    earlier_dumps: u64,
    slices: Slices,
    process_names: FxHashMap<i64, String>,
    thread_names: FxHashMap<i64, String>,
    /// The frames of no function name, and of one.
    unsymbolized: FxHashSet<FrameId>,
    symbolized: FxHashSet<FrameId>,
    /// What was left out, by reason, with the byte of the first.
    left: LeftOut,
    compressed: u64,
}

static LOST_STATE: Reason = Reason::new("perfetto-incremental-state", |count, _| {
    format!(
        "{count} packets of samples left out: their sequence's interned data was lost (never cleared, or a \
         packet lost before them), as trace_processor skips them"
    )
});
static UNRESOLVED: Reason = Reason::new("perfetto-not-interned", |count, weight| {
    format!(
        "{count} samples (and heap entries) left out, of weight {weight}: their callstack, or a frame, mapping \
         or name of it, was not interned on their sequence"
    )
});
static NO_STACK: Reason = Reason::new("perfetto-no-callstack", |count, _| {
    format!("{count} perf samples without a callstack left out (skipped or not unwound by traced_perf)")
});
static EMPTY_STACK: Reason = Reason::new("perfetto-empty-callstack", |count, weight| {
    format!("{count} samples of an empty callstack left out, of weight {weight}")
});

impl Reader {
    fn packet(&mut self, mut packet: TracePacket, at: u64) {
        self.names(&mut packet);
        let id = packet.trusted_packet_sequence_id.unwrap_or(0);
        let sequence = self.sequences.entry(id).or_default();
        if packet.previous_packet_dropped {
            sequence.whole = false;
        }
        if packet.incremental_state_cleared || packet.sequence_flags & proto::SEQ_INCREMENTAL_STATE_CLEARED != 0 {
            sequence.clear();
        }
        sequence.timing.update(&packet);
        let time = sequence.timing.time(&packet);
        if let Some(thread) = packet.thread_descriptor.take() {
            sequence.thread = Some((thread.pid.into(), Some(thread.tid)));
            sequence.thread_time = Some(thread.reference_timestamp_us.unwrap_or(0).saturating_mul(1000));
            if let Some(name) = thread.thread_name.filter(|n| !n.is_empty()) {
                self.thread_names.insert(thread.tid, name);
            }
        }
        if let Some(data) = packet.interned_data.take() {
            sequence.intern(data);
        }
        let samples = packet.perf_sample.is_some() || packet.streaming_profile_packet.is_some();
        let needs = packet.sequence_flags & proto::SEQ_NEEDS_INCREMENTAL_STATE != 0;
        if needs && !sequence.whole {
            if samples || packet.profile_packet.is_some() {
                self.leave_out(&LOST_STATE, at, 0);
            }
            if packet.track_event.is_some() {
                self.slices.lost += 1;
            }
            return;
        }
        let pid = packet.trusted_pid.map_or(0, i64::from);
        if let Some(sample) = packet.perf_sample {
            self.perf_sample(id, sample, at, time);
        }
        if let Some(streaming) = packet.streaming_profile_packet {
            self.streaming(id, pid, streaming, at);
        }
        if let Some(profile) = packet.profile_packet {
            self.profile_packet(id, profile, at);
        }
        if let Some(event) = packet.track_event {
            self.track_event(id, event, time);
        }
    }

    /// The names of processes and threads a packet gives, and what its track descriptor's track
    /// is of.
    fn names(&mut self, packet: &mut TracePacket) {
        if let Some(tree) = packet.process_tree.take() {
            self.process_tree(tree);
        }
        if let Some(track) = packet.track_descriptor.take() {
            let owner = match (&track.thread, &track.process) {
                (Some(thread), _) => Owner::Thread(thread.pid.into(), thread.tid),
                (None, Some(process)) => Owner::Process(process.pid.into()),
                (None, None) => Owner::Named(track.name.or(track.static_name).unwrap_or_default()),
            };
            if let Some(uuid) = track.uuid {
                self.slices.owners.insert(uuid, owner);
            }
            if let Some(process) = track.process {
                self.process(process);
            }
            if let Some(thread) = track.thread {
                self.thread(thread);
            }
        }
        if let Some(process) = packet.process_descriptor.take() {
            self.process(process);
        }
    }

    /// A slice's begin or end on its track (the sequence's default track where it names none, else
    /// the sequence's thread's), at `time`; other track events are not read.
    fn track_event(&mut self, sequence: u32, event: proto::TrackEvent, time: Option<i64>) {
        let begin = match event.r#type {
            Some(proto::TYPE_SLICE_BEGIN) => true,
            Some(proto::TYPE_SLICE_END) => false,
            _ => return,
        };
        let Some(state) = self.sequences.get(&sequence) else { return };
        let track = event.track_uuid.or(state.timing.default_track).or_else(|| {
            let (pid, tid) = state.thread?;
            let uuid = THREAD_TRACKS | u64::from(sequence);
            self.slices.owners.entry(uuid).or_insert(Owner::Thread(pid, tid?));
            Some(uuid)
        });
        let (Some(track), Some(time)) = (track, time) else {
            self.slices.untimed += 1;
            return;
        };
        let frame = begin.then(|| {
            let interned = event.name_iid.and_then(|iid| state.event_names.get(&iid));
            let name = event.name.as_deref().or(interned.map(String::as_str)).unwrap_or("?");
            self.frames.intern(FrameRef::function(name))
        });
        self.slices.event(track, time, frame, &mut self.stacks);
    }

    /// The packets of a packet's `compressed_packets` (a `Trace` deflated with zlib), read as the
    /// packets around them are, each placed at the byte of the packet that holds them; compressed
    /// packets inside them are counted, not read.
    fn compressed(&mut self, bytes: &[u8], at: u64) -> Result<(), ParseError> {
        let mut inflated = Vec::new();
        let mut zlib = flate2::read::ZlibDecoder::new(bytes).take(INFLATED_LIMIT + 1);
        std::io::Read::read_to_end(&mut zlib, &mut inflated)
            .map_err(|e| error(at, "compressed packets deflated with zlib", format!("bytes that do not inflate ({e})")))?;
        if inflated.len() as u64 > INFLATED_LIMIT {
            return Err(error(at, "compressed packets of at most 1 GiB", "more once inflated".into()));
        }
        for field in wire::fields(&inflated) {
            let field = field.map_err(|_| {
                error(at, "compressed packets that are whole packets", "a field cut short or invalid".into())
            })?;
            if (field.number, field.wire) != (1, 2) {
                continue;
            }
            let mut packet = decode(&inflated[field.payload], at)?;
            if packet.compressed_packets.take().is_some() {
                self.compressed += 1;
            }
            self.packet(packet, at);
        }
        Ok(())
    }

    fn process_tree(&mut self, tree: proto::ProcessTree) {
        for process in tree.processes {
            if let Some(name) = process.cmdline.into_iter().next().filter(|n| !n.is_empty()) {
                self.process_names.insert(process.pid.into(), name);
            }
        }
        for thread in tree.threads {
            if let Some(name) = thread.name.filter(|n| !n.is_empty()) {
                self.thread_names.insert(thread.tid.into(), name);
            }
        }
    }

    fn process(&mut self, process: proto::ProcessDescriptor) {
        let name = process.process_name.or_else(|| process.cmdline.into_iter().next());
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            self.process_names.insert(process.pid.into(), name);
        }
    }

    fn thread(&mut self, thread: proto::ThreadDescriptor) {
        if let Some(name) = thread.thread_name.filter(|n| !n.is_empty()) {
            self.thread_names.insert(thread.tid, name);
        }
    }

    fn leave_out(&mut self, reason: &'static Reason, at: u64, weight: i64) {
        self.left.add(reason, Some(Position::byte(at)), weight);
    }

    /// A traced_perf sample, at its packet's `time`.
    fn perf_sample(&mut self, sequence: u32, sample: proto::PerfSample, at: u64, time: Option<i64>) {
        if sample.producer_event.is_some() || (sample.kernel_records_lost > 0 && sample.callstack_iid == 0) {
            return;
        }
        if sample.callstack_iid == 0 {
            self.leave_out(&NO_STACK, at, 1);
            return;
        }
        let thread = (i64::from(sample.pid), Some(i64::from(sample.tid)));
        if let Some(stack) = self.stack(sequence, sample.callstack_iid, at, 1) {
            self.sample(thread, stack, time);
        }
    }

    /// Chrome's sampler's samples, each at its sequence's thread's time moved on by its delta (a
    /// sample of no delta, or of a sequence of no thread descriptor, has no time).
    fn streaming(&mut self, sequence: u32, pid: i64, packet: proto::StreamingProfilePacket, at: u64) {
        let state = self.sequences.get(&sequence);
        let thread = state.and_then(|s| s.thread).unwrap_or((pid, None));
        let mut time = state.and_then(|s| s.thread_time);
        let moved_on = |time: i64, delta_us: &i64| time.saturating_add(delta_us.saturating_mul(1000));
        let mut deltas = packet.timestamp_delta_us.iter();
        for iid in packet.callstack_iid {
            time = time.zip(deltas.next()).map(|(time, delta)| moved_on(time, delta));
            if let Some(stack) = self.stack(sequence, iid, at, 1) {
                self.sample(thread, stack, time);
            }
        }
        // Deltas past the samples move the thread's time on too, as trace_processor moves it.
        let time = time.map(|time| deltas.fold(time, moved_on));
        if let (Some(state), Some(time)) = (self.sequences.get_mut(&sequence), time) {
            state.thread_time = Some(time);
        }
    }

    /// A sample of `thread`'s `stack`, at `time` where it has one.
    fn sample(&mut self, thread: Thread, stack: u32, time: Option<i64>) {
        let index = match self.threads.get_index_of(&thread) {
            Some(index) => index,
            None => self.threads.insert_full(thread).0,
        };
        let key = (index as u64) << 32 | u64::from(stack);
        *self.samples.entry(key).or_default() += 1;
        match time {
            Some(time) => self.sample_times.push((time, key)),
            None => self.untimed_samples += 1,
        }
    }

    /// A heapprofd packet: its own tables into its sequence's, then each process's dump, the
    /// latest of each process's heap kept (a dump written over several packets is one time).
    fn profile_packet(&mut self, sequence: u32, packet: proto::ProfilePacket, at: u64) {
        let state = self.sequences.entry(sequence).or_default();
        for s in packet.strings {
            let text = String::from_utf8_lossy(&s.str).into_owned();
            state.function_names.insert(s.iid, text.clone());
            state.mapping_paths.insert(s.iid, text);
        }
        state.tables(packet.mappings, packet.frames, packet.callstacks);
        for dump in packet.process_dumps {
            let key = (dump.pid, dump.heap_name.clone());
            let latest = self.dumps.get(&key).map(|d| d.timestamp);
            match latest {
                Some(t) if t > dump.timestamp => {
                    self.earlier_dumps += 1;
                    continue;
                }
                Some(t) if t < dump.timestamp => self.earlier_dumps += 1,
                _ => {}
            }
            let mut values: FxHashMap<u32, [i64; 4]> = match latest {
                Some(t) if t == dump.timestamp => self.dumps.remove(&key).map(|d| d.values).unwrap_or_default(),
                _ => FxHashMap::default(),
            };
            for sample in dump.samples {
                let Some(stack) = self.stack(sequence, sample.callstack_id, at, 1) else { continue };
                let int = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
                let (unreleased, count) = match (sample.self_max, sample.self_max_count) {
                    (0, 0) => (
                        sample.self_allocated.saturating_sub(sample.self_freed),
                        sample.alloc_count.saturating_sub(sample.free_count),
                    ),
                    peak => peak,
                };
                let entry = values.entry(stack).or_default();
                for (value, add) in entry.iter_mut().zip([unreleased, count, sample.self_allocated, sample.alloc_count]) {
                    *value = value.saturating_add(int(add));
                }
            }
            self.dumps.insert(key, Dump { timestamp: dump.timestamp, values });
        }
    }

    /// The stack of callstack `iid` of `sequence` (resolved once), or `None` where it, or what it
    /// names, was not interned (left out, of `weight`).
    fn stack(&mut self, sequence: u32, iid: u64, at: u64, weight: i64) -> Option<u32> {
        let state = self.sequences.get_mut(&sequence)?;
        if let Some(&stack) = state.resolved.get(&iid) {
            return Some(stack);
        }
        let mut cache = std::mem::take(&mut state.resolved_frames);
        let resolved = state.callstacks.get(&iid).and_then(|frames| {
            let cached = |f: &u64| match cache.get(f) {
                Some(&known) => Some(known),
                None => {
                    let made = frame(state, *f, &mut self.frames)?;
                    cache.insert(*f, made);
                    Some(made)
                }
            };
            frames.iter().map(cached).collect::<Option<Vec<(FrameId, bool)>>>()
        });
        state.resolved_frames = cache;
        let Some(frames) = resolved else {
            self.leave_out(&UNRESOLVED, at, weight);
            return None;
        };
        if frames.is_empty() {
            self.leave_out(&EMPTY_STACK, at, weight);
            return None;
        }
        let mut stack = Vec::with_capacity(frames.len());
        for (id, named) in frames {
            match named {
                true => self.symbolized.insert(id),
                false => self.unsymbolized.insert(id),
            };
            stack.push(id);
        }
        let index = u32::try_from(self.stacks.insert_full(stack).0).unwrap_or(u32::MAX);
        self.sequences.get_mut(&sequence)?.resolved.insert(iid, index);
        Some(index)
    }

    /// The root frame's name of a thread: `NAME-PID/TID`.
    fn thread_root(&self, (pid, tid): Thread) -> String {
        let name = tid.and_then(|t| self.thread_names.get(&t)).or_else(|| self.process_names.get(&pid));
        let name = name.map_or("?", String::as_str);
        match tid {
            Some(tid) => format!("{name}-{pid}/{tid}"),
            None => format!("{name}-{pid}"),
        }
    }

    /// The profile: samples, then heap dumps, each stack under its root.
    fn finish(self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let mut metrics = Vec::new();
        if !self.samples.is_empty() {
            metrics.push(Metric::samples().sampled(Sampling::counts()));
        }
        let heap = metrics.len();
        if !self.dumps.is_empty() {
            let bytes = |name: &str| Metric::new(name, MetricKind::Alloc, Unit::Bytes, Repr::Int);
            let count = |name: &str| Metric::new(name, MetricKind::Objects, Unit::Count, Repr::Int);
            metrics.extend([bytes("unreleased size"), count("unreleased count"), bytes("total size"), count("total count")]);
        }
        let time = metrics.len();
        if !self.slices.time.is_empty() {
            metrics.push(Metric::time(Unit::Nanoseconds, Repr::Int).sampled(Sampling::Measured));
        }
        let mut sink = StackSink::new(FORMAT, metrics);
        if self.samples.is_empty() && !self.dumps.is_empty() {
            sink.profile().meta.weighed_by = Some(MetricKind::Alloc);
        }
        sink.profile().frames = self.frames.clone();
        let mut samples: Vec<_> = self.samples.iter().collect();
        samples.sort_unstable();
        let mut nodes = FxHashMap::default();
        for (&key, &count) in samples {
            let (thread, stack) = (self.threads[(key >> 32) as usize], key as u32);
            let root = sink.frame(FrameRef::named(&self.thread_root(thread), FrameKind::Thread));
            let frames = std::iter::once(root).chain(self.stack_frames(stack).iter().copied());
            if let Some(node) = sink.add_weights_at(Order::RootFirst, frames.collect::<Vec<_>>(), &[(0, count)]) {
                nodes.insert(key, node);
            }
        }
        let timed = self.timed_samples(&nodes);
        self.add_dumps(&mut sink, heap);
        let mut slices: Vec<_> = self.slices.time.iter().collect();
        slices.sort_unstable();
        for (&(track, stack), &nanoseconds) in slices {
            let root = sink.frame(FrameRef::named(&self.track_root(track), FrameKind::Thread));
            let frames = std::iter::once(root).chain(self.stack_frames(stack).iter().copied());
            sink.add(Order::RootFirst, frames.collect::<Vec<_>>(), time, nanoseconds);
        }
        let ran = self.slices_that_ran(&mut sink);
        self.warn(diag);
        let mut profile = sink.finish(None, diag)?;
        profile.timeline = Timeline::of_both(timed, ran, None);
        Ok(profile)
    }

    /// The CPU samples at their times, each on the node of its stack (`nodes`, by key); none where
    /// a sample has no time, as the timeline holds every sample or none.
    fn timed_samples(&self, nodes: &FxHashMap<u64, NodeId>) -> Vec<TimedSample> {
        if self.untimed_samples > 0 {
            return Vec::new();
        }
        let timed = self.sample_times.iter().filter_map(|&(time, key)| Some((time, *nodes.get(&key)?)));
        timed.map(|(time, node)| TimedSample { time, node, weight: 1 }).collect()
    }

    /// The slices that ran, each on the node of its stack under its track's root (its time is in
    /// the tree already).
    fn slices_that_ran(&self, sink: &mut StackSink) -> Vec<Slice> {
        let mut slices = Vec::with_capacity(self.slices.ran.len());
        for ran in &self.slices.ran {
            let root = sink.frame(FrameRef::named(&self.track_root(ran.track), FrameKind::Thread));
            let frames = std::iter::once(root).chain(self.stack_frames(ran.stack).iter().copied());
            if let Some(node) = sink.node_of(frames) {
                slices.push(Slice { start: ran.start, end: ran.end, node });
            }
        }
        slices
    }

    /// The last dump of each process's heap, metrics `heap` to `heap + 3`.
    fn add_dumps(&self, sink: &mut StackSink, heap: usize) {
        let mut dumps: Vec<_> = self.dumps.iter().collect();
        dumps.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for ((pid, heap_name), dump) in dumps {
            let pid = i64::try_from(*pid).unwrap_or(i64::MAX);
            let mut roots = vec![sink.frame(FrameRef::named(&self.thread_root((pid, None)), FrameKind::Thread))];
            if !heap_name.is_empty() && heap_name != "libc.malloc" {
                roots.push(sink.frame(FrameRef::named(&format!("heap {heap_name}"), FrameKind::Pseudo)));
            }
            let mut values: Vec<_> = dump.values.iter().collect();
            values.sort_unstable();
            for (&stack, v) in values {
                let frames = roots.iter().chain(self.stack_frames(stack)).copied().collect::<Vec<_>>();
                let weights: Vec<(usize, i64)> = v.iter().enumerate().map(|(i, &v)| (heap + i, v)).collect();
                sink.add_weights(Order::RootFirst, frames, &weights);
            }
        }
    }

    /// The root frame's name of a track: its thread's or process's, else its own name.
    fn track_root(&self, track: u64) -> String {
        match self.slices.owners.get(&track) {
            Some(&Owner::Thread(pid, tid)) => self.thread_root((pid, Some(tid))),
            Some(&Owner::Process(pid)) => self.thread_root((pid, None)),
            Some(Owner::Named(name)) if !name.is_empty() => name.clone(),
            _ => format!("track {track}"),
        }
    }

    /// How many things were left out, for the error of a trace of which nothing was read (its
    /// warnings are not given).
    fn left_out(&self) -> String {
        match self.left.count() {
            0 => String::new(),
            n => format!(" ({n} samples, packets or heap entries left out, of no callstack or interned data)"),
        }
    }

    fn stack_frames(&self, stack: u32) -> &[FrameId] {
        self.stacks.get_index(stack as usize).map_or(&[], Vec::as_slice)
    }

    /// What was left out, the earlier dumps, the compressed packets and the frames not symbolized.
    fn warn(&self, diag: &mut Diagnostics) {
        self.left.warn(diag);
        if self.earlier_dumps > 0 {
            diag.warn("perfetto-earlier-dumps", None, || {
                format!(
                    "{} earlier heap dumps left out: a dump holds the totals since profiling started, the last one of \
                     each process's heap is read",
                    self.earlier_dumps
                )
            });
        }
        let slices = &self.slices;
        let unclosed = slices.unclosed();
        if slices.unmatched + slices.backwards + slices.untimed + slices.lost > 0 || unclosed > 0 {
            diag.warn("perfetto-slices", None, || {
                format!(
                    "track-event slices: {} ends of no open slice, {} events before the one before them, {} events \
                     of no track or time, {} events whose sequence lost its interned data (left out); {unclosed} \
                     slices still open at the end (their time up to their track's last event kept)",
                    slices.unmatched, slices.backwards, slices.untimed, slices.lost
                )
            });
        }
        if self.untimed_samples > 0 {
            diag.warn("perfetto-untimed-samples", None, || {
                format!(
                    "{} of {} CPU samples have no time (a StreamingProfilePacket of no delta for them, or of a \
                     sequence of no ThreadDescriptor): the samples are not laid out in time",
                    self.untimed_samples,
                    self.untimed_samples as usize + self.sample_times.len()
                )
            });
        }
        if self.compressed > 0 {
            diag.warn("perfetto-compressed", None, || {
                format!("{} packets of compressed packets inside compressed packets not read", self.compressed)
            });
        }
        if !self.unsymbolized.is_empty() {
            let (bare, all) = (self.unsymbolized.len(), self.unsymbolized.len() + self.symbolized.len());
            diag.warn("perfetto-unsymbolized", None, || {
                format!("{bare} of {all} frames have no function name (not symbolized): named FILE+0xREL_PC by their mapping")
            });
        }
    }
}

/// The frame of frame `iid` of `state` (whether it has a function name), or `None` where it, its
/// mapping or its name was not interned.
fn frame(state: &Sequence, iid: u64, frames: &mut FrameTable) -> Option<(FrameId, bool)> {
    let frame = state.frames.get(&iid)?;
    let name = match frame.function_name_id {
        0 => "",
        id => state.function_names.get(&id)?.as_str(),
    };
    let path = match frame.mapping_id {
        0 => String::new(),
        id => mapping_name(state, state.mappings.get(&id)?),
    };
    let module = Some(path.as_str()).filter(|p| !p.is_empty());
    if !name.is_empty() {
        return Some((frames.intern(FrameRef { module, ..FrameRef::function(name) }), true));
    }
    let file = path.rsplit('/').next().filter(|f| !f.is_empty()).unwrap_or("?");
    let name = format!("{file}+{:#x}", frame.rel_pc);
    Some((frames.intern(FrameRef { module, ..FrameRef::function(&name) }), false))
}

/// A mapping's path: `/` and each part, as trace_processor joins them (a path given whole, as
/// Chrome gives it, keeps its one leading `/`); a part not interned ends it.
fn mapping_name(state: &Sequence, parts: &[u64]) -> String {
    let mut name = String::new();
    for part in parts.iter().map_while(|p| state.mapping_paths.get(p)) {
        name.push('/');
        name.push_str(part);
    }
    match name.starts_with("//") {
        true => name[1..].to_string(),
        false => name,
    }
}
