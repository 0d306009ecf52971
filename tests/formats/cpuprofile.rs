//! V8 CPU profiles (`cpuprofile`): the time they weigh as speedscope and DevTools weigh it,
//! `--max-samples` before the memory is taken (heap profiles are told apart in heapprofile.rs).

use crate::support::binary::{failure, files_in, fixture, info, proftool, run, stacks, temp};
use std::path::Path;

#[test]
fn a_cpuprofile_of_more_samples_than_max_samples_is_refused_before_it_takes_the_memory() {
    // A count of 2^32 in one line: a .cpuprofile writes a sample and a time delta per count.
    let dir = temp();
    let input = dir.path().join("big.folded");
    std::fs::write(&input, "main;work 4294967296\n").unwrap();
    let output = dir.path().join("out.cpuprofile");
    let out = proftool().arg("convert").arg(&input).arg(&output).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("4294967296 samples would be 4294967296 entries of samples and timeDeltas, more than --max-samples 10000000 allows"), "{stderr}");
    assert_eq!(files_in(dir.path()), vec!["big.folded"]);
}

/// A `.cpuprofile` weighs `endTime` − `startTime`, as speedscope totals it and DevTools' call tree
/// shares it out: the time before the first sample is the first sample's, the time after the last
/// the last's.
#[test]
fn a_cpuprofile_weighs_its_span() {
    // speedscope 209,457 µs (proftool 196,314 before, as VS Code weighs it).
    let (text, _) = info("cpuprofile/work.cpuprofile");
    assert!(text.contains("metric     time (time, us, additive): total 209457\n"), "{text}");
    // The old format (node 10: a `head` tree, `startTime` in whole seconds, 20 `timestamps` for 19
    // samples), written by hand: the last timestamp less the first, 41,075,136,550 − 41,075,118,000
    // µs, as DevTools reads it (speedscope adds the 118,000 µs from the whole-second startTime).
    let (text, _) = info("cpuprofile/node10-old-format.cpuprofile");
    assert!(text.contains("metric     time (time, us, additive): total 18550\n"), "{text}");
    // Its tree, as its nodes nest: each sample weighs the time to the next timestamp (by hand from
    // the file: draw's 8 samples 8,200 µs, parse's 6 6,050, main's 2 (the last to the closing
    // timestamp) 2,050, the garbage collector's 2 1,350, (program)'s one 900).
    let stacks = stacks("cpuprofile/node10-old-format.cpuprofile", false);
    let expected = [
        ("(anonymous main.js:1);main", 2_050),
        ("(anonymous main.js:1);main;parse", 6_050),
        ("(anonymous main.js:1);main;render;draw", 8_200),
        ("(garbage collector)", 1_350),
        ("(program)", 900),
    ];
    assert_eq!(stacks, expected.iter().map(|&(s, w)| (s.to_string(), w)).collect());
}

/// Each sample of a `.cpuprofile` as its node's function name and its delta, in the file's order,
/// and the file's `startTime` and `endTime` (read from the JSON on its own).
fn samples_of(json: &serde_json::Value) -> (Vec<(String, i64)>, i64, i64) {
    let names: std::collections::HashMap<u64, &str> = (json["nodes"].as_array().unwrap().iter())
        .map(|n| (n["id"].as_u64().unwrap(), n["callFrame"]["functionName"].as_str().unwrap()))
        .collect();
    let samples = json["samples"].as_array().unwrap().iter().zip(json["timeDeltas"].as_array().unwrap());
    let samples = samples.map(|(id, delta)| (names[&id.as_u64().unwrap()].to_string(), delta.as_i64().unwrap()));
    (samples.collect(), json["startTime"].as_i64().unwrap(), json["endTime"].as_i64().unwrap())
}

/// A `.cpuprofile` written from a `.cpuprofile` has its samples and deltas: work.cpuprofile's 91
/// samples, each of the function it was of, at its delta, from its `startTime` to its `endTime`,
/// then the closing `(root)` sample at `endTime` that gives the last its time in speedscope.
#[test]
fn samples_and_deltas_survive_a_round_trip() {
    let path = fixture("cpuprofile/work.cpuprofile");
    let source: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (theirs, start, end) = samples_of(&source);
    assert_eq!(theirs.len(), 91);
    let (out, err) = run(&["convert", "--to", "cpuprofile"], &path);
    assert!(!err.contains("time"), "{err}");
    let (ours, our_start, our_end) = samples_of(&serde_json::from_str(&out).unwrap());
    assert_eq!((our_start, our_end), (start, end));
    let last = start + theirs.iter().map(|(_, delta)| delta).sum::<i64>();
    assert_eq!(ours[..91], theirs[..]);
    assert_eq!(ours[91..], [("(root)".to_string(), end - last)]);
}

