//! Business Rules! (BR) profiler files, written by the BR runtime after `DEBUG PROFILE SAMPLED file`
//! or `DEBUG PROFILE TIMED file` (stopped by `DEBUG PROFILE STOP`). The only description is the BR
//! wiki page "Profiler File Layout" (shared notes §5); no sample file is public. Binary records, each
//! opened by a type byte; all integers big-endian, with no other framing.
//!
//! ```text
//! 01 0001 0009 "orders.br"        CREATE MODULE MAPPING: module 1 is orders.br
//! 03 0001 0000000A 00             CURRENT LINE: module 1, line 10, clause 0 (opens a group)
//! 07 06 "FNCALC"                  FUNCTION NAME of the current line
//! 04 00000000000F4240             TIME SPENT IN LINE: 1,000,000 ns (timed files only)
//! 05 0001 00000064 02             BACKTRACE INFORMATION: module 1, line 100, clause 2
//! 09                              MAIN ROUTINE: that line is in the main routine
//! 06                              END CURRENT LINE (closes the group)
//! ```
//!
//! **Grammar** (notes §5.2): `1 u16 module u16 len name[len]` maps a module number to its file name;
//! a group is `3 u16 module u32 line u8 clause`, then in any order `4 u64 ns` and backtrace entries
//! `5 u16 module u32 line u8 clause`, then `6`. A `7 u8 len name[len]` (function name), `8` (GOSUB) or
//! `9` (main routine) qualifies the 3 or 5 record it follows directly. Types 2 and 10 to 255 are
//! unknown: a record cannot be skipped without knowing its length, so they stop the reader.
//!
//! **Readings of what the page leaves open** (notes §5.3): module numbers are opaque keys, and a number
//! may be mapped again (later groups use the new name). A number used before its mapping reads as
//! the placeholder file `module#N`, with a warning. The page gives no backtrace order: by default the
//! entries run from the caller of the current line outwards (`--br-backtrace innermost-first`);
//! `outermost-first` reads the first entry as the root. A frame has at most one qualifier, directly
//! after its 3 or 5 record (the page: "they follow immediately after"). A group may have several
//! type-4 records (their times add up) or none. Module mappings come between groups, not inside one.
//! Names are UTF-8 when they validate, else Latin-1 (with a warning); the page does not say.
//!
//! **Model**: each group is one sample whose stack is [current line, backtrace entries…], innermost
//! first. A frame is a source-line frame (`line` kind) with the module's file name, the line and the
//! clause; its name is the function name of its FUNCTION NAME record. A frame without one is a line of
//! no named function (empty name; the model names it by its place, `orders.br:100.0`, wherever lines
//! become functions), and the routine its MAIN ROUTINE or GOSUB record puts it in is kept as the frame
//! fact `br.routine` (`main`, `gosub`; absent without a qualifier), so that it is written back.
//! Groups are aggregated while reading, keyed by their raw bytes without the time records, so memory
//! grows with distinct stacks, not with the file. Metrics: `samples` (one per group) and, when the
//! file has type-4 records, `time` in nanoseconds (their sum), which such a timed file is weighed
//! by: one-number targets get time unless `--metric samples` asks for the count of groups.
//!
//! **Reading**: records are read by nom's streaming parsers from a buffer of the input; an item (a
//! mapping or a whole group) that the buffer ends inside is nom's `Incomplete`: the buffer is
//! refilled and the item read again from its start. At the end of the input, the records are
//! read once more to say which one is cut short.
//!
//! **Writing**: a module mapping per distinct file right before its first use, numbered from 1; one
//! group per sample (a node with N self samples becomes N identical groups), with a type-4 record each
//! in timed mode (`--br-mode`, default: timed when the profile has a time metric), the node's time
//! split evenly among its groups. A function-name record for every frame, except the names above,
//! which write their marker (or nothing). A profile with time but no samples gets samples from time at
//! `--interval`. `--max-samples` stops a runaway file. **Lost**: metrics other than samples and time;
//! threads and frame kinds (every frame reads back as a source line); header facts; per-function
//! counts; the order of groups and the module numbering (regenerated); with a warning each: frames without a file (written
//! with the placeholder file `<no file>`), without a line (line 0), clauses above 255, names longer
//! than 255 bytes and file names longer than 65,535 bytes (cut at a character boundary). Frames are
//! fitted to what a record holds before writing, and sibling stacks that become equal (a function
//! `f` without file or line beside `f` in `<no file>` at line 0) merge, so that every file written
//! reads back into the tree it was written from.

use super::{Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::error::{Error, ParseError, ParseErrorKind, Position};
use crate::formats::options::{ConvertOptions, DEFAULT_INTERVAL};
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, Values,
};
use byteorder::{BigEndian, WriteBytesExt};
use indexmap::IndexMap;
use nom::bytes::streaming::take;
use nom::combinator::map_parser;
use nom::number::streaming::{be_u16, be_u32, be_u64, be_u8};
use nom::{Needed, Parser};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::io::{Read, Write};

/// What a BR profiler file carries.
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: false,
    thread_roots: false,
    frame_kinds: false,
    metrics: &[MetricKind::Samples, MetricKind::Time],
    one_metric: false,
    function_facts: false,
    source_lines: true,
    modules: true,
    title: false,
    timestamp: false,
    interval: false,
    name_replacements: &[],
    lines_nest: false,
    time_unit: None,
    flat_reports: false,
    needs_samples: true,
    weight_is_time: true,
};

const MAPPING: u8 = 1;
const CURRENT_LINE: u8 = 3;
const TIME: u8 = 4;
const BACKTRACE: u8 = 5;
const END: u8 = 6;
const FUNCTION_NAME: u8 = 7;
const GOSUB: u8 = 8;
const MAIN_ROUTINE: u8 = 9;

/// The bytes of a CURRENT LINE or BACKTRACE record, type byte included.
const FRAME_LEN: usize = 8;
/// The bytes of a TIME SPENT IN LINE record.
const TIME_LEN: usize = 9;

/// The frame attr that says which routine a line of no named function is in: [`MAIN_ROUTINE_VALUE`]
/// or [`GOSUB_VALUE`]; a line without it had no qualifier record.
const ROUTINE_KEY: &str = "br.routine";
const MAIN_ROUTINE_VALUE: &str = "main";
const GOSUB_VALUE: &str = "gosub";
/// The file the writer gives frames that have none.
const NO_FILE: &str = "<no file>";

