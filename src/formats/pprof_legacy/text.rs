//! pprof's legacy profiles in text: heap profiles, contention profiles and Go's count profiles
//! (goroutines, threads created), a line per stack, `#` lines that name its addresses (Go's
//! `debug=1`), the memory map (the module documentation of [`super`]).

use super::{call_sites, error, MemoryMap, Sample, Symbols, FORMAT, MAP_STARTS};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::kit::sink::StackSink;
use crate::model::{Metric, MetricKind, Profile, Repr, Sampling, Unit};

/// The first line of a heap profile.
pub(super) const HEAP_HEADER: &str = "heap profile:";

/// The first lines of a contention profile: gperftools', Go's mutex and block profiles.
const CONTENTION_HEADERS: [&str; 3] = ["--- contentionz ", "--- mutex:", "--- contention:"];

/// Whether `head` starts with the first line of a profile in text.
pub(super) fn is_first_line(head: &[u8]) -> bool {
    let text = crate::text::utf8_start(head);
    text.lines().next().is_some_and(|line| Kind::of(line.trim()).is_some())
}

/// `bytes` as the text of a profile, or the error at the first byte that is not UTF-8.
pub(super) fn utf8(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| ParseError {
        format: FORMAT,
        position: Position::byte(e.valid_up_to() as u64),
        kind: crate::error::not_utf8(bytes),
    })
}

/// Reads a profile in text: its first line tells which, a line per stack follows, then the
/// memory map. A profile of no stack is empty, as `go tool pprof` reads it: Go writes its mutex and
/// block profiles so (the header alone) where the program does not switch them on.
pub(super) fn read(text: &str, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut lines = numbered_lines(text);
    let Some((_, first)) = lines.next() else { return Err(error(0, "a profile's first line", "nothing".into())) };
    let mut kind = Kind::of(first).ok_or_else(|| {
        let expected =
            "a CPU profile's header, `heap profile: …`, `--- mutex:`, `--- contention:` or `NAME profile: total N`";
        error(0, expected, crate::error::excerpt(first.as_bytes()))
    })?;
    let (mut samples, mut symbols, mut map) = (Vec::new(), Symbols::default(), MemoryMap::default());
    let mut stacks_ended = false;
    while let Some((position, line)) = lines.next() {
        if MAP_STARTS.iter().any(|start| line.contains(start)) {
            map = MemoryMap::of_lines(lines.by_ref().map(|(_, line)| line));
            break;
        }
        if let Some(comment) = line.strip_prefix('#') {
            symbols.note(comment);
            continue;
        }
        if let Kind::Threads(threads) = &mut kind {
            threads.line(line, &mut samples).map_err(|expected| {
                let kind = ParseErrorKind::Unexpected {
                    expected: expected.into(),
                    found: crate::error::excerpt(line.as_bytes()),
                };
                ParseError { format: FORMAT, position, kind }
            })?;
            continue;
        }
        // A contention or count profile's stacks end at a section line; pprof reads on to the map.
        stacks_ended |= line.starts_with("---") && !matches!(kind, Kind::Heap(_));
        if stacks_ended {
            continue;
        }
        let sample = match &mut kind {
            Kind::Contention(contention) if samples.is_empty() && line.contains('=') => {
                contention.set(line).map(|()| None)
            }
            _ => kind.sample(line).map(Some),
        };
        let sample = sample.map_err(|expected| {
            let kind =
                ParseErrorKind::Unexpected { expected: expected.into(), found: crate::error::excerpt(line.as_bytes()) };
            ParseError { format: FORMAT, position, kind }
        })?;
        samples.extend(sample);
    }
    if let Kind::Threads(threads) = &mut kind {
        threads.close(&mut samples);
    }
    let mut sink = StackSink::new(FORMAT, kind.metrics());
    super::add_samples(&mut sink, &samples, &map, &symbols);
    sink.finish(None, diag)
}

