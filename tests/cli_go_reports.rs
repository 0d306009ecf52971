//! The reports on a Go CPU profile against `go tool pprof` (Debian golang-go 1.19): every expected
//! figure is what `go tool pprof` prints for `fixtures/cli/insert.pb.gz` (a recursive insert into a
//! binary tree, made by `fixtures/cli/make-insert.sh`; a frame per source line), with the command
//! that prints it beside it. Go writes 10 ms samples; pprof prints them in seconds.

use super::support::binary::{fixture, proftool};

const INSERT: &str = "cli/insert.pb.gz";

/// Runs `proftool -q <args> insert.pb.gz`, which must succeed, and returns its stdout.
fn report(args: &[&str]) -> String {
    let out = proftool().arg("-q").args(args).arg(fixture(INSERT)).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The report as JSON.
fn json(args: &[&str]) -> serde_json::Value {
    let mut with_format = args.to_vec();
    with_format.extend(["--format", "json"]);
    serde_json::from_str(&report(&with_format)).unwrap()
}

/// The `(name, field)` pairs of the JSON rows, `field` a number.
fn rows(json: &serde_json::Value, field: &str) -> Vec<(String, f64)> {
    (json["rows"].as_array().unwrap().iter())
        .map(|r| (r["name"].as_str().unwrap().to_string(), r[field].as_f64().unwrap()))
        .collect()
}

fn named(rows: &[(&str, f64)]) -> Vec<(String, f64)> {
    rows.iter().map(|&(n, v)| (n.to_string(), v)).collect()
}

// ---- function-level views merge a function's lines ----

/// `go tool pprof -peek '^main.insert$'`: callers main.main 1.51s; callees runtime.newobject 0.08s,
/// runtime.gcWriteBarrier 0.05s; flat 1.38s, cum 1.51s. main.insert calls itself (at lines 23
/// and 25), which is no callee; its own time is that of all its calls, as `-top`'s flat is.
#[test]
fn callees_of_a_recursive_function_are_pprofs_edges() {
    let callees = json(&["calls", "--callees", "--fn", "main.insert"]);
    assert_eq!(callees["functions"][0]["total"], 1_510_000_000i64);
    assert_eq!(
        rows(&callees, "value"),
        named(&[("(self)", 1.38e9), ("runtime.newobject", 8e7), ("runtime.gcWriteBarrier", 5e7)])
    );
    // Its callers: main.main 1.51s, as pprof's; and, as every sample passes through its calls of
    // itself, main.insert 1.51s too (issue 26 §4), an edge `-peek` leaves out.
    let callers = json(&["calls", "--fn", "main.insert"]);
    assert_eq!(rows(&callers, "value"), named(&[("main.insert", 1.51e9), ("main.main", 1.51e9)]));
    // `go tool pprof -peek '^runtime.newobject$'`: its one caller is main.insert, 0.08s.
    let newobject = json(&["calls", "--fn", "runtime.newobject"]);
    assert_eq!(rows(&newobject, "value"), named(&[("main.insert", 8e7)]));
}

/// `go tool pprof -top`: main.insert flat 1.38s, cum 1.51s; summary's self is calls' `(self)`.
#[test]
fn summary_self_is_the_functions_flat() {
    let summary = json(&["summary"]);
    let row = summary["rows"].as_array().unwrap().iter().find(|r| r["name"] == "main.insert").unwrap();
    assert_eq!((row["self"].as_f64(), row["total"].as_f64()), (Some(1.38e9), Some(1.51e9)));
}

/// `go tool pprof -top`, flat column: main.insert 1.38s (its lines 18, 23, 25 and 27 added up),
/// then runtime.markBits.isMarked and runtime.scanobject 0.10s each, runtime.findObject 0.05s.
#[test]
fn info_adds_a_functions_lines_up() {
    let out = proftool().args(["-q", "info", "--json"]).arg(fixture(INSERT)).assert().success();
    let info: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let top: Vec<(String, f64)> = (info["top_functions"].as_array().unwrap().iter().take(4))
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["self"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        top,
        named(&[
            ("main.insert", 1.38e9),
            ("runtime.markBits.isMarked", 1e8),
            ("runtime.scanobject", 1e8),
            ("runtime.findObject", 5e7)
        ])
    );
}

// ---- filters with pprof's meanings ----

/// Asserts that `got` is `want` to within rounding (shares are worked out as floats).
fn close(got: &serde_json::Value, want: f64) {
    let got = got.as_f64().unwrap();
    assert!((got - want).abs() < 1e-9 * want.abs().max(1.0), "{got} against {want}");
}

/// The row of `name` in a report's JSON.
fn row<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["rows"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()
}

/// `go tool pprof -top -hide '^runtime\.'`: "Showing nodes accounting for 1.52s, 84.44% of 1.80s
/// total"; main.insert flat 1.51s (83.89 %: the runtime frames it called hold no value of their
/// own any more), main.main cum 1.52s. The GC's stacks, only runtime frames, are gone from what is
/// shown, never from the total.
#[test]
fn hide_keeps_the_total_and_says_what_is_left() {
    let hidden = json(&["summary", "--hide", "^runtime\\."]);
    assert_eq!((hidden["total"].as_f64(), hidden["selected"].as_f64()), (Some(1.8e9), Some(1.52e9)));
    close(&row(&hidden, "main.insert")["self"], 1.51e9);
    close(&row(&hidden, "main.insert")["self_pct"], 100.0 * 1.51 / 1.8);
    close(&row(&hidden, "main.main")["total_pct"], 100.0 * 1.52 / 1.8);
}

/// `go tool pprof -top -focus newobject`: "Showing nodes accounting for 0.08s, 4.44% of 1.80s
/// total", main.insert cum 0.08s 4.44 %; with `-relative_percentages`, 100 % of 0.08s.
#[test]
fn focus_gives_shares_of_the_whole_profile_unless_asked_otherwise() {
    let focused = json(&["summary", "--focus", "newobject"]);
    assert_eq!((focused["total"].as_f64(), focused["selected"].as_f64()), (Some(1.8e9), Some(8e7)));
    close(&row(&focused, "main.insert")["total_pct"], 100.0 * 0.08 / 1.8);
    let relative = json(&["summary", "--focus", "newobject", "--relative-percentages"]);
    assert_eq!((relative["total"].as_f64(), relative["selected"].as_f64()), (Some(8e7), None));
    close(&row(&relative, "main.insert")["total_pct"], 100.0);
}

/// `go tool pprof -lines -top`: main.insert's lines 25, 23, 20, 18, 27 and 19 have cum 1.49s,
/// 1.46s, 0.09s, 0.05s, 0.03s and 0.01s; `--fn main.insert` with `--lines` is all of them, a block
/// each, as `-lines -peek` gives each line its own entry.
#[test]
fn fn_names_a_functions_lines_with_lines() {
    let calls = json(&["calls", "--lines", "--fn", "main.insert"]);
    let totals: Vec<f64> =
        calls["functions"].as_array().unwrap().iter().map(|f| f["total"].as_f64().unwrap()).collect();
    assert_eq!(totals, [1.49e9, 1.46e9, 9e7, 5e7, 3e7, 1e7]);
    // The subtrees under any of its lines: main.insert's cum, 1.51s.
    let selected = json(&["summary", "--lines", "--fn", "main.insert"]);
    assert_eq!(selected["selected"].as_f64(), Some(1.51e9));
}

/// A written file has no frame to hold the GC's stacks once their runtime frames are hidden:
/// 1.80s less pprof's 1.52s shown are dropped, and said to be.
#[test]
fn hide_says_what_a_written_file_drops() {
    let out = proftool()
        .args(["convert", "--hide", "^runtime\\.", "--to", "folded"])
        .arg(fixture(INSERT))
        .arg("-")
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("stacks made only of hidden frames are dropped, with 280000000 ns of cpu"), "{stderr}");
    let folded = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // 1.52s in samples of 10 ms.
    let samples: u64 = folded.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(samples, 152);
}

