//! The `proftool` binary on inputs as people keep them: with a byte-order mark, gzip-compressed,
//! under names that are not UTF-8, empty, JSON of other tools; and its help, completions and manual.

use crate::support::binary::{failure, fixture, proftool, run_stdin, to_folded};
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
    assert!(err.contains("cut.tree.gz") && err.contains("the gzip-compressed input is cut short after "), "{err}");
    // Where: how much of the content came out, at most all of it.
    let content: usize =
        err.split("cut short after ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap().parse().unwrap();
    assert!(content <= tree.len() && err.contains(&format!("after {content} bytes of content")), "{err}");
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
    let err = failure(proftool().args(["convert", "--from", "folded"]).arg(&trace).arg(&out));
    assert!(err.contains("cannot read the input as folded: the content is a Chrome trace"), "{err}");
    assert!(err.contains("read it as chrome-trace"), "{err}");
    // JSON of no kind proftool knows.
    let other = write(dir.path(), "other.json", br#"{"spans": [{"name": "a"}]}"#);
    let only = "of the formats proftool reads, only chrome-trace, cpuprofile (V8's), dhat (valgrind's), firefox (the Firefox Profiler's), gecko (Firefox's older exports), ghc-json (GHC's +RTS -pj profile), heapprofile (V8's), otlp-json (OpenTelemetry's), safari (Safari's), speedscope and stackprof (Ruby's) are JSON";
    let err = failure(proftool().arg("convert").arg(&other).arg(&out));
    assert!(err.contains("the content is JSON of a kind proftool does not know") && err.contains(only), "{err}");
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
    let err = failure(proftool().args(["convert", "--to", "folded"]).arg(&empty).arg("-"));
    assert!(err.contains("empty.folded: the input is empty"), "{err}");
    assert!(err.contains("empty.folded: folded: line 1 (byte 0): expected a stack"), "{err}");
    assert!(!err.contains("does not look like"), "{err}");
    // BR's too, though its records have no signature (issue 48, item 10).
    let err =
        failure(proftool().args(["convert", "--from", "br", "--to", "folded", "-", "-"]).write_stdin(b"".as_slice()));
    assert!(err.contains("<stdin>: the input is empty"), "{err}");
    assert!(
        err.contains("<stdin>: br: byte 0: expected a module mapping or a group, found nothing: the input is empty"),
        "{err}"
    );
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

/// `text` as UTF-16 with its byte-order mark, little- or big-endian.
fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mark: &[u8] = if big_endian { b"\xFE\xFF" } else { b"\xFF\xFE" };
    let units = text.encode_utf16().flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    mark.iter().copied().chain(units).collect()
}

#[test]
fn text_written_on_windows_is_detected_and_read_in_every_text_format() {
    let fixtures = [
        "lispworks/processes.tree",
        "folded/basic.folded",
        "dyalog-csv/v1.37-stats-tree.csv",
        "dyalog-xml/v1.37-stats-tree.xml",
        "ghc-px/notes-example.px",
        "ghc-prof/work-ticks.prof",
        "ghc-json/undeclared-deep.json",
        "speedscope/py-spy.speedscope.json",
    ];
    for rel in fixtures {
        let (want, _) = to_folded(&fixture(rel));
        let text = std::fs::read_to_string(fixture(rel)).unwrap().replace("\r\n", "\n");
        let crlf = text.replace('\n', "\r\n");
        // On stdin, with no extension to go by: the content alone must be recognised.
        for (how, bytes) in [
            ("CRLF", crlf.clone().into_bytes()),
            ("UTF-16LE, CRLF", utf16(&crlf, false)),
            ("UTF-16BE", utf16(&text, true)),
        ] {
            let (got, err) = run_stdin(&["convert", "--to", "folded"], &bytes);
            assert_eq!(got, want, "{rel} as {how}: {err}");
        }
    }
    // A CRLF folded file whose last line ends in a CR and no LF is still folded stacks.
    let (got, err) = run_stdin(&["convert", "--to", "folded"], b"a;b 1\r\na;c 2\r");
    assert_eq!(got, "a;b 1\na;c 2\n");
    assert!(err.contains("<stdin>: line 2 (byte 7): the input ends without a line break"), "{err}");
}

#[test]
fn utf16_errors_say_where_the_text_stops_being_utf16() {
    // "a;b 1\n" then "c;" and a high surrogate followed by "x", not by a low surrogate: line 2,
    // at byte 8 of the decoded text, byte 2 + 2 × 8 = 18 of the file.
    let mut bytes = utf16("a;b 1\nc;", false);
    bytes.extend_from_slice(&[0x00, 0xD8]);
    bytes.extend_from_slice(&utf16("x 2\n", false)[2..]);
    let err = failure(proftool().args(["convert", "--from", "folded", "--to", "folded", "-", "-"]).write_stdin(bytes));
    assert!(
        err.contains(
            "folded: line 2 (byte 8): invalid UTF-16 at byte 18 of the file: a high surrogate without its low one"
        ),
        "{err}"
    );
    // A file that ends inside a character (an odd number of bytes after the mark).
    let mut bytes = utf16("a 1\n", true);
    bytes.push(0);
    let err = failure(proftool().args(["convert", "--from", "folded", "--to", "folded", "-", "-"]).write_stdin(bytes));
    assert!(
        err.contains("line 2 (byte 4): invalid UTF-16 at byte 10 of the file: the input ends inside a character"),
        "{err}"
    );
}

#[test]
fn an_empty_pprof_input_is_said_to_be_empty() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.pb.gz", b"");
    let err = failure(proftool().args(["convert", "--to", "folded"]).arg(&empty).arg("-"));
    assert!(err.contains("empty.pb.gz: pprof: byte 0: expected a protobuf Profile message (google/pprof profile.proto), found nothing: the input is empty"), "{err}");
    assert!(!err.contains("no metric"), "{err}");
}

