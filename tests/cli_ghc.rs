//! The `proftool` binary on GHC profiles: where functions are defined, interval and root rules,
//! what -px output loses.

use crate::support::binary::{fixture, proftool, run_bytes};

/// The speedscope frame named `name`: (file, line, col).
fn speedscope_frame(doc: &serde_json::Value, name: &str) -> (Option<String>, Option<i64>, Option<i64>) {
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let frame = frames.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no frame {name}"));
    (frame["file"].as_str().map(str::to_string), frame["line"].as_i64(), frame["col"].as_i64())
}

#[test]
fn speedscope_frames_get_the_file_and_line_of_src_loc() {
    let (out, err) =
        run_bytes(&["convert", "--to", "speedscope"], &fixture("ghc-json/speedscope-haskell-simple.prof.json"));
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // From the file's cost_centres: sumT.a at src/Main.hs:51:9-31, main at src/Main.hs:(21,1)-(38,42).
    assert_eq!(speedscope_frame(&doc, "Main.sumT.a"), (Some("src/Main.hs".into()), Some(51), Some(9)));
    assert_eq!(speedscope_frame(&doc, "Main.main"), (Some("src/Main.hs".into()), Some(21), Some(1)));
    // <built-in> is not a location: no file (the module is in the name).
    assert_eq!(speedscope_frame(&doc, "MAIN.MAIN"), (None, None, None));
    assert!(!err.contains("per-frame facts"), "{err}");
}

#[test]
fn speedscope_frames_get_the_file_and_line_of_the_prof_src_column() {
    let (out, err) = run_bytes(&["convert", "--to", "speedscope"], &fixture("ghc-prof/inferno-ticks.prof"));
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let prefs = speedscope_frame(&doc, "Options.Applicative.Builder.prefs");
    assert_eq!(prefs, (Some("src/Options/Applicative/Builder.hs".into()), Some(537), Some(1)));
    assert!(!err.contains("per-frame facts"), "{err}");
}

#[test]
fn pprof_functions_get_the_file_and_line_of_src_loc() {
    use prost::Message;
    use std::io::Read;
    let (out, _) = run_bytes(&["convert", "--to", "pprof"], &fixture("ghc-json/speedscope-haskell-simple.prof.json"));
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(out.as_slice()).read_to_end(&mut bytes).unwrap();
    let p = crate::support::pprof_proto::Profile::decode(bytes.as_slice()).unwrap();
    let s = |i: i64| p.string_table[i as usize].as_str();
    let function = |name: &str| p.function.iter().find(|f| s(f.name) == name).unwrap();
    let line_of = |id: u64| p.location.iter().find(|l| l.id == id).unwrap().line[0].line;
    let sum_t = function("Main.sumT.b");
    assert_eq!((s(sum_t.filename), sum_t.start_line, line_of(sum_t.id)), ("src/Main.hs", 52, 52));
    let main = function("MAIN.MAIN");
    assert_eq!((s(main.filename), main.start_line, line_of(main.id)), ("", 0, 0));
}

#[test]
fn targets_without_source_locations_name_their_drop() {
    let (_, err) =
        run_bytes(&["convert", "-v", "--to", "folded"], &fixture("ghc-json/speedscope-haskell-simple.prof.json"));
    assert!(err.contains("folded has no place for per-frame facts defined-at: dropped"), "{err}");
}

/// `data` totals the metric the report is of, in its own unit: the file's header says
/// `(23 ticks @ 1000 us, 1 processor)`, and its bytes column is no reason to print `23 B`.
#[test]
fn data_totals_ticks_as_ticks_beside_a_bytes_column() {
    let out = proftool().args(["data", "-q"]).arg(fixture("ghc-prof/inferno-ticks.prof")).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.starts_with("Total: 23 ticks\n"), "{out}");
    assert!(out.lines().nth(2).is_some_and(|l| l.contains("inc ticks") && l.contains("inc MiB")), "{out}");
}

/// Issue 34 §14: `--unit ms` shows a ticks profile in milliseconds where its header states the
/// interval: inferno-ticks.prof says `(23 ticks @ 1000 us, 1 processor)`, so by hand its 23 ticks
/// are 23 ms (23,000 us; 0.023 s, to three significant digits the header's own `0.02 secs`), and
/// `main`'s individual 7 ticks, 7 ms. Without --unit ticks stay ticks; bytes never turn into time.
#[test]
fn unit_ms_shows_ticks_at_the_stated_interval() {
    let prof = fixture("ghc-prof/inferno-ticks.prof");
    let summary = |extra: &[&str]| {
        let out = proftool().args(["summary", "-q", "--wide"]).args(extra).arg(&prof).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let in_ms = summary(&["--unit", "ms"]);
    assert!(in_ms.starts_with("Total: 23 ms\n"), "{in_ms}");
    let heading: Vec<&str> = in_ms.lines().nth(2).unwrap().split_whitespace().collect();
    assert_eq!(heading, ["name", "self", "ms", "self", "%", "total", "ms", "total", "%", "calls"]);
    let main: Vec<&str> = in_ms.lines().find(|l| l.starts_with("Main.main ")).unwrap().split_whitespace().collect();
    assert_eq!(main[..5], ["Main.main", "7", "30.4", "23", "100.0"]);
    assert!(summary(&["--unit", "us"]).starts_with("Total: 23000 us\n"));
    assert!(summary(&["--unit", "s"]).starts_with("Total: 0.02 s\n"));
    assert!(summary(&[]).starts_with("Total: 23 ticks\n"));
    let out = proftool().args(["summary", "--metric", "alloc", "--unit", "ms"]).arg(&prof).assert().code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("--unit ms: alloc is in bytes"), "{stderr}");
}

/// Issue 34 §14: samples of a profile that states no interval (a LispWorks tree) do not turn into
/// time: `--unit ms` is refused, saying why, and CSV is refused alike.
#[test]
fn unit_ms_is_refused_without_an_interval() {
    for format in ["text", "csv"] {
        let out = proftool()
            .args(["summary", "--unit", "ms", "--format", format])
            .arg(fixture("lispworks/processes.tree"))
            .assert()
            .code(1);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains("--unit ms: the profile does not state its interval, so its samples"), "{stderr}");
    }
}
