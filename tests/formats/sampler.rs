//! Sampler files (`sampler`): threads (LispWorks processes among them) and back, the frame order
//! both ways, names without tabs, `--max-samples`.

use crate::support::binary::{files_in, fixture, proftool, run, temp};
use predicates::prelude::*;
use std::path::Path;

/// Issue 34 §8: LispWorks processes are threads. Into Sampler, each is a thread block of its own
/// named after it (the `"Profile root"` above them is no thread and goes); back into LispWorks,
/// they are quoted processes under one root again. Expected by hand from processes.tree: the
/// listener's 90 samples and the idle process's 10 in two blocks; the tree as read but for FIB's
/// Call-Count (3) and the title, which Sampler has no place for.
#[test]
fn lispworks_processes_are_sampler_threads_and_come_back() {
    let dir = temp();
    let sampler = dir.path().join("p.sampler");
    let tree = fixture("lispworks/processes.tree");
    let out = proftool().arg("convert").arg(&tree).arg(&sampler).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("Thread_0001"), "{stderr}");
    let bytes = std::fs::read(&sampler).unwrap();
    let has = |text: &[u8]| bytes.windows(text.len()).any(|w| w == text);
    // Thread ids 1 and 2: a symbol entry each, named by the process, and a block each.
    assert!(has(b"\t\x00\x00\x00\x01\t\x00\x00\x00\x00\tCAPI Execution Listener 1\t"), "{bytes:?}");
    assert!(has(b"\t\x00\x00\x00\x02\t\x00\x00\x00\x00\tIdle \"process\"\t"), "{bytes:?}");
    assert!(has(b"@threadV1.0\t0001\n") && has(b"@threadV1.0\t0002\n") && !has(b"@threadV1.0\t0003"));
    assert!(!has(b"Profile root"), "the pseudo-root is no thread and no function");
    let folded = |input: &Path| run(&["convert", "-q", "--sampler-order", "leaf-first", "--to", "folded"], input).0;
    let expected = [
        "CAPI Execution Listener\u{a0}1 5",
        "CAPI Execution Listener\u{a0}1;CL-USER::FIB 25",
        "CAPI Execution Listener\u{a0}1;CL-USER::FIB;CL-USER::FIB 25",
        "CAPI Execution Listener\u{a0}1;CL-USER::FIB;CL-USER::FIB;(METHOD PRINT-OBJECT (WIDGET T)) 10",
        "CAPI Execution Listener\u{a0}1;CL-USER::|weird name| 25",
        "Idle \"process\" 10",
    ];
    assert_eq!(folded(&sampler), expected.join("\n") + "\n");
    let back = run(&["convert", "-q", "--sampler-order", "leaf-first", "--to", "lispworks"], &sampler).0;
    let original = std::fs::read_to_string(&tree).unwrap();
    let expected: String = original
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{}\n", l.replace("|60|3|60|50|", "|60|0|60|50|").replace("|35|3|60|50|", "|35|0|60|50|")))
        .collect::<String>()
        .replace("LispWorks Profiler Tree: fib benchmark: run 2", "LispWorks Profiler Tree");
    assert_eq!(back, expected);
}

#[test]
fn sampler_frame_order_is_an_option_both_ways() {
    let dir = temp();
    let out = dir.path().join("p.sampler");
    proftool()
        .args(["convert", "--sampler-order", "root-first", "--from", "folded", "-"])
        .arg(&out)
        .write_stdin("main;parse;read 2\nmain;render 1\n")
        .assert()
        .success();
    let read = |order: &str| {
        let out = proftool()
            .args(["convert", "-q", "--to", "folded", "--sampler-order", order])
            .arg(&out)
            .arg("-")
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    assert_eq!(read("root-first"), "Thread_0001;main;parse;read 2\nThread_0001;main;render 1\n");
    assert_eq!(read("leaf-first"), "Thread_0001;read;parse;main 2\nThread_0001;render;main 1\n");
    // `main` opens every stack: auto sees the first frame constant and reads root-first, and says so.
    proftool()
        .args(["convert", "--to", "folded"])
        .arg(&out)
        .arg("-")
        .assert()
        .success()
        .stdout("Thread_0001;main;parse;read 2\nThread_0001;main;render 1\n")
        .stderr(predicate::str::contains("so stacks read root-first"));
}

#[test]
fn sampler_names_cannot_hold_tabs() {
    proftool()
        .args(["convert", "--from", "folded", "--to", "sampler", "-", "-"])
        .write_stdin("main;a\tb 1\n")
        .assert()
        .success()
        .stderr(predicate::str::contains("sampler frame names cannot hold '\\t': written as ' '"));
}

#[test]
fn sampler_output_is_capped_by_max_samples() {
    let dir = temp();
    let out = dir.path().join("p.sampler");
    proftool()
        .args(["convert", "--max-samples", "99"])
        .arg(fixture("lispworks/processes.tree"))
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("100 samples would be 100 sample lines, more than --max-samples 99 allows"));
    assert!(files_in(dir.path()).is_empty());
    proftool()
        .args(["convert", "--max-samples", "100"])
        .arg(fixture("lispworks/processes.tree"))
        .arg(&out)
        .assert()
        .success();
}

/// Two threads whose symbols have one name (`worker`, ids 0001 and 0002) are one root: the model
/// keeps a thread by its name, so stderr says so (they merged silently). A file written by hand from
/// the notes' grammar: a symbol table of the two threads and three functions, a block a thread.
#[test]
fn threads_of_one_name_are_one_root_and_said() {
    let bytes = b"@supersamplerV1.0\n@symboltableV1.1\n\t\x00\x00\x00\x01\t\x00\x00\x00\x00\tworker\tw\tw\n\t\x00\x00\x00\x02\t\x00\x00\x00\x00\tworker\tw\tw\n\t\x00\x01\x00\x00\t\x00\x00\x00\x00\tmain\t/bin/a\t/bin/a\n\t\x00\x01\x00\x01\t\x00\x00\x00\x00\tf\t/bin/a\t/bin/a\n\t\x00\x01\x00\x02\t\x00\x00\x00\x00\tg\t/bin/a\t/bin/a\n@end\n@threadV1.0\t0001\n\t\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x01\x00\x01\x00\x01\x00\x00\n\t\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x01\x00\x01\x00\x01\x00\x00\n@threadV1.0\t0002\n\t\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x01\x00\x02\x00\x01\x00\x00\n@end\n";
    let (profile, diag) = crate::support::read_bytes(proftool::Format::Sampler, bytes);
    assert_eq!(profile.unwrap().tree.roots().count(), 1);
    let said: Vec<&str> = diag.warnings().iter().map(|w| w.message.as_str()).collect();
    assert!(said.contains(&"threads 0001 and 0002 are both named worker: their samples are one thread's"), "{said:?}");
}

/// A file cut inside its first line is a Sampler file cut short, not "not a sampler file".
#[test]
fn a_file_cut_in_its_first_line_is_cut_short() {
    let (result, _) = crate::support::read_bytes(proftool::Format::Sampler, b"@supe");
    let error = result.err().unwrap().to_string();
    let expected = "byte 5: expected the rest of the first line, @supersamplerV1.0 (the file looks cut short)";
    assert!(error.contains(expected), "{error}");
}