/// A `.cpuprofile` at `path` of V8's `(root)` over a and b, its samples a, b, a at `deltas`, from
/// `start` to `end` (JSON numbers, µs).
fn a_b_a(path: &Path, start: &str, end: &str, deltas: &str) {
    let frame = |name: &str, line: u32| {
        format!(
            r#""callFrame":{{"functionName":"{name}","scriptId":"1","url":"file:///w.js","lineNumber":{line},"columnNumber":0}}"#
        )
    };
    let root = r#""callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}"#;
    let nodes =
        format!(r#"{{"id":1,{root},"children":[2,3]}},{{"id":2,{}}},{{"id":3,{}}}"#, frame("a", 0), frame("b", 4));
    let times = format!(r#""startTime":{start},"endTime":{end},"samples":[2,3,2],"timeDeltas":[{deltas}]"#);
    std::fs::write(path, format!(r#"{{"nodes":[{nodes}],{times}}}"#)).unwrap();
}

/// Samples whose deltas go back are weighed and written in time order, as DevTools sorts them: a
/// at 10 µs, b at 40 and a at 20 (its delta −20) are a, a, b, each weighing the time to the next
/// (by hand: a from the start to 20 and on to 40, 40 µs; b from 40 to the end, 60).
#[test]
fn samples_out_of_time_order_are_weighed_and_written_in_it() {
    let dir = temp();
    let input = dir.path().join("back.cpuprofile");
    a_b_a(&input, "0", "100", "10,30,-20");
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &input);
    assert_eq!(folded, "a 40\nb 60\n");
    let (written, _) = run(&["convert", "-q", "--to", "cpuprofile"], &input);
    let (samples, start, end) = samples_of(&serde_json::from_str(&written).unwrap());
    let expected = [("a", 10), ("a", 10), ("b", 20), ("(root)", 60)];
    assert_eq!(samples, expected.map(|(name, delta)| (name.to_string(), delta)));
    assert_eq!((start, end), (0, 100));
}

/// A time no timeline can place (10^18 µs and past) is refused, saying which sample (or the start
/// and end) and where its field is; a number past 10^21 is shown with an exponent, not in its
/// 301 digits.
#[test]
fn times_past_the_limit_are_refused_with_which_and_where() {
    let dir = temp();
    let input = dir.path().join("far.cpuprofile");
    for (start, end, deltas, said) in [
        ("0", "100", "1,1e300,3", "found 1e300 at sample 1 (startTime plus its timeDeltas)"),
        ("0", "100", "1,-1e19,3", "found -10000000000000000000 at sample 1 (startTime plus its timeDeltas)"),
        ("0", "1e300", "1,2,3", "found startTime 0, endTime 1e300"),
    ] {
        a_b_a(&input, start, end, deltas);
        let err = failure(proftool().args(["convert", "--to", "folded"]).arg(&input).arg("-"));
        assert!(err.contains("far.cpuprofile: cpuprofile: line 1, column "), "{err}");
        assert!(err.contains(&format!("expected times below 10^18 us, {said}")), "{err}");
    }
}

/// perf's samples keep their order nowhere a `.cpuprofile` could show it truly: its time is the
/// cpu-clock's periods of three threads at once, not the time between samples, so they are laid out
/// in tree order, said on stderr; folded stacks hold no time at all, said too.
#[test]
fn a_timeline_not_held_is_said() {
    let (_, err) = run(&["convert", "--to", "cpuprofile"], &fixture("perf/threads.perf"));
    assert!(err.contains("a .cpuprofile's time is the time between its samples"), "{err}");
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("perf/threads.perf"));
    assert!(err.contains("folded holds no time order: the times of 26 samples are dropped"), "{err}");
}

/// A child id that names no node is skipped and counted, as speedscope and the Firefox Profiler
/// read it (the Firefox Profiler's test trace `test.chrome-unchunked.json` names 6 such children):
/// the nodes that are there keep their samples.
#[test]
fn children_that_are_no_node_are_skipped_and_said() {
    let profile = r#"{"nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2, 99]},
        {"id": 2, "callFrame": {"functionName": "f", "scriptId": "1", "url": "a.js", "lineNumber": 0, "columnNumber": 0}, "children": [7]}
      ], "startTime": 0, "endTime": 10, "samples": [2, 2], "timeDeltas": [0, 5]}"#;
    let (out, err) =
        crate::support::binary::run_stdin(&["convert", "--from", "cpuprofile", "--to", "folded"], profile.as_bytes());
    assert_eq!(out, "f 10\n");
    assert!(err.contains("children that are no node are skipped, as speedscope reads them: 2"), "{err}");
}
