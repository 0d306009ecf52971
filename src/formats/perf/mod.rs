//! Linux `perf script` text: the samples of a `perf record` recording, as `perf script` prints
//! them (Linux `tools/perf/Documentation/perf-script.txt`), the input of `inferno-collapse-perf`,
//! FlameGraph's `stackcollapse-perf.pl` and speedscope's perf importer.
//!
//! ```text
//! # a comment (perf script --header)
//! prog 30839 [001]   562.245409:    1003009 cpu-clock:pppH:
//!                 118e leaf+0x25 (/tmp/prog)
//!   work.c:9
//!                 11d8 parse_input+0x9 (/tmp/prog)
//!     ffffffff816ac68b __check_object_size+0x11b ([kernel.kallsyms])
//!           12c0000000 [unknown] ([unknown])
//!
//! V8 WorkerThread 24636/25607 94564.109216: cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
//!         perfwork  5801   180.962862:    1001001 cpu-clock:      55dd8b8f51a2 leaf+0x39 (/tmp/perfwork)
//! ```
//!
//! (Frame lines start with a TAB, shown here as spaces.) Android's simpleperf prints the same with
//! its `report_sample.py`, separating fields with tabs (`Gecko\t25122 [007] 115539.936601:\t\t1000000
//! task-clock:u:`, frames `        b3cea6c4\tLock::unlock() (/system/lib/libc.so)`, an address padded
//! to 16 columns and no leading tab), as the Firefox Profiler's perf importer reads it: tabs after a
//! line's leading white space are read as spaces.
//!
//! **Grammar**: lines starting with `#` are skipped anywhere. A record is a *header line* and its
//! frames, innermost first, ended by a blank (or whitespace-only) line. The header is `COMM TID` or
//! `COMM PID/TID` (the command name is everything before the first word of digits followed by a
//! space, and may hold spaces), then each field perf prints where `-F` keeps it: `[CPU]`, the time
//! in seconds and a colon, the period, the event with its modifiers (`cpu-clock:pppH:`,
//! `cycles:u:`). A sample without call chain (`perf record` without `-g`, or a one-frame sample)
//! carries its frame on the header line after the event, and its record ends there: the next line
//! is the next header, no blank line between. A frame line is an address in hex, the symbol
//! (`sym+0xOFF`, `[unknown]`, or nothing) and the DSO in parentheses, the last word; with `-F ip,sym`
//! the DSO is left out (a tab, the address and a symbol). With `-F +srcline` a source line
//! (`  work.c:9`, two spaces, a file, a colon and a line number, `??:0` for none; where perf knows no
//! line, the DSO and the address, `  [kernel.kallsyms][ffffffff822601e7]`) follows each frame.
//! With `-F +tod` a time of day (`2026-12-02 10:50:18.103511`) comes before the time, and is
//! skipped; with `-F +misc` the sample's mode (`K`, `U` …) comes after the TID or CPU, and is
//! skipped. The thread id of a sample of a task that had exited when perf read the recording is
//! `-1` (`:-1    -1 [001]  6016.878263: …`, the command `:-1`). A tracepoint's event is named `SYSTEM:NAME:` (`sched:sched_switch:`; modifiers, `:u`,
//! are letters of perf's own) and its fields follow on the header line, skipped. A field list
//! without `ip` (or a tracepoint recorded without `-g`) prints a sample on its header line alone:
//! the next header ends it, no blank line between, and the file ends without one. A side-band
//! event (`--show-task-events`, `--show-mmap-events`, `--show-switch-events`,
//! `--show-round-events` …) is a line of its own, `prog 5754 260.658406: PERF_RECORD_COMM exec: …`
//! or `PERF_RECORD_FINISHED_ROUND` alone: no sample, skipped and counted by kind. A frame of a
//! function inlined into its caller (`--call-graph dwarf`) has `(inlined)` where the DSO would be,
//! or, with `-F +srcline`, no DSO and a source line that ends ` (inlined)`.
//!
//! **Model**, as `inferno-collapse-perf` collapses the same file: each record is a stack whose root
//! is the command name (`:TID` where `-F` leaves it out, as perf names a thread whose command it
//! does not know; spaces as `_`; a command that ends in a space and a number, `FS Broker 5906`,
//! whole, where inferno and `stackcollapse-perf.pl` take its number for the thread id; with `--perf-pid` `comm-PID`, with `--perf-tid`
//! `comm-PID/TID`, `?` for a PID the header lacks), a thread frame, and whose frames are the symbols
//! without their `+0x..` offset, with the DSO as module; `[unknown]` of a known DSO is named
//! `[basename-of-dso]`. An inlined frame is a function frame of its own, in the DSO of the next
//! frame at its address (perf prints every frame an address's inlining gives at that address;
//! none where none of them has a DSO, as `__libc_start_main_impl+0x84 (inlined)` under `_start`). Names are tidied as inferno tidies them: `;` → `:`, an argument list cut at
//! the first top-level `(` (not Go's `pkg.(*T).M`, nor C++'s `(anonymous namespace)`), a Java
//! symbol's leading `L` dropped under a `java` command, a Rust symbol perf left half demangled
//! tidied (`rust_symbols`: `GcBox$LT$T$GT$::new::h…` → `GcBox<T>::new`), a perf-map symbol
//! `a->b->c` split into frames, the inlined ones suffixed `_[i]`. A sample without frames (a call chain perf could not take) is
//! its command alone, as `stackcollapse-perf.pl` keeps it (inferno leaves it out), warned. A symbol wholly in parentheses, `(java)`, FlameGraph's
//! placeholder of a process name, is no frame. Unlike inferno, which skips every symbol that starts
//! with `(`, C++'s `(anonymous namespace)::checksum` is a frame: its function's time stays its own.
//! With `--perf-annotate` (inferno's `--all`), a frame of the kernel (a DSO in brackets but
//! `[unknown]`, a `.ko` module or a `vmlinux`) is suffixed `_[k]` and one of JIT code (a perf map
//! `/tmp/perf-PID.map` or a `jitted-*.so`) `_[j]`.
//! Metrics: for each event (named without its modifiers, `cpu-clock`) the sum of its periods, where
//! headers carry one — time in nanoseconds for the clock events `cpu-clock` and `task-clock`, else a
//! count of events named by the event (`cycles`; `period` where `-F` leaves the event out) — and its
//! samples (`samples`, or `EVENT samples` where the file has several events). The profile is weighed
//! by the first event's periods, as inferno counts a stack's periods of the first event it meets,
//! or by its samples where the file has no period (inferno counts 1 a sample there); the period of
//! the first sample of a clock event is the interval.
//!
//! **Errors**: a header that has no word of digits after the command (`-F` without `tid`: said so,
//! a word of digits after the time being its period, not a thread id), or a frame line that is not
//! one, is an error at its line and column; a file without a record is refused. A file that does
//! not end with the blank line `perf script` ends a record with is read, with a warning that it looks
//! cut short; a last line without its line end is cut, and left out with that warning. A raw
//! `perf.data` recording (`PERFILE2`) is refused by detection with the `perf script` command that
//! prints it.
//!
//! **Timeline**: each sample's time (`562.245409:`, to the µs, or the ns with `--ns`) and the node
//! its stack ends at, in time order, where every header has one (`-F` without `time`: none).
//!
//! **Lost**: addresses, offsets, CPUs and source lines (counted in a warning); a Rust
//! symbol perf left half demangled stays as perf printed it (inferno fixes some).

