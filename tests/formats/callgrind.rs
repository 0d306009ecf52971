//! Callgrind files (`valgrind --tool=callgrind`) against `callgrind_annotate`: each fixture's
//! functions have the own totals callgrind_annotate gives them, and proftool's callgrind output of
//! other formats' fixtures gives callgrind_annotate the totals `proftool summary` gives the source.

use crate::support::binary::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Own totals per function name, one per event (`file:function` entries of one name added up, as
/// `proftool summary` names a function by its name).
type Totals = BTreeMap<String, Vec<i64>>;

/// The function table `callgrind_annotate --threshold=100` prints: the counts of each function
/// (`.` for none, each perhaps followed by its percentage in parentheses) before its
/// `file:function [object]`.
fn parse_annotate(text: &str) -> Totals {
    let mut totals = Totals::new();
    let mut lines = text.lines().skip_while(|l| !l.trim_end().ends_with("file:function"));
    let Some(header) = lines.next() else { return totals };
    let events = header.split_whitespace().count() - 1;
    for line in lines.skip(1).take_while(|l| !l.trim().is_empty()) {
        let mut rest = line.trim_start();
        let mut counts = Vec::new();
        for _ in 0..events {
            let end = rest.find(' ').unwrap_or(rest.len());
            let word = &rest[..end];
            counts.push(if word == "." { 0 } else { word.replace(',', "").parse::<i64>().unwrap() });
            rest = rest[end..].trim_start();
            if rest.starts_with('(') {
                rest = rest[rest.find(')').unwrap() + 1..].trim_start();
            }
        }
        let name = rest.strip_suffix(']').and_then(|n| n.rsplit_once(" [")).map_or(rest, |(n, _)| n);
        let function = name.split_once(':').map_or(name, |(_, f)| f).to_string();
        let total = totals.entry(function).or_insert_with(|| vec![0; events]);
        total.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
    }
    totals.retain(|_, counts| counts.iter().any(|&c| c != 0));
    totals
}

/// What `callgrind_annotate --threshold=100` prints for `path`, where it is installed.
fn callgrind_annotate(path: &Path) -> Option<Totals> {
    let output = std::process::Command::new("callgrind_annotate").arg("--threshold=100").arg(path).output();
    let Some(output) = output.ok().filter(|o| o.status.success()) else {
        eprintln!("skipped: callgrind_annotate not found (Debian's valgrind)");
        return None;
    };
    Some(parse_annotate(&String::from_utf8(output.stdout).unwrap()))
}

/// The own totals `proftool summary` gives each function of `path`, in `metrics`, in the unit
/// `unit` (where the summary's is a time unit: its values turned into it).
fn summary(path: &Path, metrics: &[&str], unit: Option<&str>) -> Totals {
    let mut totals = Totals::new();
    for (i, metric) in metrics.iter().enumerate() {
        let mut args = vec!["summary", "-q", "--format", "json"];
        if !metric.is_empty() {
            args.extend(["--metric", metric]);
        }
        let out = proftool().args(&args).arg(path).assert().success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let scale = match (json["unit"].as_str(), unit) {
            (Some("ms"), Some("ns")) => 1e6,
            (Some("us"), Some("ns")) => 1e3,
            _ => 1.0,
        };
        for row in json["rows"].as_array().unwrap() {
            let Some(value) = row["self"].as_f64() else { continue };
            let total =
                totals.entry(row["name"].as_str().unwrap().to_string()).or_insert_with(|| vec![0; metrics.len()]);
            total[i] += (value * scale).round() as i64;
        }
    }
    totals.retain(|_, counts| counts.iter().any(|&c| c != 0));
    totals
}

/// The calls `proftool summary` counts per function of `path` (none for roots: threads, which a
/// callgrind output drops, and the functions at the roots).
fn calls(path: &Path) -> BTreeMap<String, i64> {
    let out = proftool().args(["summary", "-q", "--format", "json"]).arg(path).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rows = json["rows"].as_array().unwrap().iter();
    let calls = rows.map(|row| (row["name"].as_str().unwrap().to_string(), row["calls"].as_i64().unwrap()));
    calls.filter(|(_, calls)| *calls != 0).collect()
}

fn table(rows: &[(&str, &[i64])]) -> Totals {
    rows.iter().map(|(name, counts)| (name.to_string(), counts.to_vec())).collect()
}

/// Each fixture's own totals per function are callgrind_annotate's, as valgrind 3.19.0's printed
/// them: `callgrind_annotate --threshold=100 fixtures/callgrind/lines.callgrind` (and instr, cache,
/// threads), `file:function` entries of one name added up (parse_input's work.c 20 and its inlined
/// work.h 2).
#[test]
fn fixtures_have_callgrind_annotates_function_totals() {
    let program: &[(&str, &[i64])] = &[
        ("leaf", &[6056]),
        ("fib'2", &[682]),
        ("render", &[38]),
        ("fib", &[36]),
        ("main", &[34]),
        ("parse_input", &[22]),
    ];
    for case in ["lines", "instr"] {
        assert_eq!(summary(&fixture(&format!("callgrind/{case}.callgrind")), &["Ir"], None), table(program), "{case}");
    }
    // Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
    let cache: &[(&str, &[i64])] = &[
        ("leaf", &[6056, 1008, 0, 0, 0, 0, 0, 0, 0]),
        ("fib'2", &[682, 144, 140, 0, 0, 1, 0, 0, 0]),
        ("render", &[38, 6, 12, 0, 0, 0, 0, 0, 0]),
        ("fib", &[36, 6, 8, 0, 0, 0, 0, 0, 0]),
        ("main", &[34, 7, 9, 5, 0, 0, 5, 0, 0]),
        ("parse_input", &[22, 6, 4, 2, 0, 0, 2, 0, 0]),
    ];
    let events = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"];
    assert_eq!(summary(&fixture("callgrind/cache.callgrind"), &events, None), table(cache));
    let threads: &[(&str, &[i64])] = &[
        ("leaf", &[5156]),
        ("fib'2", &[682]),
        ("render", &[38]),
        ("fib", &[36]),
        ("parse_input", &[22]),
        ("worker", &[18]),
    ];
    assert_eq!(summary(&fixture("callgrind/threads.callgrind"), &["Ir"], None), table(threads));
}

/// The same, against callgrind_annotate itself where it is installed.
#[test]
fn fixtures_read_as_callgrind_annotate_reads_them() {
    for case in ["lines", "instr", "cache", "threads", "cycle"] {
        let path = fixture(&format!("callgrind/{case}.callgrind"));
        let Some(annotated) = callgrind_annotate(&path) else { return };
        let text = std::fs::read_to_string(&path).unwrap();
        let events: Vec<&str> =
            text.lines().find_map(|l| l.strip_prefix("events: ")).unwrap().split_whitespace().collect();
        assert_eq!(summary(&path, &events, None), annotated, "{case}");
    }
}

/// A cycle of recursion (cycle.callgrind: is_even and is_odd call each other, callgrind's is_even'2
/// and is_odd'2 their deeper calls) is apportioned as a whole, so that the functions outside it
/// keep the inclusive costs callgrind records for them: `callgrind_annotate --inclusive=yes` gives
/// main 19,400, is_even 18,444, is_odd 17,522, plain 940 and leaf 19,047, and the file's one call
/// of plain into leaf costs 907 (`calls=1 -20`, `* 907`). Apportioned call by call, the inclusive
/// costs of calls inside the cycle (is_even'2's into is_odd'2, 66,420, counts each level below
/// again) shrank the cycle's share of leaf, and the rest went to plain: plain 2,918, is_even
/// 16,466. is_even'2 stands for is_odd's call into the cycle, 16,600 (`calls=1 +4`, `* 16600`),
/// not callgrind_annotate's 83,020, which counts the levels again.
#[test]
fn a_cycle_of_recursion_keeps_the_costs_of_calls_into_it() {
    let path = fixture("callgrind/cycle.callgrind");
    let out = proftool().args(["summary", "-q", "--format", "json"]).arg(&path).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let total = |name: &str| {
        let rows = json["rows"].as_array().unwrap();
        rows.iter().find(|row| row["name"] == name).and_then(|row| row["total"].as_i64()).unwrap()
    };
    let inclusive = [("main", 19400), ("is_even", 18444), ("is_odd", 17522), ("plain", 940), ("leaf", 19047)];
    assert_eq!(inclusive.map(|(name, _)| (name, total(name))), inclusive);
    assert_eq!(total("is_even'2"), 16600);
    let out = proftool().args(["convert", "-q", "--to", "folded"]).arg(&path).arg("-").assert().success();
    let folded = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(folded.lines().any(|line| line.ends_with(";main;plain;leaf 907")), "{folded}");
}

/// proftool's callgrind output of other formats' fixtures reads in callgrind_annotate with the
/// own total per function that `proftool summary` gives the source (time in nanoseconds).
#[test]
fn callgrind_annotate_reads_conversions_with_the_sources_totals() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("folded/basic.folded", None),
        ("lispworks/negative-self.tree", None),
        ("pprof/cpu.pb.gz", Some("ns")),
        ("perf/work.perf", Some("ns")),
        ("ghc-px/notes-example.px", None),
        ("speedscope/py-spy.speedscope.json", Some("ns")),
    ];
    for (source, unit) in cases {
        let out = dir.path().join("out.callgrind");
        proftool().args(["convert", "-q"]).arg(fixture(source)).arg(&out).assert().success();
        let Some(mut annotated) = callgrind_annotate(&out) else { return };
        // The first event is the metric the source is weighed by, which summary reports.
        annotated.values_mut().for_each(|counts| counts.truncate(1));
        annotated.retain(|_, counts| counts[0] != 0);
        assert_eq!(annotated, summary(&fixture(source), &[""], unit), "{source}");
    }
}