#[test]
fn help_names_every_exit_code_and_help_has_its_own_help() {
    let stdout = |args: &[&str]| {
        String::from_utf8(proftool().args(args).assert().success().get_output().stdout.clone()).unwrap()
    };
    let exit_codes = "Exit codes: 0 success, 1 failed run, 2 usage error, 3 regression";
    assert!(stdout(&["--help"]).contains(exit_codes));
    assert!(stdout(&["man"]).contains(exit_codes));
    let help = stdout(&["help", "--help"]);
    assert!(help.contains("Usage: proftool help [OPTIONS] [COMMAND]"), "{help}");
    assert_eq!(stdout(&["help", "convert"]), stdout(&["convert", "--help"]));
    assert_eq!(stdout(&["help"]), stdout(&["--help"]));
    let err =
        String::from_utf8(proftool().args(["help", "nosuch"]).assert().code(2).get_output().stderr.clone()).unwrap();
    assert!(err.contains("unrecognized subcommand 'nosuch'"), "{err}");
}

#[test]
fn a_ghc_report_or_dyalog_csv_without_its_last_line_break_is_said_to_be_cut_short() {
    // Both writers end every line: the same file without its last byte (the line break) warns.
    let dir = tempfile::tempdir().unwrap();
    for (fixture_path, line) in
        [("ghc-prof/work-ticks.prof", "line 57"), ("dyalog-csv/v1.37-stats-tree.csv", "line 12")]
    {
        let whole = std::fs::read(crate::support::binary::fixture(fixture_path)).unwrap();
        let cut = dir.path().join(fixture_path.rsplit('/').next().unwrap());
        std::fs::write(&cut, &whole[..whole.len() - 1]).unwrap();
        let out = crate::support::binary::proftool().arg("info").arg(&cut).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success() && stderr.contains(line) && stderr.contains("looks cut short"), "{stderr}");
        let out = crate::support::binary::proftool()
            .arg("info")
            .arg(crate::support::binary::fixture(fixture_path))
            .output()
            .unwrap();
        assert!(!String::from_utf8(out.stderr).unwrap().contains("cut short"));
    }
}

