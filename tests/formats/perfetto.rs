//! Perfetto traces (protocol buffers; read only). No traced_perf, heapprofd or Chrome sampler runs
//! here (Debian's Chromium writes no StreamingProfilePacket on Linux), so the fixtures are encoded
//! by hand (fixtures/perfetto/make-fixtures.py) in the shapes those producers write, and every
//! figure below is worked out by hand from the script: its stacks and counts, the last heap dump
//! of each process, the sequences' interned tables cleared and reused, the samples left out.
//! trace_processor's own test traces (google/perfetto's test/trace_processor/diff_tests, not kept
//! here) read with the figures its tests expect (heap_profile_dump_max: 1000 and 90 bytes, 6 and 1
//! allocations).

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::Format;
use std::collections::BTreeMap;

/// The folded stacks of `fixture` weighed by `metric`, without stacks of no weight.
fn folded(fixture_path: &str, metric: &str) -> BTreeMap<String, i64> {
    let args = ["convert", "-q", "--to", "folded", "--metric", metric];
    let (out, _) = run(&args, &fixture(fixture_path));
    out.lines()
        .filter_map(|line| {
            let (stack, weight) = line.rsplit_once(' ')?;
            Some((stack.to_string(), weight.parse().ok()?)).filter(|(_, w)| *w != 0)
        })
        .collect()
}

fn map(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|&(s, w)| (s.to_string(), w)).collect()
}

/// traced_perf's samples: callstacks 1 to 4 sampled 5, 3, 2 and 4 times under the threads the
/// process tree names (`app` 42 and `worker` 43 of pid 42), frames named with their mapping's
/// path joined from its parts, the libc frame of no name by its file and address; the sequence
/// cleared and callstack 1 reused for `idle` (2 samples of pid 50, no names: `?`); a skipped
/// sample, one of a callstack never interned, and a packet of a sequence never cleared are said
/// on stderr, not counted.
#[test]
fn perf_samples_are_stacks_of_their_threads() {
    let expected = map(&[
        ("app-42/42;main;run;compute", 5),
        ("app-42/42;main;run;compute;libc.so.6+0x9d2f0", 3),
        ("app-42/42;main;run", 2),
        ("worker-42/43;worker_loop;compute", 4),
        ("?-50/51;idle", 2),
    ]);
    assert_eq!(folded("perfetto/perf-samples.pftrace", "samples"), expected);
    // The same packets, all but the first two deflated into one packet's compressed_packets.
    assert_eq!(folded("perfetto/perf-compressed.pftrace", "samples"), expected);
    let (_, err) = to_folded(&fixture("perfetto/perf-samples.pftrace"));
    assert!(err.contains("1 of 6 frames have no function name (not symbolized)"), "{err}");
    assert!(err.contains("1 perf samples without a callstack left out"), "{err}");
    assert!(err.contains("1 samples (and heap entries) left out, of weight 1"), "{err}");
    assert!(err.contains("1 packets of samples left out: their sequence's interned data was lost"), "{err}");
}

/// Chrome's sampler: 7 + 2 callstack ids in two StreamingProfilePackets, a sample each, under the
/// thread of the sequence's ThreadDescriptor (CrRendererMain, tid 701 of pid 700).
#[test]
fn streaming_profile_packets_are_samples_of_their_sequence_thread() {
    let expected = map(&[
        ("CrRendererMain-700/701;base::ThreadControllerImpl::RunTask;v8::internal::Invoke", 2),
        ("CrRendererMain-700/701;base::ThreadControllerImpl::RunTask;v8::internal::Invoke;chromium+0x7abc", 5),
        ("CrRendererMain-700/701;base::ThreadControllerImpl::RunTask", 2),
    ]);
    assert_eq!(folded("perfetto/chrome-sampler.pftrace", "samples"), expected);
}

