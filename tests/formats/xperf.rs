//! xperf's exported CPU sampling table (`xperf`), read only: each function's own time against
//! gprof2dot's XPerfParser reading of the same file (fixtures/xperf/make-fixtures.py), and the
//! stacks by hand.

use crate::support::binary::{fixture, run};
use crate::support::read_fixture;
use proftool::model::{NodeId, Profile};
use proftool::Format;
use std::collections::BTreeMap;

/// Each function's own time in `profile`, in nanoseconds, by `process!module!function` as
/// gprof2dot names them.
fn own_time(profile: &Profile) -> BTreeMap<String, i64> {
    let time = profile.metric_index("time").expect("time");
    let mut own = BTreeMap::new();
    for node in 0..profile.tree.len() {
        let node = NodeId(node as u32);
        let nanos = profile.tree.self_value(time, node).as_f64() as i64;
        if nanos == 0 {
            continue;
        }
        let frame = profile.frames.get(profile.tree.frame(node));
        let mut root = node;
        while let Some(parent) = profile.tree.parent(root) {
            root = parent;
        }
        let process = profile.frames.get(profile.tree.frame(root)).name.clone();
        let process = process.split(" (").next().unwrap_or_default().to_string();
        let key = format!("{process}!{}!{}", frame.module.as_deref().unwrap_or(""), frame.name);
        *own.entry(key).or_default() += nanos;
    }
    own
}

/// Each function's own time is gprof2dot's (`Weight` × `Count`), to the nanosecond; the Idle
/// process's rows are left out as gprof2dot leaves them out, and said.
#[test]
fn own_times_are_gprof2dots() {
    let (profile, diag) = read_fixture(Format::Xperf, &fixture("xperf/shop.xperf"));
    let theirs = std::fs::read_to_string(fixture("xperf/shop.gprof2dot.txt")).unwrap();
    let expected: BTreeMap<String, i64> = theirs
        .lines()
        .map(|line| {
            let (name, millis) = line.rsplit_once(' ').unwrap();
            (name.to_string(), (millis.parse::<f64>().unwrap() * 1e6).round() as i64)
        })
        .collect();
    assert_eq!(expected.len(), 5);
    assert_eq!(own_time(&profile), expected);
    let idle = diag.warnings().iter().find(|w| w.key == "xperf-idle").expect("the Idle rows said");
    assert!(idle.message.ends_with(": 1 (7 ms)"), "{}", idle.message);
}

/// Each row is a stack under its process (with its id), its frames after `[Root]`, and the row's
/// function below them where the stack does not end in it; a stack `?` is the function alone.
/// The samples are the rows' counts. By hand from the file.
#[test]
fn rows_are_stacks_under_their_processes() {
    let (folded, _) = run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &fixture("xperf/shop.xperf"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "feed.exe (5210);RtlUserThreadStart;poll;recv 3",
            "shop.exe (4144);KiDpcInterruptBypass 1",
            "shop.exe (4144);RtlUserThreadStart;BaseThreadInitThunk;main;Cart::total 1",
            "shop.exe (4144);RtlUserThreadStart;BaseThreadInitThunk;main;Cart::total;Tax::compute 3",
            "shop.exe (4144);RtlUserThreadStart;BaseThreadInitThunk;main;Cart::total;memcpy 1",
        ]
    );
}
