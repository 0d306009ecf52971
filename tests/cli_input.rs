//! The `proftool` binary on inputs as people keep them: with a byte-order mark, gzip-compressed,
//! under names that are not UTF-8, empty, JSON of other tools; and its help, completions and manual.

use crate::support::binary::{fixture, proftool, run_stdin};
use assert_cmd::Command;
use std::io::Write;
use std::path::{Path, PathBuf};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The folded stacks of `lispworks/minimal.tree` (one node, MAIN, with 7).
const MINIMAL_FOLDED: &str = "MAIN 7\n";

/// Writes `bytes` to `name` in `dir` and returns its path.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `bytes` gzip-compressed.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// (stdout, stderr) of `proftool convert --to folded <input> -`, which must succeed.
fn to_folded(input: &Path) -> (String, String) {
    let out = proftool().args(["convert", "--to", "folded"]).arg(input).arg("-").assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// The stderr of a run that must fail with exit code 1.
fn failure(command: &mut Command) -> String {
    String::from_utf8(command.assert().code(1).get_output().stderr.clone()).unwrap()
}

#[test]
fn a_byte_order_mark_is_not_part_of_a_text_input() {
    // Folded stacks on stdin: detected by content, and the first frame is `a`, not "\u{feff}a".
    let (out, _) = run_stdin(&["convert", "--to", "folded"], b"\xEF\xBB\xBFa;b 3\na;c 1\n");
    assert_eq!(out, "a;b 3\na;c 1\n");
    // GHC's -px and -pj files read with the mark as they read without it.
    let dir = tempfile::tempdir().unwrap();
    for (rel, name) in [("ghc-px/notes-example.px", "marked.px"), ("ghc-json/undeclared-deep.json", "marked.json")] {
        let plain = std::fs::read(fixture(rel)).unwrap();
        let marked = write(dir.path(), name, &[BOM, &plain].concat());
        let (want, _) = to_folded(&fixture(rel));
        let (got, err) = to_folded(&marked);
        assert_eq!(got, want, "{rel}");
        assert!(!err.contains("does not look like"), "{rel}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_read_and_written() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    // Latin-1 names, as an old system or archive leaves them.
    let input = dir.path().join(OsStr::from_bytes(b"caf\xe9.tree"));
    std::fs::copy(fixture("lispworks/minimal.tree"), &input).unwrap();
    let output = dir.path().join(OsStr::from_bytes(b"caf\xe9.folded"));
    proftool().arg("convert").arg(&input).arg(&output).assert().success();
    assert_eq!(std::fs::read_to_string(&output).unwrap(), MINIMAL_FOLDED);
    // Messages print such a name with U+FFFD in place of what is not UTF-8.
    let missing = dir.path().join(OsStr::from_bytes(b"gon\xe9.tree"));
    let err = failure(proftool().arg("convert").arg(&missing).arg(&output));
    assert!(err.contains("gon\u{FFFD}.tree: cannot open"), "{err}");
}

#[test]
fn a_gzip_compressed_input_is_read_decompressed() {
    let dir = tempfile::tempdir().unwrap();
    let tree = std::fs::read(fixture("lispworks/minimal.tree")).unwrap();
    // By its name without .gz, by its content on stdin.
    let named = write(dir.path(), "run.tree.gz", &gzip(&tree));
    assert_eq!(to_folded(&named).0, MINIMAL_FOLDED);
    let (out, _) = run_stdin(&["convert", "--to", "folded"], &gzip(&tree));
    assert_eq!(out, MINIMAL_FOLDED);
    let px = std::fs::read(fixture("ghc-px/notes-example.px")).unwrap();
    let px_gz = write(dir.path(), "prog.px.gz", &gzip(&px));
    assert_eq!(to_folded(&px_gz).0, to_folded(&fixture("ghc-px/notes-example.px")).0);
    // The extension inside counts: folded stacks, which have no signature, are folded by it.
    let stacks = write(dir.path(), "stacks.folded.gz", &gzip(b"a;b 3\n"));
    let info = proftool().arg("info").arg(&stacks).assert().success();
    let text = String::from_utf8(info.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("format     folded (by file extension)\n"), "{text}");
}

#[test]
fn a_damaged_or_oversized_gzip_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let tree = std::fs::read(fixture("lispworks/processes.tree")).unwrap();
    let compressed = gzip(&tree);
    let cut = write(dir.path(), "cut.tree.gz", &compressed[..compressed.len() - 12]);
    let out = dir.path().join("out.folded");
    let err = failure(proftool().arg("convert").arg(&cut).arg(&out));
    assert!(err.contains("cut.tree.gz") && err.contains("the gzip-compressed input is cut short"), "{err}");
    assert!(!out.exists());
    // processes.tree is larger than 100 bytes.
    assert!(tree.len() > 100);
    let whole = write(dir.path(), "whole.tree.gz", &compressed);
    let err = failure(proftool().args(["convert", "--max-input-size", "100"]).arg(&whole).arg(&out));
    assert!(err.contains("decompresses to more than 100 bytes; raise the limit with --max-input-size"), "{err}");
    assert!(!out.exists());
    // The same file within a limit raised above its size reads.
    proftool().args(["convert", "--max-input-size", "1K"]).arg(&whole).arg(&out).assert().success();
}

#[test]
fn json_that_is_not_ghcs_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "trace.json", br#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2}]}"#);
    let out = dir.path().join("o.folded");
    let only_ghc = "of the formats proftool reads, only ghc-json (GHC's +RTS -pj profile) and speedscope are JSON";
    let err = failure(proftool().arg("convert").arg(&trace).arg(&out));
    assert!(err.contains("the content is a Chrome trace (JSON trace events)") && err.contains(only_ghc), "{err}");
    let err = failure(proftool().args(["convert", "--from", "folded"]).arg(&trace).arg(&out));
    assert!(err.contains("cannot read the input as folded: the content is a Chrome trace"), "{err}");
    // A speedscope file read as another format.
    let speedscope = dir.path().join("p.speedscope.json");
    proftool().arg("convert").arg(fixture("lispworks/minimal.tree")).arg(&speedscope).assert().success();
    let err = failure(proftool().args(["convert", "--from", "ghc-json"]).arg(&speedscope).arg(&out));
    assert!(err.contains("the content is speedscope JSON; read it as speedscope"), "{err}");
    // A flame graph, by its extension.
    let svg = dir.path().join("p.svg");
    proftool().arg("convert").arg(fixture("lispworks/minimal.tree")).arg(&svg).assert().success();
    let err = failure(proftool().arg("convert").arg(&svg).arg(&out));
    assert!(err.contains("its extension says svg, which proftool writes but does not read"), "{err}");
    assert!(!out.exists());
}

#[test]
fn an_empty_input_is_said_to_be_empty() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.folded", b"");
    let (out, err) = to_folded(&empty);
    assert_eq!(out, "");
    assert!(err.contains("empty.folded: the input is empty"), "{err}");
    assert!(!err.contains("does not look like"), "{err}");
    let (_, err) = run_stdin(&["convert", "--from", "br", "--to", "folded"], b"");
    assert!(err.contains("<stdin>: the input is empty"), "{err}");
}

