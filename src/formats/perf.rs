//! Linux `perf script` text: the samples of a `perf record -g` recording, as `perf script` prints
//! them with its default fields (Linux `tools/perf/Documentation/perf-script.txt`), the input of
//! `inferno-collapse-perf`, FlameGraph's `stackcollapse-perf.pl` and speedscope's perf importer.
//!
//! ```text
//! # a comment (perf script --header)
//! prog 30839 [001]   562.245409:    1003009 cpu-clock:pppH:
//!                 118e leaf+0x25 (/tmp/prog)
//!                 11d8 parse_input+0x9 (/tmp/prog)
//!     ffffffff816ac68b __check_object_size+0x11b ([kernel.kallsyms])
//!           12c0000000 [unknown] ([unknown])
//!
//! V8 WorkerThread 24636/25607 94564.109216: cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
//! ```
//!
//! (Frame lines start with a TAB, shown here as spaces.)
//!
//! **Grammar**: records separated by a blank (or whitespace-only) line; lines starting with `#` are
//! skipped anywhere. A record is a *header line* and its frames, innermost first. The header is
//! `COMM TID` or `COMM PID/TID` (the command name is everything before the first word of digits
//! followed by a space, and may hold spaces), optionally `[CPU]`, the time in seconds and a colon,
//! optionally the period, and the event with its modifiers (`cpu-clock:pppH:`, `cycles:u:`); a
//! one-frame sample may carry its frame after the event. A frame line is an address in hex, the
//! symbol (`sym+0xOFF`, `[unknown]`, or nothing) and the DSO in parentheses, the last word.
//!
//! **Model**, as `inferno-collapse-perf` collapses the same file: each record is a stack whose root
//! is the command name (spaces as `_`; with `--perf-pid` `comm-PID`, with `--perf-tid`
//! `comm-PID/TID`, `?` for a PID the header lacks), a thread frame, and whose frames are the symbols
//! without their `+0x..` offset, with the DSO as module; `[unknown]` of a known DSO is named
//! `[basename-of-dso]`. Names are tidied as inferno tidies them: `;` → `:`, an argument list cut at
//! the first top-level `(` (not Go's `pkg.(*T).M`, nor C++'s `(anonymous namespace)`), a Java
//! symbol's leading `L` dropped under a `java` command, a perf-map symbol `a->b->c` split into frames,
//! the inlined ones suffixed `_[i]`. A symbol in parentheses (an old process-name frame) is no frame.
//! With `--perf-annotate` (inferno's `--all`), a frame of the kernel (a DSO in brackets but
//! `[unknown]`, a `.ko` module or a `vmlinux`) is suffixed `_[k]` and one of JIT code (a perf map
//! `/tmp/perf-PID.map` or a `jitted-*.so`) `_[j]`.
//! Metrics: for each event (named without its modifiers, `cpu-clock`) the sum of its periods, where
//! headers carry one — time in nanoseconds for the clock events `cpu-clock` and `task-clock`, else a
//! count of events named by the event (`cycles`) — and its samples (`samples`, or `EVENT samples`
//! where the file has several events). The profile is weighed by the first event's periods, as
//! inferno counts a stack's periods (1 where there is none) of the first event it meets; the period of
//! the first sample of a clock event is the interval.
//!
//! **Errors**: a header that has no word of digits after the command, or a frame line without a
//! `(DSO)`, is an error at its line and column; a file without a record is refused. A file that
//! does not end with the blank line `perf script` ends it with is read, with a warning that it looks
//! cut short.
//!
//! **Lost**: addresses, offsets, times and CPUs; a Rust symbol perf left half demangled stays as
//! perf printed it (inferno fixes some); `-F +srcline` lines are not read (an error).

