//! Perfetto's trace format: a `Trace` protocol buffer (`protos/perfetto/trace/trace.proto`), what
//! `perfetto`/`traced` record on Linux and Android (traced_perf's CPU samples, heapprofd's heap
//! dumps), what Chrome's tracing writes by default (its sampling profiler's packets), and what the
//! Perfetto UI and `trace_processor` open (`.pftrace`, `.perfetto-trace`; read only).
//!
//! ```text
//! Trace { packet: [
//!   {trusted_packet_sequence_id: 7, sequence_flags: 1,             // SEQ_INCREMENTAL_STATE_CLEARED
//!    interned_data: {function_names: [{iid: 1, str: "main"}, {iid: 2, str: "work"}],
//!      mapping_paths: [{iid: 1, str: "/usr/bin/app"}], mappings: [{iid: 1, path_string_ids: [1]}],
//!      frames: [{iid: 1, function_name_id: 1, mapping_id: 1, rel_pc: 0x1040}, {iid: 2, …}],
//!      callstacks: [{iid: 1, frame_ids: [1, 2]}]}},                // outermost frame first
//!   {trusted_packet_sequence_id: 7, sequence_flags: 2, timestamp: 1000,
//!    perf_sample: {cpu: 0, pid: 42, tid: 43, callstack_iid: 1}},
//!   {process_tree: {processes: [{pid: 42, cmdline: ["/usr/bin/app"]}],
//!                   threads: [{tid: 43, tgid: 42, name: "worker"}]}}, …] }
//! ```
//!
//! **Schema**: a trace is its packets (field 1), each of one kind of data, written in sequences
//! (`trusted_packet_sequence_id`) whose packets refer by interning id (`iid`) to the tables of
//! `interned_data` written earlier in the same sequence; a packet flagged
//! `SEQ_INCREMENTAL_STATE_CLEARED` (or `incremental_state_cleared`) starts its sequence's tables
//! anew, and one flagged `SEQ_NEEDS_INCREMENTAL_STATE` is only read where its sequence's tables
//! are whole: after a clear, and not since a packet was lost (`previous_packet_dropped`), as
//! `trace_processor` reads them. A callstack is frame ids, the outermost first; a frame a function
//! name id (0 for none), a mapping id and its address in the mapping (`rel_pc`); a mapping its
//! path in parts (`/` + each part, as `trace_processor` joins them).
//!
//! **Packets read**: `PerfSample` (traced_perf: a sample of `pid`/`tid`'s callstack; one without a
//! callstack, skipped or failed by the profiler, is counted on stderr), `StreamingProfilePacket`
//! (Chrome's sampler: a sample per callstack id, of the thread of its sequence's
//! `ThreadDescriptor`), `ProfilePacket` (heapprofd: each process's heap dump, the totals of every
//! callstack since profiling started, so that only the last dump of each process and heap is read,
//! the earlier ones said on stderr; its own tables, which older heapprofd writes in it, join its
//! sequence's), `TrackEvent`s that begin and end slices (`TYPE_SLICE_BEGIN`/`END`: Chrome's task
//! slices, any app's `TRACE_EVENT`s) on their track (the event's `track_uuid`, else its
//! sequence's default), at their packet's time on its clock (a sequence's own clock, from its
//! `ClockSnapshot`: incremental ones add each timestamp to the last, as Chrome writes them; other
//! clocks are nanoseconds: durations alone are read, so no clock is converted into another), the
//! names of processes and threads (`ProcessTree`, `ProcessDescriptor`, `ThreadDescriptor`,
//! `TrackDescriptor`). Every other packet is skipped unread. The trace is read a packet at a time
//! from the input, never whole; a packet of compressed packets is inflated and its packets read in
//! its place.
//!
//! **Model**: CPU samples (`PerfSample`, `StreamingProfilePacket`) are the metric `samples`, each
//! under a root thread frame `NAME-PID/TID` (the thread's name, else its process's, else `?`, as
//! the perf reader names a thread); heap dumps are four metrics (`unreleased size`, bytes
//! allocated and not freed, the one the profile is weighed by where there are no CPU samples, as
//! the Perfetto UI shows it first; `unreleased count`, objects; `total size`, bytes allocated;
//! `total count`, objects allocated), each under a root frame `NAME-PID` of its process (and a frame
//! `heap NAME` for a heap other than malloc's); a dump made at its peak (`self_max`) gives its
//! peak as unreleased. Slices are the metric `time` (nanoseconds, measured), nested as the Chrome
//! trace reader nests `B`/`E` (an end closes the innermost slice open on its track), each stack
//! weighing the time between the events of its track while it was the one open, under the root of
//! its track's thread (`NAME-PID/TID`), process (`NAME-PID`) or name; ends of no open slice, slices
//! still open at the end (their time up to their track's last event kept) and events of no track
//! or clock are counted on stderr. A frame is its function's name with its mapping's path as
//! module; a frame of no function name (not symbolized) is named `FILE+0xREL_PC` by its mapping's
//! file name, as pprof names a location by its address, and how many are is said on stderr; a
//! slice's frame is its name (`?` where its name was not interned). **Timeline**: each slice that
//! ran for some time, from its begin to its end (the one closed at its track's last event there),
//! on its stack's node; each CPU sample on its stack's node at its time: a `PerfSample` at its
//! packet's, a `StreamingProfilePacket`'s at its sequence's thread's time (the
//! `ThreadDescriptor`'s `reference_timestamp_us`, else 0) moved on by each sample's
//! `timestamp_delta_us`, as `trace_processor` times them; where a sample has no time (a packet of no
//! timestamp, a delta missing, no thread descriptor) no sample is laid out, said on stderr. Each is
//! at its own clock, in ns (a trace's clock domains are not converted into one another: two tracks
//! on two clocks are apart in time, and Chrome's samples, on its monotonic clock, apart from
//! slices on another).
//!
//! **Errors**: a packet cut short by the end of the input (the file looks cut short), bytes that are
//! no protobuf field, a packet that does not decode, compressed packets that do not inflate, each
//! at its byte; a trace without a sample, heap dump or slice. A callstack, frame, mapping or name
//! that its sequence never interned leaves its sample out, counted on stderr, as `trace_processor`
//! counts it in its stats.
//!
//! **Lost**: CPUs, frame kinds, source files and lines of frames, build ids, mapping
//! address ranges, counter values of samples (`timebase_count`, followers), earlier heap dumps,
//! Java heap graphs, instant and counter track events, slices' categories and arguments, flows,
//! and every packet of no profile. Packets compressed in the trace (`compressed_packets`, zlib, as
//! `traced` writes them with compression on) are inflated and read (each up to 1 GiB inflated);
//! compressed packets inside those are counted on stderr.

