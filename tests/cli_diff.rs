//! `proftool diff` and `proftool merge` end to end: the table, the CI gate's exit codes, the
//! differential outputs, and adding profiles up.

use crate::support::binary::{fixture, proftool, temp};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// Writes `text` to `name` in `dir`.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The JSON of `proftool diff --format json ARGS BASE NEW` and its exit code.
fn diff_json(args: &[&str], base: &Path, new: &Path) -> (serde_json::Value, i32) {
    let out = proftool().args(["diff", "--format", "json"]).args(args).arg(base).arg(new).output().unwrap();
    (serde_json::from_slice(&out.stdout).unwrap(), out.status.code().unwrap())
}

fn row<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["rows"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()
}

/// BASE and NEW as folded stacks in a new folder: `a` grows from 50 to 60 of 100, `b` shrinks.
fn a_grows_by_ten() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = temp();
    let base = file(dir.path(), "base.folded", "main;a 50\nmain;b 50\n");
    let new = file(dir.path(), "new.folded", "main;a 60\nmain;b 40\n");
    (dir, base, new)
}

#[test]
fn the_table_has_shares_changes_new_and_gone_and_counts_recursion_once() {
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    let (json, code) = diff_json(&["--no-stats"], &base, &new);
    assert_eq!(code, 0);
    // By hand: BASE 105 samples, NEW 145. render 50 of 105 and 80 of 145; fib is on its stacks three
    // times and counts once: 10 of 105 and 25 of 145.
    let close = |v: &serde_json::Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-9;
    let render = row(&json, "render");
    assert!(close(&render["base_total"], 5000.0 / 105.0) && close(&render["new_total"], 8000.0 / 145.0), "{render}");
    assert!(close(&render["total_change"], 8000.0 / 145.0 - 5000.0 / 105.0));
    let fib = row(&json, "fib");
    assert!(close(&fib["base_total"], 1000.0 / 105.0) && close(&fib["new_total"], 2500.0 / 145.0), "{fib}");
    assert_eq!(row(&json, "newthing")["status"], "new");
    assert_eq!(row(&json, "old")["status"], "gone");
    assert!(close(&row(&json, "old")["total_change"], -1000.0 / 105.0));
    // Largest change first: read and parse (-14.8), read first (its self value changed by as much,
    // parse's, 0 on both sides, not: the callee where the work is), then newthing (+10.3).
    let names: Vec<&str> = json["rows"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read", "parse", "newthing", "old", "fib", "render", "main"]);
    assert_eq!((json["base"]["total"].as_i64(), json["new"]["total"].as_i64()), (Some(105), Some(145)));
    assert_eq!(json["verdict"], "none");
    // Text: changes signed, shares not.
    let out = proftool().args(["diff", "--no-stats"]).arg(&base).arg(&new).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("newthing  new             0.0        10.3       +10.3"), "{text}");
    assert!(text.contains("-14.8"), "{text}");
}

/// `--min-abs` with a unit: a growth of exactly 10 ms (folded stacks read as milliseconds, `a`
/// from 50 to 60 of 100) meets a floor of 10ms, 10000us and 0.01s, not one of 10.01ms; bytes are
/// no time, refused with what the metric counts.
#[test]
fn the_floor_takes_time_and_bytes_in_the_metric_unit() {
    let (_dir, base, new) = a_grows_by_ten();
    let code = |floor: &str| {
        diff_json(&["--no-stats", "--folded-unit", "ms", "--threshold", "5", "--min-abs", floor], &base, &new).1
    };
    for floor in ["10ms", "10000us", "0.01s", "10", "9.99ms"] {
        assert_eq!(code(floor), 3, "{floor}: at or below the growth");
    }
    for floor in ["10.01ms", "1s"] {
        assert_eq!(code(floor), 0, "{floor}: above the growth");
    }
    let (json, _) =
        diff_json(&["--no-stats", "--folded-unit", "ms", "--threshold", "5", "--min-abs", "0.01s"], &base, &new);
    assert_eq!(json["limits"]["min_abs"], 10.0);
    let out = proftool().args(["diff", "--threshold", "5", "--min-abs", "4KiB"]).arg(&base).arg(&new).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--min-abs 4096B: an amount of bytes; BASE's metric samples counts samples"), "{err}");
    assert_ne!(out.status.code(), Some(0));
    let out =
        proftool().args(["diff", "--threshold", "5", "--min-abs", "4 parsecs"]).arg(&base).arg(&new).output().unwrap();
    assert!(String::from_utf8(out.stderr).unwrap().contains("unknown unit \"parsecs\""));
}

