//! `proftool info`, `summary`, `calls` and `tree`, and the filters shared with `convert`.
//!
//! Every expectation is worked out by hand from the fixture (its dump, or the numbers the source
//! tool printed beside the data: LispWorks Seen/Top counts, GHC's individual and inherited %time,
//! the `]PROFILE` guide's figures), or read back from the fixture by a second path (the
//! Dyalog XML's rows, the LispWorks function-info), never copied from what proftool printed.

use super::support::binary::{fixture, proftool, temp};
use predicates::prelude::*;
use std::collections::BTreeMap;

/// Runs `proftool <args>`, which must succeed, and returns its stdout.
fn report(args: &[&str]) -> String {
    let out = proftool().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Runs `proftool <args>` with `stdin`, which must succeed, and returns its stdout.
fn report_stdin(args: &[&str], stdin: &str) -> String {
    let out = proftool().args(args).write_stdin(stdin).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Runs `proftool <args>`, which must fail with `code` and print nothing on stdout and one line on
/// stderr, which is returned.
fn failure(args: &[&str], stdin: &str, code: i32) -> String {
    let out = proftool().args(args).write_stdin(stdin).assert().code(code);
    let output = out.get_output();
    assert!(output.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&output.stdout));
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

fn path(rel: &str) -> String {
    fixture(rel).to_string_lossy().into_owned()
}

/// The rows of a report's CSV: name → the other cells as numbers (empty cells as NaN).
fn csv_rows(csv: &str) -> Vec<(String, Vec<f64>)> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    (reader.records())
        .map(|record| {
            let record = record.unwrap();
            let numbers = record.iter().skip(1).map(|cell| cell.parse().unwrap_or(f64::NAN)).collect();
            (record[0].to_string(), numbers)
        })
        .collect()
}

/// Asserts that `actual` rows are `expected` (name, numbers), numbers within 1e-9.
fn assert_rows(actual: &[(String, Vec<f64>)], expected: &[(&str, &[f64])]) {
    let names: Vec<&str> = actual.iter().map(|(n, _)| n.as_str()).collect();
    let wanted: Vec<&str> = expected.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, wanted);
    for ((name, got), (_, want)) in actual.iter().zip(expected) {
        assert_eq!(got.len(), want.len(), "{name}: {got:?}");
        for (g, w) in got.iter().zip(*want) {
            assert!((g - w).abs() < 1e-9 || (g.is_nan() && w.is_nan()), "{name}: {got:?} against {want:?}");
        }
    }
}

/// The indented names of a tree report of samples without calls: after the columns
/// `total samples  total %  self samples  self %  ` (13 + 7 + 12 + 6 characters and 4 gaps of 2).
fn names_in_tree(text: &str) -> Vec<String> {
    text.lines().skip(3).take_while(|l| !l.starts_with("pruned")).map(|l| l[46..].to_string()).collect()
}

// ---- info ----

#[test]
fn info_reports_the_profile() {
    proftool()
        .arg("info")
        .arg(fixture("lispworks/processes.tree"))
        .assert()
        .success()
        .stdout(predicate::str::contains("format     lispworks (recognised by content)"))
        .stdout(predicate::str::contains("title      fib benchmark: run 2"))
        .stdout(predicate::str::contains("metric     samples (samples, count, additive): total 100"))
        .stdout(predicate::str::contains("tree       1 root, 7 nodes, 6 frames, max depth 4"))
        .stdout(predicate::str::contains("  50   50.0%  CL-USER::FIB\n  25   25.0%  CL-USER::|weird name|"));
}

#[test]
fn info_lines_up_the_heaviest_functions_whatever_their_values_width() {
    let out = proftool().arg("info").arg(fixture("dyalog-xml/v0.9.0-tree.xml")).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("heaviest")).skip(1).collect();
    // Its three functions (#.Rain, TOTAMTHS, LEAP), each with its lines added up.
    assert_eq!(rows.len(), 3, "{text}");
    let percent_at: Vec<Option<usize>> = rows.iter().map(|r| r.find('%')).collect();
    assert!(percent_at.windows(2).all(|w| w[0] == w[1]), "{text}");
    // Rain's own 0.6982987373424091 ms and its seven lines' (the dump), as `summary` adds them, a
    // share of the total every report states, Rain's measured 68.40049488 ms (the excerpt's rows add
    // up to 0.914 ms): 0.820561562946 / 68.40049488 is 1.2 %.
    assert!(rows[0].starts_with("  0.820561562946    1.2%  #.Rain"), "{text}");
}

#[test]
fn info_json_is_machine_readable() {
    let out = proftool().args(["info", "--json"]).arg(fixture("folded/basic.folded")).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["format"], "folded");
    assert_eq!(json["nodes"], 8);
    assert_eq!(json["roots"], 2);
    assert_eq!(json["max_depth"], 2);
    assert_eq!(json["metrics"][0]["total"], 70.0);
    assert_eq!(json["top_functions"][0]["name"], "draw text");
    assert_eq!(json["top_functions"][0]["self"], 40.0);
}

#[test]
fn info_json_sums_floats_without_the_noise_of_adding_them() {
    // A Dyalog tree where #.f takes 0.1 ms under line 1 and 0.2 ms under line 2: 0.3 ms in all, the
    // whole time (adding the two f64s gives 0.30000000000000004).
    let csv = "\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n\
               0,\"#.main\",¯1,1,0,0.3\n\
               1,\"#.main\",1,1,0,0.1\n\
               2,\"#.f\",¯1,1,0.1,0.1\n\
               1,\"#.main\",2,1,0,0.2\n\
               2,\"#.f\",¯1,1,0.2,0.2\n";
    let out = proftool().args(["info", "--json", "-"]).write_stdin(csv).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["metrics"][1]["total"], 0.3, "{text}");
    assert_eq!(json["top_functions"][0]["name"], "#.f");
    assert_eq!(json["top_functions"][0]["self"], 0.3, "{text}");
}