mod lines;
mod names;
mod pairs;

use super::shared::unique_name;
use super::spec::{Carries, Reads, Sniff, Spec};
use super::stacks::StackTree;
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::model::Sampling;
use crate::model::{
    CallTree, FrameId, FrameKind, FrameRef, FrameTable, Metric, MetricKind, NodeId, Profile, Repr, TimedSample,
    Timeline, Unit, Values,
};
use lines::{Header, Parsed, Splitter};
use pairs::{FrameIds, PairKey, Pairs};
use std::io::Read;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "perf",
    description: "Linux `perf script` text of a `perf record` recording (with `-g` or without, `-F` field lists), and simpleperf's `report_sample.py` text",
    extensions: &["perf-script", "perf"],
    carries: Carries {
        time_unit: Some(Unit::Nanoseconds),
        ..Carries::STACKS_OF_SAMPLES
            .with_threads()
            .weighing(&[MetricKind::Samples, MetricKind::Time, MetricKind::Events])
            .with_frame_kinds()
            .with_modules()
            .with_interval()
    },
    reads: Some(Reads::text(sniff, |input, options, diag| {
        read(input, &options.formats.get(), diag)
    })),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What the root frame of a stack names, as inferno's `--pid` and `--tid` say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Root {
    /// The command name alone.
    #[default]
    Comm,
    /// `comm-PID` (`--perf-pid`).
    Pid,
    /// `comm-PID/TID` (`--perf-tid`).
    Tid,
}

