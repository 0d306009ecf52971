//! BR profiles (`br`): the backtrace order, timed files, `--br-mode` and `--max-samples`, detection
//! on stdin, errors at a byte offset.

use crate::support::binary::{fixture, proftool, run, temp};
use predicates::prelude::*;

#[test]
fn br_backtrace_order_is_an_option() {
    let sampled = fixture("br/sampled.br");
    // Checked by hand against make-fixtures.py: groups A (twice), B, C; lines merged into functions,
    // and the main routine's and the GOSUB routine's lines (no function to merge into) named by place.
    let inner = "orders.br:10.0;orders.br:100.0 1\norders.br:10.0;orders.br:100.0;FNTAX 2\norders.br:10.2 1\n";
    assert_eq!(run(&["convert", "-q", "--to", "folded"], &sampled).0, inner);
    let outer = "orders.br:100.0;orders.br:10.0;FNTAX 2\norders.br:10.0;orders.br:100.0 1\norders.br:10.2 1\n";
    let args = ["convert", "-q", "--to", "folded", "--br-backtrace", "outermost-first"];
    assert_eq!(run(&args, &sampled).0, outer);
    // Written in the order given, the file reads back the same with that order.
    let dir = temp();
    let out = dir.path().join("o.br");
    proftool().args(["convert", "-q", "--br-backtrace", "outermost-first"]).arg(&sampled).arg(&out).assert().success();
    assert_eq!(run(&args, &out).0, outer);
}

#[test]
fn br_timed_files_keep_their_time_and_round_trip_byte_for_byte() {
    let dir = temp();
    let (once, twice) = (dir.path().join("once.br"), dir.path().join("twice.br"));
    proftool().arg("convert").arg(fixture("br/timed.br")).arg(&once).assert().success().stderr("");
    proftool().arg("convert").arg(&once).arg(&twice).assert().success().stderr("");
    assert_eq!(std::fs::read(&once).unwrap(), std::fs::read(&twice).unwrap());
    // By hand from make-fixtures.py: G3 10^12 ns on main.br:50.1, G1 + G2 1,500 + 2,500 ns on FNREAD,
    // G4 100 + 200 ns on line 7 (no qualifier). A timed file is weighed by time unless told otherwise.
    let args = ["convert", "-q", "--to", "folded", "--interval", "1ns"];
    let expected = "main.br:50.1 1000000000000\nmain.br:50.1;FNREAD 4000\nmain.br:50.1;main.br:7.0 300\n";
    assert_eq!(run(&args, &once).0, expected);
    let counts = run(&["convert", "-q", "--to", "folded", "--metric", "samples"], &once).0;
    assert_eq!(counts, "main.br:50.1 1\nmain.br:50.1;FNREAD 2\nmain.br:50.1;main.br:7.0 1\n");
}

#[test]
fn br_mode_and_max_samples() {
    let dir = temp();
    let out = dir.path().join("p.br");
    proftool()
        .args(["convert", "--br-mode", "timed", "--interval", "2ms", "--from", "folded", "-"])
        .arg(&out)
        .write_stdin("main;work 3\n")
        .assert()
        .success()
        .stderr(predicate::str::contains("--br-mode timed: the profile has no time"));
    let args = ["convert", "-q", "--to", "folded", "--metric", "time", "--interval", "1ms"];
    assert_eq!(run(&args, &out).0, "main;work 6\n");
    proftool()
        .args(["convert", "--max-samples", "99"])
        .arg(fixture("lispworks/processes.tree"))
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("100 samples would be 100 groups, more than --max-samples 99 allows"));
}

#[test]
fn br_on_stdin_is_recognised_by_content() {
    let bytes = std::fs::read(fixture("br/sampled.br")).unwrap();
    proftool()
        .args(["convert", "-q", "--to", "folded", "-", "-"])
        .write_stdin(bytes)
        .assert()
        .success()
        .stdout("orders.br:10.0;orders.br:100.0 1\norders.br:10.0;orders.br:100.0;FNTAX 2\norders.br:10.2 1\n");
}

#[test]
fn br_errors_give_the_byte_offset() {
    proftool()
        .args(["convert", "--to", "folded"])
        .arg(fixture("br/bad/unknown-type.br"))
        .arg("-")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown-type.br: br: byte 9: expected a record type 1 or 3 to 9, found 2"));
}

/// A BR file of one module mapping and no group (found by the fuzzer) reads as a profile of no
/// sample; written as BR it would be an empty file, which no reader takes: refused, said.
#[test]
fn a_profile_of_no_sample_is_not_written_as_an_empty_file() {
    let mapping_only: &[u8] = b"\x01\x00\x01\x00\x04a\x01\x00\x09";
    proftool()
        .args(["convert", "--from", "br", "--to", "br", "-", "-"])
        .write_stdin(mapping_only)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("the profile holds no sample, and a BR file of none is an empty file"));
}
