//! macOS `sample` text (`macos-sample`), against `inferno-collapse-sample`: its own test file
//! and its collapsed stacks (inferno 0.12.8's `tests/data/collapse-sample`, CDDL-1.0), and the binary
//! where it is installed.

use crate::support::binary::{fixture, output_of_installed, run};
use crate::support::sorted_lines;

/// The two stacks of `rg.sample.txt` that the report lists more than once, at different offsets in
/// the same functions: proftool adds their samples up (7 + 5 + 2 and 4 + 2 + 2, the report's own
/// lines, added by hand), where inferno keeps the last line's alone (2 and 2).
const ADDED_UP: [(&str, u64, u64); 2] = [("Thread_15758535;", 14, 2), ("Thread_15758553;", 8, 2)];

/// The stacks of the report that ends in `ignore::gitignore::GitignoreBuilder::add` under
/// `create_gitignore`, from `thread`.
fn is_added_up(line: &str, thread: &str) -> bool {
    line.starts_with(thread)
        && line.contains("ignore::dir::create_gitignore;")
        && line.ends_with("libsystem_kernel`__open")
}

/// `folded` with each of [`ADDED_UP`]'s stacks at the count `pick` takes.
fn with_added_up_stacks(folded: &str, pick: impl Fn(&(&str, u64, u64)) -> u64) -> Vec<String> {
    let mut lines: Vec<String> = folded
        .lines()
        .map(|line| {
            let (stack, _) = line.rsplit_once(' ').unwrap();
            match ADDED_UP.iter().find(|case| is_added_up(stack, case.0)) {
                Some(case) => format!("{stack} {}", pick(case)),
                None => line.to_string(),
            }
        })
        .collect();
    lines.sort();
    lines
}

/// The report reads to inferno's stacks: its frames `binary`function`, Rust names tidied, idle
/// threads' stacks left out (said on stderr with their samples), each stack's samples those of its
/// last line; the stacks listed more than once have all their samples (see [`ADDED_UP`]). All in
/// all 1,429 samples, as FlameGraph's `stackcollapse-sample.awk` counts them, and 1,046 idle.
#[test]
fn a_sample_report_reads_as_inferno_collapses_it() {
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("macos-sample/rg.sample"));
    let expected = std::fs::read_to_string(fixture("macos-sample/inferno/rg.folded")).unwrap();
    assert_eq!(with_added_up_stacks(&out, |case| case.2), with_added_up_stacks(&expected, |case| case.2));
    for (thread, ours, _) in ADDED_UP {
        assert!(out
            .lines()
            .any(|l| l.ends_with(&format!(" {ours}")) && is_added_up(l.rsplit_once(' ').unwrap().0, thread)));
    }
    let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(total, 1_429);
    assert!(err.contains("5 stacks that end in a thread's idle wait") && err.contains(": 1046 samples"), "{err}");
}

/// The report's first line gives the interval and the process.
#[test]
fn a_sample_report_has_its_interval_and_process() {
    let (out, _) = crate::support::binary::info("macos-sample/rg.sample");
    assert!(out.contains("title      rg (pid 64751)") && out.contains("interval   1ms"), "{out}");
}

/// Where `inferno-collapse-sample` is installed (CI installs inferno), it collapses the report
/// to proftool's stacks, but for the stacks it counts once (see [`ADDED_UP`]).
#[test]
fn a_sample_report_agrees_with_inferno_collapse_sample() {
    let path = fixture("macos-sample/rg.sample");
    let Some(expected) = output_of_installed("inferno-collapse-sample", &[], &path) else { return };
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
    assert_eq!(with_added_up_stacks(&out, |case| case.2), with_added_up_stacks(&expected, |case| case.2));
    assert_eq!(sorted_lines(&out).len(), sorted_lines(&expected).len());
}
