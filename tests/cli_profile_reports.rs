//! The reports as `]PROFILE` (the `]PROFILE` guide, chapter 3: docs/sources.md) and the LispWorks
//! profiler (LispWorks' documentation, docs/sources.md) answer (issue 26): `summary --lines` ranks
//! lines, `calls` takes `summary`'s switches and gives both shares, `data`, recursive callers, one
//! total per profile, BR routines in line names.
//!
//! Files are fixtures, or built here from the figures the guide prints; every expected number is
//! worked out from them by hand (or by the arithmetic written beside it), never copied from what
//! proftool printed.

use super::support::binary::{fixture, proftool};
use std::path::Path;

/// Runs `proftool <args>`, which must succeed, and returns (stdout, stderr).
fn run(args: &[&str]) -> (String, String) {
    let out = proftool().args(args).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// The stdout of `proftool <args>`, which must succeed.
fn report(args: &[&str]) -> String {
    run(args).0
}

/// The JSON of `proftool <args> --format json`.
fn json(args: &[&str]) -> serde_json::Value {
    let args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
    serde_json::from_str(&report(&args)).unwrap()
}

fn path(rel: &str) -> String {
    fixture(rel).to_string_lossy().into_owned()
}

/// The rows of a report's CSV, every cell as text.
fn csv_rows(csv: &str) -> Vec<Vec<String>> {
    (csv::Reader::from_reader(csv.as_bytes()).records())
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Asserts that `cell` is the number `want` within 1e-9.
fn assert_near(cell: &str, want: f64) {
    let got: f64 = cell.parse().unwrap_or(f64::NAN);
    assert!((got - want).abs() < 1e-9, "{cell} against {want}");
}

/// Writes `text` to a file named `name` in a new temporary folder, kept as long as the guard.
fn file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let file = file.to_string_lossy().into_owned();
    (dir, file)
}

/// A row of a Dyalog tree report: depth, element, line (-1 for the function's row), calls,
/// exclusive and inclusive ms, and where given the ticks: exclusive, inclusive.
type Entry<'a> = (u32, &'a str, i32, u32, f64, f64, Option<(u32, u32)>);

/// A Dyalog 1.37 tree report (XML) of `entries`, with TimerBias `bias`.
fn dyalog_tree(bias: f64, entries: &[Entry]) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\"?>\n<ProfileData>\n<ProfileSettings>\n<Version>1.37</Version>\n\
         <TimerBias>{bias}</TimerBias>\n<Command>tree</Command>\n</ProfileSettings>\n"
    );
    for &(depth, element, line, calls, exclusive, inclusive, ticks) in entries {
        let line = if line < 0 { "¯1".to_string() } else { line.to_string() };
        xml += &format!(
            "<ProfileEntry>\n<Depth>{depth}</Depth>\n<Element>{element}</Element>\n<Line>{line}</Line>\n\
             <Calls>{calls}</Calls>\n<ExclusiveTime>{exclusive}</ExclusiveTime>\n<InclusiveTime>{inclusive}</InclusiveTime>\n"
        );
        if let Some((exclusive, inclusive)) = ticks {
            xml += &format!(
                "<ExclusiveTicks>{exclusive}</ExclusiveTicks>\n<InclusiveTicks>{inclusive}</InclusiveTicks>\n"
            );
        }
        xml += "</ProfileEntry>\n";
    }
    xml + "</ProfileData>\n"
}

// ---- §1 summary --lines lists lines ----