// ---- units a person reads ----

/// `go tool pprof -top`: "1.80s total", main.insert flat 1.38s cum 1.51s, main.main flat 0.01s;
/// `-hide '^runtime\.'`: 1.52s shown; `-focus newobject`: 0.08s. Text shows each column in the
/// unit of its largest value with three significant digits of it; `--unit` names one; JSON keeps
/// nanoseconds.
#[test]
fn text_shows_times_in_seconds_and_milliseconds() {
    let text = report(&["summary"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Total: 1.80 s");
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["name", "self", "s", "self", "%", "total", "s", "total", "%"]
    );
    let insert: Vec<&str> = lines.iter().find(|l| l.starts_with("main.insert ")).unwrap().split_whitespace().collect();
    assert_eq!(insert, ["main.insert", "1.38", "76.7", "1.51", "83.9"]);
    let hidden = report(&["summary", "--hide", "^runtime\\."]);
    assert!(hidden.starts_with("Total: 1.80 s; selected: 1.52 s\n"), "{hidden}");
    let focused = report(&["summary", "--focus", "newobject"]);
    assert!(focused.starts_with("Total: 1.80 s; selected: 80.0 ms\n"), "{focused}");
    let in_ms = report(&["summary", "--unit", "ms"]);
    assert!(in_ms.starts_with("Total: 1800 ms\n"), "{in_ms}");
    let insert_ms: Vec<&str> =
        in_ms.lines().find(|l| l.starts_with("main.insert ")).unwrap().split_whitespace().collect();
    assert_eq!(insert_ms, ["main.insert", "1380", "76.7", "1510", "83.9"]);
    let summary = json(&["summary"]);
    assert_eq!((summary["unit"].as_str(), summary["total"].as_i64()), (Some("ns"), Some(1_800_000_000)));
}

/// `go tool pprof -lines -top` places main.insert's heaviest lines in its source file:
/// `0.72s 40.00% … main.insert insert/main.go:25` and `0.56s 31.11% … main.insert insert/main.go:23`,
/// not in the binary (`/tmp/proftool-insert/insert`, the profile's mapping).
#[test]
fn a_go_line_is_named_by_its_source_file() {
    let top = rows(&json(&["summary", "--lines"]), "self");
    let heaviest: Vec<(String, f64)> = top.into_iter().filter(|(_, self_)| *self_ >= 5e8).collect();
    assert_eq!(
        heaviest,
        named(&[("main.insert[insert/main.go:25]", 7.2e8), ("main.insert[insert/main.go:23]", 5.6e8)])
    );
    // speedscope points at the same file and line.
    let out = proftool()
        .args(["convert", "-q", "--lines", "--to", "speedscope"])
        .arg(fixture(INSERT))
        .arg("-")
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let line25 = serde_json::json!({"name": "main.insert", "file": "insert/main.go", "line": 25});
    assert!(frames.contains(&line25), "{frames:?}");
}
