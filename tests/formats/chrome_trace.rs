//! Chrome's trace events (`chrome-trace`) as Chrome, DevTools, Node and speedscope write and read
//! them: each expected figure is speedscope 1.25.0's import of the same file (its importers run
//! headless under node, as `.ci/speedscope-import.mjs` runs them), DevTools' rule stated beside it,
//! or hand arithmetic on the file. And py-spy's traces, Perfetto's protocol buffers named, samples
//! written as a flame chart of time.

use crate::support::binary::{fixture, info, proftool, run, run_stdin, stacks, temp};
use std::collections::BTreeMap;

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

fn map(stacks: &[(&str, i64)]) -> BTreeMap<String, i64> {
    stacks.iter().map(|&(s, w)| (s.to_string(), w)).collect()
}

/// Hand-written traces (`fixtures/chrome-trace/cases/`) of the cases speedscope's own trace-event
/// test files pin down: the stacks and µs speedscope 1.25.0's importer builds from each (the args
/// it appends to a name left out), worked out by hand too, which proftool's reader follows where
/// the events contradict each other: an `X` on the span of a `B`/`E` pair, an `X` that ends after
/// its parent (the parent's end ignored), ends whose names or args do not match the innermost,
/// events that keep their file order at one timestamp, more ends than begins, slices of no
/// length, ends before their begins in the file, and Hermes' sampling form.
#[test]
fn trace_events_nest_as_speedscope_nests_them() {
    let cases: &[(&str, &[(&str, i64)])] = &[
        // A B/E pair and an X of one span: the pair encloses the X, whichever comes first; an X
        // within a pair's span nests in it.
        (
            "x-and-b-e-on-one-span.json",
            &[
                ("lex;scan", 3),
                ("load;read", 4),
                ("plan", 1),
                ("plan;emit", 2),
                ("send", 2),
                ("send;pack", 1),
                ("store", 2),
                ("store;hash", 1),
                ("walk", 2),
                ("walk;visit", 1),
            ],
        ),
        // inner (3 to 12) outlasts outer (0 to 8): outer's end is ignored.
        ("x-ending-after-its-parent.json", &[("outer", 3), ("outer;inner", 9)]),
        // Begins at one timestamp nest in file order, ends close the innermost.
        ("one-timestamp-keeps-file-order.json", &[("idle", 3), ("main", 3), ("main;run", 2), ("main;run;step", 4)]),
        // layout and paint begin at 2 and end at 4, layout's end first: matched by name.
        ("ends-at-one-timestamp-matched-by-name.json", &[("frame", 6), ("frame;layout;paint", 2)]),
        // Slices of one name begun at one timestamp, told apart by their args.
        (
            "one-name-nested-at-one-timestamp.json",
            &[("anon", 3), ("anon;anon;anon", 3), ("anon;anon;handler;anon", 3)],
        ),
        // request's end at 12 while parse is open is ignored; both close at the last event, 14.
        ("end-of-an-outer-slice.json", &[("request", 2), ("request;parse", 10), ("request;parse;log", 2)]),
        // Ends of slices never begun (other, more) are ignored.
        ("more-ends-than-begins.json", &[("outer", 3), ("outer;inner", 13)]),
        // X slices ending together: the longer (or, at one length, the first) encloses the other.
        (
            "x-slices-ending-together.json",
            &[("task", 19), ("task;open", 3), ("task;open;stat", 2), ("task;stat", 2), ("task;stat;open", 4)],
        ),
        // An end of another name is ignored, its time too: the begin closes at its own time.
        ("end-of-another-name.json", &[]),
        // Slices of no length (B and E of one name at one time, an X of dur 0, one whose E comes
        // before its B in the file) hold no time: main holds all 12 µs.
        ("slices-of-no-length.json", &[("main", 12)]),
        // Ends that come before their begins in the file: outer's end at 11 names another slice
        // than the innermost (inner, 3 to 12) and is ignored; outer closes at the last end, 12.
        ("ends-before-begins-in-the-file.json", &[("outer", 3), ("outer;inner", 9)]),
        // The sampling form (Hermes): each sample weighs the time to the next of its thread, the
        // last of each thread none.
        (
            "hermes-samples.json",
            &[
                ("[root thread 2]", 6000),
                ("[root thread 2];decode", 5000),
                ("[root]", 4000),
                ("[root];[GC Young Gen]", 3000),
                ("[root];render(http://localhost:8081/index.bundle?platform=ios&dev=false:12:5)", 5000),
                (
                    "[root];render(http://localhost:8081/index.bundle?platform=ios&dev=false:12:5);layout(http://localhost:8081/index.bundle?platform=ios&dev=false:40:3)",
                    3000,
                ),
            ],
        ),
    ];
    for (file, expected) in cases {
        assert_eq!(stacks(&format!("chrome-trace/cases/{file}"), true), map(expected), "{file}");
    }
}

