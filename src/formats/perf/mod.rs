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
//! (Frame lines start with a TAB, shown here as spaces.)
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
//! (`  work.c:9`, two spaces, a file, a colon and a line number, `??:0` for none) follows each frame.
//!
//! **Model**, as `inferno-collapse-perf` collapses the same file: each record is a stack whose root
//! is the command name (spaces as `_`; with `--perf-pid` `comm-PID`, with `--perf-tid`
//! `comm-PID/TID`, `?` for a PID the header lacks), a thread frame, and whose frames are the symbols
//! without their `+0x..` offset, with the DSO as module; `[unknown]` of a known DSO is named
//! `[basename-of-dso]`. Names are tidied as inferno tidies them: `;` → `:`, an argument list cut at
//! the first top-level `(` (not Go's `pkg.(*T).M`, nor C++'s `(anonymous namespace)`), a Java
//! symbol's leading `L` dropped under a `java` command, a perf-map symbol `a->b->c` split into frames,
//! the inlined ones suffixed `_[i]`. A symbol wholly in parentheses, `(java)`, FlameGraph's
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
//! **Errors**: a header that has no word of digits after the command, or a frame line that is not
//! one, is an error at its line and column; a file without a record is refused. A file that does
//! not end with the blank line `perf script` ends a record with is read, with a warning that it looks
//! cut short; a last line without its line end is cut, and left out with that warning.
//!
//! **Threads**: the lines are split and their frames named on several reading threads, each on
//! blocks that start after a blank line (a record's start), and the stacks built on one, in input
//! order, numbering the frames as one reading thread would: the profile is the same however the
//! blocks fell. A file without blank lines (no call chains) is read on one reading thread.
//!
//! **Lost**: addresses, offsets, times, CPUs and source lines (counted in a warning); a Rust
//! symbol perf left half demangled stays as perf printed it (inferno fixes some).

mod lines;
mod names;
mod pairs;

use super::stacks::StackTree;
use super::{unique_name, Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::model::{
    Aggregation, CallTree, Frame, FrameId, FrameTable, Metric, MetricKind, Profile, Repr, Unit, Values,
};
use crate::text::Line;
use lines::{Header, Parsed, Splitter};
use pairs::FrameIds;
use std::io::Read;

const FORMAT: Format = Format::Perf;

/// What a `perf script` file holds (it is read only).
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: true,
    thread_roots: false,
    frame_kinds: true,
    metrics: &[MetricKind::Samples, MetricKind::Time, MetricKind::Events],
    one_metric: false,
    function_facts: false,
    source_lines: false,
    modules: true,
    title: false,
    timestamp: false,
    interval: true,
    interval_step: None,
    name_replacements: &[],
    lines_nest: false,
    time_unit: Some(Unit::Nanoseconds),
    flat_reports: false,
    needs_samples: false,
    weight_is_time: false,
};

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

/// `Yes` when the first line that is not a comment is a sample header followed by a frame (on
/// the next line, or on the header line itself), `Maybe` for a header alone (the head ends there).
/// A header without the time that perf script prints unless `-F` leaves it out needs its frame on
/// a line of its own, which starts with perf's tab.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut lines = text.lines().filter(|l| !l.starts_with('#') && !lines::is_blank(l));
    let Some((line, header)) = lines.next().and_then(|l| Some((l, lines::parse_header(l)?))) else {
        return Sniff::No;
    };
    let is_frame = |line: &str, start: usize, bare: bool| {
        lines::frame_symbol_and_dso(line, start, bare).is_some()
            && line[start..].split(' ').next().is_some_and(lines::is_hex)
    };
    if let Some(start) = header.frame {
        return match header.timed && is_frame(line, start, true) {
            true => Sniff::Yes,
            false => Sniff::No,
        };
    }
    match lines.next() {
        Some(next) if is_frame(next, lines::leading_space(next), true) && (header.timed || next.starts_with('\t')) => {
            Sniff::Yes
        }
        Some(_) => Sniff::No,
        None if header.timed => Sniff::Maybe,
        None => Sniff::No,
    }
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
    /// Frames, innermost first.
    frames: Vec<FrameId>,
    position: Position,
}

