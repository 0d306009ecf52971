//! Android ART method traces (read only): the fixtures are laid out byte by byte as ART's
//! runtime/trace.cc writes them (fixtures/art-trace/make-fixtures.sh; no Android device here), and
//! their figures are worked out by hand from make_fixtures.py below. The Firefox Profiler's own ART
//! traces (not kept) were read with the trees its importer's test snapshot gives.

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::model::{MetricKind, Value};
use proftool::Format;
use std::collections::BTreeMap;

fn folded(rel: &str, metric: &str) -> BTreeMap<String, i64> {
    let (out, _) = run(&["convert", "-q", "--to", "folded", "--metric", metric], &fixture(rel));
    out.lines().map(|l| l.rsplit_once(' ').unwrap()).map(|(s, w)| (s.to_string(), w.parse().unwrap())).collect()
}

fn expected(lines: &[(&str, i64)]) -> BTreeMap<String, i64> {
    lines.iter().map(|&(s, w)| (s.to_string(), w)).collect()
}

#[test]
fn a_regular_trace_gives_each_method_the_time_between_its_threads_records() {
    // make_fixtures.py's WORK: main enters main@10, compute@20, sqrt@40, leaves sqrt@45, compute@50,
    // enters compute(J)@60, unwinds it@80, leaves main@90; worker enters compute@30, leaves @200,
    // sqrt 210-215, an exit of nothing @220.
    let main = "main-4242/4242;com.example.Work.main";
    let compute = format!("{main};com.example.Work.compute");
    let wall = expected(&[
        (main, 30),
        (&compute, 45),
        (&format!("{compute};java.lang.Math.sqrt"), 5),
        ("worker-4242/4250", 15),
        ("worker-4242/4250;com.example.Work.compute", 170),
        ("worker-4242/4250;java.lang.Math.sqrt", 5),
    ]);
    assert_eq!(folded("art-trace/work.trace", "wall"), wall);
    let cpu = expected(&[
        (main, 8),
        (&compute, 20),
        (&format!("{compute};java.lang.Math.sqrt"), 3),
        ("worker-4242/4250;com.example.Work.compute", 100),
        ("worker-4242/4250;java.lang.Math.sqrt", 2),
    ]);
    assert_eq!(folded("art-trace/work.trace", "cpu"), cpu);
    let (profile, diag) = read_fixture(Format::ArtTrace, &fixture("art-trace/work.trace"));
    let totals: Vec<(String, MetricKind, Value)> =
        (0..3).map(|i| (profile.metrics()[i].name.clone(), profile.metrics()[i].kind, profile.total(i))).collect();
    assert_eq!(
        totals,
        [
            ("wall".to_string(), MetricKind::Time, Value::Int(270)),
            ("cpu".to_string(), MetricKind::Time, Value::Int(133)),
            ("calls".to_string(), MetricKind::Calls, Value::Int(6)),
        ]
    );
    assert_eq!(profile.meta.attr("art-trace.pid"), Some("4242"));
    let warnings = diag.lines(false).join("\n");
    assert!(warnings.contains("1 exits with no method entered"), "{warnings}");
}

#[test]
fn a_streaming_trace_reads_its_ops_and_its_summarys_clock() {
    let wall = expected(&[
        ("main-7/7;com.example.Loop.run", 30),
        ("main-7/7;com.example.Loop.run;com.example.Loop.step", 20),
        ("main-7/7;com.example.Loop.run;<unknown method ID 0x18>", 10),
        ("?-7/9;com.example.Loop.run", 5),
    ]);
    assert_eq!(folded("art-trace/streaming.trace", "wall"), wall);
    let (profile, diag) = read_fixture(Format::ArtTrace, &fixture("art-trace/streaming.trace"));
    assert_eq!(profile.metrics().len(), 2, "wall and calls: the clock is wall");
    assert_eq!(profile.total(1), Value::Int(5));
    let warnings = diag.lines(false).join("\n");
    for said in [
        "1 exits named another method",
        "1 methods the trace does not name",
        "1 threads the trace does not name",
        "2 methods still entered",
    ] {
        assert!(warnings.contains(said), "{warnings}");
    }
}

#[test]
fn both_layouts_are_told_by_their_content() {
    for rel in ["art-trace/work.trace", "art-trace/streaming.trace"] {
        let (info, _) = info(rel);
        assert!(info.contains("art-trace (recognised by content)"), "{info}");
    }
}