use super::stacks::StackTree;
use super::{unique_name, Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::error::{excerpt, ParseError, ParseErrorKind, Position};
use crate::model::{
    Aggregation, CallTree, FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Unit, Values,
};
use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;

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

/// `Yes` when the first line that is not a comment is a sample header followed by a frame line,
/// `Maybe` for a header alone (the head ends there).
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut lines = text.lines().filter(|l| !l.starts_with('#') && !is_blank(l));
    let Some((line, header)) = lines.next().and_then(|l| Some((l, parse_header(l)?))) else {
        return Sniff::No;
    };
    // The time before the event's colon, seconds with decimals: perf script always prints it.
    let timed = header.event.is_some_and(|event| {
        let before = line[header.tid.end..event.start].split(':').next().unwrap_or_default();
        let time = before.trim_end().rsplit(' ').next().unwrap_or_default();
        time.split_once('.').is_some_and(|(s, f)| {
            !s.is_empty() && !f.is_empty() && s.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
        })
    });
    if !timed {
        return Sniff::No;
    }
    match lines.next() {
        Some(line) if frame_parts(line, leading_space(line)).is_some_and(|(pc, ..)| is_hex(&line[pc])) => Sniff::Yes,
        Some(_) if header.frame.is_some() => Sniff::Yes,
        Some(_) => Sniff::No,
        None => Sniff::Maybe,
    }
}

fn is_hex(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A header line's fields, as byte ranges of the line.
struct Header {
    comm: Range<usize>,
    pid: Option<Range<usize>>,
    tid: Range<usize>,
    event: Option<Range<usize>>,
    period: Option<u64>,
    /// Where a frame on the header line starts (a one-frame sample).
    frame: Option<usize>,
}

/// The fields of a header line, found as inferno finds them: the command is everything before the
/// first word of digits (`TID`, or `PID/TID`) that a space follows; after it, the part between the
/// first and second colon ends with the event's name, after the period where there is one.
fn parse_header(line: &str) -> Option<Header> {
    let bytes = line.as_bytes();
    let mut word_start = 0;
    let mut digits = false;
    let mut slash = None;
    let mut after_space = false;
    let mut found = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b' ' if digits && !after_space && word_start > 0 => {
                found = Some((word_start, i));
                break;
            }
            b' ' => {
                word_start = i + 1;
                digits = true;
                slash = None;
            }
            b'/' if digits => slash = Some(i),
            b'0'..=b'9' => {}
            _ => {
                digits = false;
                slash = None;
            }
        }
        after_space = b == b' ';
    }
    let (start, end) = found?;
    let comm = trim_range(line, 0..start - 1);
    let (pid, tid) = match slash {
        Some(s) => (Some(start..s), s + 1..end),
        None => (None, start..end),
    };
    let rest = end + 1;
    let mut colons = memchr::memchr_iter(b':', &bytes[rest..]).map(|c| rest + c);
    let (event, period, frame) = match (colons.next(), colons.next()) {
        (Some(first), second) => {
            let part_end = second.unwrap_or(line.len());
            let part = &line[first + 1..part_end];
            let name_start = part.rfind(' ').map_or(0, |s| s + 1);
            let event = first + 1 + name_start..part_end;
            let period = part[..name_start].trim_end().rsplit(' ').next().and_then(|p| p.parse::<u64>().ok());
            // After the event: modifiers up to a colon or a space, then perhaps a frame.
            let frame = second.and_then(|second| {
                let after = &line[second + 1..];
                let skip = after.find([':', ' ']).map_or(0, |i| i + 1);
                let frame = &after[skip..];
                let lead = frame.len() - frame.trim_start().len();
                (!frame.trim().is_empty()).then_some(second + 1 + skip + lead)
            });
            (Some(event), period, frame)
        }
        (None, _) => (None, None, None),
    };
    Some(Header { comm, pid, tid, event, period, frame })
}