/// An `X` slice of no length begins and ends at once, at the place its time finds it: before a
/// slice that begins at its time, after one that ends there. Clang's `-ftime-trace-granularity=0`
/// writes thousands (`zero` ends as it begins, then `sibling` begins); speedscope queued their ends
/// with the others', so that `zero`'s end came before its begin, closed nothing, and every slice
/// after it was left open (proftool gave `parent` 2 µs of 10, speedscope 10 µs to a thread of 14).
/// By hand, each thread (`clang-order`: the slices as Clang writes them, as they end; `time-order`):
/// `sibling` 2 to 5, `next` 5 to 7 inside `parent` 0 to 10 (its own 10 − 3 − 2 = 5), `after` 10
/// to 14; the three of no length hold nothing, and nothing is said.
#[test]
fn x_slices_of_no_length_begin_and_end_at_once() {
    let case = "chrome-trace/cases/x-of-no-length-beside-a-slice.json";
    let mut expected = Vec::new();
    for thread in ["clang-order", "time-order"] {
        let stacks = [("parent", 5), ("parent;sibling", 3), ("parent;next", 2), ("after", 4)];
        expected.extend(stacks.map(|(stack, us)| (format!("{thread};{stack}"), us)));
    }
    assert_eq!(stacks(case, false), expected.into_iter().collect());
    // The reader's warnings name the file: none.
    let (_, err) = run(&["convert", "--to", "folded"], &fixture(case));
    assert!(!err.contains(&format!("{case}: ")), "{err}");
}

/// `X` slices of one name (Clang's `InstantiateFunction`, told apart by `args.detail`) ending at
/// one time each close their own slice, innermost first, and nothing is said (proftool once said
/// "end (E) events whose args differ" of a file of no `E`: each end was matched by name with
/// another's slice). By hand, `nested`: `a` 0 to 10 holds `b` 2 to 10 holds `c` 6 to 10 (2, 4 and 4
/// µs of their own). `overlapping`: `a` 0 to 10 and `b` 2 to 12 overlap: `a`'s end at 10 closes `b`, the
/// innermost, and `b`'s at 12 closes `a` (`a` 2 + 2, `b` 8), as speedscope reads them; the two ends
/// that closed another slice of their name are counted.
#[test]
fn x_slices_of_one_name_ending_together_close_their_own() {
    let case = "chrome-trace/cases/x-slices-of-one-name-ending-together.json";
    let expected = [
        ("nested;Instantiate (a)", 2),
        ("nested;Instantiate (a);Instantiate (b)", 4),
        ("nested;Instantiate (a);Instantiate (b);Instantiate (c)", 4),
        ("overlapping;Instantiate (a)", 4),
        ("overlapping;Instantiate (a);Instantiate (b)", 8),
    ];
    assert_eq!(stacks(case, false), map(&expected));
    let (_, err) = run(&["convert", "--to", "folded"], &fixture(case));
    assert!(!err.contains("end (E) events"), "{err}");
    let overlapping = "X slices' ends that find another slice of their name innermost (the two overlap) close it";
    assert!(err.contains(&format!("{overlapping}, as speedscope closes it: 2\n")), "{err}");
}

