//! pprof's legacy profiles, read as `go tool pprof` reads them (its `profile/legacy_profile.go`):
//! gperftools' CPU profile, binary, and heap profiles in text, of gperftools' heap profiler,
//! tcmalloc's sampler and Go before 1.8 (read only).
//!
//! **CPU profile** (`CPUPROFILE=out.prof`, `ProfilerStart`; gperftools' `docs/cpuprofile-fileformat.html`):
//! words of the machine's size and byte order (32 or 64 bits; a reader tells them by the header),
//! a header `0 3 0 PERIOD 0` (PERIOD the sampling period in microseconds; a third word of 1 is a
//! Java profile, which this reader refuses), then a record per distinct stack: its count, its depth
//! and that many addresses, the leaf first; the trailer `0 1 0`; then the process's memory map as
//! `/proc/self/maps` text.
//!
//! **Heap profile** (`HEAPPROFILE=prefix`, `heap_v2` of tcmalloc's sampler, Go's
//! `/debug/pprof/heap?debug=1` before 1.8):
//!
//! ```text
//! heap profile:     20:  2000000 [   120:  2409600] @ heapprofile
//!     20:  2000000 [    20:  2000000] @ 0x55e2599411b4 0x55e25994124a 0x55e259941091
//!      0:        0 [   100:   409600] @ 0x55e2599411b4 0x55e2599411e1 0x55e25994125b
//!
//! MAPPED_LIBRARIES:
//! 55e259941000-55e259942000 r-xp 00001000 00:00 10166471    /tmp/pprof-legacy/work
//! ```
//!
//! The header's totals (objects and bytes in use, then `[` allocated `]`) and its kind: `heapprofile`
//! (every allocation recorded), `heap_v2/RATE` (allocations sampled every RATE bytes on average),
//! `heap/2RATE` (the same at half the number written), `growthz`, `fragmentationz`; a line per stack
//! with the same four numbers and its addresses, the allocating frame first; the memory map after
//! `MAPPED_LIBRARIES:` or `--- Memory map: ---`.
//!
//! **Model**: a frame per address, named by it (`0x55e2599411b3`) with the file of the executable
//! mapping it falls in as its module, as pprof names a location it has not symbolised; addresses
//! are pprof's: return addresses less 1 (the call), a CPU profile's leaf as sampled. The CPU
//! profile's metric is `samples` at its period; as pprof does, a frame that all but one in 32
//! samples share right above the leaf (the signal handler's) is dropped, twice at most, and a leaf
//! written twice (from the signal context and the unwinder) is written once. A heap profile's
//! metrics are `inuse_space` (bytes, the one it is weighed by, as pprof's default), `inuse_objects`,
//! and where the header's allocated totals differ from those in use, `alloc_space` and
//! `alloc_objects`; a sampled profile's (`heap_v2`) are pprof's estimates, each line's numbers
//! divided by the chance of an allocation of its mean size being sampled, `1 − e^(−size/RATE)`.
//!
//! **Lost**: names (the file holds addresses: proftool reads no ELF or DWARF, so functions are not
//! named; `go tool pprof` with the program beside the file names them), mappings' offsets and the
//! non-executable ones, each heap line's block size (its bytes over its objects).

use super::json::read_all;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::kit::sink::{Missing, Order, StackSink};
use crate::model::{FrameId, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use rustc_hash::FxHashMap;
use std::time::Duration;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "pprof-legacy",
    description: "pprof's legacy profiles: gperftools' CPU profile (binary) and heap profiles in text (gperftools, tcmalloc, Go before 1.8), as `go tool pprof` reads them",
    extensions: &["cpu", "heap"],
    carries: Carries {
        metrics: &[MetricKind::Samples, MetricKind::Alloc, MetricKind::Objects],
        one_metric: false,
        modules: true,
        interval: true,
        ..Carries::STACKS_OF_SAMPLES
    },
    reads: Some(Reads::binary(sniff, |input, _, diag| read(input, diag).map_err(Error::from))),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The first line of a heap profile.
const HEAP_HEADER: &str = "heap profile:";

/// The lines after which a profile's memory map starts.
const MAP_STARTS: [&str; 2] = ["--- Memory map: ---", "MAPPED_LIBRARIES:"];

/// `Yes` for a CPU profile's header in any word size and byte order, or a heap profile's first
/// line.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(Words::of_header(head).is_some() || head.starts_with(HEAP_HEADER.as_bytes()))
}