/// `perf script`'s own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// What a stack's root frame names (`--perf-pid`, `--perf-tid`).
    pub root: Root,
    /// Suffix kernel frames' names with `_[k]` and JIT frames' with `_[j]` (`--perf-annotate`,
    /// inferno-collapse-perf's `--all`), which flame graphs colour apart.
    pub annotate: bool,
}

/// `Yes` when the first line that is not a comment nor a side-band event is a sample header
/// followed by a frame (on the next line, or on the header line itself), `Maybe` for a header alone
/// (the head ends there). A header without the time that perf script prints unless `-F` leaves it
/// out needs its frame on a line of its own, which starts with perf's tab. Samples perf prints on
/// their header line alone (a field list without `ip`, tracepoints recorded without `-g`) are
/// headers of an event one after the other: `Yes` with their time, `Maybe` without.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !lines::is_blank(l))
        .map(lines::spaced)
        .filter(|l| !lines::is_side_band_line(l));
    let Some(line) = lines.next() else { return Sniff::No };
    let Some(header) = lines::parse_header(&line) else { return Sniff::No };
    let is_frame = |line: &str, start: usize, bare: bool| {
        lines::frame_symbol_and_dso(line, start, bare).is_some()
            && line[start..].split(' ').next().is_some_and(lines::is_hex)
    };
    if let Some(start) = header.frame {
        return match header.time.is_some() && is_frame(&line, start, true) {
            true => Sniff::Yes,
            false => Sniff::No,
        };
    }
    let next_is_event_header =
        |next: &str| header.event.is_some() && lines::parse_header(next).is_some_and(|h| h.event.is_some());
    match lines.next() {
        Some(next)
            if is_frame(&next, lines::leading_space(&next), true) && (header.time.is_some() || next.starts_with('\t')) =>
        {
            Sniff::Yes
        }
        Some(next) if next_is_event_header(&next) && header.time.is_some() => Sniff::Yes,
        Some(next) if next_is_event_header(&next) => Sniff::Maybe,
        Some(_) => Sniff::No,
        None if header.time.is_some() => Sniff::Maybe,
        None => Sniff::No,
    }
}

/// Whether `head` is a raw `perf.data` recording (its header's magic, `PERFILE2`, or version 1's
/// `PERFFILE`), which `perf script` turns into the text read here.
pub(crate) fn is_perf_data(head: &[u8]) -> bool {
    head.starts_with(b"PERFILE2") || head.starts_with(b"PERFFILE")
}

/// Whether a command is a Java one, whose frames' names lose a leading `L`.
fn is_java(comm: &str) -> bool {
    comm.starts_with("java")
}

/// One event of the file: its name, and the columns of its periods and samples by node.
struct Event {
    name: String,
    periods: Vec<i64>,
    /// The period of its first sample.
    first_period: Option<u64>,
    samples: Vec<i64>,
}

