//! Python's pstats files (`python -m cProfile -o`, `python -m profile -o`; read only) against
//! Python's own `pstats`: per function, `proftool summary`'s self time, total and calls are the
//! tottime, cumtime and ncalls `pstats.Stats(f).print_stats()` printed for the same file
//! (fixtures/pstats/make-fixtures.sh, CPython 3.11, and `profile`'s files of CPython 2.7, 3.7,
//! 3.10 and 3.13 printed by each one's own pstats), at its precision, and the tree's total its
//! total; a `.prof` is told by its content; a file cut anywhere is an error, never a panic.

use crate::support::binary::*;
use crate::support::read_bytes;
use proftool::Format;
use std::collections::BTreeMap;

/// A function's figures as pstats printed them: calls, primitive calls, tottime and cumtime in
/// seconds.
#[derive(Debug)]
struct Printed {
    calls: u64,
    primitive: u64,
    tottime: f64,
    cumtime: f64,
}

/// The functions of a `print_stats()` text, by name (a code object's repr without its address,
/// as proftool names it).
fn print_stats(rel: &str) -> BTreeMap<String, Printed> {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let mut lines = text.lines().skip_while(|l| !l.trim_end().ends_with("filename:lineno(function)"));
    let header = lines.next().unwrap();
    let name_at = header.find("filename:lineno(function)").unwrap();
    let mut functions = BTreeMap::new();
    for line in lines.take_while(|l| !l.trim().is_empty()) {
        let (figures, name) = line.split_at(name_at);
        let words: Vec<&str> = figures.split_whitespace().collect();
        let (calls, primitive) = match words[0].split_once('/') {
            Some((calls, primitive)) => (calls.parse().unwrap(), primitive.parse().unwrap()),
            None => (words[0].parse().unwrap(), words[0].parse().unwrap()),
        };
        // Two per-call columns, left blank for a function of no calls.
        let (tottime, cumtime) = match words[1..] {
            [tottime, _, cumtime, _] | [tottime, cumtime] => (tottime.parse().unwrap(), cumtime.parse().unwrap()),
            _ => panic!("{line}"),
        };
        let name = match name.find(" at 0x") {
            Some(at) if name.contains("<code object") => {
                let end = at + name[at..].find(',').unwrap();
                format!("{}{}", &name[..at], &name[end..])
            }
            _ => name.to_string(),
        };
        functions.insert(name, Printed { calls, primitive, tottime, cumtime });
    }
    functions
}

/// The total a `print_stats()` text printed, `… function calls … in 0.121 seconds`, in seconds.
fn print_stats_total(rel: &str) -> f64 {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let line = text.lines().find(|l| l.trim_end().ends_with(" seconds")).unwrap();
    let seconds = line.trim_end().strip_suffix(" seconds").unwrap();
    seconds.rsplit(' ').next().unwrap().parse().unwrap()
}

/// A row of `proftool tree --format json`: its depth, total and self (in seconds), calls, name.
#[derive(Debug)]
struct TreeRow {
    depth: u64,
    total: f64,
    self_time: f64,
    name: String,
}

/// The tree's total (in seconds) and rows, from `proftool tree --format json`.
fn tree(rel: &str) -> (f64, Vec<TreeRow>) {
    let out = proftool().args(["tree", "-q", "--format", "json"]).arg(fixture(rel)).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["unit"], "us");
    let rows = json["rows"].as_array().unwrap().iter().map(|row| TreeRow {
        depth: row["depth"].as_u64().unwrap(),
        total: row["total"].as_f64().unwrap() / 1e6,
        self_time: row["self"].as_f64().unwrap() / 1e6,
        name: row["name"].as_str().unwrap().to_string(),
    });
    (json["total"].as_f64().unwrap() / 1e6, rows.collect())
}

/// The `profile` module's files of each layout of CPython's code objects (the key of the script's
/// code): 2.7's 4 ints, 3.7's 5, 3.10's 6 (its bytecode met before written as a ref), 3.11's and
/// 3.13's 5 with other objects; with the `print_stats()` of each one's Python.
const PROFILE_FILES: [(&str, &str); 5] = [
    ("pstats/profile-2.7.pstats", "pstats/profile-2.7.print_stats.txt"),
    ("pstats/profile-3.7.pstats", "pstats/profile-3.7.print_stats.txt"),
    ("pstats/profile-3.10.pstats", "pstats/profile-3.10.print_stats.txt"),
    ("pstats/profile.pstats", "pstats/profile.print_stats.txt"),
    ("pstats/profile-3.13.pstats", "pstats/profile-3.13.print_stats.txt"),
];