/// Whether `b` is one of the ASCII characters `char::is_whitespace` takes as white space (`str::trim`
/// trims them; `u8::is_ascii_whitespace` leaves out the vertical tab).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// How many bytes of white space `text` starts with, as `str::trim_start` counts them: byte by byte
/// over ASCII (a frame line's tab and the spaces that pad its address), with `str::trim_start`
/// only from a byte that is not ASCII.
fn leading_space(text: &str) -> usize {
    let bytes = text.as_bytes();
    let spaces = bytes.iter().take_while(|&&b| is_ascii_space(b)).count();
    match bytes.get(spaces) {
        Some(b) if !b.is_ascii() => text.len() - text.trim_start().len(),
        _ => spaces,
    }
}

/// The length of `text` without the white space it ends with, as `str::trim_end` leaves it (see
/// [`leading_space`]).
fn trimmed_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let spaces = bytes.iter().rev().take_while(|&&b| is_ascii_space(b)).count();
    match bytes.len().checked_sub(spaces + 1).map(|last| bytes[last]) {
        Some(b) if !b.is_ascii() => text.trim_end().len(),
        _ => bytes.len() - spaces,
    }
}

/// Whether `line` is blank: the end of a record.
fn is_blank(line: &str) -> bool {
    leading_space(line) == line.len()
}

/// `range` of `line` without the spaces at its ends.
fn trim_range(line: &str, range: Range<usize>) -> Range<usize> {
    let text = &line[range.clone()];
    let start = range.start + leading_space(text);
    start..start.max(range.start + trimmed_len(text))
}

/// A frame line's address, symbol (trimmed; a single space where it is empty, as inferno and
/// FlameGraph name it) and DSO without its parentheses, as byte ranges of `line`; `None` for a line
/// that is not a frame, as inferno finds its "weird stack lines": no DSO in parentheses as the last
/// word, or no space between the address and the DSO for a symbol. `start` is where the line's
/// white space ends ([`leading_space`]), which the caller has found already.
fn frame_parts(line: &str, start: usize) -> Option<(Range<usize>, Range<usize>, Range<usize>)> {
    let end = trimmed_len(line);
    let text = line.as_bytes().get(start..end).filter(|text| text.last() == Some(&b')'))?;
    let pc_end = start + text.iter().position(|&b| b == b' ')?;
    let dso_start = memchr::memrchr(b' ', text)? + start + 1;
    if dso_start <= pc_end + 1 || line.as_bytes()[dso_start] != b'(' || end - dso_start < 2 {
        return None;
    }
    let symbol = trim_range(line, pc_end + 1..dso_start - 1);
    Some((start..pc_end, symbol, dso_start + 1..end - 1))
}

/// The error for `text` where a frame line was expected.
fn not_a_frame(text: &str) -> ParseErrorKind {
    let expected = "a frame line: an address, a symbol and its (DSO)".into();
    ParseErrorKind::Unexpected { expected, found: excerpt(text.as_bytes()) }
}

/// A frame of `dso` (none where perf does not know it) named `name`, interned.
fn intern(frames: &mut crate::model::FrameTable, name: &str, dso: &str) -> FrameId {
    let module = (dso != "[unknown]" && !dso.is_empty()).then_some(dso);
    frames.intern(FrameRef { module, ..FrameRef::function(name) })
}

/// What the reading thread makes of a line.
enum Parsed {
    /// A comment.
    Skip,
    /// A blank line: the end of a record.
    End,
    /// A header: its fields are the block's part of this index.
    Header(u32),
    /// A frame: its symbol (without its offset) and DSO, and their hash.
    Frame(FrameText),
    /// Not a header or frame: why (boxed, so that the item handed over for every line stays small).
    Bad(Box<ParseErrorKind>),
}

/// A frame line's symbol (without its offset) and DSO, as ranges of the line, and their
/// [`FrameTexts::hash`], which the reading thread works out.
struct FrameText {
    hash: u64,
    symbol: Range<usize>,
    dso: Range<usize>,
}

