//! Very Sleepy's captures: the `.sleepy` file its profiler saves (Windows), a zip archive of text
//! entries, as Very Sleepy's own `Database::loadFromPath` and gprof2dot's SleepyParser read it
//! (read only).
//!
//! ```text
//! Symbols.txt     0x401590 "val3" "cycfn2" "C:\src\val3.c" 51
//! Callstacks.txt   0x401590 0x4015f3 0x401203          (0.92: the addresses, the top first,
//!                  5104 2.145 5108 0.031                 then each thread's seconds there)
//! Threads.txt     5104
//!                 Main Thread
//! Stats.txt       Filename: C:\src\val3.exe
//! ```
//!
//! **Grammar**: the entries are found by name, case aside (some versions write them in lower
//! case). `Symbols.txt`: a line per address, its id (`0x…`, or `symN` before format 0.90), then in
//! quotes (`\` escaping the next character) its module, function and source file, and its line.
//! `Callstacks.txt`: before format 0.92 a line per call stack, its seconds and then its addresses'
//! ids, the top of the stack first; from 0.92 two lines per call stack, its addresses, then the
//! seconds each thread spent there as pairs `THREAD SECONDS`. `Threads.txt` (0.92): a thread's id
//! and then its name, a line each. `Stats.txt`: `Filename: PROGRAM` and other facts. Other entries
//! (`IPCounts.txt`, `minidump.dmp`, `Version N required`) are passed over.
//!
//! **Model**: each call stack is a stack weighing its seconds (`time`, in nanoseconds: what the
//! profiler measured between samples), under a root of each thread that spent them, named by
//! `Threads.txt` (`thread N` where it names none), where the format has threads. A frame is a
//! function in its module: addresses of one function are one frame, as Very Sleepy groups them.
//! The title is the program's path.
//!
//! **Errors**: an input that is no zip archive (or one cut short), an archive without
//! `Symbols.txt` or `Callstacks.txt`, an entry that decompresses past `--max-input-size`, a symbol
//! line that is not the grammar's, a call stack of an address `Symbols.txt` does not name or a time
//! that is no number: at the entry's place in the archive, with the entry's line.
//!
//! **Lost**: source files and lines, addresses, the per-address counts of `IPCounts.txt`, the
//! duration, date and count of samples of `Stats.txt`, a minidump.

use super::kit::sink::{Missing, Order, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Unit};
use rustc_hash::FxHashMap;
use std::io::{Cursor, Read};
use zip::ZipArchive;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "sleepy",
    description: "Very Sleepy's captures (`.sleepy`: a zip of its symbols and call stacks, formats 0.7 to 0.92), as Very Sleepy and gprof2dot read them",
    extensions: &["sleepy"],
    carries: Carries::SAMPLES_PER_THREAD.weighing(&[MetricKind::Time]).with_modules().with_title(),
    reads: Some(Reads::binary(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The names of the entries Very Sleepy writes, in lower case: the first entry is one of them.
const ENTRIES: &[&str] = &["stats.txt", "minidump.dmp", "symbols.txt", "ipcounts.txt", "callstacks.txt", "threads.txt"];

/// `Yes` where the input is a zip archive whose first entry is one of Very Sleepy's.
fn sniff(head: &[u8]) -> Sniff {
    let Some(header) = head.get(..30).filter(|header| header.starts_with(b"PK\x03\x04")) else {
        return Sniff::No;
    };
    let length = usize::from(u16::from_le_bytes([header[26], header[27]]));
    let Some(name) = head.get(30..30 + length) else { return Sniff::No };
    let name = String::from_utf8_lossy(name).to_lowercase();
    Sniff::yes_if(ENTRIES.contains(&name.as_str()) || name.starts_with("version "))
}

/// An entry's text and where it is in the archive, for its errors.
struct Entry {
    name: &'static str,
    text: String,
    at: u64,
}

impl Entry {
    /// The error at line `line` (1-based) of the entry.
    fn error(&self, line: usize, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
        error(self.at, format!("{} (in {}, line {line})", expected.into(), self.name), found)
    }
}

/// The error at byte `at` of the archive: `expected`, and what was `found` instead.
fn error(at: u64, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
    let kind = ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() };
    ParseError { format: FORMAT, position: Position::byte(at), kind }
}

/// Reads a capture.
fn read(input: &mut (dyn Read + Send), options: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = super::json::read_all(input, FORMAT)?;
    let size = bytes.len() as u64;
    // An entry is decompressed whole: as much as a compressed input may hold (a deflated entry can
    // grow a thousandfold).
    let limit = match options.max_input_size {
        0 => crate::files::DEFAULT_MAX_INPUT_SIZE,
        given => given,
    };
    let archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        error(size, "a zip archive (Very Sleepy's capture)", format!("{e}: the file is no zip archive or looks cut short"))
    })?;
    let mut archive = Archive { archive, limit };
    let required = |archive: &mut Archive, name: &'static str| {
        archive.entry(name)?.ok_or_else(|| error(0, format!("a `{name}` entry"), "none in the archive"))
    };
    let symbols = required(&mut archive, "Symbols.txt")?;
    let callstacks = required(&mut archive, "Callstacks.txt")?;
    let threads = archive.entry("Threads.txt")?;
    let stats = archive.entry("Stats.txt")?;
    let time = Metric::time(Unit::Nanoseconds, Repr::Int);
    let mut sink = StackSink::new(FORMAT, vec![time]);
    let frames = symbol_frames(&symbols, &mut sink)?;
    let mut reader = Callstacks { frames, threads: thread_names(threads.as_ref()), thread_frames: FxHashMap::default() };
    reader.read(&callstacks, &mut sink)?;
    let program = stats.as_ref().and_then(|stats| stats.text.lines().find_map(|line| line.strip_prefix("Filename: ")));
    sink.profile().meta.title = program.map(str::trim).filter(|program| !program.is_empty() && *program != "?").map(String::from);
    let missing = Missing { expected: "a call stack in `Callstacks.txt`", found: "none in the whole archive" };
    sink.finish(Some(missing), diag)
}

