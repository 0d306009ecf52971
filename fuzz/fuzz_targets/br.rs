//! Any bytes given to the BR reader give a profile that validates, or an error: never a panic. A
//! profile read is also written, and what is written reads back and writes again byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftool::convert::{Convert, ConvertOptions};
use proftool::{diag::Diagnostics, Format, Profile, ReadOptions};

fn write(profile: Profile) -> Vec<u8> {
    let mut out = Vec::new();
    let mut diag = Diagnostics::default();
    Format::Br.write(profile, &mut out, &ConvertOptions::default(), &mut diag).expect("a BR profile writes as BR");
    out
}

fuzz_target!(|data: &[u8]| {
    let mut diag = Diagnostics::default();
    if let Ok(profile) = Format::Br.read(&mut &data[..], &ReadOptions::default(), &mut diag) {
        assert_eq!(profile.validate(), Ok(()));
        let once = write(profile);
        let reread = Format::Br.read(&mut &once[..], &ReadOptions::default(), &mut diag).expect("own output reads");
        assert_eq!(write(reread), once);
    }
});
