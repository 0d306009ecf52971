//! Chrome traces and V8 CPU profiles as Chrome, DevTools and speedscope write and read them: each
//! expected figure is speedscope 1.25.0's import of the same file (its importers run headless
//! under node, as `.ci/speedscope-import.mjs` runs them), DevTools' rule stated beside it, or hand
//! arithmetic on the file.

use crate::support::binary::*;
use std::collections::BTreeMap;

/// The stacks of `fixture` as folded text (`stack weight`) without stacks of no weight, and (where
/// `threads`) without the thread roots: speedscope makes a profile of each thread.
fn stacks(fixture_path: &str, threads: bool) -> BTreeMap<String, i64> {
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(fixture_path));
    out.lines()
        .filter_map(|line| {
            let (stack, weight) = line.rsplit_once(' ')?;
            let below = if threads { stack.split_once(';')?.1 } else { stack };
            Some((below.to_string(), weight.parse().ok()?)).filter(|(_, w)| *w != 0)
        })
        .collect()
}

/// The time (µs) under each thread root of `fixture_path`, by the root's name.
fn thread_totals(fixture_path: &str) -> BTreeMap<String, i64> {
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(fixture_path));
    let mut totals = BTreeMap::new();
    for line in out.lines() {
        let (stack, weight) = line.rsplit_once(' ').unwrap();
        let thread = stack.split(';').next().unwrap().to_string();
        *totals.entry(thread).or_insert(0) += weight.parse::<i64>().unwrap();
    }
    totals
}

/// `proftool info` of a fixture: (stdout, stderr).
fn info(fixture_path: &str) -> (String, String) {
    let out = proftool().arg("info").arg(fixture(fixture_path)).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

fn map(stacks: &[(&str, i64)]) -> BTreeMap<String, i64> {
    stacks.iter().map(|&(s, w)| (s.to_string(), w)).collect()
}

/// speedscope's own trace-event test files (its corpus, `fixtures/chrome-trace/speedscope/`): the
/// stacks and µs speedscope's importer builds from each (the args it appends to a name left out),
/// which proftool's reader follows where the events contradict each other: an `X` enclosing `B`/`E`
/// pairs, an `X` that ends after its parent (its end ignored), ends whose names or args do not
/// match, events that keep their file order at one timestamp, more ends than begins, slices of no
/// length, ends before their begins in the file.
#[test]
fn trace_events_nest_as_speedscope_nests_them() {
    let cases: &[(&str, &[(&str, i64)])] = &[
        (
            "bex-interaction.json",
            &[
                ("A;B", 2),
                ("D;C", 2),
                ("F", 1),
                ("F;E", 1),
                ("G", 1),
                ("G;H", 1),
                ("J", 1),
                ("J;I", 1),
                ("K", 1),
                ("K;L", 1),
            ],
        ),
        ("invalid-x-nesting.json", &[("alpha", 5), ("alpha;beta", 10)]),
        ("must-retain-original-order.json", &[("A", 2), ("A;B", 2), ("A;B;C", 2), ("X", 3)]),
        ("event-reordering-name-match.json", &[("alpha", 9), ("alpha;beta;gamma", 1)]),
        (
            "simultaneous-anonymous-calls.json",
            &[("anonymous", 1), ("anonymous;anonymous;anonymous", 2), ("anonymous;anonymous;function1;anonymous", 2)],
        ),
        ("end-non-top-of-stack.json", &[("A", 1), ("A;B", 9), ("A;B;Z", 1)]),
        ("too-many-end-events.json", &[("alpha", 2), ("alpha;beta", 12)]),
        (
            "x-events-matching-end.json",
            &[("alpha", 12), ("alpha;beta", 2), ("alpha;beta;gamma", 2), ("alpha;gamma", 2), ("alpha;gamma;beta", 2)],
        ),
        // An end of another name is ignored, its time too: the begin closes at its own time.
        ("mismatched-name.json", &[]),
        // Slices of no length (B and E of one name at one time, an X of dur 0, one whose E comes
        // before its B in the file) hold no time: A holds all 10 µs.
        ("zero-duration-events.json", &[("A", 10)]),
        // Ends that come before their begins in the file: alpha's end at 9 names another slice
        // than the innermost (beta, 1 to 10) and is ignored; alpha closes at the last end, 10.
        ("out-of-order-unbalanced-name.json", &[("alpha", 1), ("alpha;beta", 9)]),
        // The sampling form (Hermes): each sample weighs the time to the next of its thread.
        (
            "multi-thread-with-samples.json",
            &[
                ("[root thread 2]", 30770),
                ("[root thread 2];function3", 13326),
                ("[root thread 2];function4", 10000),
                ("[root]", 20770),
                ("[root];function1", 13326),
            ],
        ),
    ];
    for (file, expected) in cases {
        assert_eq!(stacks(&format!("chrome-trace/speedscope/{file}"), true), map(expected), "{file}");
    }
}

/// Chrome's performance recordings (DevTools' "Save profile", Chromium's and Node's trace events):
/// the CPU profiles they carry, each under its thread, with the time speedscope gives each profile
/// (its `endTime` − `startTime`), the task slices beside them not added in.
#[test]
fn recordings_read_their_cpu_profiles_with_speedscope_totals() {
    // Chrome 66: two `CpuProfile` events of two threads, no ids (once "expected a unique id per
    // node"); speedscope: CrRendererMain 1,081,562 µs, DedicatedWorker thread 873,502 µs.
    let totals = thread_totals("chrome-trace/speedscope/chrome66-worker.json");
    let expected = [("CrRendererMain", 1_081_562), ("DedicatedWorker thread", 873_502)];
    assert_eq!(totals, expected.iter().map(|&(t, w)| (t.to_string(), w)).collect());
    // Chrome 141: chunks without args.data (once an error), skipped; speedscope: 371,739 µs.
    let (info, err) = info("chrome-trace/speedscope/chrome141-no-arg-data.json");
    assert!(info.contains("metric     time (time, us, additive): total 371739\n"), "{info}");
    assert!(err.contains("profile events without args.data carry no samples and are skipped"), "{err}");
    // Node 20: two profiles of one thread, both read (once the first alone, warned); speedscope
    // reads them as two profiles of 111,935 and 105,037 µs: 216,972.
    let totals = thread_totals("chrome-trace/node-profile.json");
    assert_eq!(totals, [("JavaScriptMainThread".to_string(), 216_972)].into_iter().collect());
}

/// Chromium's own JSON trace: two renderer processes each number their profile `0x1`. Each is read
/// under its own process, with the time from its `startTime` to its last sample: the sum of its
/// chunks' `timeDeltas`, computed here from the file (no chunk has an `endTime`: the last sample
/// weighs nothing, as speedscope weighs it).
#[test]
fn profiles_of_one_id_in_two_processes_are_two_profiles() {
    let path = fixture("chrome-trace/chromium-startup.json");
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut spans: BTreeMap<String, i64> = BTreeMap::new();
    for event in trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"] == "ProfileChunk") {
        assert!(event["args"]["data"]["endTime"].is_null());
        let deltas = event["args"]["data"]["timeDeltas"].as_array().unwrap();
        let thread = format!("CrRendererMain (pid {})", event["pid"]);
        *spans.entry(thread).or_insert(0) += deltas.iter().map(|d| d.as_i64().unwrap()).sum::<i64>();
    }
    assert_eq!(spans.len(), 2, "{spans:?}");
    assert_eq!(thread_totals("chrome-trace/chromium-startup.json"), spans);
}

