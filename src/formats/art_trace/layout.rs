//! The two layouts of an ART trace read into one [`Trace`]: the text header's sections (the
//! regular layout's, or the streaming layout's summary), its threads and methods, and where each
//! record is; a record is decoded when it is taken ([`Trace::record`]).

use super::error;
use crate::error::{ParseError, Position};
use rustc_hash::FxHashMap;

/// The binary part's magic, `SLOW` (0x574f4c53 little-endian).
pub(super) const MAGIC: &[u8] = b"SLOW";
/// The bit ART sets in the version of the streaming layout.
const STREAMING: u16 = 0xF0;

/// The clocks a record holds, as the summary's `clock=` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clock {
    Dual,
    Wall,
    ThreadCpu,
}

/// A method of the `*methods` section or of a streaming method record.
pub(super) struct Method {
    pub class: String,
    pub name: String,
    pub file: String,
}

/// A trace: its header facts and where its records are.
pub(super) struct Trace {
    pub clock: Clock,
    /// The summary's `key=value` lines, in order.
    pub details: Vec<(String, String)>,
    pub threads: FxHashMap<u16, String>,
    pub methods: FxHashMap<u32, Method>,
    /// The byte each record starts at.
    pub records: Vec<usize>,
    version: u16,

}

/// One record: its thread, method, action and clocks (thread-cpu, wall: a single clock's time in
/// both).
pub(super) struct Record {
    pub tid: u16,
    pub method: u32,
    pub action: u32,
    pub clocks: [u32; 2],
}

impl Trace {
    /// The record at byte `at`.
    pub(super) fn record(&self, bytes: &[u8], at: usize) -> Result<Record, ParseError> {
        let (tid, after) = match self.version {
            1 => (u16::from(bytes[at]), at + 1),
            _ => (u16_at(bytes, at).unwrap_or(0), at + 2),
        };
        let word = |i: usize| u32_at(bytes, after + 4 * i).unwrap_or(0);
        let (id, first, second) = (word(0), word(1), word(2));
        let action = id & 3;
        if action == 3 {
            let found = format!("the method word {id:#x}, of action 3");
            return Err(error(Position::byte(at as u64), "a record of action 0 (enter), 1 (exit) or 2 (unwind)", found));
        }
        let clocks = match self.clock {
            Clock::Dual => [first, second],
            Clock::Wall | Clock::ThreadCpu => [first, first],
        };
        Ok(Record { tid, method: id & !3, action, clocks })
    }
}

/// Reads either layout's header and finds its records.
pub(super) fn parse(bytes: &[u8]) -> Result<Trace, ParseError> {
    match bytes.starts_with(MAGIC) {
        true => streaming(bytes),
        false => regular(bytes),
    }
}

/// The text sections read: the version, the summary's facts, threads and methods, and the byte
/// after `*end` (or after the last line, where the text has no `*end`).
struct Sections {
    version: u16,
    details: Vec<(String, String)>,
    threads: FxHashMap<u16, String>,
    methods: FxHashMap<u32, Method>,
    end: Option<usize>,
}

/// The sections of the text `bytes`, which starts at byte `base` of the file.
fn sections(bytes: &[u8], base: usize) -> Result<Sections, ParseError> {
    let mut lines = Lines { bytes, at: 0, number: 0, base, bad: None };
    let found = read_sections(&mut lines);
    match lines.bad {
        Some(at) => Err(ParseError {
            format: super::FORMAT,
            position: Position::line(lines.number, (base + at) as u64),
            kind: crate::error::ParseErrorKind::Encoding { found: None },
        }),
        None => found,
    }
}

/// The sections of `lines`' text (stopping at a line that is not UTF-8).
fn read_sections(lines: &mut Lines<'_>) -> Result<Sections, ParseError> {
    let bytes = lines.bytes;
    let (first, at) = lines.next().unwrap_or(("", 0));
    if first != "*version" {
        return Err(lines.error(at, "*version, the trace's first line", first));
    }
    let (version_line, at) = lines.next().unwrap_or(("", bytes.len()));
    let version = match version_line.trim().parse::<u16>() {
        Ok(v @ 1..=3) => v,
        _ => return Err(lines.error(at, "a version 1 to 3", version_line)),
    };
    let mut found = Sections { version, details: Vec::new(), threads: FxHashMap::default(), methods: FxHashMap::default(), end: None };
    let mut section = "*version";
    while let Some((line, at)) = lines.next() {
        if line.starts_with('*') {
            section = match (section, line) {
                ("*version", "*threads") | ("*threads", "*methods") => line,
                ("*methods", "*end") => {
                    found.end = Some(lines.at);
                    return Ok(found);
                }
                _ => return Err(lines.error(at, &format!("the section after {section}"), line)),
            };
            continue;
        }
        if line.is_empty() {
            continue;
        }
        match section {
            "*version" => {
                let (key, value) = line.split_once('=').unwrap_or((line, ""));
                found.details.push((key.to_string(), value.to_string()));
            }
            "*threads" => {
                let (tid, name) = line.split_once('\t').unwrap_or((line, ""));
                let tid = tid.trim().parse::<u16>().map_err(|_| lines.error(at, "a thread: TID<TAB>NAME", line))?;
                found.threads.insert(tid, name.to_string());
            }
            _ => {
                let (id, method) = method(line).ok_or_else(|| lines.error(at, "a method: 0xID<TAB>CLASS<TAB>NAME<TAB>SIGNATURE<TAB>FILE", line))?;
                found.methods.insert(id, method);
            }
        }
    }
    Ok(found)
}

