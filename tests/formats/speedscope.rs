//! speedscope files (`speedscope`): written with a profile per thread and additive metric, read
//! back with their units and frame facts, py-spy's threads, where functions are defined (GHC's
//! source locations as a frame's file and line).

use crate::support::binary::{fixture, perf_records, proftool, run, run_bytes, temp};
use crate::support::sorted_lines;

#[test]
fn speedscope_gets_the_stacks_with_their_weights() {
    let dir = temp();
    let out = dir.path().join("out.speedscope.json");
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&out).assert().success();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(doc["$schema"], "https://www.speedscope.app/file-format-schema.json");
    assert_eq!(doc["name"], "fib benchmark: run 2");
    let frames: Vec<&str> =
        doc["shared"]["frames"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    // The processes are threads, each a profile of its own named after it (speedscope's thread
    // menu); "Profile root" above them is no thread and no frame of theirs (issue 34 §8).
    assert_eq!(frames, ["CL-USER::FIB", "(METHOD PRINT-OBJECT (WIDGET T))", "CL-USER::|weird name|"]);
    // The stacks of processes.tree below each process (by hand), as frame indices.
    let profiles = doc["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), 2);
    let summary =
        |p: &serde_json::Value| (p["type"].clone(), p["name"].clone(), p["unit"].clone(), p["endValue"].clone());
    assert_eq!(summary(&profiles[0]), ("sampled".into(), "CAPI Execution Listener 1".into(), "none".into(), 90.into()));
    assert_eq!(profiles[0]["samples"], serde_json::json!([[], [0], [0, 0], [0, 0, 1], [2]]));
    assert_eq!(profiles[0]["weights"], serde_json::json!([5, 25, 25, 10, 25]));
    assert_eq!(summary(&profiles[1]), ("sampled".into(), "Idle \"process\"".into(), "none".into(), 10.into()));
    assert_eq!(
        (&profiles[1]["samples"], &profiles[1]["weights"]),
        (&serde_json::json!([[]]), &serde_json::json!([10]))
    );
}

#[test]
fn speedscope_gets_one_profile_per_additive_metric() {
    // GHC's text report: ticks (5) and allocation (12,800 bytes); entries are per node and dropped.
    let out = run(&["convert", "--to", "speedscope"], &fixture("ghc-prof/ghc70-no-src.prof")).0;
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let profiles: Vec<(&str, &str, i64)> = doc["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["unit"].as_str().unwrap(), p["endValue"].as_i64().unwrap()))
        .collect();
    assert_eq!(profiles, [("ticks", "none", 5), ("alloc", "bytes", 12800)]);
}

#[test]
fn speedscope_comes_back_with_its_units_and_frame_facts() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once.speedscope.json");
    let twice = dir.path().join("twice.speedscope.json");
    proftool().arg("convert").arg(fixture("speedscope/evented.speedscope.json")).arg(&once).assert().success();
    proftool().arg("convert").arg(&once).arg(&twice).assert().success();
    assert_eq!(std::fs::read(&once).unwrap(), std::fs::read(&twice).unwrap());
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&once).unwrap()).unwrap();
    // evented.speedscope.json: the main thread's events span 90 µs (from 100 to 190, evented still),
    // the worker's samples 12 µs and its allocation 3072 bytes.
    let span = |p: &serde_json::Value| p["endValue"].as_f64().unwrap() - p["startValue"].as_f64().unwrap();
    let profiles: Vec<(&str, &str, f64)> = (doc["profiles"].as_array().unwrap().iter())
        .map(|p| (p["name"].as_str().unwrap(), p["unit"].as_str().unwrap(), span(p)))
        .collect();
    // A profile per thread and metric, the time's (the profile's primary metric) named after the
    // threads alone.
    assert_eq!(
        profiles,
        [
            ("main thread", "microseconds", 90.0),
            ("worker", "microseconds", 12.0),
            ("main thread (alloc)", "bytes", 0.0),
            ("worker (alloc)", "bytes", 3072.0)
        ]
    );
    let frame =
        |name: &str| doc["shared"]["frames"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap().clone();
    assert_eq!(frame("parse"), serde_json::json!({"name": "parse", "file": "parse.js", "line": 10, "col": 3}));
    assert_eq!(frame("tokenize"), serde_json::json!({"name": "tokenize", "file": "parse.js"}));
    assert_eq!(frame("render"), serde_json::json!({"name": "render", "line": 7}));
}

#[test]
fn py_spy_threads_are_roots_named_after_their_profiles() {
    // py-spy.speedscope.json: the main thread has 4 samples in hot and 2 in cold, the background
    // thread 2 at spin's line 8 and 5 at its line 9, each 0.02 s (20 ms, 1 ms samples by default).
    let (out, _) = run(&["convert", "--to", "folded"], &fixture("speedscope/py-spy.speedscope.json"));
    let main = "Thread 3410 \"MainThread\";<module>;work;work.<locals>.<genexpr>";
    let background = "Thread 3412 \"background\";Thread._bootstrap;Thread._bootstrap_inner;Thread.run;background";
    assert_eq!(
        sorted_lines(&out),
        [format!("{main};cold;spin 40"), format!("{main};hot;spin 80"), format!("{background};spin 140")]
    );
}

