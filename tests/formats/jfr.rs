//! JDK Flight Recorder recordings (`jfr`): read with the counts the JDK's own `jfr summary` gives
//! and the stacks its `jfr print --json` gives (fixtures/jfr/*.summary.txt and *.stacks.txt, made
//! by make-fixtures.sh and make-built.py), the sampling period where the recording states it.

use crate::support::binary::{failure, firefox_sample_micros, fixture, info, proftool, run, run_bytes, run_stdin};
use std::collections::BTreeMap;

/// The recordings of fixtures/jfr: three of the JDK's (one chunk; three; allocation and lock
/// events), and two built byte by byte (the second with a stack trace id that no pool holds, which
/// the JDK reads as no stack).
/// jfr-1.0.jfr is JFR 1.0's layout (JDK 9 and 10: `com.oracle.jdk.*` events), built byte by byte
/// and read by the JDK 17's `jfr`. names.jfr is the JDK's, of threads and a method named in
/// modified UTF-8 (characters past U+FFFF, NUL), which the JDK 17's `jfr` misreads
/// ([`as_jdk_17_reads_it`]); starts.jfr the same program's, with events of types that have a stack
/// field that the reader does not take.
const RECORDINGS: [&str; 8] =
    ["hot", "rotated", "alloc-locks", "built", "missing-stack-trace", "jfr-1.0", "names", "starts"];

/// Each metric the reader makes, with its line in `info` and the event it is read from: a count of
/// the events (`None`), or a quantity their field gives (whose total is the JDK's stacks').
const METRICS: [(&str, &str, Option<&str>); 14] = [
    ("samples", "samples, count", None),
    ("native-samples", "events, count", None),
    ("alloc-weight", "alloc, bytes", Some("jdk.ObjectAllocationSample")),
    ("sampled objects", "objects, count", None),
    ("alloc-new-tlab", "alloc, bytes", Some("jdk.ObjectAllocationInNewTLAB")),
    ("new-tlab objects", "objects, count", None),
    ("alloc-outside-tlab", "alloc, bytes", Some("jdk.ObjectAllocationOutsideTLAB")),
    ("outside-tlab objects", "objects, count", None),
    ("monitor-enter-time", "time, ns", Some("jdk.JavaMonitorEnter")),
    ("monitor-enter events", "events, count", None),
    ("monitor-wait-time", "time, ns", Some("jdk.JavaMonitorWait")),
    ("monitor-wait events", "events, count", None),
    ("park-time", "time, ns", Some("jdk.ThreadPark")),
    ("park events", "events, count", None),
];

/// The event a count metric counts.
fn counted_event(metric: &str) -> &'static str {
    match metric {
        "samples" => "jdk.ExecutionSample",
        "native-samples" => "jdk.NativeMethodSample",
        "sampled objects" => "jdk.ObjectAllocationSample",
        "new-tlab objects" => "jdk.ObjectAllocationInNewTLAB",
        "outside-tlab objects" => "jdk.ObjectAllocationOutsideTLAB",
        "monitor-enter events" => "jdk.JavaMonitorEnter",
        "monitor-wait events" => "jdk.JavaMonitorWait",
        "park events" => "jdk.ThreadPark",
        other => panic!("{other} counts no event"),
    }
}

