//! OpenTelemetry profiles (`otlp`, `otlp-json`): the fixtures, converted from fixtures/pprof by
//! fixtures/otlp/make-fixtures.py (Python's opentelemetry-proto classes, as the Collector's pprof
//! translator converts), read to the same stacks and totals as the pprof files they came from;
//! written and read back with everything; pprof through OTLP and back with its samples; indices out
//! of range and files cut short refused with what and where.

use crate::support::binary::{failure, fixture, perf_records, proftool, run, run_bytes, temp};
use crate::support::{read_fixture, sorted_lines};
use proftool::model::dump::dump;
use proftool::Format;
use std::path::Path;

/// The fixtures: (OTLP name, the pprof file it was converted from).
const FIXTURES: [(&str, &str); 3] = [("cpu", "cpu.pb.gz"), ("heap", "heap.pb.gz"), ("inlined", "inlined.pb")];

/// The output of `proftool info PATH`.
fn info(path: &Path) -> String {
    String::from_utf8(proftool().arg("info").arg(path).assert().success().get_output().stdout.clone()).unwrap()
}

/// The metrics `proftool info` lists for `path`.
fn metrics(path: &Path) -> Vec<String> {
    let out = info(path);
    out.lines().filter_map(|l| l.strip_prefix("metric")?.split_whitespace().next().map(str::to_string)).collect()
}