#[test]
fn info_names_ghc_cost_centres_with_their_module_as_folded_does() {
    // ghc70-no-src.prof: fib has 3 ticks, main and "do work" 1 each, all in module Main.
    let out = proftool().args(["info", "--json"]).arg(fixture("ghc-prof/ghc70-no-src.prof")).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let top: Vec<(&str, f64)> = json["top_functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["self"].as_f64().unwrap()))
        .collect();
    assert_eq!(top, [("Main.fib", 3.0), ("Main.do work", 1.0), ("Main.main", 1.0)]);
}

// ---- summary ----

/// processes.tree by hand from its dump: 100 samples; FIB is on the stack twice in 35 of its 60.
#[test]
fn a_lispworks_summary_counts_recursion_once() {
    let expected = "\
Total: 100 samples

name                              self samples  self %  total samples  total %  calls
Profile root                                 0     0.0            100    100.0      0
CAPI Execution Listener 1                    5     5.0             90     90.0      0
CL-USER::FIB                                50    50.0             60     60.0      3
CL-USER::|weird name|                       25    25.0             25     25.0      0
(METHOD PRINT-OBJECT (WIDGET T))            10    10.0             10     10.0      0
Idle \"process\"                              10    10.0             10     10.0      0
";
    assert_eq!(report(&["summary", &path("lispworks/processes.tree")]), expected);
}

/// The second path: LispWorks's own function-info, Seen-Count (samples with the function on the
/// stack: the total counted once) and Top-Count (at the top: the self value), read from the file.
#[test]
fn a_lispworks_summary_agrees_with_the_files_seen_and_top_counts() {
    let text = std::fs::read_to_string(fixture("lispworks/processes.tree")).unwrap();
    let mut info: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.starts_with(';')) {
        let fields: Vec<&str> = line.splitn(6, '|').collect();
        let name = fields[5];
        let name = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
            Some(quoted) => quoted.replace("\\\"", "\""),
            None => name.to_string(),
        };
        let number = |i: usize| fields[i].parse::<f64>().unwrap();
        info.insert(name, (number(4), number(3), number(2)));
    }
    let csv = report(&["summary", "--format", "csv", &path("lispworks/processes.tree")]);
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), info.len());
    for (name, cells) in rows {
        let (top, seen, calls) = info[&name];
        // self, self %, total, total %, calls
        assert_eq!(cells, [top, top, seen, seen, calls], "{name}");
    }
}

/// ghc70-no-src.prof: the .prof's own individual and inherited %time (ticks 0, 1, 3, 1 of 5).
#[test]
fn a_ghc_summary_as_csv_has_the_profiles_own_percentages() {
    let expected = "\
name,self,self_pct,total,total_pct,calls
MAIN.MAIN,0,0,5,100,0
Main.main,1,20,5,100,1
Main.fib,3,60,4,80,177
Main.do work,1,20,1,20,177
GHC.IO.Handle.FD.CAF,0,0,0,0,2
";
    assert_eq!(report(&["summary", "--format", "csv", &path("ghc-prof/ghc70-no-src.prof")]), expected);
}

/// `]PROFILE summary -exclusive -cumpct -pct=…` on the GHC profile: sorted by self, rows while the
/// running % stays at most 85 (60, then 80; the next would make 100).
#[test]
fn exclusive_cumpct_and_pct_keep_rows_while_the_running_share_fits() {
    let csv = report(&[
        "summary",
        "--exclusive",
        "--cumpct",
        "--pct",
        "85",
        "--format",
        "csv",
        &path("ghc-prof/ghc70-no-src.prof"),
    ]);
    assert_eq!(csv.lines().next(), Some("name,self,self_pct,total,total_pct,calls,cum_pct"));
    assert_rows(
        &csv_rows(&csv),
        &[("Main.fib", &[3.0, 60.0, 4.0, 80.0, 177.0, 60.0]), ("Main.do work", &[1.0, 20.0, 1.0, 20.0, 177.0, 80.0])],
    );
    let first = report(&["summary", "--first", "2", "--format", "csv", &path("ghc-prof/ghc70-no-src.prof")]);
    assert_eq!(csv_rows(&first).iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["MAIN.MAIN", "Main.main"]);
}

/// --avg: per call of the sorted column: Main.fib 3 ticks of its own in 177 calls = 0.0169…
#[test]
fn avg_is_the_value_per_call_with_decimals() {
    let text = report(&[
        "summary",
        "--exclusive",
        "--avg",
        "--first",
        "1",
        "--decimal",
        "4",
        &path("ghc-prof/ghc70-no-src.prof"),
    ]);
    let row: Vec<&str> = text.lines().nth(3).unwrap().split_whitespace().collect();
    assert_eq!(row, ["Main.fib", "3", "60.0000", "4", "80.0000", "177", "0.0169"]);
    assert!(text.lines().nth(2).unwrap().ends_with("calls  avg ticks"), "{text}");
}

/// The `]PROFILE` guide's tree (0.9.0): `#.Rain` 68.4 ms, 100 %, 1 call: measured InclusiveTime, though
/// the file keeps only some of the rows below it.
#[test]
fn a_dyalog_summary_reproduces_profiles_numbers() {
    let text = report(&["summary", "-q", &path("dyalog-xml/v0.9.0-tree.xml")]);
    assert_eq!(text.lines().next(), Some("Total: 68.4 ms"));
    let rain: Vec<&str> = text.lines().nth(3).unwrap().split_whitespace().collect();
    // Self: its ExclusiveTime, 0.8205… ms, 1.2 % of 68.40.
    assert_eq!(rain, ["#.Rain", "0.8", "1.2", "68.4", "100.0", "1"]);
}

