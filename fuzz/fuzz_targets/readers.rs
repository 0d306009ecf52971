//! Any bytes given to any reader give a profile that validates, or an error: never a panic. A
//! profile read in a format proftool also writes is written as it (a write may refuse, with an
//! error), and what is written reads back; in the formats of [`BYTE_STABLE`] it also writes again
//! byte for byte.
//!
//! The first byte picks the reader among every format proftool reads, in registry order
//! (`Format::ALL`, the order `proftool formats` lists; a new reader is fuzzed with no new target),
//! and with its high bit line frames merged while reading (`convert::reading_for` a target
//! without lines); the rest is the input. `.ci/fuzz` builds the seeds so from the fixtures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftool::convert::{self, ConvertOptions};
use proftool::{diag::Diagnostics, Format, Profile, ReadOptions};

const MERGE_LINES: u8 = 0x80;

/// The formats whose output, read back, writes again byte for byte. Not every writer's (both found
/// by this target, a second writing then equal to the third): a Dyalog CSV's percentages are of a
/// total the file does not hold, inferred from its first row with a usable PctOfTot, so rows that
/// disagree give a total that the written first row, rounded, no longer gives; a `.cpuprofile`'s
/// whole-microsecond time deltas are split along a running total, and at times past 10^15 us
/// where a +1 lands moves between writings.
const BYTE_STABLE: &[Format] = &[Format::Br];

fn write(format: Format, profile: Profile) -> Result<Vec<u8>, proftool::Error> {
    let mut out = Vec::new();
    convert::write(profile, format, &mut out, &ConvertOptions::default(), &mut Diagnostics::default())?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let readers: Vec<Format> = Format::ALL.iter().copied().filter(|f| f.can_read()).collect();
    let format = readers[usize::from(selector & !MERGE_LINES) % readers.len()];
    let mut options = ReadOptions::default();
    if selector & MERGE_LINES != 0 {
        options = proftool::convert::reading_for(Format::Folded, options, &ConvertOptions::default());
    }
    let read = |bytes: &[u8]| format.read(&mut &bytes[..], &options, &mut Diagnostics::default());
    if let Ok(profile) = read(input) {
        assert_eq!(profile.validate(), Ok(()));
        if format.can_write() {
            if let Ok(once) = write(format, profile) {
                let reread = read(&once).expect("what proftool writes, it reads");
                assert_eq!(reread.validate(), Ok(()));
                if BYTE_STABLE.contains(&format) {
                    assert_eq!(write(format, reread).expect("what proftool wrote, it writes again"), once);
                }
            }
        }
    }
});