/// The order of the backtrace entries of a group; the file format does not record it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BacktraceOrder {
    /// The first entry is the caller of the current line, the last the outermost frame.
    #[default]
    InnermostFirst,
    /// The first entry is the outermost frame, the last the caller of the current line.
    OutermostFirst,
}

impl BacktraceOrder {
    /// The command-line names.
    pub const NAMES: [&'static str; 2] = ["innermost-first", "outermost-first"];

    /// The order named `name` on the command line.
    pub fn from_name(name: &str) -> Option<BacktraceOrder> {
        match name {
            "innermost-first" => Some(BacktraceOrder::InnermostFirst),
            "outermost-first" => Some(BacktraceOrder::OutermostFirst),
            _ => None,
        }
    }
}

/// Whether the writer gives every group a TIME SPENT IN LINE record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Timed when the profile has a time metric, else sampled.
    #[default]
    Auto,
    /// A time record per group (`DEBUG PROFILE TIMED`).
    Timed,
    /// No time records (`DEBUG PROFILE SAMPLED`).
    Sampled,
}

impl Mode {
    /// The command-line names.
    pub const NAMES: [&'static str; 3] = ["auto", "timed", "sampled"];

    /// The mode named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "auto" => Some(Mode::Auto),
            "timed" => Some(Mode::Timed),
            "sampled" => Some(Mode::Sampled),
            _ => None,
        }
    }
}

/// The name of a record type, for messages.
fn record_name(kind: u8) -> String {
    let name = match kind {
        MAPPING => "CREATE MODULE MAPPING",
        CURRENT_LINE => "CURRENT LINE",
        TIME => "TIME SPENT IN LINE",
        BACKTRACE => "BACKTRACE INFORMATION",
        END => "END CURRENT LINE",
        FUNCTION_NAME => "FUNCTION NAME",
        GOSUB => "GOSUB",
        MAIN_ROUTINE => "MAIN ROUTINE",
        other => return format!("unknown record type {other}"),
    };
    format!("{name} ({kind})")
}

/// One record, as [`record`] reads it.
enum Record<'a> {
    Mapping,
    /// A CURRENT LINE or BACKTRACE INFORMATION record (the type byte says which).
    Frame(Place),
    /// Nanoseconds.
    Time(u64),
    FunctionName(&'a [u8]),
    Gosub,
    MainRoutine,
    End,
}

/// Where a CURRENT LINE or BACKTRACE INFORMATION record is.
struct Place {
    module: u16,
    line: u32,
    clause: u8,
}

/// The bytes of a mapping before its name: type, number and name length.
const MAPPING_HEAD_LEN: usize = 5;
/// The bytes of a function name record before its name: type and name length.
const FUNCTION_NAME_HEAD_LEN: usize = 2;

/// What stops the parsers (beside nom's `Incomplete`), with the input from where it is.
enum Failure<'a> {
    /// A record type byte that no record parser takes.
    UnknownType(&'a [u8]),
    /// A record where the grammar does not allow it.
    Misplaced { input: &'a [u8], expected: &'static str, found: String },
    /// A record (or the end of the input) where a group's END CURRENT LINE must come first.
    Unended { input: &'a [u8], found: String },
}

impl<'a> nom::error::ParseError<&'a [u8]> for Failure<'a> {
    /// nom's streaming `take` and number parsers never fail, they only ask for more input: an
    /// error of nom's own can only be at a type byte that no parser took.
    fn from_error_kind(input: &'a [u8], _: nom::error::ErrorKind) -> Failure<'a> {
        Failure::UnknownType(input)
    }

    fn append(_: &'a [u8], _: nom::error::ErrorKind, other: Failure<'a>) -> Failure<'a> {
        other
    }
}

impl Failure<'_> {
    /// The reader's error for a failure in the item at the start of `s`, which starts at byte `at`
    /// of the input: its offset is where the failure's input starts.
    fn into_error(self, s: &[u8], at: u64) -> ParseError {
        let offset = |input: &[u8]| at + (s.len() - input.len()) as u64;
        match self {
            Failure::UnknownType(input) => unknown_type(offset(input), input.first().copied().unwrap_or_default()),
            Failure::Misplaced { input, expected, found } => unexpected(offset(input), expected, found),
            Failure::Unended { input, found } => {
                let expected = format!("END CURRENT LINE (6) for the group that starts at byte {at}");
                unexpected(offset(input), &expected, found)
            }
        }
    }
}

type Parsed<'a, T> = nom::IResult<&'a [u8], T, Failure<'a>>;

/// The record at the start of `input`, read by nom's streaming parsers: `Err::Incomplete` when
/// `input` ends inside it. The fixed-size part of a record is taken whole before its fields are
/// read, so that the bytes `Incomplete` asks for reach the end of that part (with those there,
/// the record's length that [`cut_short`] gives).
// Inlined into the group loop, which reads most of a file's records.
#[inline(always)]
fn record(input: &[u8]) -> Parsed<'_, Record<'_>> {
    let (rest, kind) = be_u8(input)?;
    match kind {
        MAPPING => mapping(input).map(|(rest, _)| (rest, Record::Mapping)),
        CURRENT_LINE | BACKTRACE => {
            let fields = (be_u8, be_u16, be_u32, be_u8);
            let (rest, (_, module, line, clause)) = map_parser(take(FRAME_LEN), fields).parse(input)?;
            Ok((rest, Record::Frame(Place { module, line, clause })))
        }
        TIME => {
            let (rest, (_, ns)) = map_parser(take(TIME_LEN), (be_u8, be_u64)).parse(input)?;
            Ok((rest, Record::Time(ns)))
        }
        FUNCTION_NAME => {
            let (rest, (_, len)) = map_parser(take(FUNCTION_NAME_HEAD_LEN), (be_u8, be_u8)).parse(input)?;
            let (rest, name) = take(len).parse(rest)?;
            Ok((rest, Record::FunctionName(name)))
        }
        GOSUB => Ok((rest, Record::Gosub)),
        MAIN_ROUTINE => Ok((rest, Record::MainRoutine)),
        END => Ok((rest, Record::End)),
        _ => Err(nom::Err::Failure(Failure::UnknownType(input))),
    }
}

/// A CREATE MODULE MAPPING record: the module number and its file name.
fn mapping(input: &[u8]) -> Parsed<'_, (u16, &[u8])> {
    let (rest, (_, number, len)) = map_parser(take(MAPPING_HEAD_LEN), (be_u8, be_u16, be_u16)).parse(input)?;
    let (rest, name) = take(len).parse(rest)?;
    Ok((rest, (number, name)))
}