/// A `.cpuprofile` weighs `endTime` − `startTime`, as speedscope totals it and DevTools' call tree
/// shares it out: the time before the first sample is the first sample's, the time after the last
/// the last's.
#[test]
fn a_cpuprofile_weighs_its_span() {
    for (file, total) in [
        // speedscope 47,892 µs (proftool 36,317 before: the 11,575 µs before the first sample and
        // the 1,972 µs after the last went to no sample).
        ("cpuprofile/speedscope/chrome65-simple.cpuprofile", 47_892),
        // speedscope 209,457 µs (proftool 196,314 before, as VS Code weighs it).
        ("cpuprofile/work.cpuprofile", 209_457),
        // The old format (node 10: a `head` tree, `startTime` in whole seconds, 30 `timestamps`
        // for 29 samples): the last timestamp less the first, 163,140,645,206 − 163,140,599,286 µs.
        ("cpuprofile/speedscope/node10-old-format.cpuprofile", 45_920),
    ] {
        let (info, _) = info(file);
        assert!(info.contains(&format!("metric     time (time, us, additive): total {total}\n")), "{file}: {info}");
    }
    // The old format's tree, as its nodes nest: the samples' times of the file (by hand from its
    // timestamps: d under b 14 samples, d under c 14, the (anonymous) root 1 and the closing
    // timestamp).
    let stacks = stacks("cpuprofile/speedscope/node10-old-format.cpuprofile", false);
    assert_eq!(stacks.keys().collect::<Vec<_>>(), ["(anonymous)", "(anonymous);a;b;d", "(anonymous);a;c;d"]);
    assert_eq!(stacks.values().sum::<i64>(), 45_920);
}

/// V8's heap profiles (`.heapprofile`: a `head` node tree of `callFrame`s and `selfSize`s, no time),
/// which proftool does not read, are not taken for the old `.cpuprofile` format (a `head` tree of
/// nodes with `hitCount`s), whose reader refused them for a missing `id`: detection says what they
/// are not. speedscope's corpus has one of Chrome 69 and one of node 10.
#[test]
fn a_heap_profile_is_no_cpu_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.folded");
    for file in ["Chrome/69/Heap-20181005T144546.heapprofile", "node/10.11.0/Heap-20181003T105432.heapprofile"] {
        let heap = fixture(&format!("corpus/speedscope-samples/{file}"));
        let run = proftool().arg("convert").arg(&heap).arg(&out).assert().failure();
        let err = String::from_utf8(run.get_output().stderr.clone()).unwrap();
        assert!(err.contains("the content is JSON of a kind proftool does not know"), "{file}: {err}");
        assert!(!err.contains("V8 CPU profile"), "{file}: {err}");
        assert!(!out.exists(), "{file}");
    }
}

/// Chromium's default trace format, Perfetto's protocol buffers, is named in the error (it was
/// read as a damaged pprof file), also when the file is named as pprof.
#[test]
fn a_perfetto_trace_is_named() {
    for args in [&["info"][..], &["info", "--from", "pprof"][..]] {
        let out = proftool().args(args).arg(fixture("chrome-trace/chromium-startup.pftrace")).assert().failure();
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("the content is a Perfetto trace"), "{err}");
        assert!(err.contains("traceconv json"), "{err}");
    }
}
