//! What each number means, whatever the source: counts of things are not samples, every command
//! weighs a profile by the same metric, time and ticks convert at an interval (issue 25), and show
//! in a unit of time only where the profile states its interval (issue 34 §14). The expected
//! totals are `go tool pprof`'s on the same fixtures (`-top`, `-sample_index`).

use crate::support::binary::{fixture, proftool, temp};
use predicates::prelude::*;

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

/// `--metric` is looked up once, in the profile read, whatever the command and the target: a name
/// the profile lacks stops every one of them with its metrics listed, a target that keeps every
/// metric too (it was ignored there before issue 36), and nothing is written.
#[test]
fn a_metric_the_profile_lacks_stops_every_command_and_target() {
    let dir = temp();
    let listed = "--metric bogus: the profile has no such metric (it has: samples, cpu)";
    for target in ["folded", "speedscope", "pprof", "sampler"] {
        let out = dir.path().join(format!("cpu.{target}"));
        proftool()
            .args(["convert", "--metric", "bogus", "--to", target])
            .arg(fixture("pprof/cpu.pb.gz"))
            .arg(&out)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(listed));
        assert!(!out.exists(), "{target}: nothing is written");
    }
    for report in ["summary", "tree", "data"] {
        proftool()
            .args([report, "--metric", "bogus"])
            .arg(fixture("pprof/cpu.pb.gz"))
            .assert()
            .code(1)
            .stderr(predicate::str::contains(listed));
    }
    proftool()
        .args(["diff", "--metric", "bogus"])
        .arg(fixture("pprof/cpu.pb.gz"))
        .arg(fixture("pprof/cpu.pb.gz"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--metric bogus: both profiles must have it"));
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
        .stdout("main.br:50.1 1000000\n");
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

#[test]
fn a_ghc_time_report_and_a_ticks_report_compare_and_merge_as_time() {
    // GHC's reports of one program (fixtures/ghc-prof, make-fixtures.sh): -p gives time (its
    // header's 51 ms, the rows' percentages of it added up), -P ticks (58 at its 1 ms interval),
    // -pj ticks (102 at 1 ms).
    let (percent, ticks) = (fixture("ghc-prof/work-percent.prof"), fixture("ghc-prof/work-ticks.prof"));
    for metric in [None, Some("time"), Some("ticks")] {
        // Two runs of one program: no gate (--no-stats, no --threshold).
        let out = proftool()
            .args(["diff", "--no-stats"])
            .args(metric.map(|m| ["--metric", m]).iter().flatten())
            .arg(&percent)
            .arg(&ticks)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{metric:?}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            text.contains("work-percent.prof: time (time), total 51") && text.contains("time (time), total 58 ms"),
            "{metric:?}: {text}"
        );
        assert!(stderr.contains("NEW's ticks (ticks) taken as time in ms at an interval of 1ms"), "{stderr}");
    }
    let dir = temp();
    let merged = dir.path().join("all.speedscope.json");
    proftool()
        .args(["merge", "-o"])
        .arg(&merged)
        .arg(&percent)
        .arg(&ticks)
        .arg(fixture("ghc-json/work.prof.json"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "ticks (ticks) taken as time in ms at an interval of 1ms, as the merged time",
        ));
    // 51 + 58 + 102 ms.
    assert!(info(&merged).contains("metric     time (time, ms, additive): total 211\n"), "{}", info(&merged));
}

#[test]
fn merge_turns_samples_into_time_at_the_interval_given() {
    // py-spy's 260 ms, and a folded file's 70 samples at 5 ms: 610 ms.
    let dir = temp();
    let merged = dir.path().join("all.speedscope.json");
    proftool()
        .args(["merge", "--interval", "5ms", "-o"])
        .arg(&merged)
        .arg(fixture("speedscope/py-spy.speedscope.json"))
        .arg(fixture("folded/basic.folded"))
        .assert()
        .success()
        .stderr(predicate::str::contains("samples (samples) taken as time in ms at an interval of 5ms"));
    assert!(info(&merged).contains("metric     time (time, ms, additive): total 610\n"), "{}", info(&merged));
}

#[test]
fn the_gate_passes_two_runs_of_one_program_whose_threads_are_named_apart() {
    let (run1, run2) = (fixture("cli/py-spy-run1.speedscope.json"), fixture("cli/py-spy-run2.speedscope.json"));
    proftool()
        .args(["diff", "--threshold", "5"])
        .arg(&run1)
        .arg(&run2)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Thread 20").not())
        .stderr(predicate::str::contains("compared as if merged (--by-thread compares them by name)"));
    // By name, the old threads are gone and the new ones new, some 50 points each: they are threads,
    // reported and not gated; with --gate-pseudo they fail (exit 3).
    proftool().args(["diff", "--threshold", "5", "--by-thread"]).arg(&run1).arg(&run2).assert().code(0);
    let by_thread = ["diff", "--threshold", "5", "--by-thread", "--gate-pseudo", "--run-floor", "0"];
    proftool().args(by_thread).arg(&run1).arg(&run2).assert().code(3);
    // A Sampler file made from a LispWorks tree is the same run: threads and processes meet.
    let dir = temp();
    let sampler = dir.path().join("processes.sampler");
    let tree = fixture("lispworks/processes.tree");
    proftool().args(["convert", "-q"]).arg(&tree).arg(&sampler).assert().success();
    proftool().args(["diff", "--threshold", "0.01"]).arg(&tree).arg(&sampler).assert().code(0);
}

#[test]
fn the_gates_limits_are_finite_and_not_negative() {
    let (base, new) = (fixture("cli/diff-base.folded"), fixture("cli/diff-new.folded"));
    for limit in ["nan", "inf", "-1", "-0.5", "five"] {
        for option in ["--threshold", "--min-abs"] {
            let mut cmd = proftool();
            cmd.arg("diff").arg(format!("{option}={limit}"));
            if option == "--min-abs" {
                cmd.args(["--threshold", "1"]);
            }
            cmd.arg(&base).arg(&new).assert().code(2).stderr(predicate::str::contains(option));
        }
    }
}

#[test]
fn every_numeric_option_refuses_what_it_cannot_mean() {
    let tree = fixture("lispworks/processes.tree");
    // Given as the option's own value (`--pct -1`, not `-- -1`): the error names the option.
    for (command, option, values) in [
        ("summary", "--pct", &["nan", "inf", "-1"][..]),
        ("tree", "--min-pct", &["nan", "inf", "-1"][..]),
        ("summary", "--bias", &["nan", "-0.5"][..]),
        ("diff", "--threshold", &["-2"][..]),
        ("summary", "--decimal", &["65536", "18", "-1"][..]),
        ("tree", "--decimal", &["65536"][..]),
        ("calls", "--decimal", &["65536"][..]),
    ] {
        for value in values {
            let mut cmd = proftool();
            cmd.args([command, option, value]).arg(&tree);
            if command == "diff" {
                cmd.arg(&tree);
            }
            let out = cmd.output().unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(2), "{command} {option} {value}: {stderr}");
            assert!(stderr.contains(&format!("invalid value '{value}' for '{option}")), "{stderr}");
        }
    }
    // The most decimals a double holds still work.
    proftool().args(["summary", "--decimal", "17"]).arg(&tree).assert().success();
}

