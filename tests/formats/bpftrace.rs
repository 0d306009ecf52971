//! bpftrace stack maps (`bpftrace`), against FlameGraph's `stackcollapse-bpftrace.pl`: recordings
//! of `fixtures/perf/work.c` by bpftrace 0.17 (`fixtures/bpftrace/make-fixtures.sh`) and what the
//! script makes of them, offsets dropped.

use crate::support::binary::{fixture, run};
use crate::support::sorted_lines;

/// Folded stacks without the `+OFFSET` of each frame.
fn without_offsets(folded: &str) -> String {
    let frame = regex::Regex::new(r"\+[0-9]+(;| )").unwrap();
    let mut stacks = std::collections::BTreeMap::<String, u64>::new();
    for line in folded.lines() {
        let line = frame.replace_all(line, "$1");
        let (stack, count) = line.rsplit_once(' ').unwrap();
        *stacks.entry(stack.to_string()).or_default() += count.parse::<u64>().unwrap();
    }
    stacks.into_iter().map(|(stack, count)| format!("{stack} {count}\n")).collect()
}

/// Each recording reads to the script's stacks, the key's command name as the root frame, with
/// the samples of a function's places added up: 997 samples of `work`'s user stacks in its second.
#[test]
fn bpftrace_maps_read_as_stackcollapse_bpftrace_collapses_them() {
    for case in ["ustack-comm", "kstack"] {
        let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(&format!("bpftrace/{case}.bpftrace")));
        let script = std::fs::read_to_string(fixture(&format!("bpftrace/flamegraph/{case}.folded"))).unwrap();
        assert_eq!(sorted_lines(&out), sorted_lines(&without_offsets(&script)), "{case}");
    }
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture("bpftrace/ustack-comm.bpftrace"));
    assert_eq!(out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum::<u64>(), 997);
}

/// The samples of an empty kernel stack (user time) are left out, as the script leaves them, and
/// counted on stderr.
#[test]
fn an_empty_stack_is_left_out_and_said() {
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("bpftrace/kstack.bpftrace"));
    assert!(err.contains("996 samples of an empty stack"), "{err}");
}

/// bpftrace ends every line: a file cut after `@[]: `, or in an entry's count, reads with a warning
/// that names its last line and says it looks cut short.
#[test]
fn a_file_cut_in_its_last_line_is_said_to_look_cut_short() {
    for (cut, line) in [("@[\n    f+1\n]: 3\n@[]: ", "line 4 (byte 16)"), ("@[\n    f+1\n]: 3", "line 3 (byte 11)")] {
        let (folded, stderr) =
            crate::support::binary::run_stdin(&["convert", "--from", "bpftrace", "--to", "folded"], cut.as_bytes());
        assert_eq!(folded, "f 3\n");
        let expected = format!(
            "{line}: the input ends without a line break, which bpftrace files end every line with: it looks cut short"
        );
        assert!(stderr.contains(&expected), "{stderr}");
    }
}
