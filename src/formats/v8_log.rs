//! V8's tick log: what `node --prof` and `d8 --prof` write (`isolate-0x…-v8.log`), the input of
//! V8's tick processor (`node --prof-process`, `tools/tickprocessor.mjs`; read only).
//!
//! ```text
//! v8-version,11,3,244,8,-node.38,0
//! shared-library,/usr/bin/node,0x400000,0xb71000,0
//! profiler,begin,1000
//! code-creation,Builtin,2,14863,0x18c4000,768,DeoptimizationEntry_Eager
//! code-creation,JS,10,21933,0x18c91988ad66,120,fib /tmp/w.js:1:13,0x18c91988abf0,~
//! code-move,0x18c91988ad66,0x18c91988b000
//! tick,0x18c91988ad90,23442,0,0x0,0,0x18c91988dd6b,0x18c91988d076
//! ```
//!
//! **Grammar**: a record a line, its fields separated by commas, `\x2C`, `\n`, `\\` and `\uXXXX`
//! escapes inside a field (V8's `Log::MessageBuilder`; logs of V8 before 7 quote strings,
//! `"name"`). The records read, as the tick processor reads them (the others are skipped):
//! - `shared-library,NAME,START,END,SLIDE`: a library's addresses;
//! - `code-creation,TYPE,KIND,TIME,START,SIZE,NAME[,SFI,STATE]`: code at `START`, of a JavaScript
//!   function where it names its SharedFunctionInfo (`SFI`) and tier (`STATE`, `~` `^` `+` `*`),
//!   else a builtin, stub, handler or regular expression named `TYPE: NAME` (older V8 logs it
//!   without `TIME`, its third field the address: read so);
//! - `code-move,FROM,TO`, `code-delete,START`, `sfi-move,FROM,TO`: code and functions moved or
//!   gone;
//! - `tick,PC,TIME,IS_EXTERNAL_CALLBACK,TOS_OR_CALLBACK,VM_STATE,FRAME…`: a sample, its program
//!   counter and the return addresses of its stack, innermost first (absolute, or `+N`/`-N` from
//!   the frame before);
//! - `v8-version`, `v8-platform` and `profiler,begin,INTERVAL` (µs): header facts.
//!
//! **Model**: each tick is a sample of the stack its addresses resolve to, through the code map
//! the records before it built, as the tick processor resolves them (`codemap.mjs`,
//! `profile.mjs`): an address in a page of a library is the library's (the first library
//! stated at an address is the one that stays), else the code whose range holds it (code added
//! over other code removes what it covers). A tick in an external callback is the callback's; a
//! top of stack in a JavaScript function (a frameless call) is a frame. A JavaScript function is
//! one frame whatever its tier (`node --prof-process` lists `*fib` and `~fib` apart), named, with
//! its file as module, line and column, as a `.cpuprofile` names it; other code is named as the
//! tick processor names it (`Builtin: ArrayMap`), a library by its path (proftool reads no
//! symbols: `node --prof-process --nm=true` names them so too), and a program counter no code holds
//! `UNKNOWN`, the tick processor's "unaccounted"; other addresses that resolve to nothing are left
//! out, and bytecode handlers (`BytecodeHandler: …`), which the tick processor leaves out by
//! default. The samples are ticks of the interval `profiler,begin` states.
//!
//! **Errors**: a record of a kind read whose address, size or count is not a number, at its line;
//! a library of more than 2^24 pages. A move or delete of unknown code is counted in a warning, as
//! the tick processor prints it.
//!
//! **Lost**: the tiers of a function's code, the ticks' times and VM states, code source
//! positions and scripts' sources, other records.

use super::kit::lines::{self, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::kit::source_frame::{Anonymous, SourceFrame};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::model::{FrameId, FrameKind, FrameRef};
use crate::text::Line;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Duration;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "v8-log",
    description: "V8's tick log (`node --prof`: `isolate-…-v8.log`), as `node --prof-process` reads it",
    extensions: &["v8.log", "v8log"],
    carries: Carries { modules: true, source_lines: true, interval: true, ..Carries::STACKS_OF_SAMPLES },
    reads: Some(Reads::text(sniff, lines::read::<Log>)),
    writes: None,
};

/// The records a log starts with.
const FIRST_RECORDS: [&str; 4] = ["v8-version,", "shared-library,", "code-creation,", "profiler,begin,"];