/// The own time (µs) of each stack of a Clang trace's `X` slices (its `Total …` summaries left
/// out), replayed here on their own: a thread's slices in start order, the longer first, each
/// inside the innermost open one it starts within (checked to end within it too: the slices nest),
/// its time its `dur` less its children's; a name followed by its `args.detail`.
fn replayed_clang_slices(path: &std::path::Path) -> BTreeMap<String, i64> {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let thread = events.iter().find(|e| e["name"] == "thread_name").unwrap()["args"]["name"].as_str().unwrap();
    let is_slice = |e: &&serde_json::Value| e["ph"] == "X" && !e["name"].as_str().unwrap().starts_with("Total ");
    let mut slices: Vec<(i64, i64, String)> = (events.iter().filter(is_slice))
        .map(|e| {
            let name = e["name"].as_str().unwrap();
            let name = e["args"]["detail"].as_str().map_or(name.to_string(), |detail| format!("{name} ({detail})"));
            (e["ts"].as_i64().unwrap(), e["dur"].as_i64().unwrap(), name)
        })
        .collect();
    slices.sort_by_key(|&(ts, dur, _)| (ts, -dur));
    let mut own: BTreeMap<String, i64> = BTreeMap::new();
    // The open slices, each its end and its stack.
    let mut open: Vec<(i64, String)> = Vec::new();
    for (ts, dur, name) in slices {
        while open.last().is_some_and(|(end, _)| ts >= *end) {
            open.pop();
        }
        let stack = match open.last() {
            Some((end, parent)) => {
                assert!(ts + dur <= *end, "{name} at {ts} ends after {parent}");
                *own.get_mut(parent).unwrap() -= dur;
                format!("{parent};{name}")
            }
            None => format!("{thread};{name}"),
        };
        *own.entry(stack.clone()).or_default() += dur;
        open.push((ts + dur, stack));
    }
    own.retain(|_, us| *us != 0);
    own
}

/// Clang's `-ftime-trace-granularity=0` trace of a small file (`time-trace-zero.json`): 145
/// slices, 27 of no length, 10 of them starting with a sibling (`RunPass (Shadow Stack GC
/// Lowering)` at the start of `RunPass (Lower constant intrinsics)`). Its stacks are the
/// replay's of its slices, whose own times add up to `ExecuteCompiler`'s `dur`, 15,737 µs; once
/// 15,417, 14 slices left open and 14 ends ignored (speedscope's reading), 28 ends said to have
/// args that differ.
#[test]
fn a_clang_trace_with_slices_of_no_length_nests_as_its_slices_do() {
    let case = "chrome-trace/time-trace-zero.json";
    let replayed = replayed_clang_slices(&fixture(case));
    assert_eq!(replayed.values().sum::<i64>(), 15_737);
    assert_eq!(stacks(case, false), replayed);
    let (_, err) = run(&["convert", "--to", "folded"], &fixture(case));
    let said: Vec<&str> = err.lines().filter(|line| line.contains(&format!("{case}: "))).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].ends_with("Clang's `Total …` summary tracks are not read (their slices overlap the others): 18"));
}

/// Tracks whose names are one (threads of one name in a process, a tid that a process and its fork
/// share: py-spy's `--subprocesses`) are roots of their own, as speedscope makes each (pid, tid) a
/// profile of its own: once one root, whose slices overlapped (by hand: Worker's a 0–100 µs and
/// b 50–150, each 100; c 20–80 in pid 2, 60; d 10–40 in pid 3, 30).
#[test]
fn tracks_of_one_name_are_roots_of_their_own() {
    let totals = thread_totals("chrome-trace/cases/threads-of-one-name.json");
    let expected =
        [("Worker (pid 1, tid 7)", 100), ("Worker (pid 1, tid 8)", 100), ("tid 7 (pid 2)", 60), ("tid 7 (pid 3)", 30)];
    assert_eq!(totals, expected.iter().map(|&(t, w)| (t.to_string(), w)).collect());
}