/// v0.9.0-tree.xml keeps #.Rain's lines 1–7, TOTAMTHS's 1–2 and LEAP's 1–3 (its dump): with
/// `--lines` those 12 line rows are the rows, heaviest first as the dump's measured inclusive times
/// rank them (Rain[7] 0.1497280978 ms, TOTAMTHS[2] 0.1188887134), no function row among them.
#[test]
fn summary_lines_lists_only_lines_where_a_function_has_them() {
    let csv = report(&["summary", "-q", "--lines", "--format", "csv", &path("dyalog-xml/v0.9.0-tree.xml")]);
    let rows = csv_rows(&csv);
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names.len(), 12, "{csv}");
    assert!(names.iter().all(|n| n.ends_with(']')), "{csv}");
    assert_eq!(names[..2], ["#.Rain[7]", "#.Gilling.TOTAMTHS[2]"]);
    assert_near(&rows[0][3], 0.1497280978);
    assert_near(&rows[1][3], 0.1188887134);
    // A profile without lines keeps its function rows: processes.tree's six.
    let lispworks = report(&["summary", "--lines", "--format", "csv", &path("lispworks/processes.tree")]);
    assert_eq!(csv_rows(&lispworks).len(), 6, "{lispworks}");
}

// ---- §2 calls takes summary's switches, and gives both shares ----

/// The `]PROFILE` guide's `]profile calls -fn=#.ch.CH∆Q -first=5` (Total time: 35.6 msec; Selected
/// time: 11.1 msec): callers CH∆AXES 1.7 ms (4.8 %, 43 calls), CH∆YLAB 1.3 (3.8, 34), CH∆XTIC 1.1
/// (3.0, 28), CHAYTIC 1.0 (2.9, 26), CH∆FIX 0.8 (21). The times here are those the rounded figures
/// allow (1.34 ms is 3.76 %); eight smaller callers (0.7 ms ×7 and 0.26) make up the 11.1 ms. Rows
/// alternate as in a tree report: #.Rain's line 1 calls every caller, whose line 1 calls CH∆Q.
fn guide_calls_example() -> String {
    let mut callers: Vec<(String, u32, f64)> = [
        ("#.ch.CH∆AXES", 43, 1.7),
        ("#.ch.CH∆YLAB", 34, 1.34),
        ("#.ch.CH∆XTIC", 28, 1.07),
        ("#.ch.CHAYTIC", 26, 1.03),
        ("#.ch.CH∆FIX", 21, 0.8),
    ]
    .iter()
    .map(|&(name, calls, time)| (name.to_string(), calls, time))
    .collect();
    callers.extend((1..=7).map(|i| (format!("#.ch.F{i}"), 3, 0.7)));
    callers.push(("#.ch.F8".to_string(), 1, 0.26));
    let mut entries = vec![(0, "#.Rain", -1, 1, 35.6 - 11.1, 35.6, None), (1, "#.Rain", 1, 1, 0.0, 11.1, None)];
    for (name, calls, time) in &callers {
        // Each caller spends nothing of its own: its time is that of its calls of CH∆Q.
        entries.push((2, name.as_str(), -1, 1, 0.0, *time, None));
        entries.push((3, name.as_str(), 1, 1, 0.0, *time, None));
        entries.push((4, "#.ch.CH∆Q", -1, *calls, *time, *time, None));
    }
    dyalog_tree(0.0, &entries)
}

#[test]
fn calls_takes_first_and_gives_the_share_of_all_and_of_the_function() {
    let (_dir, tree) = file("calls.xml", &guide_calls_example());
    let csv = report(&["calls", "--fn", "#.ch.CH∆Q", "--first", "5", "--format", "csv", &tree]);
    assert_eq!(csv.lines().next(), Some("function,name,value,pct_of_all,pct_of_fn,calls"));
    let rows = csv_rows(&csv);
    let expected = [
        ("#.ch.CH∆AXES", 1.7, 43),
        ("#.ch.CH∆YLAB", 1.34, 34),
        ("#.ch.CH∆XTIC", 1.07, 28),
        ("#.ch.CHAYTIC", 1.03, 26),
        ("#.ch.CH∆FIX", 0.8, 21),
    ];
    assert_eq!(rows.len(), 5, "{csv}");
    for (row, (name, ms, calls)) in rows.iter().zip(expected) {
        assert_eq!((row[0].as_str(), row[1].as_str()), ("#.ch.CH∆Q", name));
        assert_near(&row[2], ms);
        assert_near(&row[3], 100.0 * ms / 35.6);
        assert_near(&row[4], 100.0 * ms / 11.1);
        assert_eq!(row[5], calls.to_string());
    }
    // In text the guide's figures: 1.7 ms is 4.8 % of all (15.3 % of CH∆Q's 11.1 ms).
    let text = report(&["calls", "--fn", "#.ch.CH∆Q", "--first", "5", &tree]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Total: 35.6 ms");
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        ["caller", "ms", "%", "of", "all", "%", "of", "fn", "calls"]
    );
    assert_eq!(lines[4].split_whitespace().collect::<Vec<_>>(), ["#.ch.CH∆AXES", "1.7", "4.8", "15.3", "43"]);
    assert_eq!(lines[5].split_whitespace().collect::<Vec<_>>(), ["#.ch.CH∆YLAB", "1.3", "3.8", "12.1", "34"]);
    // JSON names both shares too.
    let json = json(&["calls", "--fn", "#.ch.CH∆Q", "--first", "1", &tree]);
    let row = &json["rows"][0];
    assert!(row["pct_of_all"].is_number() && row["pct_of_fn"].is_number() && row.get("pct").is_none(), "{row}");
}

