//! LispWorks profiler trees (`lispworks`): read and written back, one root above processes and
//! threads, Seen-Count and Top-Count as the model's rules count them (after a filter too), a tree
//! cut short.

use crate::roundtrip::write;
use crate::support::binary::{fixture, proftool, run, temp, to_folded};
use crate::support::{fixtures_dir, read_bytes, read_fixture};
use proftool::Format;

#[test]
fn converts_lispworks_to_folded_and_back() {
    let dir = temp();
    let folded = dir.path().join("out.folded");
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&folded).assert().success();
    // Checked by hand against processes.tree: self = Count minus the children's Counts.
    // The process name's last space is a no-break space (U+00A0): inferno would read `Listener 1 5`
    // as two counts.
    let expected = "\
Profile root;CAPI Execution Listener\u{a0}1 5
Profile root;CAPI Execution Listener\u{a0}1;CL-USER::FIB 25
Profile root;CAPI Execution Listener\u{a0}1;CL-USER::FIB;CL-USER::FIB 25
Profile root;CAPI Execution Listener\u{a0}1;CL-USER::FIB;CL-USER::FIB;(METHOD PRINT-OBJECT (WIDGET T)) 10
Profile root;CAPI Execution Listener\u{a0}1;CL-USER::|weird name| 25
Profile root;Idle \"process\" 10
";
    assert_eq!(std::fs::read_to_string(&folded).unwrap(), expected);
    let back = dir.path().join("back.tree");
    proftool().arg("convert").arg(&folded).arg(&back).assert().success();
    let tree = std::fs::read_to_string(&back).unwrap();
    assert!(tree.starts_with("LispWorks Profiler Tree\n0|100|0|100|0|Profile root\n"), "{tree}");
    assert!(tree.contains("|CAPI Execution Listener 1\n"), "read back with its space: {tree}");
    assert!(tree.contains("2|60|0|60|50|CL-USER::FIB\n3|35|0|60|50|CL-USER::FIB\n"), "{tree}");
}

/// Issue 34 §7: a LispWorks tree has one root, "the node with depth 0" (LispWorks' documentation,
/// docs/sources.md). Several threads and a flat summary report's rows go under one `"Profile
/// root"`, its Count the sum of theirs, Seen-Count the same (it is on every stack), Top-Count 0. By
/// hand: two-threads.sampler's threads hold 4 and 3 samples (main is on the stack in all 7, on top
/// in 1; its third thread none); the `]PROFILE` guide's v0.9.0 summary rows are 68.40049488,
/// 47.14893489, 23.0318165, 20.80886149 and 10.97602407 ms: 68 + 47 + 23 + 21 + 11 = 170 samples of
/// 1 ms.
#[test]
fn a_lispworks_tree_has_one_root() {
    let (tree, err) = run(&["convert", "--to", "lispworks"], &fixture("sampler/two-threads.sampler"));
    let expected = [
        "LispWorks Profiler Tree",
        "0|7|0|7|0|\"Profile root\"",
        "1|4|0|4|0|\"Thread_0001\"",
        "2|4|0|7|1|main",
        "3|3|0|3|2|parse",
        "4|1|0|1|1|read",
        "1|3|0|3|0|\"Thread_0002\"",
        "2|3|0|7|1|main",
        "3|3|0|3|3|write",
        "1|0|0|0|0|\"Thread_0003\"",
    ];
    assert_eq!(tree, expected.join("\n") + "\n");
    assert!(
        err.contains("lispworks has one root: the input's 3 roots are put under a \"Profile root\" added for them"),
        "{err}"
    );
    let (tree, _) = run(&["convert", "-q", "--to", "lispworks"], &fixture("dyalog-csv/v0.9.0-summary.csv"));
    let expected = [
        "LispWorks Profiler Tree",
        "0|170|0|170|0|\"Profile root\"",
        "1|68|1|68|68|#.Rain",
        "1|47|1|47|47|#.ch.Step",
        "1|23|311|23|23|#.ch.CHΔQ",
        "1|21|44|21|21|#.ch.CHΔSET",
        "1|11|9|11|11|#.ch.Set",
    ];
    assert_eq!(tree, expected.join("\n") + "\n");
    // Read back, the threads are processes again: `--thread` keeps one (its 3 samples).
    let dir = temp();
    let written = dir.path().join("threads.tree");
    proftool().args(["convert", "-q"]).arg(fixture("sampler/two-threads.sampler")).arg(&written).assert().success();
    let (one, _) = run(&["convert", "-q", "--thread", "Thread_0002", "--to", "folded"], &written);
    assert_eq!(one, "Profile root;Thread_0002;main;write 3\n");
}

