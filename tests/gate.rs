//! The gate of `diff` against sampling noise, by simulation with a fixed seed
//! (`tests/support/gate_simulation.rs`; `bench/gate.sh` runs 1,000 pairs a row for docs/gate.md).
//! The bounds are the rates docs/gate.md states, widened by three standard errors of a rate
//! measured on this many pairs (√(0.05 × 0.95 / 300) = 1.3 points).

use crate::support::gate_simulation::{simulate, Case, Stacks};
use proftool::report::diff::DiffOptions;

/// The default gate as the simulation can test it: its draws have sampling noise only (and the
/// jitter a case adds), so no floor of how much real runs vary, and the function it grows is V8's
/// `(garbage collector)`, a pseudo-frame the gate reports but gates only when asked.
fn sampling_only() -> DiffOptions {
    DiffOptions { run_floor: 0.0, gate_pseudo: true, ..DiffOptions::default() }
}

const PAIRS: usize = 300;

fn case(shares: (f64, f64), jitter: f64, samples: usize, runs: usize) -> Case {
    Case { shares, jitter, samples, runs, quantity: false }
}

#[test]
fn two_runs_of_one_program_fail_the_default_gate_at_most_one_time_in_twenty() {
    let stacks = Stacks::of_fixture(0.10);
    let gate = sampling_only();
    for (samples, runs) in [(300, 1), (1_000, 1), (300, 3)] {
        let rates = simulate(&stacks, case((0.10, 0.10), 0.0, samples, runs), PAIRS, 1, &gate);
        assert!(rates.failed <= 0.05 + 0.039, "{samples} samples, {runs} run(s): {rates:?}");
    }
    // The plain threshold of the README before the test fails most of them: the simulation can tell.
    let plain = DiffOptions { threshold: Some(2.0), false_discovery_rate: None, ..sampling_only() };
    let rates = simulate(&stacks, case((0.10, 0.10), 0.0, 300, 1), PAIRS, 1, &plain);
    assert!(rates.failed > 0.5, "{rates:?}");
}

#[test]
fn the_default_gate_catches_a_function_that_doubles_or_grows_by_two_points() {
    let stacks = Stacks::of_fixture(0.10);
    // The function grown is one of about 10 % in the real profile (node's garbage collector), whose
    // stacks are weighed to exactly 10 % before they are drawn.
    assert!((stacks.share - 0.10).abs() < 0.01, "{} at {}", stacks.function, stacks.share);
    let gate = sampling_only();
    let doubled = simulate(&stacks, case((0.10, 0.20), 0.0, 1_000, 1), PAIRS, 2, &gate);
    assert!(doubled.caught >= 0.95, "{doubled:?}");
    let grown = simulate(&stacks, case((0.10, 0.12), 0.0, 10_000, 1), PAIRS / 3, 3, &gate);
    assert!(grown.caught >= 0.80, "{grown:?}");
}

#[test]
fn several_runs_a_side_weigh_a_function_whose_share_changes_from_run_to_run() {
    let stacks = Stacks::of_fixture(0.10);
    let gate = sampling_only();
    // One run a side cannot tell a collector's run-to-run swing from a regression; three can.
    let one = simulate(&stacks, case((0.10, 0.10), 0.03, 1_000, 1), PAIRS, 4, &gate);
    let three = simulate(&stacks, case((0.10, 0.10), 0.03, 1_000, 3), PAIRS, 4, &gate);
    assert!(one.failed > 0.15 && three.failed <= 0.05 + 0.039, "one run {one:?}, three runs {three:?}");
}

#[test]
fn a_sampled_quantity_is_as_noisy_as_the_samples_behind_it() {
    let stacks = Stacks::of_fixture(0.10);
    let gate = sampling_only();
    // Bytes or delays weigh their samples unevenly (the largest stacks a hundred times the median):
    // tested by the samples behind each value, one run a side and three.
    let quantity = |shares, runs| Case { shares, jitter: 0.0, samples: 1_000, runs, quantity: true };
    for runs in [1, 3] {
        let rates = simulate(&stacks, quantity((0.10, 0.10), runs), PAIRS, 5, &gate);
        assert!(rates.failed <= 0.05 + 0.039, "{runs} run(s): {rates:?}");
    }
    let doubled = simulate(&stacks, quantity((0.10, 0.20), 3), PAIRS, 6, &gate);
    assert!(doubled.caught >= 0.80, "{doubled:?}");
}
