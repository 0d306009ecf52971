//! DTrace stack aggregations (`dtrace`), against `inferno-collapse-dtrace`: its own test files
//! and their collapsed stacks (inferno 0.12.8's `tests/data/collapse-dtrace`, CDDL-1.0), and the
//! binary where it is installed.

use crate::support::binary::{fixture, output_of_installed, run};
use crate::support::sorted_lines;

/// The fixtures, each beside inferno's collapsed stacks of it.
const CASES: [&str; 5] = ["stack-ustack", "rust-names", "java", "hex-addresses", "scope-with-no-argument-list"];

/// Every fixture reads to the stacks and counts inferno's tests expect of it: offsets dropped,
/// C++ argument lists cut, half-demangled Rust symbols tidied, inlined JIT frames split (`java`).
#[test]
fn dtrace_reads_as_inferno_collapses_it() {
    for case in CASES {
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(&format!("dtrace/{case}.dtrace")));
        let expected = std::fs::read_to_string(fixture(&format!("dtrace/inferno/{case}.folded"))).unwrap();
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
    }
}

/// FlameGraph's example (its `example-dtrace-stacks.txt`, 1.4 MB, gzipped here): inferno's
/// collapsed stacks of it, 57,441 samples (their counts added by hand with awk).
#[test]
fn flamegraphs_example_reads_as_inferno_collapses_it() {
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture("dtrace/inferno/example-dtrace-stacks.txt.gz"));
    let expected = gunzip(&fixture("dtrace/inferno/example-dtrace-stacks.folded.gz"));
    assert_eq!(sorted_lines(&out), sorted_lines(&expected));
    let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(total, 57_441);
}

/// Where `inferno-collapse-dtrace` is installed (CI installs inferno), it collapses every fixture
/// to the stacks proftool reads.
#[test]
fn dtrace_agrees_with_inferno_collapse_dtrace() {
    for case in CASES {
        let path = fixture(&format!("dtrace/{case}.dtrace"));
        let Some(expected) = output_of_installed("inferno-collapse-dtrace", &[], &path) else { return };
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
    }
}

/// A count with no frame above it is no stack: skipped, with its samples counted on stderr.
#[test]
fn a_count_with_no_frame_is_skipped_and_said() {
    let text = "CPU     ID                    FUNCTION:NAME\n\n  unix`f+0x1\n  4\n\n  7\n";
    let (out, err) =
        crate::support::binary::run_stdin(&["convert", "--from", "dtrace", "--to", "folded"], text.as_bytes());
    assert_eq!(out, "unix`f 4\n");
    assert!(err.contains("1 count line(s) with no frame above them skipped: 7 samples of no stack"), "{err}");
}

/// The text of a gzipped file.
fn gunzip(path: &std::path::Path) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()), &mut text)
        .unwrap();
    text
}
