//! The `proftool` binary on Dyalog data and summary reports as `]PROFILE` means them (issue 34).
//! Every expected figure is the `]PROFILE` guide's printed text or hand arithmetic on it, said at
//! each test.

use crate::support::binary::{fixture, proftool};

/// The guide's TimerBias (its `<TimerBias>`, `]profile state`'s timer cost).
const BIAS: f64 = 0.00019494869718528207;

/// Runs `proftool <args>`, which must succeed, and returns (stdout, stderr).
fn report(args: &[&str]) -> (String, String) {
    let out = proftool().args(args).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// The CSV rows (header left out) of a report run with `--format csv`.
fn csv_rows(args: &[&str]) -> (Vec<Vec<String>>, String) {
    let mut args = args.to_vec();
    args.extend(["--format", "csv"]);
    let (out, err) = report(&args);
    (out.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect(), err)
}

fn assert_close(got: &str, want: f64) {
    let got: f64 = got.parse().unwrap();
    assert!((got - want).abs() < 1e-7, "{got} is not {want}");
}

/// Item 2: a data report is raw (the `]PROFILE` guide, docs/sources.md: `data` is "without bias
/// adjustment"). The fixture is the guide's Appendix B data CSV typed as 0.9.0 XML with the run's
/// TimerBias: `data` shows `#.Rain` as the file has it, 71.67758248 ms inclusive (not the bias
/// added again, 74.95), and `summary` shows it bias-adjusted, as `]profile summary` printed it:
/// Appendix B's 71.67758248 − 16810 × 0.000194948697 = 68.40049488 (the tree's 68.40049487792044),
/// and its ExclusiveTime 0.8347928178 − 73 × 0.000194948697 = 0.8205615629 (the tree's).
#[test]
fn a_data_report_is_raw_and_summary_adjusts_it() {
    let xml = fixture("dyalog-xml/v0.9.0-data.xml");
    let xml = xml.to_str().unwrap();
    let (rows, _) = csv_rows(&["data", "--fn", "#.Rain", xml]);
    assert_eq!(rows[0][..3], ["#.Rain", "#.Rain", "1"]);
    assert_close(&rows[0][3], 71.67758248);
    assert_close(&rows[0][4], 0.8347928178);
    let (rows, _) = csv_rows(&["summary", xml]);
    assert_eq!(rows[0][0], "#.Rain");
    assert_close(&rows[0][3], 68.40049488);
    assert_close(&rows[0][3], 71.67758248 - 16810.0 * BIAS);
    // `--bias 0` on summary: the raw figures, as `]profile summary -bias=0`.
    let (rows, _) = csv_rows(&["summary", "--bias", "0", xml]);
    assert_close(&rows[0][3], 71.67758248);
    // The same report as CSV (no TimerBias): `data` is raw all the same.
    let csv = fixture("dyalog-csv/v0.9.0-data-semicolon.csv");
    let (rows, _) = csv_rows(&["data", "--fn", "#.Rain", csv.to_str().unwrap()]);
    assert_close(&rows[0][3], 71.67758248);
    // `summary` cannot adjust it without the bias, says so, and takes it from --bias.
    let (rows, err) = csv_rows(&["summary", csv.to_str().unwrap()]);
    assert_close(&rows[0][3], 71.67758248);
    assert!(err.contains("a data report holds times as measured and this one does not say its TimerBias"), "{err}");
    let (rows, _) = csv_rows(&["summary", "--bias", &BIAS.to_string(), csv.to_str().unwrap()]);
    assert_close(&rows[0][3], 68.40049488);
}

/// Item 5: a CSV tree is bias-adjusted with a TimerBias it does not carry, so `data` cannot show
/// its times as measured: it says so, and `--bias MS` puts a known bias back. The `]PROFILE`
/// guide's tree CSV: `#.Rain` 68.40049488 ms inclusive (16810 ticks), measured 68.40049488 + 16810
/// × 0.000194948697 = 71.67758248, Appendix B's data row.
#[test]
fn data_on_a_csv_tree_says_it_cannot_restore_measured_times() {
    let csv = fixture("dyalog-csv/v0.9.0-tree.csv");
    let csv = csv.to_str().unwrap();
    let (rows, err) = csv_rows(&["data", "--fn", "#.Rain", csv]);
    assert_close(&rows[0][3], 68.40049488);
    assert!(err.contains("does not say the TimerBias its times were adjusted with"), "{err}");
    assert!(err.contains("--bias MS"), "{err}");
    let (rows, err) = csv_rows(&["data", "--fn", "#.Rain", "--bias", &BIAS.to_string(), csv]);
    assert_close(&rows[0][3], 71.67758248);
    assert!(!err.contains("TimerBias"), "{err}");
    // The XML of the same run says its TimerBias: no word, measured times.
    let xml = fixture("dyalog-xml/v0.9.0-tree.xml");
    let (rows, err) = csv_rows(&["data", "--fn", "#.Rain", xml.to_str().unwrap()]);
    assert_close(&rows[0][3], 71.67758248);
    assert!(!err.contains("TimerBias"), "{err}");
}

/// Item 13: LispWorks counts calls per function (Call-Count: 3 for `CL-USER::FIB` in
/// processes.tree), not per call path: a conversion to Dyalog says the Call-Count is dropped and
/// that Calls are written as 0 for want of per-call-path counts, not that the source has none.
#[test]
fn lispworks_to_dyalog_says_what_is_dropped_of_its_call_counts() {
    let tree = fixture("lispworks/processes.tree");
    let out = proftool().args(["convert", "--to", "dyalog-xml"]).arg(&tree).arg("-").assert().success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(std::fs::read_to_string(&tree).unwrap().contains("CL-USER::FIB"));
    assert!(!err.contains("has no call counts"), "{err}");
    assert!(err.contains("Call-Count, Seen-Count and Top-Count are dropped"), "{err}");
    assert!(err.contains("does not count calls per call path"), "{err}");
}

/// Item 3: a `]PROFILE summary` report holds inclusive times only (the `]PROFILE` guide's summary
/// CSV: `#.Rain` 68.40049488, `#.ch.Step`, which Rain calls, 47.14893489): its rows' own times are
/// unknown. `summary` shows self and self % empty (the total column as the file: 68.40049488 ms),
/// `--exclusive` is refused naming why, `data` leaves the exclusive time empty, and a conversion
/// says so once.
#[test]
fn a_summary_report_has_no_self_times() {
    let csv = fixture("dyalog-csv/v0.9.0-summary.csv");
    let csv = csv.to_str().unwrap();
    let (rows, _) = csv_rows(&["summary", csv]);
    assert_eq!(rows[0][..3], ["#.Rain", "", ""]);
    assert_close(&rows[0][3], 68.40049488);
    assert_eq!(rows[1][..3], ["#.ch.Step", "", ""]);
    assert_close(&rows[1][3], 47.14893489);
    let out = proftool().args(["summary", "--exclusive", csv]).assert().code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--exclusive: the profile is a ]PROFILE summary report, which holds inclusive times only"),
        "{err}"
    );
    let (rows, _) = csv_rows(&["data", csv]);
    assert_eq!(rows[0][..3], ["#.Rain", "#.Rain", "1"]);
    assert_close(&rows[0][3], 68.40049488);
    assert_eq!(rows[0][4], "");
    let out = proftool().args(["convert", "--to", "speedscope", csv, "-"]).assert().success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(err.matches("holds inclusive times only").count(), 1, "{err}");
    // An `-exclusive` summary holds own times: --exclusive stands.
    let dir = tempfile::tempdir().unwrap();
    let exclusive = dir.path().join("exclusive.csv");
    std::fs::write(&exclusive, "\"Element\",\"Line\",\"ExclusiveTime\",\"Calls\"\n\"#.ch.CHΔQ\",,23.032,311\n")
        .unwrap();
    let (rows, _) = csv_rows(&["summary", "--exclusive", exclusive.to_str().unwrap()]);
    assert_close(&rows[0][1], 23.032);
}

