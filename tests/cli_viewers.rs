//! The `proftool` binary on what the viewers read and other profilers write: pprof (Go's
//! runtime/pprof) and speedscope (py-spy), read, written back, and checked against `go tool pprof`.

use crate::support::binary::{fixture, proftool, run};
use prost::Message;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The pprof profile in a file, decompressed and decoded by the tests' own declaration of the proto.
fn decode(path: &Path) -> crate::support::pprof_proto::Profile {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut bytes).unwrap();
    crate::support::pprof_proto::Profile::decode(bytes.as_slice()).unwrap()
}

/// The stderr of a run that must fail.
fn failure(command: &mut assert_cmd::Command) -> String {
    String::from_utf8(command.assert().failure().get_output().stderr.clone()).unwrap()
}

/// The output of `proftool info <args> <path>`, which must succeed.
fn info(args: &[&str], path: &Path) -> String {
    let output = proftool().arg("info").args(args).arg(path).assert().success().get_output().stdout.clone();
    String::from_utf8(output).unwrap()
}

/// The lines of a text, sorted: folded stacks in any order.
fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

#[test]
fn a_go_cpu_profile_comes_back_with_every_sample_type() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.pb.gz");
    proftool().arg("convert").arg(fixture("pprof/cpu.pb.gz")).arg(&out).assert().success();
    let p = decode(&out);
    let s = |i: i64| p.string_table[i as usize].as_str();
    // As `go tool pprof -raw fixtures/pprof/cpu.pb.gz` lists them: samples/count cpu/nanoseconds,
    // a period of 10 ms of cpu, and go's default (the last type: cpu).
    let types: Vec<(&str, &str)> = p.sample_type.iter().map(|t| (s(t.r#type), s(t.unit))).collect();
    assert_eq!(types, [("samples", "count"), ("cpu", "nanoseconds")]);
    assert_eq!(s(p.default_sample_type), "cpu");
    assert_eq!(p.period, 10_000_000);
    let totals: Vec<i64> = (0..2).map(|i| p.sample.iter().map(|x| x.value[i]).sum()).collect();
    assert_eq!(totals, [77, 770_000_000]);
}

#[test]
fn label_values_become_root_frames_with_tag() {
    // Every sample of cpu.pb.gz has the label phase=work (fixtures.go); 77 samples of 10 ms.
    let (out, err) = run(&["convert", "--tag", "phase", "--to", "folded"], &fixture("pprof/cpu.pb.gz"));
    assert!(out.lines().all(|l| l.starts_with("phase:work;runtime.main;main.main;")), "{out}");
    let total: i64 = out.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(total, 77);
    assert!(!err.contains("labels dropped"), "{err}");
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("pprof/cpu.pb.gz"));
    assert!(out.lines().all(|l| l.starts_with("runtime.main;")), "{out}");
    assert!(err.contains("sample labels dropped: phase (--tag KEY makes a label's values root frames)"), "{err}");
}

#[test]
fn numeric_labels_are_tagged_with_their_unit_and_samples_without_the_label_are_not() {
    // inlined.pb: the sample of memcpy has request=42 bytes, the other two have no labels; wall
    // time in ms at an interval of 1 ms: 40, 12 and 25 samples.
    let (out, _) = run(&["convert", "--tag", "request", "--to", "folded"], &fixture("pprof/inlined.pb"));
    assert_eq!(sorted_lines(&out), ["main;0x4abc 25", "main;compute;helper 40", "request:42 bytes;main;memcpy 12"]);
}

#[test]
fn py_spy_threads_are_roots_named_after_their_profiles() {
    // py-spy.speedscope.json: the main thread has 4 samples in hot and 2 in cold, the background
    // thread 2 at spin's line 8 and 5 at its line 9, each 0.02 s (20 ms, 1 ms samples by default).
    let (out, _) = run(&["convert", "--to", "folded"], &fixture("speedscope/py-spy.speedscope.json"));
    let main = "Thread 3410 \"MainThread\";<module>;work;work.<locals>.<genexpr>";
    let background = "Thread 3412 \"background\";Thread._bootstrap;Thread._bootstrap_inner;Thread.run;background";
    assert_eq!(
        sorted_lines(&out),
        [format!("{main};cold;spin 40"), format!("{main};hot;spin 80"), format!("{background};spin 140")]
    );
}

#[test]
fn speedscope_comes_back_with_its_units_and_frame_facts() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once.speedscope.json");
    let twice = dir.path().join("twice.speedscope.json");
    proftool().arg("convert").arg(fixture("speedscope/evented.speedscope.json")).arg(&once).assert().success();
    proftool().arg("convert").arg(&once).arg(&twice).assert().success();
    assert_eq!(std::fs::read(&once).unwrap(), std::fs::read(&twice).unwrap());
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&once).unwrap()).unwrap();
    // evented.speedscope.json: the main thread's events span 90 µs, the worker's samples 12 µs and
    // its allocation 3072 bytes.
    let profiles: Vec<(&str, &str, f64)> = doc["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["unit"].as_str().unwrap(), p["endValue"].as_f64().unwrap()))
        .collect();
    // A profile per thread and metric, the time's (the profile's primary metric) named after the
    // threads alone.
    assert_eq!(
        profiles,
        [
            ("main thread", "microseconds", 90.0),
            ("worker", "microseconds", 12.0),
            ("main thread (alloc)", "bytes", 0.0),
            ("worker (alloc)", "bytes", 3072.0)
        ]
    );
    let frame =
        |name: &str| doc["shared"]["frames"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap().clone();
    assert_eq!(frame("parse"), serde_json::json!({"name": "parse", "file": "parse.js", "line": 10, "col": 3}));
    assert_eq!(frame("tokenize"), serde_json::json!({"name": "tokenize", "file": "parse.js"}));
    assert_eq!(frame("render"), serde_json::json!({"name": "render", "line": 7}));
}

#[test]
fn a_gzip_bomb_stops_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.pb.gz");
    let mut gzip = flate2::write::GzEncoder::new(std::fs::File::create(&bomb).unwrap(), flate2::Compression::best());
    std::io::Write::write_all(&mut gzip, &vec![0u8; 3 << 20]).unwrap();
    gzip.finish().unwrap();
    let out = dir.path().join("out.folded");
    let err = failure(proftool().args(["convert", "--max-input-size", "1M"]).arg(&bomb).arg(&out));
    assert!(err.contains("decompresses to more than 1048576 bytes; raise the limit with --max-input-size"), "{err}");
    assert!(!out.exists());
}

