//! The messages of a Perfetto trace that proftool reads, as google/perfetto declares them
//! (`protos/perfetto/trace/trace_packet.proto`, `interned_data/interned_data.proto`,
//! `profiling/profile_common.proto`, `profiling/profile_packet.proto`, `ps/process_tree.proto`,
//! `track_event/process_descriptor.proto`, `thread_descriptor.proto`, `track_descriptor.proto`,
//! `track_event.proto`, `clock_snapshot.proto`, `trace_packet_defaults.proto`),
//! with their field numbers: only the fields read are declared, prost skips the others (and every
//! packet of another kind is a packet of none of these fields).

use prost::Message;

/// `TracePacket`: one packet of the trace (field 1 of `Trace`, walked one at a time).
#[derive(Clone, PartialEq, Message)]
pub(super) struct TracePacket {
    #[prost(message, optional, tag = "2")]
    pub process_tree: Option<ProcessTree>,
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    #[prost(uint32, tag = "13")]
    pub sequence_flags: u32,
    #[prost(message, optional, tag = "37")]
    pub profile_packet: Option<ProfilePacket>,
    #[prost(bool, tag = "41")]
    pub incremental_state_cleared: bool,
    #[prost(bool, tag = "42")]
    pub previous_packet_dropped: bool,
    #[prost(message, optional, tag = "43")]
    pub process_descriptor: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "44")]
    pub thread_descriptor: Option<ThreadDescriptor>,
    #[prost(bytes = "vec", optional, tag = "50")]
    pub compressed_packets: Option<Vec<u8>>,
    #[prost(message, optional, tag = "54")]
    pub streaming_profile_packet: Option<StreamingProfilePacket>,
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(message, optional, tag = "59")]
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    #[prost(message, optional, tag = "66")]
    pub perf_sample: Option<PerfSample>,
    #[prost(int32, optional, tag = "79")]
    pub trusted_pid: Option<i32>,
}