/// A complete top-level item.
enum Item<'a> {
    Mapping {
        number: u16,
        name: &'a [u8],
    },
    /// A group, and the sum of its times.
    Group {
        time: u128,
    },
}

/// The item at the start of `s`: `Err::Incomplete` when `s` ends inside it (more input may
/// follow). `times` receives the offsets in `s` of a group's time records.
fn item<'a>(s: &'a [u8], times: &mut Vec<usize>) -> Parsed<'a, Item<'a>> {
    let (_, kind) = be_u8(s)?;
    match kind {
        MAPPING => mapping(s).map(|(rest, (number, name))| (rest, Item::Mapping { number, name })),
        CURRENT_LINE => group(s, times),
        TIME | BACKTRACE | END | FUNCTION_NAME | GOSUB | MAIN_ROUTINE => Err(nom::Err::Failure(Failure::Misplaced {
            input: s,
            expected: "a CURRENT LINE (3) or CREATE MODULE MAPPING (1) record",
            found: format!("{} outside a group", record_name(kind)),
        })),
        _ => Err(nom::Err::Failure(Failure::UnknownType(s))),
    }
}

/// The group at the start of `s` (its first byte is CURRENT LINE), END included. A record's place
/// is checked on its type byte, before the record is read.
fn group<'a>(s: &'a [u8], times: &mut Vec<usize>) -> Parsed<'a, Item<'a>> {
    times.clear();
    let (mut rest, _) = record(s)?;
    let mut previous = CURRENT_LINE;
    let mut time: u128 = 0;
    loop {
        let (_, kind) = be_u8(rest)?;
        match kind {
            FUNCTION_NAME | GOSUB | MAIN_ROUTINE if previous != CURRENT_LINE && previous != BACKTRACE => {
                return Err(nom::Err::Failure(Failure::Misplaced {
                    input: rest,
                    expected: "CURRENT LINE (3) or BACKTRACE INFORMATION (5) right before a qualifier (7, 8 or 9)",
                    found: format!("{} after {}", record_name(kind), record_name(previous)),
                }));
            }
            CURRENT_LINE | MAPPING => {
                return Err(nom::Err::Failure(Failure::Unended { input: rest, found: record_name(kind) }));
            }
            _ => {}
        }
        let (after, record) = record(rest)?;
        match record {
            Record::End => return Ok((after, Item::Group { time })),
            Record::Time(ns) => {
                time += u128::from(ns);
                times.push(s.len() - rest.len());
            }
            _ => {}
        }
        previous = kind;
        rest = after;
    }
}

/// The error for an input that ends inside the item at the start of `s` (at byte `at`): the
/// record it cuts short, or the END its group lacks. The records are read again, as far as the
/// item's parse went before it asked for more input.
#[cold]
fn cut_short(s: &[u8], at: u64) -> ParseError {
    let mut rest = s;
    loop {
        match record(rest) {
            Ok((after, _)) => rest = after,
            Err(nom::Err::Incomplete(_)) if rest.is_empty() => {
                return Failure::Unended { input: rest, found: "the end of the input".into() }.into_error(s, at);
            }
            Err(nom::Err::Incomplete(needed)) => {
                let there = rest.len();
                let len = there + if let Needed::Size(n) = needed { n.get() } else { 1 };
                let expected = format!("the rest of the {} record ({len} bytes, {there} there)", record_name(rest[0]));
                let position = at + (s.len() - there) as u64;
                return unexpected(position, &expected, "the end of the input".into());
            }
            Err(nom::Err::Error(failure) | nom::Err::Failure(failure)) => return failure.into_error(s, at),
        }
    }
}

fn unexpected(at: u64, expected: &str, found: String) -> ParseError {
    let kind = ParseErrorKind::Unexpected { expected: expected.into(), found };
    ParseError { format: Format::Br.into(), position: Position::byte(at), kind }
}

fn unknown_type(at: u64, kind: u8) -> ParseError {
    let found = format!("{kind} (0x{kind:02x}), which cannot be skipped: its length is unknown");
    unexpected(at, "a record type 1 or 3 to 9", found)
}

/// `Maybe` when the input starts with a well-formed mapping or group (or one cut short by the end of
/// `head`): the format has no signature. A defect further on is left to the reader to report.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    if !matches!(head.first(), Some(&MAPPING | &CURRENT_LINE)) {
        return Sniff::No;
    }
    match item(head, &mut Vec::new()) {
        Ok(_) | Err(nom::Err::Incomplete(_)) => Sniff::Maybe,
        Err(_) => Sniff::No,
    }
}

/// The input in chunks: a window `buf[start..end]` that starts at byte `base + start` of the input,
/// grown when one item does not fit.
struct Chunks<'a> {
    input: &'a mut (dyn Read + Send),
    buf: Vec<u8>,
    start: usize,
    end: usize,
    base: u64,
    eof: bool,
}

const CHUNK: usize = 256 * 1024;

impl Chunks<'_> {
    fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    /// Fills the buffer behind what is left, moving that to the front first, and growing the buffer
    /// when it fills it (one item larger than the buffer). An item is parsed again from its start
    /// after a refill, so filling the buffer whole keeps the number of attempts logarithmic.
    fn refill(&mut self) -> Result<(), ParseError> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.base += self.start as u64;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        while self.end < self.buf.len() && !self.eof {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let at = self.base + self.end as u64;
                    return Err(ParseError { format: Format::Br.into(), position: Position::byte(at), kind: e.into() });
                }
            }
        }
        Ok(())
    }
}

/// A distinct stack's weight so far, and where it was first seen.
struct Weight {
    samples: u64,
    time: u128,
    first_at: u64,
}

/// The reader's state between flushes: groups aggregated by their raw bytes (time records left
/// out) under the module mappings in force, and which module numbers those stacks use.
struct Reader {
    order: BacktraceOrder,
    modules: FxHashMap<u16, String>,
    stacks: IndexMap<Box<[u8]>, Weight, FxBuildHasher>,
    used: Vec<bool>,
    key: Vec<u8>,
    profile: Profile,
    index: ChildIndex,
    frames: Vec<FrameId>,
    has_time: bool,
}

