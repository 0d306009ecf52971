//! Very Sleepy's captures (`sleepy`), read only: each function's own time against gprof2dot's
//! SleepyParser reading of the one-line formats (0.82, 0.90), and format 0.92's threads by hand
//! (fixtures/sleepy/make-fixtures.py).

use crate::support::binary::{fixture, info, run};
use std::collections::BTreeMap;

/// Each function's own time in seconds in proftool's folded stacks of `file`, by `module:function`
/// as gprof2dot names them.
fn own_seconds(file: &str) -> BTreeMap<String, f64> {
    let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture(file));
    let doc: serde_json::Value = serde_json::from_str(&speedscope).unwrap();
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let mut own = BTreeMap::new();
    for profile in doc["profiles"].as_array().unwrap() {
        let samples = profile["samples"].as_array().unwrap();
        for (stack, weight) in samples.iter().zip(profile["weights"].as_array().unwrap()) {
            let leaf = &frames[stack.as_array().unwrap().last().unwrap().as_u64().unwrap() as usize];
            let key = format!("{}:{}", leaf["file"].as_str().unwrap_or(""), leaf["name"].as_str().unwrap());
            *own.entry(key).or_insert(0.0) += weight.as_f64().unwrap() / 1e9;
        }
    }
    own
}

/// Formats 0.82 (`symN` ids) and 0.90 (addresses): each function's own seconds are gprof2dot's, to
/// the microsecond; two addresses of one function are one frame.
#[test]
fn own_times_are_gprof2dots() {
    for name in ["shop-0.82", "shop-0.90"] {
        let theirs = std::fs::read_to_string(fixture(&format!("sleepy/{name}.gprof2dot.txt"))).unwrap();
        let expected: BTreeMap<String, f64> = theirs
            .lines()
            .map(|line| {
                let (function, seconds) = line.rsplit_once(' ').unwrap();
                (function.to_string(), seconds.parse().unwrap())
            })
            .collect();
        let ours = own_seconds(&format!("sleepy/{name}.sleepy"));
        assert_eq!(ours.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "{name}");
        for (function, seconds) in &expected {
            assert!((ours[function] - seconds).abs() < 1e-6, "{name} {function}: {} against {seconds}", ours[function]);
        }
    }
}

/// Format 0.92: each call stack under each thread that spent time there, named by `Threads.txt`
/// (`thread N` for a thread it names with an empty line); a name Very Sleepy escaped read whole.
/// By hand from the capture.
#[test]
fn call_stacks_are_under_their_threads() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture("sleepy/shop-0.92.sleepy"));
    // Folded stacks write a root's last space as a no-break space (`thread\u{a0}5108`), so that a
    // root's number is not read back as its count.
    let folded = folded.replace('\u{a0}', " ");
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "Main Thread;RtlUserThreadStart;main;Cart::total 250000000",
            "Main Thread;RtlUserThreadStart;main;Cart::total;Tax::compute 2645001000",
            "Main Thread;RtlUserThreadStart;main;Cart::total;operator\"\"_fast_memcpy 125000000",
            "thread 5108;RtlUserThreadStart;Feed::poll;recv 1750000000",
            "thread 5108;RtlUserThreadStart;main;Cart::total;Tax::compute 31000000",
        ]
    );
    let (info, _) = info("sleepy/shop-0.92.sleepy");
    assert!(info.contains("sleepy (recognised by content)"), "{info}");
    assert!(info.contains(r"C:\src\shop\shop.exe"), "the program as title: {info}");
}

/// An entry is decompressed whole only up to `--max-input-size`: past it the capture is refused,
/// naming the entry and the option (a deflated entry can grow a thousandfold).
#[test]
fn an_entry_past_the_input_limit_is_refused() {
    let out = assert_cmd::Command::cargo_bin("proftool")
        .unwrap()
        .args(["summary", "--max-input-size", "200"])
        .arg(fixture("sleepy/shop-0.92.sleepy"))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("a `Symbols.txt` entry of at most 200 bytes (--max-input-size raises the limit)"), "{err}");
}
