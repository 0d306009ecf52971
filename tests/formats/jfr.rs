//! JDK Flight Recorder recordings (`jfr`): read with the counts the JDK's own `jfr summary` gives
//! and the stacks its `jfr print --json` gives (fixtures/jfr/*.summary.txt and *.stacks.txt, made
//! by make-fixtures.sh and make-built.py), the sampling period where the recording states it.

use crate::support::binary::{fixture, info, proftool, run, run_bytes, run_stdin};
use std::collections::BTreeMap;

/// The recordings of fixtures/jfr: two of the JDK's (one chunk; three), and two built byte by byte
/// (the second with a stack trace id that no pool holds, which the JDK reads as no stack).
const RECORDINGS: [&str; 4] = ["hot", "rotated", "built", "missing-stack-trace"];

/// The count of `event` in a `jfr summary` (0 where it has no row).
fn summary_count(summary: &str, event: &str) -> u64 {
    summary
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some(event)).then(|| words.next().unwrap().parse().unwrap())
        })
        .unwrap_or(0)
}

/// The JDK's stacks of a recording (stacks.py on `jfr print --json`): per metric, stack → value.
fn jdk_stacks(case: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(fixture(&format!("jfr/{case}.jfr.stacks.txt"))).unwrap();
    let mut stacks: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        stacks.entry(fields[0].to_string()).or_default().insert(fields[1].to_string(), fields[2].parse().unwrap());
    }
    stacks
}

/// Each metric's total is what `jfr summary` counts of its event (the execution, native method
/// and allocation samples), the bytes what the JDK's JSON gives as the allocation samples' weights,
/// and a metric of no events is not there.
#[test]
fn recordings_read_with_the_counts_of_jfr_summary() {
    for case in RECORDINGS {
        let summary = std::fs::read_to_string(fixture(&format!("jfr/{case}.jfr.summary.txt"))).unwrap();
        let weights: u64 = jdk_stacks(case).get("alloc-weight").map_or(0, |stacks| stacks.values().sum());
        let (text, _) = info(&format!("jfr/{case}.jfr"));
        assert!(text.contains("format     jfr (recognised by content)"), "{case}: {text}");
        for (metric, total) in [
            ("samples (samples, count, additive)", summary_count(&summary, "jdk.ExecutionSample")),
            ("native-samples (events, count, additive)", summary_count(&summary, "jdk.NativeMethodSample")),
            ("alloc-weight (alloc, bytes, additive)", weights),
            ("sampled objects (objects, count, additive)", summary_count(&summary, "jdk.ObjectAllocationSample")),
        ] {
            assert!(total > 0, "{case}: no {metric} to compare");
            assert!(text.contains(&format!("metric     {metric}: total {total}\n")), "{case}: {metric}: {text}");
        }
        let chunks = summary.lines().find_map(|l| l.trim().strip_prefix("Chunks: ")).unwrap();
        assert!(text.contains(&format!("jfr.chunks {chunks}\n")), "{case}: {text}");
    }
}

/// Every stack of every metric, thread first and each frame `package.Class.method[line]`, is what
/// the JDK's `jfr print --json` gives.
#[test]
fn recordings_read_with_the_stacks_of_jfr_print() {
    for case in RECORDINGS {
        for (metric, expected) in jdk_stacks(case) {
            let args = ["convert", "-q", "--to", "folded", "--lines", "--metric", &metric];
            let (out, _) = run(&args, &fixture(&format!("jfr/{case}.jfr")));
            let stacks: BTreeMap<String, u64> = out
                .lines()
                .filter_map(|line| line.rsplit_once(' '))
                .map(|(stack, value)| (stack.to_string(), value.parse().unwrap()))
                .filter(|&(_, value)| value != 0)
                .collect();
            assert_eq!(stacks, expected, "{case}: {metric}");
        }
    }
}

/// The interval is the execution samples' `period` as the recording's jdk.ActiveSetting events
/// state it (hot.jfr: samples-and-settings.jfc's 10 ms; built.jfr: 20 ms); a recording without
/// them (rotated.jfr) has none, and says so.
#[test]
fn the_interval_is_the_period_the_recording_states() {
    let (text, stderr) = info("jfr/hot.jfr");
    assert!(text.contains("interval   10ms\n") && text.contains("jfr.period 10 ms\n"), "{text}");
    assert!(text.contains("jfr.native-period 20 ms\n"), "{text}");
    assert_eq!(stderr, "");
    let (text, _) = info("jfr/built.jfr");
    assert!(text.contains("interval   20ms\n") && text.contains("jfr.native-period 50 ms\n"), "{text}");
    let (text, stderr) = info("jfr/rotated.jfr");
    assert!(!text.contains("interval"), "{text}");
    assert!(stderr.contains("no sampling interval: the recording states no period of jdk.ExecutionSample"), "{stderr}");
}

/// A reference to a pool entry that no checkpoint holds is read as none, as the JDK reads it (a
/// recording of bench/Walk.java had a sample of a thread whose entry was never written), and said.
#[test]
fn a_reference_to_nothing_is_none_and_said() {
    let (_, stderr) = info("jfr/missing-stack-trace.jfr");
    let expected = "byte 1553: 1 reference(s) to constant pool entries that no checkpoint of their chunk holds, \
                    read as none as jfr reads them (the first: jdk.types.StackTrace id 9)";
    assert!(stderr.contains(expected), "{stderr}");
}

/// A recording is told by its magic, whatever it is called, and read from a pipe.
#[test]
fn a_recording_is_told_by_its_magic_from_a_pipe() {
    let bytes = std::fs::read(fixture("jfr/built.jfr")).unwrap();
    let (out, _) = run_stdin(&["convert", "-q", "--to", "folded"], &bytes);
    // make-built.py's samples: three of run → compute and one cut short on main, one on worker (the
    // native and allocation samples' stacks are there with no samples).
    let expected = "main;demo.Main.run;demo.Main.compute 3\nmain;demo.Main.run;demo.Main.native0 0\n\
                    main;(truncated);demo.Main.compute 1\nworker;demo.Main.run;demo.Main.compute 1\nGC Thread·0 0\n";
    assert_eq!(out, expected);
    let dir = crate::support::binary::temp();
    let renamed = dir.path().join("recording.bin");
    std::fs::write(&renamed, &bytes).unwrap();
    let out = proftool().arg("info").arg(&renamed).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("format     jfr (recognised by content)"), "{text}");
}

/// What a frame ran as (interpreted, JIT compiled, inlined, native) is a fact of the frame (in
/// the dumps), which a conversion names as lost.
#[test]
fn frame_types_are_named_where_lost() {
    let (_, stderr) = run_bytes(&["convert", "--to", "pprof"], &fixture("jfr/built.jfr"));
    assert!(stderr.contains("jfr.frame-type"), "{stderr}");
}