/// Each function's self, total (in seconds) and calls from `proftool summary --format json`.
fn summary(rel: &str) -> BTreeMap<String, (f64, f64, u64)> {
    let out = proftool().args(["summary", "-q", "--format", "json"]).arg(fixture(rel)).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["unit"], "us");
    let rows = json["rows"].as_array().unwrap();
    rows.iter()
        .map(|row| {
            let seconds = |key: &str| row[key].as_f64().unwrap() / 1e6;
            let name = row["name"].as_str().unwrap().to_string();
            (name, (seconds("self"), seconds("total"), row["calls"].as_u64().unwrap_or(0)))
        })
        .collect()
}

/// Runs `proftool ARGS PATH`, which must succeed: its stdout and stderr.
fn output(args: &[&str], path: &std::path::Path) -> (String, String) {
    let out = proftool().args(args).arg(path).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// Whether `ours` prints as `theirs` at pstats's three decimals.
fn at_printed_precision(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 0.0005 + 1e-9
}

/// Every function pstats printed has its tottime, cumtime and ncalls in proftool's summary (a
/// function of no figures, `profile:0(profiler)`, may have no row).
fn agrees_with_print_stats(pstats: &str, printed: &str) {
    let python = print_stats(printed);
    let ours = summary(pstats);
    assert!(python.len() >= 15, "{python:?}");
    for (name, printed) in &python {
        let Some(&(self_time, total, calls)) = ours.get(name) else {
            assert!(printed.calls == 0 && printed.cumtime == 0.0, "{name} has no row");
            continue;
        };
        assert!(at_printed_precision(self_time, printed.tottime), "{name}: self {self_time}, {printed:?}");
        assert!(at_printed_precision(total, printed.cumtime), "{name}: total {total}, {printed:?}");
        assert_eq!(calls, printed.calls, "{name}");
    }
}

#[test]
fn cprofiles_figures_are_print_stats_figures() {
    agrees_with_print_stats("pstats/cprofile.pstats", "pstats/cprofile.print_stats.txt");
    let python = print_stats("pstats/cprofile.print_stats.txt");
    let fib = &python["work.py:6(fib)"];
    assert_eq!((fib.calls, fib.primitive), (57313, 1));
}

/// The `profile` module's files of CPython 2.7 to 3.13 are read, their code object keys in each
/// of its layouts (2.7's and 3.10's were refused, at a byte read with another layout's).
#[test]
fn the_profile_modules_figures_are_print_stats_figures() {
    for (pstats, printed) in PROFILE_FILES {
        agrees_with_print_stats(pstats, printed);
    }
    // 2.7's module code starts at its first line of code, after the docstring.
    for (pstats, line) in [("pstats/profile-2.7.pstats", 3), ("pstats/profile.pstats", 1)] {
        let key = format!("profile:0(<code object <module>, file \"work.py\", line {line}>)");
        assert!(summary(pstats).contains_key(&key), "{pstats}");
    }
}

/// The tree's total is the time pstats prints (`in 0.121 seconds`), its one root the script's code
/// (`profile`) or `exec` and cProfile's `disable`: `profile`'s `profile:0(profiler)`, all zeros,
/// which it names as the caller of the script's code, has no node. As the root above the rest, it
/// made the total 0 (or whatever else was a root) and every percentage of it wrong.
#[test]
fn the_trees_total_is_the_time_pstats_prints() {
    let cprofile = ("pstats/cprofile.pstats", "pstats/cprofile.print_stats.txt");
    for (pstats, printed) in PROFILE_FILES.into_iter().chain([cprofile]) {
        let (total, rows) = tree(pstats);
        assert!(at_printed_precision(total, print_stats_total(printed)), "{pstats}: {total}");
        let roots: Vec<&str> = rows.iter().filter(|row| row.depth == 0).map(|row| row.name.as_str()).collect();
        match pstats == cprofile.0 {
            true => assert_eq!(
                roots,
                ["{built-in method builtins.exec}", "{method 'disable' of '_lsprof.Profiler' objects}"]
            ),
            false => assert!(roots.len() == 1 && roots[0].starts_with("profile:0(<code object"), "{pstats}: {roots:?}"),
        }
        assert!(rows.iter().all(|row| row.name != "profile:0(profiler)"), "{pstats}");
    }
}

/// fib, 57,313 calls of which 1 primitive (57,312 from itself), is one node below main, of the
/// tottime and cumtime pstats prints (0.049 s both in `profile.pstats`). Its calls from itself
/// had their share of its cumtime, which counts only the outermost call: `profile`'s files made
/// it a root of 99.998 % of its cumtime, and its node below main of its tottime but a total of
/// 0.000 s.
#[test]
fn a_function_that_calls_itself_is_one_node_of_its_cumtime_below_its_caller() {
    let cprofile = ("pstats/cprofile.pstats", "pstats/cprofile.print_stats.txt");
    for (pstats, printed) in PROFILE_FILES.into_iter().chain([cprofile]) {
        let fib = &print_stats(printed)["work.py:6(fib)"];
        assert_eq!((fib.calls, fib.primitive), (57313, 1));
        let (_, rows) = tree(pstats);
        let at: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].name == "work.py:6(fib)").collect();
        assert_eq!(at.len(), 1, "{pstats}: {rows:?}");
        let (node, parent) = (&rows[at[0]], rows[..at[0]].iter().rfind(|row| row.depth + 1 == rows[at[0]].depth));
        assert_eq!(parent.map(|p| p.name.as_str()), Some("work.py:30(main)"), "{pstats}");
        assert!(at_printed_precision(node.total, fib.cumtime), "{pstats}: {node:?}, {fib:?}");
        assert!(at_printed_precision(node.self_time, fib.tottime), "{pstats}: {node:?}, {fib:?}");
    }
}