/// The symbol-and-DSO pairs the building thread has seen, apart under a `java` command and not
/// (the command changes their names), with their frames: ranges of the builder's store. The
/// reading thread hashes a pair (a pair's hash is the same under any command); the building thread
/// finds it.
#[derive(Default)]
struct FrameTexts {
    /// Each pair where its text is and its frames, in the table itself: a lookup reads the slot
    /// its hash finds and the text, no third place.
    table: hashbrown::HashTable<Pair>,
    /// Each pair's symbol and DSO back to back, all pairs in one buffer.
    text: Vec<u8>,
}

/// Where a pair's symbol and DSO are in [`FrameTexts::text`], whether its command is a `java`
/// one, and its frames.
#[derive(Clone)]
struct Pair {
    start: usize,
    symbol_len: usize,
    dso_len: usize,
    java: bool,
    frames: Range<u32>,
}

impl Pair {
    /// The pair's symbol and DSO in `text`, the buffer of [`FrameTexts`].
    fn text<'t>(&self, text: &'t [u8]) -> (&'t [u8], &'t [u8]) {
        let symbol_end = self.start + self.symbol_len;
        (&text[self.start..symbol_end], &text[symbol_end..symbol_end + self.dso_len])
    }
}

impl FrameTexts {
    fn hash(symbol: &[u8], dso: &[u8]) -> u64 {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        // Each `write` mixes in the length too.
        h.write(symbol);
        h.write(dso);
        h.finish()
    }

    /// The frames of a symbol and DSO (of `hash`), if they were seen.
    fn get(&self, hash: u64, symbol: &[u8], dso: &[u8], java: bool) -> Option<Range<u32>> {
        let found = self.table.find(hash, |pair| {
            let (pair_symbol, pair_dso) = pair.text(&self.text);
            pair.java == java && pair_symbol == symbol && pair_dso == dso
        });
        found.map(|pair| pair.frames.clone())
    }

    /// Adds a symbol and DSO not seen yet (of `hash`) with their frames.
    fn insert(&mut self, hash: u64, symbol: &[u8], dso: &[u8], java: bool, frames: Range<u32>) {
        let pair = Pair { start: self.text.len(), symbol_len: symbol.len(), dso_len: dso.len(), java, frames };
        self.text.extend_from_slice(symbol);
        self.text.extend_from_slice(dso);
        let text = &self.text;
        self.table.insert_unique(hash, pair, |pair| {
            let (symbol, dso) = pair.text(text);
            FrameTexts::hash(symbol, dso)
        });
    }
}

/// The frame text of a frame line (whose white space ends at `start`), or why it is not one.
fn frame_text(line: &str, start: usize) -> Parsed {
    let Some((_, symbol, dso)) = frame_parts(line, start) else {
        return Parsed::Bad(Box::new(not_a_frame(line)));
    };
    let symbol = without_offset(line, symbol);
    let hash = FrameTexts::hash(&line.as_bytes()[symbol.clone()], &line.as_bytes()[dso.clone()]);
    Parsed::Frame(FrameText { hash, symbol, dso })
}

/// The reading thread's state: whether a record is open.
#[derive(Default)]
struct Splitter {
    in_record: bool,
}

impl Splitter {
    /// What `line` is; a header's fields go on `headers`.
    fn parse(&mut self, line: &str, headers: &mut Vec<Header>) -> Parsed {
        if line.starts_with('#') {
            return Parsed::Skip;
        }
        let start = leading_space(line);
        if start == line.len() {
            self.in_record = false;
            return Parsed::End;
        }
        if self.in_record {
            return frame_text(line, start);
        }
        self.header(line, headers)
    }

