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
            // cli: the command line's inputs; gate: runs of one program that diff's gate compares
            // in pairs (tests/cli_gate.rs). Other projects' files are not in the repository:
            // the checks of .ci/ read them.
            assert!(
                ["cli", "gate"].contains(&name) || Format::from_name(name).is_some(),
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
