//! Dyalog APL's `]PROFILE` reports, XML (`dyalog-xml`) and CSV (`dyalog-csv`), in one file: the
//! two formats share their report kinds (tree, data, summary), their columns and their rules, and
//! most cases convert one into the other. Here: conversions between them and from other formats
//! (rows alternating as `]PROFILE` writes them), their options, large inputs, lines merged while
//! reading; `reports`: data and summary reports as `]PROFILE` means them; `summaries`: a summary
//! report's own total.

mod reports;
mod summaries;

use crate::roundtrip::write;
use crate::support::binary::{failure, fixture, proftool, run, run_stdin, temp};
use crate::support::{folded, good_fixtures, read_bytes, read_bytes_with, read_fixture};
use predicates::prelude::*;
use proftool::convert::ConvertOptions;
use proftool::model::{dump::dump, ops};
use proftool::Format;
use std::collections::BTreeSet;

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
/// not 1 + its 3 lines' 3) and its time as read (4.213, not 4.213000000000001, what its own 0.016
/// and its lines' 0.012, 1.204 and 2.981 add up to in turn), as the source row says (checked by
/// hand against v1.37-stats-tree.csv).
#[test]
fn merged_lines_keep_the_function_row_as_read() {
    let tree = fixture("dyalog-csv/v1.37-stats-tree.csv");
    let (csv, _) = run(&["convert", "--functions", "--to", "dyalog-csv"], &tree);
    assert!(csv.starts_with("\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n0,\"#.Report.Run\",¯1,1,4.213,30.506\n"), "{csv}");
}