    /// What a line that starts a record is: a header, or an error.
    fn header(&mut self, line: &str, headers: &mut Vec<Header>) -> Parsed {
        self.in_record = true;
        match parse_header(line) {
            Some(header) => {
                headers.push(header);
                Parsed::Header(headers.len() as u32 - 1)
            }
            None => Parsed::Bad(Box::new(ParseErrorKind::Unexpected {
                expected: "a sample header: command, thread id, time, event (prog 1234 12.5: 1000 cpu-clock:)".into(),
                found: excerpt(line.as_bytes()),
            })),
        }
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
    java: bool,
    position: Position,
}

/// The building thread's state.
struct Builder {
    root: Root,
    annotate: bool,
    tree: CallTree,
    frames: crate::model::FrameTable,
    stacks: StackTree,
    events: Vec<Event>,
    /// The frames of each symbol and DSO: ranges of `store`.
    frame_texts: FrameTexts,
    store: Vec<FrameId>,
    record: Option<Record>,
    /// The frames vector of the last record, kept for the next.
    spare: Vec<FrameId>,
    root_name: String,
    n_records: u64,
    n_empty: u64,
}

/// Reads `perf script` text (see the module documentation).
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut builder = Builder {
        root: options.root,
        annotate: options.annotate,
        tree: CallTree::new(&[]),
        frames: crate::model::FrameTable::default(),
        stacks: StackTree::default(),
        events: Vec::new(),
        frame_texts: FrameTexts::default(),
        store: Vec::new(),
        record: None,
        spare: Vec::new(),
        root_name: String::new(),
        n_records: 0,
        n_empty: 0,
    };
    let mut splitter = Splitter::default();
    let mut last: Option<(Position, bool)> = None;
    crate::text::pipeline_with_parts(
        crate::text::Blocks::new(input, FORMAT),
        |text: &str, headers: &mut Vec<Header>| splitter.parse(text, headers),
        |line, parsed, headers| {
            last = Some((line.position, line.unterminated));
            match parsed {
                Parsed::Skip => {}
                Parsed::End => builder.finish_record(),
                Parsed::Header(index) => {
                    let header = &headers[index as usize];
                    builder.finish_record();
                    builder.start_record(line.text, header, line.position);
                    if let Some(from) = header.frame {
                        // `from` is past the white space after the event.
                        let Some((_, symbol, dso)) = frame_parts(&line.text[from..], 0) else {
                            return Err(line.error_at(from, not_a_frame(&line.text[from..])));
                        };
                        builder.add_header_frame(
                            line.text,
                            without_offset(line.text, symbol.start + from..symbol.end + from),
                            dso.start + from..dso.end + from,
                        );
                    }
                }
                Parsed::Frame(frame) => builder.add_frame(line.text, &frame),
                Parsed::Bad(kind) => return Err(line.error_at(0, *kind)),
            }
            Ok(())
        },
    )?;
    if let Some(record) = &builder.record {
        let position = record.position;
        let unterminated = last.is_some_and(|(_, u)| u);
        diag.warn("cut-short", Some(position), || {
            let how = if unterminated {
                "in the middle of a line"
            } else {
                "without the blank line perf script writes after every sample"
            };
            format!("the input ends {how}: it looks cut short, and its last sample may have lost frames")
        });
        builder.finish_record();
    }
    if builder.n_records == 0 {
        let at = last.map_or(0, |(p, _)| p.byte);
        return Err(ParseError {
            format: FORMAT.into(),
            position: Position::byte(at),
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
    Ok(builder.into_profile())
}

impl Builder {
    fn start_record(&mut self, line: &str, header: &Header, position: Position) {
        let comm = &line[header.comm.clone()];
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
        self.root_name.clear();
        self.root_name.extend(comm.chars().map(|c| if c == ' ' { '_' } else { c }));
        if self.root != Root::Comm {
            self.root_name.push('-');
            self.root_name.push_str(header.pid.clone().map_or("?", |p| &line[p]));
        }
        if self.root == Root::Tid {
            self.root_name.push('/');
            self.root_name.push_str(&line[header.tid.clone()]);
        }
        let root = self.frames.intern_name(&self.root_name, FrameKind::Thread);
        let frames = std::mem::take(&mut self.spare);
        self.record = Some(Record { root, event, period: header.period, frames, java: is_java(comm), position });
    }

    /// Adds a frame line's frames to the open record, interning them the first time its symbol and
    /// DSO come under a command of its kind.
    fn add_frame(&mut self, line: &str, frame: &FrameText) {
        let Some(record) = &mut self.record else { return };
        let (symbol, dso) = (&line[frame.symbol.clone()], &line[frame.dso.clone()]);
        let range = match self.frame_texts.get(frame.hash, symbol.as_bytes(), dso.as_bytes(), record.java) {
            Some(range) => range,
            None => {
                let start = self.store.len() as u32;
                for (name, dso) in frame_names(symbol, dso, record.java, self.annotate) {
                    self.store.push(intern(&mut self.frames, &name, dso));
                }
                let range = start..self.store.len() as u32;
                self.frame_texts.insert(frame.hash, symbol.as_bytes(), dso.as_bytes(), record.java, range.clone());
                range
            }
        };
        // Inlined frames come caller first: innermost first, they go on in reverse.
        record.frames.extend(self.store[range.start as usize..range.end as usize].iter().rev());
    }

    /// [`Builder::add_frame`] for the frame on a header line (a one-frame sample), which the
    /// reading thread leaves in the header: its frames are interned each time.
    fn add_header_frame(&mut self, line: &str, symbol: Range<usize>, dso: Range<usize>) {
        let Some(record) = &mut self.record else { return };
        for (name, dso) in frame_names(&line[symbol], &line[dso], record.java, self.annotate).iter().rev() {
            record.frames.push(intern(&mut self.frames, name, dso));
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

/// The range of `symbol` (in `line`) without its `+0x..` offset: the samples of one function at
/// other instructions are one frame, looked up once.
fn without_offset(line: &str, symbol: Range<usize>) -> Range<usize> {
    // Back over the hex digits that end the symbol, to the `+0x` before them (then the last `+` of
    // the symbol: hex digits hold none).
    let text = &line.as_bytes()[symbol.clone()];
    let digits = text.iter().rev().take_while(|b| b.is_ascii_hexdigit()).count();
    match text[..text.len() - digits].ends_with(b"+0x") {
        true => symbol.start..symbol.end - digits - 3,
        false => symbol,
    }
}

/// The frames a symbol (without its offset) of `dso` names, caller first, tidied as inferno tidies them (see the module
/// documentation); none for a symbol in parentheses.
fn frame_names<'a>(symbol: &'a str, dso: &'a str, java: bool, annotate: bool) -> Vec<(String, &'a str)> {
    let symbol = if symbol.is_empty() { " " } else { symbol };
    if symbol.starts_with('(') {
        return Vec::new();
    }
    let annotation = if !annotate {
        ""
    } else if is_jit(dso) {
        "_[j]"
    } else if is_kernel(dso) {
        "_[k]"
    } else {
        ""
    };
    symbol
        .split("->")
        .enumerate()
        .map(|(i, part)| {
            let mut name = tidy(&with_dso(part, dso)).into_owned();
            if java && name.starts_with('L') && name.contains('/') {
                name.remove(0);
            }
            name.push_str(annotation);
            if i > 0 && !name.contains("_[i]") {
                name.push_str("_[i]");
            }
            (name, dso)
        })
        .collect()
}

/// Whether `dso` is the kernel's: `[kernel.kallsyms]` and the like, a module, a `vmlinux`.
fn is_kernel(dso: &str) -> bool {
    (dso.starts_with('[') && dso != "[unknown]") || dso.ends_with(".ko") || dso.ends_with("vmlinux")
}

/// Whether `dso` holds JIT code: a perf map (`/tmp/perf-PID.map`) or a `jitted-*.so` of perf inject.
fn is_jit(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map")) || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// `[unknown]` of a known DSO as `[basename]`.
fn with_dso<'a>(symbol: &'a str, dso: &str) -> Cow<'a, str> {
    if symbol != "[unknown]" || dso == "[unknown]" {
        return Cow::Borrowed(symbol);
    }
    Cow::Owned(format!("[{}]", &dso[dso.rfind('/').map_or(0, |i| i + 1)..]))
}

/// `;` as `:`, and the argument list cut at the first `(` outside brackets that is not a Go method's
/// `.(` nor C++'s `(anonymous namespace)`.
fn tidy(name: &str) -> Cow<'_, str> {
    let mut depth = 0i32;
    let mut after_dot = false;
    let mut end = name.len();
    for (i, c) in name.char_indices() {
        match c {
            '<' | '{' | '[' => depth += 1,
            '>' | '}' | ']' | ')' => depth -= 1,
            '(' => {
                if depth == 0 && !after_dot && !name[i..].starts_with("(anonymous namespace)") {
                    end = i;
                    break;
                }
                depth += 1;
            }
            _ => {}
        }
        after_dot = c == '.';
    }
    let name = &name[..end];
    match name.contains(';') {
        true => Cow::Owned(name.replace(';', ":")),
        false => Cow::Borrowed(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_as_inferno_splits_them() {
        let line = "V8 WorkerThread 24636/25607 [000] 94564.109216:     257597 cycles:uppp:";
        let h = parse_header(line).unwrap();
        assert_eq!(&line[h.comm], "V8 WorkerThread");
        assert_eq!(&line[h.pid.unwrap()], "24636");
        assert_eq!(&line[h.tid], "25607");
        assert_eq!(&line[h.event.unwrap()], "cycles");
        assert_eq!((h.period, h.frame), (Some(257597), None));
        let line = "false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])";
        let h = parse_header(line).unwrap();
        assert_eq!(&line[h.frame.unwrap()..], "ffffffff9aa3c8de [unknown] ([unknown])");
        let line = "java 12688 6544038.708352: cpu-clock:";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], h.pid, h.period), ("java", None, None));
        assert!(parse_header("no digits here: cycles:").is_none());
    }

    /// [`frame_parts`] and [`without_offset`] as `str` methods say them, the plain path the byte
    /// scanning is held to; `None` where no space is left between the address and the DSO for a
    /// symbol.
    fn frame_parts_of_str(line: &str) -> Option<(&str, &str, &str)> {
        let start = line.len() - line.trim_start().len();
        let text = line.trim_end();
        let pc_end = start + text.get(start..)?.find(' ')?;
        let dso_start = text.rfind(' ')? + 1;
        let dso = &text[dso_start..];
        if dso_start <= pc_end + 1 || !dso.starts_with('(') || !dso.ends_with(')') || dso.len() < 2 {
            return None;
        }
        let symbol = line[pc_end + 1..dso_start - 1].trim();
        let symbol = match symbol.rsplit_once('+') {
            Some((name, offset))
                if offset.strip_prefix("0x").is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit())) =>
            {
                name
            }
            _ => symbol,
        };
        Some((&line[start..pc_end], symbol, &dso[1..dso.len() - 1]))
    }