/// Primitive calls are a metric of their own: fib's one outermost call of 57,313, even's and
/// odd's mutual recursion one each.
#[test]
fn primitive_calls_are_kept() {
    let (text, _) = info("pstats/cprofile.pstats");
    assert!(text.contains("metric     primitive-calls (calls, count, per-node): total 15012\n"), "{text}");
    assert!(text.contains("metric     calls (calls, count, per-node): total 72723\n"), "{text}");
}

/// `leaf` is called by both list comprehensions, 3,000 and 2,000 times: its two nodes get those
/// calls, and the time cProfile recorded for each caller.
#[test]
fn a_function_of_two_callers_is_shared_by_their_figures() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded", "--metric", "time"], &fixture("pstats/cprofile.pstats"));
    let leaf: Vec<&str> = folded.lines().filter(|l| l.contains("(<listcomp>);work.py:10(leaf) ")).collect();
    assert_eq!(leaf.len(), 2, "{folded}");
    let (tree, _) = output(&["tree", "-q"], &fixture("pstats/cprofile.pstats"));
    let calls: Vec<&str> = tree.lines().filter(|l| l.ends_with("work.py:10(leaf)")).collect();
    assert!(calls[0].contains(" 2000 ") && calls[1].contains(" 3000 "), "{tree}");
}

/// Python's `-o` files are usually `.prof`, GHC's extension: told apart by their content.
#[test]
fn a_prof_file_is_told_by_its_content() {
    let dir = temp();
    let path = dir.path().join("out.prof");
    std::fs::copy(fixture("pstats/cprofile.pstats"), &path).unwrap();
    let (text, stderr) = output(&["info"], &path);
    assert!(text.starts_with("format     pstats (recognised by content)\n"), "{text}");
    assert!(!stderr.contains("extension"), "{stderr}");
}

#[test]
fn converts_to_folded_and_speedscope() {
    for rel in ["pstats/cprofile.pstats", "pstats/profile.pstats"] {
        let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture(rel));
        assert!(folded.lines().any(|l| l.contains("work.py:30(main);work.py:6(fib) ")), "{folded}");
        let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture(rel));
        let json: serde_json::Value = serde_json::from_str(&speedscope).unwrap();
        let frames = json["shared"]["frames"].as_array().unwrap();
        let fib = frames.iter().find(|f| f["name"] == "work.py:6(fib)").unwrap();
        assert_eq!((fib["file"].as_str(), fib["line"].as_u64()), (Some("work.py"), Some(6)));
    }
}

/// Every prefix of a file is an error (cut short, or a value of the wrong kind), never a panic.
#[test]
fn a_file_cut_anywhere_is_an_error() {
    for rel in ["pstats/cprofile.pstats"].into_iter().chain(PROFILE_FILES.map(|(pstats, _)| pstats)) {
        let bytes = std::fs::read(fixture(rel)).unwrap();
        for end in 0..bytes.len() {
            let (result, _) = read_bytes(Format::Pstats, &bytes[..end]);
            assert!(result.is_err(), "{rel} cut at {end} read");
        }
    }
}