/// The lines of `text` that are not blank, trimmed, each with its place.
pub(super) fn numbered_lines(text: &str) -> impl Iterator<Item = (Position, &str)> {
    let mut offset = 0;
    let lines = text.split_inclusive('\n').enumerate().map(move |(i, line)| {
        offset += line.len();
        (Position::line(i as u64 + 1, (offset - line.len()) as u64), line.trim())
    });
    lines.filter(|(_, line)| !line.is_empty())
}

/// Which profile a text is, told by its first line.
enum Kind {
    Heap(HeapHeader),
    Contention(Contention),
    /// Go's count of goroutines or threads created (`goroutine profile: total 5`), by its name.
    Count(String),
    /// A thread profile (`--- threadz 1 ---`): each thread's stack, a sample.
    Threads(Threads),
}

impl Kind {
    /// The profile whose first line is `line`, where it is one of them.
    fn of(line: &str) -> Option<Kind> {
        if line.starts_with(HEAP_HEADER) {
            return HeapHeader::of(line).map(Kind::Heap);
        }
        if CONTENTION_HEADERS.iter().any(|header| line.starts_with(header)) {
            return Some(Kind::Contention(Contention::default()));
        }
        if is_threadz_header(line) || is_thread_start(line) {
            return Some(Kind::Threads(Threads { open: is_thread_start(line).then(Vec::new), ..Threads::default() }));
        }
        let (name, total) = line.split_once(" profile: total ")?;
        (!name.contains(char::is_whitespace) && crate::text::is_digits(total)).then(|| Kind::Count(name.into()))
    }

    /// Its metrics, the one pprof shows by default first.
    fn metrics(&self) -> Vec<Metric> {
        match self {
            Kind::Heap(header) => header.metrics(),
            Kind::Contention(contention) => contention.metrics(),
            Kind::Count(name) => {
                vec![Metric::new(name, MetricKind::Events, Unit::Count, Repr::Int).sampled(Sampling::Measured)]
            }
            Kind::Threads(_) => {
                vec![Metric::new("thread", MetricKind::Events, Unit::Count, Repr::Int).sampled(Sampling::Measured)]
            }
        }
    }

    /// A stack's line, or what the line should have been.
    fn sample(&self, line: &str) -> Result<Sample, &'static str> {
        match self {
            Kind::Heap(header) => header.sample(line),
            Kind::Contention(contention) => contention.sample(line),
            Kind::Count(_) => {
                let (count, addresses) = line.split_once(" @ ").ok_or("a stack's line `N @ 0x… 0x…`")?;
                let count: u64 = count.trim().parse().map_err(|_| "a count before ` @ `")?;
                let count = i64::try_from(count).map_err(|_| "a count before ` @ `")?;
                Ok(Sample { addresses: addresses_of(addresses)?, weights: vec![count] })
            }
            Kind::Threads(_) => Err("a thread's line"),
        }
    }
}

/// A thread profile's header, `--- threadz N ---`.
fn is_threadz_header(line: &str) -> bool {
    line.strip_prefix("--- threadz ").and_then(|rest| rest.strip_suffix(" ---")).is_some_and(crate::text::is_digits)
}

/// A thread's first line, `--- Thread 7f794ab90940 (name: main/14748) stack: ---`.
fn is_thread_start(line: &str) -> bool {
    let Some((id, rest)) = line.strip_prefix("--- Thread ").and_then(|rest| rest.split_once(" (name: ")) else {
        return false;
    };
    let name = rest.strip_suffix(") stack: ---").and_then(|name| name.rsplit_once('/'));
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()) && name.is_some_and(|(_, tid)| crate::text::is_digits(tid))
}

/// A thread profile being read, as pprof's `parseThread` reads it: the addresses of the thread
/// whose stack is open (every `0x…` of its lines, `creator:` lines too), whether it said it is the
/// same as the thread before, and whether the threads ended (`---- no stack trace for …`).
#[derive(Default)]
struct Threads {
    open: Option<Vec<u64>>,
    same: bool,
    ended: bool,
}