/// The speedscope frame named `name`: (file, line, col).
fn speedscope_frame(doc: &serde_json::Value, name: &str) -> (Option<String>, Option<i64>, Option<i64>) {
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let frame = frames.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no frame {name}"));
    (frame["file"].as_str().map(str::to_string), frame["line"].as_i64(), frame["col"].as_i64())
}

#[test]
fn speedscope_frames_get_the_file_and_line_of_src_loc() {
    let (out, err) = run_bytes(&["convert", "--to", "speedscope"], &fixture("ghc-json/work.prof.json"));
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // From the file's cost_centres: parseLine.readEither' at Work/Parse.hs:(26,5)-(28,27), main at
    // work.hs:(25,1)-(30,46).
    let read_either = speedscope_frame(&doc, "Work.Parse.parseLine.readEither'");
    assert_eq!(read_either, (Some("Work/Parse.hs".into()), Some(26), Some(5)));
    assert_eq!(speedscope_frame(&doc, "Main.main"), (Some("work.hs".into()), Some(25), Some(1)));
    // <built-in> is not a location: no file (the module is in the name).
    assert_eq!(speedscope_frame(&doc, "MAIN.MAIN"), (None, None, None));
    assert!(!err.contains("per-frame facts"), "{err}");
}

#[test]
fn speedscope_frames_get_the_file_and_line_of_the_prof_src_column() {
    let (out, err) = run_bytes(&["convert", "--to", "speedscope"], &fixture("ghc-prof/work-ticks.prof"));
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // The SRC column of processLines.go: Work/Parse.hs:(14,5)-(17,22).
    let go = speedscope_frame(&doc, "Work.Parse.processLines.go");
    assert_eq!(go, (Some("Work/Parse.hs".into()), Some(14), Some(5)));
    assert!(!err.contains("per-frame facts"), "{err}");
}

/// An evented profile 100,000 frames deep (`a` and `b` opened in turn at times 0 to 99,999, then
/// closed in turn): each level is the innermost open frame for one unit after it opens and one
/// before it closes, the deepest for its one unit between: by hand, `a`'s levels (0, 2, …) 100,000
/// units of self time, `b`'s 99,999, 199,999 in all. Read one event at a time, its depth costs no
/// more than its length.
#[test]
fn a_deep_evented_profile_reads_each_level_once() {
    let depth = 100_000;
    let mut events = Vec::with_capacity(2 * depth);
    for at in 0..depth {
        events.push(serde_json::json!({"type": "O", "at": at, "frame": at % 2}));
    }
    for (i, level) in (0..depth).rev().enumerate() {
        events.push(serde_json::json!({"type": "C", "at": depth + i, "frame": level % 2}));
    }
    let document = serde_json::json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "a"}, {"name": "b"}]},
        "profiles": [{"type": "evented", "name": "deep", "unit": "microseconds", "startValue": 0,
                      "endValue": 2 * depth - 1, "events": events}]
    });
    let dir = temp();
    let input = dir.path().join("deep.speedscope.json");
    std::fs::write(&input, serde_json::to_vec(&document).unwrap()).unwrap();
    let output = |args: &[&str]| {
        let out = proftool().args(args).arg(&input).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let csv = output(&["summary", "--format", "csv"]);
    let mut rows: Vec<&str> = csv.lines().skip(1).collect();
    rows.sort();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows[0].starts_with("a,100000,"), "{csv}");
    assert!(rows[1].starts_with("b,99999,"), "{csv}");
    assert!(rows[2].starts_with("deep,0,"), "{csv}");
    let info: serde_json::Value = serde_json::from_str(&output(&["info", "--json"])).unwrap();
    assert_eq!(info["nodes"], depth + 1, "{info}");
}