/// `TracePacket.SequenceFlags`: the packet's sequence starts its interned data anew.
pub(super) const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.SequenceFlags`: the packet refers to its sequence's interned data.
pub(super) const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `InternedData`: the tables of a sequence, each entry with its interning id (`iid`).
#[derive(Clone, PartialEq, Message)]
pub(super) struct InternedData {
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<EventName>,
    #[prost(message, repeated, tag = "5")]
    pub function_names: Vec<InternedString>,
    #[prost(message, repeated, tag = "6")]
    pub frames: Vec<Frame>,
    #[prost(message, repeated, tag = "7")]
    pub callstacks: Vec<Callstack>,
    #[prost(message, repeated, tag = "17")]
    pub mapping_paths: Vec<InternedString>,
    #[prost(message, repeated, tag = "19")]
    pub mappings: Vec<Mapping>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct InternedString {
    #[prost(uint64, tag = "1")]
    pub iid: u64,
    #[prost(bytes = "vec", tag = "2")]
    pub str: Vec<u8>,
}

/// `Mapping`: a file mapped into a process, its path in parts (`["system", "lib64", "libc.so"]`).
#[derive(Clone, PartialEq, Message)]
pub(super) struct Mapping {
    #[prost(uint64, tag = "1")]
    pub iid: u64,
    #[prost(uint64, repeated, tag = "7")]
    pub path_string_ids: Vec<u64>,
}

/// `Frame`: a function (by name id, 0 for none) at `rel_pc` in a mapping.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Frame {
    #[prost(uint64, tag = "1")]
    pub iid: u64,
    #[prost(uint64, tag = "2")]
    pub function_name_id: u64,
    #[prost(uint64, tag = "3")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "4")]
    pub rel_pc: u64,
}

/// `Callstack`: frame ids, the outermost ("bottom") frame first.
#[derive(Clone, PartialEq, Message)]
pub(super) struct Callstack {
    #[prost(uint64, tag = "1")]
    pub iid: u64,
    #[prost(uint64, repeated, tag = "2")]
    pub frame_ids: Vec<u64>,
}

/// `PerfSample` (traced_perf): one sample of a thread's callstack.
#[derive(Clone, PartialEq, Message)]
pub(super) struct PerfSample {
    #[prost(uint32, tag = "2")]
    pub pid: u32,
    #[prost(uint32, tag = "3")]
    pub tid: u32,
    #[prost(uint64, tag = "4")]
    pub callstack_iid: u64,
    #[prost(uint64, tag = "17")]
    pub kernel_records_lost: u64,
    #[prost(message, optional, tag = "19")]
    pub producer_event: Option<ProducerEvent>,
}

/// `PerfSample.ProducerEvent`: not a sample (the data source stopped); that it is there is all
/// that is read of it.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ProducerEvent {}

/// `StreamingProfilePacket` (Chrome's sampling profiler): callstack ids, a sample each.
#[derive(Clone, PartialEq, Message)]
pub(super) struct StreamingProfilePacket {
    #[prost(uint64, repeated, tag = "1")]
    pub callstack_iid: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub timestamp_delta_us: Vec<i64>,
}

/// `ProfilePacket` (heapprofd): its own tables (older heapprofd; newer interns them) and the
/// processes' heap dumps.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ProfilePacket {
    #[prost(message, repeated, tag = "1")]
    pub strings: Vec<InternedString>,
    #[prost(message, repeated, tag = "2")]
    pub frames: Vec<Frame>,
    #[prost(message, repeated, tag = "3")]
    pub callstacks: Vec<Callstack>,
    #[prost(message, repeated, tag = "4")]
    pub mappings: Vec<Mapping>,
    #[prost(message, repeated, tag = "5")]
    pub process_dumps: Vec<ProcessHeapSamples>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ProcessHeapSamples {
    #[prost(uint64, tag = "1")]
    pub pid: u64,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<HeapSample>,
    #[prost(uint64, tag = "9")]
    pub timestamp: u64,
    #[prost(string, tag = "11")]
    pub heap_name: String,
}

/// `ProfilePacket.HeapSample`: a callstack's totals since profiling started.
#[derive(Clone, PartialEq, Message)]
pub(super) struct HeapSample {
    #[prost(uint64, tag = "1")]
    pub callstack_id: u64,
    #[prost(uint64, tag = "2")]
    pub self_allocated: u64,
    #[prost(uint64, tag = "3")]
    pub self_freed: u64,
    #[prost(uint64, tag = "5")]
    pub alloc_count: u64,
    #[prost(uint64, tag = "6")]
    pub free_count: u64,
    #[prost(uint64, tag = "8")]
    pub self_max: u64,
    #[prost(uint64, tag = "9")]
    pub self_max_count: u64,
}

/// `ProcessTree` (linux.process_stats): processes and threads with their names.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ProcessTree {
    #[prost(message, repeated, tag = "1")]
    pub processes: Vec<Process>,
    #[prost(message, repeated, tag = "2")]
    pub threads: Vec<Thread>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Process {
    #[prost(int32, tag = "1")]
    pub pid: i32,
    #[prost(string, repeated, tag = "3")]
    pub cmdline: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Thread {
    #[prost(int32, tag = "1")]
    pub tid: i32,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(int32, tag = "3")]
    pub tgid: i32,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ProcessDescriptor {
    #[prost(int32, tag = "1")]
    pub pid: i32,
    #[prost(string, repeated, tag = "2")]
    pub cmdline: Vec<String>,
    #[prost(string, optional, tag = "6")]
    pub process_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ThreadDescriptor {
    #[prost(int32, tag = "1")]
    pub pid: i32,
    #[prost(int64, tag = "2")]
    pub tid: i64,
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
    #[prost(int64, optional, tag = "6")]
    pub reference_timestamp_us: Option<i64>,
}

/// `TrackDescriptor`: a track, of a process or a thread where it says so.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "10")]
    pub static_name: Option<String>,
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
}

/// `EventName`: an interned name of track events.
#[derive(Clone, PartialEq, Message)]
pub(super) struct EventName {
    #[prost(uint64, tag = "1")]
    pub iid: u64,
    #[prost(string, tag = "2")]
    pub name: String,
}

/// `TrackEvent`: a slice's begin or end (other types are not read), on its track.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TrackEvent {
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
}

/// `TrackEvent.Type`: a slice begins, a slice ends.
pub(super) const TYPE_SLICE_BEGIN: i32 = 1;
pub(super) const TYPE_SLICE_END: i32 = 2;

/// `ClockSnapshot`: the clocks' values at one time; a sequence's own clocks (64 to 127) with
/// their unit and whether timestamps in them are differences.
#[derive(Clone, PartialEq, Message)]
pub(super) struct ClockSnapshot {
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Clock {
    #[prost(uint32, tag = "1")]
    pub clock_id: u32,
    #[prost(uint64, tag = "2")]
    pub timestamp: u64,
    #[prost(bool, tag = "3")]
    pub is_incremental: bool,
    #[prost(uint64, optional, tag = "4")]
    pub unit_multiplier_ns: Option<u64>,
}

/// `TracePacketDefaults`: a sequence's clock and track of its packets where they name none.
#[derive(Clone, PartialEq, Message)]
pub(super) struct TracePacketDefaults {
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct TrackEventDefaults {
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
}
