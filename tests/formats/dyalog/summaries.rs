//! The `proftool` binary on Dyalog summary reports (issue 25 §11): a summary's rows are functions'
//! inclusive times, which overlap, so the report's own total (TotalTime, or the total its PctOfTot
//! is of) is the profile's, in `summary`, `calls` and `info` alike, and a conversion to a stack
//! format says once how far the rows exceed it. Every expected number is the file's own (its
//! TotalTime and PctOfTot columns) or worked out by hand from its rows.

use crate::support::binary::{fixture, proftool, run};
use crate::support::fixtures_dir;
use std::path::PathBuf;

/// The corpus file `rel` (`dyalog-csv/…`), copied into `fixtures/corpus/` (see its `SOURCES.md`).
fn corpus(rel: &str) -> PathBuf {
    fixtures_dir().join("corpus").join(rel)
}

/// The 1.37 documentation's summary CSV (`]Profile summary -first=5 -format=csv`).
fn summary_csv() -> PathBuf {
    corpus("dyalog-csv/dyalog-docs-summary-data3.csv")
}

/// Its rows as the file gives them: name, Time (ms) and PctOfTot.
const CSV_ROWS: [(&str, f64, f64); 5] = [
    ("#.Samples.Sample", 58.2, 100.0),
    ("#.SharpPlot.DrawLineGraph", 25.626, 44.03092784),
    ("#.SharpPlot.Plot", 18.373, 31.56872852),
    ("#.SharpPlot.DrawBarChart", 7.726, 13.27491409),
    ("#.SharpPlot.CH∆PLOT", 3.153, 5.417525773),
];

/// Runs `proftool <args> <input>`, which must succeed, and returns (stdout, stderr).
fn report(args: &[&str], input: &PathBuf) -> (String, String) {
    let out = proftool().args(args).arg(input).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

fn json(args: &[&str], input: &PathBuf) -> serde_json::Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&report(&args, input).0).unwrap()
}

/// Whether `a` and `b` agree to PctOfTot's ten significant digits.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 * b.abs().max(1.0)
}

/// `summary` of the CSV summary: Total 58.2 ms (Sample's 100 %), not the 113.078 ms its rows add
/// up to, and each function's % is the file's PctOfTot.
#[test]
fn summary_gives_the_files_total_and_pct_of_tot() {
    let summary = json(&["summary"], &summary_csv());
    assert_eq!(summary["total"], 58.2, "{summary}");
    let rows = summary["rows"].as_array().unwrap();
    assert_eq!(rows.len(), CSV_ROWS.len(), "{summary}");
    for (row, (name, time, pct)) in rows.iter().zip(CSV_ROWS) {
        assert_eq!(row["name"], name, "{summary}");
        assert_eq!(row["total"], time, "{summary}");
        assert!(close(row["total_pct"].as_f64().unwrap(), pct), "{name}: {row} against {pct}");
    }
    let (text, _) = report(&["summary"], &summary_csv());
    assert!(text.starts_with("Total: 58.2 ms\n"), "{text}");
}

/// `calls` of one function gives its share of the file's total, as its PctOfTot row says.
#[test]
fn calls_gives_the_share_of_the_files_total() {
    let calls = json(&["calls", "--fn", "#.SharpPlot.Plot"], &summary_csv());
    assert_eq!(calls["total"], 58.2, "{calls}");
    let plot = &calls["functions"][0];
    assert_eq!(plot["total"], 18.373, "{calls}");
    assert!(close(plot["pct"].as_f64().unwrap(), 31.56872852), "{calls}");
}

/// `info` states the same total, says where it comes from and what the rows add up to
/// (58.2 + 25.626 + 18.373 + 7.726 + 3.153 = 113.078 ms), and ranks shares of that total
/// (DrawLineGraph 44.03 %, shown 44.0 %).
#[test]
fn info_states_the_same_total_and_where_it_comes_from() {
    let (text, _) = report(&["info"], &summary_csv());
    assert!(
        text.contains(
            "time (time, ms, additive): total 58.2 (the total its PctOfTot is of; the rows add up to 113.078)\n"
        ),
        "{text}"
    );
    assert!(text.contains("  25.626   44.0%  #.SharpPlot.DrawLineGraph\n"), "{text}");
    let info: serde_json::Value = serde_json::from_str(&report(&["info", "--json"], &summary_csv()).0).unwrap();
    let time = &info["metrics"][1];
    assert_eq!((&time["name"], &time["total"], &time["rows_total"]), (&"time".into(), &58.2.into(), &113.078.into()));
    // The XML summary's one row is its whole TotalTime: nothing to say about where it comes from.
    let xml = corpus("dyalog-xml/dyalog-docs-v1.37-summary.xml");
    let (text, _) = report(&["info"], &xml);
    assert!(text.contains("time (time, ms, additive): total 58.2\n"), "{text}");
    assert_eq!(json(&["summary"], &xml)["total"], 58.2);
}