/// The archive, and the most bytes an entry may decompress to.
struct Archive {
    archive: ZipArchive<Cursor<Vec<u8>>>,
    limit: u64,
}

impl Archive {
    /// The text of the entry `name` (case aside), where the archive has it.
    fn entry(&mut self, name: &'static str) -> Result<Option<Entry>, ParseError> {
        let archive = &mut self.archive;
        let Some(index) = (0..archive.len()).find(|&i| archive.name_for_index(i).is_some_and(|n| n.eq_ignore_ascii_case(name)))
        else {
            return Ok(None);
        };
        let file = archive.by_index(index).map_err(|e| error(0, format!("the `{name}` entry"), e.to_string()))?;
        let at = file.header_start();
        let mut bytes = Vec::new();
        file.take(self.limit + 1).read_to_end(&mut bytes).map_err(|e| {
            error(at, format!("the `{name}` entry, whole"), format!("{e}: the archive looks cut short"))
        })?;
        if bytes.len() as u64 > self.limit {
            let expected = format!("a `{name}` entry of at most {} bytes (--max-input-size raises the limit)", self.limit);
            return Err(error(at, expected, "more, decompressed"));
        }
        let text = String::from_utf8(bytes).map_err(|e| error(at, format!("UTF-8 text in `{name}`"), e.to_string()))?;
        Ok(Some(Entry { name, text, at }))
    }
}

/// The frame of each address id `Symbols.txt` names: its function in its module, one frame for
/// all the addresses of a function.
fn symbol_frames(symbols: &Entry, sink: &mut StackSink) -> Result<FxHashMap<String, FrameId>, ParseError> {
    let mut frames = FxHashMap::default();
    for (index, line) in symbols.text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let expected = "a symbol `ID \"MODULE\" \"FUNCTION\" \"FILE\" LINE`";
        let (id, rest) = line.trim_start().split_once(char::is_whitespace).ok_or_else(|| symbols.error(index + 1, expected, line))?;
        let (module, rest) = quoted(rest).ok_or_else(|| symbols.error(index + 1, expected, line))?;
        let (function, _) = quoted(rest).ok_or_else(|| symbols.error(index + 1, expected, line))?;
        let module = Some(module.as_str()).filter(|module| !module.is_empty());
        let frame = sink.frame(FrameRef { module, ..FrameRef::function(&function) });
        frames.entry(id.to_string()).or_insert(frame);
    }
    Ok(frames)
}

