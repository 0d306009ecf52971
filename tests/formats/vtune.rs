//! VTune's top-down CSV (read only) against inferno's `collapse-vtune`: each stack's own time is
//! the milliseconds `inferno-collapse-vtune` gives it (fixtures/vtune/make-fixtures.sh, inferno
//! 0.12.8), each frame `module`function` as it names them; a file is told by its header; a bad line
//! is an error at its line.

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::model::{NodeId, Profile};
use proftool::Format;
use std::collections::BTreeMap;

/// The stacks of `profile` as inferno folds them: frames `module`function`, a line per node of
/// its own time, in whole milliseconds (rounded, as inferno rounds each line), none of 0 ms.
fn inferno_stacks(profile: &Profile) -> BTreeMap<String, i64> {
    let mut stacks = BTreeMap::new();
    for node in 0..profile.tree.len() {
        let node = NodeId(node as u32);
        let micros = profile.tree.self_value(0, node).as_f64();
        let millis = (micros / 1000.0).round() as i64;
        if millis == 0 {
            continue;
        }
        let mut frames = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            let frame = profile.frames.get(profile.tree.frame(n));
            frames.push(format!("{}`{}", frame.module.as_deref().unwrap_or(""), frame.name));
            at = profile.tree.parent(n);
        }
        frames.reverse();
        *stacks.entry(frames.join(";")).or_default() += millis;
    }
    stacks
}

#[test]
fn each_stack_has_the_time_inferno_gives_it() {
    let (profile, _) = read_fixture(Format::Vtune, &fixture("vtune/work.vtune.csv"));
    let text = std::fs::read_to_string(fixture("vtune/work.inferno.txt")).unwrap();
    let theirs: BTreeMap<String, i64> = text
        .lines()
        .map(|line| {
            let (stack, millis) = line.rsplit_once(' ').unwrap();
            (stack.to_string(), millis.parse().unwrap())
        })
        .collect();
    assert_eq!(theirs.len(), 10);
    assert_eq!(inferno_stacks(&profile), theirs);
}

#[test]
fn a_file_is_told_by_its_header_and_weighs_time() {
    let (info, _) = info("vtune/work.vtune.csv");
    assert!(info.contains("vtune (recognised by content)"), "{info}");
    // The own times of the file added by hand: 0.68565 s, to the microsecond.
    assert!(info.contains("total 685650"), "{info}");
}
