//! Ruby's stackprof JSON (`stackprof`): each mode weighed as speedscope weighs it, against
//! stackprof's own counts on files it made, speedscope's importer on a frame without a name
//! (speedscope's own samples are checked by `.ci/speedscope-corpus.mjs`).

use crate::support::binary::{firefox_sample_micros, fixture, info, stacks};

/// stackprof's own figures, from the JSON on its own (not through proftool's reader): its
/// `samples`, and in wall mode the sum of `raw_timestamp_deltas`.
fn stackprof_counts(rel: &str) -> (u64, u64) {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture(rel)).unwrap()).unwrap();
    let deltas = json["raw_timestamp_deltas"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).sum();
    (json["samples"].as_u64().unwrap(), deltas)
}

/// Files made by stackprof 0.2.21 (make-fixtures.sh) read with its own sample counts, wall time
/// as its deltas, and work.rb named by its relative path.
#[test]
fn stackprofs_own_files_read_with_its_counts() {
    let (samples, deltas) = stackprof_counts("stackprof/wall.stackprof.json");
    let (text, _) = info("stackprof/wall.stackprof.json");
    assert!(text.contains(&format!("metric     samples (samples, count, additive): total {samples}\n")), "{text}");
    assert!(text.contains(&format!("metric     time (time, us, additive): total {deltas}\n")), "{text}");
    assert!(text.contains("interval   1ms"), "{text}");
    let (samples, _) = stackprof_counts("stackprof/object.stackprof.json");
    let (text, _) = info("stackprof/object.stackprof.json");
    assert!(
        text.contains(&format!("metric     sampled objects (objects, count, additive): total {samples}\n")),
        "{text}"
    );
}

/// CPU mode (stackprof 0.2.21, make-fixtures.sh): each sample one interval of CPU time, as
/// speedscope weighs it: its 10 samples at 1 ms, 10,000 µs (speedscope 1.25.0: 10,000 µs).
#[test]
fn cpu_mode_weighs_an_interval_a_sample() {
    let (samples, _) = stackprof_counts("stackprof/cpu.stackprof.json");
    assert_eq!(samples, 10);
    let (text, _) = info("stackprof/cpu.stackprof.json");
    assert!(text.contains("metric     samples (samples, count, additive): total 10\n"), "{text}");
    assert!(text.contains("metric     time (time, us, additive): total 10000\n"), "{text}");
}

/// A frame without a `name` (hand-written, object mode) is `(unknown)`, as speedscope names it;
/// its 3 samples of the 7 stay under it.
#[test]
fn a_frame_without_a_name_is_unknown() {
    let expected = [("<main>;(unknown)", 3), ("<main>;Object#build", 1), ("<main>;Object#build;Array#map", 3)];
    let expected: std::collections::BTreeMap<String, i64> = expected.iter().map(|&(s, w)| (s.to_string(), w)).collect();
    assert_eq!(stacks("stackprof/no-name.stackprof.json", false), expected);
}

/// stackprof's own results file (`StackProf.run(out: …)`, a Ruby Marshal dump; make-fixtures.sh),
/// named on the command line or not, is refused with the command that writes it as JSON; where
/// stackprof is installed, that JSON reads with the figures stackprof's own text report gives the
/// dump: 34 samples, `Object#work` 11 of its own.
#[test]
fn a_marshal_dump_is_answered_with_the_command_that_converts_it() {
    let dump = fixture("stackprof/marshal/cpu.dump");
    for args in [&["info"][..], &["info", "--from", "stackprof"]] {
        let stderr = crate::support::binary::failure(crate::support::binary::proftool().args(args).arg(&dump));
        assert!(stderr.contains("a Ruby Marshal dump): write them as JSON with `stackprof --json FILE"), "{stderr}");
    }
    let Some(json) = crate::support::binary::output_of_installed("stackprof", &["--json"], &dump) else { return };
    let dir = crate::support::binary::temp();
    let path = dir.path().join("cpu.stackprof.json");
    std::fs::write(&path, json).unwrap();
    let out = crate::support::binary::proftool().args(["summary", "-q", "--metric", "samples"]).arg(&path).assert();
    let summary = String::from_utf8(out.success().get_output().stdout.clone()).unwrap();
    assert!(summary.starts_with("Total: 34 samples\n"), "{summary}");
    assert!(summary.lines().any(|l| l.starts_with("Object#work ") && l.split_whitespace().nth(1) == Some("11")));
}

/// Each sample keeps its time: the wall-mode profile's samples, written as the Firefox Profiler's,
/// are at its `raw_timestamp_deltas` added up (µs, read from the file here), the first at the
/// first delta.
#[test]
fn samples_keep_their_times() {
    let path = fixture("stackprof/wall.stackprof.json");
    let source: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut at = 0i64;
    let theirs: Vec<i64> = (source["raw_timestamp_deltas"].as_array().unwrap().iter())
        .map(|d| {
            at += d.as_i64().unwrap();
            at
        })
        .collect();
    let ours = firefox_sample_micros(&path);
    assert!(theirs.len() > 1);
    assert_eq!(ours, theirs);
}
