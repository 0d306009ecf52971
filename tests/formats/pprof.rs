//! pprof profiles (`pprof`) as Go's runtime/pprof writes them and `go tool pprof` reads them:
//! written back with every sample type, labels made root frames (`--tag`), totals against
//! `go tool pprof`, the program as the first mapping, where functions are defined; references out
//! of range and a gzip bomb refused; recognised by content (with speedscope without its schema).

use crate::support::binary::{fixture, perf_records, proftool, run, run_bytes, temp};
use crate::support::sorted_lines;
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
    // Lossy: label values are printed as their bytes, which need not be UTF-8 (not-utf8.pb.gz).
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
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

/// A string table with a string that is not UTF-8 (not-utf8.pb.gz: runtime/pprof writes the label
/// value "w\xffrk" as it is, as Pyroscope's invalid_utf8.pb.gz has one) is read, the bad byte as
/// U+FFFD, and said: 29 samples, 290 ms, as `go tool pprof -top` gives them (25 + 4 in `-raw`).
#[test]
fn a_string_table_not_in_utf8_is_read_and_said() {
    let (out, err) = run(&["convert", "--tag", "phase", "--to", "folded"], &fixture("pprof/not-utf8.pb.gz"));
    assert!(out.lines().all(|l| l.starts_with("phase:w\u{fffd}rk;runtime.main;")), "{out}");
    let total: i64 = out.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(total, 29);
    assert!(err.contains("1 string(s) of the string table are not UTF-8 (the first: string 14)"), "{err}");
    let text = info(&[], &fixture("pprof/not-utf8.pb.gz"));
    assert!(text.contains("format     pprof (recognised by content)"), "{text}");
    assert!(text.contains("metric     cpu (time, ns, additive): total 290000000\n"), "{text}");
}

/// A Go CPU profile's default sample type is `cpu` (`go tool pprof -top`: `Type: cpu`, 770 ms): a
/// folded output writes its samples (77), which count it exactly at the 10 ms period, and says so;
/// `--metric cpu` writes the nanoseconds.
#[test]
fn a_cpu_profiles_folded_output_says_its_samples_stand_for_cpu() {
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("pprof/cpu.pb.gz"));
    let total: i64 = out.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(total, 77);
    let expected = "metric cpu dropped (writing samples, which count the default cpu exactly at its 10ms interval)";
    assert!(err.contains(expected), "{err}");
    let (out, _) = run(&["convert", "-q", "--metric", "cpu", "--to", "folded"], &fixture("pprof/cpu.pb.gz"));
    let total: i64 = out.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(total, 770_000_000);
}

