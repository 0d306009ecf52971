//! V8's sampling heap profiles (`heapprofile`): told from CPU profiles, weighed by the bytes
//! speedscope's importer totals, with the sampled allocations of each node.

use crate::support::binary::{fixture, info, proftool};

/// Every node's `selfSize` added up and the samples that name a node of the tree, read from the
/// JSON on its own (not through proftool's reader): what the profile's two metrics total.
fn sizes_and_samples(rel: &str) -> (u64, Option<u64>) {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut total, mut ids, mut walk) = (0, std::collections::HashSet::new(), vec![&json["head"]]);
    let root = json["head"]["id"].as_u64();
    while let Some(node) = walk.pop() {
        total += node["selfSize"].as_u64().unwrap();
        ids.extend(node["id"].as_u64().filter(|&id| Some(id) != root));
        walk.extend(node["children"].as_array().unwrap());
    }
    let samples = json["samples"]
        .as_array()
        .map(|samples| samples.iter().filter(|s| ids.contains(&s["nodeId"].as_u64().unwrap())).count() as u64);
    (total, samples)
}

/// A heap profile is read as one (it was refused as JSON of an unknown kind, and is no old
/// `.cpuprofile` though both have a `head` tree), weighed by its bytes: an old one without node
/// ids or samples (written by hand: 671,744 bytes, speedscope's total and the sizes added up), and
/// node 20's, the sizes and samples of the JSON added up on their own.
#[test]
fn a_heap_profile_weighs_its_bytes_as_speedscope_does() {
    assert_weighs_its_sizes("heapprofile/old-format.heapprofile", 671_744);
    let (bytes, samples) = sizes_and_samples("heapprofile/work.heapprofile");
    let (text, stderr) = info("heapprofile/work.heapprofile");
    assert!(text.contains(&format!("metric     size (alloc, bytes, additive): total {bytes}\n")), "{text}");
    let samples = samples.unwrap();
    assert!(
        text.contains(&format!("metric     sampled objects (objects, count, additive): total {samples}\n")),
        "{text}"
    );
    // One sample of node 20's file names a node that is not in the tree: said, and left out.
    assert!(stderr.contains("1 sample(s) name no node of the tree"), "{stderr}");
}

/// `file` (a path under fixtures/, or an absolute one) is read as a heap profile of `bytes`, its
/// nodes' sizes added up, without node ids or samples.
fn assert_weighs_its_sizes(file: &str, bytes: u64) {
    let (text, _) = info(file);
    assert!(text.contains("format     heapprofile (recognised by content)"), "{file}: {text}");
    assert!(text.contains(&format!("metric     size (alloc, bytes, additive): total {bytes}\n")), "{file}: {text}");
    assert_eq!(sizes_and_samples(file), (bytes, None), "{file}");
}

/// Bytes are no time: a format weighed by time refuses a heap profile unless `--metric` names a
/// metric to write as its weight; one of counts writes the bytes.
#[test]
fn a_heap_profile_goes_where_bytes_can() {
    let dir = tempfile::tempdir().unwrap();
    let folded = dir.path().join("heap.folded");
    proftool().arg("convert").arg(fixture("heapprofile/work.heapprofile")).arg(&folded).assert().success();
    let text = std::fs::read_to_string(&folded).unwrap();
    let total: u64 = text.lines().map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(total, sizes_and_samples("heapprofile/work.heapprofile").0);
    let cpuprofile = dir.path().join("heap.cpuprofile");
    let run = proftool().arg("convert").arg(fixture("heapprofile/work.heapprofile")).arg(&cpuprofile).assert();
    let stderr = String::from_utf8(run.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("the profile has neither"), "{stderr}");
    assert!(!cpuprofile.exists());
}

/// A run that sampled nothing (make-fixtures.sh: node at a 1 GiB interval) is a profile of no stack:
/// folded stacks of it would be an empty file, which nothing reads back, so the conversion is
/// refused, said, and no file is left; pprof holds it, and `go tool pprof` reads it (0 total).
#[test]
fn a_profile_of_no_sample_is_not_written_as_an_empty_folded_file() {
    let dir = crate::support::binary::temp();
    let out = dir.path().join("empty.folded");
    let stderr = crate::support::binary::failure(
        crate::support::binary::proftool().arg("convert").arg(fixture("heapprofile/empty.heapprofile")).arg(&out),
    );
    assert!(stderr.contains("cannot write folded: the profile holds no stack"), "{stderr}");
    assert!(!out.exists());
    let pprof = dir.path().join("empty.pb.gz");
    crate::support::binary::proftool()
        .args(["convert", "-q"])
        .arg(fixture("heapprofile/empty.heapprofile"))
        .arg(&pprof)
        .assert()
        .success();
    if let Ok(top) = std::process::Command::new("go").args(["tool", "pprof", "-top"]).arg(&pprof).output() {
        let top = String::from_utf8_lossy(&top.stdout);
        assert!(top.contains("Showing nodes accounting for 0, 0% of 0 total"), "{top}");
    }
}
