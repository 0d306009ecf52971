//! Instruments' Time Profiler export (`xctrace`), against `inferno-collapse-xctrace`: the first
//! 300 rows of each of its test files (inferno 0.12.8's `tests/data/collapse-xctrace`, CDDL-1.0),
//! with what inferno-collapse-xctrace 0.12.8 makes of them, and the binary where it is installed.

use crate::support::binary::{fixture, output_of_installed, run};
use crate::support::sorted_lines;

const CASES: [&str; 2] = ["basic", "simple-frame-without-binary-info"];

/// Each export reads to inferno's stacks, one sample a row: frames named by their symbol or
/// address, Rust names tidied; every row weighs 1 ms, the interval.
#[test]
fn an_xctrace_export_reads_as_inferno_collapses_it() {
    for case in CASES {
        let path = fixture(&format!("xctrace/{case}.xctrace.xml"));
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
        let expected = std::fs::read_to_string(fixture(&format!("xctrace/inferno/{case}.folded"))).unwrap();
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
        let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
        assert_eq!(total, 300, "{case}: a sample a row");
    }
    let (info, _) = crate::support::binary::info("xctrace/basic.xctrace.xml");
    assert!(info.contains("interval   1ms"), "{info}");
}

/// Where `inferno-collapse-xctrace` is installed (CI installs inferno), it collapses each
/// export to proftool's stacks.
#[test]
fn an_xctrace_export_agrees_with_inferno_collapse_xctrace() {
    for case in CASES {
        let path = fixture(&format!("xctrace/{case}.xctrace.xml"));
        let Some(expected) = output_of_installed("inferno-collapse-xctrace", &[], &path) else { return };
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
    }
}