/// The building thread's state.
struct Builder {
    tree: CallTree,
    frames: FrameTable,
    /// The profile's number of each frame of each reading thread, by the thread's number of it.
    numbers: Vec<Vec<FrameId>>,
    stacks: StackTree,
    events: Vec<Event>,
    record: Option<Record>,
    /// The frames vector of the last record, kept for the next.
    spare: Vec<FrameId>,
    n_records: u64,
    n_empty: u64,
    /// Where the last line read starts.
    last_byte: u64,
    /// Where the line the input ends in starts, when it ends without a line end.
    cut: Option<Position>,
}

impl crate::text::Consume<Splitter> for Builder {
    /// Numbers the frames a reading thread named in a block. They are new to that thread, and
    /// numbered as it first met them, before the block's lines: so those new to the profile too
    /// are numbered as one thread reading every line would number them.
    fn learn(&mut self, thread: usize, news: &mut Vec<Frame>) {
        let frames = &mut self.frames;
        self.numbers[thread].extend(news.drain(..).map(|frame| frames.intern(frame.as_ref())));
    }

    fn line(&mut self, thread: usize, line: Line<'_>, parsed: Parsed, headers: &[Header]) -> Result<(), ParseError> {
        self.last_byte = line.position.byte;
        if line.unterminated {
            // The input was cut in this line: what is left of it is no field or frame.
            self.cut = Some(line.position);
            return Ok(());
        }
        match parsed {
            Parsed::Skip => {}
            Parsed::End => self.finish_record(),
            Parsed::Header(index) => {
                let header = &headers[index as usize];
                self.finish_record();
                self.start_record(thread, line.text, header, line.position);
                if header.frame.is_some() {
                    if let Some(frames) = &header.frames {
                        self.add_frames(thread, frames);
                    }
                    self.finish_record();
                }
            }
            Parsed::Frame(frames) => self.add_frames(thread, &frames),
            Parsed::Bad(at, kind) => return Err(line.error_at(at, *kind)),
        }
        Ok(())
    }
}

/// How many reading threads split a file: one per core the building thread leaves, at least two
/// (on two cores the three threads share them, as the building thread waits now and then), at most
/// four, beyond which the building thread is the one the others wait for.
fn reading_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().saturating_sub(1)).clamp(2, 4)
}

/// Where the record after the last blank line of `lines` (whole lines) starts: where perf script
/// ends a record, so that a reading thread can start there. Lines are looked at from the end, so
/// the search stops within a record of it.
fn after_last_blank_line(lines: &[u8]) -> Option<usize> {
    let mut newlines = memchr::memrchr_iter(b'\n', lines);
    let mut line_end = newlines.next()?;
    for newline in newlines {
        if matches!(&lines[newline + 1..line_end], b"" | b"\r") {
            return Some(line_end + 1);
        }
        line_end = newline;
    }
    None
}

/// Reads `perf script` text (see the module documentation).
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    read_on(reading_threads(), input, options, diag)
}

/// [`read`] with `threads` reading threads.
fn read_on(
    threads: usize,
    input: &mut (dyn Read + Send),
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut builder = Builder {
        tree: CallTree::new(&[]),
        frames: FrameTable::default(),
        numbers: vec![Vec::new(); threads],
        stacks: StackTree::default(),
        events: Vec::new(),
        record: None,
        spare: Vec::new(),
        n_records: 0,
        n_empty: 0,
        last_byte: 0,
        cut: None,
    };
    let mut splitters: Vec<Splitter> = (0..threads).map(|_| Splitter::new(options)).collect();
    let blocks = crate::text::Blocks::new(input, FORMAT).cutting_at_records(after_last_blank_line);
    crate::text::pipeline_in_parallel(blocks, &mut splitters, &mut builder)?;
    let cut = builder.cut;
    let open = builder.record.as_ref().map(|record| record.position);
    if let Some(position) = cut.or(open) {
        diag.warn("cut-short", Some(position), || {
            let how = match cut {
                Some(_) => "in the middle of a line, which is left out",
                None => "without the blank line perf script writes after every sample",
            };
            format!("the input ends {how}: it looks cut short, and its last sample may have lost frames")
        });
        builder.finish_record();
    }
    if builder.n_records == 0 {
        return Err(ParseError {
            format: FORMAT.into(),
            position: Position::byte(builder.last_byte),
            kind: ParseErrorKind::Unexpected {
                expected: "a sample (a header line and its frames)".into(),
                found: "none".into(),
            },
        });
    }
    if builder.n_empty > 0 {
        let n = builder.n_empty;
        diag.warn("perf-no-frames", None, || {
            let samples = if n == 1 { "sample" } else { "samples" };
            format!("{n} {samples} without frames skipped, as inferno-collapse-perf skips them")
        });
    }
    let source_lines: u64 = splitters.iter().map(|splitter| splitter.source_lines).sum();
    if source_lines > 0 {
        diag.warn("perf-source-lines", None, || {
            format!(
                "{source_lines} source lines (perf script -F +srcline) skipped: a frame here is a function, not a line"
            )
        });
    }
    Ok(builder.into_profile())
}