/// `--pct`, `--cumpct`, `--avg` and `--exclusive` as `summary` takes them: the cumulative share of
/// the profile's total 4.78, 8.54, 11.54, 14.44, 16.69 %: `--pct 15` keeps four rows; the average
/// is the time per call (1.7 ms / 43); CH∆Q calls nothing, so its self time under each caller is
/// its time there.
#[test]
fn calls_takes_pct_cumpct_avg_and_exclusive() {
    let (_dir, tree) = file("calls.xml", &guide_calls_example());
    let args = ["calls", "--fn", "#.ch.CH∆Q", "--pct", "15", "--cumpct", "--avg", "--exclusive", "--format", "csv"];
    let csv = report(&[&args[..], &[tree.as_str()]].concat());
    assert_eq!(csv.lines().next(), Some("function,name,value,pct_of_all,pct_of_fn,calls,avg,cum_pct"));
    let rows = csv_rows(&csv);
    let times = [1.7, 1.34, 1.07, 1.03];
    let calls = [43.0, 34.0, 28.0, 26.0];
    assert_eq!(rows.len(), 4, "{csv}");
    let mut cumulative = 0.0;
    for ((row, time), calls) in rows.iter().zip(times).zip(calls) {
        cumulative += 100.0 * time / 35.6;
        assert_near(&row[2], time);
        assert_near(&row[6], time / calls);
        assert_near(&row[7], cumulative);
    }
    // The text names the value as the self value.
    let text = report(&["calls", "--fn", "#.ch.CH∆Q", "--exclusive", "--first", "1", &tree]);
    assert!(text.lines().nth(3).is_some_and(|l| l.starts_with("caller        self ms")), "{text}");
}

/// A block that `--pct` leaves without rows keeps its title over none, and the blocks after it
/// keep their own rows: in `main;render 50`, render's one caller is 47.6 % of all, over 20 %, while
/// old's one caller (`main;old 10`, 9.5 %) is kept under old.
#[test]
fn calls_blocks_keep_their_own_rows_when_pct_leaves_one_empty() {
    let (_dir, folded) = file("calls.folded", "main;parse;read 30\nmain;render 50\nmain;old 10\nmain 5\n");
    let text = report(&["calls", "--regex", "--fn", "^(render|old)$", "--pct", "20", &folded]);
    let blocks: Vec<&str> = text.split("\n\n").skip(1).collect();
    assert_eq!(blocks.len(), 2, "{text}");
    assert!(blocks[0].starts_with("render: total 50 samples"), "{text}");
    assert_eq!(blocks[0].lines().count(), 2, "a title and the headings: {text}");
    assert!(blocks[1].starts_with("old: total 10 samples"), "{text}");
    assert!(blocks[1].lines().nth(2).is_some_and(|l| l.starts_with("main ")), "{text}");
}