/// Written and read back, a callgrind file keeps each function's own costs per line and its
/// calls' counts.
#[test]
fn callgrind_round_trip_keeps_own_costs_and_calls() {
    let dir = tempfile::tempdir().unwrap();
    for case in ["lines", "cache", "threads"] {
        let path = fixture(&format!("callgrind/{case}.callgrind"));
        let out = dir.path().join("again.callgrind");
        proftool().args(["convert", "-q"]).arg(&path).arg(&out).assert().success();
        let text = std::fs::read_to_string(&path).unwrap();
        let events: Vec<&str> =
            text.lines().find_map(|l| l.strip_prefix("events: ")).unwrap().split_whitespace().collect();
        assert_eq!(summary(&out, &events, None), summary(&path, &events, None), "{case}");
        assert_eq!(calls(&out), calls(&path), "{case}");
    }
}

#[test]
fn annotate_tables_are_parsed_by_their_columns() {
    let text = "\
--------------------------------------------------------------------------------
Ir             Dr          file:function
--------------------------------------------------------------------------------
6,056 (88.18%) 1,008 (85.64%)  work.c:leaf [work]
    2 ( 0.03%)     .           work.h:parse_input
   20 ( 0.29%)     6 ( 0.51%)  work.c:parse_input [work]
    .              .           ???:(below main) [work]

";
    let want: &[(&str, &[i64])] = &[("leaf", &[6056, 1008]), ("parse_input", &[22, 6])];
    assert_eq!(parse_annotate(text), table(want));
}

