//! The `proftool` binary on Dyalog reports: conversions between the XML and CSV reports.

use crate::support::binary::{fixture, proftool, run};

/// A 0.9.0 tree is written in the 1.37 layout, labelled as measured (checked by hand against the
/// arithmetic of docs/formats.md, "Dyalog reports": Rain's exclusive time 0.82 ms, inclusive
/// 68.4 ms, ticks 73 and 16810), as Version 1.37 with a warning, and that output converts to itself
/// byte for byte.
#[test]
fn a_0_9_0_tree_is_written_as_1_37() {
    let (xml, stderr) = run(&["convert", "--to", "dyalog-xml"], &fixture("dyalog-xml/v0.9.0-tree.xml"));
    assert!(xml.contains("<Version>1.37</Version>"), "{xml}");
    let rain = "        <ExclusiveTime>0.8205615629464091</ExclusiveTime>\n        <InclusiveTime>68.40049487792044</InclusiveTime>\n        <ExclusiveTicks>73</ExclusiveTicks>\n        <InclusiveTicks>16810</InclusiveTicks>\n";
    assert!(xml.contains(rain), "{xml}");
    assert!(stderr.contains("dyalog-xml: Version 0.9.0 written as 1.37: the file is in the 1.37 layout"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.xml");
    std::fs::write(&first, &xml).unwrap();
    let (again, stderr) = run(&["convert", "--to", "dyalog-xml"], &first);
    assert_eq!(again, xml);
    assert!(!stderr.contains("Version"), "{stderr}");
}

/// `--functions` merges line rows into their function rows: the function keeps its own Calls (1,
/// not 1 + its 7 lines' 7) and its time as read (19.362, not 19.361999999999995), as the source
/// row says (checked by hand against v1.37-tree.csv).
#[test]
fn merged_lines_keep_the_function_row_as_read() {
    let (csv, _) = run(&["convert", "--functions", "--to", "dyalog-csv"], &fixture("dyalog-csv/v1.37-tree.csv"));
    assert!(csv.starts_with("\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n0,\"#.Samples.Sample\",¯1,1,19.362,61.828\n"), "{csv}");
}

/// The report kind is one fact of both Dyalog formats: a summary stays a summary from XML to CSV
/// and back, its inclusive time under `InclusiveTime` in XML and `Time` in CSV (checked by hand
/// against the 1.37 documentation's summary, 58.2 ms = 100%), and a summary of exclusive times
/// (`-exclusive`) writes its exclusive time as the CSV's `Time` (its PctOfTot, empty in the file,
/// recomputed: 1 of 4 ms is 25 %).
#[test]
fn a_summary_stays_a_summary_between_xml_and_csv() {
    let (csv, _) = run(&["convert", "--to", "dyalog-csv"], &fixture("dyalog-xml/v1.37-summary.xml"));
    assert_eq!(csv, "\"Element\",\"Line\",\"Time\",\"PctOfTot\",\"Calls\"\n\"#.Samples.Sample\",,58.2,100,1\n");
    let (xml, _) = run(&["convert", "--to", "dyalog-xml"], &fixture("dyalog-csv/v1.37-summary.csv"));
    assert!(xml.contains("<Command>summary</Command>"), "{xml}");
    assert!(xml.contains("<Element>#.SharpPlot.Plot</Element>\n        <Line/>\n        <InclusiveTime>18.373</InclusiveTime>\n        <PctOfTot>31.56872852</PctOfTot>\n        <Calls>1</Calls>\n"), "{xml}");
    let dir = tempfile::tempdir().unwrap();
    let exclusive = dir.path().join("exclusive.xml");
    let entry = |name: &str, time: &str| {
        format!("<ProfileEntry><Element>{name}</Element><Line/><ExclusiveTime>{time}</ExclusiveTime><PctOfTot/><Calls>1</Calls></ProfileEntry>")
    };
    let text = format!("<ProfileData><ProfileSettings><Version>1.37</Version><Command>summary</Command></ProfileSettings>{}{}</ProfileData>", entry("#.a", "4"), entry("#.b", "1"));
    std::fs::write(&exclusive, text).unwrap();
    let (csv, _) = run(&["convert", "--to", "dyalog-csv"], &exclusive);
    assert_eq!(csv, "\"Element\",\"Line\",\"Time\",\"PctOfTot\",\"Calls\"\n\"#.a\",,4,100,1\n\"#.b\",,1,25,1\n");
    let (xml, _) = run(&["convert", "--to", "dyalog-xml"], &exclusive);
    assert!(xml.contains("<ExclusiveTime>1</ExclusiveTime>\n        <PctOfTot>25</PctOfTot>"), "{xml}");
}

/// `--dyalog-separators` sets the separators of the CSV written when the output is Dyalog CSV (the
/// input's are detected, so one run changes a report's separators), else forces those of the CSV
/// read (a `.,` file read as `,;` fails: its header is one field, with no Element column).
#[test]
fn dyalog_separators_set_the_output_csv_else_force_the_input() {
    let danish = fixture("dyalog-csv/v1.37-data-semicolon.csv");
    let (csv, _) = run(&["convert", "--dyalog-separators", ".,", "--to", "dyalog-csv"], &danish);
    let expected = std::fs::read_to_string(&danish).unwrap().replace(',', ".").replace(';', ",");
    assert_eq!(csv, expected);
    let tree = fixture("dyalog-csv/v1.37-tree.csv");
    let out = proftool()
        .args(["convert", "--dyalog-separators", ",;", "--to", "folded"])
        .arg(&tree)
        .arg("-")
        .assert()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("\"Element\" (or \"Function\") column"), "{stderr}");
}

/// `<ProfileData/>`, no settings and no entries, is an empty report, as `<ProfileData></ProfileData>`
/// is (once "not a dyalog-xml file: expected a <ProfileData> element", which it has).
#[test]
fn an_empty_profile_data_element_is_an_empty_report() {
    let dir = tempfile::tempdir().unwrap();
    let (empty, long) = (dir.path().join("empty.xml"), dir.path().join("long.xml"));
    std::fs::write(&empty, "<?xml version=\"1.0\"?>\n<ProfileData/>\n").unwrap();
    std::fs::write(&long, "<?xml version=\"1.0\"?>\n<ProfileData></ProfileData>\n").unwrap();
    let (csv, _) = run(&["convert", "--to", "dyalog-csv"], &empty);
    assert_eq!(csv, "\"Element\",\"Line\"\n");
    assert_eq!(run(&["convert", "--to", "dyalog-xml"], &empty).0, run(&["convert", "--to", "dyalog-xml"], &long).0);
}

/// Derived columns are recomputed and written when the report read had them: PctOfTot of the
/// total the CSV's own percentages were of (its first row: 4 ms is 50% of 8 ms, not 100% as the
/// largest row), CumPct their running sum, AvgTime the time per call (checked by hand: 2 ms is
/// 25%, 75% so far, 0.5 ms over 4 calls). The CSV converts to itself byte for byte; as XML, the
/// total is its TotalTime.
#[test]
fn derived_columns_are_recomputed_when_the_report_had_them() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("summary.csv");
    let text = "\"Element\",\"Line\",\"Time\",\"PctOfTot\",\"Calls\",\"CumPct\",\"AvgTime\"\n\"#.a\",,4,50,2,50,2\n\"#.b\",,2,25,4,75,0.5\n";
    std::fs::write(&csv, text).unwrap();
    assert_eq!(run(&["convert", "--to", "dyalog-csv"], &csv).0, text);
    let (xml, stderr) = run(&["convert", "--to", "dyalog-xml"], &csv);
    assert!(xml.contains("<TotalTime>8</TotalTime>"), "{xml}");
    let b = "<Element>#.b</Element>\n        <Line/>\n        <InclusiveTime>2</InclusiveTime>\n        <PctOfTot>25</PctOfTot>\n        <Calls>4</Calls>\n        <CumPct>75</CumPct>\n        <AvgTime>0.5</AvgTime>\n";
    assert!(xml.contains(b), "{xml}");
    assert!(!stderr.contains("dyalog."), "{stderr}");
}

/// `]profile summary -lines` writes line rows alone, with no function rows: read and written again,
/// no function row is added above each line (once written as two rows each), and PctOfTot comes back
/// to the digit (the total a CSV's percentages are of, worked out from its first row, is kept in
/// full: 21.29566114 is 7.6 ms of the total 24.6 ms is 68.93069264% of, by Python's arithmetic).
#[test]
fn a_summary_of_lines_alone_converts_to_itself() {
    let lines = fixture("dyalog-csv/summary-lines.csv");
    assert_eq!(run(&["convert", "--to", "dyalog-csv"], &lines).0, std::fs::read_to_string(&lines).unwrap());
}