/// Reads a BR profiler file.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    order: BacktraceOrder,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut chunks = Chunks { input, buf: vec![0; CHUNK], start: 0, end: 0, base: 0, eof: false };
    let mut reader = Reader {
        order,
        modules: FxHashMap::default(),
        stacks: IndexMap::default(),
        used: vec![false; 1 << 16],
        key: Vec::new(),
        profile: Profile::new(vec![Metric::samples(), Metric::time(Unit::Nanoseconds, Repr::Int)]),
        index: ChildIndex::default(),
        frames: Vec::new(),
        has_time: false,
    };
    let mut times = Vec::new();
    loop {
        let at = chunks.offset();
        let s = &chunks.buf[chunks.start..chunks.end];
        // An item cut short by the end of the buffer is parsed again from its start after a refill.
        let (rest, item) = match item(s, &mut times) {
            Ok(parsed) => parsed,
            Err(nom::Err::Incomplete(_)) if !chunks.eof => {
                chunks.refill()?;
                continue;
            }
            Err(nom::Err::Incomplete(_)) if s.is_empty() => break,
            Err(nom::Err::Incomplete(_)) => return Err(cut_short(s, at)),
            Err(nom::Err::Error(failure) | nom::Err::Failure(failure)) => return Err(failure.into_error(s, at)),
        };
        let len = s.len() - rest.len();
        match item {
            Item::Mapping { number, name } => reader.map_module(number, name, at, diag),
            Item::Group { time } => {
                // The group's bytes without its END.
                reader.add_group(&s[..len - 1], &times, time, at, diag);
                reader.has_time |= !times.is_empty();
            }
        }
        chunks.start += len;
    }
    reader.flush(diag);
    let mut profile = reader.profile;
    if reader.has_time {
        // A timed group's weight is its time (notes §5.3): a flame graph of one shows where the
        // time went, and the count of groups is there on request (`--metric samples`).
        profile.meta.weighed_by = Some(MetricKind::Time);
    } else {
        profile.retain_metrics(&[true, false]);
    }
    Ok(profile)
}

impl Reader {
    /// Maps module `number` to the file `name`. The stacks aggregated so far are keyed by module
    /// numbers, so if any of them uses `number` under another name (or none) they are built first.
    fn map_module(&mut self, number: u16, name: &[u8], at: u64, diag: &mut Diagnostics) {
        let name = text(name, at, diag);
        let old = self.modules.get(&number);
        if old == Some(&name) {
            return;
        }
        if let Some(old) = old {
            diag.warn("br-module-remapped", Some(Position::byte(at)), || {
                format!("module {number} is mapped again, to {name:?} (was {old:?}): later groups use the new name")
            });
        }
        if self.used[usize::from(number)] {
            self.flush(diag);
        }
        self.modules.insert(number, name);
    }

    /// Counts one group (its bytes without END); `times` are the offsets of its time records.
    fn add_group(&mut self, group: &[u8], times: &[usize], time: u128, at: u64, diag: &mut Diagnostics) {
        let key = if times.is_empty() {
            group
        } else {
            self.key.clear();
            let mut from = 0;
            for &t in times {
                self.key.extend_from_slice(&group[from..t]);
                from = t + TIME_LEN;
            }
            self.key.extend_from_slice(&group[from..]);
            &self.key
        };
        if let Some(weight) = self.stacks.get_mut(key) {
            weight.samples += 1;
            weight.time += time;
            return;
        }
        for (Place { module, .. }, _) in frame_records(key) {
            self.used[usize::from(module)] = true;
            if !self.modules.contains_key(&module) {
                diag.warn("br-unmapped-module", Some(Position::byte(at)), || {
                    format!(
                        "module number {module} is used before its mapping: its frames get the file module#{module}"
                    )
                });
            }
        }
        self.stacks.insert(key.into(), Weight { samples: 1, time, first_at: at });
    }

    /// Adds the stacks aggregated so far to the tree, under the module mappings in force.
    fn flush(&mut self, diag: &mut Diagnostics) {
        let stacks = std::mem::take(&mut self.stacks);
        for (key, weight) in stacks {
            self.frames.clear();
            for (place, qualifier) in frame_records(&key) {
                let frame = self.frame(place, qualifier, weight.first_at, diag);
                self.frames.push(frame);
            }
            // frames = [current line, backtrace…]; the tree wants the outermost first.
            match self.order {
                BacktraceOrder::InnermostFirst => self.frames.reverse(),
                BacktraceOrder::OutermostFirst => self.frames.rotate_left(1),
            }
            let mut node: Option<NodeId> = None;
            for &frame in &self.frames {
                node = Some(self.index.child_or_insert(&mut self.profile.tree, node, frame));
            }
            let Some(node) = node else { continue };
            let samples = i64::try_from(weight.samples).unwrap_or(i64::MAX);
            self.profile.tree.add_self(0, node, Value::Int(samples));
            let time = i64::try_from(weight.time).unwrap_or_else(|_| {
                diag.warn("br-time-overflow", Some(Position::byte(weight.first_at)), || {
                    "a stack's time exceeds 2^63 ns: it is kept as 2^63 - 1".into()
                });
                i64::MAX
            });
            self.profile.tree.add_self(1, node, Value::Int(time));
        }
        self.used.iter_mut().for_each(|u| *u = false);
    }

    /// The frame of a 3 or 5 record with its qualifier.
    fn frame(&mut self, place: Place, qualifier: Option<Record<'_>>, at: u64, diag: &mut Diagnostics) -> FrameId {
        let Place { module, line, clause } = place;
        let placeholder;
        let file = match self.modules.get(&module) {
            Some(file) => file.as_str(),
            None => {
                placeholder = format!("module#{module}");
                placeholder.as_str()
            }
        };
        let (function, routine) = match qualifier {
            Some(Record::FunctionName(name)) => (text(name, at, diag), None),
            Some(Record::Gosub) => (String::new(), Some(GOSUB_VALUE)),
            Some(Record::MainRoutine) => (String::new(), Some(MAIN_ROUTINE_VALUE)),
            _ => (String::new(), None),
        };
        let frame = FrameRef {
            name: &function,
            module: Some(file),
            line: Some(line),
            clause: Some(u32::from(clause)),
            kind: FrameKind::Line,
        };
        let id = self.profile.frames.intern(frame);
        if let Some(routine) = routine {
            self.note_routine(id, routine, at, diag);
        }
        id
    }

