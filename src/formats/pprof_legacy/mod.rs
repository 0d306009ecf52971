//! pprof's legacy profiles, read as `go tool pprof` reads them (its `profile/legacy_profile.go`):
//! gperftools' CPU profile, binary, and in text heap profiles (gperftools' heap profiler, tcmalloc's
//! sampler, Go before 1.8), contention profiles (gperftools', Go's mutex and block profiles) and
//! Go's count profiles (goroutines, threads created), and thread profiles (read only).
//!
//! **CPU profile** (`CPUPROFILE=out.prof`, `ProfilerStart`; gperftools' `docs/cpuprofile-fileformat.html`):
//! words of the machine's size and byte order (32 or 64 bits; a reader tells them by the header),
//! a header `0 3 0 PERIOD 0` (PERIOD the sampling period in microseconds), then a record per
//! distinct stack: its count, its depth and that many addresses, the leaf first; the trailer
//! `0 1 0`; then the process's memory map as `/proc/self/maps` text. A Java agent's CPU profile has
//! a third header word of 1, and its locations after the trailer (below).
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
//! **Contention profile** (`--- contentionz 1 ---`, Go's `--- mutex:` and `--- contention:`):
//! settings `cycles/second = N`, `sampling period = N` (`ms since reset`, `discarded samples`), then a
//! line per stack `CYCLES COUNT @ 0x… 0x…`. **Java profiles** (a Java agent's, as pprof's
//! `legacy_java_profile.go` reads them): `--- heapz 1 ---` or `--- contentionz 1 ---`, settings
//! `format = java`, `resolution = bytes` (or a unit of time), `sampling period = N`, `ms since
//! reset = N`; a line per stack `VALUE COUNT @ 0x… 0x…` (the value first: bytes, or the delay);
//! then, as after a Java CPU profile's trailer, a line per location
//! ` 0x3 com.example.Cart.add (Cart.java:42)`: `FUNCTION (FILE:LINE)`, `FUNCTION (PATH)` (a
//! native library), `… generated stub/JIT …` or the function alone (`GC`, `VM`). **Count profile** (Go's `goroutine profile: total 5`,
//! `threadcreate profile: total 7`): a line per stack `N @ 0x… 0x…`. Go writes each stack's
//! addresses' functions after it on `#` lines (`#\t0x4b3fba\tmain.park+0x1a\t/x/main.go:31`), which
//! pprof passes over. **Thread profile** (`--- threadz 1 ---`): a thread's `--- Thread ID (name:
//! NAME/TID) stack: ---` line, then lines whose every `0x…` is an address of its stack, the leaf
//! first (`PC:  0x401a2c: spin`, then the callers, then `creator:` addresses), or `[same as
//! previous thread]`; `---- no stack trace for …` ends them.
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
//! A contention profile's are `delay` (nanoseconds: cycles at the clock's rate, pprof's default)
//! and `contentions`, each times the sampling period; a count profile's, its count (`goroutine`);
//! a thread profile's, `thread`: a sample per thread (as pprof: one the same as the thread before,
//! or of no address, counts once more for that one).
//! An address that Go's `#` lines name is the functions they name (innermost first, their files as
//! modules), so Go's text profiles read with their names. A Java profile's addresses are as they
//! are written (they number locations), each its location: its function at its line where above 0
//! (a line frame), its file (a native library's file name, no path) as module, `STUB` for a
//! generated stub, a function keeping the file it is first named with; a Java heap profile's
//! `inuse_space` and `inuse_objects` are estimated at the agent's rate, 512 KiB (its file does not
//! say it), a contention profile's `delay` (in its resolution) and `contentions` are times its
//! sampling period, a CPU profile's `samples` at its period (no frame dropped: pprof cleans up only
//! C++ profiles).
//!
//! **Lost**: names where the file holds only addresses (proftool reads no ELF or DWARF; `go tool
//! pprof` with the program beside the file names them), the functions' offsets and lines on Go's
//! `#` lines, mappings' offsets and the non-executable ones, each heap line's block size (its bytes
//! over its objects), threads' names and ids.

mod cpu;
mod java;
mod text;

