//! Any bytes given to the dyalog_csv reader give a profile that validates, or an error: never a panic;
//! with line rows kept and merged into their functions while reading (for targets without lines).
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftool::{convert::ConvertOptions, diag::Diagnostics, Format, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let merge = ReadOptions::default().for_target(Format::Folded, &ConvertOptions::default());
    for options in [ReadOptions::default(), merge] {
        let mut diag = Diagnostics::default();
        if let Ok(profile) = Format::DyalogCsv.read(&mut &data[..], &options, &mut diag) {
            assert_eq!(profile.validate(), Ok(()));
        }
    }
});
