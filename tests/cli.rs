//! The `proftool` binary end to end, whatever the format (each format's own cases are in
//! tests/formats/): files, pipes, signals, detection, limits on outputs, exit codes, no partial
//! outputs. Each test in its own temporary folder.

use crate::support::binary::{files_in, fixture, proftool, run, temp};
use predicates::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

#[test]
fn merge_and_diff_refuse_an_output_that_is_one_of_their_inputs() {
    let dir = temp();
    let (x, y) = (dir.path().join("x.folded"), dir.path().join("y.folded"));
    std::fs::copy(fixture("folded/basic.folded"), &x).unwrap();
    std::fs::copy(fixture("folded/basic.folded"), &y).unwrap();
    let link = dir.path().join("link.folded");
    std::fs::hard_link(&x, &link).unwrap();
    let before = std::fs::read(&x).unwrap();
    let runs: [Vec<std::ffi::OsString>; 4] = [
        vec!["merge".into(), "-o".into(), x.clone().into(), x.clone().into(), y.clone().into()],
        // The same file by another name: a hard link.
        vec!["merge".into(), "-o".into(), link.clone().into(), x.clone().into(), y.clone().into()],
        vec!["diff".into(), "--to".into(), "folded".into(), y.clone().into(), x.clone().into(), y.clone().into()],
        vec![
            "diff".into(),
            "--to".into(),
            "pprof".into(),
            dir.path().join(".").join("x.folded").into(),
            x.clone().into(),
            y.clone().into(),
        ],
    ];
    for args in runs {
        let out = proftool().args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("is the input file") && stderr.contains("refusing to overwrite it"), "{stderr}");
    }
    assert_eq!(std::fs::read(&x).unwrap(), before);
    assert_eq!(std::fs::read(&y).unwrap(), before);
    assert_eq!(files_in(dir.path()), vec!["link.folded", "x.folded", "y.folded"]);
}

#[test]
fn a_full_stdout_is_named_as_the_stream_that_failed() {
    let tree = fixture("lispworks/processes.tree");
    let tree = tree.to_str().unwrap();
    for args in [
        vec!["summary", tree],
        vec!["tree", tree],
        vec!["data", tree],
        vec!["info", tree],
        vec!["diff", tree, tree],
        vec!["convert", "--to", "folded", tree, "-"],
    ] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("proftool"))
            .arg("-q")
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr.starts_with("proftool: error: stdout: ") && stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_conversion_ended_by_a_signal_leaves_no_temporary_file_and_the_output_as_it_was() {
    // A chain 5,000 deep, a sample at each level: its folded stacks are about 100 MB, written for
    // long enough to be stopped while the temporary file is there.
    let dir = temp();
    let input = dir.path().join("deep.tree");
    let depth = 5000;
    let mut tree = String::from("LispWorks Profiler Tree\n");
    for d in 0..depth {
        tree.push_str(&format!("{d}|{}|0|{}|1|CL-USER::F{d}\n", depth - d, depth - d));
    }
    std::fs::write(&input, tree).unwrap();
    let output = dir.path().join("out.folded");
    for (signal, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        std::fs::write(&output, "old\n").unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("proftool"))
            .args(["convert", "-q"])
            .arg(&input)
            .arg(&output)
            .spawn()
            .unwrap();
        let temporary = || files_in(dir.path()).iter().any(|name| name.starts_with(".proftool-"));
        let start = std::time::Instant::now();
        while !temporary() && start.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(temporary(), "the conversion never started writing");
        std::process::Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().unwrap();
        let status = child.wait().unwrap();
        // Ended by the signal (a shell reports 128 + its number), not by finishing first.
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal().map(|s| 128 + s), Some(code), "{signal}: {status:?}");
        assert_eq!(files_in(dir.path()), vec!["deep.tree", "out.folded"], "{signal}");
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "old\n", "{signal}");
    }
}

/// A LispWorks tree of a chain 20,000 frames deep (`F`) with `leaves` leaves below it (`L0`, `L1`,
/// …), one sample each: small as a tree, but every folded line holds the whole chain.
fn deep_and_bushy_tree(leaves: usize) -> String {
    const DEPTH: usize = 20_000;
    let mut text = String::from("LispWorks Profiler Tree: deep\n");
    for depth in 0..DEPTH {
        text.push_str(&format!("{depth}|{leaves}|0|{leaves}|0|F\n"));
    }
    for leaf in 0..leaves {
        text.push_str(&format!("{DEPTH}|1|0|1|1|L{leaf}\n"));
    }
    text
}

