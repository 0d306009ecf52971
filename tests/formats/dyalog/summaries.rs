//! The `proftool` binary on Dyalog summary reports (issue 25 §11): a summary's rows are functions'
//! inclusive times, which overlap, so the report's own total (TotalTime, or the total its PctOfTot
//! is of) is the profile's, in `summary`, `calls` and `info` alike, and a conversion to a stack
//! format says once how far the rows exceed it. Every expected number is the file's own (its
//! TotalTime and PctOfTot columns) or worked out by hand from its rows.

use crate::support::binary::{fixture, proftool, run};
use std::path::PathBuf;

/// A `]Profile summary -format=csv` report in the 1.37 layout, hand-written (fixtures/README.md):
/// the inclusive times of one run's four functions, `#.Report.Run` the whole of it.
fn summary_csv() -> PathBuf {
    fixture("dyalog-csv/v1.37-stats-summary.csv")
}

/// Its rows as the file gives them: name, Time (ms) and PctOfTot (each time's share of Run's
/// 30.506 ms, worked out with Python to ten significant digits, as `]PROFILE` prints them).
const CSV_ROWS: [(&str, f64, f64); 4] = [
    ("#.Report.Run", 30.506, 100.0),
    ("#.Stats.Mean", 17.732, 58.12627024),
    ("#.Stats.Sum", 15.417, 50.53759916),
    ("#.Util.Fmt∆Num", 8.561, 28.0633318),
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

/// `summary` of `csv`: its total and, row by row, each function's time and the file's PctOfTot.
fn assert_summary(csv: &PathBuf, total: f64, expected: &[(&str, f64, f64)]) {
    let summary = json(&["summary"], csv);
    assert_eq!(summary["total"], total, "{summary}");
    let rows = summary["rows"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len(), "{summary}");
    for (row, (name, time, pct)) in rows.iter().zip(expected) {
        assert_eq!(row["name"], *name, "{summary}");
        assert_eq!(row["total"], *time, "{summary}");
        assert!(close(row["total_pct"].as_f64().unwrap(), *pct), "{name}: {row} against {pct}");
    }
}

/// `summary` of the CSV summary: Total 30.506 ms (Run's 100 %), not the 72.216 ms its rows add up
/// to, and each function's % is the file's PctOfTot.
#[test]
fn summary_gives_the_files_total_and_pct_of_tot() {
    assert_summary(&summary_csv(), 30.506, &CSV_ROWS);
    // The text report shows it to three significant digits.
    let (text, _) = report(&["summary"], &summary_csv());
    assert!(text.starts_with("Total: 30.5 ms\n"), "{text}");
}

/// `calls` of one function gives its share of the file's total, as its PctOfTot row says.
#[test]
fn calls_gives_the_share_of_the_files_total() {
    let calls = json(&["calls", "--fn", "#.Stats.Mean"], &summary_csv());
    assert_eq!(calls["total"], 30.506, "{calls}");
    let mean = &calls["functions"][0];
    assert_eq!(mean["total"], 17.732, "{calls}");
    assert!(close(mean["pct"].as_f64().unwrap(), 58.12627024), "{calls}");
}

/// `info` states the same total, says where it comes from and what the rows add up to
/// (30.506 + 17.732 + 15.417 + 8.561 = 72.216 ms), and ranks shares of that total (Mean
/// 58.13 %, shown 58.1 %). The XML summary of the same run states its TotalTime, 30.51 (the run's
/// time to two decimals, as `]PROFILE` 1.37 writes it), as its total.
#[test]
fn info_states_the_same_total_and_where_it_comes_from() {
    let (text, _) = report(&["info"], &summary_csv());
    assert!(
        text.contains(
            "time (time, ms, additive): total 30.506 (the total its PctOfTot is of; the rows add up to 72.216)\n"
        ),
        "{text}"
    );
    assert!(text.contains("  17.732   58.1%  #.Stats.Mean\n"), "{text}");
    let info: serde_json::Value = serde_json::from_str(&report(&["info", "--json"], &summary_csv()).0).unwrap();
    let time = &info["metrics"][1];
    assert_eq!((&time["name"], &time["total"], &time["rows_total"]), (&"time".into(), &30.506.into(), &72.216.into()));
    let xml = fixture("dyalog-xml/v1.37-stats-summary.xml");
    let (text, _) = report(&["info"], &xml);
    assert!(
        text.contains("time (time, ms, additive): total 30.51 (the report's TotalTime; the rows add up to 72.216)\n"),
        "{text}"
    );
    assert_eq!(json(&["summary"], &xml)["total"], 30.51);
}

/// A conversion to folded says once that the rows overlap, by 72.216 − 30.506 = 41.71 ms, 136.7 %
/// of the total; the stacks are the rows as they were (whole µs).
#[test]
fn a_conversion_to_folded_says_once_how_far_the_rows_overlap() {
    let (folded, stderr) = run(&["convert", "--to", "folded"], &summary_csv());
    let overlap: Vec<&str> = stderr.lines().filter(|line| line.contains("overlap")).collect();
    assert_eq!(overlap.len(), 1, "{stderr}");
    assert!(overlap[0].contains("they add up to 72.216 ms, 41.71 ms (136.7 %) more than its total of 30.506 ms (the total its PctOfTot is of)"), "{stderr}");
    let stacks: Vec<String> =
        CSV_ROWS.iter().map(|(name, time, _)| format!("{name} {}", (time * 1000.0).round())).collect();
    assert_eq!(folded.lines().collect::<Vec<_>>(), stacks, "{folded}");
    // Between the Dyalog formats a summary stays a summary: nothing overlaps there.
    let (_, stderr) = run(&["convert", "--to", "dyalog-xml"], &summary_csv());
    assert!(!stderr.contains("overlap"), "{stderr}");
}

/// `]profile summary -exclusive -dec=3 -cumpct -pct=65` of the `]PROFILE` guide (docs/sources.md:
/// total 68.4 ms, the run's TotalTime 68.40049488), as an XML summary of exclusive times.
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
/// (CH∆Q: 23.032 of 68.40049488 ms is 33.672 %, as the guide prints).
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

/// The `]PROFILE` guide's tree CSV excerpt (docs/sources.md; `fixtures/dyalog-csv/v0.9.0-tree.csv`)
/// measured 68.40049488 ms for its root, #.Rain, while the rows it keeps add up to the exclusive
/// times of its three functions, 0.8205615629 + 0.01732044204 + 0.07632241511 = 0.91420442005 ms:
/// `summary` and `info` both state 68.40049488 ms (issue 26 §5), and `info` says where it comes
/// from.
#[test]
fn a_tree_cut_short_states_its_roots_measured_total_everywhere() {
    let tree = fixture("dyalog-csv/v0.9.0-tree.csv");
    assert_eq!(json(&["summary"], &tree)["total"], 68.40049488);
    let (text, _) = report(&["info"], &tree);
    assert!(text.contains("time (time, ms, additive): total 68.40049488 (the roots' measured inclusive values; the rows add up to 0.91420442005)\n"), "{text}");
}

/// Two summaries merged are two runs together: their totals add up (30.506 + 30.506 = 61.012 ms)
/// as their rows do (72.216 × 2 = 144.432 ms), and the overlap is said of the sums.
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
        stderr.contains("they add up to 144.432 ms, 83.42 ms (136.7 %) more than its total of 61.012 ms"),
        "{stderr}"
    );
}