impl Threads {
    /// Takes a line after the header: a thread's first line opens its stack, closing the one
    /// before; lines before the first thread are skipped, as pprof skips them.
    fn line(&mut self, line: &str, samples: &mut Vec<Sample>) -> Result<(), &'static str> {
        if self.ended {
            return Ok(());
        }
        if line.starts_with("---- no stack trace for") || line.starts_with("--- Thread ") {
            self.close(samples);
            self.ended = !line.starts_with("--- Thread ");
            self.open = (!self.ended).then(Vec::new);
            return Ok(());
        }
        let Some(open) = &mut self.open else { return Ok(()) };
        if line.contains("same as previous thread") {
            self.same = true;
        }
        for address in hex_numbers(line) {
            open.push(address.ok_or("addresses of at most 64 bits, `0x…`")?);
        }
        Ok(())
    }

    /// Closes the open thread: a sample of its stack (its leaf as it is, the rest at their calls),
    /// or, where it is the same as the thread before or holds no address, one more of that one.
    fn close(&mut self, samples: &mut Vec<Sample>) {
        let Some(addresses) = self.open.take() else { return };
        if std::mem::take(&mut self.same) || addresses.is_empty() {
            if let Some(last) = samples.last_mut() {
                last.weights[0] += 1;
            }
            return;
        }
        samples.push(Sample { addresses: call_sites(addresses, false), weights: vec![1] });
    }
}

/// Every `0x…` of `line` (lowercase hexadecimal digits, as pprof's pattern takes them), `None`
/// for one past 64 bits.
fn hex_numbers(line: &str) -> impl Iterator<Item = Option<u64>> + '_ {
    line.match_indices("0x").filter_map(move |(at, _)| {
        let digits = &line[at + 2..];
        let end = digits.find(|c: char| !matches!(c, '0'..='9' | 'a'..='f')).unwrap_or(digits.len());
        (end > 0).then(|| u64::from_str_radix(&digits[..end], 16).ok())
    })
}

/// A contention profile's settings, before its stacks.
#[derive(Default)]
struct Contention {
    /// `cycles/second`: the clock its delays are counted in.
    cycles_per_second: Option<u64>,
    /// `sampling period`: one contention in how many was recorded.
    period: Option<u64>,
}

impl Contention {
    /// Takes a `key = value` line before the stacks.
    fn set(&mut self, line: &str) -> Result<(), &'static str> {
        const EXPECTED: &str =
            "a setting `cycles/second`, `sampling period`, `ms since reset` or `discarded samples` = N";
        let (key, value) = line.split_once('=').ok_or(EXPECTED)?;
        let value = value.trim().parse::<u64>().map_err(|_| EXPECTED)?;
        match key.trim() {
            "cycles/second" => self.cycles_per_second = Some(value),
            "sampling period" => self.period = Some(value),
            "ms since reset" | "discarded samples" => {}
            _ => return Err(EXPECTED),
        }
        Ok(())
    }

    /// `delay` (nanoseconds, pprof's default) and `contentions`, each scaled by the sampling period
    /// as pprof scales them.
    fn metrics(&self) -> Vec<Metric> {
        contention_metrics(Unit::Nanoseconds, self.period.filter(|&p| p > 1).unwrap_or(1))
    }

    /// A stack's line `CYCLES COUNT @ 0x… 0x…`: its delay in nanoseconds (cycles at the clock's
    /// rate, where the profile states it) and its contentions, each times the sampling period.
    fn sample(&self, line: &str) -> Result<Sample, &'static str> {
        const EXPECTED: &str = "a stack's line `CYCLES COUNT @ 0x… 0x…`";
        let (numbers, addresses) = line.split_once('@').ok_or(EXPECTED)?;
        // Counts, none negative (a profile's values are of what was recorded).
        let mut numbers = numbers.split_whitespace().map(|n| n.parse::<u64>().ok().and_then(|n| i64::try_from(n).ok()).ok_or(()));
        let (Some(Ok(cycles)), Some(Ok(count)), None) = (numbers.next(), numbers.next(), numbers.next()) else {
            return Err(EXPECTED);
        };
        // As pprof: the period is 1 where the profile states none, and 0 turns the scaling off.
        let period = self.period.map_or(1, |p| p as i64);
        let (delay, count) = match (period, self.cycles_per_second) {
            (0, _) => (cycles, count),
            (_, Some(hz)) if hz > 0 => {
                ((cycles as f64 * period as f64 / (hz as f64 / 1e9)) as i64, count.saturating_mul(period))
            }
            _ => (cycles, count.saturating_mul(period)),
        };
        Ok(Sample { addresses: addresses_of(addresses)?, weights: vec![delay, count] })
    }
}