/// The record being read on the building thread.
struct Record {
    root: FrameId,
    event: usize,
    period: Option<u64>,
    /// When it was taken (ns), where its header says.
    time: Option<i64>,
    /// Frames, innermost first.
    frames: Vec<FrameId>,
    position: Position,
}

/// What ended a record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// The blank line perf prints after a sample's frames.
    Blank,
    /// The next line that is none of its frames (a header, a side-band event): perf prints a
    /// sample of no frames on its header line alone (a field list without `ip`, a tracepoint
    /// recorded without `-g`), or its one frame there (no call chain).
    NextLine,
}

/// Frames perf printed without their DSO, innermost first, until the next frame that has one:
/// an inlined frame (`(inlined)` where the DSO would be; with `-F +srcline` no DSO, and a source
/// line ending ` (inlined)`), whose code is in the DSO of the frame it is inlined into, the next
/// at its address, which it takes (perf 6.1 prints `__libc_start_main_impl+0x84 (inlined)` with no
/// frame of its own address after it: that one has none); a frame of a field list without `dso`,
/// which has none.
#[derive(Default)]
struct Awaiting {
    /// Their symbols and addresses, one after the other, and the DSO they take at the end.
    text: String,
    frames: Vec<AwaitingFrame>,
}

/// A frame that awaits its DSO: where its symbol and address are in [`Awaiting::text`].
struct AwaitingFrame {
    symbol: std::ops::Range<usize>,
    address: std::ops::Range<usize>,
    inlined: bool,
}

/// The building thread's state. It names the frames (each symbol and DSO once, in [`Pairs`]) as
/// well as building the tree: the reading thread, which splits and parses every line, has the
/// more work of the two without them.
struct Builder {
    options: Options,
    pairs: Pairs,
    frames: FrameTable,
    /// Whether the open record's command is a Java one.
    java: bool,
    root_name: String,
    tree: CallTree,
    stacks: StackTree,
    events: Vec<Event>,
    record: Option<Record>,
    /// The frames vector of the last record, kept for the next.
    spare: Vec<FrameId>,
    awaiting: Awaiting,
    /// Each record's time and node, where its header has a time.
    timeline: Vec<TimedSample>,
    /// Records whose header has no time (`-F` without `time`): the profile then has no timeline.
    n_untimed: u64,
    n_records: u64,
    /// Records of no frames that a blank line ended: call chains perf could not take.
    n_empty: u64,
    /// Records of no frames that the next line ended: samples printed on their header alone.
    n_header_only: u64,
    /// Records that a blank line ended.
    n_blank_ended: u64,
}

/// Reads `perf script` text (see the module documentation).
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut builder = Builder {
        options: *options,
        pairs: Pairs::default(),
        frames: FrameTable::default(),
        java: false,
        root_name: String::new(),
        tree: CallTree::new(&[]),
        stacks: StackTree::default(),
        events: Vec::new(),
        record: None,
        spare: Vec::new(),
        awaiting: Awaiting::default(),
        timeline: Vec::new(),
        n_untimed: 0,
        n_records: 0,
        n_empty: 0,
        n_header_only: 0,
        n_blank_ended: 0,
    };
    let mut splitter = Splitter::default();
    let mut last_byte = 0;
    let mut cut = None;
    crate::text::pipeline_with_parts(
        crate::text::Blocks::new(input, FORMAT),
        |text: &str, headers: &mut Vec<Header>| splitter.parse(text, headers),
        |line, parsed, headers| {
            last_byte = line.position.byte;
            if line.unterminated {
                // The input was cut in this line: what is left of it is no field or frame.
                cut = Some(line.position);
                return Ok(());
            }
            match parsed {
                Parsed::Skip => {}
                Parsed::End => builder.finish_record(End::Blank),
                Parsed::Header(index) => {
                    let header = &headers[index as usize];
                    builder.finish_record(End::NextLine);
                    builder.start_record(line.text, header, line.position);
                    if let Some(key) = &header.frame_key {
                        builder.add_frames(line.text, key);
                        builder.finish_record(End::NextLine);
                    }
                }
                Parsed::Frame(key) => builder.add_frames(line.text, &key),
                Parsed::InlinedSource => builder.last_frame_inlined(),
                Parsed::SideBand => builder.finish_record(End::NextLine),
                Parsed::Bad(at, kind) => return Err(line.error_at(at, *kind)),
            }
            Ok(())
        },
    )?;
    let open = builder.record.as_ref().filter(|record| builder.looks_cut(record)).map(|record| record.position);
    if let Some(position) = cut.or(open) {
        diag.warn("cut-short", Some(position), || {
            let how = match cut {
                Some(_) => "in the middle of a line, which is left out",
                None => "without the blank line perf script writes after every sample",
            };
            format!("the input ends {how}: it looks cut short, and its last sample may have lost frames")
        });
        builder.finish_record(End::Blank);
    }
    builder.finish_record(End::NextLine);
    if builder.n_records == 0 {
        return Err(ParseError {
            format: FORMAT,
            position: Position::byte(last_byte),
            kind: ParseErrorKind::Unexpected {
                expected: "a sample (a header line and its frames)".into(),
                found: "none".into(),
            },
        });
    }
    say_what_was_left_out(&builder, &splitter, diag);
    Ok(builder.into_profile())
}