/// A whole run with `--cache-sim=yes --dump-instr=yes` (whole-program.callgrind, of tiny.c built
/// statically): its `summary:` counts 2 Ir that no cost line lists; the profile's totals are
/// callgrind_annotate's PROGRAM TOTALS all the same (whole-program.callgrind.annotate.txt, which
/// make-fixtures.sh keeps of valgrind 3.19.0's), the difference under a root of its own, said; every
/// listed function has callgrind_annotate's own totals where it is installed.
#[test]
fn a_whole_program_has_callgrind_annotates_program_totals() {
    let path = fixture("callgrind/whole-program.callgrind");
    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<&str> = text.lines().find_map(|l| l.strip_prefix("events: ")).unwrap().split_whitespace().collect();
    let annotated = std::fs::read_to_string(fixture("callgrind/whole-program.callgrind.annotate.txt")).unwrap();
    let program: Vec<i64> = annotated
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|w| w.replace(',', "").parse().unwrap())
        .collect();
    assert_eq!(program.len(), events.len(), "{annotated}");
    let (info_text, stderr) = info("callgrind/whole-program.callgrind");
    for (event, total) in events.iter().zip(&program) {
        assert!(
            info_text.contains(&format!("metric     {event} (events, count, additive): total {total}\n")),
            "{info_text}"
        );
    }
    assert!(stderr.contains("is under `(not in a listed function)`, so the totals are the summary's"), "{stderr}");
    let mut ours = summary(&path, &events, None);
    assert_eq!(ours.remove("(not in a listed function)"), Some(vec![2, 0, 0, 0, 0, 0, 0, 0, 0]));
    let Some(annotated) = callgrind_annotate(&path) else { return };
    assert_eq!(ours, annotated);
}