/// CPU samples are laid out at their times (ns), on the nodes of their stacks: traced_perf's at
/// their packets' times (by the script: from 1000 ns, 10 ns apart in the order written, the three
/// samples left out at 1140 taking no place); Chrome's sampler's at its thread's time (no
/// reference timestamp: 0) moved on by each sample's delta, 50 ms, across both packets (the third
/// packet's first delta is 0: its sample is at 350 ms beside the second packet's last).
#[test]
fn samples_are_laid_out_at_their_times() {
    let leaves = |path: &str| -> Vec<(i64, String)> {
        let (profile, _) = read_fixture(Format::Perfetto, &fixture(path));
        let samples = profile.timeline.as_ref().map_or(&[][..], |t| t.samples());
        samples.iter().map(|s| (s.time, profile.frames.get(profile.tree.frame(s.node)).name.clone())).collect()
    };
    let at = |pairs: &[(i64, &str)]| pairs.iter().map(|&(t, n)| (t, n.to_string())).collect::<Vec<_>>();
    let runs = [("compute", 5), ("libc.so.6+0x9d2f0", 3), ("run", 2), ("compute", 4)];
    let names = runs.iter().flat_map(|&(name, n)| std::iter::repeat_n(name, n));
    let mut perf: Vec<(i64, &str)> = (1000..).step_by(10).zip(names).collect();
    perf.extend([(1150, "idle"), (1160, "idle")]);
    assert_eq!(leaves("perfetto/perf-samples.pftrace"), at(&perf));
    let (invoke, unnamed, task) = ("v8::internal::Invoke", "chromium+0x7abc", "base::ThreadControllerImpl::RunTask");
    let ms = 1_000_000;
    let chrome = [
        (50 * ms, invoke),
        (100 * ms, unnamed),
        (150 * ms, unnamed),
        (200 * ms, task),
        (250 * ms, invoke),
        (300 * ms, unnamed),
        (350 * ms, unnamed),
        (350 * ms, task),
        (400 * ms, unnamed),
    ];
    assert_eq!(leaves("perfetto/chrome-sampler.pftrace"), at(&chrome));
}

/// A protobuf field: a number as a varint, bytes length-delimited.
fn field(number: u64, value: Result<u64, &[u8]>) -> Vec<u8> {
    let varint = |mut n: u64, out: &mut Vec<u8>| loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        out.push(if n > 0 { byte | 0x80 } else { byte });
        if n == 0 {
            break;
        }
    };
    let mut out = Vec::new();
    match value {
        Ok(n) => (varint(number << 3, &mut out), varint(n, &mut out)),
        Err(bytes) => (varint(number << 3 | 2, &mut out), varint(bytes.len() as u64, &mut out)),
    };
    out.extend(value.err().unwrap_or_default());
    out
}

/// A StreamingProfilePacket of two samples and one delta: its second sample has no time, so the
/// profile keeps both stacks and lays out neither (a timeline holds every sample or none), and
/// says why.
#[test]
fn samples_of_no_time_are_said_and_not_laid_out() {
    let interned = [
        field(5, Err(&[field(1, Ok(1)), field(2, Err(b"f"))].concat())), // function_names: 1 "f"
        field(6, Err(&[field(1, Ok(1)), field(2, Ok(1))].concat())),     // frames: 1, named 1
        field(7, Err(&[field(1, Ok(1)), field(2, Ok(1))].concat())),     // callstacks: 1, frame 1
    ]
    .concat();
    let thread = [field(1, Ok(7)), field(2, Ok(8))].concat(); // pid 7, tid 8
    let first = [field(10, Ok(1)), field(13, Ok(1)), field(44, Err(&thread)), field(12, Err(&interned))].concat();
    let streaming = [field(1, Ok(1)), field(1, Ok(1)), field(2, Ok(10))].concat();
    let second = [field(10, Ok(1)), field(13, Ok(2)), field(54, Err(&streaming))].concat();
    let trace = [field(1, Err(&first)), field(1, Err(&second))].concat();
    let (profile, diag) = crate::support::read_bytes(Format::Perfetto, &trace);
    let profile = profile.unwrap();
    assert_eq!(profile.timeline, None);
    let total = profile.tree.nodes().map(|n| profile.tree.self_value(0, n).as_f64()).sum::<f64>();
    assert_eq!(total, 2.0);
    let said = "1 of 2 CPU samples have no time";
    assert!(diag.warnings().iter().any(|w| w.message.contains(said)), "{:?}", diag.warnings());
}

/// heapprofd: the dump of pid 10 at time 20 (over two packets) replaces the one at time 10;
/// unreleased is allocated less freed (8192 − 2048, 1000 − 1000, 300 − 100 bytes; 8 − 2, 10 − 10,
/// 3 − 1 allocations), totals are allocated (8192, 1000, 300; 8, 10, 3); the ART heap's 640 bytes
/// of 5 allocations under a frame of its own.
#[test]
fn heap_dumps_are_bytes_and_counts_of_the_last_dump() {
    let path = "perfetto/heapprofd.perfetto-trace";
    let root = "/system/bin/surfaceflinger-10";
    let stacks = |a: i64, b: i64, c: i64, art: i64| {
        let all = [
            (format!("{root};main;render;alloc_buffer"), a),
            (format!("{root};main;render"), b),
            (format!("{root};main;libui.so+0x400"), c),
            (format!("{root};heap com.android.art;main;render"), art),
        ];
        all.into_iter().filter(|(_, w)| *w != 0).collect::<BTreeMap<String, i64>>()
    };
    assert_eq!(folded(path, "unreleased size"), stacks(6144, 0, 200, 640));
    assert_eq!(folded(path, "unreleased count"), stacks(6, 0, 2, 5));
    assert_eq!(folded(path, "total size"), stacks(8192, 1000, 300, 640));
    assert_eq!(folded(path, "total count"), stacks(8, 10, 3, 5));
    let (out, err) = info(path);
    assert!(out.contains("unreleased size (alloc, bytes, additive): total 6984"), "{out}");
    assert!(out.contains("unreleased count (objects, count, additive): total 13"), "{out}");
    assert!(err.contains("1 earlier heap dumps left out"), "{err}");
}

