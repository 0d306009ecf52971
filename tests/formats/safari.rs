//! Safari's timeline recordings (`safari`), against speedscope's importer: a recording written by
//! hand from the format's grammar (fixtures/safari/make-fixtures.py); speedscope's own sample is
//! checked by `.ci/speedscope-corpus.mjs`.

use crate::support::binary::{info, stacks};

/// The recording's 12 samples weigh their durations, 11 of 1 ms and one of 0.25 ms: 11,250 µs, as
/// speedscope 1.25.0's importer weighs its call tree (its non-idle weight; its stacks are these),
/// under its display name. An anonymous function is named by its file and line, one without a url
/// `(anonymous)`; the native `parse`, without a url, is another function than work.js's `parse`.
#[test]
fn a_recording_weighs_its_samples_durations() {
    let (info, _) = info("safari/work.recording.json");
    assert!(info.contains("title      Gravação da Linha do Tempo 1"), "{info}");
    assert!(info.contains("metric     time (time, us, additive): total 11250\n"), "{info}");
    assert!(info.contains("metric     samples (samples, count, additive): total 12\n"), "{info}");
    let expected = [
        ("(anonymous)", 250),
        ("injectModule;(anonymous __InjectedScript_CommandLineAPIModuleSource.js:2)", 1000),
        ("main", 1000),
        ("main;parse;(anonymous work.js:22)", 1000),
        ("main;parse;(anonymous work.js:22);layout", 2000),
        ("main;parse;parse", 2000),
        ("main;render", 1000),
        ("main;render;layout", 3000),
    ];
    let expected: std::collections::BTreeMap<String, i64> = expected.iter().map(|&(s, w)| (s.to_string(), w)).collect();
    assert_eq!(stacks("safari/work.recording.json", false), expected);
}