/// The warnings of what a file holds that is no frame of a stack: samples of none, source lines,
/// side-band events.
fn say_what_was_left_out(builder: &Builder, splitter: &Splitter, diag: &mut Diagnostics) {
    let samples = |n: u64| if n == 1 { "sample" } else { "samples" };
    if builder.n_empty > 0 {
        let n = builder.n_empty;
        diag.warn("perf-no-frames", None, || {
            format!(
                "{n} {} without frames kept as their command alone, as stackcollapse-perf.pl keeps them \
                 (inferno-collapse-perf leaves them out)",
                samples(n)
            )
        });
    }
    if builder.n_header_only > 0 {
        let n = builder.n_header_only;
        diag.warn("perf-header-only", None, || {
            format!(
                "{n} {} printed without frames (a field list without ip, or a tracepoint recorded without -g): \
                 each is its command alone",
                samples(n)
            )
        });
    }
    if splitter.source_lines > 0 {
        let n = splitter.source_lines;
        diag.warn("perf-source-lines", None, || {
            format!("{n} source lines (perf script -F +srcline) skipped: a frame here is a function, not a line")
        });
    }
    let side_band = &splitter.side_band;
    if side_band.lines > 0 {
        diag.warn("perf-side-band", None, || {
            let lines = if side_band.lines == 1 { "line" } else { "lines" };
            format!(
                "{} {lines} of side-band events (PERF_RECORD_{}: perf script --show-*-events) skipped: they are no samples",
                side_band.lines,
                side_band.kinds.join(", ")
            )
        });
    }
}

impl Builder {
    fn start_record(&mut self, line: &str, header: &Header, position: Position) {
        let event = header.event.clone().map_or("", |e| &line[e]);
        let event = match self.events.iter().position(|e| e.name == event) {
            Some(i) => i,
            None => {
                self.events.push(Event {
                    name: event.to_string(),
                    periods: Vec::new(),
                    first_period: header.period,
                    samples: Vec::new(),
                });
                self.events.len() - 1
            }
        };
        let root = self.root_frame(line, header);
        let frames = std::mem::take(&mut self.spare);
        self.record = Some(Record { root, event, period: header.period, time: header.time, frames, position });
    }

    /// The root frame of a record (its command's thread, by command, PID or TID as the options
    /// say); notes whether the command is a Java one.
    fn root_frame(&mut self, line: &str, header: &Header) -> FrameId {
        let comm = &line[header.comm.clone()];
        self.java = is_java(comm);
        self.root_name.clear();
        self.root_name.extend(comm.chars().map(|c| if c == ' ' { '_' } else { c }));
        if comm.is_empty() {
            // A field list without `comm`: the thread as perf names one whose command it does not
            // know, `:TID` (its thread__new).
            self.root_name.push(':');
            self.root_name.push_str(&line[header.tid.clone()]);
        }
        if self.options.root != Root::Comm {
            self.root_name.push('-');
            self.root_name.push_str(header.pid.clone().map_or("?", |p| &line[p]));
        }
        if self.options.root == Root::Tid {
            self.root_name.push('/');
            self.root_name.push_str(&line[header.tid.clone()]);
        }
        self.frames.intern_name(&self.root_name, FrameKind::Thread)
    }

