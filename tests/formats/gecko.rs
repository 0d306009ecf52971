//! Firefox's Gecko profile JSON (`gecko`, read only): speedscope's corpus read to the totals
//! speedscope's importer gives it.

use crate::support::binary::info;

/// The `time` total `info` states.
fn time_total(text: &str) -> f64 {
    let line = text.lines().find(|l| l.starts_with("metric     time (time, ms, additive): total ")).unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// speedscope's four saved recordings of Firefox 59 to 63 read, by content, to the time
/// speedscope's importer puts in its call tree (its non-idle weight: each sample's stack from its
/// time to the next sample's, Firefox's own frames and the samples with no other frame left out),
/// worked out from the JSON by a script of speedscope's `importFromFirefox` (its evented profile's
/// total is the recording's whole `duration`, which no stack holds); CI compares them with
/// speedscope itself (.ci/speedscope-corpus.mjs).
#[test]
fn gecko_recordings_weigh_as_speedscope_weighs_them() {
    for (file, ms, samples) in [
        ("Firefox/59/firefox.json", 674.269441001, 657),
        ("Firefox/59/simple-firefox.json", 31.992821, 32),
        ("Firefox/61/recursion.json", 11.149112, 11),
        ("Firefox/63/simple-firefox.json", 26.983817, 27),
    ] {
        let (text, stderr) = info(&format!("corpus/speedscope-samples/{file}"));
        assert!(text.contains("format     gecko (recognised by content)"), "{file}: {text}");
        assert!((time_total(&text) - ms).abs() < 1e-6, "{file}: {text}");
        assert!(text.contains(&format!("metric     samples (samples, count, additive): total {samples}\n")), "{file}");
        assert!(text.contains("interval   1ms"), "{file}: {text}");
        assert!(stderr.contains("frames of Firefox's own code"), "{file}: {stderr}");
    }
}

/// The recording's one thread is a thread root named after it, above the JS functions, each named
/// as speedscope names it with its script as module.
#[test]
fn a_recordings_thread_is_its_root() {
    let (text, _) = crate::support::binary::run(
        &["convert", "-q", "--to", "folded"],
        &crate::support::binary::fixture("gecko/recursion.gecko.json"),
    );
    assert!(text.lines().all(|l| l.starts_with("GeckoMain;")), "{text}");
    assert!(text.contains(";main;alpha;beta;"), "{text}");
}