#[test]
fn references_out_of_range_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.folded");
    let err = failure(proftool().arg("convert").arg(fixture("pprof/bad/location-out-of-range.pb.gz")).arg(&out));
    assert!(err.contains("pprof: byte 6: expected location ids that are defined, found 9 in sample 0"), "{err}");
    let bad = fixture("speedscope/bad/frame-out-of-range.speedscope.json");
    let err = failure(proftool().arg("convert").arg(bad).arg(&out));
    assert!(
        err.contains("expected frame indices below 2 (shared.frames), found 5 at profiles[1].samples[0][1]"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn raw_pprof_and_schemaless_speedscope_are_recognised_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("profile.bin");
    std::fs::copy(fixture("pprof/inlined.pb"), &raw).unwrap();
    let out = info(&[], &raw);
    assert!(out.starts_with("format     pprof (recognised by content)"), "{out}");
    let schemaless = dir.path().join("profile.json");
    std::fs::write(&schemaless, r#"{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"t","unit":"none","samples":[[0]],"weights":[3]}]}"#).unwrap();
    let (out, _) = run(&["convert", "--to", "folded"], &schemaless);
    assert_eq!(out, "t;a 3\n");
}

/// The totals per sample type (`type/unit`) that `go tool pprof -raw` lists for `path`, or `None`
/// where go is not installed.
fn go_totals(path: &Path) -> Option<BTreeMap<String, i64>> {
    let output = std::process::Command::new("go").args(["tool", "pprof", "-raw"]).arg(path).output().ok()?;
    assert!(
        output.status.success(),
        "go tool pprof -raw {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines().skip_while(|l| *l != "Samples:").skip(1);
    let types: Vec<String> =
        lines.next().unwrap().split_whitespace().map(|t| t.trim_end_matches("[dflt]").to_string()).collect();
    let mut totals: BTreeMap<String, i64> = types.iter().map(|t| (t.clone(), 0)).collect();
    // A sample is `v1 v2 …: locations`; its labels follow on lines of their own, until the locations.
    for line in lines.take_while(|l| !l.starts_with("Locations")) {
        let Some((values, _)) = line.split_once(':') else { continue };
        let values: Vec<i64> = match values.split_whitespace().map(str::parse).collect() {
            Ok(values) => values,
            Err(_) => continue,
        };
        for (t, v) in types.iter().zip(values) {
            *totals.get_mut(t).unwrap() += v;
        }
    }
    Some(totals)
}

/// The totals per metric (`name/unit` as pprof names the unit) that proftool reads from `path`.
fn proftool_totals(path: &Path) -> BTreeMap<String, i64> {
    let info: serde_json::Value = serde_json::from_str(&info(&["--json"], path)).unwrap();
    fn unit(u: &str) -> &str {
        match u {
            "ns" => "nanoseconds",
            "ms" => "milliseconds",
            other => other,
        }
    }
    info["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let name = format!("{}/{}", m["name"].as_str().unwrap(), unit(m["unit"].as_str().unwrap()));
            (name, m["total"].as_f64().unwrap() as i64)
        })
        .collect()
}

#[test]
fn go_tool_pprof_and_proftool_agree_on_totals() {
    if std::process::Command::new("go").arg("version").output().is_err() {
        println!("SKIPPED: go is not installed (apt-get install golang-go)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![fixture("pprof/cpu.pb.gz"), fixture("pprof/heap.pb.gz")];
    // proftool's own pprof: of the Go profiles, and of profiles of other formats.
    for (i, source) in [
        "pprof/cpu.pb.gz",
        "pprof/heap.pb.gz",
        "ghc-prof/ghc70-no-src.prof",
        "sampler/two-threads.sampler",
        "speedscope/py-spy.speedscope.json",
    ]
    .iter()
    .enumerate()
    {
        let out = dir.path().join(format!("{i}.pb.gz"));
        proftool().arg("convert").arg(fixture(source)).arg(&out).assert().success();
        files.push(out);
    }
    for file in files {
        assert_eq!(go_totals(&file).unwrap(), proftool_totals(&file), "{}", file.display());
    }
}
