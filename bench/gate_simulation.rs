//! `bench/gate.sh`: the false alarms and power of `diff`'s default gate, by simulation
//! (`tests/support/gate_simulation.rs` says how), 1,000 pairs a row, a fixed seed.

#[path = "../tests/support/gate_simulation.rs"]
mod simulation;

use proftool::report::diff::DiffOptions;

/// The default gate as the simulation can test it: its draws have sampling noise only (and the
/// jitter a case adds), so no floor of how much real runs vary, and the function it grows is V8's
/// `(garbage collector)`, a pseudo-frame the gate reports but gates only when asked.
fn sampling_only() -> DiffOptions {
    DiffOptions { run_floor: 0.0, gate_pseudo: true, ..DiffOptions::default() }
}
use simulation::{simulate, Case, Stacks};

fn main() {
    let pairs: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let stacks = Stacks::of_fixture(0.10);
    let gate = sampling_only();
    let plain = DiffOptions { threshold: Some(2.0), false_discovery_rate: None, ..sampling_only() };
    println!(
        "stacks of fixtures/cpuprofile/work.cpuprofile; boosted function {:?} (share {:.1} %, set to 10 %); {pairs} pairs a row",
        stacks.function,
        stacks.share * 100.0
    );
    println!("| case | samples a run | runs a side | gate | pairs failed | boosted function flagged |");
    println!("|---|---:|---:|---|---:|---:|");
    let case = |shares, jitter, samples, runs| Case { shares, jitter, samples, runs, quantity: false };
    let quantity = |shares, samples, runs| Case { shares, jitter: 0.0, samples, runs, quantity: true };
    let cases = [
        ("same program", case((0.10, 0.10), 0.0, 300, 1)),
        ("same program", case((0.10, 0.10), 0.0, 1_000, 1)),
        ("same program", case((0.10, 0.10), 0.0, 10_000, 1)),
        ("same program", case((0.10, 0.10), 0.0, 300, 3)),
        ("same program", case((0.10, 0.10), 0.0, 1_000, 3)),
        ("same program, one function ± 3 points a run", case((0.10, 0.10), 0.03, 1_000, 1)),
        ("same program, one function ± 3 points a run", case((0.10, 0.10), 0.03, 1_000, 3)),
        ("same program, one function ± 3 points a run", case((0.10, 0.10), 0.03, 1_000, 5)),
        ("10 % doubled to 20 %", case((0.10, 0.20), 0.0, 300, 1)),
        ("10 % doubled to 20 %", case((0.10, 0.20), 0.0, 1_000, 1)),
        ("10 % doubled to 20 %", case((0.10, 0.20), 0.0, 1_000, 3)),
        ("10 % grown to 12 %", case((0.10, 0.12), 0.0, 10_000, 1)),
        ("10 % grown to 12 %", case((0.10, 0.12), 0.0, 10_000, 3)),
        ("sampled quantity, same program", quantity((0.10, 0.10), 1_000, 1)),
        ("sampled quantity, same program", quantity((0.10, 0.10), 1_000, 3)),
        ("sampled quantity, 10 % of samples doubled", quantity((0.10, 0.20), 1_000, 1)),
        ("sampled quantity, 10 % of samples doubled", quantity((0.10, 0.20), 1_000, 3)),
    ];
    for (seed, (name, case)) in cases.into_iter().enumerate() {
        for (gate_name, options) in [("default", &gate), ("--no-stats --threshold 2", &plain)] {
            let rates = simulate(&stacks, case, pairs, seed as u64, options);
            println!(
                "| {name} | {} | {} | {gate_name} | {:.1} % | {:.1} % |",
                case.samples,
                case.runs,
                rates.failed * 100.0,
                rates.caught * 100.0
            );
        }
    }
}