/// Counts compressed as positions are (`*`, `+n`, `-n` relative to the cost line before, as
/// speedscope's importer reads them; callgrind_annotate does not) and an object number never
/// defined (`cob=(8)`, which callgrind_annotate reads): compressed.callgrind, by hand, main's own
/// 5 + 5 + 6 Ir and 2 + 2 + 1 Dr, leaf's 100 + 2 Ir and 10 Dr; a relative count below 0 is refused
/// (bad/count-below-zero.callgrind).
#[test]
fn compressed_counts_and_undefined_objects_read() {
    let path = fixture("callgrind/compressed.callgrind");
    assert_eq!(summary(&path, &["Ir", "Dr"], None), table(&[("main", &[16, 5]), ("leaf", &[102, 10])]));
    let (_, stderr) = info("callgrind/compressed.callgrind");
    assert!(stderr.contains("line 17 (byte 421): 1 object number(s) used without a definition"), "{stderr}");
}

/// An event whose long name gives its unit (`event: t : Wall time (elapsed ns)`, a hand-written
/// tracer's file, fixtures/README.md) is time: callgrind_annotate's totals of the file, `work.c:work`
/// 900 and `work.c:main` 100 of 1,000, in ns.
#[test]
fn an_events_long_name_gives_its_unit() {
    let (text, _) = crate::support::binary::info("callgrind/elapsed.callgrind");
    assert!(text.contains("metric     t (time, ns, additive): total 1000\n"), "{text}");
    assert!(text.contains("  900   90.0%  work\n"), "{text}");
}

/// A function's code inlined from another file (`fi=(160) work.h` in `parse_input`, 2 Ir, beside
/// its 20 in work.c, as callgrind_annotate totals `work.h:parse_input` and `work.c:parse_input`) is
/// part of the function in the tree, not a call of it into itself: `parse_input` 22 of its own,
/// `leaf` its one callee.
#[test]
fn inlined_code_of_another_file_is_no_recursion() {
    let out = proftool().args(["tree", "-q"]).arg(fixture("callgrind/lines.callgrind")).assert().success();
    let tree = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = tree.lines().collect();
    let at = lines.iter().position(|l| l.ends_with(" parse_input")).unwrap();
    assert_eq!(lines[at].split_whitespace().take(4).collect::<Vec<_>>(), ["2435", "35.5", "22", "0.3"], "{tree}");
    assert!(lines[at + 1].ends_with(" leaf"), "{tree}");
    assert_eq!(tree.matches("parse_input").count(), 1, "{tree}");
}

/// A header fact stated more than once (cache.callgrind's five `desc:` lines) is named once where a
/// target has no place for it.
#[test]
fn a_fact_of_many_lines_is_said_dropped_once() {
    let (_, err) = run_bytes(&["convert", "-v", "--to", "pprof"], &fixture("callgrind/cache.callgrind"));
    let said =
        "pprof has no place for header facts callgrind.creator, callgrind.pid, callgrind.part, callgrind.desc: dropped";
    assert!(err.contains(said), "{err}");
}

/// What `go tool pprof -callgrind` writes (fixtures/callgrind/make-fixtures.sh) is told by its bare
/// header and read in pprof's units: `cpu(ms)` as time, 770 ms as `go tool pprof -top -unit ms`
/// totals the pprof file it came from; `inuse_space(kB)` as bytes, 4,233 kB of whole kB (pprof's
/// `-top` says 4233.94kB before its rounding of each cost to a whole kB).
#[test]
fn pprofs_callgrind_reads_in_its_units() {
    let (out, _) = info("callgrind/pprof-cpu.callgrind");
    assert!(out.contains("format     callgrind (recognised by content)"), "{out}");
    assert!(out.contains("metric     cpu (time, ms, additive): total 770\n"), "{out}");
    let (out, _) = info("callgrind/pprof-heap.callgrind");
    assert!(out.contains("metric     inuse_space (alloc, bytes, additive): total 4334592\n"), "{out}");
}