#[test]
fn a_folded_first_line_longer_than_the_sniffed_head_is_not_called_unlike_folded() {
    let dir = tempfile::tempdir().unwrap();
    // 100,000 bytes of one frame name: longer than the 64 KiB that detection looks at.
    let text = format!("a;{} 5\nb 1\n", "x".repeat(100_000));
    let long = write(dir.path(), "long.folded", text.as_bytes());
    let (out, err) = to_folded(&long);
    assert_eq!(out, text);
    assert!(!err.contains("does not look like"), "{err}");
}

#[test]
fn a_directory_as_the_output_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let err = failure(proftool().arg("convert").arg(fixture("lispworks/minimal.tree")).arg(dir.path()));
    assert!(err.contains(&format!("{}: is a directory", dir.path().display())), "{err}");
    assert!(!err.contains("extension"), "{err}");
}

#[test]
fn an_unknown_metric_is_the_only_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.folded");
    // processes.tree converted to folded warns of its title and per-function counts, had it run.
    let err =
        failure(proftool().args(["convert", "--metric", "nope"]).arg(fixture("lispworks/processes.tree")).arg(&out));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--metric nope: the profile has no such metric (it has: samples)"), "{err}");
}

#[test]
fn subcommands_have_examples_completions_and_a_manual() {
    let help = |args: &[&str]| {
        String::from_utf8(proftool().args(args).assert().success().get_output().stdout.clone()).unwrap()
    };
    let convert = help(&["convert", "--help"]);
    for example in ["flame.svg", "prog.speedscope.json", "tree.pb.gz", "run.tree run.folded", "prog.prof.gz", "- -"] {
        assert!(convert.contains(example), "convert --help lacks {example}");
    }
    let info = help(&["info", "--help"]);
    assert!(info.contains("Examples:\n  proftool info run.tree"), "{info}");
    assert!(help(&["completions", "bash"]).contains("_proftool()"));
    assert!(help(&["completions", "zsh"]).starts_with("#compdef proftool"));
    assert!(help(&["man"]).contains(".TH proftool 1"));
    let dir = tempfile::tempdir().unwrap();
    proftool().arg("man").arg(dir.path()).assert().success();
    let page = std::fs::read_to_string(dir.path().join("proftool-convert.1")).unwrap();
    assert!(page.contains("flame.svg"), "{page}");
}