/// A trace is told by its content whatever its name, and not taken for pprof.
#[test]
fn a_trace_is_told_by_its_content() {
    let dir = temp();
    let path = dir.path().join("trace.pb");
    std::fs::copy(fixture("perfetto/perf-samples.pftrace"), &path).unwrap();
    let out = proftool().arg("info").arg(&path).assert().success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(out.contains("perfetto (recognised by content)"), "{out}");
}

/// Chromium's own trace (fixtures/perfetto/make-chromium.sh): its renderers' task slices on its
/// incremental clock, each thread's time the durations of its outermost slices that the script
/// added up from the trace (chromium-renderer.txt: 2,549,219,000 ns of the page's 2.5 s loop on
/// one renderer's main thread), in nanoseconds.
#[test]
fn chromium_slices_are_time_of_their_threads() {
    let expected: BTreeMap<String, i64> = std::fs::read_to_string(fixture("perfetto/chromium-renderer.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (thread, ns) = l.rsplit_once(' ').unwrap();
            (thread.to_string(), ns.parse().unwrap())
        })
        .collect();
    let mut threads = BTreeMap::new();
    for (stack, ns) in folded("perfetto/chromium-renderer.pftrace", "time") {
        *threads.entry(stack.split(';').next().unwrap().to_string()).or_insert(0) += ns;
    }
    assert_eq!(threads, expected);
    assert!(expected.values().any(|&ns| ns > 2_500_000_000), "{expected:?}");
}

/// Track events as Chrome writes them (fixtures/perfetto/make-fixtures.py, `slices()`): on clock
/// 64, microseconds each added to the last from 100, `a` opens at 100, `b` at 105 and closes at
/// 115, `a` closes at 118 (a: 5 + 3 µs of its own, a;b 10 µs), an end of nothing at 119, `c` opens
/// at 121 and `d` at 125, both left open (c: 4 µs, up to the track's last event; d none); on the
/// named track, `x` from 1,000 to 4,000 ns of BOOTTIME.
#[test]
fn slices_are_time_on_their_sequences_clock() {
    let expected = map(&[("main-7/8;a", 8000), ("main-7/8;a;b", 10000), ("main-7/8;c", 4000), ("async;x", 3000)]);
    assert_eq!(folded("perfetto/slices.pftrace", "time"), expected);
    let (_, err) = to_folded(&fixture("perfetto/slices.pftrace"));
    assert!(err.contains("1 ends of no open slice"), "{err}");
    assert!(err.contains("2 slices still open at the end"), "{err}");
}

/// Track-event slices keep their times through a conversion to a Chrome trace: by the fixture's
/// script, `a` from 100 to 118 µs, `b` inside it from 105 to 115, `c` from 121 to the track's last
/// event at 125 (left open), and on the named track `x` from 1 to 4 µs (1000 to 4000 ns on
/// BOOTTIME); `d`, opened at the last event, ran for no time and is no slice.
#[test]
fn slices_keep_their_times_in_a_trace() {
    let (out, _) = run(&["convert", "-q", "--to", "chrome-trace"], &fixture("perfetto/slices.pftrace"));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut begins = Vec::new();
    let mut ends = Vec::new();
    for event in json["traceEvents"].as_array().unwrap() {
        let (name, ts) = (event["name"].as_str().unwrap_or_default().to_string(), event["ts"].as_f64());
        match event["ph"].as_str() {
            Some("B") => begins.push((name, ts.unwrap())),
            Some("E") => ends.push((name, ts.unwrap())),
            _ => {}
        }
    }
    begins.sort_by(|a, b| a.1.total_cmp(&b.1));
    ends.sort_by(|a, b| a.1.total_cmp(&b.1));
    let named = |pairs: &[(&str, f64)]| pairs.iter().map(|&(n, t)| (n.to_string(), t)).collect::<Vec<_>>();
    assert_eq!(begins, named(&[("x", 1.0), ("a", 100.0), ("b", 105.0), ("c", 121.0)]));
    assert_eq!(ends, named(&[("x", 4.0), ("b", 115.0), ("a", 118.0), ("c", 125.0)]));
}