    /// Records which routine the line `frame` (of no named function) is in. A place has one routine;
    /// a file that marks one place both ways keeps the first, with a warning.
    fn note_routine(&mut self, frame: FrameId, routine: &'static str, at: u64, diag: &mut Diagnostics) {
        let attrs = self.profile.frame_attrs.entry(frame).or_insert_with(|| vec![(ROUTINE_KEY.into(), routine.into())]);
        if attrs[0].1 != routine {
            let (first, place) = (attrs[0].1.clone(), self.profile.frames.get(frame).to_string());
            diag.warn("br-routine-twice", Some(Position::byte(at)), || {
                format!(
                    "line {place} is marked as in the {routine} routine after being marked {first}: it stays {first}"
                )
            });
        }
    }
}

/// The frames of a group's bytes without time records and END, each with the qualifier record
/// after it, if any. The bytes were checked when the group was parsed.
fn frame_records(group: &[u8]) -> impl Iterator<Item = (Place, Option<Record<'_>>)> {
    let mut rest = group;
    std::iter::from_fn(move || {
        let Ok((after, Record::Frame(place))) = record(rest) else {
            return None;
        };
        rest = after;
        let qualifier = match record(rest) {
            Ok((after, qualifier @ (Record::FunctionName(_) | Record::Gosub | Record::MainRoutine))) => {
                rest = after;
                Some(qualifier)
            }
            _ => None,
        };
        Some((place, qualifier))
    })
}

/// A name: UTF-8 when it validates, else Latin-1 (every byte one character), with a warning.
fn text(bytes: &[u8], at: u64, diag: &mut Diagnostics) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => {
            diag.warn("br-latin1", Some(Position::byte(at)), || {
                "a name that is not UTF-8 is read as Latin-1 (and written back as UTF-8)".into()
            });
            bytes.iter().map(|&b| char::from(b)).collect()
        }
    }
}

/// Writes `profile` (projected onto what BR carries) as a BR profiler file.
pub(crate) fn write(
    profile: &Profile,
    out: &mut dyn Write,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    warn_unwritten_metrics(profile, diag);
    let profile = &*fit_frames(profile, diag);
    let samples = sample_counts(profile)?;
    let total = samples.iter().fold(0u64, |sum, &c| sum.saturating_add(c.max(0) as u64));
    if total > options.max_samples {
        let max = options.max_samples;
        let what = format!(
            "{total} samples would be {total} groups, more than --max-samples {max} allows (raise it to write them)"
        );
        return Err(Error::Unrepresentable { format: Format::Br.into(), what });
    }
    let times = group_times(profile);
    let mut encoder = Encoder::new(profile);
    let tree = &profile.tree;
    // Depth-first; `path` holds the frames from the root down to the current node.
    let mut path: Vec<FrameId> = Vec::new();
    let mut group = Vec::new();
    for visit in tree.walk() {
        path.truncate(visit.depth as usize);
        path.push(tree.frame(visit.node));
        let n = samples[visit.node.index()];
        if n <= 0 {
            continue;
        }
        let head_len = encoder.group(&path, options.br_backtrace, &mut group, out)?;
        let (head, tail) = group.split_at(head_len);
        let time = times.as_ref().map(|t| t[visit.node.index()].max(0) as u64);
        write_groups(out, head, tail, n as u64, time)?;
    }
    Ok(())
}

/// `profile` with every frame as a record holds it: a line (0 when it has none) with a clause of at
/// most 255 (0 when it has none) in a module file (the placeholder when it has none), the name and
/// file cut to what their length fields allow. Frames that become equal are one, and stacks that
/// become equal merge, so that the file reads back into the tree it was written from. Borrowed when
/// every frame fits already (a profile read from BR).
fn fit_frames<'p>(profile: &'p Profile, diag: &mut Diagnostics) -> std::borrow::Cow<'p, Profile> {
    let fits = |f: &crate::model::Frame| {
        f.kind == FrameKind::Line
            && f.line.is_some()
            && f.clause.is_some_and(|c| c <= u32::from(u8::MAX))
            && f.module.as_ref().is_some_and(|m| m.len() <= usize::from(u16::MAX))
            && f.name.len() <= usize::from(u8::MAX)
    };
    if profile.frames.iter().all(|(_, f)| fits(f)) {
        return std::borrow::Cow::Borrowed(profile);
    }
    let mut fitted = profile.clone();
    crate::model::ops::map_frames(&mut fitted, |f| (!fits(f)).then(|| fit_frame(f, diag)));
    if fitted.tree.has_duplicate_siblings(fitted.frames.len()) {
        fitted = crate::model::ops::merge_siblings(&fitted);
    }
    std::borrow::Cow::Owned(fitted)
}

fn fit_frame(f: &crate::model::Frame, diag: &mut Diagnostics) -> crate::model::Frame {
    let file = f.module.as_deref().unwrap_or_else(|| {
        diag.warn("br-no-file", None, || format!("frames without a module file are written in the file {NO_FILE:?}"));
        NO_FILE
    });
    let line = f.line.unwrap_or_else(|| {
        diag.warn("br-no-line", None, || "frames without a line number are written with line 0".into());
        0
    });
    let clause = f.clause.unwrap_or(0).min(u32::from(u8::MAX));
    if f.clause.is_some_and(|c| c > u32::from(u8::MAX)) {
        diag.warn("br-clause", None, || "clause numbers above 255 are written as 255".into());
    }
    crate::model::Frame {
        name: cut(&f.name, usize::from(u8::MAX), ("br-name-cut", "function names"), diag).to_string(),
        module: Some(cut(file, usize::from(u16::MAX), ("br-file-cut", "module file names"), diag).to_string()),
        line: Some(line),
        clause: Some(clause),
        kind: FrameKind::Line,
    }
}

/// Names the metrics beyond the first samples and the first time metric, which have no place.
fn warn_unwritten_metrics(profile: &Profile, diag: &mut Diagnostics) {
    let mut seen = Vec::new();
    for metric in profile.metrics() {
        if seen.contains(&metric.kind) {
            let name = metric.name.clone();
            diag.warn("br-metric-dropped", None, || {
                format!("br holds one samples and one time metric: metric {name} is dropped")
            });
        }
        seen.push(metric.kind);
    }
}

/// The number of groups of each node: the samples metric, else time divided at the interval.
fn sample_counts(profile: &Profile) -> Result<Vec<i64>, Error> {
    // The conversion step derives samples from time when the profile has only time.
    let Some(m) = profile.metrics().iter().position(|m| m.kind == MetricKind::Samples) else {
        let what = "it needs a samples or time metric, and the profile has neither".into();
        return Err(Error::Unrepresentable { format: Format::Br.into(), what });
    };
    let values = profile.tree.self_values(m);
    Ok((0..values.len()).map(|i| values.get(i).as_count()).collect())
}