/// Item 6: a summary report's percentages are the file's own PctOfTot while its rows are shown
/// unchanged. `printed-summary.csv` is the `]PROFILE` guide's printed `]profile summary -first=5`
/// table typed as a CSV, times as printed: `#.ch.CH∆Q` 23.0 ms, 33.7 %; 23.0 / 68.4 would be 33.6
/// %. And the guide's summary CSV written back keeps its own 33.67200272 (23.0318165 / 68.40049488
/// is 33.672002725…, which ten digits would round to …273).
#[test]
fn a_summary_shows_and_writes_the_files_own_percentages() {
    let typed = fixture("dyalog-csv/printed-summary.csv");
    let typed = typed.to_str().unwrap();
    let (rows, _) = csv_rows(&["summary", typed]);
    assert_eq!(rows[2][0], "#.ch.CHΔQ");
    assert_eq!(rows[2][4], "33.7");
    let (text, _) = report(&["summary", typed]);
    assert!(text.contains("#.ch.CHΔQ                         23.0     33.7    311"), "{text}");
    // A filter changes the rows shown: the share is then worked out, 23.0 of 68.4 ms.
    let (rows, _) = csv_rows(&["summary", "--focus", "CH", typed]);
    assert_close(&rows[0][4], 23.0 / 68.4 * 100.0);
    let example = fixture("dyalog-csv/v0.9.0-summary.csv");
    let out = proftool().args(["convert", "--to", "dyalog-csv"]).arg(&example).arg("-").assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(csv.contains("\"#.ch.CHΔQ\",,23.0318165,33.67200272,311\n"), "{csv}");
}