/// The second path for Dyalog: the XML's own function rows (0.9.0 labels exclusive time
/// `InclusiveTime` and inclusive `ExclusiveTime`), against the JSON summary.
#[test]
fn a_dyalog_summary_as_json_has_the_xmls_function_rows() {
    let xml = std::fs::read_to_string(fixture("dyalog-xml/v0.9.0-tree.xml")).unwrap();
    let field = |entry: &str, name: &str| -> String {
        let start = entry.find(&format!("<{name}>")).unwrap() + name.len() + 2;
        entry[start..entry[start..].find('<').unwrap() + start].to_string()
    };
    let mut rows: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    for entry in xml.split("<ProfileEntry>").skip(1).filter(|e| e.contains("<Line></Line>")) {
        let number = |name: &str| field(entry, name).parse::<f64>().unwrap();
        rows.insert(field(entry, "Function"), (number("InclusiveTime"), number("ExclusiveTime"), number("Calls")));
    }
    let json: serde_json::Value =
        serde_json::from_str(&report(&["summary", "-q", "--format", "json", &path("dyalog-xml/v0.9.0-tree.xml")]))
            .unwrap();
    assert_eq!(json["report"], "summary");
    assert_eq!((json["metric"].as_str(), json["unit"].as_str()), (Some("time"), Some("ms")));
    let total = rows["#.Rain"].1;
    assert!((json["total"].as_f64().unwrap() - total).abs() < 1e-9);
    let got = json["rows"].as_array().unwrap();
    assert_eq!(got.len(), rows.len());
    for row in got {
        let (own, inclusive, calls) = rows[row["name"].as_str().unwrap()];
        let close =
            |key: &str, want: f64| assert!((row[key].as_f64().unwrap() - want).abs() < 1e-9, "{row} {key} {want}");
        close("self", own);
        close("total", inclusive);
        close("total_pct", 100.0 * inclusive / total);
        assert_eq!(row["calls"].as_f64(), Some(calls));
    }
}

/// The `]PROFILE` guide (docs/sources.md): `-bias=0` makes the total 71.7 ms: raw = adjusted +
/// ticks × bias, #.Rain's 16810 inspections × TimerBias 0.000194948697… = 3.27709 ms more than
/// 68.40049; its own 73 × bias = 0.01423 ms more than 0.82056.
#[test]
fn bias_recomputes_dyalog_times_as_profile_does() {
    let fixture = path("dyalog-xml/v0.9.0-tree.xml");
    let text = report(&["summary", "-q", "--bias", "0", &fixture]);
    assert_eq!(text.lines().next(), Some("Total: 71.7 ms"));
    let text = report(&["summary", "-q", "--bias", "0", "--decimal", "3", &fixture]);
    assert_eq!(text.lines().next(), Some("Total: 71.678 ms"));
    let rain: Vec<&str> = text.lines().nth(3).unwrap().split_whitespace().collect();
    assert_eq!(rain[..4], ["#.Rain", "0.835", "1.165", "71.678"]);
}

/// sampled.br by hand (fixtures/br/make-fixtures.py): groups 10.0 → 100.0 → FNTAX 20.1 (twice),
/// 10.0 → 100.0, and 10.2: the listing per line that profiler.exe printed, each line of no named
/// function after its routine (the file's MAIN ROUTINE and GOSUB records: issue 26 §6).
#[test]
fn a_br_summary_per_line() {
    let expected = "\
Total: 4 samples

name                     self samples  self %  total samples  total %
GOSUB orders.br:100.0               1    25.0              3     75.0
MAIN orders.br:10.0                 0     0.0              3     75.0
FNTAX[lib/calc.br:20.1]             2    50.0              2     50.0
MAIN orders.br:10.2                 1    25.0              1     25.0
";
    assert_eq!(report(&["summary", "--lines", &path("br/sampled.br")]), expected);
    // Per function, FNTAX's line is its function.
    let csv = report(&["summary", "--format", "csv", &path("br/sampled.br")]);
    assert_eq!(csv.lines().nth(3), Some("FNTAX,2,50,2,50"));
}

#[test]
fn fn_keeps_what_the_named_function_calls() {
    let text = report(&["summary", "--fn", "CL-USER::FIB", &path("lispworks/processes.tree")]);
    assert_eq!(text.lines().next(), Some("Total: 100 samples; selected: 60 samples"));
    let rows: Vec<Vec<&str>> = text.lines().skip(3).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(
        rows,
        [
            vec!["CL-USER::FIB", "50", "50.0", "60", "60.0", "3"],
            vec!["(METHOD", "PRINT-OBJECT", "(WIDGET", "T))", "10", "10.0", "10", "10.0", "0"]
        ]
    );
}

// ---- filters ----

const RECURSIVE: &str = "a;b;a;c 3\na;d 1\n";

