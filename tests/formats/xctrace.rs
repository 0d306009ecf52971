//! Instruments' Time Profiler export (`xctrace`), against `inferno-collapse-xctrace`: the project's
//! own hand-written exports (fixtures/README.md, xctrace), each beside what
//! inferno-collapse-xctrace 0.12.8 made of it, and the binary where it is installed.

use crate::support::binary::{fixture, output_of_installed, run};
use crate::support::sorted_lines;

/// Each case and its rows.
const CASES: [(&str, u64); 2] = [("walk", 12), ("no-binaries", 6)];

/// Each export reads to inferno's stacks, one sample a row (backtraces named again by their ref
/// count again): frames named by their symbol or address, Rust names tidied, XML escapes read.
/// `walk`'s rows all weigh 1 ms, its interval; one of `no-binaries`'s weighs 2 ms: no interval, and
/// a warning.
#[test]
fn an_xctrace_export_reads_as_inferno_collapses_it() {
    for (case, rows) in CASES {
        let path = fixture(&format!("xctrace/{case}.xctrace.xml"));
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
        let expected = std::fs::read_to_string(fixture(&format!("xctrace/inferno/{case}.folded"))).unwrap();
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
        let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
        assert_eq!(total, rows, "{case}: a sample a row");
    }
    let (info, _) = crate::support::binary::info("xctrace/walk.xctrace.xml");
    assert!(info.contains("interval   1ms"), "{info}");
    let (info, err) = crate::support::binary::info("xctrace/no-binaries.xctrace.xml");
    assert!(!info.contains("interval"), "{info}");
    assert!(err.contains("1 rows weigh other than the first"), "{err}");
}

/// Where `inferno-collapse-xctrace` is installed (CI installs inferno), it collapses each
/// export to proftool's stacks.
#[test]
fn an_xctrace_export_agrees_with_inferno_collapse_xctrace() {
    for (case, _) in CASES {
        let path = fixture(&format!("xctrace/{case}.xctrace.xml"));
        let Some(expected) = output_of_installed("inferno-collapse-xctrace", &[], &path) else { return };
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
    }
}

/// Rows of an empty backtrace, which inferno-collapse-xctrace 0.12.8 counts as a stack of no frame
/// (` 2`, inferno/empty-backtraces.folded), are counted under `(empty backtrace)`, said on stderr:
/// the 4 rows' samples, as inferno's.
#[test]
fn rows_of_an_empty_backtrace_are_counted_as_inferno_counts_them() {
    let path = fixture("xctrace/empty-backtraces.xctrace.xml");
    let (out, err) = run(&["convert", "--to", "folded"], &path);
    let inferno = std::fs::read_to_string(fixture("xctrace/inferno/empty-backtraces.folded")).unwrap();
    let named: Vec<String> = inferno
        .lines()
        .map(|line| match line.strip_prefix(' ') {
            Some(count) => format!("(empty backtrace) {count}"),
            None => line.to_string(),
        })
        .collect();
    assert_eq!(sorted_lines(&out), sorted_lines(&named.join("\n")));
    assert!(err.contains("2 rows with an empty backtrace counted under `(empty backtrace)`"), "{err}");
}