/// The count of `event` in a `jfr summary` (0 where it has no row), under its name or its JFR 1.0
/// name (`com.oracle.jdk.ExecutionSample`).
fn summary_count(summary: &str, event: &str) -> u64 {
    let old = format!("com.oracle.{event}");
    summary
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            (name == event || name == old).then(|| words.next().unwrap().parse().unwrap())
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

/// Each count metric's total is what `jfr summary` counts of its event, each quantity's (the
/// allocation samples' weights, TLAB and allocation sizes, lock and park durations) what the JDK's
/// JSON gives, and a metric of no events is not there.
#[test]
fn recordings_read_with_the_counts_of_jfr_summary() {
    let mut seen = std::collections::BTreeSet::new();
    for case in RECORDINGS {
        let summary = std::fs::read_to_string(fixture(&format!("jfr/{case}.jfr.summary.txt"))).unwrap();
        let stacks = jdk_stacks(case);
        let (text, _) = info(&format!("jfr/{case}.jfr"));
        assert!(text.contains("format     jfr (recognised by content)"), "{case}: {text}");
        for (metric, kind, quantity) in METRICS {
            let total = match quantity {
                Some(event) => {
                    let total = stacks.get(metric).map_or(0, |stacks| stacks.values().sum());
                    assert_eq!(total > 0, summary_count(&summary, event) > 0, "{case}: {metric}");
                    total
                }
                None => summary_count(&summary, counted_event(metric)),
            };
            let line = format!("metric     {metric} ({kind}, additive): total {total}\n");
            if total > 0 {
                seen.insert(metric);
                assert!(text.contains(&line), "{case}: {metric}: {text}");
            } else {
                assert!(!text.contains(&format!("metric     {metric} (")), "{case}: {metric}: {text}");
            }
        }
        let chunks = summary.lines().find_map(|l| l.trim().strip_prefix("Chunks: ")).unwrap();
        assert!(text.contains(&format!("jfr.chunks {chunks}\n")), "{case}: {text}");
    }
    assert_eq!(seen.len(), METRICS.len(), "a metric no fixture has: {seen:?}");
}

/// A name as the JDK 17's `jfr` reads the bytes the JVM wrote for it: it reads strings of
/// encoding 3, which the JVM writes in modified UTF-8, as UTF-8, so each three-byte surrogate of a
/// character past U+FFFF is a U+FFFD, and so are each of NUL's two bytes (`C0 80`). (A lone
/// surrogate is one U+FFFD to both.)
fn as_jdk_17_reads_it(name: &str) -> String {
    name.chars()
        .map(|c| if u32::from(c) > 0xffff || c == '\0' { "\u{fffd}\u{fffd}".to_string() } else { c.to_string() })
        .collect()
}

/// Every stack of every metric, thread first and each frame `package.Class.method[line]`, is what
/// the JDK's `jfr print --json` gives (its names as it reads them: [`as_jdk_17_reads_it`]).
#[test]
fn recordings_read_with_the_stacks_of_jfr_print() {
    for case in RECORDINGS {
        for (metric, expected) in jdk_stacks(case) {
            let args = ["convert", "-q", "--to", "folded", "--lines", "--metric", &metric];
            let (out, _) = run(&args, &fixture(&format!("jfr/{case}.jfr")));
            let stacks: BTreeMap<String, u64> = out
                .lines()
                .filter_map(|line| line.rsplit_once(' '))
                .map(|(stack, value)| (as_jdk_17_reads_it(stack), value.parse().unwrap()))
                .filter(|&(_, value)| value != 0)
                .collect();
            assert_eq!(stacks, expected, "{case}: {metric}");
        }
    }
}

/// Names the JVM writes in modified UTF-8 (names.jfr, of Names.java) are the Java strings they
/// were: a character past U+FFFF from its two surrogates (`🚀`, `𝒳`), NUL from `C0 80`, a lone
/// surrogate U+FFFD; `jfr print` gives two U+FFFD for each of the first two.
#[test]
fn names_in_modified_utf8_read_as_java_wrote_them() {
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture("jfr/names.jfr"));
    let threads: std::collections::BTreeSet<&str> = out.lines().filter_map(|l| l.split(';').next()).collect();
    assert_eq!(threads, ["Thréad-é 🚀 数", "half \u{fffd}, nul \0.", "main"].into(), "{out}");
    assert!(out.lines().all(|line| line.contains(";Names.𝒳 ")), "{out}");
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
    // native and allocation samples' stacks hold no samples: no line).
    let expected = "main;demo.Main.run;demo.Main.compute 3\nmain;(truncated);demo.Main.compute 1\n\
                    worker;demo.Main.run;demo.Main.compute 1\n";
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

/// What a recording holds with stacks that is not read is named, with its count as `jfr summary`
/// gives it (alloc-locks.jfr: 2 jdk.ThreadSleep); a recording of nothing the reader takes
/// (bad/sleeps.jfr) is refused with what it holds, not written as an empty profile.
#[test]
fn events_not_read_are_named() {
    let summary = std::fs::read_to_string(fixture("jfr/alloc-locks.jfr.summary.txt")).unwrap();
    let sleeps = summary_count(&summary, "jdk.ThreadSleep");
    assert!(sleeps > 0);
    let (_, stderr) = info("jfr/alloc-locks.jfr");
    let expected = format!("events with stacks that proftool does not read, left out: jdk.ThreadSleep ({sleeps})\n");
    assert!(stderr.contains(&expected), "{stderr}");
    let summary = std::fs::read_to_string(fixture("jfr/bad/sleeps.jfr.summary.txt")).unwrap();
    let sleeps = summary_count(&summary, "jdk.ThreadSleep");
    let stderr = failure(proftool().args(["convert", "--to", "folded"]).arg(fixture("jfr/bad/sleeps.jfr")).arg("-"));
    let expected = format!("found only jdk.ThreadSleep ({sleeps}) in the recording's 1 chunk(s)\n");
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(stderr.contains("expected events that proftool reads (jdk.ExecutionSample, "), "{stderr}");
}

/// Of the events of a type with a stack field, those with no stack (id 0) are not counted as events
/// with stacks left out: starts.jfr's 6 jdk.ThreadStart (`jfr summary`) are 4 with a stack (the
/// threads Java started) and 2 without (`main` and a JVM thread: `"stackTrace": null` in `jfr
/// print --json`), and its 2 jdk.ExceptionStatistics have none, so they are not named.
#[test]
fn events_not_read_are_counted_where_they_have_a_stack() {
    let summary = std::fs::read_to_string(fixture("jfr/starts.jfr.summary.txt")).unwrap();
    assert_eq!(
        (summary_count(&summary, "jdk.ThreadStart"), summary_count(&summary, "jdk.ExceptionStatistics")),
        (6, 2)
    );
    let (_, stderr) = info("jfr/starts.jfr");
    let expected = "events with stacks that proftool does not read, left out: jdk.ThreadStart (4)\n";
    assert!(stderr.contains(expected), "{stderr}");
}

/// JFR 1.0's events (JDK 9 and 10) read as JFR 2's: `com.oracle.jdk.ExecutionSample` is samples,
/// and a stub's frame, whose class is empty, is its name alone, as the JDK's JSON gives it.
#[test]
fn jfr_1_0_reads_with_its_old_names() {
    let (text, _) = info("jfr/jfr-1.0.jfr");
    assert!(
        text.contains("jfr.version 1.0\n") && text.contains("metric     samples (samples, count, additive): total 5\n")
    );
    let (out, _) =
        run(&["convert", "-q", "--to", "folded", "--metric", "monitor-enter-time"], &fixture("jfr/jfr-1.0.jfr"));
    assert!(out.contains("main;demo.Main.run;itable stub;demo.Main 2500000\n"), "{out}");
}

/// JFR 1.0 without compressed integers (jfr-1.0-plain.jfr: every integer big-endian of its type's
/// width, the header's features flag unset, as JMC's parser reads such a chunk) reads as the same
/// recording with them, which the JDK's `jfr` reads (jfr-1.0.jfr): the same stacks of every metric.
#[test]
fn jfr_1_0_without_compressed_integers_reads_the_same() {
    let (text, _) = info("jfr/jfr-1.0-plain.jfr");
    assert!(text.contains("jfr.version 1.0\n"), "{text}");
    for (metric, _) in jdk_stacks("jfr-1.0") {
        let args = ["convert", "-q", "--to", "folded", "--lines", "--metric", &metric];
        let (plain, _) = run(&args, &fixture("jfr/jfr-1.0-plain.jfr"));
        let (compressed, _) = run(&args, &fixture("jfr/jfr-1.0.jfr"));
        assert_eq!(plain, compressed, "{metric}");
    }
}

/// Each execution sample keeps its time: hot.jfr's 75 samples written as the Firefox Profiler's are
/// at the start times `jfr print --json` gives them (hot.jfr.times.txt, ns since the epoch), to the
/// µs: the file's ms since the epoch are floats of a quarter µs.
#[test]
fn execution_samples_keep_their_times() {
    let text = std::fs::read_to_string(fixture("jfr/hot.jfr.times.txt")).unwrap();
    let mut theirs: Vec<i64> = text.lines().map(|ns| (ns.parse::<i64>().unwrap() + 500) / 1000).collect();
    theirs.sort_unstable();
    let ours = firefox_sample_micros(&fixture("jfr/hot.jfr"));
    assert_eq!((theirs.len(), ours.len()), (75, 75));
    assert!(ours.iter().zip(&theirs).all(|(a, b)| (a - b).abs() <= 1), "{ours:?}\n{theirs:?}");
}

/// A time range cuts the execution samples, whose times the recording keeps (hot.jfr.times.txt,
/// `jfr print --json`'s, the timeline starting at the first): the 40 before the 41st's time, and
/// the 35 from it on. The allocation samples beside them are in no timeline: left out of the range,
/// said (once the range was refused for them, so no recording of JDK 17's default settings could be
/// cut), and refused where they are the metric asked for.
#[test]
fn a_time_range_cuts_the_execution_samples_and_leaves_the_allocations_out() {
    let text = std::fs::read_to_string(fixture("jfr/hot.jfr.times.txt")).unwrap();
    let mut times: Vec<i64> = text.lines().map(|ns| ns.parse::<i64>().unwrap()).collect();
    times.sort_unstable();
    let at = format!("{}ns", times[40] - times[0]);
    for (range, selected) in [("--to-time", 40), ("--from-time", 35)] {
        let out = proftool().args(["summary", "--format", "json", range, &at]).arg(fixture("jfr/hot.jfr")).assert();
        let out = out.success().get_output().clone();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((json["metric"].as_str(), json["selected"].as_i64()), (Some("samples"), Some(selected)));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("alloc-weight, sampled objects left out, the timeline's samples holding none of them"),
            "{err}"
        );
    }
    let err =
        failure(proftool().args(["summary", "--metric", "alloc-weight", "--to-time", &at]).arg(fixture("jfr/hot.jfr")));
    assert!(err.contains("its alloc-weight is not all in its timeline's samples"), "{err}");
    assert!(err.contains("those of samples, native-samples are (--metric)"), "{err}");
}