    /// Adds the frames of a frame line (or of the frame on a header line) to the open record,
    /// named the first time their symbol and DSO come under a command of this kind; a frame
    /// printed without its DSO waits for the next that has one ([`Awaiting`]).
    fn add_frames(&mut self, line: &str, key: &PairKey) {
        if self.record.is_none() {
            return;
        }
        let (symbol, dso) = key.parts(line);
        if dso.is_empty() || dso == "inlined" {
            let address = address_before(line, key.symbol_start());
            let text = &mut self.awaiting.text;
            let symbol_range = text.len()..text.len() + symbol.len();
            text.push_str(symbol);
            let address_range = text.len()..text.len() + address.len();
            text.push_str(address);
            let inlined = dso == "inlined";
            self.awaiting.frames.push(AwaitingFrame { symbol: symbol_range, address: address_range, inlined });
            return;
        }
        if !self.awaiting.frames.is_empty() {
            self.add_awaiting(dso, address_before(line, key.symbol_start()));
        }
        self.add_frames_of(line, key);
    }

    /// Marks the last frame that awaits its DSO inlined (its source line says so, `-F +srcline`).
    fn last_frame_inlined(&mut self) {
        if let Some(frame) = self.awaiting.frames.last_mut() {
            frame.inlined = true;
        }
    }

    /// Adds the frames that await their DSO: the inlined ones at `address` in `dso`, the others in
    /// none.
    fn add_awaiting(&mut self, dso: &str, address: &str) {
        if self.awaiting.frames.is_empty() {
            return;
        }
        let mut awaiting = std::mem::take(&mut self.awaiting);
        let dso_range = awaiting.text.len()..awaiting.text.len() + dso.len();
        awaiting.text.push_str(dso);
        let none = dso_range.end..dso_range.end;
        for frame in awaiting.frames.drain(..) {
            let in_dso = frame.inlined && awaiting.text[frame.address] == *address;
            let dso = if in_dso { dso_range.clone() } else { none.clone() };
            self.add_frames_of(&awaiting.text, &PairKey::new(&awaiting.text, frame.symbol, dso));
        }
        awaiting.text.clear();
        // Its buffers are kept for the next.
        self.awaiting = awaiting;
    }

    /// Adds the frames of the symbol and DSO `key` finds in `line` to the open record.
    fn add_frames_of(&mut self, line: &str, key: &PairKey) {
        let Some(record) = &mut self.record else { return };
        let (java, annotate, frames) = (self.java, self.options.annotate, &mut self.frames);
        let ids = self.pairs.frames(line, key, java, |symbol, dso| {
            // Inlined frames come caller first: innermost first, they go on in reverse.
            names::frame_names(symbol, dso, java, annotate)
                .iter()
                .rev()
                .map(|(name, dso)| {
                    let module = (*dso != "[unknown]" && !dso.is_empty()).then_some(*dso);
                    frames.intern(FrameRef { module, ..FrameRef::function(name) })
                })
                .collect()
        });
        match ids {
            Some(FrameIds::One(frame)) => record.frames.push(frame),
            Some(FrameIds::Several(frames)) => record.frames.extend_from_slice(&frames),
            None => {}
        }
    }

    /// Whether the input ending in `record` looks cut short: it has frames, or the file's
    /// records end with a blank line (not one printed on its header line alone, as every one
    /// of a field list without `ip` is).
    fn looks_cut(&self, record: &Record) -> bool {
        !record.frames.is_empty() || !self.awaiting.frames.is_empty() || self.n_blank_ended > 0
    }