/// Chrome's performance recordings (DevTools' "Save profile", Chromium's and Node's trace events):
/// the CPU profiles they carry, each under its thread, with the time speedscope gives each profile
/// (its `endTime` − `startTime`), the task slices beside them not added in.
#[test]
fn recordings_read_their_cpu_profiles_with_speedscope_totals() {
    // Chrome 66's layout, written by hand: two `CpuProfile` events of two threads, no ids (once
    // "expected a unique id per node"); speedscope and by hand: CrRendererMain 12,000 µs, the
    // DedicatedWorker thread 8,500 µs, each its profile's endTime − startTime.
    let totals = thread_totals("chrome-trace/cases/cpuprofile-events-of-two-threads.json");
    let expected = [("CrRendererMain", 12_000), ("DedicatedWorker thread", 8_500)];
    assert_eq!(totals, expected.iter().map(|&(t, w)| (t.to_string(), w)).collect());
    // Chrome 141's, by hand: two chunks without args.data (once an error), skipped, a node whose
    // parent the file lacks (a root) and a sample of a node it lacks (the time of the sample
    // before); speedscope and by hand: 10,000 µs, the chunks' timeDeltas (no endTime: the last
    // sample weighs nothing).
    let (info, err) = info("chrome-trace/cases/chunks-without-data.json");
    assert!(info.contains("metric     time (time, us, additive): total 10000\n"), "{info}");
    assert!(err.contains("profile events without args.data carry no samples and are skipped"), "{err}");
    let expected = [("(program)", 3000), ("main", 1000), ("main;tick", 2000), ("render", 1500), ("render;draw", 2500)];
    assert_eq!(stacks("chrome-trace/cases/chunks-without-data.json", true), map(&expected));
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

/// Chromium's default trace format, Perfetto's protocol buffers, is read as perfetto (it was read
/// as a damaged pprof file): these first packets of a start hold no sample or slice; named as
/// pprof, it is refused as a Perfetto trace.
#[test]
fn a_perfetto_trace_is_named() {
    let path = fixture("chrome-trace/chromium-startup.pftrace");
    let out = proftool().args(["info"]).arg(&path).assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("perfetto: byte 0: expected a profile"), "{err}");
    let out = proftool().args(["info", "--from", "pprof"]).arg(&path).assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("the content is a Perfetto trace"), "{err}");
    assert!(err.contains("--from perfetto"), "{err}");
}

