//! What each number means, whatever the source: counts of things are not samples, every command
//! weighs a profile by the same metric, time and ticks convert at an interval (issue 25). The
//! expected totals are `go tool pprof`'s on the same fixtures (`-top`, `-sample_index`).

use crate::support::binary::{fixture, proftool};
use predicates::prelude::*;

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// `proftool info` of `path`'s conversion: its stdout.
fn info(path: &std::path::Path) -> String {
    let out = proftool().arg("info").arg(path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_heap_profile_is_refused_by_the_formats_weighed_by_time() {
    // A Go heap profile counts bytes and objects: none of it is samples or time.
    let dir = temp();
    for target in ["br", "sampler", "dyalog-xml", "dyalog-csv", "ghc-px", "lispworks"] {
        let out = dir.path().join(format!("heap.{target}"));
        proftool()
            .args(["convert", "--to", target])
            .arg(fixture("pprof/heap.pb.gz"))
            .arg(&out)
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("the profile has neither")
                    .and(predicate::str::contains("alloc_objects (objects)"))
                    .and(predicate::str::contains("inuse_space (bytes)"))
                    .and(predicate::str::contains("--metric")),
            );
        assert!(!out.exists(), "{target}: nothing is written");
    }
}

#[test]
fn a_count_named_with_metric_is_written_with_a_warning_saying_what_it_counts() {
    let dir = temp();
    let out = dir.path().join("objects.br");
    proftool()
        .args(["convert", "--metric", "alloc_objects"])
        .arg(fixture("pprof/heap.pb.gz"))
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "br weighs stacks by samples: --metric alloc_objects is written as its samples, but its numbers count objects",
        ));
    // go tool pprof -top -sample_index=alloc_objects: "382 total".
    assert!(info(&out).contains("samples (samples, count, additive): total 382"), "{}", info(&out));
}

#[test]
fn a_count_turned_into_records_stops_at_max_samples_for_br_as_for_sampler() {
    let dir = temp();
    for target in ["br", "sampler"] {
        let out = dir.path().join(format!("bytes.{target}"));
        proftool()
            .args(["convert", "--metric", "alloc_space", "--max-samples", "100000", "--to", target])
            .arg(fixture("pprof/heap.pb.gz"))
            .arg(&out)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("--max-samples"));
        assert!(!out.exists(), "{target}: nothing is written");
    }
}

#[test]
fn every_target_and_report_takes_the_metric_pprof_shows() {
    // go tool pprof shows a heap profile by inuse_space (the last sample type): 4233.94kB, which is
    // 4335553 bytes; a CPU profile by cpu, 770ms.
    let heap = fixture("pprof/heap.pb.gz");
    let out = proftool().args(["convert", "--to", "folded"]).arg(&heap).arg("-").output().unwrap();
    let total: i64 = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(total, 4335553);
    for report in ["summary", "tree"] {
        let out = proftool().args([report, "--format", "json"]).arg(&heap).output().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((&json["metric"], &json["total"]), (&"inuse_space".into(), &4335553.into()), "{report}");
    }
    let dir = temp();
    let cpu = fixture("pprof/cpu.pb.gz");
    let dyalog = dir.path().join("cpu.xml");
    proftool().arg("convert").arg(&cpu).arg(&dyalog).assert().success();
    assert!(std::fs::read_to_string(&dyalog).unwrap().contains("<TotalTime>770</TotalTime>"));
}

#[test]
fn time_written_as_one_count_per_stack_stays_exact_in_the_sources_unit() {
    // timed.br's groups hold 1e12 ns, 4000 ns and 300 ns (its dump, checked by hand): cut into
    // 1 ms samples, the two short stacks were 0.
    let timed = fixture("br/timed.br");
    proftool()
        .args(["convert", "--to", "folded"])
        .arg(&timed)
        .arg("-")
        .assert()
        .success()
        .stdout("main.br:50.1 1000000000000\nmain.br:50.1;FNREAD 4000\nmain.br:50.1;main.br:7.0 300\n")
        .stderr(predicate::str::contains("time (in ns) is written in whole ns (read it back with --folded-unit ns"));
    // --interval still divides time into samples, keeping the total.
    proftool()
        .args(["convert", "--to", "folded", "--interval", "1ms"])
        .arg(&timed)
        .arg("-")
        .assert()
        .success()
        .stdout("main.br:50.1 1000000\nmain.br:50.1;FNREAD 0\nmain.br:50.1;main.br:7.0 0\n");
    // Read back with its unit, the folded file is time again.
    let dir = temp();
    let folded = dir.path().join("timed.folded");
    proftool().args(["convert", "-q"]).arg(&timed).arg(&folded).assert().success();
    let out = proftool().args(["info", "--folded-unit", "ns"]).arg(&folded).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("metric     time (time, ns, additive): total 1000000004300"), "{text}");
    // The flame graph's boxes say the unit: inferno's count name.
    let svg = dir.path().join("timed.svg");
    proftool().args(["convert", "-q"]).arg(&timed).arg(&svg).assert().success();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<title>all (1,000,000,004,300 ns, 100%)</title>"));
}

#[test]
fn a_go_cpu_profiles_samples_stand_for_its_cpu_time_in_one_count_targets() {
    // go tool pprof: "Total samples = 770ms", at a 10 ms period: 77 samples, exact.
    let out = proftool().args(["convert", "--to", "folded"]).arg(fixture("pprof/cpu.pb.gz")).arg("-").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let total: i64 = text.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(total, 77);
}