    fn finish_record(&mut self, end: End) {
        if self.record.is_none() {
            return;
        }
        self.add_awaiting("", "");
        let Some(mut record) = self.record.take() else { return };
        self.n_records += 1;
        self.n_blank_ended += u64::from(end == End::Blank);
        // A sample without frames is its command alone, as stackcollapse-perf.pl keeps it.
        let empty = u64::from(record.frames.is_empty());
        match end {
            End::Blank => self.n_empty += empty,
            End::NextLine => self.n_header_only += empty,
        }
        let path = self.stacks.next();
        path.push(record.root);
        path.extend(record.frames.iter().rev());
        let node = self.stacks.add(&mut self.tree).map_or(0, |n| n.index());
        match record.time {
            Some(time) => self.timeline.push(TimedSample { time, node: NodeId(node as u32), weight: 1 }),
            None => self.n_untimed += 1,
        }
        let event = &mut self.events[record.event];
        for column in [&mut event.samples, &mut event.periods] {
            if column.len() <= node {
                column.resize(node + 1, 0);
            }
        }
        event.samples[node] += 1;
        if let Some(period) = record.period {
            event.first_period.get_or_insert(period);
            event.periods[node] = event.periods[node].saturating_add(i64::try_from(period).unwrap_or(i64::MAX));
        }
        record.frames.clear();
        // The vector is kept for the next record.
        self.spare = record.frames;
    }

    /// The profile: a metric per event's periods and samples, with the tree as it was built.
    fn into_profile(self) -> Profile {
        let several = self.events.len() > 1;
        let first = self.events.first().filter(|e| is_clock(&e.name));
        let interval = first.and_then(|e| e.first_period).map(std::time::Duration::from_nanos);
        let mut metrics: Vec<Metric> = Vec::new();
        let mut columns: Vec<Vec<i64>> = Vec::new();
        for event in self.events {
            let samples = if several { format!("{} samples", event.name) } else { "samples".into() };
            let samples = unique_name(samples, |n| metrics.iter().any(|m| m.name == n) || n == "period");
            if event.first_period.is_some() {
                let (kind, unit) = if is_clock(&event.name) {
                    (MetricKind::Time, Unit::Nanoseconds)
                } else {
                    (MetricKind::Events, Unit::Count)
                };
                let name = if event.name.is_empty() { "period" } else { &event.name };
                let name = unique_name(name.to_string(), |n| metrics.iter().any(|m| m.name == n));
                // A period is the weight of one sample: the samples of its event count them.
                metrics.push(Metric::new(name, kind, unit, Repr::Int).sampled(Sampling::weights_of(&samples)));
                columns.push(event.periods);
            }
            metrics.push(Metric { name: samples, ..Metric::samples() });
            columns.push(event.samples);
        }
        // The tree is taken as it is (no copy), its columns added: each event's grew only as far as
        // the last node that has a sample of it.
        let mut profile = Profile::new(Vec::new());
        profile.frames = self.frames;
        profile.tree = self.tree;
        for (metric, mut column) in metrics.into_iter().zip(columns) {
            column.resize(profile.tree.len(), 0);
            profile.add_metric(metric, Values::Int(column));
        }
        if let Some(first) = profile.metrics().first() {
            profile.meta.weighed_by = Some(first.kind);
        }
        profile.meta.interval = interval;
        if self.n_untimed == 0 {
            profile.timeline = Timeline::new(self.timeline, None);
        }
        profile
    }
}

/// The address of a frame whose symbol starts at `symbol_start` of `line`: the word before it.
fn address_before(line: &str, symbol_start: usize) -> &str {
    let before = line.get(..symbol_start).unwrap_or_default().trim_end();
    before.rsplit([' ', '\t']).next().unwrap_or_default()
}

/// Whether `event` is a clock (its period is nanoseconds).
fn is_clock(event: &str) -> bool {
    matches!(event, "cpu-clock" | "task-clock")
}