/// Reads a CPU or heap profile (see the module documentation).
fn read(input: &mut (dyn std::io::Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = read_all(input, FORMAT)?;
    match Words::of_header(&bytes) {
        Some((words, period)) => read_cpu(&bytes, words, period, diag),
        None => read_heap(&bytes, diag),
    }
}

/// How a CPU profile writes its words.
#[derive(Clone, Copy)]
struct Words {
    size: usize,
    big_endian: bool,
}

impl Words {
    /// The word form of a CPU profile's header at the start of `bytes` and its period in
    /// microseconds, where the header is one (`0 3 0 PERIOD 0`, PERIOD not 0).
    fn of_header(bytes: &[u8]) -> Option<(Words, u64)> {
        let forms = [(4, false), (4, true), (8, false), (8, true)];
        forms.into_iter().map(|(size, big_endian)| Words { size, big_endian }).find_map(|words| {
            let header: Vec<u64> = (0..5).map(|i| words.at(bytes, i * words.size)).collect::<Option<_>>()?;
            matches!(header[..], [0, 3, 0, period, 0] if period > 0).then_some((words, header[3]))
        })
    }

    /// The word at byte `offset` of `bytes`, if it holds a whole one.
    fn at(self, bytes: &[u8], offset: usize) -> Option<u64> {
        let word = bytes.get(offset..offset.checked_add(self.size)?)?;
        let mut value = 0u64;
        for i in 0..self.size {
            let byte = if self.big_endian { word[i] } else { word[self.size - 1 - i] };
            value = value << 8 | u64::from(byte);
        }
        Some(value)
    }
}

/// A stack of addresses, leaf first, with its weights.
struct Sample {
    addresses: Vec<u64>,
    weights: Vec<i64>,
}

/// Reads a CPU profile's records from byte `5 × word size` of `bytes`, then its memory map.
fn read_cpu(bytes: &[u8], words: Words, period: u64, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut samples = Vec::new();
    let mut at = 5 * words.size;
    let word = |at: usize, what: &str| {
        words.at(bytes, at).ok_or_else(|| cut_short(at, format!("{what} (a {}-byte word)", words.size)))
    };
    let map_start = loop {
        let (count, depth) = (word(at, "a record's count")?, word(at + words.size, "a record's depth")?);
        let first = at + 2 * words.size;
        if (count, depth, words.at(bytes, first)) == (0, 1, Some(0)) {
            break first + words.size;
        }
        if depth > ((bytes.len() - first.min(bytes.len())) / words.size) as u64 {
            return Err(cut_short(bytes.len(), format!("the {depth} addresses of the record at byte {at}")));
        }
        let addresses: Vec<u64> = (0..depth as usize).filter_map(|i| words.at(bytes, first + i * words.size)).collect();
        let count = i64::try_from(count).map_err(|_| error(at, "a sample count below 2^63", count.to_string()))?;
        samples.push(Sample { addresses: call_sites(&addresses, false), weights: vec![count] });
        at = first + depth as usize * words.size;
    };
    drop_signal_frames(&mut samples);
    for sample in &mut samples {
        if let [leaf, caller, ..] = sample.addresses[..] {
            if leaf == caller.wrapping_add(1) {
                sample.addresses.remove(1);
            }
        }
    }
    let map = MemoryMap::of(&String::from_utf8_lossy(&bytes[map_start..]));
    let mut sink = StackSink::new(FORMAT, vec![Metric::samples()]);
    sink.profile().meta.interval = Some(Duration::from_micros(period));
    add_samples(&mut sink, &samples, &map);
    sink.finish(Some(Missing { expected: "a sample record", found: "none before the trailer" }), diag)
}

/// The addresses of a stack as pprof places them: each caller's return address less 1, the call
/// itself; the leaf as it is where `leaf_too` is false.
fn call_sites(addresses: &[u64], leaf_too: bool) -> Vec<u64> {
    let adjust = |(i, &a): (usize, &u64)| if i > 0 || leaf_too { a.wrapping_sub(1) } else { a };
    addresses.iter().enumerate().map(adjust).collect()
}

/// Drops, twice at most, the frame right above the leaf that all but one in 32 samples share: the
/// signal handler's, pushed by the measurement (pprof's `cpuProfile` does the same).
fn drop_signal_frames(samples: &mut [Sample]) {
    let margin = samples.len() / 32;
    for _ in 0..2 {
        let mut above_leaf: FxHashMap<u64, usize> = FxHashMap::default();
        for sample in samples.iter().filter(|s| s.addresses.len() > 1) {
            *above_leaf.entry(sample.addresses[1]).or_default() += 1;
        }
        let Some((&shared, _)) = above_leaf.iter().find(|&(_, &n)| n >= samples.len() - margin) else { return };
        for sample in samples.iter_mut().filter(|s| s.addresses.len() > 1 && s.addresses[1] == shared) {
            sample.addresses.remove(1);
        }
    }
}

/// Reads a heap profile: its header, a line per stack, its memory map.
fn read_heap(bytes: &[u8], diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError {
        format: FORMAT,
        position: Position::byte(e.valid_up_to() as u64),
        kind: crate::error::not_utf8(bytes),
    })?;
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').enumerate().map(|(i, line)| {
        offset += line.len();
        (Position::line(i as u64 + 1, (offset - line.len()) as u64), line.trim())
    });
    let Some((_, first)) = lines.next() else { return Err(error(0, "a heap profile's header", "nothing".into())) };
    let header = HeapHeader::of(first).ok_or_else(|| {
        error(
            0,
            "a CPU profile's header or `heap profile: N: B [ N: B ] @ KIND`",
            crate::error::excerpt(first.as_bytes()),
        )
    })?;
    let mut samples = Vec::new();
    let mut map = MemoryMap::default();
    while let Some((position, line)) = lines.next() {
        if MAP_STARTS.iter().any(|start| line.contains(start)) {
            map = MemoryMap::of_lines(lines.by_ref().map(|(_, line)| line));
            break;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let sample = header.sample(line).map_err(|expected| {
            let kind =
                ParseErrorKind::Unexpected { expected: expected.into(), found: crate::error::excerpt(line.as_bytes()) };
            ParseError { format: FORMAT, position, kind }
        })?;
        samples.push(sample);
    }
    let mut sink = StackSink::new(FORMAT, header.metrics());
    add_samples(&mut sink, &samples, &map);
    sink.finish(Some(Missing { expected: "a stack's line", found: "only the header" }), diag)
}