#[test]
fn go_tool_pprof_and_proftool_agree_on_totals() {
    if std::process::Command::new("go").arg("version").output().is_err() {
        println!("SKIPPED: go is not installed (apt-get install golang-go)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![fixture("pprof/cpu.pb.gz"), fixture("pprof/heap.pb.gz"), fixture("pprof/not-utf8.pb.gz")];
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

#[test]
fn pprof_gets_every_additive_metric_and_the_stacks_leaf_first() {
    use prost::Message;
    use std::io::Read;
    let dir = temp();
    let out = dir.path().join("out.pb.gz");
    // GHC's -P report: 5 ticks of 20 ms; main 1 tick and 3,200 bytes, fib 3 and 9,000 under it, and
    // "do work" 1 and 600 under fib, the handle CAF none; MAIN has none of its own (checked by
    // hand against the file).
    proftool().arg("convert").arg(fixture("ghc-prof/ghc70-no-src.prof")).arg(&out).assert().success();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap()).read_to_end(&mut bytes).unwrap();
    let p = crate::support::pprof_proto::Profile::decode(bytes.as_slice()).unwrap();
    let s = |i: i64| p.string_table[i as usize].as_str();
    let types: Vec<(&str, &str)> = p.sample_type.iter().map(|t| (s(t.r#type), s(t.unit))).collect();
    assert_eq!(types, [("ticks", "count"), ("alloc", "bytes")]);
    // pprof shows the default type first, and without one the last (alloc): ticks is the primary.
    assert_eq!(s(p.default_sample_type), "ticks");
    assert_eq!(p.period, 20_000_000);
    assert_eq!(p.comment.iter().map(|&c| s(c)).collect::<Vec<_>>(), ["fib +RTS -P -RTS"]);
    let name = |id: u64| s(p.function.iter().find(|f| f.id == id).unwrap().name);
    let samples: Vec<(Vec<&str>, Vec<i64>)> =
        p.sample.iter().map(|x| (x.location_id.iter().map(|&l| name(l)).collect(), x.value.clone())).collect();
    assert_eq!(
        samples,
        [
            (vec!["Main.main", "MAIN.MAIN"], vec![1, 3200]),
            (vec!["Main.fib", "Main.main", "MAIN.MAIN"], vec![3, 9000]),
            (vec!["Main.do work", "Main.fib", "Main.main", "MAIN.MAIN"], vec![1, 600]),
            // A leaf without costs keeps its stack, with zeros (as in folded stacks).
            (vec!["GHC.IO.Handle.FD.CAF", "MAIN.MAIN"], vec![0, 0]),
        ]
    );
}

/// A pprof output's first mapping is the program, as `go tool pprof` takes it (`File:`): work.perf
/// is a perf recording of /tmp/perfwork (fixtures/perf/make-fixtures.sh), whose first frame met is
/// in ld-linux-x86-64.so.2; /tmp/perfwork comes first, the libraries and the kernel after it.
#[test]
fn a_pprof_outputs_first_mapping_is_the_program() {
    let out =
        proftool().args(["convert", "-q", "--to", "pprof"]).arg(fixture("perf/work.perf")).arg("-").output().unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&out.stdout[..]), &mut bytes).unwrap();
    let profile = <crate::support::pprof_proto::Profile as prost::Message>::decode(&bytes[..]).unwrap();
    let files: Vec<&str> = profile.mapping.iter().map(|m| profile.string_table[m.filename as usize].as_str()).collect();
    assert_eq!(files[0], "/tmp/perfwork", "{files:?}");
    assert!(
        files.contains(&"/usr/lib/x86_64-linux-gnu/libc.so.6") && files.contains(&"[kernel.kallsyms]"),
        "{files:?}"
    );
}

#[test]
fn pprof_functions_get_the_file_and_line_of_src_loc() {
    use prost::Message;
    use std::io::Read;
    let (out, _) = run_bytes(&["convert", "--to", "pprof"], &fixture("ghc-json/work.prof.json"));
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(out.as_slice()).read_to_end(&mut bytes).unwrap();
    let p = crate::support::pprof_proto::Profile::decode(bytes.as_slice()).unwrap();
    let s = |i: i64| p.string_table[i as usize].as_str();
    let function = |name: &str| p.function.iter().find(|f| s(f.name) == name).unwrap();
    let line_of = |id: u64| p.location.iter().find(|l| l.id == id).unwrap().line[0].line;
    // tally.add's src_loc: work.hs:17:5-42.
    let add = function("Main.tally.add");
    assert_eq!((s(add.filename), add.start_line, line_of(add.id)), ("work.hs", 17, 17));
    let main = function("MAIN.MAIN");
    assert_eq!((s(main.filename), main.start_line, line_of(main.id)), ("", 0, 0));
}

/// The program `go tool pprof` names (`File:`, the first mapping's) is an object file the source
/// named: perf's DSO (`perfwork`), never a source file (callgrind's frames are in `work.c`,
/// `libc-start.c` and `clone.S`: no mapping, and go tool pprof says it has no main binary).
#[test]
fn the_program_named_is_an_object_file_never_a_source_file() {
    let dir = temp();
    let top = |fixture_path: &str| {
        let out = dir.path().join("out.pb.gz");
        proftool().args(["convert", "-q"]).arg(fixture(fixture_path)).arg(&out).assert().success();
        let output = std::process::Command::new("go").args(["tool", "pprof", "-top"]).arg(&out).output().ok()?;
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let Some(callgrind) = top("callgrind/threads.callgrind") else {
        eprintln!("SKIPPED: go tool pprof not installed");
        return;
    };
    assert!(!callgrind.contains("File:") && callgrind.contains("Type: Ir"), "{callgrind}");
    assert!(top("perf/work.perf").unwrap().starts_with("File: perfwork\n"));
}

/// Each sample of a pprof file as (its `timestamp_ns` label's number, the function of its leaf),
/// and its values, in the file's order.
fn timed_samples(p: &crate::support::pprof_proto::Profile) -> Vec<((i64, String), Vec<i64>)> {
    let s = |i: i64| p.string_table[i as usize].clone();
    let leaf_function = |location: u64| {
        let line = &p.location.iter().find(|l| l.id == location).unwrap().line[0];
        s(p.function.iter().find(|f| f.id == line.function_id).unwrap().name)
    };
    let time = |sample: &crate::support::pprof_proto::Sample| {
        sample.label.iter().find(|l| s(l.key) == "timestamp_ns").map(|l| l.num).unwrap()
    };
    p.sample.iter().map(|sample| ((time(sample), leaf_function(sample.location_id[0])), sample.value.clone())).collect()
}

/// perf → pprof writes each perf record as a sample at its time, as perf_to_profile does: a
/// `timestamp_ns` label (the `perf script` time, in µs, as ns) on a sample of one cpu-clock period
/// (1001001 ns) and one sample, whose leaf is the record's innermost symbol: threads.perf's 26
/// records, read from the text. Read back and written again, the file is the same.
#[test]
fn perf_records_are_samples_at_their_times() {
    let dir = temp();
    let (out, again) = (dir.path().join("t.pb.gz"), dir.path().join("again.pb.gz"));
    proftool().args(["convert", "-q"]).arg(fixture("perf/threads.perf")).arg(&out).assert().success();
    let written = timed_samples(&decode(&out));
    assert!(written.iter().all(|(_, values)| values == &[1001001, 1]), "{written:?}");
    let mut written: Vec<(i64, String)> = written.into_iter().map(|(sample, _)| sample).collect();
    let mut records: Vec<(i64, String)> = (perf_records("perf/threads.perf").into_iter())
        .map(|(_, micros, frames)| (micros * 1000, frames[0].clone()))
        .collect();
    assert_eq!(records.len(), 26);
    written.sort();
    records.sort();
    assert_eq!(written, records);
    proftool().args(["convert", "-q"]).arg(&out).arg(&again).assert().success();
    assert_eq!(decode(&again), decode(&out));
}