#[test]
fn folded_output_past_max_output_size_is_refused_with_its_size_before_a_byte_is_written() {
    let dir = temp();
    let input = dir.path().join("deep.tree");
    let text = deep_and_bushy_tree(1000);
    std::fs::write(&input, &text).unwrap();
    // By hand: 1,000 lines `F;` × 20,000 + `L<i>` + ` 1\n`: 1,000 × 40,003 bytes, and the leaves'
    // names: 10 of 2 bytes, 90 of 3, 900 of 4 (3,890): 40,006,890 bytes.
    let size = 40_006_890;
    let output = dir.path().join("out.folded");
    let out = proftool().args(["convert", "--max-output-size", "10M"]).arg(&input).arg(&output).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let expected =
        format!("cannot write folded: it would be {size} bytes (38.2 MiB) from an input of {} bytes", text.len());
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(stderr.contains("more than --max-output-size 10485760 allows"), "{stderr}");
    assert!(stderr.contains("raise the limit with --max-output-size SIZE"), "{stderr}");
    assert_eq!(files_in(dir.path()), vec!["deep.tree"]);
    // At the limit it is written, to the byte.
    let limit = size.to_string();
    proftool().args(["convert", "--max-output-size", &limit]).arg(&input).arg(&output).assert().success();
    assert_eq!(std::fs::metadata(&output).unwrap().len(), size);
    // From stdin, the input's size is the bytes read; nothing reaches stdout.
    let out = proftool()
        .args(["convert", "--from", "lispworks", "--to", "folded", "--max-output-size", "1000", "-", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("from an input of {} bytes", text.len())), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn writers_of_whole_stacks_refuse_more_than_a_hundred_times_the_input_past_a_gibibyte_by_default() {
    let dir = temp();
    let input = dir.path().join("deep.tree");
    // 30,000 leaves below a chain 20,000 deep: about 750 KB, whose folded lines would be 30,000 ×
    // 40,000 bytes of `F;` alone (1.2 GB), Sampler's records 30,000 × 20,000 ids of 4 bytes (2.4 GB)
    // speedscope's samples 30,000 × 20,000 indices `0,` (1.2 GB) and BR's groups 30,000 × 20,000
    // records of 11 bytes (6.6 GB): more than 1 GiB, and more than 100 times the input.
    let text = deep_and_bushy_tree(30_000);
    assert!(text.len() * 100 < 1 << 30);
    std::fs::write(&input, &text).unwrap();
    for (format, output) in
        [("folded", "out.folded"), ("sampler", "out.sampler"), ("speedscope", "out.speedscope.json"), ("br", "out.br")]
    {
        let out = proftool().arg("convert").arg(&input).arg(dir.path().join(output)).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let refused = format!("cannot write {format}: it would be ");
        assert!(stderr.contains(&refused), "{stderr}");
        let limit =
            "more than the default limit of 1073741824 bytes (1.0 GiB) allows (100 times the input, at least 1 GiB)";
        assert!(stderr.contains(limit), "{stderr}");
    }
    assert_eq!(files_in(dir.path()), vec!["deep.tree"]);
    // The differential folded output of diff is folded stacks too.
    let out = proftool().args(["diff", "--to", "folded", "-"]).arg(&input).arg(&input).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write folded: it would be "), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// 5,000 Chrome trace `B` events never closed: a chain 5,000 deep, each frame with 1 µs of its own,
/// so each is a stack of its own in a flame graph's lines and a pprof sample (by hand: 5,000 ×
/// 5,001 / 2 frames of `f;` in the lines, 25 MB; as many location ids of a byte in the samples,
/// 12.5 MB). Both are held to --max-output-size before a byte is written, and within it written.
#[test]
fn svg_and_pprof_hold_stacks_of_a_deep_chain_to_the_output_limit() {
    let dir = temp();
    let input = dir.path().join("unclosed.trace.json");
    let events: Vec<String> =
        (0..5000).map(|ts| format!(r#"{{"ph":"B","name":"f","ts":{ts},"pid":1,"tid":1}}"#)).collect();
    std::fs::write(&input, format!("[{}]", events.join(",\n"))).unwrap();
    for (output, refused) in [
        ("out.svg", "cannot write svg: the stacks it is drawn from would be more than 1048576 bytes (1.0 MiB)"),
        ("out.pb.gz", "cannot write pprof: it would be 125"),
    ] {
        let out = proftool()
            .args(["convert", "-q", "--max-output-size", "1M"])
            .arg(&input)
            .arg(dir.path().join(output))
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(refused), "{stderr}");
        assert!(stderr.contains("raise the limit with --max-output-size SIZE"), "{stderr}");
        assert!(files_in(dir.path()).iter().all(|file| !file.starts_with(".proftool") && file != output));
        proftool().args(["convert", "-q"]).arg(&input).arg(dir.path().join(output)).assert().success();
    }
}

/// A callgrind file of `levels` nested diamonds: `f0` calls `a0` and `b0`, each of which calls
/// `f1`, and so on to `f{levels}`; each function costs 1 Ir of its own on line 1 and each call one
/// call and its callee's inclusive cost.
fn nested_diamonds(levels: usize) -> String {
    // Each function costs `unit` of its own: a multiple of 2^levels, so that halving a cost at
    // every diamond leaves whole numbers (no stack of the tree weighs 0, which folded leaves out).
    let unit = 1u64 << levels;
    let mut inclusive = vec![unit; levels + 1];
    for k in (0..levels).rev() {
        inclusive[k] = unit + 2 * (unit + inclusive[k + 1]);
    }
    let mut text = String::from("# callgrind format\nversion: 1\ncreator: diamonds\nevents: Ir\nfl=d.c\n");
    for k in 0..=levels {
        text.push_str(&format!("fn=f{k}\n1 {unit}\n"));
        for side in ["a", "b"].iter().filter(|_| k < levels) {
            text.push_str(&format!("cfn={side}{k}\ncalls=1 1\n1 {}\n", unit + inclusive[k + 1]));
        }
    }
    for k in 0..levels {
        for side in ["a", "b"] {
            text.push_str(&format!("fn={side}{k}\n1 {unit}\ncfn=f{}\ncalls=1 1\n1 {}\n", k + 1, inclusive[k + 1]));
        }
    }
    text
}

/// A call graph of 12 nested diamonds (37 functions, 48 calls) is a tree of 2^13 - 1 visits of
/// `f`s and 2^13 - 2 of `a`s and `b`s, each with its line: 32,762 nodes, 50 deep (by hand). The
/// reader says so before anything is written, and every output stops at --max-output-size: those of
/// whole stacks before a byte is written, the page and the other trees where they pass it.
#[test]
fn a_call_graph_that_explodes_is_said_and_held_to_the_output_limit() {
    let dir = temp();
    let input = dir.path().join("diamonds.callgrind");
    std::fs::write(&input, nested_diamonds(12)).unwrap();
    let out = proftool()
        .args(["convert", "--max-output-size", "10K"])
        .arg(&input)
        .arg(dir.path().join("out.html"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("the call graph of 37 functions and 48 calls expands into a tree of 32762 nodes, 50 frames deep (385 times the graph)"), "{stderr}");
    for output in ["out.html", "out.folded", "out.tree", "out.xml", "out.cpuprofile", "out.pb.gz", "out.svg"] {
        let out = proftool()
            .args(["convert", "-q", "--metric", "Ir", "--max-output-size", "10K"])
            .arg(&input)
            .arg(dir.path().join(output))
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{output}: {stderr}");
        assert!(
            stderr.contains("would be ") && stderr.contains("more than --max-output-size 10240 allows"),
            "{stderr}"
        );
        assert_eq!(files_in(dir.path()), vec!["diamonds.callgrind"], "{output}");
    }
    // diff's page of the graph against itself stops there too.
    let page = dir.path().join("diff.html");
    let out = proftool()
        .args(["diff", "--max-output-size", "10K", "--to", "html"])
        .arg(&page)
        .arg(&input)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write html: it would be more than 10240 bytes (10.0 KiB)"), "{stderr}");
    assert_eq!(files_in(dir.path()), vec!["diamonds.callgrind"]);
    proftool().args(["convert", "-q"]).arg(&input).arg(dir.path().join("out.html")).assert().success();
}

/// The tree a call graph expands into is held to --max-graph-nodes while it is built: 12 nested
/// diamonds are 32,762 nodes (by hand, above), read with a limit of exactly that many and refused,
/// with the limit, the flag and the graph's size, at one fewer, by every command that reads.
#[test]
fn a_call_graph_is_expanded_into_no_more_nodes_than_max_graph_nodes() {
    let dir = temp();
    let input = dir.path().join("diamonds.callgrind");
    std::fs::write(&input, nested_diamonds(12)).unwrap();
    proftool().args(["summary", "-q", "--max-graph-nodes", "32762"]).arg(&input).assert().success();
    for command in ["summary", "info", "tree"] {
        let out = proftool().args([command, "--max-graph-nodes", "32761"]).arg(&input).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        assert!(
            stderr.contains("expected a call graph that expands into a tree of at most 32761 nodes (--max-graph-nodes N raises the limit), found a graph of 37 functions and 48 calls that expands into more"),
            "{command}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{command}");
    }
}

/// One line longer than --max-line-length stops a line reader with an error at its start, the limit
/// and the option, whatever follows it: a 2,000-byte line 3 of a folded file, an endless stream of
/// zeros (read up to the limit only), a LispWorks tree. A GHC -px cost line longer than the limit
/// is read in pieces split at its spaces, as before.
#[test]
fn a_line_longer_than_the_limit_is_an_error_at_its_start() {
    let mut text = String::from("a;b 1\na;c 2\n");
    let line_3 = text.len();
    text.push_str(&format!("a;{} 3\na 1\n", "x".repeat(2000)));
    let out = proftool()
        .args(["convert", "--from", "folded", "--to", "folded", "--max-line-length", "1K", "-", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let expected = format!("folded: line 3 (byte {line_3}): expected lines of at most 1024 bytes (--max-line-length SIZE raises the limit), found a line longer than that");
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(out.stdout.is_empty());
    proftool()
        .args(["convert", "--from", "folded", "--to", "folded", "--max-line-length", "2K", "-", "-"])
        .write_stdin(text)
        .assert()
        .success();
    // An endless stream of zeros is read to the limit, not to its end (which it has none of).
    let mut zeros = std::process::Command::new(assert_cmd::cargo::cargo_bin("proftool"))
        .args(["convert", "--from", "lispworks", "--to", "folded", "--max-line-length", "4M", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = zeros.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = vec![b'0'; 1 << 16];
        while stdin.write_all(&block).is_ok() {}
    });
    let out = zeros.wait_with_output().unwrap();
    feeder.join().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("lispworks: line 1 (byte 0): expected lines of at most 4194304 bytes"), "{stderr}");
    // -px's cost line of 30,000 records (360 KB), split at its spaces, is no line too long.
    let mut px = String::from("\"Wed Jun  3 21:49 1993\"\n\"20 ms\"\n1 1 \"f\" \"Main\"\n2 1 1 1\n");
    px.extend((2..=30_000).map(|i| format!("2 {i} 2 1 {}\n", i - 1)));
    px.push_str("5 30000");
    px.extend((1..=30_000).map(|i| format!(" 1 {i} 1 1 0")));
    px.push_str(" 0\n");
    let out = proftool()
        .args(["info", "--from", "ghc-px", "--max-line-length", "64K", "-"])
        .write_stdin(px)
        .assert()
        .success();
    let info = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(info.contains("ticks (ticks, count, additive): total 30000"), "{info}");
}

#[test]
fn diff_reads_standard_input_once() {
    proftool()
        .args(["diff", "-", "-"])
        .write_stdin("a 1\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("diff: standard input (-) can be read once"));
}

#[test]
fn stdin_to_stdout_with_from_and_to() {
    let input = std::fs::read(fixture("lispworks/minimal.tree")).unwrap();
    proftool()
        .args(["convert", "--from", "lispworks", "--to", "folded", "-", "-"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout("MAIN 7\n");
}

#[test]
fn stdin_is_detected_by_content() {
    let input = std::fs::read(fixture("lispworks/minimal.tree")).unwrap();
    proftool().args(["convert", "--to", "folded", "-", "-"]).write_stdin(input).assert().success().stdout("MAIN 7\n");
    proftool()
        .args(["convert", "--to", "lispworks", "-", "-"])
        .write_stdin("a;b 2\n")
        .assert()
        .success()
        .stdout("LispWorks Profiler Tree\n0|2|0|2|0|a\n1|2|0|2|2|b\n");
}

#[test]
fn content_wins_over_a_wrong_extension_with_a_warning() {
    let dir = temp();
    let misnamed = dir.path().join("really-lispworks.folded");
    std::fs::copy(fixture("lispworks/minimal.tree"), &misnamed).unwrap();
    proftool()
        .arg("convert")
        .arg(&misnamed)
        .arg(dir.path().join("o.folded"))
        .assert()
        .success()
        .stderr(predicate::str::contains("the extension says folded but the content is lispworks"));
}

#[test]
fn output_format_needs_to_or_an_extension() {
    proftool()
        .args(["convert", "-", "-"])
        .write_stdin("a 1\n")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot tell the output format").and(predicate::str::contains("--to")));
}

#[test]
fn undetectable_input_lists_the_formats() {
    let dir = temp();
    let odd = dir.path().join("data.bin");
    std::fs::write(&odd, b"\x00\x01\x02").unwrap();
    proftool().arg("convert").arg(&odd).arg(dir.path().join("o.folded")).assert().code(1).stderr(
        predicate::str::contains("cannot tell the input format")
            .and(predicate::str::contains("bpftrace, br, callgrind")),
    );
}

#[test]
fn an_output_in_a_missing_directory_names_the_path_given_and_no_temporary_file() {
    let dir = temp();
    let out = dir.path().join("missing").join("o.folded");
    let assert = proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&out).assert().code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains(&format!("{}: cannot create: No such file or directory", out.display())), "{stderr}");
    assert!(!stderr.contains(".proftool-"), "{stderr}");
}

#[test]
fn a_damaged_file_gets_the_error_of_the_format_its_extension_names() {
    // Cut off after the first header line: once read as folded stacks (exit 0), it must fail with
    // the -px reader's own message, naming the missing line.
    let dir = temp();
    let cut = dir.path().join("run.px");
    std::fs::write(&cut, "\"Wed Jun  3 21:49 1993").unwrap();
    let out = dir.path().join("o.folded");
    proftool().arg("convert").arg(&cut).arg(&out).assert().code(1).stderr(
        predicate::str::contains("does not look like ghc-px")
            .and(predicate::str::contains("run.px: ghc-px: line 1"))
            .and(predicate::str::contains("cannot tell").not()),
    );
    assert!(!out.exists());
    let csv = dir.path().join("report.csv");
    std::fs::write(&csv, "name,count\nf,1\n").unwrap();
    proftool()
        .arg("convert")
        .arg(&csv)
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("report.csv: dyalog-csv: line 1"));
}

#[test]
fn every_bad_fixture_fails_with_file_and_position_and_leaves_nothing() {
    for (format, path) in crate::support::bad_fixtures() {
        let dir = temp();
        let out = dir.path().join("out.folded");
        let expected = std::fs::read_to_string(
            path.with_file_name(format!("{}.err", path.file_name().unwrap().to_str().unwrap())),
        )
        .unwrap();
        let message = format!("proftool: error: {}: {}", path.display(), expected.trim_end());
        proftool()
            .args(["convert", "--from", format.name()])
            .arg(&path)
            .arg(&out)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
        assert!(files_in(dir.path()).is_empty(), "{}: left {:?}", path.display(), files_in(dir.path()));
    }
}

#[test]
fn a_failed_run_keeps_an_existing_output_untouched() {
    let dir = temp();
    let out = dir.path().join("out.folded");
    std::fs::write(&out, "previous 1\n").unwrap();
    proftool().arg("convert").arg(fixture("lispworks/bad/depth-jump.tree")).arg(&out).assert().code(1);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous 1\n");
    assert_eq!(files_in(dir.path()), vec!["out.folded"]);
}

#[test]
fn output_naming_the_input_is_refused() {
    let dir = temp();
    let file = dir.path().join("x.tree");
    std::fs::copy(fixture("lispworks/processes.tree"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    proftool()
        .arg("convert")
        .arg(&file)
        .arg(dir.path().join(".").join("x.tree"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is the input file"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(files_in(dir.path()), vec!["x.tree"]);
}

/// The binary with stdin redirected from `file`, as a shell's `< file` does.
fn redirected(file: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("proftool"));
    command.stdin(std::fs::File::open(file).unwrap()).stdout(Stdio::null());
    command
}

/// stdin redirected from the output (`convert - a.folded < a.folded`) is the output's file as much as
/// a named input is: refused before anything is read, by every command that writes a file, the file
/// as it was.
#[test]
fn stdin_redirected_from_the_output_is_refused() {
    let dir = temp();
    let file = dir.path().join("a.folded");
    std::fs::copy(fixture("folded/basic.folded"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let other = fixture("folded/basic.folded");
    let runs: [Vec<std::ffi::OsString>; 5] = [
        vec!["convert".into(), "-".into(), file.clone().into()],
        vec![
            "convert".into(),
            "--to".into(),
            "folded".into(),
            "-".into(),
            dir.path().join(".").join("a.folded").into(),
        ],
        vec!["merge".into(), "-o".into(), file.clone().into(), other.clone().into(), "-".into()],
        vec!["diff".into(), "--to".into(), "folded".into(), file.clone().into(), other.clone().into(), "-".into()],
        vec![
            "view".into(),
            "--no-open".into(),
            "--from".into(),
            "folded".into(),
            "--out".into(),
            file.clone().into(),
            "-".into(),
        ],
    ];
    for args in runs {
        let out = redirected(&file).args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("is the input file redirected to stdin; refusing to overwrite it"), "{stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), before, "{args:?}");
    }
    assert_eq!(files_in(dir.path()), vec!["a.folded"]);
    // stdin from another file, or a pipe, is no output.
    let out = dir.path().join("b.folded");
    assert!(redirected(&file).arg("convert").arg("-").arg(&out).status().unwrap().success());
    proftool().arg("convert").arg("-").arg(&out).write_stdin(before.clone()).assert().success();
    assert_eq!(files_in(dir.path()), vec!["a.folded", "b.folded"]);
}

/// A named pipe (like `/dev/null`, `/dev/stdout` or a shell's `>(…)`) is written in place: renaming
/// a finished temporary file over it would replace the pipe with a file.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_pipe_stays_a_pipe() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp();
    let pipe = dir.path().join("out.folded");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success());
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::read_to_string(pipe).unwrap())
    };
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&pipe).assert().success();
    // Checked before joining: had the pipe been replaced, the reader would wait forever.
    assert!(std::fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
    let through_pipe = reader.join().unwrap();
    let direct = run(&["convert", "-q", "--to", "folded"], &fixture("lispworks/processes.tree")).0;
    assert_eq!(through_pipe, direct);
    assert!(through_pipe.starts_with("Profile root;CAPI Execution Listener\u{a0}1 5\n"));
    assert_eq!(files_in(dir.path()), vec!["out.folded"]);
}

/// `/dev/stdout`, or a link to it, is proftool's own stdout: in a shell group writing to a log
/// opened for appending, the output goes after what came before it and before what comes after it,
/// into the same file.
#[cfg(target_os = "linux")]
#[test]
fn dev_stdout_is_the_stream_the_shell_opened() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp();
    let log = dir.path().join("log.txt");
    std::fs::write(&log, "before\n").unwrap();
    let inode = std::fs::metadata(&log).unwrap().ino();
    std::os::unix::fs::symlink("/dev/stdout", dir.path().join("out")).unwrap();
    let script = r#"{ echo A; "$0" convert -q --to folded "$1" /dev/stdout; echo B; "$0" convert -q --to folded "$1" out; echo C; } >> log.txt"#;
    let status = std::process::Command::new("sh")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("proftool"))
        .arg(fixture("lispworks/processes.tree"))
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let folded = run(&["convert", "-q", "--to", "folded"], &fixture("lispworks/processes.tree")).0;
    assert!(folded.starts_with("Profile root;CAPI Execution Listener\u{a0}1 5\n"));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), format!("before\nA\n{folded}B\n{folded}C\n"));
    assert_eq!(std::fs::metadata(&log).unwrap().ino(), inode);
    assert!(std::fs::symlink_metadata(dir.path().join("out")).unwrap().file_type().is_symlink());
}

/// A chain of links to a file that does not exist yet: the file is made where the last one points.
#[cfg(unix)]
#[test]
fn a_chain_of_links_to_nothing_yet_makes_the_file_at_its_end() {
    let dir = temp();
    std::os::unix::fs::symlink("second", dir.path().join("first")).unwrap();
    std::os::unix::fs::symlink("made.folded", dir.path().join("second")).unwrap();
    let first = dir.path().join("first");
    proftool()
        .args(["convert", "--to", "folded"])
        .arg(fixture("lispworks/processes.tree"))
        .arg(first)
        .assert()
        .success();
    for link in ["first", "second"] {
        assert!(std::fs::symlink_metadata(dir.path().join(link)).unwrap().file_type().is_symlink());
    }
    let written = std::fs::read_to_string(dir.path().join("made.folded")).unwrap();
    assert!(written.starts_with("Profile root;CAPI Execution Listener\u{a0}1 5\n"), "{written}");
    assert_eq!(files_in(dir.path()), vec!["first", "made.folded", "second"]);
}

/// A regular file under `/dev` (on `/dev/shm`) is replaced like any other, not appended to.
#[cfg(target_os = "linux")]
#[test]
fn a_regular_file_under_dev_is_replaced() {
    let Ok(dir) = tempfile::tempdir_in("/dev/shm") else { return };
    let out = dir.path().join("out.folded");
    std::fs::write(&out, "previous 1\n").unwrap();
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&out).assert().success();
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("Profile root;CAPI Execution Listener\u{a0}1 5\n"), "{written}");
    assert_eq!(files_in(dir.path()), vec!["out.folded"]);
}

#[cfg(unix)]
#[test]
fn an_output_that_is_a_link_keeps_the_link_and_replaces_its_target() {
    let dir = temp();
    let target = dir.path().join("real.folded");
    std::fs::write(&target, "previous 1\n").unwrap();
    let link = dir.path().join("link.folded");
    std::os::unix::fs::symlink("real.folded", &link).unwrap();
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&link).assert().success();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("Profile root;CAPI Execution Listener\u{a0}1 5\n"), "{written}");
    assert_eq!(files_in(dir.path()), vec!["link.folded", "real.folded"]);
}