/// The events of a speedscope file's evented profile named `name`: each one's type, its frame's
/// name and its time (read from the JSON on its own).
fn events_of(json: &serde_json::Value, name: &str) -> Vec<(String, String, f64)> {
    let frames = json["shared"]["frames"].as_array().unwrap();
    let profile = json["profiles"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap();
    assert_eq!(profile["type"], "evented");
    (profile["events"].as_array().unwrap().iter())
        .map(|e| {
            let frame = frames[e["frame"].as_u64().unwrap() as usize]["name"].as_str().unwrap();
            (e["type"].as_str().unwrap().to_string(), frame.to_string(), e["at"].as_f64().unwrap())
        })
        .collect()
}

/// An evented profile written from an evented profile has its events: the hand-made file's main
/// thread, its ten opens and closes at their times (170.5 µs too), in their order.
#[test]
fn evented_profiles_keep_their_events() {
    let source = fixture("speedscope/evented.speedscope.json");
    let theirs = events_of(&serde_json::from_str(&std::fs::read_to_string(&source).unwrap()).unwrap(), "main thread");
    assert_eq!(theirs.len(), 10);
    let (out, _) = run(&["convert", "-q", "--to", "speedscope"], &source);
    assert_eq!(events_of(&serde_json::from_str(&out).unwrap(), "main thread"), theirs);
}

/// A Chrome trace converts to an evented profile of its slices at their times: each open is a
/// begin of py-spy's work.json (its name and µs), each close an end (the trace's own events, read
/// here).
#[test]
fn a_traces_slices_are_events_at_their_times() {
    let trace = fixture("chrome-trace/work.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    // py-spy writes the array form.
    for event in json.as_array().unwrap() {
        match event["ph"].as_str() {
            Some("B") => begins.push((event["name"].as_str().unwrap().to_string(), event["ts"].as_f64().unwrap())),
            Some("E") => ends.push(event["ts"].as_f64().unwrap()),
            _ => {}
        }
    }
    let (out, _) = run(&["convert", "-q", "--to", "speedscope"], &trace);
    let written: serde_json::Value = serde_json::from_str(&out).unwrap();
    let thread = written["profiles"][0]["name"].as_str().unwrap().to_string();
    let events = events_of(&written, &thread);
    let mut opens: Vec<(String, f64)> = events.iter().filter(|e| e.0 == "O").map(|e| (e.1.clone(), e.2)).collect();
    let mut closes: Vec<f64> = events.iter().filter(|e| e.0 == "C").map(|e| e.2).collect();
    for list in [&mut begins, &mut opens] {
        list.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    ends.sort_by(f64::total_cmp);
    closes.sort_by(f64::total_cmp);
    assert_eq!(opens.len(), 309);
    assert_eq!((opens, closes), (begins, ends));
}

/// Each sampled profile of a speedscope document as (its name, its samples in the file's order,
/// each the names of its frames with their lines, root first), read here from the JSON.
fn sampled_sequences(doc: &serde_json::Value) -> Vec<(String, Vec<Vec<String>>)> {
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let frame = |i: &serde_json::Value| {
        let f = &frames[i.as_u64().unwrap() as usize];
        format!("{}:{}", f["name"].as_str().unwrap(), f["line"])
    };
    let sampled = doc["profiles"].as_array().unwrap().iter().filter(|p| p["type"] == "sampled");
    sampled
        .map(|p| {
            let samples = p["samples"].as_array().unwrap();
            (
                p["name"].as_str().unwrap().to_string(),
                samples.iter().map(|s| s.as_array().unwrap().iter().map(frame).collect()).collect(),
            )
        })
        .collect()
}

/// speedscope → speedscope keeps the order py-spy took its samples in (speedscope's time order):
/// each thread's samples come back in the file's sequence, not by stack, and say so.
#[test]
fn py_spy_samples_keep_their_order() {
    let source = fixture("speedscope/py-spy.speedscope.json");
    let (out, _) = run(&["convert", "-q", "--to", "speedscope"], &source);
    let written: serde_json::Value = serde_json::from_str(&out).unwrap();
    let original: serde_json::Value = serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
    assert_eq!(sampled_sequences(&written), sampled_sequences(&original));
    assert!(written["profiles"].as_array().unwrap().iter().all(|p| p["inTimeOrder"] == true));
}

/// perf → speedscope: each thread's profile of cpu-clock time holds the thread's perf records in
/// the order they were taken (their leaves, read from the text here), one period each; the profile
/// of samples, which has no time to lay them out by, holds them by stack.
#[test]
fn perf_samples_are_in_time_order_in_the_profiles_of_time() {
    let (out, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture("perf/threads.perf"));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let records = perf_records("perf/threads.perf");
    let mut checked = 0;
    for profile in doc["profiles"].as_array().unwrap().iter().filter(|p| p["unit"] == "nanoseconds") {
        let thread = profile["thread"].as_str().unwrap();
        let mut taken: Vec<(i64, String)> =
            records.iter().filter(|(t, _, _)| t == thread).map(|(_, us, frames)| (*us, frames[0].clone())).collect();
        taken.sort();
        let (_, samples) =
            sampled_sequences(&serde_json::json!({"shared": doc["shared"], "profiles": [profile]})).remove(0);
        let leaves: Vec<String> =
            samples.iter().map(|s| s.last().unwrap().split(':').next().unwrap().to_string()).collect();
        assert_eq!(leaves, taken.iter().map(|(_, leaf)| leaf.clone()).collect::<Vec<_>>(), "{thread}");
        assert!(profile["weights"].as_array().unwrap().iter().all(|w| w == 1001001), "{thread}");
        assert_eq!(profile["inTimeOrder"], true);
        checked += taken.len();
    }
    assert_eq!(checked, 26);
}
