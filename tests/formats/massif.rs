//! Valgrind's massif profiles (`massif`), read only: the peak snapshot's heap tree, or another
//! detailed one, with the figures `ms_print` prints for it.

use crate::support::binary::{failure, fixture, proftool, run};

/// The top of massif's tree, the allocation functions every stack ends in.
const ALLOC_FNS: &str = "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.";

/// `ms_print --threshold=0 work.massif` (valgrind 3.19) printed the peak, snapshot 56, as
///
/// ```text
/// 99.52% (35,460B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
/// ->97.09% (34,596B) 0x109190: buffer (work.c:7)
/// | ->56.13% (20,000B) 0x1092A6: main (work.c:30)
/// | ->40.69% (14,500B) 0x1091E7: row (work.c:12)
/// | | ->40.69% (14,500B) 0x109221: table (work.c:15)
/// | |   ->40.69% (14,500B) 0x109297: main (work.c:28)
/// | ->00.27% (96B) in 2 places, all below massif's threshold (1.00%)
/// ->02.25% (800B) 0x1092B9: main (work.c:31)
/// ->00.18% (64B) in 1 place, below massif's threshold (1.00%)
/// ```
///
/// Each line with no line below it is a stack (its callers below it, read bottom up) of its bytes;
/// a function's total is its line's (or its lines' added up: `main` is 20,000 + 14,500 + 800).
#[test]
fn the_peak_snapshot_reads_with_ms_prints_figures() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture("massif/work.massif"));
    let mut lines: Vec<String> = folded.lines().map(str::to_string).collect();
    lines.sort();
    let mut expected = vec![
        format!("in 1 place, below massif's threshold (1.00%);{ALLOC_FNS} 64"),
        format!("in 2 places, all below massif's threshold (1.00%);buffer;{ALLOC_FNS} 96"),
        format!("main;buffer;{ALLOC_FNS} 20000"),
        format!("main;table;row;buffer;{ALLOC_FNS} 14500"),
        format!("main;{ALLOC_FNS} 800"),
    ];
    expected.sort();
    assert_eq!(lines, expected);
    let summary = stdout(&["summary", "--format", "csv"], &fixture("massif/work.massif"));
    let top = format!("\"{ALLOC_FNS}\",35460,100,35460,100");
    assert!(summary.lines().any(|line| line == top), "{summary}");
    for (function, total) in [("buffer", 34_596), ("row", 14_500), ("table", 14_500), ("main", 35_300)] {
        assert!(
            summary
                .lines()
                .any(|line| line.starts_with(&format!("{function},")) && line.contains(&format!(",{total},"))),
            "{function} {total}: {summary}"
        );
    }
}

/// `--massif-snapshot 52` reads that detailed snapshot: ms_print's 34,500 bytes, all through
/// `buffer` (20,000 from `main`, 14,500 from `row`, 0 below the threshold).
#[test]
fn another_detailed_snapshot_is_read_where_named() {
    let file = fixture("massif/work.massif");
    let info = stdout(&["info", "--massif-snapshot", "52"], &file);
    assert!(info.contains("massif.snapshot 52\n"), "{info}");
    assert!(info.contains("metric     mem heap (alloc, bytes, additive): total 34500\n"), "{info}");
    // Snapshot 50 has no tree (heap_tree=empty): said, with where.
    let stderr = failure(proftool().args(["info", "--massif-snapshot", "50"]).arg(&file));
    assert!(stderr.contains("heap_tree=empty"), "{stderr}");
    // Past the last, 62, there is no such snapshot: said so, not that the file looks cut short.
    let stderr = failure(proftool().args(["info", "--massif-snapshot", "999"]).arg(&file));
    assert!(stderr.contains("found the end of the input after snapshot 62, its last"), "{stderr}");
    assert!(!stderr.contains("cut short"), "{stderr}");
}

/// The stdout of `proftool <args> <file>` (a report), which must succeed.
fn stdout(args: &[&str], file: &std::path::Path) -> String {
    let out = proftool().args(args).arg(file).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Valgrind names its files `massif.out.<pid>`, of no extension: told by content.
#[test]
fn a_file_named_as_valgrind_names_it_is_read_by_content() {
    let dir = crate::support::binary::temp();
    let path = dir.path().join("massif.out.1234");
    std::fs::copy(fixture("massif/work.massif"), &path).unwrap();
    let out = proftool().arg("info").arg(&path).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("format     massif (recognised by content)"), "{text}");
}
