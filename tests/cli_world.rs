//! The `proftool` binary on the rest of the world's profiles: Linux `perf script` text (against
//! `inferno-collapse-perf` where it is installed), Chrome traces.

use crate::support::binary::*;

/// Folded lines, sorted: inferno writes its stacks in another order.
fn sorted(folded: &str) -> Vec<String> {
    let mut lines: Vec<String> = folded.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// The stacks of `edge.perf` as inferno-collapse-perf 0.12.8 collapses it with `--tid` (its output,
/// checked line by line against the file): the first event (`cycles`) only, weighed by its periods;
/// a frame in parentheses and a sample without frames dropped; an empty symbol as a space.
#[test]
fn perf_script_reads_as_inferno_collapses_it() {
    let (out, _) = run(&["convert", "-q", "--perf-tid", "--to", "folded"], &fixture("perf/edge.perf"));
    let expected = [
        "V8_WorkerThread-24636/25607; ;[libc.so.6];v8::internal::Foo 260000",
        "false-?/64414;[unknown] 34467",
        // The java sample is of another event (`instructions`): 0 of cycles, a line inferno leaves out.
        "java-12688/12764;net/http.(*Client).Do;org/mozilla/Context:::call;org/mozilla/Inner:::run_[i] 0",
        "swapper-?/0;native_safe_halt 100000",
    ];
    assert_eq!(sorted(&out), expected);
    // The other event is a metric of its own.
    let (out, _) = run(&["convert", "-q", "--metric", "instructions", "--to", "folded"], &fixture("perf/edge.perf"));
    assert!(out.contains("java;net/http.(*Client).Do;org/mozilla/Context:::call;org/mozilla/Inner:::run_[i] 500\n"));
}

/// Every real recording collapses to the same stacks and weights as `inferno-collapse-perf` (with
/// `--pid`, `--tid` and `--all` as `--perf-pid`, `--perf-tid` and `--perf-annotate`), where inferno
/// is installed. inferno misses
/// a period that two spaces separate from its event (`250000  cpu-clock:`, as perf pads events of
/// a file with two) and counts 1 per sample there: the samples metric of that event is compared.
#[test]
fn perf_script_agrees_with_inferno_collapse_perf() {
    let inferno = std::process::Command::new("inferno-collapse-perf").arg("--help").output();
    if !inferno.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: inferno-collapse-perf not found (cargo install inferno)");
        return;
    }
    for (file, metric) in [
        ("work.perf", "cpu-clock"),
        ("pid-cpu.perf", "cpu-clock"),
        ("two-events.perf", "cpu-clock samples"),
        ("edge.perf", "cycles"),
    ] {
        for (ours, theirs) in [
            (None, None),
            (Some("--perf-pid"), Some("--pid")),
            (Some("--perf-tid"), Some("--tid")),
            (Some("--perf-annotate"), Some("--all")),
        ] {
            let path = fixture(&format!("perf/{file}"));
            let mut args = vec!["convert", "-q", "--metric", metric, "--to", "folded"];
            args.extend(ours);
            let (out, _) = run(&args, &path);
            let mut command = std::process::Command::new("inferno-collapse-perf");
            command.args(theirs).arg(&path);
            let expected = String::from_utf8(command.output().unwrap().stdout).unwrap();
            // inferno writes no line for a stack of another event; proftool writes it with 0.
            let ours: Vec<String> = sorted(&out).into_iter().filter(|l| !l.ends_with(" 0")).collect();
            assert_eq!(ours, sorted(&expected), "{file} {ours:?}");
        }
    }
}

/// Folded samples into a Chrome trace: time at the interval (said on stderr), a thread `main` above
/// the roots, each stack a `B`/`E` slice whose callees follow one another from its start (5 ms a
/// sample: main 3 + 4 samples = 35,000 µs, parse from 0 to 15,000, render from 15,000 to 35,000),
/// each end with empty args (see the writer).
#[test]
fn samples_become_a_flame_chart_of_time_at_the_interval() {
    let stacks = b"main;parse 3\nmain;render;draw 4\nworker;poll 2\n";
    let (out, err) = run_stdin(&["convert", "--from", "folded", "--to", "chrome-trace", "--interval", "5ms"], stacks);
    assert!(err.contains("chrome-trace measures time: samples multiplied by an interval of 5ms"), "{err}");
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
/// same stacks as speedscope's: written as speedscope, the total is the trace's.
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
    assert_eq!((&profile["unit"], &profile["endValue"]), (&"microseconds".into(), &636794.into()));
    // Named as another JSON format, it says what it is.
    let out =
        proftool().args(["convert", "--from", "speedscope", "--to", "folded"]).arg(&trace).arg("-").assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("the content is a Chrome trace (JSON trace events); read it as chrome-trace"), "{err}");
}