impl Builder {
    fn start_record(&mut self, thread: usize, line: &str, header: &Header, position: Position) {
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
        let frames = std::mem::take(&mut self.spare);
        let root = self.numbers[thread][header.root.index()];
        self.record = Some(Record { root, event, period: header.period, frames, position });
    }

    /// Adds a frame line's frames to the open record.
    fn add_frames(&mut self, thread: usize, frames: &FrameIds) {
        let frames = match frames {
            FrameIds::One(frame) => std::slice::from_ref(frame),
            FrameIds::Several(frames) => frames,
        };
        let numbers = &self.numbers[thread];
        if let Some(record) = &mut self.record {
            record.frames.extend(frames.iter().map(|frame| numbers[frame.index()]));
        }
    }

    fn finish_record(&mut self) {
        let Some(mut record) = self.record.take() else { return };
        self.n_records += 1;
        if record.frames.is_empty() {
            self.n_empty += 1;
            return;
        }
        let path = self.stacks.next();
        path.push(record.root);
        path.extend(record.frames.iter().rev());
        let node = self.stacks.add(&mut self.tree).map_or(0, |n| n.index());
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
            if event.first_period.is_some() {
                let (kind, unit) = if is_clock(&event.name) {
                    (MetricKind::Time, Unit::Nanoseconds)
                } else {
                    (MetricKind::Events, Unit::Count)
                };
                let name = if event.name.is_empty() { "period" } else { &event.name };
                let name = unique_name(name.to_string(), |n| metrics.iter().any(|m| m.name == n));
                metrics.push(Metric { name, kind, unit, aggregation: Aggregation::Additive, repr: Repr::Int });
                columns.push(event.periods);
            }
            let name = if several { format!("{} samples", event.name) } else { "samples".into() };
            let name = unique_name(name, |n| metrics.iter().any(|m| m.name == n));
            metrics.push(Metric { name, ..Metric::samples() });
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
        profile
    }
}