/// The report kind is one fact of both Dyalog formats: a summary stays a summary from XML to CSV
/// and back, its inclusive time under `InclusiveTime` in XML and `Time` in CSV (checked by hand
/// against v1.37-stats-summary.xml and .csv: 30.506 ms = 100%, Mean's 17.732 ms 58.12627024 %, as
/// Python divides it), and a summary of exclusive times
/// (`-exclusive`) writes its exclusive time as the CSV's `Time` (its PctOfTot, empty in the file,
/// recomputed: 1 of 4 ms is 25 %).
#[test]
fn a_summary_stays_a_summary_between_xml_and_csv() {
    let (csv, _) = run(&["convert", "--to", "dyalog-csv"], &fixture("dyalog-xml/v1.37-stats-summary.xml"));
    assert_eq!(csv, std::fs::read_to_string(fixture("dyalog-csv/v1.37-stats-summary.csv")).unwrap());
    let (xml, _) = run(&["convert", "--to", "dyalog-xml"], &fixture("dyalog-csv/v1.37-stats-summary.csv"));
    assert!(xml.contains("<Command>summary</Command>"), "{xml}");
    assert!(xml.contains("<Element>#.Stats.Mean</Element>\n        <Line/>\n        <InclusiveTime>17.732</InclusiveTime>\n        <PctOfTot>58.12627024</PctOfTot>\n        <Calls>1</Calls>\n"), "{xml}");
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
    let danish = fixture("dyalog-csv/v1.37-stats-data-semicolon.csv");
    let (csv, _) = run(&["convert", "--dyalog-separators", ".,", "--to", "dyalog-csv"], &danish);
    let expected = std::fs::read_to_string(&danish).unwrap().replace(',', ".").replace(';', ",");
    assert_eq!(csv, expected);
    let tree = fixture("dyalog-csv/v1.37-stats-tree.csv");
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
/// is (once "not a dyalog-xml file: expected a <ProfileData> element", which it has). A report of
/// none is not written: read back, it would say neither its kind nor its columns (a CSV of none is
/// its header alone, which the reader takes for a report cut short), so a conversion of an empty
/// profile to either is refused, saying why.
#[test]
fn an_empty_profile_data_element_is_an_empty_report() {
    let dir = tempfile::tempdir().unwrap();
    let (empty, long) = (dir.path().join("empty.xml"), dir.path().join("long.xml"));
    std::fs::write(&empty, "<?xml version=\"1.0\"?>\n<ProfileData/>\n").unwrap();
    std::fs::write(&long, "<?xml version=\"1.0\"?>\n<ProfileData></ProfileData>\n").unwrap();
    for input in [&empty, &long] {
        let info = proftool().arg("info").arg(input).assert().success().get_output().stdout.clone();
        let info = String::from_utf8(info).unwrap();
        assert!(info.contains("tree       0 roots, 0 nodes"), "{info}");
        for target in ["dyalog-csv", "dyalog-xml"] {
            let out = dir.path().join("out");
            let err = failure(proftool().args(["convert", "--to", target]).arg(input).arg(&out));
            assert!(err.contains("the profile holds no stack (a recording of no sample), and a Dyalog"), "{err}");
            assert!(!out.exists());
        }
    }
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

/// Reports in the 1.37 layout (hand-written from the layout of Dyalog's 1.37 documentation's
/// examples, fixtures/README.md) are written back byte for byte.
#[test]
fn reports_in_the_1_37_layout_convert_to_themselves_byte_for_byte() {
    let inputs = [
        "dyalog-xml/v1.37-stats-tree.xml",
        "dyalog-xml/v1.37-stats-summary.xml",
        "dyalog-csv/v1.37-stats-tree.csv",
        "dyalog-csv/v1.37-stats-data-semicolon.csv",
        "dyalog-csv/v1.37-stats-summary.csv",
    ];
    converts_to_itself(inputs.map(fixture));
}

/// Each input converted to its own format, silently, gives its bytes back.
fn converts_to_itself(inputs: impl IntoIterator<Item = std::path::PathBuf>) {
    let dir = temp();
    for input in inputs {
        let output = dir.path().join(input.file_name().unwrap());
        proftool().arg("convert").arg(&input).arg(&output).assert().success().stderr("");
        assert_eq!(std::fs::read(&output).unwrap(), std::fs::read(&input).unwrap(), "{}", input.display());
    }
}

#[test]
fn dyalog_lines_are_merged_or_named_on_request() {
    let tree = fixture("dyalog-xml/v0.9.0-tree.xml");
    // Ticks checked by hand: Rain's 73 exclusive ticks are 64 of its own and 9 on its lines, LEAP's
    // 7 are 4 + 3 and TOTAMTHS's 8 are 5 + 3; a line row's callees hang below it.
    let run = |option: Option<&str>| {
        let mut cmd = proftool();
        cmd.args(["convert", "--metric", "timer-ticks", "--to", "folded"]).args(option).arg(&tree).arg("-");
        String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
    };
    let functions = "#.Rain 73\n#.Rain;#.Gilling.LEAP 7\n#.Rain;#.Gilling.TOTAMTHS 8\n";
    assert_eq!(run(None), functions);
    assert_eq!(run(Some("--functions")), functions);
    let lines = run(Some("--lines"));
    assert!(lines.starts_with("#.Rain 64\n#.Rain;#.Rain[1] 1\n"), "{lines}");
    assert!(
        lines.contains("#.Rain;#.Rain[6];#.Gilling.LEAP 4\n#.Rain;#.Rain[6];#.Gilling.LEAP;#.Gilling.LEAP[1] 1\n"),
        "{lines}"
    );
    assert!(lines.ends_with("#.Rain;#.Rain[7];#.Gilling.TOTAMTHS;#.Gilling.TOTAMTHS[2] 2\n"), "{lines}");
    proftool().args(["convert", "--functions", "--lines"]).arg(&tree).arg("-").assert().code(2);
}

#[test]
fn dyalog_csv_separators_are_detected_and_chosen() {
    let dir = temp();
    let danish = dir.path().join("danish.csv");
    let tree = fixture("dyalog-csv/v1.37-stats-tree.csv");
    proftool().args(["convert", "--dyalog-separators", ",;"]).arg(&tree).arg(&danish).assert().success();
    let text = std::fs::read_to_string(&danish).unwrap();
    assert!(text.starts_with("\"Depth\";\"Element\";\"Line\";\"Calls\";\"ExclusiveTime\";\"InclusiveTime\"\n0;\"#.Report.Run\";¯1;1;4,213;30,506\n"), "{text}");
    let back = dir.path().join("back.csv");
    proftool().args(["convert", "--dyalog-separators", ".,"]).arg(&danish).arg(&back).assert().success();
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&tree).unwrap());
    proftool().args(["convert", "--dyalog-separators", ".."]).arg(&tree).arg(&back).assert().code(2);
}

#[test]
fn flat_dyalog_reports_say_so_in_other_formats() {
    proftool()
        .args(["convert", "--to", "folded"])
        .arg(fixture("dyalog-csv/v1.37-stats-summary.csv"))
        .arg("-")
        .assert()
        .success()
        .stderr(predicate::str::contains("flat report without call structure"));
}

