//! V8's tick logs (`node --prof`; read only) against V8's own tick processor: each function's,
//! library's and builtin's ticks in proftool's profile are those `node --prof-process --nm=true`
//! printed for the same log (fixtures/v8-log/make-fixtures.sh, Node 20), the tiers of a function
//! added up; the stacks of a log that moves, deletes and re-creates code are those its bottom-up
//! profile shows; a log is told by its content; a bad record is an error at its line.

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::model::{Profile, Value, DEFINED_AT};
use proftool::Format;
use std::collections::BTreeMap;

/// The ticks the tick processor printed at each entry of its flat sections (`[Shared
/// libraries]`, `[JavaScript]`, `[C++]`) and as `Unaccounted` (our `UNKNOWN`), by key: a
/// JavaScript function's place (`/project/work.js:5:13`, its tiers added up), else the name.
fn prof_process(rel: &str) -> BTreeMap<String, i64> {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let mut ticks = BTreeMap::new();
    let mut section = "";
    for line in text.lines() {
        if let Some(name) = line.trim().strip_prefix('[') {
            section = name.trim_end_matches("]:");
            continue;
        }
        let Some(count) = line.split_whitespace().next().and_then(|w| w.parse::<i64>().ok()) else { continue };
        // The ticks, the share of the total, and in a section of code the share without libraries.
        let skipped = if section == "Shared libraries" { 2 } else { 3 };
        let name = (0..skipped)
            .fold(line.trim_start(), |rest, _| rest.trim_start_matches(|c: char| !c.is_whitespace()).trim_start());
        let key = match section {
            "Summary" if line.ends_with(" Unaccounted") => "UNKNOWN".to_string(),
            "Shared libraries" => name.to_string(),
            "JavaScript" | "C++" => match name.strip_prefix("JS: ") {
                Some(function) => function.rsplit(' ').next().unwrap().to_string(),
                None => name.to_string(),
            },
            _ => continue,
        };
        if count > 0 {
            *ticks.entry(key).or_default() += count;
        }
    }
    ticks
}

/// Each frame's self ticks in `profile`, keyed as [`prof_process`] keys them.
fn self_ticks(profile: &Profile) -> BTreeMap<String, i64> {
    let mut ticks = BTreeMap::new();
    for node in 0..profile.tree.len() {
        let node = proftool::model::NodeId(node as u32);
        let Value::Int(count) = profile.tree.self_values(0).get(node.0 as usize) else { panic!() };
        if count == 0 {
            continue;
        }
        let frame = profile.tree.frame(node);
        let place = profile.frame_attrs.get(&frame).and_then(|attrs| attrs.iter().find(|(k, _)| k == DEFINED_AT));
        let key = place.map_or_else(|| profile.frames.get(frame).name.to_string(), |(_, place)| place.clone());
        *ticks.entry(key).or_default() += count;
    }
    ticks
}

#[test]
fn each_function_has_the_ticks_the_tick_processor_gives_it() {
    for (log, printed) in [
        ("v8-log/work.v8.log", "v8-log/work.prof-process.txt"),
        ("v8-log/moves.v8.log", "v8-log/moves.prof-process.txt"),
    ] {
        let (profile, _) = read_fixture(Format::V8Log, &fixture(log));
        let theirs = prof_process(printed);
        assert!(theirs.len() >= 4, "{theirs:?}");
        assert_eq!(self_ticks(&profile), theirs, "{log}");
    }
}

/// The stacks of a log whose code moves (`code-move`, `sfi-move`), goes (`code-delete`) and is
/// created over other code, with an external callback's tick, a top of stack in a function,
/// offsets from the frame before, a bytecode handler and a deeper stack cut (`overflow`): those of
/// the bottom-up profile `node --prof-process` printed of it (moves.prof-process.txt), read leaf
/// first, each function's tiers one frame. Checked by hand, a tick at a time, against it.
#[test]
fn moved_and_deleted_code_gives_the_tick_processors_stacks() {
    let (folded, stderr) = run(&["convert", "--to", "folded"], &fixture("v8-log/moves.v8.log"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "UNKNOWN 1",
            "café;/usr/lib/libz.so 1",
            "inner 1",
            "outer 1",
            "outer;RegExp: a,b 1",
            "outer;UNKNOWN 2",
            "outer;inner 4",
            "outer;inner;(anonymous app.js:9:3) 1",
            "outer;inner;inner;Builtin: ArrayMap 1",
        ]
    );
    assert!(stderr.contains("2 moves or deletes of code the log did not create skipped"), "{stderr}");
}

/// A log is told by its first record, whatever its name; its interval and V8's version are the
/// profile's.
#[test]
fn a_log_is_told_by_its_content() {
    let (info, _) = info("v8-log/work.v8.log");
    assert!(info.contains("v8-log (recognised by content)"), "{info}");
    assert!(info.contains("v8-log.version 11.3.244.8-node.38"), "{info}");
    assert!(info.contains("interval   1ms"), "{info}");
}

/// Older V8 logs code created without a time (`code-creation,TYPE,KIND,START,SIZE,NAME`, the third
/// field an address), as Chrome 27's log in trace viewer's test data does: the ticks in that code
/// are its, as trace viewer reads them. Checked by hand, a tick at a time.
#[test]
fn code_created_without_a_time_is_read_as_older_v8_logs_it() {
    let log = concat!(
        "shared-library,\"/usr/lib/libc.so\",0x7000,0x7fff\n",
        "profiler,\"begin\",1\n",
        "code-creation,Stub,2,0x4000,409,\"CEntryStub\"\n",
        "code-creation,LazyCompile,0,0x5000,100,\"work w.js:3\",0x9000,~\n",
        "tick,0x4010,12858,0,0x0,5,0x5020\n",
        "tick,0x7010,12859,0,0x0,5,0x5020\n",
        "tick,0x5030,12860,0,0x0,5\n",
    );
    let (folded, _) = run_stdin(&["convert", "--from", "v8-log", "--to", "folded"], log.as_bytes());
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["work 1", "work;/usr/lib/libc.so 1", "work;Stub: CEntryStub 1"]);
}