/// The string in quotes at the start of `text` (after spaces), a `\` escaping the character after
/// it, and the text after it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let text = text.trim_start().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?.1),
            '"' => return Some((value, &text[at + 1..])),
            c => value.push(c),
        }
    }
    None
}

/// Each thread's name by its id, as `Threads.txt` pairs them.
fn thread_names(threads: Option<&Entry>) -> FxHashMap<String, String> {
    let lines: Vec<&str> = threads.map_or_else(Vec::new, |threads| threads.text.lines().collect());
    lines.chunks(2).filter_map(|pair| Some((pair[0].trim().to_string(), pair.get(1)?.trim().to_string()))).collect()
}

/// The call stacks being read: the frames of the addresses, and the threads' names and frames.
struct Callstacks {
    frames: FxHashMap<String, FrameId>,
    threads: FxHashMap<String, String>,
    thread_frames: FxHashMap<String, FrameId>,
}

impl Callstacks {
    /// Reads `Callstacks.txt` in its format's form: a line of addresses starting with `0x` is the
    /// first of a pair (0.92); any other line a stack of its own.
    fn read(&mut self, callstacks: &Entry, sink: &mut StackSink) -> Result<(), ParseError> {
        let mut lines = callstacks.text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
        let mut stack = Vec::new();
        while let Some((index, line)) = lines.next() {
            let mut words = line.split_whitespace().peekable();
            let per_thread = words.peek().is_some_and(|word| word.starts_with("0x"));
            let seconds = if per_thread { None } else { words.next() };
            stack.clear();
            for id in words {
                let frame = self.frames.get(id).ok_or_else(|| {
                    callstacks.error(index + 1, "an address `Symbols.txt` names", format!("`{id}`"))
                })?;
                stack.push(*frame);
            }
            match seconds {
                Some(seconds) => {
                    let nanos = nanoseconds(seconds).ok_or_else(|| callstacks.error(index + 1, "a time in seconds", format!("`{seconds}`")))?;
                    sink.add(Order::LeafFirst, stack.iter().copied(), 0, nanos);
                }
                None => {
                    let (index, times) = lines.next().ok_or_else(|| {
                        callstacks.error(index + 1, "a line of each thread's seconds after the stack's addresses", "the end of the entry")
                    })?;
                    self.add_per_thread(&stack, times, sink).map_err(|found| callstacks.error(index + 1, "pairs `THREAD SECONDS`", found))?;
                }
            }
        }
        Ok(())
    }

    /// Adds the stack of `stack` under each thread of the pairs `THREAD SECONDS` of `times`; what
    /// is not such a pair, where one is not.
    fn add_per_thread(&mut self, stack: &[FrameId], times: &str, sink: &mut StackSink) -> Result<(), String> {
        let words: Vec<&str> = times.split_whitespace().collect();
        for pair in words.chunks(2) {
            let [thread, seconds] = pair else { return Err(format!("`{}` without its seconds", pair[0])) };
            let nanos = nanoseconds(seconds).ok_or_else(|| format!("`{seconds}`"))?;
            let frame = *self.thread_frames.entry(thread.to_string()).or_insert_with(|| {
                let name = self.threads.get(*thread).filter(|name| !name.is_empty()).cloned();
                let name = name.unwrap_or_else(|| format!("thread {thread}"));
                sink.frame(FrameRef::named(&name, FrameKind::Thread))
            });
            sink.add(Order::LeafFirst, stack.iter().copied().chain([frame]), 0, nanos);
        }
        Ok(())
    }
}

/// `text`, seconds, in whole nanoseconds; `None` for no number or a negative one.
fn nanoseconds(text: &str) -> Option<i64> {
    let seconds: f64 = text.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
    Some((seconds * 1e9).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_escape_with_a_backslash() {
        assert_eq!(quoted(r#" "val3" "main""#), Some(("val3".to_string(), r#" "main""#)));
        assert_eq!(quoted(r#""a \"b\" \\c" rest"#), Some((r#"a "b" \c"#.to_string(), " rest")));
        assert_eq!(quoted(r#""open"#), None);
        assert_eq!(quoted("bare"), None);
        assert_eq!(nanoseconds("0.074062"), Some(74_062_000));
        assert_eq!(nanoseconds("-1"), None);
    }
}