#[test]
fn time_in_another_unit_keeps_exact_inclusive_sums() {
    // timed.br: the main routine's line 50.1 spends 10^12 ns on its own, FNREAD 4,000 ns and line 7
    // 300 ns below it: 1,000,000,004,300 ns in all, 1,000,000.0043 ms (the sum of the three in ms as
    // floats is 1000000.0042999999). No calls in BR: Calls 0.
    let csv = run(&["convert", "--to", "dyalog-csv"], &fixture("br/timed.br")).0;
    assert!(csv.contains("\n0,\"main.br:50.1\",¯1,0,1000000,1000000.0043\n"), "{csv}");
}

/// One row of a `]PROFILE` tree report as its manual describes it: a depth, a name, and a line
/// number (`None` for a function row, written `¯1`).
#[derive(Debug)]
struct Row {
    depth: usize,
    name: String,
    line: Option<u32>,
}

/// The rows of a Dyalog XML report, read with nothing but string search (no proftool code).
fn xml_rows(xml: &str) -> Vec<Row> {
    let element = |entry: &str, name: &str| -> String {
        let open = format!("<{name}>");
        let Some(start) = entry.find(&open) else { return String::new() };
        let rest = &entry[start + open.len()..];
        let text = &rest[..rest.find("</").unwrap()];
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
    };
    xml.split("<ProfileEntry>")
        .skip(1)
        .map(|entry| Row {
            depth: element(entry, "Depth").parse().unwrap(),
            name: element(entry, "Element"),
            line: line_number(&element(entry, "Line")),
        })
        .collect()
}

/// The rows of a Dyalog CSV report (default separators; names quoted, `""` for a quote).
fn csv_rows(csv: &str) -> Vec<Row> {
    let mut lines = csv.lines();
    let header = fields(lines.next().unwrap());
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (depth, element, line) = (column("Depth"), column("Element"), column("Line"));
    lines
        .map(|l| {
            let f = fields(l);
            Row { depth: f[depth].parse().unwrap(), name: f[element].clone(), line: line_number(&f[line]) }
        })
        .collect()
}

/// The fields of a CSV line: quoted ones unquoted.
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

fn line_number(text: &str) -> Option<u32> {
    match text {
        "" | "¯1" => None,
        n => Some(n.parse().unwrap()),
    }
}

/// Checks the rows against the manual's rules (Dyalog's `⎕PROFILE` documentation, docs/formats.md "Dyalog reports": function rows at even depths, their line
/// rows one below, a called function under the line row that called it; a row's parent is the
/// nearest preceding row with depth − 1) and returns every function row's stack, its functions
/// from the root joined by `;` (line rows left out, as folded stacks merge lines).
fn alternating_stacks(rows: &[Row]) -> Result<BTreeSet<String>, String> {
    let mut open: Vec<&Row> = Vec::new();
    let mut stacks = BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        if row.depth > open.len() {
            return Err(format!("row {i} ({row:?}) has no parent at depth {}", row.depth - 1));
        }
        open.truncate(row.depth);
        if (row.depth % 2 == 0) != row.line.is_none() {
            return Err(format!("row {i} ({row:?}): function rows go at even depths, line rows at odd ones"));
        }
        if let (Some(_), Some(function)) = (row.line, open.last()) {
            if function.name != row.name {
                return Err(format!("row {i} ({row:?}) is a line of {:?}, not of its own function", function.name));
            }
        }
        open.push(row);
        if row.line.is_none() {
            let names: Vec<&str> = open.iter().filter(|r| r.line.is_none()).map(|r| r.name.as_str()).collect();
            stacks.insert(names.join(";"));
        }
    }
    Ok(stacks)
}

/// Every stack of a folded text and every prefix of one: the paths of all the nodes it describes.
fn folded_paths(folded: &str) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    for line in folded.lines() {
        // A name's space before a number that ends it is written as a no-break space in folded text.
        let line = line.replace('\u{a0}', " ");
        let stack = &line[..line.rfind(' ').unwrap()];
        let frames: Vec<&str> = stack.split(';').collect();
        for n in 1..=frames.len() {
            paths.insert(frames[..n].join(";"));
        }
    }
    paths
}