/// Item 9 (in part): `--dyalog-separators` on a report applies to a Dyalog CSV input (the
/// `]PROFILE` guide's `-separators=",;"` data report, read as such) and is refused, naming why, for
/// any other input rather than silently ignored: a report's `--format csv` is plain CSV.
#[test]
fn dyalog_separators_on_a_report_apply_or_are_refused() {
    let semicolon = fixture("dyalog-csv/v0.9.0-data-semicolon.csv");
    let (rows, _) = csv_rows(&["data", "--dyalog-separators", ",;", "--fn", "#.Rain", semicolon.to_str().unwrap()]);
    assert_close(&rows[0][3], 71.67758248);
    let xml = fixture("dyalog-xml/v0.9.0-tree.xml");
    for command in ["data", "summary"] {
        let out = proftool().args([command, "--dyalog-separators", ",;"]).arg(&xml).assert().code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("--dyalog-separators: the input is dyalog-xml, not a Dyalog CSV report"), "{err}");
    }
}

/// Item 10: `--dyalog-version 0.9.0` writes the `]PROFILE` guide's 0.9.0 layout: the guide's tree
/// example (`v0.9.0-tree.xml`, typed from the guide) is written back byte for byte (but its CRLF
/// line ends), `<Function>`, `<Line></Line>`, 0.9.0's swapped labels and all; `--dyalog-title`
/// gives the title (`]PROFILE -title="Testing"`, the guide's); a source without TimerBias (a
/// CSV report) is written with `<TimerBias>0` and a word on stderr; either switch is refused for
/// another target.
#[test]
fn the_0_9_0_layout_a_title_and_a_missing_timer_bias() {
    let example = fixture("dyalog-xml/v0.9.0-tree.xml");
    let out = proftool()
        .args(["convert", "--to", "dyalog-xml", "--dyalog-version", "0.9.0"])
        .arg(&example)
        .arg("-")
        .assert()
        .success();
    let xml = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(xml, std::fs::read_to_string(&example).unwrap().replace("\r\n", "\n"));
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!err.contains("written as 1.37") && !err.contains("TimerBias"), "{err}");
    let out = proftool()
        .args(["convert", "--to", "dyalog-xml", "--dyalog-title", "Testing"])
        .arg(&example)
        .arg("-")
        .assert()
        .success();
    let xml = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(xml.contains("<Title>Testing</Title>") && xml.contains("<Version>1.37</Version>"), "{xml}");
    let csv = fixture("dyalog-csv/v0.9.0-tree.csv");
    let out = proftool().args(["convert", "--to", "dyalog-xml"]).arg(&csv).arg("-").assert().success();
    let xml = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(xml.contains("<TimerBias>0</TimerBias>"), "{xml}");
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("dyalog-xml: the source states no TimerBias: written as 0"), "{err}");
    let out = proftool()
        .args(["convert", "--to", "dyalog-csv", "--dyalog-version", "0.9.0"])
        .arg(&example)
        .arg("-")
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--dyalog-version: the output is dyalog-csv; it applies to dyalog-xml"), "{err}");
}

/// Item 9: proftool writes a Dyalog data and summary report, not only a tree. From the guide's tree
/// (`v0.9.0-tree.xml`, bias-adjusted), `--dyalog-report data` with `-separators=",;"` gives the
/// guide's Appendix B data CSV (`]profile data -format=csv -separators=",;"`) to its ten digits:
/// raw times (0.8205615629 + 73 × TimerBias = 0.8347928178), every row of Rain and its lines 1–7
/// the guide prints. `--dyalog-report summary` gives `]profile summary`'s `#.Rain` 68.40049488 ms,
/// 100 %, 1 call.
#[test]
fn a_tree_is_written_as_a_data_or_summary_report() {
    let tree = fixture("dyalog-xml/v0.9.0-tree.xml");
    let args = ["convert", "--to", "dyalog-csv", "--dyalog-report", "data", "--dyalog-separators", ",;"];
    let out = proftool().args(args).arg(&tree).arg("-").assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "\"Element\";\"Line\";\"Calls\";\"ExclusiveTime\";\"InclusiveTime\";\"ExclusiveTicks\";\"InclusiveTicks\""
        )
    );
    // Appendix B, its columns in ⎕PROFILE's order (0.9.0 labelled them the other way round).
    let appendix_b = [
        "\"#.Rain\";;1;0,8347928178;71,67758248;73;16810",
        "\"#.Rain\";1;1;0,001732044211;0,001732044211;1;1",
        "\"#.Rain\";2;1;0,01054972375;0,01054972375;1;1",
        "\"#.Rain\";3;1;0,002121941606;0,002121941606;1;1",
        "\"#.Rain\";4;1;0,0012296764;0,0012296764;1;1",
        "\"#.Rain\";5;1;0,003261641666;0,003261641666;1;1",
        "\"#.Rain\";6;1;0,08764443569;0,1063295186;2;9",
        "\"#.Rain\";7;1;0,01747790054;0,15538161;2;29",
    ];
    for want in appendix_b {
        let got = lines.next().unwrap();
        let (want, got): (Vec<&str>, Vec<&str>) = (want.split(';').collect(), got.split(';').collect());
        assert_eq!(want[..3], got[..3], "{got:?}");
        assert_eq!(want[5..], got[5..], "{got:?}");
        for i in 3..5 {
            let (w, g): (f64, f64) =
                (want[i].replace(',', ".").parse().unwrap(), got[i].replace(',', ".").parse().unwrap());
            assert!((w - g).abs() <= 1e-9 * w, "{w} {g}");
        }
    }
    let args = ["convert", "--to", "dyalog-csv", "--dyalog-report", "summary"];
    let out = proftool().args(args).arg(&tree).arg("-").assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        csv.starts_with("\"Element\",\"Line\",\"Time\",\"PctOfTot\",\"Calls\"\n\"#.Rain\",,68.40049487792044,100,1\n"),
        "{csv}"
    );
    let out =
        proftool().args(["convert", "--to", "folded", "--dyalog-report", "data"]).arg(&tree).arg("-").assert().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--dyalog-report: the output is folded"), "{err}");
}

