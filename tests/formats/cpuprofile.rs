//! V8 CPU profiles (`cpuprofile`): the time they weigh as speedscope and DevTools weigh it,
//! `--max-samples` before the memory is taken (heap profiles are told apart in heapprofile.rs).

use crate::support::binary::{files_in, info, proftool, stacks, temp};

#[test]
fn a_cpuprofile_of_more_samples_than_max_samples_is_refused_before_it_takes_the_memory() {
    // A count of 2^32 in one line: a .cpuprofile writes a sample and a time delta per count.
    let dir = temp();
    let input = dir.path().join("big.folded");
    std::fs::write(&input, "main;work 4294967296\n").unwrap();
    let output = dir.path().join("out.cpuprofile");
    let out = proftool().arg("convert").arg(&input).arg(&output).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("4294967296 samples would be 4294967296 entries of samples and timeDeltas, more than --max-samples 10000000 allows"), "{stderr}");
    assert_eq!(files_in(dir.path()), vec!["big.folded"]);
}

/// A `.cpuprofile` weighs `endTime` − `startTime`, as speedscope totals it and DevTools' call tree
/// shares it out: the time before the first sample is the first sample's, the time after the last
/// the last's.
#[test]
fn a_cpuprofile_weighs_its_span() {
    for (file, total) in [
        // speedscope 47,892 µs (proftool 36,317 before: the 11,575 µs before the first sample and
        // the 1,972 µs after the last went to no sample).
        ("cpuprofile/speedscope/chrome65-simple.cpuprofile", 47_892),
        // speedscope 209,457 µs (proftool 196,314 before, as VS Code weighs it).
        ("cpuprofile/work.cpuprofile", 209_457),
        // The old format (node 10: a `head` tree, `startTime` in whole seconds, 30 `timestamps`
        // for 29 samples): the last timestamp less the first, 163,140,645,206 − 163,140,599,286 µs.
        ("cpuprofile/speedscope/node10-old-format.cpuprofile", 45_920),
    ] {
        let (info, _) = info(file);
        assert!(info.contains(&format!("metric     time (time, us, additive): total {total}\n")), "{file}: {info}");
    }
    // The old format's tree, as its nodes nest: the samples' times of the file (by hand from its
    // timestamps: d under b 14 samples, d under c 14, the (anonymous) root 1 and the closing
    // timestamp).
    let stacks = stacks("cpuprofile/speedscope/node10-old-format.cpuprofile", false);
    assert_eq!(stacks.keys().collect::<Vec<_>>(), ["(anonymous)", "(anonymous);a;b;d", "(anonymous);a;c;d"]);
    assert_eq!(stacks.values().sum::<i64>(), 45_920);
}