#[test]
fn dyalog_trees_from_other_formats_alternate_and_read_back_to_the_source_stacks() {
    for source in ["lispworks/processes.tree", "ghc-px/notes-example.px", "folded/basic.folded"] {
        let path = fixture(source);
        let format = proftool::formats::detect::by_extension(&path)[0];
        let (profile, _) = read_fixture(format, &path);
        let expected = match source {
            // Dyalog has no threads: the processes' frames go, and their own samples (the listener's
            // 5, the idle process's 10) to the root above them: 15, by hand from processes.tree.
            "lispworks/processes.tree" => "Profile root 15\nProfile root;CL-USER::FIB 25\n\
                Profile root;CL-USER::FIB;CL-USER::FIB 25\n\
                Profile root;CL-USER::FIB;CL-USER::FIB;(METHOD PRINT-OBJECT (WIDGET T)) 10\n\
                Profile root;CL-USER::|weird name| 25\n"
                .to_string(),
            _ => folded(&profile, None),
        };
        for target in [Format::DyalogXml, Format::DyalogCsv] {
            let text = String::from_utf8(write(target, &profile)).unwrap();
            let rows = if target == Format::DyalogXml { xml_rows(&text) } else { csv_rows(&text) };
            let stacks = alternating_stacks(&rows).unwrap_or_else(|e| panic!("{source} -> {target}: {e}\n{text}"));
            // Every stack of the source is a path of function rows (rows of nodes of no value, which
            // folded stacks do not write, are there too).
            let missing: Vec<String> = folded_paths(&expected).difference(&stacks).cloned().collect();
            assert!(missing.is_empty(), "{source} -> {target}: the rows' functions lack {missing:?}\n{text}");
            // Read back by proftool, at the source's own interval: the source's stacks and counts.
            let (reread, _) = read_bytes(target, text.as_bytes());
            let reread = folded(&reread.unwrap(), profile.meta.interval);
            assert_eq!(reread, expected, "{source} -> {target} -> folded");
        }
    }
}

#[test]
fn dyalog_trees_have_the_columns_of_a_1_37_tree() {
    // folded stacks have neither calls nor time of their own: the columns are there all the same.
    let (csv, err) = run(&["convert", "--from", "folded", "--to", "dyalog-csv"], &fixture("folded/basic.folded"));
    assert!(csv.starts_with("\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n"), "{csv}");
    assert!(err.contains("Calls are written as 0"), "{err}");
    assert!(err.contains("put under line 0"), "{err}");
}

/// Dyalog inputs over a megabyte are parsed on a second thread: the same rows, the same errors at
/// the same lines as on one thread.
#[test]
fn large_dyalog_reports_read_like_small_ones() {
    let rows = 50_000;
    let mut csv = String::from("\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n");
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<ProfileData>\n");
    for i in 0..rows {
        csv.push_str(&format!("0,\"#.f{}\",¯1,1,0.5,0.5\n", i % 100));
        xml.push_str(&format!("<ProfileEntry><Depth>0</Depth><Element>#.f{}</Element><Line>¯1</Line><ExclusiveTime>0.5</ExclusiveTime></ProfileEntry>\n", i % 100));
    }
    xml.push_str("</ProfileData>\n");
    assert!(csv.len() > 1 << 20 && xml.len() > 1 << 20);
    for (format, text) in [(Format::DyalogCsv, &csv), (Format::DyalogXml, &xml)] {
        let profile = read_bytes(format, text.as_bytes()).0.unwrap();
        assert_eq!(profile.tree.len(), rows);
        assert_eq!(profile.total(profile.metric_index("time").unwrap()).as_f64(), 25_000.0);
    }
    // A depth jump on line 39,002 of the CSV (the header is line 1) and in the XML's entry there.
    let bad_csv =
        csv.replacen("0,\"#.f0\"", "\u{1}", 390).replacen("0,\"#.f0\"", "3,\"#.f0\"", 1).replace('\u{1}', "0,\"#.f0\"");
    let err = read_bytes(Format::DyalogCsv, bad_csv.as_bytes()).0.unwrap_err().to_string();
    assert!(err.starts_with("dyalog-csv: line 39002 "), "{err}");
    let bad_xml = xml
        .replacen("<Depth>0</Depth><Element>#.f0<", "\u{1}", 390)
        .replacen("<Depth>0</Depth><Element>#.f0<", "<Depth>3</Depth><Element>#.f0<", 1)
        .replace('\u{1}', "<Depth>0</Depth><Element>#.f0<");
    let err = read_bytes(Format::DyalogXml, bad_xml.as_bytes()).0.unwrap_err().to_string();
    assert!(err.starts_with("dyalog-xml: line 39003 "), "{err}");
}