/// A heap profile's first line: how its numbers were sampled and whether it counts allocations
/// apart from what is in use.
struct HeapHeader {
    /// The mean bytes between samples (`heap_v2/RATE`), where the numbers are of samples.
    rate: Option<u64>,
    /// Whether the lines' allocated numbers differ from those in use somewhere in the profile.
    allocations: bool,
}

impl HeapHeader {
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
    fn metrics(&self) -> Vec<Metric> {
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
        let addresses: Vec<u64> = addresses
            .split_whitespace()
            .map(|a| u64::from_str_radix(a.strip_prefix("0x")?, 16).ok())
            .collect::<Option<_>>()
            .ok_or("addresses in hexadecimal, `0x…`")?;
        Ok(Sample { addresses: call_sites(&addresses, true), weights })
    }

    /// The bytes and objects of `count` allocations of `bytes` in all, as pprof estimates them
    /// from a sampled profile; refused where there are bytes but no allocation, as pprof refuses it.
    fn estimate(&self, count: i64, bytes: i64) -> Result<[i64; 2], &'static str> {
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
    let pair = |text: &str| -> Option<(i64, i64)> {
        let (n, b) = text.split_once(':')?;
        Some((n.trim().parse().ok()?, b.trim().parse().ok()?))
    };
    let ((n, b), (an, ab)) = (pair(in_use)?, pair(allocated)?);
    Some([n, b, an, ab])
}