use super::json::read_all;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::formats::kit::sink::{Order, StackSink};
use crate::model::{FrameId, FrameKind, FrameRef, MetricKind, Profile};
use rustc_hash::FxHashMap;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "pprof-legacy",
    description: "pprof's legacy profiles: gperftools' CPU profile (binary), heap and contention profiles in text (gperftools, tcmalloc, Go's `debug=1`), Go's goroutine counts, thread profiles, Java agents' heapz, contentionz and CPU profiles, as `go tool pprof` reads them",
    extensions: &["cpu", "heap", "contention", "goroutine", "threadcreate", "thread"],
    carries: Carries::STACKS_OF_SAMPLES
        .weighing(&[MetricKind::Samples, MetricKind::Alloc, MetricKind::Objects, MetricKind::Time, MetricKind::Events])
        .with_modules()
        .with_interval(),
    reads: Some(Reads::binary(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The lines after which a profile's memory map starts.
const MAP_STARTS: [&str; 2] = ["--- Memory map: ---", "MAPPED_LIBRARIES:"];

/// `Yes` for a CPU profile's header in any word size and byte order, or the first line of a
/// profile in text.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(cpu::Words::of_header(head).is_some() || text::is_first_line(head) || java::is_first_line(head))
}

/// Reads a CPU profile or a profile in text (see the module documentation).
fn read(input: &mut (dyn std::io::Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = read_all(input, FORMAT)?;
    match cpu::Words::of_header(&bytes) {
        Some(header) => cpu::read(&bytes, header, diag),
        None => {
            let text = text::utf8(&bytes)?;
            match java::is_java(text) {
                true => java::read(text, diag),
                false => text::read(text, diag),
            }
        }
    }
}

/// A stack of addresses, leaf first, with its weights.
struct Sample {
    addresses: Vec<u64>,
    weights: Vec<i64>,
}

/// The addresses of a stack as pprof places them: each caller's return address less 1, the call
/// itself; the leaf as it is where `leaf_too` is false.
fn call_sites(mut addresses: Vec<u64>, leaf_too: bool) -> Vec<u64> {
    let skip = usize::from(!leaf_too);
    addresses.iter_mut().skip(skip).for_each(|a| *a = a.wrapping_sub(1));
    addresses
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

/// An executable mapping of a `/proc/self/maps` line, or of the brief `START-END: FILE` line a
/// thread profile's map has (each of whose mappings pprof takes as code): its start, end and file.
fn mapping(line: &str) -> Option<(u64, u64, String)> {
    let mut fields = line.split_whitespace();
    let range = fields.next()?;
    if let Some((start, end)) = range.strip_suffix(':').and_then(|range| range.split_once('-')) {
        let file = fields.next().unwrap_or("").to_string();
        return Some((u64::from_str_radix(start, 16).ok()?, u64::from_str_radix(end, 16).ok()?, file));
    }
    let (start, end) = range.split_once('-')?;
    let permissions = fields.next()?;
    if !permissions.contains('x') {
        return None;
    }
    let file = fields.nth(3).unwrap_or("").to_string();
    Some((u64::from_str_radix(start, 16).ok()?, u64::from_str_radix(end, 16).ok()?, file))
}

/// What a profile says of its addresses: the functions at each (and the functions inlined into
/// it, innermost first), each with its file and line where it says them (Go's `#` lines, a Java
/// profile's locations).
#[derive(Default)]
struct Symbols {
    functions: FxHashMap<u64, Vec<(String, String, Option<u32>)>>,
}

impl Symbols {
    /// Takes a `#` line of Go's text profiles (without its `#`),
    /// `#\t0x4b3fba\tmain.park+0x1a\t/x/main.go:31`: the function and its file (a line each for
    /// those inlined); a line of another form is passed over, as pprof passes over every comment.
    fn note(&mut self, comment: &str) {
        let mut fields = comment.split_whitespace();
        let (Some(address), Some(function), Some(place)) = (fields.next(), fields.next(), fields.next()) else {
            return;
        };
        let Some(address) = address.strip_prefix("0x").and_then(|a| u64::from_str_radix(a, 16).ok()) else { return };
        let function = function.rsplit_once("+0x").map_or(function, |(name, _)| name);
        let file = place.rsplit_once(':').map_or(place, |(file, _)| file);
        let named = self.functions.entry(address).or_default();
        if !named.iter().any(|(f, _, _)| f == function) {
            named.push((function.to_string(), file.to_string(), None));
        }
    }
}

/// Adds each sample's stack to `sink`: an address's frames are the functions `symbols` name at it,
/// innermost first, with their files, else one frame named by the address, its mapping's file as
/// its module.
fn add_samples(sink: &mut StackSink, samples: &[Sample], map: &MemoryMap, symbols: &Symbols) {
    let mut frames: FxHashMap<u64, Vec<FrameId>> = FxHashMap::default();
    let (mut stack, mut weights) = (Vec::new(), Vec::new());
    for sample in samples {
        stack.clear();
        for &address in &sample.addresses {
            let at = frames.entry(address).or_insert_with(|| match symbols.functions.get(&address) {
                Some(functions) => functions
                    .iter()
                    .map(|(function, file, line)| {
                        let module = Some(file.as_str()).filter(|file| !file.is_empty());
                        let kind = if line.is_some() { FrameKind::Line } else { FrameKind::Function };
                        sink.frame(FrameRef { module, line: *line, kind, ..FrameRef::function(function) })
                    })
                    .collect(),
                None => {
                    let name = format!("{address:#x}");
                    vec![sink.frame(FrameRef { module: map.file(address), ..FrameRef::function(&name) })]
                }
            });
            stack.extend_from_slice(at);
        }
        weights.clear();
        weights.extend(sample.weights.iter().copied().enumerate());
        sink.add_weights(Order::LeafFirst, stack.iter().copied(), &weights);
    }
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