#[test]
fn an_output_that_is_a_directory_is_refused() {
    let dir = temp();
    let out = dir.path().join("out.folded");
    std::fs::create_dir(&out).unwrap();
    proftool()
        .arg("convert")
        .arg(fixture("lispworks/processes.tree"))
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is a directory"));
    assert_eq!(files_in(dir.path()), vec!["out.folded"]);
    assert!(files_in(&out).is_empty());
}

#[test]
fn usable_but_odd_input_warns_and_succeeds() {
    proftool()
        .args(["convert", "--to", "folded", "-", "-"])
        .write_stdin(std::fs::read(fixture("lispworks/negative-self.tree")).unwrap())
        .assert()
        .success()
        .stderr(predicate::str::contains("<stdin>: line 3 (byte 52): Count is 1 less than the sum"));
}

#[test]
fn usage_errors_exit_2() {
    proftool().args(["convert", "--from", "nonesuch", "a", "b"]).assert().code(2);
    proftool().args(["convert", "only-one-arg"]).assert().code(2);
    proftool().arg("frobnicate").assert().code(2);
}

#[test]
fn missing_input_file_is_a_failed_run() {
    proftool()
        .args(["convert", "does-not-exist.tree", "o.folded"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("does-not-exist.tree: cannot open"));
}

#[test]
fn unknown_metric_names_the_available_ones() {
    proftool()
        .args(["convert", "--metric", "alloc", "--to", "folded", "-", "-"])
        .write_stdin("a 1\n")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--metric alloc: the profile has no such metric (it has: samples)"));
}

/// Runs proftool with `args` and its stderr a socket whose other end is closed before it starts:
/// every write to stderr fails with a broken pipe, as in `proftool … 2>&1 >/dev/null | true`.
fn with_stderr_closed(args: &[&str]) -> std::process::Output {
    let (stderr, gone) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(gone);
    std::process::Command::new(assert_cmd::cargo::cargo_bin("proftool"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(std::os::fd::OwnedFd::from(stderr)))
        .output()
        .unwrap()
}

#[test]
fn a_closed_stderr_pipe_keeps_the_runs_outcome() {
    // The conversion warns (folded has no title, no Call-Count) and succeeds: exit 0, output whole.
    let tree = fixture("lispworks/processes.tree");
    let out = with_stderr_closed(&["convert", "--to", "folded", tree.to_str().unwrap(), "-"]);
    assert_eq!(out.status.code(), Some(0));
    let folded = String::from_utf8(out.stdout).unwrap();
    assert!(folded.ends_with('\n') && folded.lines().count() > 5, "{folded}");
    // A failed run still fails, its error unsaid: exit 1, not a panic's 101.
    let out = with_stderr_closed(&["summary", "/nonexistent/run.tree"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn closed_stdout_pipe_ends_quietly() {
    // Enough output to fill the pipe buffer after `head` has gone.
    let mut big = String::from("LispWorks Profiler Tree: big\n0|200000|0|200000|0|ROOT\n");
    for i in 0..100_000 {
        big.push_str(&format!("1|2|0|2|2|CL-USER::FUNCTION-NUMBER-{i}\n"));
    }
    let bin = assert_cmd::cargo::cargo_bin("proftool");
    let mut child = std::process::Command::new(bin)
        .args(["convert", "--quiet", "--to", "folded", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert_eq!(first, "ROOT;CL-USER::FUNCTION-NUMBER-0 2\n");
    // The reader is dropped here: the pipe closes with most of the output unwritten.
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn formats_lists_every_format() {
    let out = proftool().arg("formats").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("NAME"));
    for &format in proftool::Format::ALL {
        assert!(text.lines().any(|l| l.starts_with(format.name())), "{format} missing from:\n{text}");
    }
}

#[test]
fn help_shows_examples() {
    proftool().arg("--help").assert().success().stdout(predicate::str::contains("Examples:"));
    proftool().args(["convert", "--help"]).assert().success().stdout(predicate::str::contains("--interval"));
}

/// `view` writes its page into a new folder of the temporary folder that only the user can open,
/// under a random name: a link another user plants at a name they can guess (the old
/// `proftool-view/` folder, a victim's file behind it) is never written through, and two views are
/// two folders.
#[cfg(unix)]
#[test]
fn view_writes_its_page_into_a_private_folder_of_its_own() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = temp();
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "mine\n").unwrap();
    let planted = tmp.path().join("proftool-view");
    std::fs::create_dir(&planted).unwrap();
    std::os::unix::fs::symlink(&victim, planted.join("edge.perf.html")).unwrap();
    let page = |_| {
        let out = proftool()
            .env("TMPDIR", tmp.path())
            .args(["view", "--no-open", "-q"])
            .arg(fixture("perf/edge.perf"))
            .assert()
            .success();
        std::path::PathBuf::from(String::from_utf8(out.get_output().stdout.clone()).unwrap().trim())
    };
    let pages = [page(1), page(2)];
    for page in &pages {
        let folder = page.parent().unwrap();
        assert_eq!(folder.parent().unwrap(), tmp.path(), "{}", page.display());
        assert!(folder.file_name().unwrap().to_str().unwrap().starts_with("proftool-view-"), "{}", page.display());
        assert_eq!(std::fs::metadata(folder).unwrap().permissions().mode() & 0o777, 0o700);
        assert!(std::fs::read_to_string(page).unwrap().starts_with("<!doctype html>"));
    }
    assert_ne!(pages[0].parent(), pages[1].parent());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n");
}

/// Other profilers' switches for a report's rows and order (`go tool pprof -top`, a `--limit`,
/// `perf report --sort`) are usage errors (exit 2) that name proftool's: `--first N`, `--exclusive`.
#[test]
fn other_tools_switches_are_told_proftools() {
    let perf = fixture("perf/work.perf");
    for (typed, meant) in [("--top", "--first N"), ("--limit=5", "--first N"), ("--sort", "--exclusive")] {
        let out = proftool().args(["summary", typed]).arg(&perf).assert().code(2);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains(&format!("tip: did you mean {meant}? ")), "{typed}: {stderr}");
    }
}
