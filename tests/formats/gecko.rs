//! Firefox's Gecko profile JSON (`gecko`, read only): the project's own hand-written recordings and
//! bare profile (fixtures/README.md, gecko) read to what speedscope's importer and the Firefox
//! Profiler's own code make of them (speedscope's corpus is checked by
//! `.ci/speedscope-corpus.mjs`).

use crate::support::binary::{fixture, run};
use crate::support::sorted_lines;

/// The `time` total `info` states.
fn time_total(text: &str) -> f64 {
    let line = text.lines().find(|l| l.starts_with("metric     time (time, ms, additive): total ")).unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// The two saved recordings read, by content, to the call tree speedscope 1.25.0's importer builds
/// of them (its stacks and their time, printed by a script of its `importProfileGroupFromText`, in
/// µs here): each sample's stack from its time to the next sample's, Firefox's own frames (label
/// frames, addresses, `resource:` and `self-hosted` scripts) left out, also between two of the
/// page's (`main;alpha;beta` holds a sample of `main;alpha;emit;beta`), and the samples with no
/// other frame; Firefox 61's locations without a column, Firefox 63's with one.
#[test]
fn recordings_weigh_as_speedscope_weighs_them() {
    for (file, stacks, ms) in [
        (
            "gecko/firefox61-recursion.gecko.json",
            &[
                "GeckoMain;main 993",
                "GeckoMain;main;alpha 1012",
                "GeckoMain;main;alpha;beta 1989",
                "GeckoMain;main;alpha;beta;alpha;beta 1009",
                "GeckoMain;main;alpha;beta;alpha;beta;gamma 1985",
                "GeckoMain;main;alpha;beta;alpha;delta;gamma 2004",
                "GeckoMain;main;alpha;gamma 1004",
                "GeckoMain;main;get value 2005",
            ][..],
            12.001,
        ),
        (
            "gecko/firefox63-column.gecko.json",
            &[
                "GeckoMain;alpha 1006",
                "GeckoMain;alpha;beta 989",
                "GeckoMain;alpha;beta;gamma 4012",
                "GeckoMain;alpha;delta;gamma 4022",
            ][..],
            10.029,
        ),
    ] {
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(file));
        assert_eq!(sorted_lines(&out), stacks, "{file}");
        let (text, _) = crate::support::binary::info(file);
        assert!(text.contains("format     gecko (recognised by content)"), "{file}: {text}");
        assert!((time_total(&text) - ms).abs() < 1e-9, "{file}: {text}");
        assert!(text.contains("interval   1ms"), "{file}: {text}");
    }
}

/// Each stack's samples are those the Firefox Profiler's own call trees hold (profiler-cli 0.10.0's
/// `thread samples-top-down --include-idle`) once Firefox's own frames are taken out of them (and
/// the profiler's `(root scope)` function of a script's top level, which is no function to
/// speedscope): the bare profile's parent process, its two subprocesses (a second `GeckoMain`
/// named by its tid, a third, without one, by its JSON path) and their worker thread.
#[test]
fn samples_are_those_of_the_profilers_call_trees() {
    for (file, stacks) in [
        (
            "gecko/firefox61-recursion.gecko.json",
            &[
                "GeckoMain;main 1",
                "GeckoMain;main;alpha 1",
                "GeckoMain;main;alpha;beta 2",
                "GeckoMain;main;alpha;beta;alpha;beta 1",
                "GeckoMain;main;alpha;beta;alpha;beta;gamma 2",
                "GeckoMain;main;alpha;beta;alpha;delta;gamma 2",
                "GeckoMain;main;alpha;gamma 1",
                "GeckoMain;main;get value 2",
            ][..],
        ),
        (
            "gecko/firefox63-column.gecko.json",
            &[
                "GeckoMain;alpha 1",
                "GeckoMain;alpha;beta 1",
                "GeckoMain;alpha;beta;gamma 4",
                "GeckoMain;alpha;delta;gamma 4",
            ][..],
        ),
        (
            "gecko/bare-processes.gecko.json",
            &[
                "DOM Worker;onmessage 1",
                "DOM Worker;onmessage;sum 2",
                "GeckoMain (processes[1].threads[0]);tick 2",
                "GeckoMain (tid 31100);run 1",
                "GeckoMain (tid 31100);run;fib 2",
                "GeckoMain (tid 31100);run;fib;fib 1",
                "GeckoMain (tid 31100);run;fib;fib;fib 2",
                "GeckoMain;onResize 2",
            ][..],
        ),
    ] {
        let (out, _) = run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &fixture(file));
        assert_eq!(sorted_lines(&out), stacks, "{file}");
    }
}