mod proto;
mod read;
mod slices;

use super::kit::wire;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::model::MetricKind;
use std::io::{BufRead, BufReader, Read};

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "perfetto",
    description: "Perfetto traces (protobuf: traced_perf samples, heapprofd heap dumps, Chrome's sampler and slices)",
    extensions: &["perfetto-trace", "pftrace"],
    carries: Carries::SAMPLES_PER_THREAD
        .weighing(&[MetricKind::Samples, MetricKind::Alloc, MetricKind::Objects, MetricKind::Time])
        .with_frame_kinds()
        .with_modules(),
    reads: Some(Reads::binary(sniff, read::read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// `Yes` for the start of a trace: packets (field 1), the first of fields no pprof `ValueType`
/// has ([`wire::is_perfetto_trace`]).
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(wire::is_perfetto_trace(head))
}

/// The packets of a trace read one at a time from its input, each with the byte it starts at.
struct Packets<R> {
    input: R,
    /// The bytes read so far.
    at: u64,
    /// The packet read last.
    packet: Vec<u8>,
}

impl<R: BufRead> Packets<R> {
    /// The next packet into `self.packet`, with the byte its field starts at; `None` at the end.
    /// Fields of the trace other than packets are skipped.
    fn next(&mut self) -> Result<Option<u64>, ParseError> {
        loop {
            let start = self.at;
            let Some(tag) = self.varint(true)? else { return Ok(None) };
            let cut = |at| error(at, "a whole packet", "the end of the input: the file looks cut short".into());
            let invalid = || error(start, "a packet (protobuf field 1)", format!("a field of wire type {}", tag & 7));
            match tag & 7 {
                0 => {
                    self.varint(false)?.ok_or_else(|| cut(start))?;
                }
                1 | 5 => self.skip(if tag & 7 == 1 { 8 } else { 4 }).map_err(|_| cut(start))?,
                2 => {
                    let len = self.varint(false)?.ok_or_else(|| cut(start))?;
                    self.packet.clear();
                    let read = (&mut self.input).take(len).read_to_end(&mut self.packet).map_err(|e| io(start, e))?;
                    self.at += read as u64;
                    if (read as u64) < len {
                        return Err(cut(start));
                    }
                    if tag >> 3 == 1 {
                        return Ok(Some(start));
                    }
                }
                _ => return Err(invalid()),
            }
        }
    }

    /// Skips `n` bytes.
    fn skip(&mut self, n: u64) -> Result<(), ()> {
        let skipped = std::io::copy(&mut (&mut self.input).take(n), &mut std::io::sink()).map_err(|_| ())?;
        self.at += skipped;
        if skipped < n {
            return Err(());
        }
        Ok(())
    }

    /// A varint; `None` at the end of the input where `may_end` (between fields) says it may end
    /// there, an error where it ends inside one.
    fn varint(&mut self, may_end: bool) -> Result<Option<u64>, ParseError> {
        let start = self.at;
        let mut value = 0u64;
        for i in 0..10 {
            let byte = match self.input.fill_buf() {
                Ok([]) if i == 0 && may_end => return Ok(None),
                Ok([]) => {
                    return Err(error(start, "a whole field", "the end of the input: the file looks cut short".into()))
                }
                Ok(buf) => buf[0],
                Err(e) => return Err(io(start, e)),
            };
            self.input.consume(1);
            self.at += 1;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(Some(value));
            }
        }
        Err(error(start, "a protobuf varint", "more than 10 bytes".into()))
    }
}

/// The packets of `input`.
fn packets(input: &mut (dyn Read + Send)) -> Packets<BufReader<&mut (dyn Read + Send)>> {
    Packets { input: BufReader::with_capacity(1 << 16, input), at: 0, packet: Vec::new() }
}

/// The error at byte `at` where `expected` was.
fn error(at: u64, expected: &str, found: String) -> ParseError {
    ParseError {
        format: FORMAT,
        position: Position::byte(at),
        kind: ParseErrorKind::Unexpected { expected: expected.to_string(), found },
    }
}

/// The error of an input that could not be read, at byte `at`.
fn io(at: u64, e: std::io::Error) -> ParseError {
    ParseError { format: FORMAT, position: Position::byte(at), kind: ParseErrorKind::Io(e) }
}