#[test]
fn a_go_cpu_diff_compares_cpu_time_and_writes_it_as_go_tool_pprof_does() {
    let dir = temp();
    let out = dir.path().join("diff.pb.gz");
    proftool()
        .args(["diff", "--no-stats", "--to", "pprof"])
        .arg(&out)
        .arg(fixture("pprof/cpu.pb.gz"))
        .arg(fixture("cli/insert.pb.gz"))
        .assert()
        .success()
        .stdout(predicate::str::contains("BASE ").and(predicate::str::contains(": cpu (time), total")));
    assert!(info(&out).contains("metric     cpu (time, ns, additive)"), "{}", info(&out));
}

#[test]
fn a_missing_new_stops_the_diff_before_base_is_read() {
    // BASE's reading warns (a pprof label); a NEW that cannot be opened says so alone.
    proftool()
        .arg("diff")
        .arg(fixture("pprof/cpu.pb.gz"))
        .arg(fixture("pprof/missing.pb.gz"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.pb.gz: cannot open").and(predicate::str::contains("warning").not()));
}

/// `data` totals the metric the report is of, in its own unit: the file's header says
/// `(58 ticks @ 1000 us, 1 processor)`, and its bytes column is no reason to print `58 B`.
#[test]
fn data_totals_ticks_as_ticks_beside_a_bytes_column() {
    let out = proftool().args(["data", "-q"]).arg(fixture("ghc-prof/work-ticks.prof")).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.starts_with("Total: 58 ticks\n"), "{out}");
    assert!(out.lines().nth(2).is_some_and(|l| l.contains("inc ticks") && l.contains("inc MiB")), "{out}");
}

/// Issue 34 §14: `--unit ms` shows a ticks profile in milliseconds where its header states the
/// interval: work-ticks.prof says `(58 ticks @ 1000 us, 1 processor)`, so by hand its 58 ticks
/// are 58 ms (58,000 us; 0.058 s, shown as the header's own `0.06 secs`), and `tally`'s individual
/// 8 ticks (13.8 % of 58) 8 ms, its inherited 11 (19.0 %) 11 ms. Without --unit ticks stay ticks;
/// bytes never turn into time.
#[test]
fn unit_ms_shows_ticks_at_the_stated_interval() {
    let prof = fixture("ghc-prof/work-ticks.prof");
    let summary = |extra: &[&str]| {
        let out = proftool().args(["summary", "-q", "--wide"]).args(extra).arg(&prof).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let in_ms = summary(&["--unit", "ms"]);
    assert!(in_ms.starts_with("Total: 58 ms\n"), "{in_ms}");
    let heading: Vec<&str> = in_ms.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(heading, ["name", "self", "ms", "self", "%", "total", "ms", "total", "%", "calls"]);
    let tally: Vec<&str> = in_ms.lines().find(|l| l.starts_with("Main.tally ")).unwrap().split_whitespace().collect();
    assert_eq!(tally[..5], ["Main.tally", "8", "13.8", "11", "19.0"]);
    assert!(summary(&["--unit", "us"]).starts_with("Total: 58000 us\n"));
    assert!(summary(&["--unit", "s"]).starts_with("Total: 0.06 s\n"));
    assert!(summary(&[]).starts_with("Total: 58 ticks\n"));
    let out = proftool().args(["summary", "--metric", "alloc", "--unit", "ms"]).arg(&prof).assert().code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("--unit ms: alloc is in bytes"), "{stderr}");
}

/// Issue 34 §14: samples of a profile that states no interval (a LispWorks tree) do not turn into
/// time: `--unit ms` is refused, saying why, and CSV is refused alike.
#[test]
fn unit_ms_is_refused_without_an_interval() {
    for format in ["text", "csv"] {
        let out = proftool()
            .args(["summary", "--unit", "ms", "--format", format])
            .arg(fixture("lispworks/processes.tree"))
            .assert()
            .code(1);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains("--unit ms: the profile does not state its interval, so its samples"), "{stderr}");
        assert!(stderr.contains("give it with --interval"), "{stderr}");
    }
}