    fn frame_parts_of(line: &str) -> Option<(&str, &str, &str)> {
        let (pc, symbol, dso) = frame_parts(line, leading_space(line))?;
        Some((&line[pc], &line[without_offset(line, symbol)], &line[dso]))
    }

    #[test]
    fn frame_lines_split_as_inferno_splits_them() {
        assert_eq!(frame_parts_of("\t    7f1e leaf+0x25 (/tmp/prog)"), Some(("7f1e", "leaf", "/tmp/prog")));
        assert_eq!(frame_parts_of("\t1  (x)"), Some(("1", "", "x")));
        assert_eq!(frame_parts_of("\t1   a b+0x1+0x2  (x) \r"), Some(("1", "a b+0x1", "x")));
        // White space that is not ASCII is white space to `str::trim`.
        assert_eq!(frame_parts_of("\u{3000}\t1 \u{a0}a\u{2003} (x)\u{85}"), Some(("1", "a", "x")));
        // No symbol between the address and the DSO: inferno's "weird stack line".
        assert_eq!(frame_parts_of("\t1 (x)"), None);
        assert_eq!(sniff(b"p 1 1.0: 1 cycles:\n\t1 (x)\n"), Sniff::No);
        assert_eq!(frame_parts_of("\t1 a (x"), None);
    }