/// The bare profile's time, by hand from its samples' times (each until the next of its thread):
/// `onResize` 1.001 + 1.001, `tick` 1 + 1, `run;fib` 0.995 + 0.984 (the second below a
/// `self-hosted` `forEach`), `sum` 1 + 1; its idle samples and frames said: 3.013 ms between samples,
/// and the last sample of each of the four threads (idle in each) holds the 1 ms interval, as the
/// profiler's traced time gives it: 7.013 ms.
#[test]
fn a_bare_profiles_time_is_its_samples_times() {
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("gecko/bare-processes.gecko.json"));
    assert_eq!(
        sorted_lines(&out),
        [
            "DOM Worker;onmessage 1000",
            "DOM Worker;onmessage;sum 2000",
            "GeckoMain (processes[1].threads[0]);tick 2000",
            "GeckoMain (tid 31100);run 991",
            "GeckoMain (tid 31100);run;fib 1979",
            "GeckoMain (tid 31100);run;fib;fib 1012",
            "GeckoMain (tid 31100);run;fib;fib;fib 2007",
            "GeckoMain;onResize 2002",
        ]
    );
    assert!(err.contains("gecko: 7 samples with no other frame (7.013 ms) left out"), "{err}");
    assert!(err.contains("gecko: 10 frames of Firefox's own code"), "{err}");
    assert!(err.contains("gecko: 3 markers not read"), "{err}");
}

/// The recording's one thread is a thread root named after it, above the JS functions, each named
/// as speedscope names it with its script as module.
#[test]
fn a_recordings_thread_is_its_root() {
    let (text, _) = run(&["convert", "-q", "--to", "folded"], &fixture("gecko/firefox61-recursion.gecko.json"));
    assert!(text.lines().all(|l| l.starts_with("GeckoMain;")), "{text}");
    assert!(text.contains(";main;alpha;beta;"), "{text}");
}

/// A version 3 profile (hand-written, fixtures/README.md) keeps a subprocess's whole profile as a
/// JSON string among its threads: both `GeckoMain` threads are read. The Firefox Profiler's call
/// trees (profiler-cli 0.10.0, `thread samples-top-down --include-idle`): the parent's 5 samples,
/// `load` 4 (self 2), `parse` 2, an address 1 (Firefox's own, left out here with speedscope); the
/// subprocess's 3, `parse` below `load` 2, `nsAppShell::Run` 1 (a label frame, left out). Each
/// sample holds until the next one and the last for the 1 ms interval, as the profiler's traced
/// time gives it: 4 + 2 ms in the page's frames, 2 ms idle; the samples the same 4 + 2.
#[test]
fn subprocesses_kept_as_strings_among_the_threads_are_read() {
    let path = fixture("gecko/version3-subprocess.gecko.json");
    let (folded, err) = run(&["convert", "--to", "folded", "--metric", "samples"], &path);
    assert_eq!(
        sorted_lines(&folded),
        ["GeckoMain (threads[1].threads[0]);load;parse 2", "GeckoMain;load 2", "GeckoMain;load;parse 2"]
    );
    assert!(err.contains("gecko: 2 samples with no other frame (2.000 ms) left out"), "{err}");
    let (info, _) = crate::support::binary::info("gecko/version3-subprocess.gecko.json");
    assert_eq!(time_total(&info), 6.0);
}