/// `Yes` when the first line is a record a log starts with.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    Sniff::yes_if(text.lines().next().is_some_and(|line| FIRST_RECORDS.iter().any(|r| line.starts_with(r))))
}

/// The bits of an address below its page's number (`codemap.mjs`'s `kPageAlignment`).
const PAGE_BITS: u32 = 12;

/// The most pages a library may span: more is not a library of a real process.
const MOST_PAGES: u64 = 1 << 24;

/// The number of the page of `address` as the tick processor keeps it: `(address / 4096) | 0`,
/// a JavaScript int32, so that pages 2^32 apart are one.
fn page(address: u64) -> u32 {
    (address >> PAGE_BITS) as u32
}

/// The pages the libraries span, as runs of page numbers (first, last), sorted and apart: as
/// many as there are libraries, however many pages they span (a set of the pages took 250 MB
/// and 2.7 s for one library of 2^24 pages).
#[derive(Default)]
struct PageRanges {
    runs: Vec<(u32, u32)>,
}

impl PageRanges {
    /// Marks the pages of a library from `start` to `end` as `CodeMap.markPages_` does: the page of
    /// each address from `start` in steps of a page while it is at most `end` (so the page of
    /// `end` is not marked where a step passes it), their numbers wrapping as int32s do.
    fn mark(&mut self, start: u64, end: u64) {
        let Some(span) = end.checked_sub(start) else { return };
        let first = page(start);
        let last = first.wrapping_add((span >> PAGE_BITS) as u32);
        match first <= last {
            true => self.runs.push((first, last)),
            false => self.runs.extend([(first, u32::MAX), (0, last)]),
        }
        self.runs.sort_unstable();
        // A run that starts in or right after the one before it joins it.
        self.runs.dedup_by(|run, before| {
            let joins = u64::from(run.0) <= u64::from(before.1) + 1;
            if joins {
                before.1 = before.1.max(run.1);
            }
            joins
        });
    }

    fn contains(&self, page: u32) -> bool {
        let after = self.runs.partition_point(|&(first, _)| first <= page);
        after > 0 && page <= self.runs[after - 1].1
    }
}

/// What a range of the code map holds.
enum Code {
    /// A library: its name's frame.
    Library(FrameId),
    /// Code of the JavaScript function of this index in [`Log::functions`].
    Function(usize),
    /// The function of this index itself, at its SharedFunctionInfo's address: of no size, it holds
    /// no address but is found by `code-creation` and moved by `sfi-move`.
    SharedInfo(usize),
    /// Other code, by the name the tick processor gives it (`Builtin: ArrayMap`), its frame once
    /// a tick met it.
    Other { name: Box<str>, frame: Option<FrameId> },
}

/// A range of the code map: its size and what it holds.
struct Entry {
    size: u64,
    code: Code,
}

/// A JavaScript function: its name as logged (`fib /tmp/w.js:1:13`) and its frame once a tick met
/// it.
struct Function {
    name: String,
    frame: Option<FrameId>,
}

/// What the records so far say is where: libraries and code by start address (the tick
/// processor's `CodeMap`).
#[derive(Default)]
struct CodeMap {
    libraries: BTreeMap<u64, Entry>,
    /// The pages libraries span (see [`page`]).
    pages: PageRanges,
    /// Code that moves and goes (the tick processor's "dynamic" entries).
    code: BTreeMap<u64, Entry>,
}

impl CodeMap {
    /// What holds `address`: a library where a library spans its page, else code.
    fn find(&mut self, address: u64) -> Option<&mut Entry> {
        let map = if self.pages.contains(page(address)) { &mut self.libraries } else { &mut self.code };
        let (&start, entry) = map.range_mut(..=address).next_back()?;
        (address < start.saturating_add(entry.size)).then_some(entry)
    }

    /// Adds code at `start`, removing the code it covers, as `CodeMap.addCode` does (where code
    /// of no size is at `start` already, that stays and the new code is not added).
    fn add(&mut self, start: u64, entry: Entry) {
        let end = start.saturating_add(entry.size);
        let mut covered = Vec::new();
        let mut below = end.checked_sub(1);
        while let Some(address) = below.filter(|&address| address >= start) {
            let Some((&key, other)) = self.code.range(..=address).next_back() else { break };
            if key < end && start < key.saturating_add(other.size) {
                covered.push(key);
            }
            below = key.checked_sub(1);
        }
        for key in covered {
            self.code.remove(&key);
        }
        self.code.entry(start).or_insert(entry);
    }
}

