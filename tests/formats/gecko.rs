//! Firefox's Gecko profile JSON (`gecko`, read only): the project's own hand-written recordings and
//! bare profiles (fixtures/README.md, gecko) read to what the Firefox Profiler's own code makes of
//! them (speedscope's corpus, which speedscope reads otherwise, is checked by
//! `.ci/speedscope-corpus.mjs`).

use crate::support::binary::{firefox_sample_micros, fixture, run};
use crate::support::sorted_lines;

/// The `time` total `info` states.
fn time_total(text: &str) -> f64 {
    let line = text.lines().find(|l| l.starts_with("metric     time (time, ms, additive): total ")).unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Each stack's samples are those of the Firefox Profiler's own call trees (profiler-cli 0.10.0's
/// `thread samples-top-down --include-idle --json` for each thread, its nodes' self samples): every
/// frame, label frames (`(root)`, `nsRefreshDriver::Tick`), addresses, `self-hosted` and
/// `resource:` scripts included; Firefox 63's script top level as `(root scope) file`, and its
/// `AutoEntryScript <script> element` label as the profiler's upgrade names it; the bare profile's
/// parent process, its two subprocesses (a second `GeckoMain` named by its tid, a third, without
/// one, by its JSON path) and their worker thread, each under a thread root named after it.
#[test]
fn samples_are_those_of_the_profilers_call_trees() {
    for (file, stacks) in [
        (
            "gecko/firefox61-recursion.gecko.json",
            &[
                "GeckoMain;(root);XRE_InitChildProcess;emit 1",
                "GeckoMain;(root);XRE_InitChildProcess;emit;next 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;beta 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;beta;alpha;beta 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;beta;alpha;beta;gamma 2",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;beta;alpha;delta;gamma 2",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;emit;beta 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;alpha;gamma 1",
                "GeckoMain;(root);XRE_InitChildProcess;js::RunScript;main;get value 2",
                "GeckoMain;(root);XRE_InitChildProcess;nsRefreshDriver::Tick;0x10a3c5f2e 1",
            ][..],
        ),
        (
            "gecko/firefox63-column.gecko.json",
            &[
                "GeckoMain;(root);XRE_InitChildProcess 2",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js 1",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js;alpha 1",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js;alpha;beta 1",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js;alpha;beta;gamma 3",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js;alpha;beta;gamma;getOwnPropertyDescriptor 1",
                "GeckoMain;(root);XRE_InitChildProcess;<script> element;(root scope) http://localhost:8000/simple.js;alpha;delta;gamma 4",
                "GeckoMain;(root);XRE_InitChildProcess;exports.makeInfallible/< 1",
            ][..],
        ),
        (
            "gecko/bare-processes.gecko.json",
            &[
                "DOM Worker;(root) 1",
                "DOM Worker;(root);onmessage 1",
                "DOM Worker;(root);onmessage;sum 2",
                "GeckoMain (processes[1].threads[0]);(root) 1",
                "GeckoMain (processes[1].threads[0]);(root);tick 2",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess 2",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess;run 1",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess;run;fib 1",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess;run;fib;fib 1",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess;run;fib;fib;fib 2",
                "GeckoMain (tid 31100);(root);XRE_InitChildProcess;run;forEach;fib 1",
                "GeckoMain;(root);XRE_main;nsAppShell::Run 2",
                "GeckoMain;(root);XRE_main;nsAppShell::Run;PresShell::Paint;0x7f3a1c2b4e10 1",
                "GeckoMain;(root);XRE_main;nsAppShell::Run;onResize 2",
            ][..],
        ),
    ] {
        let (out, _) = run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &fixture(file));
        assert_eq!(sorted_lines(&out), stacks, "{file}");
    }
}

/// Each sample holds from its time to the next sample of its thread, and the last for the 1 ms
/// interval, as the profiler's traced time gives it (by hand from the files' sample times): the
/// time totals, the recordings read by content with their interval, and the one sample of no
/// stack (`null`) of Firefox 61's recording, its last (1 ms), left out and said, as the profiler's
/// call tree leaves it out (its 16 samples above are all but that one).
#[test]
fn time_is_each_samples_until_the_next() {
    for (file, ms) in [
        ("gecko/firefox61-recursion.gecko.json", 15.999),
        ("gecko/firefox63-column.gecko.json", 13.971),
        ("gecko/bare-processes.gecko.json", 20.004),
        ("gecko/version3-subprocess.gecko.json", 8.0),
    ] {
        let (text, _) = crate::support::binary::info(file);
        assert!(text.contains("format     gecko (recognised by content)"), "{file}: {text}");
        assert!((time_total(&text) - ms).abs() < 1e-9, "{file}: {text}");
        assert!(text.contains("interval   1ms"), "{file}: {text}");
    }
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("gecko/firefox61-recursion.gecko.json"));
    assert!(err.contains("gecko: 1 sample with no stack (1.000 ms) left out"), "{err}");
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("gecko/bare-processes.gecko.json"));
    assert!(!err.contains("no stack"), "{err}");
    assert!(err.contains("gecko: 3 markers not read"), "{err}");
}

