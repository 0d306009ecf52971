//! Valgrind's DHAT profiles (`dhat`), read only: each program point's figures, checked against the
//! JSON valgrind wrote (not against proftool's reading of it).

use crate::support::binary::{fixture, info, proftool, run};

/// Every figure of `heap.dhat` (make-fixtures.sh: valgrind 3.19's `--tool=dhat` of work.c) summed
/// over its program points, once, by Python on the JSON alone:
/// `python3 -c "import json; d=json.load(open('heap.dhat')); print({k: sum(p[k] for p in d['pps'])
/// for k in ['tbk','tb','gbk','gb','ebk','eb','rb','wb']})"` printed
/// `{'tbk': 34, 'tb': 115460, 'gbk': 14, 'gb': 35460, 'ebk': 8, 'eb': 9460, 'rb': 800, 'wb': 115416}`
/// (dh_view's root figures: "Total: 115,460 bytes in 34 blocks", "At t-gmax: 35,460 bytes in 14
/// blocks", "At t-end: 9,460 bytes in 8 blocks", "Reads: 800 bytes", "Writes: 115,416 bytes").
#[test]
fn a_heap_profile_totals_its_program_points_figures() {
    let (text, stderr) = info("dhat/heap.dhat");
    assert!(text.contains("format     dhat (recognised by content)"), "{text}");
    assert!(text.contains("title      ./work\n") && text.contains("dhat.mode  heap\n"), "{text}");
    for (metric, kind, total) in [
        ("total blocks", "objects, count", 34),
        ("total bytes", "alloc, bytes", 115_460),
        ("blocks at t-gmax", "objects, count", 14),
        ("bytes at t-gmax", "alloc, bytes", 35_460),
        ("blocks at t-end", "objects, count", 8),
        ("bytes at t-end", "alloc, bytes", 9_460),
        ("bytes read", "alloc, bytes", 800),
        ("bytes written", "alloc, bytes", 115_416),
    ] {
        let line = format!("metric     {metric} ({kind}, additive): total {total}\n");
        assert!(text.contains(&line), "{line}{text}");
    }
    assert!(stderr.is_empty(), "{stderr}");
}

/// Each program point's stack (`fs`, innermost first, read by hand from `ftbl`) weighs its total
/// bytes (`tb`); the two of `main` at lines 30 and 34 are one stack of functions. The profile is
/// weighed by total blocks, what dh_view sorts by by default (`isDefault` in dh_view.js).
#[test]
fn each_program_point_weighs_its_own_stack() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded", "--metric", "total bytes"], &fixture("dhat/heap.dhat"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "main;buffer;malloc 20096",
            "main;calloc 800",
            "main;malloc 64",
            "main;scratch;buffer;malloc 80000",
            "main;table;row;buffer;malloc 14500",
        ]
    );
    let summary = proftool().arg("summary").arg(fixture("dhat/heap.dhat")).assert().success();
    let summary = String::from_utf8(summary.get_output().stdout.clone()).unwrap();
    assert!(summary.starts_with("Total: 34 total blocks\n"), "{summary}");
}

/// Copy mode has no block lifetimes or accesses: its totals only (24 copies of 1,085 bytes, the
/// `tbk` and `tb` of its program points added up by the same Python).
#[test]
fn a_copy_profile_has_its_totals_only() {
    let (text, _) = info("dhat/copy.dhat");
    assert!(text.contains("dhat.mode  copy\n"), "{text}");
    assert!(text.contains("metric     total blocks (objects, count, additive): total 24\n"), "{text}");
    assert!(text.contains("metric     total bytes (alloc, bytes, additive): total 1085\n"), "{text}");
    assert!(!text.contains("t-gmax (") && !text.contains("bytes read"), "{text}");
}

/// Valgrind names its files `dhat.out.<pid>`, of no extension: told by content.
#[test]
fn a_file_named_as_valgrind_names_it_is_read_by_content() {
    let dir = crate::support::binary::temp();
    let path = dir.path().join("dhat.out.1234");
    std::fs::copy(fixture("dhat/heap.dhat"), &path).unwrap();
    let out = proftool().arg("info").arg(&path).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("format     dhat (recognised by content)"), "{text}");
}