/// A method line's id and method.
fn method(line: &str) -> Option<(u32, Method)> {
    let mut fields = line.trim_end_matches(['\n', '\r']).split('\t');
    let id = fields.next()?;
    // `%#x`: `0x…`, but 0 is `0`.
    let id = match id.strip_prefix("0x").or_else(|| id.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => id.parse().ok()?,
    };
    let class = fields.next()?.to_string();
    let name = fields.next().unwrap_or("").to_string();
    let file = fields.nth(1).unwrap_or("").to_string();
    Some((id, Method { class, name, file }))
}

/// The clock the summary's facts name (`thread-cpu` where they name none, as the importer reads it).
fn clock(details: &[(String, String)], base: usize) -> Result<Clock, ParseError> {
    match details.iter().find(|(k, _)| k == "clock").map(|(_, v)| v.as_str()) {
        Some("dual") => Ok(Clock::Dual),
        Some("wall") => Ok(Clock::Wall),
        Some("thread-cpu") | None => Ok(Clock::ThreadCpu),
        Some(other) => Err(error(Position::byte(base as u64), "clock=dual, wall or thread-cpu", format!("clock={other}"))),
    }
}

/// The binary header at byte `at`: its version (without the streaming bit where `streaming`), and
/// the byte after it and the records' size.
fn header(bytes: &[u8], at: usize, streaming: bool) -> Result<(u16, usize, usize), ParseError> {
    let position = Position::byte(at as u64);
    if bytes.get(at..at + 4) != Some(MAGIC) {
        return Err(error(position, "the binary part's magic SLOW", "other bytes"));
    }
    let cut = || error(Position::byte(bytes.len() as u64), "the binary part's 18-byte header", "the end of the input: the file looks cut short");
    let raw = u16_at(bytes, at + 4).ok_or_else(cut)?;
    let version = if streaming { raw ^ STREAMING } else { raw };
    if !(1..=3).contains(&version) || (streaming && raw & STREAMING != STREAMING) {
        return Err(error(Position::byte(at as u64 + 4), "a version 1 to 3", format!("{raw:#x}")));
    }
    let length = usize::from(u16_at(bytes, at + 6).ok_or_else(cut)?);
    let size = match version {
        1 => 9,
        2 => 10,
        _ => usize::from(u16_at(bytes, at + 16).ok_or_else(cut)?),
    };
    Ok((version, at + length.max(16), size))
}

/// The regular layout: the text sections, then the binary part.
fn regular(bytes: &[u8]) -> Result<Trace, ParseError> {
    let found = sections(bytes, 0)?;
    let Some(start) = found.end else {
        return Err(error(Position::byte(bytes.len() as u64), "the *end of the text header", "the end of the input: the file looks cut short"));
    };
    let (version, first, record_size) = header(bytes, start, false)?;
    if version != found.version {
        let found = format!("version {version} in the binary part, {} in the text", found.version);
        return Err(error(Position::byte(start as u64 + 4), "one version", found));
    }
    let clock = clock(&found.details, 0)?;
    check_size(record_size, version, clock, start)?;
    let records: Vec<usize> = (first..bytes.len()).step_by(record_size).collect();
    if let Some(&last) = records.last() {
        if last + record_size > bytes.len() {
            let found = format!("the end of the input after {} of its bytes: the file looks cut short", bytes.len() - last);
            return Err(error(Position::byte(last as u64), format!("a record of {record_size} bytes"), found));
        }
    }
    let Sections { details, threads, methods, .. } = found;
    Ok(Trace { clock, details, threads, methods, records, version })
}

/// That a record of `size` bytes holds the thread, the method and the clocks.
fn check_size(size: usize, version: u16, clock: Clock, at: usize) -> Result<(), ParseError> {
    let needed = if version == 1 { 1 } else { 2 } + 4 + if clock == Clock::Dual { 8 } else { 4 };
    match size >= needed {
        true => Ok(()),
        false => Err(error(Position::byte(at as u64 + 16), format!("records of at least {needed} bytes"), format!("{size}"))),
    }
}

