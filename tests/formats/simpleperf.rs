//! simpleperf's report_sample protobuf (read only): the fixtures are encoded by Google's protobuf
//! library from cmd_report_sample.proto (fixtures/simpleperf/make-fixtures.sh; no Android device
//! here), and their figures are worked out by hand from make_fixtures.py below. The Firefox
//! Profiler's own simpleperf files (not kept) were read with the sample counts and `cpu-clock`
//! weights per thread its importer's test snapshot gives.

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::model::{MetricKind, Value};
use proftool::Format;
use std::collections::BTreeMap;

fn folded(rel: &str, metric: &str) -> BTreeMap<String, i64> {
    let (out, _) = run(&["convert", "-q", "--to", "folded", "--metric", metric], &fixture(rel));
    out.lines().map(|l| l.rsplit_once(' ').unwrap()).map(|(s, w)| (s.to_string(), w.parse().unwrap())).collect()
}

#[test]
fn cpu_clock_samples_weigh_their_event_counts_in_nanoseconds() {
    // make_fixtures.py's work(): thread 100 leaf 0.25 + 1 ms, work 0.5 ms, memcpy 0.75 ms; thread
    // 101 leaf 0.25 ms and the kernel's frame under memcpy 1 ms.
    let main = "com.example.work-100/100;__libc_init;main;work()";
    let expected: BTreeMap<String, i64> = [
        (main.to_string(), 500_000),
        (format!("{main};leaf()"), 1_250_000),
        (format!("{main};memcpy"), 750_000),
        ("worker-100/101;leaf()".to_string(), 250_000),
        ("worker-100/101;leaf();memcpy;[kernel.kallsyms]+0xffffffff81000010".to_string(), 1_000_000),
    ]
    .into();
    assert_eq!(folded("simpleperf/work.trace", "cpu-clock"), expected);
    let samples = folded("simpleperf/work.trace", "samples");
    assert_eq!(samples[&format!("{main};leaf()")], 2);
    assert_eq!(samples.values().sum::<i64>(), 6);
    let (profile, diag) = read_fixture(Format::Simpleperf, &fixture("simpleperf/work.trace"));
    assert_eq!(profile.meta.title.as_deref(), Some("com.example.work"));
    assert_eq!(profile.meta.interval, Some(std::time::Duration::from_micros(250)));
    assert_eq!((profile.metrics()[0].kind, profile.total(0)), (MetricKind::Time, Value::Int(3_750_000)));
    let module = |name: &str| profile.frames.iter().find(|(_, f)| f.name == name).unwrap().1.module.clone();
    assert_eq!(module("memcpy").as_deref(), Some("/apex/com.android.runtime/lib64/bionic/libc.so"));
    let warnings = diag.lines(false).join("\n");
    assert!(warnings.contains("1 call chain entries had no symbol"), "{warnings}");
}

#[test]
fn each_event_is_a_metric_of_its_counts_and_one_of_its_samples() {
    let (profile, diag) = read_fixture(Format::Simpleperf, &fixture("simpleperf/events.trace"));
    let metrics: Vec<(String, MetricKind, Value)> =
        (0..4).map(|i| (profile.metrics()[i].name.clone(), profile.metrics()[i].kind, profile.total(i))).collect();
    assert_eq!(
        metrics,
        [
            ("cpu-cycles".to_string(), MetricKind::Events, Value::Int(5_000_000)),
            ("cpu-cycles samples".to_string(), MetricKind::Samples, Value::Int(2)),
            ("task-clock".to_string(), MetricKind::Time, Value::Int(2_500_000)),
            ("task-clock samples".to_string(), MetricKind::Samples, Value::Int(3)),
        ]
    );
    // cpu-cycles is no clock: no interval.
    assert_eq!(profile.meta.interval, None);
    let task = folded("simpleperf/events.trace", "task-clock");
    assert_eq!(task["[unknown]-?/102;[kernel.kallsyms]+0xffffffff81000010"], 500_000);
    let warnings = diag.lines(false).join("\n");
    for said in ["simpleperf lost 2 samples", "2 context switches", "1 samples of threads no Thread record names"] {
        assert!(warnings.contains(said), "{warnings}");
    }
}

#[test]
fn a_file_is_told_by_its_magic_and_one_without_its_end_is_read_with_a_warning() {
    let (info, _) = info("simpleperf/work.trace");
    assert!(info.contains("simpleperf (recognised by content)"), "{info}");
    let (out, err) = to_folded(&fixture("simpleperf/unended.trace"));
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(err.contains("looks cut short"), "{err}");
}

#[test]
fn a_bad_record_is_an_error_at_its_byte() {
    let error = failure(proftool().args(["info"]).arg(fixture("simpleperf/bad/bad-symbol.trace")));
    assert!(error.contains("byte 29") && error.contains("symbol 7"), "{error}");
}

/// Each sample keeps its time: make_fixtures.py takes work.trace's samples 1 ms apart from 5.001 s
/// on (its clock starts at 5 s), so the Firefox Profiler's file written from it has them at 5001,
/// 5002, … ms, one a ms, whatever thread each is on.
#[test]
fn samples_keep_their_times() {
    let (out, _) = run(&["convert", "-q", "--to", "firefox"], &fixture("simpleperf/work.trace"));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let start = json["meta"]["startTime"].as_f64().unwrap();
    let mut times: Vec<f64> = (json["threads"].as_array().unwrap().iter())
        .flat_map(|t| t["samples"]["time"].as_array().unwrap().iter().map(move |ms| start + ms.as_f64().unwrap()))
        .collect();
    times.sort_by(f64::total_cmp);
    let expected: Vec<f64> = (1..=times.len()).map(|k| 5000.0 + k as f64).collect();
    assert!(times.len() > 1);
    assert_eq!(times, expected);
}