/// Samples of folded stacks, which state no interval, are floored in time at `--interval`: `a`
/// grows by 10 samples, 50 ms at 5 ms each (by hand), which meets a floor of 50ms and not one of
/// 51ms; without `--interval` a floor in time is refused, naming it.
#[test]
fn the_floor_takes_time_at_the_interval_given_for_samples() {
    let (_dir, base, new) = a_grows_by_ten();
    let code = |floor: &str| {
        diff_json(&["--no-stats", "--interval", "5ms", "--threshold", "5", "--min-abs", floor], &base, &new).1
    };
    assert_eq!(code("50ms"), 3, "at the growth");
    assert_eq!(code("51ms"), 0, "above the growth");
    let out = proftool().args(["diff", "--threshold", "5", "--min-abs", "50ms"]).arg(&base).arg(&new).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("BASE states no interval (give one with --interval)"), "{err}");
    // --unit shows the samples as time at it: a's 50 and 60 samples are 250 and 300 ms.
    let out =
        proftool().args(["diff", "--absolute", "--interval", "5ms", "--unit", "ms"]).arg(&base).arg(&new).output();
    let text = String::from_utf8(out.unwrap().stdout).unwrap();
    let a: Vec<&str> = text.lines().find(|l| l.starts_with("a ")).unwrap().split_whitespace().collect();
    assert_eq!(a[a.len() - 4..a.len() - 1], ["250", "300", "+50"], "{text}");
}