/// Item 9: a source without time (LispWorks samples) is refused, naming the way round, rather than
/// written with its samples under a label they would not keep.
#[test]
fn a_report_of_a_source_without_time_is_refused() {
    let tree = fixture("lispworks/processes.tree");
    let out = proftool()
        .args(["convert", "--to", "dyalog-xml", "--dyalog-report", "summary"])
        .arg(&tree)
        .arg("-")
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--dyalog-report: the profile has no time"), "{err}");
}

/// A data report converted out of Dyalog's formats holds the times its reports show: `#.Rain`'s
/// own time measured 0.8347928178 ms over 73 timer inspections (Appendix B's data line), less
/// 73 × 0.000194948697 ms of TimerBias: 0.820561563 ms, by hand; said on stderr.
#[test]
fn a_data_report_converted_elsewhere_has_its_timer_bias_taken_off() {
    let out = proftool()
        .args(["convert", "--to", "speedscope"])
        .arg(fixture("dyalog-xml/v0.9.0-data.xml"))
        .arg("-")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("whose times are as measured: they are written with its TimerBias"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let profile = &json["profiles"][0];
    let total: f64 = match profile["type"].as_str() {
        Some("sampled") => profile["weights"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).sum(),
        _ => profile["endValue"].as_f64().unwrap() - profile["startValue"].as_f64().unwrap(),
    };
    assert!((total - (0.8347928178 - 73.0 * 0.000194948697)).abs() < 1e-6, "{total}");
}

/// Item 11: `]PROFILE`'s abbreviations of its switches, as its users type them (the `]PROFILE`
/// guide, docs/sources.md: `]profile summary -excl -dec=3 -avg -bias=0 -first=3`, "Total time: 71.7
/// msec"), are aliases: on the guide's run (v0.9.0-tree.xml) the total without bias is Appendix B's
/// #.Rain 71.67758248 ms, 71.678 to three decimals, and the report is the one the switches spelled
/// out give.
#[test]
fn profile_abbreviations_are_aliases() {
    let xml = fixture("dyalog-xml/v0.9.0-tree.xml");
    let xml = xml.to_str().unwrap();
    let (short, _) = report(&["summary", "--excl", "--dec=3", "--avg", "--bias=0", "--first=3", xml]);
    assert!(short.starts_with("Total: 71.678 ms\n"), "{short}");
    let (long, _) = report(&["summary", "--exclusive", "--decimal=3", "--avg", "--bias=0", "--first=3", xml]);
    assert_eq!(short, long);
    let (cumulative, _) = report(&["summary", "--cum", "--lin", xml]);
    assert_eq!(cumulative, report(&["summary", "--cumpct", "--lines", xml]).0);
}

/// Item 11: a long switch given one dash, as `]PROFILE` takes them (`-exclusive`), is a usage
/// error (exit 2, as clap's) that names the switch meant, instead of clap's `-e`.
#[test]
fn a_switch_with_one_dash_is_told_its_two() {
    let xml = fixture("dyalog-xml/v0.9.0-tree.xml");
    for (typed, meant) in [("-exclusive", "--exclusive"), ("-dec=3", "--dec=3")] {
        let out = proftool().args(["summary", typed]).arg(&xml).assert().code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains(&format!("tip: did you mean {meant}? ")), "{stderr}");
    }
}