/// A tree report with what merging lines while reading must get right: a function called from two
/// lines of its caller (one node), recursion, a line row under another function's row (a function
/// node of its own), a function whose lines exceed it and a negative bias-adjusted time (clamped,
/// with warnings), and a second root of an earlier root's function.
const MERGE_CASES: &str =
    "\"Depth\",\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\",\"ExclusiveTicks\",\"InclusiveTicks\"
0,\"#.Main\",¯1,1,2.5,10.75,3,12
1,\"#.Main\",1,1,0.5,4.25,1,5
2,\"#.Work\",¯1,2,1.25,3.75,1,4
3,\"#.Work\",4,2,0.75,3.25,1,3
4,\"#.Work\",¯1,1,0.1,2.5,0,2
1,\"#.Main\",2,1,0.25,5,1,6
2,\"#.Work\",¯1,1,1,4.75,2,5
3,\"#.Other\",7,1,0.5,0.5,1,1
2,\"#.Slow\",¯1,1,0.3,0.3,0,0
3,\"#.Slow\",1,1,0.2,0.2,0,0
3,\"#.Slow\",2,1,0.2,0.2,0,0
0,\"#.Tail\",¯1,1,¯0.001,0,0,0
0,\"#.Main\",¯1,1,1,1,1,1
";