/// A profile that states no interval (folded stacks) is given one with `--interval`, as `convert`
/// takes it: 70 samples of 10 ms are 700 ms, `draw text`'s 40 are 400 ms (worked by hand from the
/// fixture's counts); `tree` and `calls` show it alike.
#[test]
fn interval_gives_samples_their_time_where_the_profile_states_none() {
    let folded = fixture("folded/basic.folded");
    let report = |args: &[&str]| {
        let out = proftool().args(args).arg("--wide").arg(&folded).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let summary = report(&["summary", "--unit", "ms", "--interval", "10ms"]);
    assert!(summary.starts_with("Total: 700 ms\n"), "{summary}");
    let draw: Vec<&str> = summary.lines().find(|l| l.starts_with("draw text ")).unwrap().split_whitespace().collect();
    assert_eq!(draw[2..6], ["400", "57.1", "400", "57.1"]);
    assert!(report(&["tree", "--unit", "s", "--interval", "10ms"]).starts_with("Total: 0.70 s\n"));
    let calls = report(&["calls", "--fn", "parse", "--unit", "us", "--interval", "250us"]);
    assert!(calls.contains("5750"), "parse's 23 samples of 250 us: {calls}");
    // Without --unit the counts stay samples.
    assert!(report(&["summary", "--interval", "10ms"]).starts_with("Total: 70 samples\n"));
}

/// A profile's own interval comes first: GHC's 1 ms ticks stay 1 ms with `--interval 5ms`, said on
/// stderr (the fixture's 58 ticks, as `unit_ms_shows_ticks_at_the_stated_interval`).
#[test]
fn interval_does_not_relabel_the_ticks_of_a_stated_one() {
    let out = proftool()
        .args(["summary", "--unit", "ms", "--interval", "5ms"])
        .arg(fixture("ghc-prof/work-ticks.prof"))
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.starts_with("Total: 58 ms\n"), "{stdout}");
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("the profile states its interval, 1ms: its samples or ticks were taken at it"), "{stderr}");
}
