//! Java's legacy profiles, as `go tool pprof` reads them (its `profile/legacy_java_profile.go`):
//! a Java agent's heap profile (`--- heapz 1 ---`) and contention profile (`--- contentionz 1 ---`
//! with `format = java`) in text, and the locations after a Java CPU profile's records (the module
//! documentation of [`super`]).
//!
//! ```text
//! --- contentionz 1 ---
//! format = java
//! resolution = microseconds
//! sampling period = 100
//!           120     3 @ 0x00000001 0x00000002
//!
//!  0x00000001 com.example.Store.lock (Store.java:31)
//!  0x00000002 com.example.Main.main (Main.java:12)
//! ```

use super::text::{contention_metrics, hex_addresses, numbered_lines, HeapHeader};
use super::{Sample, Symbols, FORMAT};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::kit::sink::{Missing, StackSink};
use crate::formats::shared::time_unit;
use crate::model::{Metric, Profile, Unit};
use rustc_hash::FxHashMap;

/// The first line of a Java heap profile and of a Java contention profile.
const HEADERS: [&str; 2] = ["--- heapz 1 ---", "--- contentionz 1 ---"];

/// The mean bytes between the samples of the Java agent's heap profile (pprof's
/// `javaHeapzSamplingRate`): its file does not say it.
const HEAP_RATE: u64 = 524_288;

/// Whether `head` starts with a Java heap or contention profile's first line.
pub(super) fn is_first_line(head: &[u8]) -> bool {
    let text = crate::text::utf8_start(head);
    text.lines().next().is_some_and(|line| HEADERS.contains(&line.trim()))
}

/// Whether `text` is a Java heap or contention profile: its first line one of theirs, and a
/// `format = java` among the settings after it (gperftools' `--- contentionz` has none).
pub(super) fn is_java(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    lines.next().is_some_and(|first| HEADERS.contains(&first))
        && lines.map_while(setting).any(|(key, value)| key == "format" && value == "java")
}

/// A `key = value` setting line, where `line` is one (as pprof's `([\w ]+)=([\w ]+)` takes it).
fn setting(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    let word = |text: &str| !text.trim().is_empty() && text.chars().all(|c| c == ' ' || c == '_' || c.is_alphanumeric());
    (word(key) && word(value)).then(|| (key.trim(), value.trim()))
}

/// Which Java profile, and what its settings said.
enum Kind {
    /// Bytes and objects in use, sampled at the agent's rate ([`HEAP_RATE`]).
    Heap(HeapHeader),
    /// Delays (in the unit `resolution` names, times `per`) and contentions, each recorded one in
    /// `sampling period`.
    Contention { unit: (Unit, i64), period: i64 },
}

/// Reads a Java heap or contention profile ([`is_java`]): its settings, a line per stack
/// `VALUE COUNT @ 0x… 0x…`, then the locations.
pub(super) fn read(text: &str, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let lines: Vec<(Position, &str)> = numbered_lines(text).collect();
    let heap = lines.first().is_some_and(|(_, first)| *first == HEADERS[0]);
    let mut kind = match heap {
        true => Kind::Heap(HeapHeader::in_use_sampled(HEAP_RATE)),
        false => Kind::Contention { unit: (Unit::Microseconds, 1), period: 1 },
    };
    let mut rest = lines.iter().skip(1).peekable();
    while let Some(&&(position, line)) = rest.peek() {
        let Some((key, value)) = setting(line) else { break };
        kind.set(key, value).map_err(|expected| unexpected(position, expected, line))?;
        rest.next();
    }
    let mut samples = Vec::new();
    while let Some(&&(position, line)) = rest.peek() {
        let Some((numbers, addresses)) = line.split_once(" @ ") else { break };
        samples.push(kind.sample(numbers, addresses).map_err(|expected| unexpected(position, expected, line))?);
        rest.next();
    }
    let symbols = locations(rest.map(|&(_, line)| line));
    let mut sink = StackSink::new(FORMAT, kind.metrics());
    super::add_samples(&mut sink, &samples, &super::MemoryMap::default(), &symbols);
    sink.finish(Some(Missing { expected: "a stack's line", found: "only the settings" }), diag)
}