/// A contention profile's metrics: `delay` (in `unit`, pprof's default) and `contentions`, each
/// recorded one in `per` (gperftools', Go's and a Java agent's).
pub(super) fn contention_metrics(unit: Unit, per: u64) -> Vec<Metric> {
    vec![
        Metric::new("delay", MetricKind::Time, unit, Repr::Int)
            .sampled(Sampling::Sampled { of: Some("contentions".into()), per }),
        Metric::new("contentions", MetricKind::Events, Unit::Count, Repr::Int).sampled(Sampling::Sampled { of: None, per }),
    ]
}

/// The addresses `0x… 0x…` of a stack's line, as pprof places them (each less 1: the call).
fn addresses_of(text: &str) -> Result<Vec<u64>, &'static str> {
    Ok(call_sites(hex_addresses(text)?, true))
}

/// The addresses `0x… 0x…` of a stack's line, as they are written.
pub(super) fn hex_addresses(text: &str) -> Result<Vec<u64>, &'static str> {
    let addresses: Option<Vec<u64>> =
        text.split_whitespace().map(|a| u64::from_str_radix(a.strip_prefix("0x")?, 16).ok()).collect();
    addresses.ok_or("addresses in hexadecimal, `0x…`")
}

/// A heap profile's first line: how its numbers were sampled and whether it counts allocations
/// apart from what is in use.
pub(super) struct HeapHeader {
    /// The mean bytes between samples (`heap_v2/RATE`), where the numbers are of samples.
    rate: Option<u64>,
    /// Whether the lines' allocated numbers differ from those in use somewhere in the profile.
    allocations: bool,
}

impl HeapHeader {
    /// A profile of the bytes and objects in use, sampled every `rate` bytes on average (a Java
    /// agent's heapz, whose rate is not in the file).
    pub(super) fn in_use_sampled(rate: u64) -> HeapHeader {
        HeapHeader { rate: Some(rate), allocations: false }
    }

    /// The header `line`, where it is one.
    fn of(line: &str) -> Option<HeapHeader> {
        let rest = line.strip_prefix(HEAP_HEADER)?;
        let (numbers, kind) = rest.split_once('@')?;
        let [in_use_n, in_use_b, alloc_n, alloc_b] = four_numbers(numbers)?;
        let allocations = (alloc_n != in_use_n && alloc_n != 0) || (alloc_b != in_use_b && alloc_b != 0);
        let (kind, rate) = kind.trim().split_once('/').unwrap_or((kind.trim(), ""));
        let rate = rate.parse::<u64>().ok();
        let rate = match kind {
            "heapz_v2" | "heap_v2" => rate,
            "heap" => rate.map(|r| r / 2),
            "heapprofile" | "growthz" | "growth" | "fragmentationz" | "fragmentation" => None,
            _ => return None,
        };
        Some(HeapHeader { rate: rate.filter(|&r| r > 1), allocations })
    }