/// Whether `event` is a clock (its period is nanoseconds).
fn is_clock(event: &str) -> bool {
    matches!(event, "cpu-clock" | "task-clock")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `perf script` text of many blocks, with every way a record can lie across them: records
    /// cut at their blank lines, a run of samples without call chains (no blank line for longer
    /// than a block), a record longer than a block, CRLF records, Java and perf-map names, source
    /// lines, and an end without the last blank line.
    fn many_blocks() -> String {
        let mut text = String::from("# captured on: a test\n");
        let push_record = |text: &mut String, i: usize, depth: usize, eol: &str| {
            let comm = ["prog", "java", "V8 Worker"][i % 3];
            text.push_str(&format!(
                "{comm} {}/{} [000] {i}.000001: {} cpu-clock:pppH:{eol}",
                100 + i % 5,
                200 + i % 7,
                1000 + i % 3
            ));
            for d in 0..depth {
                let symbol = match (i + d) % 11 {
                    0 => format!("Lcom/x/C{};m+0x1", (i * 7 + d) % 50),
                    1 => format!("a{}->b{}", d % 5, i % 3),
                    _ => format!("f{}+0x{:x}", (i * 31 + d * 17) % 400, d),
                };
                let dso = ["/tmp/prog", "/tmp/perf-1.map", "[kernel.kallsyms]"][(i + d) % 3];
                text.push_str(&format!("\t{:x} {symbol} ({dso}){eol}", 0x1000 + d));
                if d % 13 == 5 {
                    text.push_str(&format!("  work.c:{d}{eol}"));
                }
            }
            text.push_str(eol);
        };
        for i in 0..1500 {
            push_record(&mut text, i, 5 + i % 40, "\n");
        }
        for i in 0..6000 {
            text.push_str(&format!(
                "prog {} {i}.5: 1000 cpu-clock: {:x} g{}+0x3 (/tmp/prog)\n",
                300 + i % 3,
                0x2000 + i,
                i % 90
            ));
        }
        push_record(&mut text, 7, 6000, "\n");
        for i in 0..800 {
            push_record(&mut text, i + 5000, 3 + i % 20, "\r\n");
        }
        text.push_str("prog 1/1 [000] 9.9: 1000 cpu-clock:pppH:\n\t1 last+0x1 (/tmp/prog)\n");
        text
    }

    fn read_text(threads: usize, text: &str) -> (Result<String, String>, Vec<String>) {
        let mut diag = Diagnostics::default();
        let options = Options { root: Root::Tid, annotate: true };
        let read = read_on(threads, &mut text.as_bytes(), &options, &mut diag);
        let warnings = diag.warnings().iter().map(|w| w.to_string()).collect();
        // The dump, and the frames in the order of their numbers, which writers follow.
        let dump = |profile: Profile| {
            let frames = profile.frames.iter().map(|(_, frame)| format!("{frame:?}\n"));
            crate::model::dump::dump(&profile) + &frames.collect::<String>()
        };
        (read.map(dump).map_err(|e| e.to_string()), warnings)
    }

    /// Several reading threads give the profile one gives, frame numbers and all, whichever blocks
    /// each reads (the hand-over follows which thread has room, so several runs differ).
    #[test]
    fn reading_threads_give_what_one_gives() {
        let text = many_blocks();
        assert!(text.len() > 8 * 128 * 1024, "{} bytes are too few blocks", text.len());
        let (one, warnings) = read_text(1, &text);
        let dump = one.expect("the text reads");
        assert!(warnings.iter().any(|w| w.contains("cut short")), "{warnings:?}");
        assert!(dump.contains("\"java-100/200\""), "{}", &dump[..2000]);
        for threads in [2, 3, 4, 2, 3] {
            assert_eq!(read_text(threads, &text), (Ok(dump.clone()), warnings.clone()), "{threads} threads");
        }
    }

    #[test]
    fn records_start_after_blank_lines() {
        assert_eq!(after_last_blank_line(b"h 1\n\tf\n\nh 2\n\tg\n"), Some(8));
        assert_eq!(after_last_blank_line(b"h 1\r\n\r\nh 2\r\n"), Some(7));
        assert_eq!(after_last_blank_line(b"h 1\n\n"), Some(5));
        assert_eq!(after_last_blank_line(b"h 1 f\nh 2 g\n"), None);
        assert_eq!(
            after_last_blank_line(b"h 1\n \nh 2\n"),
            None,
            "a line of spaces ends a record too, but is not looked for"
        );
    }

    /// An error in a late block is the one the first bad line of the input gives, at its line.
    #[test]
    fn the_first_error_is_the_same_on_many_threads() {
        let mut text = many_blocks();
        let at = text.len() / 2;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        text.insert_str(line_start, "\tnot a frame line\n");
        let later = text.len() * 3 / 4;
        let later_start = text[..later].rfind('\n').map_or(0, |i| i + 1);
        text.insert_str(later_start, "\tnor this\n");
        let (one, _) = read_text(1, &text);
        let error = one.expect_err("a bad line");
        let line = text[..line_start].matches('\n').count() + 1;
        assert!(error.contains(&format!("line {line}, column 1 ")), "{error}");
        for threads in [2, 3, 4] {
            assert_eq!(read_text(threads, &text).0, Err(error.clone()), "{threads} threads");
        }
    }
}