/// Folded samples into a Chrome trace: time at the interval (said on stderr), a thread `main` above
/// the roots, each stack a `B`/`E` slice whose callees follow one another from its start (5 ms a
/// sample: main 3 + 4 samples = 35,000 µs, parse from 0 to 15,000, render from 15,000 to 35,000),
/// each end with empty args (see the writer).
#[test]
fn samples_become_a_flame_chart_of_time_at_the_interval() {
    let stacks = b"main;parse 3\nmain;render;draw 4\nworker;poll 2\n";
    let (out, err) = run_stdin(&["convert", "--from", "folded", "--to", "chrome-trace", "--interval", "5ms"], stacks);
    assert!(err.contains("chrome-trace holds time: samples written as time at 5000 us each"), "{err}");
    assert!(err.contains("has no place for samples (slices of time hold no counts): dropped"), "{err}");
    let slices: Vec<&str> = out.lines().filter(|l| l.contains(r#""ph":"B""#) || l.contains(r#""ph":"E""#)).collect();
    assert_eq!(
        slices,
        [
            r#"{"name":"main","ph":"B","ts":0,"pid":1,"tid":1},"#,
            r#"{"name":"parse","ph":"B","ts":0,"pid":1,"tid":1},"#,
            r#"{"name":"parse","ph":"E","ts":15000,"pid":1,"tid":1,"args":{}},"#,
            r#"{"name":"render","ph":"B","ts":15000,"pid":1,"tid":1},"#,
            r#"{"name":"draw","ph":"B","ts":15000,"pid":1,"tid":1},"#,
            r#"{"name":"draw","ph":"E","ts":35000,"pid":1,"tid":1,"args":{}},"#,
            r#"{"name":"render","ph":"E","ts":35000,"pid":1,"tid":1,"args":{}},"#,
            r#"{"name":"main","ph":"E","ts":35000,"pid":1,"tid":1,"args":{}},"#,
            r#"{"name":"worker","ph":"B","ts":35000,"pid":1,"tid":1},"#,
            r#"{"name":"poll","ph":"B","ts":35000,"pid":1,"tid":1},"#,
            r#"{"name":"poll","ph":"E","ts":45000,"pid":1,"tid":1,"args":{}},"#,
            r#"{"name":"worker","ph":"E","ts":45000,"pid":1,"tid":1,"args":{}}"#,
        ]
    );
    assert!(out
        .contains(r#""name":"thread_name","cat":"__metadata","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"main"}"#));
}

/// A heap profile has no time to lay out: refused, as by the other targets weighed by time.
#[test]
fn a_profile_without_time_is_refused_as_a_trace() {
    let out = proftool()
        .args(["convert", "--to", "chrome-trace"])
        .arg(fixture("pprof/heap.pb.gz"))
        .arg("-")
        .assert()
        .failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("it weighs stacks by samples or time, and the profile has neither"), "{err}");
    assert!(out.get_output().stdout.is_empty());
}

/// py-spy's trace (a real recording) is recognised by content, and its µs are the time of the
/// same stacks as speedscope's: written as speedscope (an evented profile of its slices at their
/// times, from the first begin at 19079 µs), the total is the trace's.
#[test]
fn a_py_spy_trace_converts_with_its_total() {
    let trace = fixture("chrome-trace/work.json");
    let info = proftool().arg("info").arg(&trace).assert().success();
    let info = String::from_utf8(info.get_output().stdout.clone()).unwrap();
    assert!(info.contains("chrome-trace (recognised by content)"), "{info}");
    assert!(info.contains("metric     time (time, us, additive): total 636794"), "{info}");
    let (out, _) = run(&["convert", "-q", "--to", "speedscope"], &trace);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let profile = &json["profiles"][0];
    assert_eq!(profile["type"], "evented");
    assert_eq!((&profile["unit"], &profile["startValue"]), (&"microseconds".into(), &19079.into()));
    assert_eq!(profile["endValue"].as_i64().unwrap() - 19079, 636794);
    // Named as another JSON format, it says what it is.
    let out =
        proftool().args(["convert", "--from", "speedscope", "--to", "folded"]).arg(&trace).arg("-").assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("the content is a Chrome trace (JSON trace events); read it as chrome-trace"), "{err}");
}

/// A trace's CPU profiles give samples beside time, as the same profile saved as a `.cpuprofile`
/// does (and the Firefox Profiler counts them): each function's own samples are the entries of the
/// `samples` arrays of its profile's chunks that name its nodes, counted here from the JSON itself
/// (chromium-startup.json: 6,400 and 1,928; node-profile.json: 768). The last sample of a profile
/// without an end, which weighs no time, is one of them.
#[test]
fn cpu_profiles_in_a_trace_give_samples_too() {
    for (case, expected_total) in
        [("chrome-trace/chromium-startup.json", 8328), ("chrome-trace/node-profile.json", 768)]
    {
        let path = fixture(case);
        let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let events = trace.get("traceEvents").unwrap_or(&trace).as_array().unwrap();
        // Node names and samples per profile (its process and id), then samples per function name.
        let mut names: BTreeMap<(String, String, i64), String> = BTreeMap::new();
        let mut samples: Vec<(String, String, i64)> = Vec::new();
        for event in events.iter().filter(|e| matches!(e["name"].as_str(), Some("Profile" | "ProfileChunk"))) {
            let key = (event["pid"].to_string(), event["id"].to_string());
            let profile = &event["args"]["data"]["cpuProfile"];
            for node in profile["nodes"].as_array().into_iter().flatten() {
                let name = node["callFrame"]["functionName"].as_str().unwrap().to_string();
                names.insert((key.0.clone(), key.1.clone(), node["id"].as_i64().unwrap()), name);
            }
            for id in profile["samples"].as_array().into_iter().flatten() {
                samples.push((key.0.clone(), key.1.clone(), id.as_i64().unwrap()));
            }
        }
        assert_eq!(samples.len(), expected_total, "{case}");
        let mut by_name: BTreeMap<String, i64> = BTreeMap::new();
        for sample in &samples {
            *by_name.entry(names[sample].clone()).or_default() += 1;
        }
        let (text, _) = info(case);
        assert!(
            text.contains(&format!("metric     samples (samples, count, additive): total {expected_total}\n")),
            "{text}"
        );
        let args = ["summary", "--metric", "samples", "--format", "json", "--wide"];
        let out = proftool().args(args).arg(&path).assert().success().get_output().stdout.clone();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let ours: BTreeMap<String, i64> = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["self"].as_i64().unwrap() > 0)
            .map(|r| (r["name"].as_str().unwrap().to_string(), r["self"].as_i64().unwrap()))
            .collect();
        // Anonymous functions are named by where they are defined: compared in total.
        let anonymous = |m: &BTreeMap<String, i64>| -> i64 {
            m.iter().filter(|(n, _)| n.is_empty() || n.starts_with("(anonymous")).map(|(_, v)| v).sum()
        };
        assert_eq!(anonymous(&ours), anonymous(&by_name), "{case}");
        let named = |m: &BTreeMap<String, i64>| -> BTreeMap<String, i64> {
            m.iter()
                .filter(|(n, _)| !n.is_empty() && !n.starts_with("(anonymous"))
                .map(|(n, v)| (n.clone(), *v))
                .collect()
        };
        assert_eq!(named(&ours), named(&by_name), "{case}");
    }
}

/// The begins (name and µs) and the ends (µs) of a trace's slices, each sorted (read from the JSON
/// on its own): `X` events as a begin and an end.
fn slice_edges(path: &std::path::Path) -> (Vec<(String, f64)>, Vec<f64>) {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let events = json.get("traceEvents").unwrap_or(&json).as_array().unwrap();
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    for event in events {
        let (ts, name) = (event["ts"].as_f64(), event["name"].as_str().unwrap_or_default().to_string());
        match event["ph"].as_str() {
            Some("B") => begins.push((name, ts.unwrap())),
            Some("E") => ends.push(ts.unwrap()),
            Some("X") => {
                begins.push((name, ts.unwrap()));
                ends.push(ts.unwrap() + event["dur"].as_f64().unwrap());
            }
            _ => {}
        }
    }
    begins.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ends.sort_by(f64::total_cmp);
    (begins, ends)
}

/// A trace written from a trace has its slices at their times: py-spy's work.json, its 309
/// slices each beginning and ending at the µs it did (the file's own events, read here).
#[test]
fn slices_keep_their_times_through_a_round_trip() {
    let dir = temp();
    let out = dir.path().join("out.trace.json");
    let source = fixture("chrome-trace/work.json");
    proftool().args(["convert", "-q", "--to", "chrome-trace"]).arg(&source).arg(&out).assert().success();
    let (begins, ends) = slice_edges(&source);
    assert_eq!(begins.len(), 309);
    assert_eq!(slice_edges(&out), (begins, ends));
}

/// `--from-time`/`--to-time` cut a trace's slices to the range: py-spy's work.json from 150 to
/// 450 ms after its first event, against its `B`/`E` events paired here (a stack per thread): the
/// time selected is the outermost slices' time in the range, `leaf`'s the time of its slices in it
/// (it calls nothing), in µs.
#[test]
fn a_time_range_cuts_the_slices_of_a_trace() {
    let text = std::fs::read_to_string(fixture("chrome-trace/work.json")).unwrap();
    let events: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let first = events.iter().map(|e| e["ts"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
    let (from, to) = (first + 150_000.0, first + 450_000.0);
    let clip = |begin: f64, end: f64| (end.min(to) - begin.max(from)).max(0.0);
    let (mut selected, mut leaf) = (0.0, 0.0);
    let mut open: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for event in &events {
        let stack = open.entry(event["tid"].to_string()).or_default();
        let ts = event["ts"].as_f64().unwrap();
        match event["ph"].as_str().unwrap() {
            "B" => stack.push((event["name"].as_str().unwrap().to_string(), ts)),
            _ => {
                let (name, begin) = stack.pop().unwrap();
                selected += if stack.is_empty() { clip(begin, ts) } else { 0.0 };
                leaf += if name == "leaf" { clip(begin, ts) } else { 0.0 };
            }
        }
    }
    let args = ["summary", "-q", "--format", "json", "--from-time", "150ms", "--to-time", "450ms"];
    let out = proftool().args(args).arg(fixture("chrome-trace/work.json")).assert().success();
    let summary: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(summary["selected"].as_f64().unwrap(), selected);
    let row = summary["rows"].as_array().unwrap().iter().find(|r| r["name"] == "leaf").unwrap();
    assert_eq!(row["self"].as_f64().unwrap(), leaf);
    assert!(selected > 0.0 && leaf > 0.0 && selected < 636794.0);
}

/// The name of a V8 call frame's function; one of no name named by where it is defined (its file's
/// name, line and column, 1-based), as proftool names it: a trace holds no place of definition
/// beside a name.
fn function_name(frame: &serde_json::Value) -> String {
    match frame["functionName"].as_str().unwrap() {
        "" => {
            let file = frame["url"].as_str().unwrap_or("").rsplit('/').next().unwrap();
            let place = |key: &str| frame[key].as_i64().unwrap_or(-1) + 1;
            let (line, column) = (place("lineNumber"), place("columnNumber"));
            format!("(anonymous {file}:{line}:{column})")
        }
        name => name.to_string(),
    }
}

/// Each CPU profile of a trace, by its process and `id`: its samples as their nodes' function
/// names with their deltas, in order (the chunks joined in time order), its `startTime` and its
/// `endTime` where a chunk states one (read from the JSON on its own).
type CpuProfiles = BTreeMap<(u64, String), (Vec<(String, i64)>, i64, Option<i64>)>;

fn cpu_profiles_of(trace: &serde_json::Value) -> CpuProfiles {
    let mut events: Vec<&serde_json::Value> = trace["traceEvents"].as_array().unwrap().iter().collect();
    events.sort_by(|a, b| a["ts"].as_f64().unwrap_or(0.0).total_cmp(&b["ts"].as_f64().unwrap_or(0.0)));
    let mut profiles = CpuProfiles::new();
    let mut names: BTreeMap<(u64, String), BTreeMap<u64, String>> = BTreeMap::new();
    for event in events {
        let key = (event["pid"].as_u64().unwrap_or(0), event["id"].as_str().unwrap_or("").to_string());
        let data = &event["args"]["data"];
        match event["name"].as_str() {
            Some("Profile") => {
                profiles.insert(key, (Vec::new(), data["startTime"].as_i64().unwrap(), None));
            }
            Some("ProfileChunk") if data.is_object() => {
                let names = names.entry(key.clone()).or_default();
                for node in data["cpuProfile"]["nodes"].as_array().into_iter().flatten() {
                    names.insert(node["id"].as_u64().unwrap(), function_name(&node["callFrame"]));
                }
                let profile = profiles.get_mut(&key).unwrap();
                let samples = data["cpuProfile"]["samples"].as_array().into_iter().flatten();
                let deltas = data["timeDeltas"].as_array().into_iter().flatten();
                for (id, delta) in samples.zip(deltas) {
                    profile.0.push((names[&id.as_u64().unwrap()].clone(), delta.as_i64().unwrap()));
                }
                profile.2 = data["endTime"].as_i64().or(profile.2);
            }
            _ => {}
        }
    }
    profiles
}

/// A `.cpuprofile` into a Chrome trace is a CPU profile there, as DevTools saves one: node's 91
/// samples of work.cpuprofile, each of the function it was of at its delta, from the file's
/// `startTime` to its `endTime`, then the closing `(root)` sample at `endTime` (which gives the last
/// its time in speedscope); nothing said about time order.
#[test]
fn a_cpuprofile_is_a_cpu_profile_of_the_trace() {
    let path = fixture("cpuprofile/work.cpuprofile");
    let source: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let names: BTreeMap<u64, String> = (source["nodes"].as_array().unwrap().iter())
        .map(|n| (n["id"].as_u64().unwrap(), function_name(&n["callFrame"])))
        .collect();
    let samples = source["samples"].as_array().unwrap().iter().zip(source["timeDeltas"].as_array().unwrap());
    let theirs: Vec<(String, i64)> =
        samples.map(|(id, delta)| (names[&id.as_u64().unwrap()].to_string(), delta.as_i64().unwrap())).collect();
    let (start, end) = (source["startTime"].as_i64().unwrap(), source["endTime"].as_i64().unwrap());
    let (out, err) = run(&["convert", "--to", "chrome-trace"], &path);
    assert!(!err.contains("time"), "{err}");
    let profiles = cpu_profiles_of(&serde_json::from_str(&out).unwrap());
    assert_eq!(profiles.len(), 1);
    let (ours, our_start, our_end) = profiles.into_values().next().unwrap();
    assert_eq!((our_start, our_end), (start, Some(end)));
    assert_eq!(theirs.len(), 91);
    assert_eq!(ours[..91], theirs[..]);
    let last = start + theirs.iter().map(|(_, delta)| delta).sum::<i64>();
    assert_eq!(ours[91..], [("(root)".to_string(), end - last)]);
}

/// Chrome's own trace of two renderers' CPU profiles, written as a trace again: each profile's
/// samples at Chrome's deltas from Chrome's `startTime` (its 6,400 and 1,928 samples), then the
/// closing `(root)` sample at the end of its last sample's time; written again from that, the same
/// bytes.
#[test]
fn chromes_cpu_profiles_keep_their_samples_at_their_times() {
    let path = fixture("chrome-trace/chromium-startup.json");
    let source: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // The profiles in the order they start (the trace written numbers its processes anew).
    let by_start = |profiles: CpuProfiles| {
        let mut profiles: Vec<_> = profiles.into_values().collect();
        profiles.sort_by_key(|(_, start, _)| *start);
        profiles
    };
    let theirs = by_start(cpu_profiles_of(&source));
    let (out, _) = run(&["convert", "--to", "chrome-trace"], &path);
    let ours = by_start(cpu_profiles_of(&serde_json::from_str(&out).unwrap()));
    assert_eq!(theirs.iter().map(|(samples, _, _)| samples.len()).collect::<Vec<_>>(), [6400, 1928]);
    assert_eq!(ours.len(), 2);
    for ((their_samples, their_start, _), (our_samples, our_start, our_end)) in theirs.iter().zip(&ours) {
        assert_eq!(our_start, their_start);
        let n = their_samples.len();
        let differ = (0..n).find(|&i| our_samples[i] != their_samples[i]);
        assert!(
            differ.is_none(),
            "sample {differ:?}: {:?} against {:?}",
            our_samples[differ.unwrap()],
            their_samples[differ.unwrap()]
        );
        assert_eq!(our_samples[n].0, "(root)");
        let deltas: i64 = our_samples.iter().map(|(_, delta)| delta).sum();
        assert_eq!(Some(our_start + deltas), *our_end);
    }
    let dir = temp();
    let written = dir.path().join("chromium.trace.json");
    std::fs::write(&written, &out).unwrap();
    let (again, _) = run(&["convert", "--to", "chrome-trace"], &written);
    assert!(again == out);
}

/// perf's samples are no CPU profile: their time is the cpu-clock's periods of three threads at
/// once, not the time between samples, so the threads are slices laid out as a flame chart, said
/// on stderr (with the samples' metric, which slices do not hold).
#[test]
fn perf_samples_are_no_cpu_profile() {
    let (out, err) = run(&["convert", "--to", "chrome-trace"], &fixture("perf/threads.perf"));
    assert!(err.contains("the times of 26 samples are dropped, the threads laid out as a flame chart"), "{err}");
    assert!(err.contains("has no place for samples (slices of time hold no counts): dropped"), "{err}");
    assert!(!out.contains("ProfileChunk") && out.contains(r#""ph":"B""#));
}

/// A slice at a time no timeline can place is refused, its time shown as the `.cpuprofile` reader
/// shows one: in its digits below 10^21, with an exponent from there.
#[test]
fn a_slice_past_the_time_limit_is_refused_readably() {
    let dir = temp();
    let input = dir.path().join("far.trace.json");
    for (ts, said) in [("1e300", "found ts 1e300, dur 1"), ("2e18", "found ts 2000000000000000000, dur 1")] {
        std::fs::write(&input, format!(r#"[{{"ph":"X","ts":{ts},"dur":1,"name":"a","pid":1,"tid":1}}]"#)).unwrap();
        let out = proftool().args(["convert", "--to", "folded"]).arg(&input).arg("-").assert().code(1);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("chrome-trace: line 1, column "), "{err}");
        assert!(err.contains(&format!("expected times below 10^18 us, {said}")), "{err}");
    }
}

/// A syntax error is at its byte, the `x` at byte 71 after a name of two characters of two bytes
/// each, in the column of its character, 70: it was said to be one byte past it, in a column of
/// bytes.
#[test]
fn a_syntax_error_is_at_its_byte_and_character() {
    let text = r#"{"traceEvents":[{"name":"µé","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}x]}"#;
    let out = proftool()
        .args(["convert", "--from", "chrome-trace", "--to", "folded", "-", "-"])
        .write_stdin(text)
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("<stdin>: chrome-trace: line 1, column 70 (byte 71): "), "{err}");
}