    proptest::proptest! {
        /// Lines of white space, hex digits, symbols with offsets and parentheses split as `str`'s
        /// methods split them.
        #[test]
        fn frame_lines_split_as_str_methods_split_them(line in r"[ \t\u{a0}\u{3000}\x0b]{0,20}[0-9a-f]{0,18}[ \t]{0,2}[a-z (+0x)\u{a0}]{0,12}[ \t\x0c\u{2003}]{0,3}(\([a-z/.]{0,5}\)?)?[ \r\u{85}]{0,2}") {
            proptest::prop_assert_eq!(frame_parts_of(&line), frame_parts_of_str(&line));
        }
    }

    #[test]
    fn annotated_names_mark_the_kernel_and_jit_code() {
        let name = |s, d| frame_names(s, d, false, true).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(name("schedule", "[kernel.kallsyms]"), ["schedule_[k]"]);
        assert_eq!(name("nf_hook_slow", "/lib/modules/6.1/nf.ko"), ["nf_hook_slow_[k]"]);
        assert_eq!(name("start_kernel", "/boot/vmlinux"), ["start_kernel_[k]"]);
        assert_eq!(name("LazyCompile:*fib", "/tmp/perf-4242.map"), ["LazyCompile:*fib_[j]"]);
        assert_eq!(name("jitted_fn", "/home/u/.debug/jit/jitted-4242-7.so"), ["jitted_fn_[j]"]);
        assert_eq!(name("[unknown]", "[unknown]"), ["[unknown]"]);
        assert_eq!(name("main", "/usr/bin/app"), ["main"]);
        assert_eq!(frame_names("schedule", "[kernel.kallsyms]", false, false)[0].0, "schedule");
    }