/// a;b;a;c 3 and a;d 1: a is on the first stack twice and counted once.
#[test]
fn filters_on_a_tree_with_recursion() {
    let summary =
        |args: &[&str]| csv_rows(&report_stdin(&[&["summary", "--format", "csv"], args, &["-"]].concat(), RECURSIVE));
    assert_rows(
        &summary(&[]),
        &[
            ("a", &[0.0, 0.0, 4.0, 100.0]),
            ("b", &[0.0, 0.0, 3.0, 75.0]),
            ("c", &[3.0, 75.0, 3.0, 75.0]),
            ("d", &[1.0, 25.0, 1.0, 25.0]),
        ],
    );
    assert_rows(
        &summary(&["--focus", "^c$"]),
        &[("a", &[0.0, 0.0, 3.0, 75.0]), ("b", &[0.0, 0.0, 3.0, 75.0]), ("c", &[3.0, 75.0, 3.0, 75.0])],
    );
    // Shares of the whole profile's 4, as pprof's are of its total before the filters.
    assert_rows(&summary(&["--ignore", "^b$"]), &[("a", &[0.0, 0.0, 1.0, 25.0]), ("d", &[1.0, 25.0, 1.0, 25.0])]);
    // Hidden b: a;a;c, still a once in its total.
    assert_rows(
        &summary(&["--hide", "^b$"]),
        &[("a", &[0.0, 0.0, 4.0, 100.0]), ("c", &[3.0, 75.0, 3.0, 75.0]), ("d", &[1.0, 25.0, 1.0, 25.0])],
    );
    let tree = report_stdin(&["tree", "--focus", "^c$", "-"], RECURSIVE);
    assert_eq!(names_in_tree(&tree), ["a", "  b", "    a", "      c"]);
    // --merge-fn is --hide's other name: the same rows.
    assert_eq!(summary(&["--merge-fn", "^b$"]), summary(&["--hide", "^b$"]));
    // a's inner call goes into its outer one: a;c 3 and a;d 1; b is on no stack's end, so it goes.
    let collapsed = report_stdin(&["tree", "--collapse-recursion", "^a$", "-"], RECURSIVE);
    assert_eq!(names_in_tree(&collapsed), ["a", "  c", "  d"]);
    assert_rows(
        &summary(&["--collapse-recursion", "^a$"]),
        &[("a", &[0.0, 0.0, 4.0, 100.0]), ("c", &[3.0, 75.0, 3.0, 75.0]), ("d", &[1.0, 25.0, 1.0, 25.0])],
    );
}

/// processes.tree: FIB 60 (50 own), PRINT-OBJECT 10 under the inner FIB, weird 25, Idle 10; every %
/// of the whole 100 samples, whatever the filters keep.
#[test]
fn filters_on_a_lispworks_tree() {
    let tree = path("lispworks/processes.tree");
    let summary =
        |args: &[&str]| csv_rows(&report(&[&["summary", "--format", "csv"], args, &[tree.as_str()]].concat()));
    assert_rows(
        &summary(&["--focus", "FIB"]),
        &[
            ("CAPI Execution Listener 1", &[0.0, 0.0, 60.0, 60.0, 0.0]),
            ("CL-USER::FIB", &[50.0, 50.0, 60.0, 60.0, 3.0]),
            ("Profile root", &[0.0, 0.0, 60.0, 60.0, 0.0]),
            ("(METHOD PRINT-OBJECT (WIDGET T))", &[10.0, 10.0, 10.0, 10.0, 0.0]),
        ],
    );
    assert_rows(
        &summary(&["--ignore", "PRINT-OBJECT"]),
        &[
            ("Profile root", &[0.0, 0.0, 90.0, 90.0, 0.0]),
            ("CAPI Execution Listener 1", &[5.0, 5.0, 80.0, 80.0, 0.0]),
            ("CL-USER::FIB", &[50.0, 50.0, 50.0, 50.0, 3.0]),
            ("CL-USER::|weird name|", &[25.0, 25.0, 25.0, 25.0, 0.0]),
            ("Idle \"process\"", &[10.0, 10.0, 10.0, 10.0, 0.0]),
        ],
    );
    // FIB's own 50 goes to its caller; PRINT-OBJECT moves up under it.
    assert_rows(
        &summary(&["--hide", "^CL-USER::FIB$"]),
        &[
            ("Profile root", &[0.0, 0.0, 100.0, 100.0, 0.0]),
            ("CAPI Execution Listener 1", &[55.0, 55.0, 90.0, 90.0, 0.0]),
            ("CL-USER::|weird name|", &[25.0, 25.0, 25.0, 25.0, 0.0]),
            ("(METHOD PRINT-OBJECT (WIDGET T))", &[10.0, 10.0, 10.0, 10.0, 0.0]),
            ("Idle \"process\"", &[10.0, 10.0, 10.0, 10.0, 0.0]),
        ],
    );
    assert_rows(
        &summary(&["--thread", "Idle \"process\""]),
        &[("Idle \"process\"", &[10.0, 10.0, 10.0, 10.0, 0.0]), ("Profile root", &[0.0, 0.0, 10.0, 10.0, 0.0])],
    );
}

#[test]
fn convert_takes_the_same_filters() {
    let folded = |args: &[&str]| report_stdin(&[&["convert", "--to", "folded"], args, &["-", "-"]].concat(), RECURSIVE);
    assert_eq!(folded(&["--focus", "c"]), "a;b;a;c 3\n");
    assert_eq!(folded(&["--ignore", "^d$"]), "a;b;a;c 3\n");
    assert_eq!(folded(&["--hide", "^b$"]), "a;a;c 3\na;d 1\n");
    let err = failure(&["convert", "--to", "folded", "--focus", "zzz", "-", "-"], RECURSIVE, 1);
    assert_eq!(err, "proftool: error: --focus zzz: no stack passes through a frame that matches: nothing is left\n");
}

// ---- calls ----