impl Kind {
    /// Takes a setting, as pprof's `parseJavaHeader` takes it, or says what it should have been.
    fn set(&mut self, key: &str, value: &str) -> Result<(), &'static str> {
        match (self, key) {
            (_, "format") if value == "java" => Ok(()),
            (_, "format") => Err("`format = java`"),
            (Kind::Heap(_), "resolution") => (value == "bytes").then_some(()).ok_or("`resolution = bytes`"),
            (Kind::Contention { unit, .. }, "resolution") => {
                *unit = time_unit(value).ok_or("a `resolution` of nanoseconds, microseconds, milliseconds or seconds")?;
                Ok(())
            }
            (Kind::Contention { period, .. }, "sampling period") => {
                *period = value.parse().map_err(|_| "a `sampling period` that is a whole number")?;
                Ok(())
            }
            (Kind::Contention { .. }, "ms since reset") => {
                value.parse::<i64>().map(|_| ()).map_err(|_| "an `ms since reset` that is a whole number")
            }
            (Kind::Heap(_), _) => Err("a setting `format` or `resolution`"),
            (Kind::Contention { .. }, _) => {
                Err("a setting `format`, `resolution`, `sampling period` or `ms since reset`")
            }
        }
    }

    /// The metrics, pprof's default first: `inuse_space` and `inuse_objects`, or `delay` and
    /// `contentions`.
    fn metrics(&self) -> Vec<Metric> {
        match self {
            Kind::Heap(header) => header.metrics(),
            Kind::Contention { unit: (unit, _), period } => {
                contention_metrics(*unit, u64::try_from(*period).unwrap_or(1).max(1))
            }
        }
    }

    /// A stack's line, its numbers (the value first, then the count) and addresses apart: its
    /// weights in the order of [`Kind::metrics`], as pprof scales them.
    fn sample(&self, numbers: &str, addresses: &str) -> Result<Sample, &'static str> {
        const EXPECTED: &str = "a stack's line `VALUE COUNT @ 0x… 0x…`";
        let mut numbers = numbers.split_whitespace().map(|n| n.parse::<i64>().ok().filter(|&n| n >= 0));
        let (Some(Some(value)), Some(Some(count)), None) = (numbers.next(), numbers.next(), numbers.next()) else {
            return Err(EXPECTED);
        };
        let addresses = hex_addresses(addresses)?;
        let weights = match *self {
            Kind::Heap(_) if count == 0 => return Err("a count of objects above 0"),
            Kind::Heap(_) if value == 0 => vec![0, 0],
            Kind::Heap(ref header) => header.estimate(count, value)?.to_vec(),
            Kind::Contention { unit: (_, per), period } => {
                let period = if period == 0 { 1 } else { period };
                vec![value.saturating_mul(period).saturating_mul(per), count.saturating_mul(period)]
            }
        };
        Ok(Sample { addresses, weights })
    }
}

/// The locations after a Java profile's stacks, as pprof's `parseJavaLocations` reads them: a line
/// ` 0xADDR FUNCTION (FILE:LINE)`, `FUNCTION (PATH)` (a native library: its file's name),
/// `… generated stub/JIT …` (the function `STUB`) or the function alone (the agent's `GC`, `VM`);
/// other lines passed over. A function keeps the file it is first named with.
pub(super) fn locations<'a>(lines: impl Iterator<Item = &'a str>) -> Symbols {
    let mut symbols = Symbols::default();
    let mut files: FxHashMap<String, String> = FxHashMap::default();
    for line in lines.map(str::trim) {
        let Some((address, rest)) = line.strip_prefix("0x").and_then(|l| l.split_once(char::is_whitespace)) else {
            continue;
        };
        let Ok(address) = u64::from_str_radix(address, 16) else { continue };
        let rest = rest.trim();
        let call = rest.strip_suffix(')').and_then(|r| r.rsplit_once('('));
        let (function, file, number) = match call.filter(|(function, _)| function.ends_with(char::is_whitespace)) {
            Some((function, place)) => match place.rsplit_once(':').filter(|(_, n)| n.parse::<i64>().is_ok()) {
                Some((file, number)) => (function.trim_end(), file, number.parse::<u32>().ok().filter(|&n| n > 0)),
                None => (function.trim_end(), place.rsplit('/').next().unwrap_or(place), None),
            },
            None if rest.contains("generated stub/JIT") => ("STUB", "", None),
            None => (rest, "", None),
        };
        let file = files.entry(function.to_string()).or_insert_with(|| file.to_string());
        symbols.functions.insert(address, vec![(function.to_string(), file.clone(), number)]);
    }
    symbols
}

/// The error at `position` of finding `line` where `expected` should have come.
fn unexpected(position: Position, expected: &str, line: &str) -> ParseError {
    let kind = ParseErrorKind::Unexpected { expected: expected.into(), found: crate::error::excerpt(line.as_bytes()) };
    ParseError { format: FORMAT, position, kind }
}