/// An address is named as it is, with the library of `libs` whose range holds it as its module
/// (the profiler's `nameWithLibrary`: `libxul.so!0x7f3a1c2b4e10`); a JS function has its script
/// as module; a frame no library holds has none.
#[test]
fn addresses_keep_their_libraries() {
    let (json, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture("gecko/bare-processes.gecko.json"));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let frames = json["shared"]["frames"].as_array().unwrap();
    let file_of = |name: &str| frames.iter().find(|f| f["name"] == name).map(|f| f["file"].clone()).unwrap();
    assert_eq!(file_of("0x7f3a1c2b4e10"), "libxul.so");
    assert_eq!(file_of("run"), "https://example.org/app.js");
    assert_eq!(file_of("(root)"), serde_json::Value::Null);
}

/// A version 3 profile (hand-written, fixtures/README.md) keeps a subprocess's whole profile as a
/// JSON string among its threads: both `GeckoMain` threads are read, each with its stacks as the
/// profiler's call trees hold them (above's way): the parent's 5 samples, the subprocess's 3.
#[test]
fn subprocesses_kept_as_strings_among_the_threads_are_read() {
    let path = fixture("gecko/version3-subprocess.gecko.json");
    let (folded, _) = run(&["convert", "-q", "--to", "folded", "--metric", "samples"], &path);
    assert_eq!(
        sorted_lines(&folded),
        [
            "GeckoMain (threads[1].threads[0]);(root);nsAppShell::Run 1",
            "GeckoMain (threads[1].threads[0]);(root);nsAppShell::Run;load;parse 2",
            "GeckoMain;(root);0x7f3a21c0 1",
            "GeckoMain;(root);nsAppShell::Run;load 2",
            "GeckoMain;(root);nsAppShell::Run;load;parse 2",
        ]
    );
}

/// Each sample with a stack keeps its time: firefox61-recursion's samples (its first thread's
/// `samples.data`, read here: a time in ms per row, the one with no stack left out) are the
/// samples of the Firefox Profiler's file written from it, at those times (to the µs).
#[test]
fn samples_keep_their_times() {
    let path = fixture("gecko/firefox61-recursion.gecko.json");
    let source: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let samples = &source["profile"]["threads"][0]["samples"];
    let (stack, time) =
        (samples["schema"]["stack"].as_u64().unwrap() as usize, samples["schema"]["time"].as_u64().unwrap() as usize);
    let micros = |ms: f64| (ms * 1000.0).round() as i64;
    let mut theirs: Vec<i64> = (samples["data"].as_array().unwrap().iter())
        .filter(|row| !row[stack].is_null())
        .map(|row| micros(row[time].as_f64().unwrap()))
        .collect();
    theirs.sort_unstable();
    let ours = firefox_sample_micros(&path);
    assert!(theirs.len() > 1);
    assert_eq!(ours, theirs);
}