/// Line rows merged while reading (for a target without line numbers) give the profile, and the
/// warnings, that merging the lines of the whole tree gives: checked on every Dyalog fixture, on
/// the cases above and on them with their exclusive and inclusive labels swapped.
#[test]
fn lines_merged_while_reading_are_the_merge_of_the_whole_tree() {
    let swapped = MERGE_CASES.replacen("\"ExclusiveTime\",\"InclusiveTime\"", "\"InclusiveTime\",\"ExclusiveTime\"", 1);
    let mut inputs: Vec<(Format, String, Vec<u8>)> = [MERGE_CASES, &swapped]
        .iter()
        .map(|text| (Format::DyalogCsv, "merge cases".to_string(), text.as_bytes().to_vec()))
        .collect();
    for (format, path) in
        good_fixtures().into_iter().filter(|(f, _)| matches!(f, Format::DyalogCsv | Format::DyalogXml))
    {
        inputs.push((format, path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    let merge =
        proftool::convert::reading_for(Format::Folded, proftool::ReadOptions::default(), &ConvertOptions::default());
    for (format, label, bytes) in inputs {
        let (whole, whole_diag) = read_bytes(format, &bytes);
        let (merged, merged_diag) = read_bytes_with(format, &bytes, &merge);
        let (whole, merged) = (whole.unwrap(), merged.unwrap());
        let had_lines = whole.frames.iter().any(|(_, f)| f.kind == proftool::model::FrameKind::Line);
        assert_eq!(merged.meta.lines_merged, had_lines, "{label}");
        // Folded merges siblings of one function whether or not the report had lines.
        let whole = ops::merge_siblings(&ops::merge_lines(&whole));
        assert_eq!(dump(&merged), dump(&whole), "{label}");
        // The same warnings; how often each repeats counts nodes, which merging makes fewer.
        let messages =
            |diag: &proftool::diag::Diagnostics| diag.warnings().iter().map(|w| w.message.clone()).collect::<Vec<_>>();
        assert_eq!(messages(&merged_diag), messages(&whole_diag), "{label}");
    }
}

/// A flat report whose line row does not follow its function's row: the line is a root of its own
/// and takes nothing from the function row before it (checked by hand: #.A keeps its 5 ms), whether
/// lines are kept or merged while reading.
#[test]
fn a_flat_line_of_another_function_is_a_root() {
    let csv = "\"Element\",\"Line\",\"Calls\",\"ExclusiveTime\",\"InclusiveTime\"\n\"#.A\",,1,5,5\n\"#.B\",1,1,3,3\n";
    let merge =
        proftool::convert::reading_for(Format::Folded, proftool::ReadOptions::default(), &ConvertOptions::default());
    for options in [proftool::ReadOptions::default(), merge] {
        let text = dump(&read_bytes_with(Format::DyalogCsv, csv.as_bytes(), &options).0.unwrap());
        assert!(text.contains("\"#.A\" [function] calls=1 time=5 (total 5, measured 5)"), "{text}");
        assert!(text.contains("time=3 (total 3, measured 3)"), "{text}");
        assert!(text.contains("nodes 2, roots 2"), "{text}");
    }
}

/// Names holding every C0 control character, and a title with one, make a well-formed `]PROFILE`
/// XML report: those XML cannot carry are written `\u{1}`, said once with how many.
#[test]
fn control_characters_in_names_leave_dyalog_xml_well_formed() {
    let dir = temp();
    let input = dir.path().join("names.speedscope.json");
    std::fs::write(&input, crate::support::control_character_names()).unwrap();
    let (xml, stderr) = run(&["convert", "--to", "dyalog-xml", "-q"], &input);
    crate::support::well_formed_xml(&xml).unwrap();
    assert!(xml.contains(r"<Element>f\u{1b}</Element>") && xml.contains(r"<Title>t\u{1}</Title>"), "{xml}");
    assert!(stderr.is_empty(), "-q: {stderr}");
    let (_, stderr) = run(&["convert", "--to", "dyalog-xml"], &input);
    assert!(stderr.contains(r"dyalog-xml: 30 name(s) hold control characters that XML 1.0 cannot carry"), "{stderr}");
}

/// A name a spreadsheet would run as a formula (Objective-C's `-[NSObject init]`, `=…`, `+…`,
/// `@…`, a tab first) is written with a `'` in front (OWASP's rule on CSV injection), said once
/// with how many; proftool reads the file back into the names it was written from.
#[test]
fn dyalog_csv_guards_names_a_spreadsheet_would_run() {
    let dir = temp();
    let input = dir.path().join("names.folded");
    let names = ["-[NSObject init]", "=HYPERLINK(\"http://x\")", "+1", "@SUM(A1)", "\tt", "main"];
    let text: String = names.iter().enumerate().map(|(i, name)| format!("main;{name} {}\n", i + 1)).collect();
    std::fs::write(&input, text).unwrap();
    let output = dir.path().join("names.csv");
    let out = proftool().arg("convert").arg(&input).arg(&output).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("dyalog-csv: 5 name(s) begin with =, +, -, @, a tab or a CR, which a spreadsheet runs as a formula: written with a ' in front"), "{stderr}");
    let csv = std::fs::read_to_string(&output).unwrap();
    // The cells as a spreadsheet reads them: every one that would run is text behind a quote.
    let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
    let cells: Vec<String> = reader.records().map(|r| r.unwrap()[1].to_string()).collect();
    for name in &names[..5] {
        assert!(cells.contains(&format!("'{name}")), "{name:?} in {cells:?}");
    }
    assert!(cells.iter().all(|cell| !cell.starts_with(['=', '+', '-', '@', '\t', '\r'])), "{cells:?}");
    // Read back, the names are the folded file's, stack for stack.
    let (folded, _) = run(&["convert", "--to", "folded"], &output);
    let mut stacks: Vec<&str> = folded.lines().collect();
    stacks.sort();
    let mut expected: Vec<String> =
        names.iter().enumerate().map(|(i, name)| format!("main;{name} {}", i + 1)).collect();
    expected.sort();
    assert_eq!(stacks, expected);
}

/// A carriage return in a name is written as `&#13;`: an XML parser reads a raw one as a line feed
/// (XML 1.0, section 2.11), so the name would come back changed. It reads back as it was.
#[test]
fn a_carriage_return_in_a_name_is_a_reference_in_xml() {
    let (xml, _) = run_stdin(&["convert", "-q", "--from", "folded", "--to", "dyalog-xml"], b"main;cr\rret 3\n");
    assert!(xml.contains("<Element>cr&#13;ret</Element>") && !xml.contains('\r'), "{xml}");
    let summary = proftool().args(["summary", "-q", "--format", "json", "-"]).write_stdin(xml).assert().success();
    let json = String::from_utf8(summary.get_output().stdout.clone()).unwrap();
    assert!(json.contains("\"name\": \"cr\\rret\""), "{json}");
}

/// A summary of no time gives each row a PctOfTot of 0: a number, as every column but Line has
/// (it was an empty field, `<PctOfTot/>`).
#[test]
fn a_summary_of_no_time_has_percentages_of_0() {
    let input = fixture("chrome-trace/cases/end-of-another-name.json");
    let (csv, _) = run(&["convert", "-q", "--to", "dyalog-csv", "--dyalog-report", "summary"], &input);
    assert_eq!(csv, "\"Element\",\"Line\",\"Time\",\"PctOfTot\"\n\"tid 1\",,0,0\n");
}