/// The nanoseconds of each node's groups together, when the groups get time records (the profile
/// has time: [`fit`] gave it or took it away as `--br-mode` says, in whole nanoseconds).
fn group_times(profile: &Profile) -> Option<Vec<i64>> {
    let (m, _) = time_metric(profile)?;
    let values = profile.tree.self_values(m);
    Some((0..values.len()).map(|i| values.get(i).as_count()).collect())
}

/// The time metric of a profile and its nanoseconds per unit.
fn time_metric(profile: &Profile) -> Option<(usize, f64)> {
    profile
        .metrics()
        .iter()
        .enumerate()
        .find_map(|(i, m)| Some((i, m.unit.nanos().filter(|_| m.kind == MetricKind::Time)?)))
}

/// BR's last step of fitting a projected profile (called by the conversion step): `--br-mode timed`
/// gives a profile without time the interval per group, `--br-mode sampled` drops its time, each with
/// a warning. A file written with time records is a timed file, weighed by its time (in whole
/// nanoseconds, as its records hold it), in which every node with time has a group to hold it.
pub(crate) fn fit(mut profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    let samples = profile.metrics().iter().position(|m| m.kind == MetricKind::Samples);
    match (options.br_mode, time_metric(&profile), samples) {
        (Mode::Sampled, Some((m, _)), _) => {
            diag.warn("br-time-dropped", None, || "--br-mode sampled: the time metric is dropped".into());
            let keep: Vec<bool> = (0..profile.metrics().len()).map(|i| i != m).collect();
            profile.retain_metrics(&keep);
        }
        (Mode::Timed, None, Some(samples)) => {
            let interval = options.interval.or(profile.meta.interval).unwrap_or(DEFAULT_INTERVAL);
            diag.warn("br-time-from-samples", None, || {
                format!("--br-mode timed: the profile has no time, so every group gets the interval, {interval:?} (set with --interval)")
            });
            let per_sample = i64::try_from(interval.as_nanos()).unwrap_or(i64::MAX);
            let values = profile.tree.self_values(samples);
            let times = (0..values.len()).map(|i| values.get(i).as_count().max(0).saturating_mul(per_sample));
            profile.add_metric(Metric::time(Unit::Nanoseconds, Repr::Int), Values::Int(times.collect()));
        }
        (_, Some((m, unit_nanos)), Some(samples)) => whole_nanoseconds(&mut profile, m, unit_nanos, samples, diag),
        _ => {}
    }
    profile.meta.weighed_by = time_metric(&profile).map(|_| MetricKind::Time);
    profile
}

/// Makes time metric `m` whole nanoseconds (integer nanoseconds are copied: through f64 they would
/// lose digits above 2^53), and gives a node whose time rounded to no sample one group to hold it.
fn whole_nanoseconds(profile: &mut Profile, m: usize, unit_nanos: f64, samples: usize, diag: &mut Diagnostics) {
    let tree = &mut profile.tree;
    let values = tree.self_values(m);
    let nanos = |v: Value| match v {
        Value::Int(ns) if unit_nanos == 1.0 => ns,
        v => (v.as_f64() * unit_nanos).round() as i64,
    };
    let times: Vec<i64> = (0..values.len()).map(|i| nanos(values.get(i))).collect();
    let mut given = 0usize;
    for node in tree.nodes() {
        if times[node.index()] > 0 && tree.self_value(samples, node).as_count() <= 0 {
            tree.set_self(samples, node, Value::Int(1));
            given += 1;
        }
    }
    if given > 0 {
        diag.warn("br-group-for-time", None, || {
            format!("{given} stacks whose time rounds to no sample get one group each, so that their time is kept")
        });
    }
    let metric = Metric { unit: Unit::Nanoseconds, repr: Repr::Int, ..profile.metrics()[m].clone() };
    profile.replace_metric(m, metric, Values::Int(times));
}

/// Writes `n` groups `head [time record] tail`, splitting `time` evenly (the first groups get the
/// remainder's nanoseconds).
fn write_groups(out: &mut dyn Write, head: &[u8], tail: &[u8], n: u64, time: Option<u64>) -> Result<(), Error> {
    let Some(time) = time else {
        let mut whole = head.to_vec();
        whole.extend_from_slice(tail);
        for _ in 0..n {
            out.write_all(&whole)?;
        }
        return Ok(());
    };
    let (each, remainder) = (time / n, time % n);
    for i in 0..n {
        out.write_all(head)?;
        out.write_u8(TIME)?;
        out.write_u64::<BigEndian>(each + u64::from(i < remainder))?;
        out.write_all(tail)?;
    }
    Ok(())
}

/// Turns frames into records: module numbers from 1 in order of first use, each mapping written
/// right before the first group that needs it.
struct Encoder<'p> {
    profile: &'p Profile,
    /// Per frame: its record body (module, line, clause) and qualifier, once encoded.
    frames: Vec<Option<Box<[u8]>>>,
    modules: FxHashMap<String, u16>,
}

