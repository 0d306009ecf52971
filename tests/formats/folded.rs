//! Folded stacks (`folded`): names inferno reads as one count, headers and stray lines skipped,
//! a count cut short, an empty input.

use crate::support::binary::{failure, fixture, proftool, run_stdin};

#[test]
fn inferno_flamegraph_draws_the_folded_output_of_a_name_ending_in_a_number_as_one_count() {
    // processes.tree by hand: the listener process holds 5 + 25 + 25 + 10 + 25 = 90 of 100 samples.
    let out = proftool()
        .args(["convert", "--to", "folded"])
        .arg(fixture("lispworks/processes.tree"))
        .arg("-")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("1 frame name ends in a space and a number, which inferno-flamegraph would read as a second count: that space is written as a no-break space (U+00A0)"), "{stderr}");
    let folded = String::from_utf8(out.stdout).unwrap();
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut inferno::flamegraph::Options::default(), folded.lines(), &mut svg).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.contains("<title>all (100 samples, 100%)</title>"), "{svg}");
    assert!(svg.contains("<title>CAPI Execution Listener\u{a0}1 (90 samples, 90.00%)</title>"), "{svg}");
    assert!(!svg.contains("%;"), "no differential share: {svg}");
}

#[test]
fn folded_headers_and_stray_lines_are_skipped_with_one_warning() {
    // Two header lines, five stacks, a stray line: most lines are stacks, so stdin is detected.
    let input = b"# perf record, then collapsed\n// by hand\nmain;a 2\nmain;b 1\n-- cut here --\nmain;a 4\nmain;b 2\nmain;c 5\n";
    let (out, err) = run_stdin(&["convert", "--to", "folded"], input);
    assert_eq!(out, "main;a 6\nmain;b 3\nmain;c 5\n");
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(err.contains("<stdin>: line 1 (byte 0): 3 lines that are not `stack count` skipped"), "{err}");
    // Nothing but such lines is no profile: refused at the first.
    let err =
        failure(proftool().args(["convert", "--from", "folded", "--to", "folded", "-", "-"]).write_stdin("# only\n"));
    assert!(
        err.contains("folded: line 1 (byte 0): expected a stack, a space and a count (a;b;c 12), found \"# only\""),
        "{err}"
    );
    // Half stacks and half other lines is too little to call the content folded.
    let err = failure(proftool().args(["convert", "--to", "folded", "-", "-"]).write_stdin("# header\nmain 1\n"));
    assert!(err.contains("cannot tell the input format"), "{err}");
}

#[test]
fn folded_stacks_cut_in_a_count_say_so() {
    let (out, err) = run_stdin(&["convert", "--from", "folded", "--to", "folded"], b"a;b 12\na;c 3");
    assert_eq!(out, "a;b 12\na;c 3\n");
    assert!(err.contains("line 2 (byte 7): the input ends without a line break, which folded files end every line with: it looks cut short, and its count may have lost digits"), "{err}");
    let (_, err) = run_stdin(&["convert", "--from", "folded", "--to", "folded"], b"a;b 12\na;c 3\n");
    assert!(!err.contains("line break"), "{err}");
}

#[test]
fn an_empty_or_blank_folded_input_is_an_error() {
    for (name, text) in [("empty.folded", ""), ("blank.folded", "\n  \n")] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let output = dir.path().join("out.pb.gz");
        let out = proftool().arg("convert").arg(&input).arg(&output).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("folded: line 1 (byte 0): expected a stack, a space and a count (a;b;c 12), found no stack in the whole input (it is empty or blank)"), "{stderr}");
        assert!(!output.exists(), "{name}: no output is written");
    }
}