/// `--avg` needs calls counted per call path: LispWorks counts them per function only.
#[test]
fn calls_avg_without_calls_per_caller_is_refused() {
    let out = proftool().args(["calls", "--fn", "CL-USER::FIB", "--avg", &path("lispworks/processes.tree")]).assert();
    let stderr = String::from_utf8(out.code(1).get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("proftool: error: --avg: "), "{stderr}");
}

// ---- §3 data ----

/// The `]PROFILE` guide's `]profile data -fn=#.ch.CH∆Q`: CH∆Q 311 calls, 23.8 ms inclusive and
/// exclusive, 4043 ticks; its lines 311 calls and 311 ticks each, 0.3, 0.3, 0.3, 15.3, 1.7, 4.3 ms,
/// "without bias adjustment". The file holds them adjusted as `]PROFILE tree` writes them, by the
/// guide's timer cost 0.0001949486972 ms a tick (23.82 − 4043 × it = 23.032, the guide's -bias'd
/// figure); a caller `#.Rain` of 30 ms (100 ticks) of its own around it, its line 1 calling it.
#[test]
fn data_gives_a_function_and_its_lines_as_measured() {
    const BIAS: f64 = 0.0001949486972;
    let adjusted = |raw: f64, ticks: u32| raw - f64::from(ticks) * BIAS;
    let lines = [0.3, 0.3, 0.3, 15.3, 1.7, 4.3];
    let q = adjusted(23.82, 4043);
    let mut entries = vec![
        (0, "#.Rain", -1, 1, 30.0, 30.0 + q, Some((100, 4143))),
        (1, "#.Rain", 1, 1, 0.0, q, Some((0, 4043))),
        (2, "#.ch.CH∆Q", -1, 311, q, q, Some((4043, 4043))),
    ];
    for (i, &raw) in lines.iter().enumerate() {
        let t = adjusted(raw, 311);
        entries.push((3, "#.ch.CH∆Q", i as i32 + 1, 311, t, t, Some((311, 311))));
    }
    let (_dir, tree) = file("data.xml", &dyalog_tree(BIAS, &entries));
    let csv = report(&["data", "--fn", "#.ch.CH∆Q", "--format", "csv", &tree]);
    assert_eq!(csv.lines().next(), Some("function,name,calls,time_inc,time_exc,timer-ticks_inc,timer-ticks_exc"));
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 7, "{csv}");
    assert_eq!(rows[0][..3], ["#.ch.CH∆Q", "#.ch.CH∆Q", "311"]);
    assert_near(&rows[0][3], 23.82);
    assert_near(&rows[0][4], 23.82);
    assert_eq!(rows[0][5..], ["4043", "4043"]);
    for (i, (row, raw)) in rows[1..].iter().zip(lines).enumerate() {
        assert_eq!(row[..3], ["#.ch.CH∆Q".to_string(), format!("#.ch.CH∆Q[{}]", i + 1), "311".to_string()]);
        assert_near(&row[3], raw);
        assert_near(&row[4], raw);
        assert_eq!(row[5..], ["311", "311"]);
    }
    // With --bias, as the file holds them: 23.032 ms.
    let biased = report(&["data", "--fn", "#.ch.CH∆Q", "--bias", &BIAS.to_string(), "--format", "csv", &tree]);
    assert_near(&csv_rows(&biased)[0][3], q);
    // Every function without --fn, heaviest first: #.Rain (53.82 ms as measured) and its line,
    // then CH∆Q and its six.
    let all = csv_rows(&report(&["data", "--format", "csv", &tree]));
    assert_eq!(all.len(), 9);
    assert_eq!(all[0][1], "#.Rain");
    assert_near(&all[0][3], 30.0 + 23.82 + 100.0 * BIAS);
}