#[test]
fn the_gate_fails_past_the_threshold_and_the_floor_with_exit_code_3() {
    // a grows from 50 % to 60 %: +10 points exactly, and +10 samples (of 100 each).
    let (dir, base, new) = a_grows_by_ten();
    // The plain thresholds (--no-stats), as the gate was before it tested sampling noise.
    let code = |args: &[&str]| diff_json(&[&["--no-stats"], args].concat(), &base, &new).1;
    assert_eq!(code(&["--threshold", "10"]), 0, "at the threshold");
    assert_eq!(code(&["--threshold", "9.99"]), 3, "just below");
    assert_eq!(code(&["--threshold", "10.01"]), 0, "just above");
    assert_eq!(code(&["--threshold", "5", "--min-abs", "10"]), 3, "at the floor");
    assert_eq!(code(&["--threshold", "5", "--min-abs", "9.99"]), 3, "below the floor");
    assert_eq!(code(&["--threshold", "5", "--min-abs", "10.01"]), 0, "above the floor");
    // --exclusive gates self shares: main's self is 0 in both, a's self grew as its total did.
    assert_eq!(code(&["--exclusive", "--threshold", "9.99"]), 3);
    let (json, _) = diff_json(&["--no-stats", "--threshold", "9.99"], &base, &new);
    assert_eq!((&json["verdict"], &json["limits"]["threshold"]), (&"regression".into(), &9.99.into()));
    assert_eq!(row(&json, "a")["crossed"], true);
    assert_eq!(row(&json, "b")["crossed"], false);
    // An input that cannot be read is a failed run (1), not a regression.
    proftool()
        .args(["diff", "--threshold", "1"])
        .arg(&base)
        .arg(dir.path().join("missing.folded"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.folded: cannot open"));
}

#[test]
fn profiles_compare_on_a_metric_kind_both_have() {
    // A folded file has samples, a Go heap profile bytes and objects: nothing to compare, and both
    // are named.
    proftool()
        .arg("diff")
        .arg(fixture("folded/basic.folded"))
        .arg(fixture("pprof/heap.pb.gz"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("share no kind of metric to compare (BASE has: samples"))
        .stderr(predicate::str::contains("NEW has: alloc_objects (objects"));
    // A -px file's ticks are samples of its 20 ms interval: they compare with a folded file's samples.
    proftool()
        .args(["diff", "--no-stats"])
        .arg(fixture("folded/basic.folded"))
        .arg(fixture("ghc-px/notes-example.px"))
        .assert()
        .success()
        .stderr(predicate::str::contains("NEW's ticks (ticks) taken as samples"));
    // A BR timed file and a Dyalog tree meet on time, each in its unit.
    let out =
        proftool().arg("diff").arg(fixture("br/timed.br")).arg(fixture("dyalog-xml/v1.37-stats-tree.xml")).output();
    let text = String::from_utf8(out.unwrap().stdout).unwrap();
    assert!(text.starts_with("BASE ") && text.contains("time (time), total 1000000004300 ns"), "{text}");
    assert!(text.contains("time (time), total 30.506 ms"), "{text}");
}

#[test]
fn differential_outputs_are_the_ones_inferno_reads() {
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    let expected = std::fs::read_to_string(fixture("cli/diff.inferno-diff-folded")).unwrap();
    // --no-stats and no --threshold: no gate, so that the run succeeds whatever grew.
    proftool()
        .args(["diff", "--no-stats", "--to", "folded", "-"])
        .arg(&base)
        .arg(&new)
        .assert()
        .success()
        .stdout(expected);
    let dir = temp();
    let (svg, negated) = (dir.path().join("d.svg"), dir.path().join("n.svg"));
    proftool().args(["diff", "--no-stats", "--to", "svg"]).arg(&svg).arg(&base).arg(&new).assert().success();
    let negate = ["diff", "--no-stats", "--negate", "--to", "svg"];
    proftool().args(negate).arg(&negated).arg(&base).arg(&new).assert().success();
    let (svg, negated) = (std::fs::read_to_string(svg).unwrap(), std::fs::read_to_string(negated).unwrap());
    // Widths from NEW (145 samples), from BASE with --negate (105); render grew either way (red).
    assert!(svg.contains("<title>main (145 samples, 100.00%; 0.00%)"), "{svg}");
    assert!(negated.contains("<title>main (105 samples, 100.00%; 0.00%)"), "{negated}");
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    proftool().args(["diff", "--to", "png", "x"]).arg(&base).arg(&new).assert().code(2);
}

#[test]
fn the_pprof_diff_is_new_minus_base_as_go_tool_pprof_writes_it() {
    use prost::Message;
    use std::io::Read;
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    let dir = temp();
    let out = dir.path().join("diff.pb.gz");
    proftool().args(["diff", "--no-stats", "--to", "pprof"]).arg(&out).arg(&base).arg(&new).assert().success();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap()).read_to_end(&mut bytes).unwrap();
    let p = crate::support::pprof_proto::Profile::decode(bytes.as_slice()).unwrap();
    let s = |i: i64| p.string_table[i as usize].as_str();
    // NEW's samples as they are (145 in all), BASE's negated (105) and labelled pprof::base=true.
    let (mut ours, mut theirs) = (0, 0);
    for sample in &p.sample {
        let labels: Vec<(&str, &str)> = sample.label.iter().map(|l| (s(l.key), s(l.str))).collect();
        match labels.as_slice() {
            [] => ours += sample.value[0],
            [("pprof::base", "true")] => theirs += sample.value[0],
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ours, theirs), (145, -105));
    // pprof itself shows the difference against BASE's total, where go is installed.
    if std::process::Command::new("go").arg("version").output().is_err() {
        eprintln!("SKIPPED: go tool pprof not installed");
        return;
    }
    let top = std::process::Command::new("go").args(["tool", "pprof", "-top"]).arg(&out).output().unwrap();
    let top = String::from_utf8_lossy(&top.stdout);
    assert!(top.contains("of 105 total"), "{top}");
    // render 80 - 50, fib 25 - 10 (counted once), read 20 - 30.
    for (name, flat) in [("render", "30"), ("fib", "15"), ("read", "-10"), ("old", "-10")] {
        assert!(top.lines().any(|l| l.trim_start().starts_with(flat) && l.trim_end().ends_with(name)), "{name}: {top}");
    }
}

#[test]
fn merge_adds_the_inputs_and_keeps_threads_apart() {
    let dir = temp();
    let out = dir.path().join("all.folded");
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    proftool().arg("merge").arg(&base).arg(&new).arg("-o").arg(&out).assert().success();
    // By hand: the two files' counts added stack by stack (105 + 145 = 250).
    let merged = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        merged,
        "main 10\nmain;parse;read 50\nmain;render 130\nmain;old 10\nmain;fib;fib;fib 35\nmain;newthing 15\n"
    );
    // Sampler threads of two runs stay apart unless told, and add up when told.
    let sampler = fixture("sampler/two-threads.sampler");
    let apart = proftool()
        .args(["merge", "--sampler-order", "leaf-first", "--to", "folded", "-o", "-"])
        .arg(&sampler)
        .arg(&sampler)
        .output()
        .unwrap();
    let apart = String::from_utf8(apart.stdout).unwrap();
    assert!(apart.contains("Thread_0001 ["), "{apart}");
    let together = proftool()
        .args(["merge", "--merge-threads", "--sampler-order", "leaf-first", "--to", "folded", "-o", "-"])
        .arg(&sampler)
        .arg(&sampler)
        .output()
        .unwrap();
    let together = String::from_utf8(together.stdout).unwrap();
    assert!(together.starts_with("Thread_0001;") && !together.contains('['), "{together}");
}

#[test]
fn empty_and_all_zero_profiles_are_said_plainly() {
    let dir = temp();
    let (empty, zero) = (file(dir.path(), "e.folded", ""), file(dir.path(), "z.folded", "a 0\n"));
    // An empty folded file holds no stack: refused, as every empty input is.
    proftool().args(["diff", "-q"]).arg(&empty).arg(&zero).assert().code(1).stderr(predicate::str::contains(
        "e.folded: folded: line 1 (byte 0): expected a stack, a space and a count (a;b;c 12), found no stack",
    ));
    let out = proftool().args(["diff", "-q"]).arg(&zero).arg(&zero).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("total 0 samples") && !text.contains("-0"), "{text}");
    let svg = dir.path().join("z.svg");
    proftool()
        .args(["diff", "-q", "--to", "svg"])
        .arg(&svg)
        .arg(&zero)
        .arg(&zero)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("both profiles' are all 0"));
    assert!(!svg.exists());
}