    /// The metrics of the profile: in use first (the one it is weighed by), then allocated.
    pub(super) fn metrics(&self) -> Vec<Metric> {
        let sampling = |objects: bool, space: &str| match self.rate {
            Some(per) => Sampling::Sampled { of: objects.then(|| space.to_string()), per },
            None => Sampling::Measured,
        };
        let pair = |objects: &str, space: &str| {
            [
                Metric::new(space, MetricKind::Alloc, Unit::Bytes, Repr::Int).sampled(sampling(false, space)),
                Metric::new(objects, MetricKind::Objects, Unit::Count, Repr::Int).sampled(sampling(true, space)),
            ]
        };
        let mut metrics = pair("inuse_objects", "inuse_space").to_vec();
        if self.allocations {
            metrics.extend(pair("alloc_objects", "alloc_space"));
        }
        metrics
    }

    /// A stack's line, `N: B [ N: B ] @ 0x… 0x…`, as its addresses and its weights in the order
    /// of [`HeapHeader::metrics`], or what the line should have been.
    fn sample(&self, line: &str) -> Result<Sample, &'static str> {
        const EXPECTED: &str = "a stack's line `N: B [ N: B ] @ 0x… 0x…`";
        let (numbers, addresses) = line.split_once('@').ok_or(EXPECTED)?;
        let [in_use_n, in_use_b, alloc_n, alloc_b] = four_numbers(numbers).ok_or(EXPECTED)?;
        let mut weights = self.estimate(in_use_n, in_use_b)?.to_vec();
        if self.allocations {
            weights.extend(self.estimate(alloc_n, alloc_b)?);
        }
        Ok(Sample { addresses: addresses_of(addresses)?, weights })
    }

    /// The bytes and objects of `count` allocations of `bytes` in all, as pprof estimates them
    /// from a sampled profile; refused where there are bytes but no allocation, as pprof refuses it.
    pub(super) fn estimate(&self, count: i64, bytes: i64) -> Result<[i64; 2], &'static str> {
        match (count, bytes, self.rate) {
            (0, 0, _) => Ok([0, 0]),
            (0, _, _) => Err("no bytes where there is no object"),
            (_, 0, _) | (_, _, None) => Ok([bytes, count]),
            (_, _, Some(rate)) => {
                let scale = 1.0 / (1.0 - (-(bytes as f64 / count as f64) / rate as f64).exp());
                Ok([(bytes as f64 * scale) as i64, (count as f64 * scale) as i64])
            }
        }
    }
}

/// The four numbers of `N: B [ N: B ]`.
fn four_numbers(text: &str) -> Option<[i64; 4]> {
    let (in_use, allocated) = text.split_once('[')?;
    let allocated = allocated.trim().strip_suffix(']')?;
    // Counts and bytes, none negative.
    let number = |text: &str| text.trim().parse::<u64>().ok().and_then(|n| i64::try_from(n).ok());
    let pair = |text: &str| -> Option<(i64, i64)> {
        let (n, b) = text.split_once(':')?;
        Some((number(n)?, number(b)?))
    };
    let ((n, b), (an, ab)) = (pair(in_use)?, pair(allocated)?);
    Some([n, b, an, ab])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampled_heap_line_is_estimated_as_pprof_estimates_it() {
        let header = HeapHeader::of("heap profile:   144:  8498176 [   144:  8498176] @ heapz_v2/524288").unwrap();
        assert_eq!((header.rate, header.allocations), (Some(524288), false));
        // pprof's own figures for two lines of its cppbench.heap (`cppbench.heap.string`).
        let sample = header.sample("1:     9216 [     1:     9216] @ 0xc635c8 0x42ecc3").unwrap();
        assert_eq!(sample.weights, [528909, 57]);
        assert_eq!(header.sample("1:      144 [     1:      144] @ 0x1").unwrap().weights, [524360, 3641]);
        assert_eq!(sample.addresses, [0xc635c7, 0x42ecc2]);
    }
}
