//! DTrace stack aggregations (`dtrace`), against `inferno-collapse-dtrace`: the project's own
//! hand-written aggregations (fixtures/README.md, dtrace), each beside what inferno-collapse-dtrace
//! 0.12.8 made of it, and the binary where it is installed.

use crate::support::binary::{fixture, output_of_installed, run, run_stdin, temp};
use crate::support::sorted_lines;

/// The fixtures, each beside inferno's collapsed stacks of it (`dtrace/inferno/<case>.folded`).
const CASES: [&str; 5] = ["kernel-and-user", "rust-names", "java", "cpp-names", "addresses"];

/// Every fixture reads to the stacks and counts inferno-collapse-dtrace 0.12.8 made of it: offsets
/// dropped (stacks at other offsets added up), C++ argument lists and template arguments cut,
/// half-demangled Rust symbols tidied, inlined JIT frames split (`java`), frames without a symbol
/// kept by their address.
#[test]
fn dtrace_reads_as_inferno_collapses_it() {
    for case in CASES {
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(&format!("dtrace/{case}.dtrace")));
        let expected = std::fs::read_to_string(fixture(&format!("dtrace/inferno/{case}.folded"))).unwrap();
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
    }
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

/// An aggregation of many blocks (the stacks of `kernel-and-user.dtrace` 400 times, 1.5 MB, read a
/// block at a time on two threads) reads to the fixture's stacks with 400 times their counts: 160 ×
/// 400 = 64,000 samples; and, where inferno is installed, to its stacks of the same input.
#[test]
fn a_large_aggregation_reads_as_its_stacks_repeated() {
    let text = std::fs::read_to_string(fixture("dtrace/kernel-and-user.dtrace")).unwrap();
    // The header is up to the first blank line; the stacks follow.
    let (header, stacks) = text.split_once("\n\n").unwrap();
    let large = format!("{header}\n\n{}", format!("{stacks}\n").repeat(400));
    assert!(large.len() > 1_500_000, "{}", large.len());
    let (once, _) = run(&["convert", "-q", "--to", "folded"], &fixture("dtrace/kernel-and-user.dtrace"));
    let expected: Vec<String> = sorted_lines(&once)
        .iter()
        .map(|line| {
            let (stack, count) = line.rsplit_once(' ').unwrap();
            format!("{stack} {}", count.parse::<u64>().unwrap() * 400)
        })
        .collect();
    let (out, _) = run_stdin(&["convert", "-q", "--from", "dtrace", "--to", "folded"], large.as_bytes());
    assert_eq!(sorted_lines(&out), expected);
    let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(total, 64_000);
    let dir = temp();
    let path = dir.path().join("large.dtrace");
    std::fs::write(&path, &large).unwrap();
    if let Some(inferno) = output_of_installed("inferno-collapse-dtrace", &[], &path) {
        assert_eq!(sorted_lines(&out), sorted_lines(&inferno));
    }
}

/// A count with no frame above it is no stack: skipped, with its samples counted on stderr.
#[test]
fn a_count_with_no_frame_is_skipped_and_said() {
    let text = "CPU     ID                    FUNCTION:NAME\n\n  unix`f+0x1\n  4\n\n  7\n";
    let (out, err) = run_stdin(&["convert", "--from", "dtrace", "--to", "folded"], text.as_bytes());
    assert_eq!(out, "unix`f 4\n");
    assert!(err.contains("1 count line(s) with no frame above them skipped: 7 samples of no stack"), "{err}");
}

/// DTrace ends every line: a file cut in the indentation of a frame (after a whole stack) reads with
/// a warning that names its last line and says it looks cut short.
#[test]
fn a_file_cut_in_its_indentation_is_said_to_look_cut_short() {
    let cut = "CPU     ID                    FUNCTION:NAME\n\n              prog`main+0x1\n              3\n\n     ";
    let (folded, stderr) = run_stdin(&["convert", "--from", "dtrace", "--to", "folded"], cut.as_bytes());
    assert_eq!(folded, "prog`main 3\n");
    assert!(stderr.contains(&format!("line 6 (byte {}): the input ends without a line break, which dtrace files end every line with: it looks cut short", cut.len() - 5)), "{stderr}");
}
