//! Reading BR records: nom's streaming parsers over a refilled buffer, groups aggregated as they are read.

use super::FORMAT;
use super::{
    record_name, BacktraceOrder, BACKTRACE, CURRENT_LINE, END, FRAME_LEN, FUNCTION_NAME, GOSUB, GOSUB_VALUE,
    MAIN_ROUTINE, MAIN_ROUTINE_VALUE, MAPPING, ROUTINE_KEY, TIME, TIME_LEN,
};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::spec::Sniff;
use crate::model::{ChildIndex, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value};
use indexmap::IndexMap;
use nom::bytes::streaming::take;
use nom::combinator::map_parser;
use nom::number::streaming::{be_u16, be_u32, be_u64, be_u8};
use nom::{Needed, Parser};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::io::Read;

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
    ParseError { format: FORMAT, position: Position::byte(at), kind }
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

pub(super) const CHUNK: usize = 256 * 1024;

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
                    return Err(ParseError { format: FORMAT, position: Position::byte(at), kind: e.into() });
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
    options: &super::Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let order = options.backtrace;
    let mut chunks = Chunks { input, buf: vec![0; CHUNK], start: 0, end: 0, base: 0, eof: false };
    let mut reader = Reader {
        order,
        modules: FxHashMap::default(),
        stacks: IndexMap::default(),
        used: vec![false; 1 << 16],
        key: Vec::new(),
        profile: Profile::new(vec![
            Metric::samples(),
            Metric::time(Unit::Nanoseconds, Repr::Int).sampled(crate::model::Sampling::weights_of("samples")),
        ]),
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
            // An empty file holds no group (as an empty input of any format holds no profile).
            Err(nom::Err::Incomplete(_)) if s.is_empty() && at == 0 => {
                return Err(unexpected(0, "a module mapping or a group", "nothing: the input is empty".into()));
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
        // A timed group's weight is its time (docs/formats.md, "Business Rules! profiler files"): a flame graph of one shows where the
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
