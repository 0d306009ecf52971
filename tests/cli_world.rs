//! The `proftool` binary on the rest of the world's profiles: Linux `perf script` text (against
//! `inferno-collapse-perf` where it is installed).

use crate::support::binary::*;

/// Folded lines, sorted: inferno writes its stacks in another order.
fn sorted(folded: &str) -> Vec<String> {
    let mut lines: Vec<String> = folded.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// The stacks of `edge.perf` as inferno-collapse-perf 0.12.8 collapses it with `--tid` (its output,
/// checked line by line against the file): the first event (`cycles`) only, weighed by its periods;
/// a frame in parentheses and a sample without frames dropped; an empty symbol as a space.
#[test]
fn perf_script_reads_as_inferno_collapses_it() {
    let (out, _) = run(&["convert", "-q", "--perf-tid", "--to", "folded"], &fixture("perf/edge.perf"));
    let expected = [
        "V8_WorkerThread-24636/25607; ;[libc.so.6];v8::internal::Foo 260000",
        "false-?/64414;[unknown] 34467",
        // The java sample is of another event (`instructions`): 0 of cycles, a line inferno leaves out.
        "java-12688/12764;net/http.(*Client).Do;org/mozilla/Context:::call;org/mozilla/Inner:::run_[i] 0",
        "swapper-?/0;native_safe_halt 100000",
    ];
    assert_eq!(sorted(&out), expected);
    // The other event is a metric of its own.
    let (out, _) = run(&["convert", "-q", "--metric", "instructions", "--to", "folded"], &fixture("perf/edge.perf"));
    assert!(out.contains("java;net/http.(*Client).Do;org/mozilla/Context:::call;org/mozilla/Inner:::run_[i] 500\n"));
}

/// Every real recording collapses to the same stacks and weights as `inferno-collapse-perf` (with
/// `--pid` and `--tid` as `--perf-pid` and `--perf-tid`), where inferno is installed. inferno misses
/// a period that two spaces separate from its event (`250000  cpu-clock:`, as perf pads events of
/// a file with two) and counts 1 per sample there: the samples metric of that event is compared.
#[test]
fn perf_script_agrees_with_inferno_collapse_perf() {
    let inferno = std::process::Command::new("inferno-collapse-perf").arg("--help").output();
    if !inferno.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: inferno-collapse-perf not found (cargo install inferno)");
        return;
    }
    for (file, metric) in [
        ("work.perf", "cpu-clock"),
        ("pid-cpu.perf", "cpu-clock"),
        ("two-events.perf", "cpu-clock samples"),
        ("edge.perf", "cycles"),
    ] {
        for (ours, theirs) in [(None, None), (Some("--perf-pid"), Some("--pid")), (Some("--perf-tid"), Some("--tid"))] {
            let path = fixture(&format!("perf/{file}"));
            let mut args = vec!["convert", "-q", "--metric", metric, "--to", "folded"];
            args.extend(ours);
            let (out, _) = run(&args, &path);
            let mut command = std::process::Command::new("inferno-collapse-perf");
            command.args(theirs).arg(&path);
            let expected = String::from_utf8(command.output().unwrap().stdout).unwrap();
            // inferno writes no line for a stack of another event; proftool writes it with 0.
            let ours: Vec<String> = sorted(&out).into_iter().filter(|l| !l.ends_with(" 0")).collect();
            assert_eq!(ours, sorted(&expected), "{file} {ours:?}");
        }
    }
}