/// ghc70-no-src.prof: fib (4 ticks, 177 entries) is called from main only, and spends 3 ticks of
/// its own and 1 in `do work`.
#[test]
fn calls_by_caller_and_by_callee() {
    let prof = path("ghc-prof/ghc70-no-src.prof");
    let expected = "\
Total: 5 ticks

Main.fib: total 4 ticks (80.0 % of all), 177 calls
caller     ticks  % of all  % of fn  calls
Main.main      4      80.0    100.0    177
";
    assert_eq!(report(&["calls", "--fn", "Main.fib", &prof]), expected);
    let expected = "\
Total: 5 ticks

Main.fib: total 4 ticks (80.0 % of all), 177 calls
callee        ticks  % of all  % of fn  calls
(self)            3      60.0     75.0
Main.do work      1      20.0     25.0    177
";
    assert_eq!(report(&["calls", "--fn", "Main.fib", "--callees", &prof]), expected);
    let expected = "\
function,name,value,pct_of_all,pct_of_fn,calls
Main.main,MAIN.MAIN,5,100,100,1
Main.fib,Main.main,4,80,100,177
Main.do work,Main.fib,1,20,100,177
";
    assert_eq!(report(&["calls", "--regex", "--fn", "^Main\\.", "--format", "csv", &prof]), expected);
}

