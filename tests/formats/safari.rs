//! Safari's timeline recordings (`safari`), against speedscope's importer: speedscope's corpus
//! file (MIT), Safari 13.1.

use crate::support::binary::{fixture, run};

/// The recording's 23 samples weigh their durations, 34,006.76 µs as speedscope totals them (its
/// 23 `sampleDurations` added up with Python), under its display name.
#[test]
fn a_recording_weighs_its_samples_durations() {
    let (info, _) = crate::support::binary::info("safari/simple.recording.json");
    assert!(info.contains("title      Grabación de Control temporal 1"), "{info}");
    assert!(info.contains("metric     time (time, us, additive): total 34006.76"), "{info}");
    assert!(info.contains("metric     samples (samples, count, additive): total 23"), "{info}");
    let (folded, _) =
        run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &fixture("safari/simple.recording.json"));
    assert!(folded.contains("(program);alpha;delta;gamma 11\n"), "{folded}");
}