/// LispWorks' documentation (docs/sources.md): Seen-Count is the samples a function was on the
/// stack in, Top-Count those it was on top in. After a filter they are counted again from the
/// stacks kept, by hand from processes.tree: `--focus FIB` keeps the 60 samples through FIB (the
/// root and the listener are seen in 60, on top in none of them; FIB keeps 60 seen, 25 + 25 on
/// top); `--thread` keeps the idle process's 10; `--hide FIB` gives FIB's 50 top samples to the
/// listener (5 + 50 = 55). Call-Count (3 for FIB) is no count of samples and stays.
#[test]
fn lispworks_seen_and_top_counts_are_counted_again_after_a_filter() {
    let after = |filter: &[&str]| {
        let mut args = vec!["convert", "-q", "--to", "lispworks"];
        args.extend(filter);
        run(&args, &fixture("lispworks/processes.tree")).0
    };
    let header = "LispWorks Profiler Tree: fib benchmark: run 2\n";
    let focus = [
        "0|60|0|60|0|\"Profile root\"",
        "1|60|0|60|0|\"CAPI Execution Listener 1\"",
        "2|60|3|60|50|CL-USER::FIB",
        "3|35|3|60|50|CL-USER::FIB",
        "4|10|0|10|10|(METHOD PRINT-OBJECT (WIDGET T))",
    ];
    assert_eq!(after(&["--focus", "FIB"]), header.to_string() + &focus.join("\n") + "\n");
    let thread = ["0|10|0|10|0|\"Profile root\"", "1|10|0|10|10|\"Idle \\\"process\\\"\""];
    assert_eq!(after(&["--thread", "Idle \"process\""]), header.to_string() + &thread.join("\n") + "\n");
    let hide = [
        "0|100|0|100|0|\"Profile root\"",
        "1|90|0|90|55|\"CAPI Execution Listener 1\"",
        "2|10|0|10|10|(METHOD PRINT-OBJECT (WIDGET T))",
        "2|25|0|25|25|CL-USER::|weird name|",
        "1|10|0|10|10|\"Idle \\\"process\\\"\"",
    ];
    assert_eq!(after(&["--hide", "FIB"]), header.to_string() + &hide.join("\n") + "\n");
}

#[test]
fn lispworks_function_info_is_computed_by_the_model_rules() {
    // processes.tree is consistent: its Seen and Top counts are what the rules compute. Dropping them
    // (keeping Call-Count, which no rule can compute) must write the same file back.
    let path = fixtures_dir().join("lispworks/processes.tree");
    let (mut profile, _) = read_fixture(Format::Lispworks, &path);
    for facts in profile.function_facts.values_mut() {
        facts.seen = None;
        facts.top = None;
    }
    let original = std::fs::read_to_string(&path).unwrap();
    let without_comments: String = original.lines().filter(|l| !l.starts_with(';')).map(|l| format!("{l}\n")).collect();
    assert_eq!(String::from_utf8(write(Format::Lispworks, &profile)).unwrap(), without_comments);
}

#[test]
fn folded_to_lispworks_computes_seen_once_per_sample_under_recursion() {
    let (profile, _) = read_bytes(Format::Folded, b"f;g;f 3\nf 2\n");
    let tree = String::from_utf8(write(Format::Lispworks, &profile.unwrap())).unwrap();
    // f is on the stack in all 5 samples (recursion counted once), on top in 5; g in 3, on top in 0.
    assert_eq!(tree, "LispWorks Profiler Tree\n0|5|0|5|5|f\n1|3|0|3|0|g\n2|3|0|5|5|f\n");
}

#[test]
fn a_lispworks_tree_cut_inside_a_name_reads_with_a_warning_naming_its_last_line() {
    // processes.tree cut after `CL-USER` of `CL-USER::|weird name|` (byte 311, in line 8, which
    // starts at byte 291); the Idle process of line 9 is gone, so the root keeps its 10 samples.
    let (out, err) = to_folded(&fixture("lispworks/cut-in-a-name.tree"));
    // (its last space a no-break space in folded text, so that inferno reads one count)
    let listener = "Profile root;CAPI Execution Listener\u{a0}1";
    let want = format!(
        "Profile root 10\n{listener} 5\n{listener};CL-USER::FIB 25\n{listener};CL-USER::FIB;CL-USER::FIB 25\n\
         {listener};CL-USER::FIB;CL-USER::FIB;(METHOD PRINT-OBJECT (WIDGET T)) 10\n{listener};CL-USER 25\n"
    );
    assert_eq!(out, want);
    assert!(
        err.contains("cut-in-a-name.tree: line 8 (byte 291): the input ends without a line break, which lispworks files end every line with: it looks cut short, and the name on it may be cut"),
        "{err}"
    );
    // The whole file says nothing of the kind.
    let (_, err) = to_folded(&fixture("lispworks/processes.tree"));
    assert!(!err.contains("line break"), "{err}");
}