/// The stacks of `path` in metric `metric`, source lines kept (`name[line]`), sorted.
fn stacks(path: &Path, metric: &str) -> Vec<String> {
    let (out, _) = run(&["convert", "-q", "--lines", "--metric", metric, "--to", "folded"], path);
    let mut lines: Vec<String> = sorted_lines(&out).into_iter().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn each_fixture_reads_to_the_stacks_and_totals_of_its_pprof_file() {
    for (name, pprof) in FIXTURES {
        let pprof = fixture(&format!("pprof/{pprof}"));
        let expected = metrics(&pprof);
        for otlp in [fixture(&format!("otlp/{name}.otlp")), fixture(&format!("otlp-json/{name}.otlp.json"))] {
            let mut found = metrics(&otlp);
            let mut sorted = expected.clone();
            found.sort();
            sorted.sort();
            assert_eq!(found, sorted, "{}", otlp.display());
            for metric in &expected {
                assert_eq!(stacks(&otlp, metric), stacks(&pprof, metric), "{} {metric}", otlp.display());
            }
        }
    }
    // As `go tool pprof -raw fixtures/pprof/cpu.pb.gz` totals them: 77 samples, 770 ms.
    let out = info(&fixture("otlp/cpu.otlp"));
    assert!(out.contains("samples (samples, count, additive): total 77"), "{out}");
    assert!(out.contains("cpu (time, ns, additive): total 770000000"), "{out}");
    assert!(out.contains("interval   10ms"), "{out}");
    // The pprof file's duration_nanos (1003165934, `go tool pprof` shows `Duration: 1s`).
    assert!(out.contains("duration   1.003165934s\n"), "{out}");
}

#[test]
fn a_request_written_reads_back_with_everything_and_is_written_again_the_same() {
    let dir = temp();
    for (name, _) in FIXTURES {
        for (ext, source) in
            [("otlp", format!("otlp/{name}.otlp")), ("otlp.json", format!("otlp-json/{name}.otlp.json"))]
        {
            let source = fixture(&source);
            let (once, twice) = (dir.path().join(format!("once.{ext}")), dir.path().join(format!("twice.{ext}")));
            proftool().args(["convert", "-q"]).arg(&source).arg(&once).assert().success();
            proftool().args(["convert", "-q"]).arg(&once).arg(&twice).assert().success();
            let (thrice, _) =
                run_bytes(&["convert", "-q", "--to", if ext == "otlp" { "otlp" } else { "otlp-json" }], &twice);
            assert_eq!(std::fs::read(&twice).unwrap(), thrice, "{name}.{ext}");
            let (a, b) = (info(&source), info(&once));
            // The same header, metrics and tree; the scope written is proftool's.
            let same = |info: &str| -> Vec<String> {
                info.lines()
                    .filter(|l| !l.starts_with("format") && !l.contains(".scope."))
                    .map(str::to_string)
                    .collect()
            };
            assert_eq!(same(&a), same(&b), "{name}.{ext}");
            for metric in metrics(&source) {
                assert_eq!(stacks(&once, &metric), stacks(&source, &metric), "{name}.{ext} {metric}");
            }
        }
    }
}

/// The two encodings hold one request: each converts to the other with nothing said dropped, and
/// reads back as the same model (header facts `otlp.resource.…`, `duration-ns` and `period-type`,
/// the frames' `mapping`, metrics, tree) but for the scope, which is proftool's.
#[test]
fn each_encoding_converts_to_the_other_with_everything() {
    let dir = temp();
    let model = |format: Format, path: &Path| -> Vec<String> {
        let text = dump(&read_fixture(format, path).0);
        text.lines().filter(|l| !l.contains(".scope.")).map(str::to_string).collect()
    };
    for (name, _) in FIXTURES {
        let proto = (Format::Otlp, fixture(&format!("otlp/{name}.otlp")), dir.path().join("other.otlp"));
        let json =
            (Format::OtlpJson, fixture(&format!("otlp-json/{name}.otlp.json")), dir.path().join("other.otlp.json"));
        for ((from, source, _), (to, _, other)) in [(&proto, &json), (&json, &proto)] {
            let out = proftool().arg("convert").arg(source).arg(other).assert().success().get_output().clone();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert!(!stderr.contains("no place for"), "{name} as {to}: {stderr}");
            assert_eq!(model(*to, other), model(*from, source), "{name} as {to}");
        }
    }
}

/// A profile's original payload (the profile it was converted from, whole) has no place in the
/// model: dropped, and said, with the formats named.
#[test]
fn original_payloads_are_said_to_be_dropped() {
    let dir = temp();
    let text = std::fs::read_to_string(fixture("otlp-json/cpu.otlp.json")).unwrap();
    let mut request: serde_json::Value = serde_json::from_str(&text).unwrap();
    let profile = &mut request["resourceProfiles"][0]["scopeProfiles"][0]["profiles"][0];
    profile["originalPayloadFormat"] = "go.pprof".into();
    profile["originalPayload"] = "H4sIAAAAAAAA/w==".into();
    let input = dir.path().join("payload.otlp.json");
    std::fs::write(&input, request.to_string()).unwrap();
    let (_, err) = run(&["convert", "--to", "otlp-json"], &input);
    let said =
        "original payloads dropped (go.pprof): the profiles they were converted from, carried by 1 of 2 profiles";
    assert!(err.contains(said), "{err}");
    let (_, err) = run(&["convert", "--to", "otlp-json"], &fixture("otlp-json/cpu.otlp.json"));
    assert!(!err.contains("original payloads"), "{err}");
}

/// pprof through OTLP and back has its samples and its header and frame facts (the timestamp,
/// interval, duration, the period's type, a period that is no time, the mappings' files), said
/// dropped by neither conversion; its metrics in the order OTLP's profiles put them, the one it is
/// weighed by first.
#[test]
fn pprof_through_otlp_comes_back_with_its_samples_and_facts() {
    let dir = temp();
    // The dump's lines but its metrics, the tree's (whose values are in the metrics' order) and
    // its warnings (the sample labels, which the first reading drops and says).
    let facts = |path: &Path| -> Vec<String> {
        let text = dump(&read_fixture(Format::Pprof, path).0);
        let facts = text.lines().take_while(|l| *l != "warnings:");
        facts.filter(|l| !l.starts_with("metric ") && !l.contains("(total ")).map(str::to_string).collect()
    };
    for (_, pprof) in FIXTURES {
        let source = fixture(&format!("pprof/{pprof}"));
        let otlp = dir.path().join("through.otlp");
        let back = dir.path().join("back.pb.gz");
        for (from, to) in [(&source, &otlp), (&otlp, &back)] {
            let out = proftool().arg("convert").arg(from).arg(to).assert().success().get_output().clone();
            let err = String::from_utf8(out.stderr).unwrap();
            assert!(!err.contains("no place for"), "{pprof}: {err}");
        }
        let facts = (facts(&back), facts(&source));
        assert_eq!(facts.0, facts.1, "{pprof}");
        assert!(facts.0.iter().any(|l| l.starts_with("attr period-type: ")), "{pprof}: {facts:?}");
        for metric in metrics(&source) {
            assert_eq!(stacks(&back, &metric), stacks(&source, &metric), "{pprof} {metric}");
        }
    }
}

#[test]
fn indices_out_of_range_and_files_cut_short_are_refused_with_what_and_where() {
    let cases = [
        (
            "otlp/bad/stack-out-of-range.otlp",
            "found 99 as resource_profiles[0].scope_profiles[0].profiles[1].samples[3].stack_index",
        ),
        ("otlp/bad/string-out-of-range.otlp", "found 500 as the name of dictionary.function_table[2]"),
        ("otlp/bad/truncated.otlp", "a field cut short by the end of the input: the file looks cut short"),
        ("otlp-json/bad/location-out-of-range.otlp.json", "found 77 as dictionary.stack_table[1].location_indices[7]"),
        ("otlp-json/bad/truncated.otlp.json", "the file looks cut short"),
    ];
    for (path, expected) in cases {
        let err = failure(proftool().args(["convert", "--to", "folded"]).arg(fixture(path)).arg("-"));
        assert!(err.contains(expected), "{path}: {err}");
        assert!(!err.contains("panicked"), "{path}: {err}");
    }
    // Every cut of a request is an error or a profile, never a panic.
    let bytes = std::fs::read(fixture("otlp/heap.otlp")).unwrap();
    for cut in (1..bytes.len()).step_by(97) {
        if let (Ok(profile), _) = crate::support::read_bytes(proftool::Format::Otlp, &bytes[..cut]) {
            assert_eq!(profile.validate(), Ok(()), "cut at {cut}");
        }
    }
}

#[test]
fn both_encodings_are_told_by_content() {
    let out = info(&fixture("otlp/heap.otlp"));
    assert!(out.starts_with("format     otlp (recognised by content)"), "{out}");
    let out = info(&fixture("otlp-json/heap.otlp.json"));
    assert!(out.starts_with("format     otlp-json (recognised by content)"), "{out}");
    // A pprof profile is not taken for a request.
    let out = info(&fixture("pprof/inlined.pb"));
    assert!(out.starts_with("format     pprof"), "{out}");
}

/// perf → OTLP keeps when each record was taken: every sample of each profile holds its
/// observations' times (`timestampsUnixNano`, the `perf script` µs as ns) with a value each, and
/// threads.perf's 26 records (read from the text here) are those observations, each with the leaf
/// of its stack (read through the dictionary here). Read back and written again, the file is the
/// same.
#[test]
fn perf_records_are_observations_at_their_times() {
    let (out, _) = run(&["convert", "-q", "--to", "otlp-json"], &fixture("perf/threads.perf"));
    let request: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dictionary = &request["dictionary"];
    let index = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as usize;
    let leaf = |stack: usize| {
        let location = index(&dictionary["stackTable"][stack]["locationIndices"][0]);
        let function = index(&dictionary["locationTable"][location]["lines"][0]["functionIndex"]);
        let name = index(&dictionary["functionTable"][function]["nameStrindex"]);
        dictionary["stringTable"][name].as_str().unwrap().to_string()
    };
    let number = |v: &serde_json::Value| v.as_str().unwrap().parse::<i64>().unwrap();
    let mut records: Vec<(i64, String)> = (perf_records("perf/threads.perf").into_iter())
        .map(|(_, micros, frames)| (micros * 1000, frames[0].clone()))
        .collect();
    records.sort();
    for profile in request["resourceProfiles"][0]["scopeProfiles"][0]["profiles"].as_array().unwrap() {
        let mut observed = Vec::new();
        for sample in profile["samples"].as_array().unwrap() {
            let (times, values) =
                (sample["timestampsUnixNano"].as_array().unwrap(), sample["values"].as_array().unwrap());
            assert_eq!(times.len(), values.len());
            let stack = index(&sample["stackIndex"]);
            observed.extend(times.iter().map(|t| (number(t), leaf(stack))));
        }
        observed.sort();
        assert_eq!(observed, records);
    }
    let dir = temp();
    let written = dir.path().join("t.otlp.json");
    std::fs::write(&written, &out).unwrap();
    let (again, _) = run(&["convert", "-q", "--to", "otlp-json"], &written);
    assert_eq!(again, out);
}
