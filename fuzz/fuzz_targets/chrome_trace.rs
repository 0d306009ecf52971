//! Any bytes given to the Chrome trace events reader give a profile that validates, or an error: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftool::{diag::Diagnostics, Format, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let mut diag = Diagnostics::default();
    if let Ok(profile) = Format::ChromeTrace.read(&mut &data[..], &ReadOptions::default(), &mut diag) {
        assert_eq!(profile.validate(), Ok(()));
    }
});