    #[test]
    fn names_are_tidied_as_inferno_tidies_them() {
        let names = |s, d, java| frame_names(s, d, java, false).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        let line = "leaf+0x25 x+0x1+0x2 f+0xzz";
        let offsetless = |r: Range<usize>| &line[without_offset(line, r)];
        assert_eq!((offsetless(0..9), offsetless(10..19), offsetless(20..26)), ("leaf", "x+0x1", "f+0xzz"));
        assert_eq!(names("[unknown]", "/usr/lib/libc.so.6", false), ["[libc.so.6]"]);
        assert_eq!(names("[unknown]", "[unknown]", false), ["[unknown]"]);
        assert_eq!(names("net/http.(*Client).Do", "/bin/go", false), ["net/http.(*Client).Do"]);
        assert_eq!(names("f(int, char)", "/a", false), ["f"]);
        assert_eq!(names("n::(anonymous namespace)::g(int)", "/a", false), ["n::(anonymous namespace)::g"]);
        assert_eq!(names("std::vector<f(int)>::push(x)", "/a", false), ["std::vector<f(int)>::push"]);
        assert_eq!(names("a;b", "/a", false), ["a:b"]);
        assert_eq!(names("Lorg/x/Y;.call(I)V", "/tmp/perf-1.map", true), ["org/x/Y:.call"]);
        assert_eq!(names("a->b->c", "/tmp/perf-1.map", false), ["a", "b_[i]", "c_[i]"]);
        assert!(names("(prog)", "/a", false).is_empty());
        assert_eq!(names("", "/a", false), [" "]);
    }
}