/// A LispWorks tree has no lines nor times: its samples, inclusive (Seen-Count: FIB 60) and
/// exclusive (Top-Count: FIB 50), and its Call-Count (3).
#[test]
fn data_of_a_profile_without_lines_gives_its_own_metrics() {
    let csv = report(&["data", "--fn", "CL-USER::FIB", "--format", "csv", &path("lispworks/processes.tree")]);
    assert_eq!(csv, "function,name,calls,samples_inc,samples_exc\nCL-USER::FIB,CL-USER::FIB,3,60,50\n");
    let regex = report(&["data", "--regex", "--fn", "FIB", "--format", "csv", &path("lispworks/processes.tree")]);
    assert_eq!(regex, csv);
    let out = proftool().args(["data", "--regex", "--fn", "^nothing$", &path("lispworks/processes.tree")]).assert();
    let stderr = String::from_utf8(out.code(1).get_output().stderr.clone()).unwrap();
    assert_eq!(stderr, "proftool: error: --fn ^nothing$: no function matches\n");
}

/// Issue 34 §12: `data --fn` takes a name as `summary --fn` and `calls --fn` do, parentheses and
/// all: `(METHOD PRINT-OBJECT (WIDGET T))` of processes.tree, whose one line (depth 4) says Seen 10,
/// Top 10 and Call-Count 0, read from the file. A name that is no function's gets the closest
/// names, as `calls --fn` does; as a regex the name matches nothing (its parentheses are groups).
#[test]
fn data_takes_a_function_by_its_name() {
    let tree = path("lispworks/processes.tree");
    let method = "(METHOD PRINT-OBJECT (WIDGET T))";
    let csv = report(&["data", "--fn", method, "--format", "csv", &tree]);
    assert_eq!(csv, format!("function,name,calls,samples_inc,samples_exc\n{method},{method},0,10,10\n"));
    let out = proftool().args(["data", "--fn", "FIB", &tree]).assert();
    let stderr = String::from_utf8(out.code(1).get_output().stderr.clone()).unwrap();
    let calls = proftool().args(["calls", "--fn", "FIB", &tree]).assert();
    assert_eq!(stderr, String::from_utf8(calls.code(1).get_output().stderr.clone()).unwrap());
    assert!(
        stderr.starts_with("proftool: error: --fn FIB: no function is named so; the closest: CL-USER::FIB"),
        "{stderr}"
    );
    let out = proftool().args(["data", "--regex", "--fn", method, &tree]).assert();
    let stderr = String::from_utf8(out.code(1).get_output().stderr.clone()).unwrap();
    assert_eq!(stderr, format!("proftool: error: --fn {method}: no function matches\n"));
}

// ---- §4 a recursive function is its own caller ----

/// processes.tree: FIB (Seen 60) under the listener (60) and under itself (the depth-3 node, 35):
/// each caller carries the samples through its call, as pprof's `-peek` gives the listener's 60.
#[test]
fn a_recursive_function_is_its_own_caller_with_the_samples_through_the_call() {
    let csv = report(&["calls", "--fn", "CL-USER::FIB", "--format", "csv", &path("lispworks/processes.tree")]);
    let rows = csv_rows(&csv);
    let callers: Vec<(&str, &str)> = rows.iter().map(|r| (r[1].as_str(), r[2].as_str())).collect();
    assert_eq!(callers, [("CAPI Execution Listener 1", "60"), ("CL-USER::FIB", "35")]);
    // 35 of the 100 samples, 35 of FIB's 60.
    assert_near(&rows[1][3], 35.0);
    assert_near(&rows[1][4], 100.0 * 35.0 / 60.0);
}

/// A fib whose every sample passes through fib → fib (as an SBCL tree of a recursive fib): the
/// edge carries every sample once, however deep (3 + 2 + 1 samples under main;fib;fib).
#[test]
fn every_sample_through_a_recursive_call_counts_once() {
    let folded = "main;fib;fib 1\nmain;fib;fib;fib 2\nmain;fib;fib;fib;fib 3\n";
    let mut command = proftool();
    command.args(["calls", "--from", "folded", "--fn", "fib", "--format", "csv", "-"]).write_stdin(folded);
    let csv = String::from_utf8(command.assert().success().get_output().stdout.clone()).unwrap();
    assert_eq!(csv, "function,name,value,pct_of_all,pct_of_fn\nfib,fib,6,100,100\nfib,main,6,100,100\n");
}