/// What each JSON format's check wants, in the list of an unknown JSON's error, written from what
/// the file is: an object whose first key is `spans`.
#[test]
fn json_of_no_known_kind_says_where_each_json_format_found_it_wanting() {
    let dir = tempfile::tempdir().unwrap();
    let other = write(dir.path(), "other.json", br#"{"spans": [{"name": "a"}]}"#);
    let err = failure(proftool().arg("convert").arg(&other).arg(dir.path().join("o.folded")));
    let expected = r#"other.json: cannot read the input: the content is JSON of a kind proftool does not know; of the formats proftool reads, only chrome-trace, cpuprofile (V8's), dhat (valgrind's), firefox (the Firefox Profiler's), gecko (Firefox's older exports), ghc-json (GHC's +RTS -pj profile), heapprofile (V8's), otlp-json (OpenTelemetry's), safari (Safari's), speedscope and stackprof (Ruby's) are JSON, and each found:
  chrome-trace: an object without a "traceEvents" key
  cpuprofile: its first key is neither "nodes" nor the old format's "head"
  dhat: no "dhatFileVersion"
  firefox: no "meta" with a "preprocessedProfileVersion"
  gecko: no first key "label" (a saved recording) or "meta" of a Gecko profile
  ghc-json: its first key is not "program" with a string
  heapprofile: its first key is not "head"
  otlp-json: no "resourceProfiles"
  safari: no "recording"
  speedscope: no "$schema" naming speedscope's file format, nor a "shared" key with "profiles" or "frames"
  stackprof: no "mode" of stackprof's (cpu, wall, object, custom)
"#;
    assert!(err.ends_with(expected), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing written");
}

/// JSON cut before the keys that tell its kind says that it looks cut short, and where: a
/// `.cpuprofile` cut after its first node's id (18 bytes), and an array of events cut after the
/// first event's name (13 bytes, from stdin).
#[test]
fn json_cut_short_before_its_kind_shows_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let cut = write(dir.path(), "cut.json", br#"{"nodes":[{"id":1,"#);
    let err = failure(proftool().arg("convert").arg(&cut).arg(dir.path().join("o.folded")));
    assert!(err.contains("the content is JSON of a kind proftool does not know, and it ends at byte 18 before it closes: the file looks cut short;"), "{err}");
    assert!(err.contains("\n  cpuprofile: \"nodes\" without a \"callFrame\"\n"), "{err}");
    let out = proftool().args(["convert", "--to", "folded", "-", "-"]).write_stdin(r#"[{"name":"a"}"#).assert().code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("<stdin>: cannot read the input: the content is JSON of a kind proftool does not know, and it ends at byte 13 before it closes: the file looks cut short;"), "{err}");
    assert!(err.contains("\n  chrome-trace: an array of objects without a \"ph\" key (an event's phase)\n"), "{err}");
    // A file of a known kind cut short says so in its reader's error, at its end (37 bytes).
    let trace = write(dir.path(), "t.trace.json", br#"{"traceEvents":[{"name":"a","ph":"X","#);
    let err = failure(proftool().arg("convert").arg(&trace).arg(dir.path().join("o.folded")));
    assert!(err.contains("t.trace.json: chrome-trace: line 1, column 38 (byte 37): "), "{err}");
    assert!(err.contains("found the end of the input before the JSON closes"), "{err}");
    assert!(err.contains("the file looks cut short"), "{err}");
}

/// JSON that no check takes, under an extension that names one JSON format, is read as that format,
/// whose reader says where it is not: `{"nodes": 3` has a number where the nodes' array should be,
/// at byte 10 (column 11); `{"program": "p"}` ends (byte 15) where GHC's fields should follow.
#[test]
fn json_named_by_its_extension_gets_that_readers_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.folded");
    let profile = write(dir.path(), "x.cpuprofile", br#"{"nodes": 3, "startTime": 0}"#);
    let err = failure(proftool().arg("convert").arg(&profile).arg(&out));
    assert!(err.contains("x.cpuprofile: the content does not look like cpuprofile (\"nodes\" without a \"callFrame\"); reading it as cpuprofile, as its extension says"), "{err}");
    assert!(err.contains("x.cpuprofile: cpuprofile: line 1, column 11 (byte 10): expected a V8 CPU profile"), "{err}");
    assert!(err.contains("(invalid type: integer `3`, expected a sequence)"), "{err}");
    let ghc = write(dir.path(), "x.prof.json", br#"{"program": "p"}"#);
    let err = failure(proftool().arg("convert").arg(&ghc).arg(&out));
    assert!(err.contains("the content does not look like ghc-json (no \"arguments\" or \"rts_arguments\" key right after \"program\")"), "{err}");
    assert!(
        err.contains("x.prof.json: ghc-json: line 1, column 16 (byte 15): expected JSON in GHC's -pj schema"),
        "{err}"
    );
    assert!(!out.exists());
}
