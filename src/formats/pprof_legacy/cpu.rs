//! gperftools' CPU profile: words, a record per stack, the trailer, the memory map (the module
//! documentation of [`super`]).

use super::{call_sites, error, MemoryMap, Sample, Symbols, FORMAT};
use crate::diag::Diagnostics;
use crate::error::{ParseError, Position};
use crate::formats::kit::sink::StackSink;
use crate::model::{Metric, Profile};
use rustc_hash::FxHashMap;
use std::time::Duration;

/// How a CPU profile writes its words.
#[derive(Clone, Copy)]
pub(super) struct Words {
    size: usize,
    big_endian: bool,
}

/// What a CPU profile's header says: how its words are written, its period in microseconds, and
/// whether it is a Java agent's (its third word 1).
pub(super) struct Header {
    pub(super) words: Words,
    pub(super) period: u64,
    pub(super) java: bool,
}

impl Words {
    /// The header of a CPU profile at the start of `bytes`, where it is one (`0 3 0 PERIOD 0`, or
    /// `0 3 1 PERIOD 0` for Java, PERIOD not 0).
    pub(super) fn of_header(bytes: &[u8]) -> Option<Header> {
        let forms = [(4, false), (4, true), (8, false), (8, true)];
        forms.into_iter().map(|(size, big_endian)| Words { size, big_endian }).find_map(|words| {
            let header: Vec<u64> = (0..5).map(|i| words.at(bytes, i * words.size)).collect::<Option<_>>()?;
            match header[..] {
                [0, 3, java @ (0 | 1), period, 0] if period > 0 => Some(Header { words, period, java: java == 1 }),
                _ => None,
            }
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

/// Reads a CPU profile's records from byte `5 × word size` of `bytes`, then its memory map, or a
/// Java profile's locations (its addresses as they are: they name locations, not code).
pub(super) fn read(bytes: &[u8], header: Header, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let Header { words, period, java } = header;
    let mut sink = StackSink::new(FORMAT, vec![Metric::samples()]);
    let cut_short = |at: usize, expected: String| sink.cut_short(Position::byte(at as u64), expected);
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
        let addresses = if java { addresses } else { call_sites(addresses, false) };
        samples.push(Sample { addresses, weights: vec![count] });
        at = first + depth as usize * words.size;
    };
    let rest = String::from_utf8_lossy(&bytes[map_start..]);
    let (map, symbols) = match java {
        true => (MemoryMap::default(), super::java::locations(rest.lines())),
        false => {
            drop_signal_frames(&mut samples);
            drop_repeated_leaves(&mut samples);
            (MemoryMap::of(&rest), Symbols::default())
        }
    };
    sink.profile().meta.interval = Some(Duration::from_micros(period));
    super::add_samples(&mut sink, &samples, &map, &symbols);
    // A program that ran for less than a period writes the header and the trailer alone: an empty
    // profile, as `go tool pprof` reads it ("0 of 0 total").
    sink.finish(None, diag)
}

/// Drops the second frame of a stack whose leaf is written twice, once from the signal context and
/// once (less 1) from the unwinder (pprof's `cleanupDuplicateLocations`).
fn drop_repeated_leaves(samples: &mut [Sample]) {
    for sample in samples {
        if let [leaf, caller, ..] = sample.addresses[..] {
            if leaf == caller.wrapping_add(1) {
                sample.addresses.remove(1);
            }
        }
    }
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
            let Header { words, period, java } = Words::of_header(&header(size, big)).unwrap();
            assert_eq!((words.size, words.big_endian, period, java), (size, big, 1000, false));
        }
        assert!(Words::of_header(&[0; 40]).is_none());
    }
}