/// The grammar of a tick log: the code map the records so far built, and the functions its code
/// is of.
#[derive(Default)]
struct Log {
    map: CodeMap,
    functions: Vec<Function>,
    /// The frames of a tick being resolved, innermost first.
    frames: Vec<FrameId>,
    unknown: Option<FrameId>,
}

/// Moves and deletes of code the map does not hold.
static UNKNOWN_CODE: Reason = Reason::new("unknown-code", |records, _| {
    format!("{records} moves or deletes of code the log did not create skipped, as the tick processor skips them")
});

impl StackLines for Log {
    const FORMAT: FormatName = SPEC.format_name();
    const LAST_LINE_CUT: Option<&'static str> = Some("its last record may be cut");
    const MISSING: Option<Missing> = None;

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        let Some((kind, rest)) = line.text.split_once(',') else { return Ok(()) };
        let record = Record { line, fields: fields(rest) };
        match kind {
            "shared-library" => self.library(&record, sink),
            "code-creation" => self.code_creation(&record),
            "code-move" => self.code_move(&record, sink, true),
            "sfi-move" => self.code_move(&record, sink, false),
            "code-delete" => {
                if self.map.code.remove(&record.address(0, "the code's address")?).is_none() {
                    sink.leave_out(&UNKNOWN_CODE, Some(line.position), 0);
                }
                Ok(())
            }
            "tick" => self.tick(&record, sink),
            "profiler" if record.text(0) == "begin" => {
                let interval = record.number(1, "the sampling interval (µs)")?;
                sink.profile().meta.interval = Some(Duration::from_micros(interval)).filter(|i| !i.is_zero());
                Ok(())
            }
            "v8-version" | "v8-platform" => {
                let value = version(kind, &record.fields);
                let key = kind.trim_start_matches("v8-");
                sink.profile().meta.attrs.push((format!("v8-log.{key}"), value));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn end(&mut self, _: &mut StackSink, _: Position) -> Result<(), ParseError> {
        Ok(())
    }
}

impl Log {
    /// `shared-library,NAME,START,END,SLIDE`: the library's pages are its (a library stated again
    /// at the same start keeps the first's size).
    fn library(&mut self, record: &Record<'_, '_>, sink: &mut StackSink) -> Result<(), ParseError> {
        let name = record.text(0);
        let (start, end) = (record.address(1, "the library's start")?, record.address(2, "the library's end")?);
        if end.saturating_sub(start) >> PAGE_BITS > MOST_PAGES {
            let found = format!("{start:#x} to {end:#x}");
            return Err(record.line.unexpected("a library of at most 2^24 pages (64 GiB)", found));
        }
        self.map.pages.mark(start, end);
        let frame = sink.frame(FrameRef { module: Some(name), ..FrameRef::function(name) });
        self.map.libraries.entry(start).or_insert(Entry { size: end.saturating_sub(start), code: Code::Library(frame) });
        Ok(())
    }

    /// `code-creation,TYPE,KIND,TIME,START,SIZE,NAME[,SFI,STATE]`, or without `TIME` in logs of
    /// older V8, whose third field is then the code's hexadecimal address (Chrome 27's log in trace
    /// viewer's test data, `tracing/test_data/v8.log`, which trace viewer reads so).
    fn code_creation(&mut self, record: &Record<'_, '_>) -> Result<(), ParseError> {
        let at = if record.text(2).starts_with("0x") { 2 } else { 3 };
        let (start, size) = (record.address(at, "the code's address")?, record.address(at + 1, "the code's size")?);
        let (kind, name) = (record.text(0), record.text(at + 2));
        let sfi = record.fields.get(at + 3).filter(|sfi| kind != "RegExp" && !sfi.is_empty());
        let Some(sfi) = sfi else {
            let code = Code::Other { name: format!("{kind}: {name}").into(), frame: None };
            self.map.add(start, Entry { size, code });
            return Ok(());
        };
        let sfi = record.parse_address(sfi, at + 3, "the function's address")?;
        let function = self.function_at(sfi, name);
        // The same code logged again (a new tier of the same size) stays; other code there goes.
        let same = |entry: &Entry| entry.size == size && matches!(entry.code, Code::Function(f) if f == function);
        if !self.map.code.get(&start).is_some_and(same) {
            self.map.code.remove(&start);
            self.map.add(start, Entry { size, code: Code::Function(function) });
        }
        Ok(())
    }

    /// The function whose SharedFunctionInfo is at `sfi`, named `name` (the name it is logged
    /// with last); a new one where the map holds none there.
    fn function_at(&mut self, sfi: u64, name: &str) -> usize {
        if let Some(Entry { code: Code::SharedInfo(index), .. }) = self.map.code.get(&sfi) {
            let function = &mut self.functions[*index];
            if function.name != name {
                (function.name, function.frame) = (name.to_string(), None);
            }
            return *index;
        }
        self.functions.push(Function { name: name.to_string(), frame: None });
        let index = self.functions.len() - 1;
        self.map.add(sfi, Entry { size: 0, code: Code::SharedInfo(index) });
        index
    }

    /// `code-move,FROM,TO` (`warn`: a move of code the map does not hold is counted) or
    /// `sfi-move,FROM,TO` (skipped then).
    fn code_move(&mut self, record: &Record<'_, '_>, sink: &mut StackSink, warn: bool) -> Result<(), ParseError> {
        let (from, to) = (record.address(0, "the code's address")?, record.address(1, "the code's new address")?);
        match self.map.code.remove(&from) {
            Some(entry) => self.map.add(to, entry),
            None if warn => sink.leave_out(&UNKNOWN_CODE, Some(record.line.position), 0),
            None => {}
        }
        Ok(())
    }

    /// Whether `address` is in a JavaScript function's code.
    fn in_function(&mut self, address: u64) -> bool {
        matches!(self.map.find(address), Some(Entry { code: Code::Function(_), .. }))
    }

    /// `tick,PC,TIME,IS_EXTERNAL_CALLBACK,TOS_OR_CALLBACK,VM_STATE,FRAME…`: a sample of the stack
    /// its addresses resolve to, as `TickProcessor.processTick` and `Profile.recordTick` resolve
    /// them.
    fn tick(&mut self, record: &Record<'_, '_>, sink: &mut StackSink) -> Result<(), ParseError> {
        let mut pc = record.address(0, "the program counter")?;
        let mut top = record.address(3, "the top of the stack")?;
        if record.number(2, "whether the tick is in an external callback (0 or 1)")? != 0 {
            // The program counter may be anywhere in the callback: the callback is the frame.
            (pc, top) = (top, 0);
        } else if top != 0 && !self.in_function(top) {
            top = 0;
        }
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        self.resolve(pc, true, &mut frames, sink);
        if top != 0 {
            self.resolve(top, false, &mut frames, sink);
        }
        let mut previous = pc;
        for (index, field) in record.fields.iter().enumerate().skip(5) {
            let address = match field.as_bytes().first() {
                Some(b'+') => previous.wrapping_add(record.parse_address(&field[1..], index, "a frame's offset")?),
                Some(b'-') => previous.wrapping_sub(record.parse_address(&field[1..], index, "a frame's offset")?),
                // `overflow`: the stack was deeper than the tick holds.
                Some(b'o') => continue,
                _ => record.parse_address(field, index, "a frame's address")?,
            };
            previous = address;
            self.resolve(address, false, &mut frames, sink);
        }
        sink.add(Order::LeafFirst, frames.iter().copied(), 0, 1);
        self.frames = frames;
        Ok(())
    }

    /// Pushes the frame of `address` onto `frames`: its code's, none for a bytecode handler, and
    /// for an address no code holds `UNKNOWN` where it is the program counter, else none.
    fn resolve(&mut self, address: u64, is_pc: bool, frames: &mut Vec<FrameId>, sink: &mut StackSink) {
        let (unknown, functions) = (&mut self.unknown, &mut self.functions);
        let frame = match self.map.find(address).map(|entry| &mut entry.code) {
            Some(Code::Library(frame)) => Some(*frame),
            Some(Code::Function(index) | Code::SharedInfo(index)) => {
                let function = &mut functions[*index];
                Some(*function.frame.get_or_insert_with(|| function_frame(&function.name, sink)))
            }
            Some(Code::Other { name, frame }) => match name.starts_with("BytecodeHandler: ") {
                true => None,
                false => Some(*frame.get_or_insert_with(|| sink.frame(FrameRef::function(name)))),
            },
            None if is_pc => Some(*unknown.get_or_insert_with(|| {
                sink.frame(FrameRef { kind: FrameKind::Pseudo, ..FrameRef::function("UNKNOWN") })
            })),
            None => None,
        };
        frames.extend(frame);
    }
}

/// The frame of a JavaScript function logged as `name`: `NAME FILE:LINE:COLUMN`, the location
/// after the last space (a function of no name has nothing before it); a name without a
/// location is the function's whole name.
fn function_frame(name: &str, sink: &mut StackSink) -> FrameId {
    let (function, location) = match name.rfind(' ') {
        Some(space) => (&name[..space], &name[space + 1..]),
        None => (name, ""),
    };
    let (file, line, column) = location_parts(location);
    let source = SourceFrame { name: function, file, line, column };
    match file {
        Some(_) => source.intern(sink.profile(), Anonymous::ByLineAndColumn),
        None => sink.frame(FrameRef::function(name)),
    }
}

/// The file, line and column of a location, `FILE:LINE:COLUMN` or `FILE:LINE` (a file's name may
/// hold colons, `node:internal/main:1:1`); no file where it names no line.
fn location_parts(location: &str) -> (Option<&str>, Option<u64>, Option<u64>) {
    let number = |text: &str| text.parse::<u64>().ok();
    let Some((rest, last)) = location.rsplit_once(':').filter(|(_, last)| number(last).is_some()) else {
        return (None, None, None);
    };
    match rest.rsplit_once(':').filter(|(_, line)| number(line).is_some()) {
        Some((file, line)) => (Some(file), number(line), number(last)),
        None => (Some(rest), number(last), None),
    }
}

/// A record's fields after its kind, unescaped, with the line they are of.
struct Record<'l, 't> {
    line: &'l Line<'t>,
    fields: Vec<Cow<'t, str>>,
}

impl Record<'_, '_> {
    /// Field `index`, or nothing where the record has fewer fields.
    fn text(&self, index: usize) -> &str {
        self.fields.get(index).map_or("", |field| field)
    }

    /// Field `index`, an address or size: hexadecimal after `0x`, else decimal.
    fn address(&self, index: usize, what: &'static str) -> Result<u64, ParseError> {
        self.parse_address(self.text(index), index, what)
    }

    /// `text`, field `index`, as an address ([`Record::address`]).
    fn parse_address(&self, text: &str, index: usize, what: &'static str) -> Result<u64, ParseError> {
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => text.parse().ok(),
        };
        parsed.ok_or_else(|| self.error(index, what))
    }

    /// Field `index`, a decimal number.
    fn number(&self, index: usize, what: &'static str) -> Result<u64, ParseError> {
        self.text(index).parse().map_err(|_| self.error(index, what))
    }

    /// The error of field `index` where `what` should be.
    fn error(&self, index: usize, what: &'static str) -> ParseError {
        let found = match self.fields.get(index) {
            Some(field) => format!("`{field}` (field {} of the record)", index + 2),
            None => format!("the end of the record after {} fields", self.fields.len() + 1),
        };
        self.line.unexpected(what, found)
    }
}

/// The fields of `rest`, the record after its kind: split at commas, unescaped; a field that opens
/// with a quote (a log of V8 before 7) runs to the field that closes it, without the quotes.
fn fields(rest: &str) -> Vec<Cow<'_, str>> {
    let mut fields = Vec::new();
    let mut parts = rest.split(',');
    while let Some(part) = parts.next() {
        let Some(quoted) = part.strip_prefix('"') else {
            fields.push(unescape(part));
            continue;
        };
        let mut field = quoted.to_string();
        while !field.ends_with('"') {
            let Some(next) = parts.next() else { break };
            field.push(',');
            field.push_str(next);
        }
        if field.ends_with('"') {
            field.pop();
        }
        fields.push(Cow::Owned(unescape(&field).into_owned()));
    }
    fields
}