/// a;b;a;c 3, a;d 1: a is called from the top (4) and, recursively, from b: the 3 samples of
/// a;b;a;c pass through that call (issue 26 §4), so the callers add up to more than a's total.
#[test]
fn calls_of_a_recursive_function_carry_the_samples_of_each_call() {
    let json: serde_json::Value =
        serde_json::from_str(&report_stdin(&["calls", "--fn", "a", "--format", "json", "-"], RECURSIVE)).unwrap();
    assert_eq!(json["functions"][0]["total"], 4);
    let rows: Vec<(String, f64)> = (json["rows"].as_array().unwrap().iter())
        .map(|r| (r["name"].as_str().unwrap().to_string(), r["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(rows, [("(root)".to_string(), 4.0), ("b".to_string(), 3.0)]);
}

/// The Dyalog tree by lines: #.Rain's line 7 calls TOTAMTHS (measured 0.1326400946 ms); with
/// `--lines`, `--fn` also names the function's lines, a block each, heaviest first (the dump's
/// measured 0.1188887134 and 0.0008022888807 ms), each called from the function's own row.
#[test]
fn calls_of_a_dyalog_function_by_line() {
    let csv = report(&[
        "calls",
        "-q",
        "--lines",
        "--fn",
        "#.Gilling.TOTAMTHS",
        "--format",
        "csv",
        &path("dyalog-xml/v0.9.0-tree.xml"),
    ]);
    let rows: Vec<Vec<String>> = (csv::Reader::from_reader(csv.as_bytes()).records())
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let expected = [
        ["#.Gilling.TOTAMTHS", "#.Rain[7]", "0.1326400946"],
        ["#.Gilling.TOTAMTHS[2]", "#.Gilling.TOTAMTHS", "0.1188887134"],
        ["#.Gilling.TOTAMTHS[1]", "#.Gilling.TOTAMTHS", "0.0008022888807"],
    ];
    assert_eq!(rows.len(), expected.len(), "{csv}");
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(row[..3], want, "{csv}");
        // Each is its block's only caller: all of its total, and called once.
        assert!((row[4].parse::<f64>().unwrap() - 100.0).abs() < 1e-9 && row[5] == "1", "{csv}");
    }
}

// ---- tree ----

#[test]
fn a_lispworks_tree_indented_heaviest_first() {
    let expected = "\
Total: 100 samples

total samples  total %  self samples  self %  name
          100    100.0             0     0.0  Profile root
           90     90.0             5     5.0    CAPI Execution Listener 1
           60     60.0            25    25.0      CL-USER::FIB
           35     35.0            25    25.0        CL-USER::FIB
           10     10.0            10    10.0          (METHOD PRINT-OBJECT (WIDGET T))
           25     25.0            25    25.0      CL-USER::|weird name|
           10     10.0            10    10.0    Idle \"process\"
";
    assert_eq!(report(&["tree", &path("lispworks/processes.tree")]), expected);
}

#[test]
fn tree_depth_min_pct_and_fn() {
    let tree = path("lispworks/processes.tree");
    assert_eq!(
        names_in_tree(&report(&["tree", "--depth", "2", &tree])),
        ["Profile root", "  CAPI Execution Listener 1", "  Idle \"process\""]
    );
    let pruned = report(&["tree", "--min-pct", "20", &tree]);
    assert_eq!(
        names_in_tree(&pruned)[..5],
        [
            "Profile root",
            "  CAPI Execution Listener 1",
            "    CL-USER::FIB",
            "      CL-USER::FIB",
            "    CL-USER::|weird name|"
        ]
    );
    // PRINT-OBJECT (10) and Idle (10) left out.
    assert_eq!(pruned.lines().last(), Some("pruned: 2 branches under 20 % of the total, 20 samples (20.0 %)"));
    let fib = report(&["tree", "--fn", "CL-USER::FIB", &tree]);
    assert_eq!(fib.lines().next(), Some("Total: 100 samples; selected: 60 samples"));
    assert_eq!(names_in_tree(&fib), ["CL-USER::FIB", "  CL-USER::FIB", "    (METHOD PRINT-OBJECT (WIDGET T))"]);
}

/// The GHC tree as JSON: depth, totals and entries per node, from the .prof's inherited columns.
#[test]
fn a_ghc_tree_as_json() {
    let json: serde_json::Value =
        serde_json::from_str(&report(&["tree", "--format", "json", &path("ghc-prof/ghc70-no-src.prof")])).unwrap();
    assert_eq!((json["report"].as_str(), json["total"].as_i64()), (Some("tree"), Some(5)));
    let rows: Vec<(i64, &str, i64, i64, i64)> = (json["rows"].as_array().unwrap().iter())
        .map(|r| {
            let n = |k: &str| r[k].as_i64().unwrap();
            (n("depth"), r["name"].as_str().unwrap(), n("total"), n("self"), n("calls"))
        })
        .collect();
    assert_eq!(
        rows,
        [
            (0, "MAIN.MAIN", 5, 0, 0),
            (1, "Main.main", 5, 1, 1),
            (2, "Main.fib", 4, 3, 177),
            (3, "Main.do work", 1, 1, 177),
            (1, "GHC.IO.Handle.FD.CAF", 0, 0, 2),
        ]
    );
}

// ---- deep trees ----

/// One stack 1,000,000 frames deep, f and g alternating: f's and g's totals are the one sample.
#[test]
fn reports_of_a_million_deep_tree() {
    let stack: Vec<&str> = (0..1_000_000).map(|i| if i % 2 == 0 { "f" } else { "g" }).collect();
    let folded = format!("{} 1\n", stack.join(";"));
    let summary = report_stdin(&["summary", "--from", "folded", "--format", "csv", "-"], &folded);
    assert_eq!(summary, "name,self,self_pct,total,total_pct\nf,0,0,1,100\ng,1,100,1,100\n");
    let tree = report_stdin(&["tree", "--from", "folded", "--depth", "2", "--format", "csv", "-"], &folded);
    assert_eq!(tree, "depth,total,total_pct,self,self_pct,name\n0,1,100,0,0,f\n1,1,100,0,0,g\n");
    let calls = report_stdin(&["calls", "--from", "folded", "--fn", "g", "--format", "csv", "-"], &folded);
    assert_eq!(calls, "function,name,value,pct_of_all,pct_of_fn\ng,f,1,100,100\n");
}

// ---- bad input ----

#[test]
fn fn_naming_nothing_lists_the_closest_names() {
    let err = failure(&["summary", "-q", "--fn", "#.Rian", &path("dyalog-xml/v0.9.0-tree.xml")], "", 1);
    assert!(err.starts_with("proftool: error: --fn #.Rian: no function is named so; the closest: #.Rain, "), "{err}");
    let err = failure(&["calls", "--fn", "fib", &path("ghc-prof/ghc70-no-src.prof")], "", 1);
    assert!(err.contains("the closest: Main.fib"), "{err}");
    let err =
        failure(&["summary", "--ignore", "FIB", "--fn", "CL-USER::FIB", &path("lispworks/processes.tree")], "", 1);
    assert_eq!(err, "proftool: error: --fn CL-USER::FIB: no node of it is left after the filters\n");
    let err = failure(&["calls", "--regex", "--fn", "^zz", &path("ghc-prof/ghc70-no-src.prof")], "", 1);
    assert_eq!(err, "proftool: error: --fn ^zz: no function matches\n");
}

#[test]
fn an_invalid_regex_is_a_usage_error() {
    let tree = path("lispworks/processes.tree");
    let err = failure(&["summary", "--focus", "a(", &tree], "", 2);
    assert_eq!(err, "proftool: error: --focus a(: invalid regex: unclosed group (column 2)\n");
    failure(&["convert", "--hide", "[z-a]", &tree, "-"], "", 2);
    failure(&["calls", "--regex", "--fn", "(", &tree], "", 2);
}

#[test]
fn a_metric_the_profile_lacks_lists_the_ones_it_has() {
    let err = failure(&["tree", "--metric", "time", &path("ghc-prof/ghc70-no-src.prof")], "", 1);
    assert_eq!(err, "proftool: error: --metric time: the profile has no such metric (it has: ticks, entries, alloc)\n");
    let err = failure(&["summary", "--metric", "entries", &path("ghc-prof/ghc70-no-src.prof")], "", 1);
    assert!(
        err.contains("entries are counted per node and do not add up along a tree; report one of: ticks, alloc"),
        "{err}"
    );
}

#[test]
fn avg_without_calls_and_bias_without_ticks_say_so() {
    let err = failure(&["summary", "--avg", &path("br/sampled.br")], "", 1);
    assert_eq!(err, "proftool: error: --avg: the profile has no call counts, so there is no time per call to show\n");
    let err = failure(&["summary", "--bias", "0", &path("lispworks/processes.tree")], "", 1);
    assert!(err.contains("--bias 0: the profile has no timer inspections"), "{err}");
    let err = failure(&["summary", "-q", "--bias", "0", &path("dyalog-csv/v0.9.0-tree.csv")], "", 1);
    assert!(err.contains("--bias 0: the profile does not say the TimerBias"), "{err}");
}

#[test]
fn a_filter_that_keeps_nothing_is_an_error() {
    let tree = path("lispworks/processes.tree");
    let err = failure(&["summary", "--ignore", "root", &tree], "", 1);
    assert_eq!(
        err,
        "proftool: error: --ignore root: every stack passes through a frame that matches: nothing is left\n"
    );
    let err = failure(&["tree", "--thread", "main", &tree], "", 1);
    assert_eq!(
        err,
        "proftool: error: --thread main: no thread or process root is named so (it has: CAPI Execution Listener 1, Idle \"process\", Profile root)\n"
    );
}

#[test]
fn names_of_wide_characters_align_in_terminal_columns() {
    // 処理する関数 is six characters of two columns each, 😀 one of two: the name column is 12
    // columns wide, and every number ends in the same column.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("wide.folded");
    std::fs::write(&input, "main;処理する関数 30\nmain;short 10\nmain;😀emoji 5\n").unwrap();
    let out = crate::support::binary::proftool().arg("summary").arg(&input).output().unwrap();
    let expected = "\
Total: 45 samples

name          self samples  self %  total samples  total %
main                     0     0.0             45    100.0
処理する関数            30    66.7             30     66.7
short                   10    22.2             10     22.2
😀emoji                  5    11.1              5     11.1
";
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

/// Issue 34 §18: text in a pipe or a file is cut to COLUMNS, not padded to its longest name (a
/// frame of 1,000 characters, as a V8 regex's). By hand: summary's columns besides the name are
/// `self samples` 12, `self %` 6, `total samples` 13, `total %` 7 and four gaps of 2, 46 columns,
/// which leave the name 34 of 80: 17 first characters, `…`, 16 last. A CJK name is measured in
/// terminal columns, two a character. `--wide` keeps names whole. Issue 45 §8: with no COLUMNS (a
/// CI log), lines fit 100 columns and a name too long for its 54 is whole on a line of its own, its
/// figures on the next, so that no two names read alike.
#[test]
fn piped_text_fits_columns_else_100() {
    let long = "x".repeat(1000);
    let run = |columns: Option<&str>, extra: &[&str], name: &str| {
        let mut command = proftool();
        match columns {
            Some(columns) => command.env("COLUMNS", columns),
            None => command.env_remove("COLUMNS"),
        };
        let stdin = format!("main;{name} 5\nmain;b 3\n");
        let out = command.args(["summary", "--from", "folded"]).args(extra).arg("-").write_stdin(stdin).assert();
        String::from_utf8(out.success().get_output().stdout.clone()).unwrap()
    };
    let row = |text: &str| text.lines().find(|l| l.contains('…')).map(str::to_string).unwrap_or_default();
    let piped = run(None, &[], &long);
    let lines: Vec<&str> = piped.lines().collect();
    let at = lines.iter().position(|l| *l == long).unwrap_or_else(|| panic!("{piped}"));
    assert_eq!(lines[at + 1], format!("{}5    62.5              5     62.5", " ".repeat(54 + 2 + 11)), "{piped}");
    assert!(lines.iter().filter(|l| **l != long).all(|l| l.chars().count() <= 100), "{piped}");
    let narrow = run(Some("80"), &[], &long);
    assert!(row(&narrow).starts_with(&format!("{}…{} ", "x".repeat(17), "x".repeat(16))), "{narrow}");
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    let wide = run(Some("80"), &["--wide"], &long);
    assert!(wide.lines().any(|l| l.starts_with(&format!("{long} "))), "{wide}");
    // 200 columns of 処: cut to 54 columns, 13 first (26 columns), `…`, 13 last (26 columns, one
    // left blank, as a character of two does not fit in the one left).
    let cjk = run(Some("100"), &[], &"処".repeat(100));
    assert!(row(&cjk).starts_with(&format!("{}…{}  ", "処".repeat(13), "処".repeat(13))), "{cjk}");
}

/// Issue 34 §16: a table shows one quantity in one unit, picked by its largest value in any
/// column, with the same decimals down the columns. Folded stacks of nanoseconds, by hand: `a;b`
/// 333,333,000 ns and `a;c` 666,667,000 ns, 1 s in all; so self and total are both in seconds,
/// three significant digits of 1.00 (`c` 0.67 s, not a self of 667 ms beside a total of 0.67 s),
/// and `tree --min-pct 40` prunes `b`, 333.333 ms, as `333 ms` (not `333333000 ns`). `info` names
/// the unit of the heaviest functions (667 ms, 333 ms); `diff --absolute` against `c` grown by
/// 100 ms (1.1 s in all) shows values and changes in seconds.
#[test]
fn a_quantity_shows_in_one_unit_in_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = (dir.path().join("base.folded"), dir.path().join("new.folded"));
    std::fs::write(&base, "a;b 333333000\na;c 666667000\n").unwrap();
    std::fs::write(&new, "a;b 333333000\na;c 766667000\n").unwrap();
    let base = base.to_str().unwrap();
    let words = |text: &str, starting: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.trim_start().starts_with(starting)).unwrap_or_default();
        line.split_whitespace().map(str::to_string).collect()
    };
    let summary = report(&["summary", "--folded-unit", "ns", base]);
    assert_eq!(words(&summary, "name"), ["name", "self", "s", "self", "%", "total", "s", "total", "%"]);
    assert_eq!(words(&summary, "c "), ["c", "0.67", "66.7", "0.67", "66.7"]);
    let tree = report(&["tree", "--folded-unit", "ns", "--min-pct", "40", base]);
    assert_eq!(words(&tree, "total"), ["total", "s", "total", "%", "self", "s", "self", "%", "name"]);
    assert_eq!(words(&tree, "0.67"), ["0.67", "66.7", "0.67", "66.7", "c"]);
    assert_eq!(tree.lines().last(), Some("pruned: 1 branch under 40 % of the total, 333 ms (33.3 %)"));
    let data = report(&["data", "--folded-unit", "ns", base]);
    assert_eq!(words(&data, "function"), ["function", "name", "inc", "s", "exc", "s"]);
    let info = report(&["info", "--folded-unit", "ns", base]);
    assert!(info.ends_with("  667 ms   66.7%  c\n  333 ms   33.3%  b\n"), "{info}");
    let diff = report(&["diff", "--absolute", "--folded-unit", "ns", base, new.to_str().unwrap()]);
    let heading = words(&diff, "name");
    assert_eq!(heading[2..5], ["base", "self", "s"]);
    assert_eq!(words(&diff, "c "), ["c", "0.67", "0.77", "+0.10", "0.67", "0.77", "+0.10"]);
}