/// The executable mappings of a process, by start address: where each address's code is from.
#[derive(Default)]
struct MemoryMap {
    mappings: Vec<(u64, u64, String)>,
}

impl MemoryMap {
    /// The map of `/proc/self/maps` text.
    fn of(text: &str) -> MemoryMap {
        MemoryMap::of_lines(text.lines())
    }

    /// The map of `/proc/self/maps` lines (`start-end perms offset dev inode file`); lines of
    /// other forms are passed over, as pprof passes them over.
    fn of_lines<'a>(lines: impl Iterator<Item = &'a str>) -> MemoryMap {
        let mut mappings: Vec<(u64, u64, String)> = lines.filter_map(mapping).collect();
        mappings.sort_by_key(|&(start, _, _)| start);
        MemoryMap { mappings }
    }

    /// The file of the mapping `address` falls in.
    fn file(&self, address: u64) -> Option<&str> {
        let after = self.mappings.partition_point(|&(start, _, _)| start <= address);
        let (_, end, file) = self.mappings.get(after.checked_sub(1)?)?;
        (address < *end && !file.is_empty()).then_some(file.as_str())
    }
}

/// An executable mapping of a `/proc/self/maps` line: its start, end and file.
fn mapping(line: &str) -> Option<(u64, u64, String)> {
    let mut fields = line.split_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let permissions = fields.next()?;
    if !permissions.contains('x') {
        return None;
    }
    let file = fields.nth(3).unwrap_or("").to_string();
    Some((u64::from_str_radix(start, 16).ok()?, u64::from_str_radix(end, 16).ok()?, file))
}

/// Adds each sample's stack, a frame per address, to `sink`.
fn add_samples(sink: &mut StackSink, samples: &[Sample], map: &MemoryMap) {
    let mut frames: FxHashMap<u64, FrameId> = FxHashMap::default();
    let mut stack = Vec::new();
    for sample in samples {
        stack.clear();
        for &address in &sample.addresses {
            let frame = *frames.entry(address).or_insert_with(|| {
                let name = format!("{address:#x}");
                sink.frame(FrameRef { module: map.file(address), ..FrameRef::function(&name) })
            });
            stack.push(frame);
        }
        for (metric, &weight) in sample.weights.iter().enumerate() {
            sink.add(Order::LeafFirst, stack.iter().copied(), metric, weight);
        }
    }
}

/// The error of an input that ends at byte `at` where `expected` should have come.
fn cut_short(at: usize, expected: String) -> ParseError {
    error(at, &expected, "the end of the input: the file looks cut short".into())
}

/// The error at byte `at` of finding `found` where `expected` should have come.
fn error(at: usize, expected: &str, found: String) -> ParseError {
    let kind = ParseErrorKind::Unexpected { expected: expected.into(), found };
    ParseError { format: FORMAT, position: Position::byte(at as u64), kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_header_is_told_in_every_word_form() {
        let header = |size: usize, big: bool| -> Vec<u8> {
            [0u64, 3, 0, 1000, 0]
                .iter()
                .flat_map(|&w| {
                    let bytes = if big { w.to_be_bytes() } else { w.to_le_bytes() };
                    if big {
                        bytes[8 - size..].to_vec()
                    } else {
                        bytes[..size].to_vec()
                    }
                })
                .collect()
        };
        for (size, big) in [(4, false), (4, true), (8, false), (8, true)] {
            let (words, period) = Words::of_header(&header(size, big)).unwrap();
            assert_eq!((words.size, words.big_endian, period), (size, big, 1000));
        }
        assert!(Words::of_header(&[0; 40]).is_none());
    }

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

    #[test]
    fn a_mapping_names_the_addresses_it_holds() {
        let map = MemoryMap::of(
            "5609b9066000-5609b9067000 r--p 00000000 00:00 1    /w\n5609b9067000-5609b9068000 r-xp 00001000 00:00 1    /w\n",
        );
        assert_eq!(
            (map.file(0x5609b9067000), map.file(0x5609b9066fff), map.file(0x5609b9068000)),
            (Some("/w"), None, None)
        );
    }
}
