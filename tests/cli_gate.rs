//! `diff`'s default gate on real runs of one program (fixtures/gate, made by make-fixtures.sh with
//! perf, node --cpu-prof, py-spy and Go's runtime/pprof): runs of the same program pass it, in
//! every order; runs whose render does twice the work fail it, with one run a side and with three.

use crate::support::binary::{fixture, proftool};

/// The exit code of `proftool diff ARGS`.
fn gate(args: &[String]) -> i32 {
    proftool().arg("diff").args(args).output().unwrap().status.code().unwrap()
}

fn runs(tool: &str, ext: &str, numbers: &[u32]) -> Vec<String> {
    numbers.iter().map(|i| fixture(&format!("gate/{tool}-{i}.{ext}")).display().to_string()).collect()
}

/// Every ordered pair of six runs of one program: 30 comparisons a profiler, none a regression.
#[test]
fn runs_of_one_program_pass_the_default_gate_in_every_order() {
    for (tool, ext) in [("perf", "perf.gz"), ("node", "cpuprofile")] {
        let all = runs(tool, ext, &[1, 2, 3, 4, 5, 6]);
        for (i, base) in all.iter().enumerate() {
            for (j, new) in all.iter().enumerate().filter(|(j, _)| *j != i) {
                assert_eq!(gate(&[base.clone(), new.clone()]), 0, "{tool}: run {} against run {}", i + 1, j + 1);
            }
        }
    }
    let pyspy = runs("pyspy", "folded", &[1, 2]);
    assert_eq!(gate(&pyspy), 0);
    assert_eq!(gate(&[pyspy[1].clone(), pyspy[0].clone()]), 0);
    // The plain threshold of the README before the test fails some of the same pairs: py-spy's
    // two runs differ by more than 2 points.
    assert_eq!(gate(&[&["--no-stats".into(), "--threshold".into(), "2".into()], &pyspy[..]].concat()), 3);
}

/// Go's runtime preempts in bursts (runtime.asyncPreempt, 0.6 % of one run and 3.4 % of another):
/// a run-level swing that one run a side cannot tell from a regression, and three runs a side weigh.
#[test]
fn three_runs_a_side_weigh_what_changes_from_run_to_run() {
    let go = |numbers: &[u32]| runs("go", "pb.gz", numbers);
    assert_eq!(gate(&[go(&[2])[0].clone(), go(&[1])[0].clone()]), 3, "one run a side");
    let three = |base: &[u32], new: &[u32]| [vec!["--base".into()], go(base), vec!["--new".into()], go(new)].concat();
    assert_eq!(gate(&three(&[1, 2, 3], &[4, 5, 6])), 0);
    assert_eq!(gate(&three(&[4, 5, 6], &[1, 2, 3])), 0);
}

/// render doing twice the work (about 30 % of the run to 46 %) fails the gate: perf with one and
/// three runs a side, node with one.
#[test]
fn a_function_doing_twice_the_work_fails_the_default_gate() {
    let perf = |numbers: &[u32]| runs("perf", "perf.gz", numbers);
    let slow = |numbers: &[u32]| runs("perf-slow", "perf.gz", numbers);
    let out = proftool().args(["diff", "--format", "json"]).args(perf(&[1])).args(slow(&[1])).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((out.status.code(), &json["gate"]["flagged"]), (Some(3), &serde_json::json!(["render"])));
    let three = [vec!["--base".into()], perf(&[1, 2, 3]), vec!["--new".into()], slow(&[1, 2, 3])].concat();
    assert_eq!(gate(&three), 3);
    let node = runs("node", "cpuprofile", &[1]);
    let node_slow = runs("node-slow", "cpuprofile", &[1]);
    assert_eq!(gate(&[node[0].clone(), node_slow[0].clone()]), 3);
}
