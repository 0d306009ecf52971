//! GHC's text reports (`ghc-prof`, `+RTS -p`/`-P`): what rows rounded to nothing leave, a report
//! cut short, and any GHC profile saved under the `.prof` extension.

use crate::support::binary::{fixture, output_of_installed, proftool, run, temp};

/// below-rounding.prof, made by hand from the format's rules: 10,000 ticks of 1 ms and 1,000,000,000
/// bytes. main has 3,000 ticks and 200,000,000 bytes, fib under it 2,500 and 150,000,000, go
/// 4,420 and 250,000,000, readInput 0 and 386,000,000 (all whole tenths of a percent). Under go,
/// run1 to run20 have 300,000 bytes each (0.03 %), and fib under each 4 ticks and 400,000 bytes
/// (0.04 %): those forty rows print 0.0. So the rows place 99.2 % of the time and 98.6 % of the
/// alloc; GHC's per-cost-centre table has fib at 25.8 % and 15.8 % (2,580 ticks, 158,000,000
/// bytes), where the tree places 25.0 and 15.0.
#[test]
fn a_p_report_puts_what_its_rows_round_to_nothing_under_one_frame() {
    let input = fixture("ghc-prof/below-rounding.prof");
    // The totals are the header's, and fib's self time is the table's 25.8 %.
    let out = proftool().args(["info", "--json"]).arg(&input).assert().success();
    let info: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let totals: Vec<(&str, f64)> = info["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["total"].as_f64().unwrap()))
        .collect();
    assert_eq!(totals, [("time", 10_000.0), ("entries", 44.0), ("alloc", 1_000_000_000.0)]);
    let top: Vec<(&str, f64)> = info["top_functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["self"].as_f64().unwrap()))
        .collect();
    assert_eq!(top, [("Main.go", 4420.0), ("Main.main", 3000.0), ("Main.fib", 2580.0)]);
    // What the rows leave: fib's 0.8 % of each (80 ms, 8,000,000 bytes) by name, and the run cost
    // centres' 0.6 % of the alloc (under 1 %, not in the table) in the frame itself.
    let (time, err) = run(&["convert", "--to", "folded", "--interval", "1ms"], &input);
    assert!(
        time.ends_with("MAIN.MAIN;Main.CAF;Main.main;Main.go 4420\nMAIN.MAIN;<below 0.05 %>;Main.fib 80\n"),
        "{time}"
    );
    let (alloc, _) = run(&["convert", "--to", "folded", "--metric", "alloc"], &input);
    assert!(
        alloc.ends_with("MAIN.MAIN;<below 0.05 %> 6000000\nMAIN.MAIN;<below 0.05 %>;Main.fib 8000000\n"),
        "{alloc}"
    );
    for said in [
        "the tree's rows place 99.2 % of the header's total time; the other 0.8 % (80 ms), in rows under 0.05 %, is put under <below 0.05 %>",
        "the tree's rows place 98.6 % of the header's total alloc; the other 1.4 % (14000000 bytes), in rows under 0.05 %, is put under <below 0.05 %>",
        "profile with +RTS -P for exact ticks and bytes",
    ] {
        assert!(err.contains(said), "{said}\nnot in:\n{err}");
    }
}

/// work-percent.prof (GHC 9.0.2, `+RTS -p`) cut at the end of its line 39: the tree's first 13
/// rows (lines 27–39: MAIN, the CAFs and the cost centres under them, and `main`), whose individual
/// %time and %alloc all print 0.0. Rounding can leave out at most 0.05 % a row, 0.65 % in all
/// (printed 0.6): the 100 % of the header's 51 ms they leave says the report is cut, not rounded.
#[test]
fn a_ghc_time_report_cut_at_a_line_end_is_said_to_look_cut() {
    let whole = fixture("ghc-prof/work-percent.prof");
    let stderr = info_of_first_lines(&std::fs::read_to_string(&whole).unwrap(), 39);
    assert!(
        stderr.contains("the report looks cut short: the tree's rows place 0.0 % of the header's total time, and the other 100.0 % (51 ms) is more than the rounding of its 13 rows can leave out (0.05 % each, 0.6 % in all)"),
        "{stderr}"
    );
    // The whole report leaves 0.1 % of its time and of its alloc (its rows' %time add up to 99.9,
    // their %alloc too: added up by hand), which its rows' rounding explains.
    let out = proftool().arg("info").arg(&whole).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("looks cut short") && stderr.contains("in rows under 0.05 %"), "{stderr}");
}

/// A run too short for a tick (`0 ticks`, as most of GHC's own test reports of profiling are)
/// leaves no time to place, whatever its rows' 0.0 %: only what the rows leave of the alloc is
/// said (the same cut report, its header's time made nothing).
#[test]
fn a_report_of_no_ticks_leaves_no_time_out() {
    let whole = fixture("ghc-prof/work-percent.prof");
    let text = std::fs::read_to_string(&whole).unwrap();
    let no_ticks = text.replace("0.05 secs   (51 ticks @", "0.00 secs   (0 ticks @");
    assert_ne!(no_ticks, text);
    let stderr = info_of_first_lines(&no_ticks, 39);
    assert!(!stderr.contains("total time"), "{stderr}");
    assert!(stderr.contains("header's total alloc, and the other 100.0 %"), "{stderr}");
}

/// `proftool info`'s stderr on the first `lines` lines of the report `text`.
fn info_of_first_lines(text: &str, lines: usize) -> String {
    let cut: String = text.lines().take(lines).map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cut.prof");
    std::fs::write(&input, cut).unwrap();
    let out = proftool().arg("info").arg(&input).assert().success();
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// Folded lines of weight other than 0, sorted (inferno writes no order of ours, and CRLF where
/// the report has it).
fn nonzero_sorted(folded: &str) -> Vec<String> {
    let mut lines: Vec<String> =
        folded.lines().map(|l| l.trim_end_matches('\r').to_string()).filter(|l| !l.ends_with(" 0")).collect();
    lines.sort();
    lines
}

/// A `-P` report (ticks and bytes) reads to the stacks `inferno-collapse-ghcprof` makes of it,
/// where it is installed: ticks with `--ticks`, alloc with `--bytes` (stacks of weight 0 left out,
/// which inferno writes where proftool writes none). GHC's own reports (make-fixtures.sh).
#[test]
fn a_ticks_report_reads_as_inferno_collapses_it() {
    let reports = vec![fixture("ghc-prof/work-ticks.prof"), fixture("ghc-prof/unicode-crlf.prof")];
    for report in reports {
        for (metric, theirs) in [("ticks", "--ticks"), ("alloc", "--bytes")] {
            let Some(expected) = output_of_installed("inferno-collapse-ghcprof", &[theirs], &report) else { return };
            let (ours, _) = run(&["convert", "-q", "--metric", metric, "--to", "folded"], &report);
            assert_eq!(nonzero_sorted(&ours), nonzero_sorted(&expected), "{} {metric}", report.display());
        }
    }
}

#[test]
fn any_ghc_profile_named_prog_prof_converts_to_folded_with_module_qualified_names() {
    let dir = temp();
    // The -px log, the -P text report and the -pj JSON, each saved as prog.prof.
    for (source, first) in [
        ("ghc-px/notes-example.px", "MAIN.MAIN;Main.CAF;Main.main;Main.isEven 20\n"),
        ("ghc-prof/unicode-crlf.prof", "MAIN.MAIN;Main.CAF;Main.main;Main.一覧 6\n"),
        ("ghc-json/undeclared-deep.json", "MAIN.MAIN;Main.main 1\n"),
    ] {
        let prof = dir.path().join("prog.prof");
        std::fs::copy(fixture(source), &prof).unwrap();
        let out = dir.path().join("out.folded");
        proftool().arg("convert").arg(&prof).arg(&out).assert().success();
        let folded = std::fs::read_to_string(&out).unwrap();
        assert!(folded.starts_with(first), "{source}:\n{folded}");
    }
}

/// A `-p` report's times are its rows' percentages of the header's total (51 ticks @ 1000 us: 51
/// ms); added up they are that total, and the machine-readable reports write it so (51, not the
/// 51.000000000000014 that floating-point addition leaves), as `Main.main`'s 99.9 % (50.949 ms).
#[test]
fn a_p_reports_sums_are_written_as_the_numbers_meant() {
    let input = fixture("ghc-prof/work-percent.prof");
    let out = proftool().args(["summary", "-q", "--format", "json"]).arg(&input).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["total"].to_string(), "51");
    assert_eq!(json["rows"][1]["total"].to_string(), "50.949", "{json}");
    let out = proftool().args(["summary", "-q", "--format", "csv"]).arg(&input).assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(csv.contains("\nMAIN.MAIN,0,0,51,100,0\nMain.main,0,0,50.949,99.9,1\n"), "{csv}");
}