/// The streaming layout: the binary header, then records, methods and threads up to the summary.
fn streaming(bytes: &[u8]) -> Result<Trace, ParseError> {
    let (version, mut at, record_size) = header(bytes, 0, true)?;
    let mut trace = Trace {
        clock: Clock::ThreadCpu,
        details: Vec::new(),
        threads: FxHashMap::default(),
        methods: FxHashMap::default(),
        records: Vec::new(),
        version,

    };
    let cut = |at: usize, what: &str| error(Position::byte(at as u64), what, "the end of the input: the file looks cut short");
    let mut summary = None;
    while at < bytes.len() {
        let first = u16_at(bytes, at).ok_or_else(|| cut(at, "a record"))?;
        if first != 0 {
            if at + record_size.max(1) > bytes.len() {
                return Err(cut(at, &format!("a record of {record_size} bytes")));
            }
            trace.records.push(at);
            at += record_size.max(1);
            continue;
        }
        let op = *bytes.get(at + 2).ok_or_else(|| cut(at, "an op"))?;
        let (end, what) = op_extent(bytes, at, op)?;
        let text = bytes.get(what.clone()).ok_or_else(|| cut(at, "the op's text"))?;
        match op {
            1 => {
                let line = String::from_utf8_lossy(text);
                let (id, method) = method(&line).ok_or_else(|| error(Position::byte(at as u64), "a method: 0xID<TAB>CLASS<TAB>NAME<TAB>SIGNATURE<TAB>FILE", line.to_string()))?;
                trace.methods.insert(id, method);
            }
            2 => drop(trace.threads.insert(u16_at(bytes, at + 3).unwrap_or(0), String::from_utf8_lossy(text).into_owned())),
            _ => {
                summary = Some((what.start, sections(text, what.start)?));
                break;
            }
        }
        at = end;
    }
    let Some((start, found)) = summary else { return Err(cut(bytes.len(), "the trace's summary (op 3)")) };
    if found.version != version {
        let found = format!("version {version} in the header, {} in the summary", found.version);
        return Err(error(Position::byte(start as u64), "one version", found));
    }
    trace.clock = clock(&found.details, start)?;
    check_size(record_size, version, trace.clock, 0)?;
    trace.details = found.details;
    // The summary's threads name those no thread op named.
    for (tid, name) in found.threads {
        trace.threads.entry(tid).or_insert(name);
    }
    trace.methods.extend(found.methods);
    Ok(trace)
}

/// Where the op at byte `at` ends and where its text is.
fn op_extent(bytes: &[u8], at: usize, op: u8) -> Result<(usize, std::ops::Range<usize>), ParseError> {
    let cut = || error(Position::byte(at as u64), "an op's length", "the end of the input: the file looks cut short");
    let (from, length) = match op {
        1 => (at + 5, usize::from(u16_at(bytes, at + 3).ok_or_else(cut)?)),
        2 => (at + 7, usize::from(u16_at(bytes, at + 5).ok_or_else(cut)?)),
        3 => (at + 7, u32_at(bytes, at + 3).ok_or_else(cut)? as usize),
        _ => return Err(error(Position::byte(at as u64 + 2), "an op 1 (method), 2 (thread) or 3 (summary)", format!("op {op}"))),
    };
    if from + length > bytes.len() {
        return Err(cut());
    }
    Ok((from + length, from..from + length))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    bytes.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The lines of a text header, each with the byte it starts at.
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    number: u64,
    base: usize,
    /// The byte of a line that is not UTF-8, which ends the text.
    bad: Option<usize>,
}

impl<'a> Lines<'a> {
    /// The next line (without its line end, as text: bytes that are not UTF-8 end the text) and
    /// where it starts.
    fn next(&mut self) -> Option<(&'a str, usize)> {
        if self.at >= self.bytes.len() {
            return None;
        }
        let start = self.at;
        let end = memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
        self.at = end + 1;
        self.number += 1;
        let Ok(line) = std::str::from_utf8(&self.bytes[start..end]) else {
            self.bad = Some(start);
            return None;
        };
        Some((line.strip_suffix('\r').unwrap_or(line), start))
    }

    /// The error at the line just read, which starts at `at`.
    fn error(&self, at: usize, expected: &str, found: &str) -> ParseError {
        let found = if found.is_empty() { "nothing".to_string() } else { crate::error::excerpt(found.as_bytes()) };
        error(Position::line(self.number, (self.base + at) as u64), expected, found)
    }
}