/// A name that holds what a terminal acts on (an OSC title sequence, BEL, BS, CR, RLO) is printed
/// escaped by every text report, `info` and the closest names of an unknown `--fn` (issue 48).
#[test]
fn names_cannot_reach_the_terminal_as_control_characters() {
    let dir = temp();
    let input = dir.path().join("evil.folded");
    std::fs::write(&input, "main;\u{1b}]0:owned\u{7}b\u{8}\r\u{202e}gnp.exe 3\nmain;ok 1\n").unwrap();
    let input = input.display().to_string();
    let runs: [&[&str]; 6] =
        [&["summary"], &["tree"], &["data"], &["info"], &["diff", &input], &["calls", "--fn", "zzz"]];
    for args in runs {
        let out = proftool().args(args).arg(&input).output().unwrap();
        let printed = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
        assert!(!printed.contains(['\u{1b}', '\u{7}', '\u{8}', '\r', '\u{202e}']), "{args:?}: {printed:?}");
        assert!(printed.contains(r"\u{1b}]0:owned\u{7}b\u{8}\u{d}\u{202e}gnp.exe"), "{args:?}: {printed}");
    }
}

/// A name a spreadsheet would run as a formula is written in CSV with a `'` in front (OWASP's rule
/// on CSV injection); other names and the numbers (a negative change too) as they are.
#[test]
fn csv_cells_that_would_be_formulas_open_as_text() {
    let dir = temp();
    let input = dir.path().join("formulas.folded");
    std::fs::write(&input, "main;=HYPERLINK(\"http://x\") 3\nmain;-[NSObject init] 1\nmain;@SUM(A1) 1\nmain;ok 5\n")
        .unwrap();
    let out = proftool().args(["summary", "--format", "csv"]).arg(&input).output().unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = csv.lines().skip(1).map(|l| l.rsplitn(5, ',').last().unwrap()).collect();
    assert_eq!(names, ["main", "ok", "\"'=HYPERLINK(\"\"http://x\"\")\"", "'-[NSObject init]", "'@SUM(A1)"], "{csv}");
}

