//! Golden tests: fixtures read to hand-checked dumps; bad fixtures fail with their expected message.

use crate::support::*;
use proftool::diag::Diagnostics;
use proftool::files::Input;
use proftool::Format;

#[test]
fn every_fixture_folder_is_a_format_and_every_reader_has_fixtures() {
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_str().unwrap();
            // cli: the command line's inputs; corpus: other tools' files; gate: runs of one program
            // that diff's gate compares in pairs (tests/cli_gate.rs).
            assert!(
                ["cli", "corpus", "gate"].contains(&name) || Format::from_name(name).is_some(),
                "fixtures/{name} is not a format name"
            );
        }
    }
    for &format in Format::ALL.iter().filter(|f| f.can_read()) {
        assert!(good_fixtures().iter().any(|(f, _)| *f == format), "{format} has no fixtures");
        assert!(bad_fixtures().iter().any(|(f, _)| *f == format), "{format} has no bad fixtures");
    }
}

#[test]
fn fixtures_read_to_their_dumps() {
    let mut failures = Vec::new();
    for (format, path) in good_fixtures() {
        let (profile, diag) = read_fixture(format, &path);
        if let Err(e) = profile.validate() {
            failures.push(format!("{}: invalid model: {e}", path.display()));
        }
        let expected = path.with_file_name(format!("{}.dump", path.file_name().unwrap().to_str().unwrap()));
        check_golden(&expected, &dump_with_warnings(&profile, &diag), &mut failures);
    }
    assert_no_failures(failures);
}

#[test]
fn bad_fixtures_fail_with_their_messages() {
    let mut failures = Vec::new();
    for (format, path) in bad_fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        match read_bytes(format, &bytes).0 {
            Ok(_) => failures.push(format!("{}: read without error", path.display())),
            Err(e) => {
                let expected = path.with_file_name(format!("{}.err", path.file_name().unwrap().to_str().unwrap()));
                check_golden(&expected, &format!("{e}\n"), &mut failures);
            }
        }
    }
    assert_no_failures(failures);
}

#[test]
fn fixtures_are_detected_as_their_format_without_from() {
    for (format, path) in good_fixtures() {
        let input = Input::open(path.to_str().unwrap()).unwrap();
        let mut diag = Diagnostics::default();
        let (_, detected, _) = proftool::read_input(input, None, &mut diag).unwrap();
        assert_eq!(detected, format, "{}", path.display());
        assert!(diag.warnings().iter().all(|w| w.key != "detect-ext"), "{}", path.display());
    }
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