/// `field` with V8's log escapes made characters (`csvparser.mjs`): `\n`, `\\`, `\xHH` and
/// `\uHHHH` (UTF-16, surrogate pairs joined); an escape cut short is kept as written.
fn unescape(field: &str) -> Cow<'_, str> {
    if !field.contains('\\') {
        return Cow::Borrowed(field);
    }
    let mut units: Vec<u16> = Vec::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        units.extend(rest[..at].encode_utf16());
        let escape = &rest[at + 1..];
        let hex = |digits: usize| escape.get(1..=digits).and_then(|hex| u16::from_str_radix(hex, 16).ok());
        let (unit, used) = match escape.as_bytes().first() {
            Some(b'n') => (Some(u16::from(b'\n')), 1),
            Some(b'\\') => (Some(u16::from(b'\\')), 1),
            Some(b'x') => (hex(2), 3),
            Some(b'u') => (hex(4), 5),
            _ => (None, 0),
        };
        match unit {
            Some(unit) => {
                units.push(unit);
                rest = &escape[used..];
            }
            None => {
                units.push(u16::from(b'\\'));
                rest = escape;
            }
        }
    }
    units.extend(rest.encode_utf16());
    Cow::Owned(String::from_utf16_lossy(&units))
}

/// A header fact's value: `v8-version,11,3,244,8,-node.38,0` as `11.3.244.8-node.38`, and the
/// platform's fields joined.
fn version(kind: &str, fields: &[Cow<'_, str>]) -> String {
    match (kind, fields) {
        ("v8-version", [major, minor, build, patch, rest @ ..]) => {
            let embedder = rest.first().map_or("", |embedder| embedder);
            format!("{major}.{minor}.{build}.{patch}{embedder}")
        }
        _ => fields.join(","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;

    #[test]
    fn fields_are_unescaped_as_the_tick_processor_unescapes_them() {
        assert_eq!(fields(r"a\x2Cb,c"), ["a,b", "c"]);
        assert_eq!(fields(r"\u00e9\n\\"), ["é\n\\"]);
        assert_eq!(fields(r"\ud83d\ude00"), ["😀"]);
        assert_eq!(fields(r#""a,b",0x1,"""#), ["a,b", "0x1", ""]);
        assert_eq!(fields(r"tail\x2"), [r"tail\x2"]);
    }

    #[test]
    fn locations_hold_colons_in_their_files() {
        assert_eq!(location_parts("node:internal/main:12:3"), (Some("node:internal/main"), Some(12), Some(3)));
        assert_eq!(location_parts("/w.js:1"), (Some("/w.js"), Some(1), None));
        assert_eq!(location_parts("native"), (None, None, None));
    }

    #[test]
    fn pages_are_javascript_int32s() {
        assert_eq!(page(0x7f06_d8bf_e123), 0xf06d_8bfe);
        assert_eq!(page(0x1000), 1);
    }

    /// Libraries' pages are those the tick processor's step by step marking gives, each page
    /// marked: a start not at a page's start whose steps pass the end's page, a run across the
    /// wrap of page numbers, runs that touch and overlap, an end before the start.
    #[test]
    fn library_pages_are_the_pages_marked_step_by_step() {
        let libraries = [
            (0x1fff, 0x2000),
            (0x5000, 0x7fff),
            (0x8000, 0x9000),
            (0x6000, 0x6100),
            (0xfff_ffff_e000, 0x1000_0000_1000),
            (0x30000, 0x20000),
        ];
        let mut ranges = PageRanges::default();
        let mut marked = FxHashSet::default();
        for (start, end) in libraries {
            ranges.mark(start, end);
            let mut address: u64 = start;
            while address <= end {
                marked.insert(page(address));
                address += 1 << PAGE_BITS;
            }
        }
        let probes = (0..64).chain([u32::MAX - 2, u32::MAX - 1, u32::MAX]).chain(0x1_0000..0x1_0004);
        for probe in probes {
            assert_eq!(ranges.contains(probe), marked.contains(&probe), "page {probe:#x}");
        }
        // Pages 1; 5 to 7, 6, 8 and 9; 0xffff_fffe to 1 across the wrap: three runs.
        assert_eq!(ranges.runs, [(0, 1), (5, 9), (0xffff_fffe, u32::MAX)]);
    }

    #[test]
    fn logs_are_told_by_their_first_record() {
        assert_eq!(sniff(b"v8-version,11,3,244,8,-node.38,0\n"), Sniff::Yes);
        assert_eq!(sniff(b"shared-library,\"/usr/local/bin/node\",0x1,0x2,0\n"), Sniff::Yes);
        assert_eq!(sniff(b"main;f 3\n"), Sniff::No);
    }
}