#[test]
fn merge_refuses_what_does_not_add_up_and_writes_nothing() {
    let dir = temp();
    let out = dir.path().join("all.folded");
    proftool()
        .arg("merge")
        .arg(fixture("folded/basic.folded"))
        .arg(fixture("heapprofile/work.heapprofile"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot merge"))
        .stderr(predicate::str::contains("they share no metric"));
    assert!(!out.exists());
    proftool()
        .arg("merge")
        .arg(fixture("folded/basic.folded"))
        .arg(dir.path().join("missing.folded"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.folded: cannot open"));
    assert!(!out.exists());
    proftool().args(["merge", "-", "-", "-o"]).arg(&out).assert().code(2);
}

/// The gate on sampling noise alone (`--run-floor 0`) on the fixture pair: only `newthing` is both
/// clear and large. By hand: newthing 0 of 105 → 15 of 145; pooled 15/250 = 0.06, error √(0.06 ×
/// 0.94 × (1/105 + 1/145)) = 0.030432, z = (15/145) / 0.030432 = 3.3993, p = 1 − Φ(3.3993) =
/// 3.38e-4; Benjamini–Hochberg over the 6 functions whose share in NEW is above a point (not `old`,
/// gone) lets it through at rank 1 (3.38e-4 ≤ 0.05/6 = 0.00833). fib (10/105 → 25/145, +7.7
/// points) is large but its p (0.041) is above 2 × 0.05/6: not clear.
#[test]
fn the_default_gate_fails_what_is_clear_and_large_and_says_what_is_not_clear() {
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    let (json, code) = diff_json(&["--run-floor", "0"], &base, &new);
    assert_eq!(code, 3);
    assert_eq!(json["gate"]["flagged"], serde_json::json!(["newthing"]));
    assert_eq!(json["gate"]["tested"], 6);
    let p = json["gate"]["p"]["newthing"].as_f64().unwrap();
    assert!((p - 3.38e-4).abs() < 0.01e-4, "{p}");
    assert!((json["gate"]["p"]["fib"].as_f64().unwrap() - 0.0413).abs() < 0.0005, "{json}");
    assert_eq!((json["limits"]["threshold"].as_f64(), json["limits"]["relative"].as_f64()), (Some(1.0), Some(0.1)));
    let out = proftool().args(["diff", "--run-floor", "0"]).arg(&base).arg(&new).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Gate (samples): a function fails where a one-sided test against the sampling noise of its samples, runs assumed to vary by 0 %"), "{text}");
    assert!(text.contains("* newthing: total 0.0 % → 10.3 % (+10.3 points"), "{text}");
    // Its self value, the other quantity, beside: 15 of 145 on top of the stack, by hand.
    assert!(text.contains("p = 3.38e-4 (z, sampling and the between-run floor)); self 0.0 % → 10.3 %\n"), "{text}");
    assert!(text.contains("grew most on the path main;newthing (+10.3 points)"), "{text}");
    assert!(text.contains("Not clear: 2 function(s) grew past the limits within the noise (fib, render)"), "{text}");
    assert!(text.contains("New: newthing\nGone: old"), "{text}");
    // The default floor, 30 % of the pooled share of 6 %, adds (0.018)² a side: newthing, new at
    // 10.3 %, stays clear of it, but one run a side fails no growth under 15 points (single runs
    // of a JIT move 10.7 points between them): inconclusive, naming it. From 0 to 15 points fails.
    let (json, code) = diff_json(&[], &base, &new);
    assert_eq!((code, &json["verdict"]), (0, &serde_json::json!("inconclusive")), "{json}");
    assert_eq!(json["gate"]["inconclusive"], serde_json::json!(["newthing"]));
    let dir = temp();
    let grown = file(dir.path(), "grown.folded", "main;a 85\nmain;newthing 15\n");
    let less = file(dir.path(), "less.folded", "main;a 86\nmain;newthing 14\n");
    let before = file(dir.path(), "before.folded", "main;a 100\n");
    let (json, code) = diff_json(&[], &before, &grown);
    assert_eq!((code, &json["gate"]["flagged"]), (3, &serde_json::json!(["newthing"])), "{json}");
    let (json, code) = diff_json(&[], &before, &less);
    assert_eq!((code, &json["verdict"]), (0, &serde_json::json!("inconclusive")), "{json}");
}

/// On sampling noise alone (`--run-floor 0`), a growth of 10 points on 100 samples a side is noise
/// to the test (z = 0.1 / √(0.55 × 0.45 × 2/100) = 1.42, p = 0.078); on 1,000 samples a side it is
/// not (z = 4.49, p = 3.5e-6).
#[test]
fn the_same_growth_fails_on_many_samples_and_not_on_few() {
    let dir = temp();
    let few = [
        file(dir.path(), "a.folded", "main;a 50\nmain;b 50\n"),
        file(dir.path(), "b.folded", "main;a 60\nmain;b 40\n"),
    ];
    let many = [
        file(dir.path(), "c.folded", "main;a 500\nmain;b 500\n"),
        file(dir.path(), "d.folded", "main;a 600\nmain;b 400\n"),
    ];
    let (json, code) = diff_json(&["--run-floor", "0"], &few[0], &few[1]);
    assert_eq!((code, &json["verdict"]), (0, &"pass".into()));
    assert!((json["gate"]["p"]["a"].as_f64().unwrap() - 0.078).abs() < 0.001, "{json}");
    let (json, code) = diff_json(&["--run-floor", "0"], &many[0], &many[1]);
    assert_eq!((code, &json["gate"]["flagged"]), (3, &serde_json::json!(["a"])));
    // A Dyalog report's times are measured, not sampled: the limits alone, said so.
    let tree = fixture("dyalog-xml/v1.37-stats-tree.xml");
    let out = proftool().arg("diff").arg(&tree).arg(&tree).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Gate (time, measured: no sampling noise to test)"), "{text}");
}

/// Several runs a side: `--base` and `--new`. Three runs of a at 50, 52, 48 % against 60, 62, 58 %
/// (100 samples each), on sampling noise alone (`--run-floor 0`): the shares' spread (variance
/// 0.0004) is below sampling's (0.55 × 0.45 / 100 = 0.002475), which the moderated variance keeps,
/// so the statistic is the sampling one on 300 a side: t = 0.1 / √(0.002475 × 2/3) = 2.462, on 12
/// degrees of freedom (4 + 2 a side): p between 0.01 and 0.025 (t tables: 2.681 and 2.179), below
/// 0.05/3 for the three functions tested: a regression.
#[test]
fn several_runs_a_side_are_tested_together() {
    let dir = temp();
    let run = |name: &str, a: u32| file(dir.path(), name, &format!("main;a {a}\nmain;b {}\n", 100 - a));
    let base = [run("b1.folded", 50), run("b2.folded", 52), run("b3.folded", 48)];
    let new = [run("n1.folded", 60), run("n2.folded", 62), run("n3.folded", 58)];
    let out = proftool()
        .args(["diff", "--format", "json", "--run-floor", "0", "--base"])
        .args(&base)
        .arg("--new")
        .args(&new)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(3), "{json}");
    assert_eq!((json["base"]["runs"].as_u64(), json["new"]["runs"].as_u64()), (Some(3), Some(3)));
    let p = json["gate"]["p"]["a"].as_f64().unwrap();
    assert!(p > 0.01 && p < 0.025 && p < 0.05 / 3.0, "{json}");
    assert!((json["gate"]["tests"]["a"]["statistic"].as_f64().unwrap() - 2.462).abs() < 1e-3, "{json}");
    assert!(json["base"]["file"].as_str().unwrap().ends_with("b1.folded and 2 more (3 runs)"), "{json}");
    // The table shows the runs merged: a is 150 of 300 in BASE.
    assert!((row(&json, "a")["base_total"].as_f64().unwrap() - 50.0).abs() < 1e-9);
    // BASE positional and --base together are refused.
    proftool().arg("diff").arg(&base[0]).args(["--base"]).arg(&base[1]).arg("--new").arg(&new[0]).assert().code(2);
}

/// The JUnit verdict of names holding every C0 control character is well-formed XML: those XML
/// cannot carry are written `\u{1}`, said once with how many.
#[test]
fn control_characters_in_names_leave_the_junit_verdict_well_formed() {
    let dir = temp();
    let names = crate::support::control_character_names();
    let (base, new) = (dir.path().join("base.speedscope.json"), dir.path().join("new.speedscope.json"));
    std::fs::write(&base, &names).unwrap();
    std::fs::write(&new, &names).unwrap();
    let out = proftool().args(["diff", "--format", "junit"]).arg(&base).arg(&new).output().unwrap();
    let (junit, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    crate::support::well_formed_xml(&junit).unwrap();
    assert!(junit.contains(r#"<testcase classname="proftool.diff" name="f\u{1b}"/>"#), "{junit}");
    assert!(stderr.contains("junit: 29 name(s) hold control characters that XML 1.0 cannot carry"), "{stderr}");
}

/// A side read from stdin is `<stdin>` in the heading and the JSON, as every message names it.
#[test]
fn stdin_is_named_stdin() {
    let path = fixture("perf/work.perf");
    let bytes = std::fs::read(&path).unwrap();
    let diff = |format: &str| {
        let out = proftool().args(["diff", "--format", format, "-"]).arg(&path).write_stdin(bytes.clone()).assert();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let text = diff("text");
    assert!(text.starts_with("BASE <stdin>: "), "{text}");
    let json: serde_json::Value = serde_json::from_str(&diff("json")).unwrap();
    assert_eq!(json["base"]["file"], "<stdin>");
}

/// Rows that changed alike are ordered callee first: a caller whose growth is all its only callee's
/// (`wrap`, whose every sample is in `inner`, both of no self value) after it, the deeper; rows of
/// another change by their change.
#[test]
fn of_rows_that_changed_alike_the_callee_comes_first() {
    let dir = temp();
    let base = file(dir.path(), "base.folded", "main;wrap;inner;leaf 10\nmain;other 90\n");
    let new = file(dir.path(), "new.folded", "main;wrap;inner;leaf 30\nmain;other 70\n");
    let (json, _) = diff_json(&["--no-stats"], &base, &new);
    let names: Vec<&str> = json["rows"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    // leaf: +20 points total and self; inner and wrap +20 total, 0 self; other -20 both.
    assert_eq!(names, ["leaf", "other", "inner", "wrap", "main"]);
}

/// Two perf recordings merge without their timelines (each run's clock is its own), said per
/// input with its number of samples (threads.perf's 26 records).
#[test]
fn merge_says_it_drops_the_samples_times() {
    let perf = fixture("perf/threads.perf");
    let done = proftool().args(["merge", "--to", "folded", "-o", "-"]).arg(&perf).arg(&perf).output().unwrap();
    assert!(done.status.success());
    let stderr = String::from_utf8(done.stderr).unwrap();
    assert!(stderr.contains("the times of its 26 samples are dropped"), "{stderr}");
}

/// A growth past the limits that the noise explains passes, and the verdict says so rather than
/// "no function grew past the limits" (once said over a function that had, and with no "Not
/// clear" line where no run count would decide it). By hand: `a` 10 of 100 samples, then 12: +2
/// points and +20 %, past both default limits (1 point, 10 %); the two-proportion test's p, about
/// 0.38, is far from clear.
#[test]
fn a_pass_says_what_grew_past_the_limits_within_the_noise() {
    let dir = temp();
    let base = file(dir.path(), "base.folded", "main;a 10\nmain;b 90\n");
    let new = file(dir.path(), "new.folded", "main;a 12\nmain;b 88\n");
    let out = proftool().arg("diff").arg(&base).arg(&new).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let pass = "Pass: no function's total share grew past the limits beyond the noise; 1 grew past them within it";
    assert!(text.contains(pass), "{text}");
    assert!(text.contains("Not clear: 1 function(s) grew past the limits within the noise (a)"), "{text}");
}