/// The records of perf/threads.perf read here, each its time from the first (µs) and the symbol
/// of its innermost frame without its offset.
fn perf_threads_records() -> Vec<(i64, String)> {
    let text = std::fs::read_to_string(fixture("perf/threads.perf")).unwrap();
    let mut records = Vec::new();
    for record in text.split("\n\n").filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let seconds = lines.next().unwrap().split(':').next().unwrap().rsplit(' ').next().unwrap();
        let micros = (seconds.parse::<f64>().unwrap() * 1e6).round() as i64;
        let frame = lines.next().unwrap().split_whitespace().nth(1).unwrap();
        records.push((micros, frame.split_once("+0x").map_or(frame, |(symbol, _)| symbol).to_string()));
    }
    let first = records[0].0;
    records.iter().map(|(t, leaf)| (t - first, leaf.clone())).collect()
}

/// `--from-time` and `--to-time` keep the samples taken in the range, from the timeline's start
/// (its first sample, for perf), a sample at its end left to the next range (but at the timeline's
/// end where no end is given): each function's own samples are those of the records in it. Ranges
/// that meet at a record's time (the 13th's) add up to the whole, that record counted once.
#[test]
fn a_time_range_keeps_the_samples_taken_in_it() {
    let records = perf_threads_records();
    let (meeting, last) = (records[12].0, records.last().unwrap().0);
    let ranges = [(20_000, Some(40_000)), (0, Some(5_000)), (50_000, Some(last)), (0, Some(meeting)), (meeting, None)];
    let mut samples = 0.0;
    for (from, to) in ranges {
        let mut own: BTreeMap<String, f64> = BTreeMap::new();
        for (_, leaf) in records.iter().filter(|(t, _)| from <= *t && to.is_none_or(|to| *t < to)) {
            *own.entry(leaf.clone()).or_default() += 1.0;
        }
        let from_arg = format!("{from}us");
        let mut args = vec!["summary", "-q", "--metric", "samples", "--format", "csv", "--from-time", &from_arg];
        let to_arg = to.map(|to| format!("{to}us"));
        if let Some(to_arg) = &to_arg {
            args.extend(["--to-time", to_arg]);
        }
        let fixture = path("perf/threads.perf");
        args.push(&fixture);
        let rows: BTreeMap<String, f64> = csv_rows(&report(&args))
            .into_iter()
            .filter(|(_, cells)| cells[0] > 0.0)
            .map(|(n, cells)| (n, cells[0]))
            .collect();
        assert_eq!(rows, own, "{from}..{to:?} µs");
        if from == 0 && to == Some(meeting) || to.is_none() {
            samples += own.values().sum::<f64>();
        }
    }
    assert_eq!(samples, records.len() as f64);
}

/// A profile with no timeline and a range with no sample are refused (exit 1, as an option that
/// does not fit the profile), and a range that ends before it starts is a usage error (exit 2),
/// each saying why.
#[test]
fn a_time_range_that_cannot_be_cut_is_refused() {
    let none = failure(&["summary", &path("lispworks/processes.tree"), "--from-time", "1ms"], "", 1);
    assert!(none.contains("--from-time 1ms: the profile has no timeline"), "{none}");
    let empty = failure(&["summary", &path("perf/threads.perf"), "--from-time", "1s"], "", 1);
    assert!(empty.contains("--from-time 1s: no sample is in the range (the timeline is 61.665ms long)"), "{empty}");
    let backwards = failure(&["summary", &path("perf/threads.perf"), "--from-time", "2ms", "--to-time", "0"], "", 2);
    assert!(backwards.contains("--to-time 0ns is before --from-time 2ms"), "{backwards}");
}