/// A conversion to folded says once that the rows overlap, by 113.078 − 58.2 = 54.878 ms, 94.3 %
/// of the total; the stacks are the rows as they were (whole µs).
#[test]
fn a_conversion_to_folded_says_once_how_far_the_rows_overlap() {
    let (folded, stderr) = run(&["convert", "--to", "folded"], &summary_csv());
    let overlap: Vec<&str> = stderr.lines().filter(|line| line.contains("overlap")).collect();
    assert_eq!(overlap.len(), 1, "{stderr}");
    assert!(overlap[0].contains("they add up to 113.078 ms, 54.878 ms (94.3 %) more than its total of 58.2 ms (the total its PctOfTot is of)"), "{stderr}");
    let stacks: Vec<String> =
        CSV_ROWS.iter().map(|(name, time, _)| format!("{name} {}", (time * 1000.0).round())).collect();
    assert_eq!(folded.lines().collect::<Vec<_>>(), stacks, "{folded}");
    // Between the Dyalog formats a summary stays a summary: nothing overlaps there.
    let (_, stderr) = run(&["convert", "--to", "dyalog-xml"], &summary_csv());
    assert!(!stderr.contains("overlap"), "{stderr}");
}

/// `]profile summary -exclusive -dec=3 -cumpct -pct=65` of seed 002 (002:351–359: total 68.4 ms,
/// the run's TotalTime 68.40049488, 002:595), as an XML summary of exclusive times.
fn exclusive_summary() -> (tempfile::TempDir, PathBuf) {
    let rows = [
        ("#.ch.CH∆Q", "23.032", "311"),
        ("#.ch.CH∆SET", "7.866", "44"),
        ("#.ch.CH∆FMT", "3.422", "77"),
        ("#.ch.CH∆R", "3.402", "37"),
        ("#.ch.CH∆VALUES", "3.240", "2"),
        ("#.ch.split", "2.381", "33"),
    ];
    let entries: String = rows
        .iter()
        .map(|(name, time, calls)| {
            format!("<ProfileEntry><Element>{name}</Element><Line/><ExclusiveTime>{time}</ExclusiveTime><Calls>{calls}</Calls></ProfileEntry>\n")
        })
        .collect();
    let text = format!(
        "<ProfileData>\n<ProfileSettings><Version>1.37</Version><Command>summary</Command><TotalTime>68.40049488</TotalTime></ProfileSettings>\n{entries}</ProfileData>\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exclusive.xml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// An `-exclusive` summary's rows are functions' own times, which do not overlap: it converts as
/// before, without a word of overlap, while its reports keep the run's 68.4 ms as the total
/// (CH∆Q: 23.032 of 68.40049488 ms is 33.672 %, as the seed prints).
#[test]
fn an_exclusive_summary_converts_unchanged_and_keeps_its_total() {
    let (_dir, xml) = exclusive_summary();
    let (folded, stderr) = run(&["convert", "--to", "folded"], &xml);
    assert!(!stderr.contains("overlap"), "{stderr}");
    assert!(stderr.contains("flat report"), "{stderr}");
    let expected =
        "#.ch.CH∆Q 23032\n#.ch.CH∆SET 7866\n#.ch.CH∆FMT 3422\n#.ch.CH∆R 3402\n#.ch.CH∆VALUES 3240\n#.ch.split 2381\n";
    assert_eq!(folded, expected);
    let summary = json(&["summary", "--exclusive"], &xml);
    assert_eq!(summary["total"], 68.40049488, "{summary}");
    let pct = summary["rows"][0]["self_pct"].as_f64().unwrap();
    assert!((pct - 33.672).abs() < 5e-4, "{summary}");
}

/// Seed 002's tree CSV excerpt (002:617–633, `fixtures/dyalog-csv/v0.9.0-tree.csv`) measured
/// 68.40049488 ms for its root, #.Rain, while the rows it keeps add up to the exclusive times of
/// its three functions, 0.8205615629 + 0.01732044204 + 0.07632241511 = 0.91420442005 ms: `summary`
/// and `info` both state 68.40049488 ms (issue 26 §5), and `info` says where it comes from.
#[test]
fn a_tree_cut_short_states_its_roots_measured_total_everywhere() {
    let tree = fixture("dyalog-csv/v0.9.0-tree.csv");
    assert_eq!(json(&["summary"], &tree)["total"], 68.40049488);
    let (text, _) = report(&["info"], &tree);
    assert!(text.contains("time (time, ms, additive): total 68.40049488 (the roots' measured inclusive values; the rows add up to 0.91420442005)\n"), "{text}");
}

/// Two summaries merged are two runs together: their totals add up (58.2 + 58.2 = 116.4 ms) as
/// their rows do (113.078 × 2 = 226.156 ms), and the overlap is said of the sums.
#[test]
fn merged_summaries_add_their_totals() {
    let out = proftool()
        .args(["merge", "--output", "-", "--to", "folded"])
        .arg(summary_csv())
        .arg(summary_csv())
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("they add up to 226.156 ms, 109.756 ms (94.3 %) more than its total of 116.4 ms"),
        "{stderr}"
    );
}
