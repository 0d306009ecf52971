//! FreeBSD pmcstat call graphs (`pmcstat`), against FlameGraph's `stackcollapse-pmc.pl` and
//! speedscope's importer: a call graph written by hand from the format's grammar (speedscope's own
//! sample is checked by `.ci/speedscope-corpus.mjs`).

use crate::support::binary::{fixture, proftool, run};
use crate::support::sorted_lines;

/// The graph reads to the stacks `stackcollapse-pmc.pl` (FlameGraph 41fee1f) makes of it (its
/// output, checked in: flamegraph/work.folded), the callers outermost first: 1,200 samples, the
/// event's stated total, and speedscope's; the lines that are not of the graph are skipped as both
/// skip them, the one that is neither blank nor a comment said.
#[test]
fn a_call_graph_reads_as_stackcollapse_pmc_collapses_it() {
    let expected = std::fs::read_to_string(fixture("pmcstat/flamegraph/work.folded")).unwrap();
    for case in ["work", "work-with-invalids"] {
        let (out, err) = run(&["convert", "--to", "folded"], &fixture(&format!("pmcstat/{case}.pmcstat")));
        assert_eq!(sorted_lines(&out), sorted_lines(&expected), "{case}");
        assert_eq!(total(&out), 1_200);
        assert_eq!(
            err.contains("1 lines that are not of the call graph skipped"),
            case == "work-with-invalids",
            "{err}"
        );
    }
}

/// The samples of folded stacks.
fn total(folded: &str) -> u64 {
    folded.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum()
}

/// A function's binary is named where it changes: a line without one has its caller's; a sampled
/// function without one has none.
#[test]
fn a_line_without_a_binary_has_its_callers() {
    let text = "@ cycles [10 samples]\n\n60.00%  [6]     leaf @ /lib/libc.so\n 100.0%  [6]      caller @ /bin/prog\n  100.0%  [6]       main\n40.00%  [4]     other\n";
    let (tree, _) =
        crate::support::binary::run_stdin(&["convert", "--from", "pmcstat", "--to", "speedscope"], text.as_bytes());
    for (name, file) in [("leaf", "/lib/libc.so"), ("caller", "/bin/prog"), ("main", "/bin/prog")] {
        assert!(tree.contains(&format!(r#""name":"{name}","file":"{file}""#)), "{name}: {tree}");
    }
    assert!(tree.contains(r#"{"name":"other"}"#), "{tree}");
}

/// Several events are a metric each.
#[test]
fn each_event_is_a_metric() {
    let text = "@ cycles [6 samples]\n\n100.0%  [6]     f\n@ instructions [9 samples]\n\n100.0%  [9]     g\n";
    let summary = proftool()
        .args(["summary", "--from", "pmcstat", "--metric", "instructions samples", "-"])
        .write_stdin(text)
        .assert()
        .success();
    let out = String::from_utf8(summary.get_output().stdout.clone()).unwrap();
    assert!(
        out.starts_with("Total: 9 instructions samples\n") && out.contains("\ng                             9   100.0"),
        "{out}"
    );
}

/// An event whose section comes again adds to its own metric (a graph of three sections that the
/// fuzzer made: the second `cycles` once made a second metric of that name, which the model refuses).
#[test]
fn an_event_met_again_adds_to_its_metric() {
    let text = "@ cycles [6 samples]\n\n100.0%  [6]     f\n@ instructions [9 samples]\n\n100.0%  [9]     g\n@ cycles [2 samples]\n\n100.0%  [2]     h\n";
    let info = proftool().args(["info", "--from", "pmcstat", "-"]).write_stdin(text).assert().success();
    let out = String::from_utf8(info.get_output().stdout.clone()).unwrap();
    assert!(out.contains("metric     cycles samples (samples, count, additive): total 8\n"), "{out}");
    assert!(out.contains("metric     instructions samples (samples, count, additive): total 9\n"), "{out}");
}