impl<'p> Encoder<'p> {
    fn new(profile: &'p Profile) -> Encoder<'p> {
        Encoder { profile, frames: vec![None; profile.frames.len()], modules: FxHashMap::default() }
    }

    /// Encodes the group of the stack `path` (root first) into `group` (END included), writing the
    /// mappings it needs first; returns the length of its head (the current line and its qualifier),
    /// after which a time record goes.
    fn group(
        &mut self,
        path: &[FrameId],
        order: BacktraceOrder,
        group: &mut Vec<u8>,
        out: &mut dyn Write,
    ) -> Result<usize, Error> {
        group.clear();
        let Some((&current, callers)) = path.split_last() else {
            return Ok(0);
        };
        group.push(CURRENT_LINE);
        group.extend_from_slice(self.frame(current, out)?);
        let head_len = group.len();
        let mut push = |encoder: &mut Self, frame: FrameId| -> Result<(), Error> {
            group.push(BACKTRACE);
            group.extend_from_slice(encoder.frame(frame, out)?);
            Ok(())
        };
        match order {
            BacktraceOrder::InnermostFirst => callers.iter().rev().try_for_each(|&f| push(self, f))?,
            BacktraceOrder::OutermostFirst => callers.iter().try_for_each(|&f| push(self, f))?,
        }
        group.push(END);
        Ok(head_len)
    }

    /// The record body and qualifier of `frame`, encoding it (and mapping its module) on first use.
    fn frame(&mut self, frame: FrameId, out: &mut dyn Write) -> Result<&[u8], Error> {
        if self.frames[frame.index()].is_none() {
            let encoded = self.encode(frame, out)?;
            self.frames[frame.index()] = Some(encoded);
        }
        Ok(self.frames[frame.index()].as_deref().unwrap_or_default())
    }

    /// A fitted frame's record body (module, line, clause) and qualifier (see [`fit_frames`]).
    fn encode(&mut self, frame: FrameId, out: &mut dyn Write) -> Result<Box<[u8]>, Error> {
        let f = self.profile.frames.get(frame);
        let module = self.module(f.module.as_deref().unwrap_or(NO_FILE), out)?;
        let clause = u8::try_from(f.clause.unwrap_or(0)).unwrap_or(u8::MAX);
        let mut bytes = Vec::with_capacity(FRAME_LEN + 2 + f.name.len());
        bytes.write_u16::<BigEndian>(module)?;
        bytes.write_u32::<BigEndian>(f.line.unwrap_or(0))?;
        bytes.push(clause);
        let routine =
            self.profile.frame_attrs.get(&frame).and_then(|attrs| attrs.iter().find(|(k, _)| k == ROUTINE_KEY));
        match (f.name.as_str(), routine.map(|(_, v)| v.as_str())) {
            ("", Some(MAIN_ROUTINE_VALUE)) => bytes.push(MAIN_ROUTINE),
            ("", Some(GOSUB_VALUE)) => bytes.push(GOSUB),
            ("", _) => {}
            (name, _) => {
                let name = &name.as_bytes()[..name.len().min(usize::from(u8::MAX))];
                bytes.push(FUNCTION_NAME);
                bytes.push(name.len() as u8);
                bytes.extend_from_slice(name);
            }
        }
        Ok(bytes.into_boxed_slice())
    }

    /// The number of the module `file`, writing its mapping when it is new.
    fn module(&mut self, file: &str, out: &mut dyn Write) -> Result<u16, Error> {
        if let Some(&number) = self.modules.get(file) {
            return Ok(number);
        }
        let Ok(number) = u16::try_from(self.modules.len() + 1) else {
            let what = "more than 65,535 distinct module files".into();
            return Err(Error::Unrepresentable { format: Format::Br.into(), what });
        };
        // A fitted file name fits its length field; the bound only keeps the record well-formed.
        let name = &file.as_bytes()[..file.len().min(usize::from(u16::MAX))];
        out.write_u8(MAPPING)?;
        out.write_u16::<BigEndian>(number)?;
        out.write_u16::<BigEndian>(name.len() as u16)?;
        out.write_all(name)?;
        self.modules.insert(file.to_string(), number);
        Ok(number)
    }
}

/// `text` cut to at most `max` bytes at a character boundary, with a warning when it is cut.
fn cut<'t>(text: &'t str, max: usize, (key, what): (&'static str, &str), diag: &mut Diagnostics) -> &'t str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    diag.warn(key, None, || format!("br {what} hold at most {max} bytes: longer ones are cut at a character boundary"));
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dump::dump;

    fn mapping(number: u16, name: &str) -> Vec<u8> {
        let mut r = vec![MAPPING];
        r.extend_from_slice(&number.to_be_bytes());
        r.extend_from_slice(&(name.len() as u16).to_be_bytes());
        r.extend_from_slice(name.as_bytes());
        r
    }

    fn frame(kind: u8, module: u16, line: u32, clause: u8) -> Vec<u8> {
        let mut r = vec![kind];
        r.extend_from_slice(&module.to_be_bytes());
        r.extend_from_slice(&line.to_be_bytes());
        r.push(clause);
        r
    }

    fn time(ns: u64) -> Vec<u8> {
        let mut r = vec![TIME];
        r.extend_from_slice(&ns.to_be_bytes());
        r
    }

    fn read_bytes(bytes: &[u8], order: BacktraceOrder) -> (Profile, Diagnostics) {
        let mut diag = Diagnostics::default();
        let profile = read(&mut &bytes[..], order, &mut diag).unwrap();
        (profile, diag)
    }

    fn write_bytes(profile: &Profile, options: &ConvertOptions) -> (Vec<u8>, Diagnostics) {
        let mut out = Vec::new();
        let mut diag = Diagnostics::default();
        let fitted = fit(profile.clone(), options, &mut diag);
        write(&fitted, &mut out, options, &mut diag).unwrap();
        (out, diag)
    }

    /// The main routine's line a.br:10.0 (1 sample, 7 ns) calling FNX b.br:20.1 (2 samples, 5 ns).
    fn timed_profile() -> Profile {
        let mut p = Profile::new(vec![Metric::samples(), Metric::time(Unit::Nanoseconds, Repr::Int)]);
        p.meta.weighed_by = Some(MetricKind::Time);
        let line = |name, module, line, clause| FrameRef {
            name,
            module: Some(module),
            line: Some(line),
            clause: Some(clause),
            kind: FrameKind::Line,
        };
        let main = p.frames.intern(line("", "a.br", 10, 0));
        p.frame_attrs.insert(main, vec![(ROUTINE_KEY.into(), MAIN_ROUTINE_VALUE.into())]);
        let fnx = p.frames.intern(line("FNX", "b.br", 20, 1));
        let root = p.tree.push(None, main);
        let child = p.tree.push(Some(root), fnx);
        for (node, samples, ns) in [(root, 1, 7), (child, 2, 5)] {
            p.tree.set_self(0, node, Value::Int(samples));
            p.tree.set_self(1, node, Value::Int(ns));
        }
        p
    }

    #[test]
    fn writes_the_records_the_layout_describes() {
        let (bytes, diag) = write_bytes(&timed_profile(), &ConvertOptions::default());
        assert!(diag.warnings().is_empty(), "{:?}", diag.warnings());
        let mut expected = mapping(1, "a.br");
        expected.extend(frame(CURRENT_LINE, 1, 10, 0));
        expected.push(MAIN_ROUTINE);
        expected.extend(time(7));
        expected.push(END);
        expected.extend(mapping(2, "b.br"));
        for ns in [3, 2] {
            // 5 ns over two groups: the remainder goes to the first.
            expected.extend(frame(CURRENT_LINE, 2, 20, 1));
            expected.extend([FUNCTION_NAME, 3, b'F', b'N', b'X']);
            expected.extend(time(ns));
            expected.extend(frame(BACKTRACE, 1, 10, 0));
            expected.push(MAIN_ROUTINE);
            expected.push(END);
        }
        assert_eq!(bytes, expected);
        let (reread, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        assert_eq!(dump(&reread), dump(&timed_profile()));
    }

    #[test]
    fn sampled_mode_drops_time_and_outermost_first_reverses_backtraces() {
        let options = ConvertOptions::default().with_br(Mode::Sampled, BacktraceOrder::OutermostFirst);
        let (bytes, diag) = write_bytes(&timed_profile(), &options);
        assert!(diag.has("br-time-dropped"));
        let (outer, _) = read_bytes(&bytes, BacktraceOrder::OutermostFirst);
        assert_eq!(outer.metrics().len(), 1, "no time records");
        let (inner, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        let mut expected = timed_profile();
        expected.retain_metrics(&[true, false]);
        expected.meta.weighed_by = None;
        assert_eq!(dump(&outer), dump(&expected));
        // One backtrace entry: the order cannot change a stack of two frames.
        assert_eq!(dump(&inner), dump(&expected));
        let mut three = mapping(1, "a.br");
        three.extend(frame(CURRENT_LINE, 1, 3, 0));
        three.extend(frame(BACKTRACE, 1, 2, 0));
        three.extend(frame(BACKTRACE, 1, 1, 0));
        three.push(END);
        let root_line = |p: &Profile| p.frames.get(p.tree.frame(NodeId(0))).line;
        assert_eq!(root_line(&read_bytes(&three, BacktraceOrder::InnermostFirst).0), Some(1));
        assert_eq!(root_line(&read_bytes(&three, BacktraceOrder::OutermostFirst).0), Some(2));
    }

    #[test]
    fn nanoseconds_beyond_f64_precision_survive() {
        let mut p = timed_profile();
        p.tree.set_self(1, NodeId(0), Value::Int((1 << 60) + 1));
        let (bytes, _) = write_bytes(&p, &ConvertOptions::default());
        assert_eq!(dump(&read_bytes(&bytes, BacktraceOrder::InnermostFirst).0), dump(&p));
    }

    #[test]
    fn max_samples_stops_before_writing() {
        let options = ConvertOptions::default().with_samples(2, crate::formats::sampler::FrameOrder::Auto);
        let mut out = Vec::new();
        let mut diag = Diagnostics::default();
        let err = write(&fit(timed_profile(), &options, &mut diag), &mut out, &options, &mut diag).unwrap_err();
        assert!(err.to_string().contains("--max-samples 2"), "{err}");
        assert!(out.is_empty());
    }

    #[test]
    fn items_across_refills_and_a_group_larger_than_the_buffer() {
        // 60,000 groups: some straddle every refill of the 256 KiB buffer.
        let mut many = timed_profile();
        for node in [NodeId(0), NodeId(1)] {
            let samples = many.tree.self_value(0, node).as_count();
            many.tree.set_self(0, node, Value::Int(samples * 20_000));
        }
        let (bytes, _) = write_bytes(&many, &ConvertOptions::default());
        assert!(bytes.len() > 4 * CHUNK);
        assert_eq!(dump(&read_bytes(&bytes, BacktraceOrder::InnermostFirst).0), dump(&many));
        let mut deep = mapping(1, "a.br");
        deep.extend(frame(CURRENT_LINE, 1, 0, 0));
        for line in 1..=40_000 {
            deep.extend(frame(BACKTRACE, 1, line, 0));
        }
        deep.push(END);
        assert!(deep.len() > CHUNK);
        let (profile, _) = read_bytes(&deep, BacktraceOrder::InnermostFirst);
        assert_eq!(profile.tree.len(), 40_001);
        assert_eq!(profile.max_depth(), Some(40_000));
    }

    #[test]
    fn names_are_cut_at_a_character_boundary() {
        let mut p = Profile::new(vec![Metric::samples()]);
        let long = "é".repeat(200); // 400 bytes
        let f = p.frames.intern(FrameRef::function(&long));
        let node = p.tree.push(None, f);
        p.tree.set_self(0, node, Value::Int(1));
        let (bytes, diag) = write_bytes(&p, &ConvertOptions::default());
        assert!(diag.has("br-name-cut") && diag.has("br-no-file") && diag.has("br-no-line"));
        let (reread, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        let frame = reread.frames.get(FrameId(0));
        assert_eq!(frame.name, "é".repeat(127)); // 254 bytes: 255 would split a character
        assert_eq!((frame.module.as_deref(), frame.line), (Some(NO_FILE), Some(0)));
    }

    #[test]
    fn frames_a_record_cannot_tell_apart_merge_before_writing() {
        // `f` without file or line and `f` in the placeholder file at line 0 write the same record:
        // as siblings they must be one node, or the file would not read back into what was written.
        let mut p = Profile::new(vec![Metric::samples()]);
        let bare = p.frames.intern(FrameRef::function("f"));
        let placed = p.frames.intern(FrameRef {
            name: "f",
            module: Some(NO_FILE),
            line: Some(0),
            clause: Some(0),
            kind: FrameKind::Line,
        });
        let g = p.frames.intern(FrameRef::function("g"));
        for frame in [bare, placed] {
            let node = p.tree.push(None, frame);
            p.tree.set_self(0, node, Value::Int(1));
            let child = p.tree.push(Some(node), g);
            p.tree.set_self(0, child, Value::Int(2));
        }
        let (once, _) = write_bytes(&p, &ConvertOptions::default());
        let (reread, _) = read_bytes(&once, BacktraceOrder::InnermostFirst);
        assert_eq!(reread.tree.len(), 2);
        assert_eq!(reread.total(0), Value::Int(6));
        assert_eq!(write_bytes(&reread, &ConvertOptions::default()).0, once);
    }

    #[test]
    fn sniffs_records_not_text() {
        let (bytes, _) = write_bytes(&timed_profile(), &ConvertOptions::default());
        assert_eq!(sniff(&bytes), Sniff::Maybe);
        assert_eq!(sniff(&bytes[..3]), Sniff::Maybe); // cut by the sniffing window
        assert_eq!(sniff(b""), Sniff::No);
        assert_eq!(sniff(b"LispWorks Profiler Tree\n"), Sniff::No);
        assert_eq!(sniff(b"\x03\x00\x01\x00\x00\x00\x01\x00\x02"), Sniff::No);
    }
}