// ---- §5 one total per profile, whichever command ----

/// Every format's fixture: `info`'s total of the reported metric is the `Total:` of `summary`,
/// `calls`, `tree`, `data` and each side of `diff`.
#[test]
fn every_command_states_one_total() {
    let fixtures = [
        "lispworks/processes.tree",
        "folded/basic.folded",
        "pprof/cpu.pb.gz",
        "ghc-prof/work-ticks.prof",
        "ghc-px/notes-example.px",
        "ghc-json/work.prof.json",
        "br/timed.br",
        "sampler/two-threads.sampler",
        "speedscope/evented.speedscope.json",
        "dyalog-xml/v1.37-stats-tree.xml",
        "dyalog-csv/v1.37-stats-summary.csv",
    ];
    for rel in fixtures {
        let input = path(rel);
        assert!(Path::new(&input).exists(), "{input}");
        let summary = json(&["summary", "-q", &input]);
        let metric = summary["metric"].as_str().unwrap().to_string();
        let total = summary["total"].as_f64().unwrap();
        let info: serde_json::Value = serde_json::from_str(&report(&["info", "--json", "-q", &input])).unwrap();
        let stated = (info["metrics"].as_array().unwrap().iter())
            .find(|m| m["name"] == metric.as_str())
            .and_then(|m| m["total"].as_f64());
        assert_eq!(stated, Some(total), "{rel}: info against summary");
        let first = summary["rows"][0]["name"].as_str().unwrap().to_string();
        for args in [vec!["calls", "--fn", first.as_str()], vec!["tree"], vec!["data"]] {
            let other = json(&[&args[..], &["-q", input.as_str()]].concat());
            assert_eq!(other["total"].as_f64(), Some(total), "{rel}: {args:?}");
        }
        let diff = json(&["diff", "-q", &input, &input]);
        assert_eq!(diff["base"]["total"].as_f64(), Some(total), "{rel}: diff");
    }
}

// ---- §6 messages and names ----

/// sampled.br's lines of no named function are in a MAIN ROUTINE (10.0, 10.2) or a GOSUB (100.0)
/// (its dump's br.routine): `tree --lines` names them so.
#[test]
fn br_lines_are_named_after_their_routine() {
    let text = report(&["tree", "--lines", &path("br/sampled.br")]);
    let names: Vec<&str> = text.lines().skip(3).map(|l| l.split("  ").last().unwrap().trim()).collect();
    assert_eq!(
        names,
        ["MAIN orders.br:10.0", "GOSUB orders.br:100.0", "FNTAX[lib/calc.br:20.1]", "MAIN orders.br:10.2"]
    );
    // `--fn` takes the name as shown.
    let calls =
        report(&["calls", "--lines", "--fn", "GOSUB orders.br:100.0", "--format", "csv", &path("br/sampled.br")]);
    assert_eq!(csv_rows(&calls)[0][1], "MAIN orders.br:10.0");
}

/// Two rows whose InclusiveTime is below their ExclusiveTime as labelled, none read the other way
/// round: the warning says the columns are read swapped, and A's 3 ms is its inclusive time.
#[test]
fn swapped_columns_are_said_to_be_read_swapped() {
    let entries = [(0, "#.A", -1, 1, 3.0, 1.0, None), (0, "#.B", -1, 1, 2.0, 1.0, None)];
    let (_dir, tree) = file("swapped.xml", &dyalog_tree(0.0, &entries));
    let (out, err) = run(&["summary", "--format", "csv", &tree]);
    assert!(
        err.contains("2 rows have InclusiveTime (or ticks) below ExclusiveTime as the columns are labelled, 0 if the two are read the other way round: the columns are read swapped, as mislabelled"),
        "{err}"
    );
    // A's 1 ms of its own is 20 % of the 3 + 2 ms of the two roots.
    assert_eq!(csv_rows(&out)[0][..4], ["#.A", "1", "20", "3"]);
}
