//! The `proftool` binary on GHC profiles: where functions are defined, interval and root rules,
//! what -px output loses.

use crate::support::binary::{fixture, proftool, run_bytes};

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
