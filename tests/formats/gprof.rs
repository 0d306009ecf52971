//! GNU gprof's text reports (read only) against gprof's own figures: per function, `proftool
//! summary`'s self time and calls are the flat profile's self seconds and calls, and its total the
//! call graph's self plus children, each parsed here from the report itself
//! (fixtures/gprof/make-fixtures.sh, GNU gprof 2.40), not from what proftool printed; a report is
//! told by its content; a file cut anywhere is an error, or reads all the time of the whole file.
//! gprof2dot's test reports, not in the repository, are checked the same way where
//! `PROFTOOL_GPROF2DOT_TESTS` names the folder that holds them (its tests/prof).

use crate::support::binary::*;
use crate::support::read_bytes;
use proftool::model::Value;
use proftool::Format;
use std::collections::BTreeMap;
use std::path::Path;

/// A report's text, UTF-16 decoded where it has its byte-order mark (as Windows' `>` writes it).
fn text_of(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    match bytes.get(..2) {
        Some([0xff, 0xfe]) => {
            let units: Vec<u16> = bytes[2..].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            String::from_utf16_lossy(&units)
        }
        _ => String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// The flat profile's rows, by name: self seconds and calls (0 where blank). A name listed twice
/// (two static functions of one name, one frame in proftool) is left out.
fn flat_profile(text: &str) -> BTreeMap<String, (f64, u64)> {
    let mut rows = BTreeMap::new();
    let mut twice = Vec::new();
    let mut lines = text.lines().skip_while(|l| !(l.contains("cumulative") && l.trim_start().starts_with('%')));
    lines.next();
    for line in lines.skip(1).take_while(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let own: f64 = words[2].parse().unwrap();
        let (calls, name_at) = match words[3].parse::<u64>() {
            Ok(calls) => (calls, 6),
            Err(_) => (0, 3),
        };
        let mut name = words[name_at..].join(" ");
        // BSD's names end with their index, `[index]`, or `(index)` where the call graph lacks them;
        // `-l`'s with their place, `(work.c:11 @ 1205)`, whose address may be all digits.
        let place = name.ends_with(')') && name.contains(" @ ");
        if let Some(at) = name.rfind([' ']).filter(|_| !place && (name.ends_with(']') || name.ends_with(')'))) {
            let index = name[at + 1..].trim_matches(|c| "[]()".contains(c));
            if index.bytes().all(|b| b.is_ascii_digit()) && !index.is_empty() {
                name.truncate(at);
            }
        }
        if rows.insert(name.clone(), (own, calls)).is_some() {
            twice.push(name);
        }
    }
    for name in twice {
        rows.remove(&name);
    }
    rows
}

/// The call graph's primary lines, by name (without `<cycle N>`): self seconds, self plus
/// children, calls (`n` of `n+m`), and whether it is a cycle's member. A name listed twice (two
/// functions of one name) is left out.
fn call_graph(text: &str) -> BTreeMap<String, (f64, f64, u64, bool)> {
    let mut entries = BTreeMap::new();
    let mut twice = Vec::new();
    for line in text.lines().map(str::trim_end) {
        let Some(rest) = line.strip_prefix('[') else { continue };
        let Some((index, rest)) = rest.split_once(']') else { continue };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let numbers: Option<Vec<f64>> = words.get(..3).and_then(|w| w.iter().map(|w| w.parse().ok()).collect());
        let Some(numbers) = numbers else { continue };
        let closing = format!("[{index}]");
        if !index.bytes().all(|b| b.is_ascii_digit()) || words.last() != Some(&closing.as_str()) {
            continue;
        }
        let called = words[3].split('+').next().unwrap().parse::<u64>().ok();
        let name_words = &words[3 + usize::from(called.is_some())..words.len() - 1];
        let mut name = name_words.join(" ");
        if name.ends_with("as a whole>") {
            continue;
        }
        let member = name.rfind(" <cycle ");
        if let Some(at) = member {
            name.truncate(at);
        }
        let figures = (numbers[1], numbers[1] + numbers[2], called.unwrap_or(0), member.is_some());
        if entries.insert(name.clone(), figures).is_some() {
            twice.push(name);
        }
    }
    for name in twice {
        entries.remove(&name);
    }
    entries
}

/// Each function's self and total seconds and calls from `proftool summary --format json`.
fn summary(path: &Path) -> BTreeMap<String, (f64, f64, u64)> {
    let out = proftool().args(["summary", "-q", "--format", "json", "--from", "gprof"]).arg(path).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let per_second = match json["unit"].as_str().unwrap() {
        "us" => 1e6,
        "cycles" | "count" => 1e3,
        unit => panic!("{unit}"),
    };
    let rows = json["rows"].as_array().unwrap();
    rows.iter()
        .map(|row| {
            let seconds = |key: &str| row[key].as_f64().unwrap() / per_second;
            let name = row["name"].as_str().unwrap().to_string();
            (name, (seconds("self"), seconds("total"), row["calls"].as_u64().unwrap_or(0)))
        })
        .collect()
}

/// Whether `ours` is `theirs` as gprof printed it (two decimals), but for floating point.
fn same(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1.0)
}

/// Every function of the report's call graph has its self, self plus children (but a cycle's
/// member: its total holds the members it calls) and calls in proftool's summary, and every one of
/// its flat profile its self and calls: the number of functions checked.
fn agrees_with_the_report(path: &Path) -> usize {
    let text = text_of(path);
    let ours = summary(path);
    let graph = call_graph(&text);
    for (name, &(own, total, calls, member)) in &graph {
        let Some(&(self_time, our_total, our_calls)) = ours.get(name) else {
            assert!(own == 0.0 && total == 0.0 && calls == 0, "{}: {name} has no row", path.display());
            continue;
        };
        let found = (self_time, our_total, our_calls);
        let total_agrees = if member { our_total >= total - 1e-9 } else { same(our_total, total) };
        assert!(same(self_time, own) && total_agrees, "{}: {name}: {found:?}", path.display());
        assert_eq!(our_calls, calls, "{}: {name}", path.display());
    }
    let flat = flat_profile(&text);
    for (name, &(own, calls)) in &flat {
        let Some(&(self_time, _, our_calls)) = ours.get(name) else {
            assert!(own == 0.0 && calls == 0, "{}: {name} has no row", path.display());
            continue;
        };
        assert!(same(self_time, own), "{}: {name}: self {self_time}, flat {own}", path.display());
        assert_eq!(our_calls, calls, "{}: {name}", path.display());
    }
    graph.len() + flat.len()
}

#[test]
fn every_functions_figures_are_the_reports() {
    for rel in [
        "work.gprof",
        "work-brief.gprof",
        "work-call-graph.gprof",
        "work-flat.gprof",
        "templates.gprof",
        "cycles.gprof",
    ] {
        let checked = agrees_with_the_report(&fixture(&format!("gprof/{rel}")));
        assert!(checked >= 6, "{rel}: {checked}");
    }
    // The flat profile and the call graph of one report agree: leaf's 0.22 s and 300,000 calls.
    let flat = flat_profile(&text_of(&fixture("gprof/work.gprof")));
    let graph = call_graph(&text_of(&fixture("gprof/work.gprof")));
    assert_eq!(flat["leaf"], (0.22, 300000));
    assert_eq!(graph["leaf"], (0.22, 0.22, 300000, false));
    assert_eq!(graph["fib"].2, 60);
}

/// gprof2dot's graph of a report (fixtures/gprof/make-fixtures.sh gprof2dot): each function's
/// total and self percentages, from its node's label (`label="is_even\n27.50%\n(10.00%)\n90930×"`).
fn gprof2dot_percentages(path: &Path) -> BTreeMap<String, (f64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut functions = BTreeMap::new();
    for line in text.lines().filter(|l| !l.contains(" -> ")) {
        let Some((_, label)) = line.split_once("label=\"") else { continue };
        let label = label.split('"').next().unwrap();
        let parts: Vec<&str> = label.split("\\n").collect();
        let percent = |part: &str| part.trim_matches(|c| "()%".contains(c)).parse::<f64>().unwrap();
        functions.insert(parts[0].to_string(), (percent(parts[1]), percent(parts[2])));
    }
    functions
}

/// A cycle's members as gprof2dot reads them: the member a path enters the cycle by holds the
/// members it calls, so its total is more than gprof's self plus children. In work.gprof main
/// enters is_even, whose total is the cycle's 27.50 % (gprof prints 10.0 for it); in cycles.gprof
/// main enters a cycle of three at two members. Each member's total and self percentages are
/// gprof2dot's, within 0.1 points: gprof2dot shares a cycle out by its entries' calls, proftool by
/// its callers' lines' times. (The others' totals are gprof's self plus children, as
/// [`every_functions_figures_are_the_reports`] holds them; gprof2dot takes gprof's percentages,
/// from seconds before gprof rounds them.)
#[test]
fn a_cycles_members_hold_the_members_they_call_as_gprof2dot_reads_them() {
    for name in ["work", "cycles"] {
        let members = call_graph(&text_of(&fixture(&format!("gprof/{name}.gprof"))));
        let mut theirs = gprof2dot_percentages(&fixture(&format!("gprof/{name}.gprof2dot.txt")));
        theirs.retain(|function, _| members[function].3);
        assert!(theirs.len() >= 2, "{name}: {theirs:?}");
        let path = fixture(&format!("gprof/{name}.gprof"));
        let out = proftool().args(["summary", "-q", "--format", "json"]).arg(path).assert().success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let ours: BTreeMap<String, (f64, f64)> = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row["name"].as_str().unwrap().to_string(),
                    (row["total_pct"].as_f64().unwrap(), row["self_pct"].as_f64().unwrap()),
                )
            })
            .collect();
        for (function, &(total, own)) in &theirs {
            let (our_total, our_own) = ours[function];
            let near = (our_total - total).abs() <= 0.1 && (our_own - own).abs() <= 0.1;
            assert!(near, "{name}: {function}: ours {our_total} ({our_own}), gprof2dot's {total} ({own})");
        }
    }
    let out = proftool().args(["tree", "-q"]).arg(fixture("gprof/work.gprof")).assert().success();
    let tree = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let is_even = tree.lines().find(|l| l.ends_with(" is_even")).unwrap();
    assert!(is_even.trim_start().starts_with("110 "), "{tree}");
}

/// The sampling interval is the report's `Each sample counts as 0.01 seconds.`; recursive calls
/// (`60+38137200`) are a metric of their own.
#[test]
fn the_interval_and_recursive_calls_are_kept() {
    let (text, _) = info("gprof/work.gprof");
    assert!(text.contains("interval   10ms\n"), "{text}");
    assert!(text.contains("metric     time (time, us, additive): total 400000\n"), "{text}");
    assert!(text.contains("metric     recursive-calls (calls, count, per-node): total 38137200\n"), "{text}");
}

/// C++ names as gprof demangles them, with spaces, commas, templates and return types, are whole
/// frames.
#[test]
fn cpp_names_are_read_whole() {
    let ours = summary(&fixture("gprof/templates.gprof"));
    for name in [
        "long smooth<long>(Grid<long>&, unsigned long)",
        "Grid<long>::at(unsigned long, unsigned long) const",
        "std::vector<double, std::allocator<double> >::operator[](unsigned long) const",
    ] {
        assert!(ours.contains_key(name), "{name}: {:?}", ours.keys().collect::<Vec<_>>());
    }
    assert_eq!(ours["Grid<long>::at(unsigned long, unsigned long) const"].2, 19008480);
}

/// `leaf` is called by sum_squares and sum_cubes, 180,000 and 120,000 times: its two nodes get
/// those calls and the time gprof's lines give each caller; is_even and is_odd, a cycle, are named
/// without `<cycle 1>`.
#[test]
fn a_function_of_two_callers_is_shared_by_their_lines() {
    let out = proftool().args(["tree", "-q"]).arg(fixture("gprof/work.gprof")).assert().success();
    let tree = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let leaf: Vec<&str> = tree.lines().filter(|l| l.ends_with(" leaf")).collect();
    assert_eq!(leaf.len(), 2, "{tree}");
    assert!(leaf[0].contains(" 180000 ") && leaf[0].trim_start().starts_with("130 "), "{tree}");
    assert!(leaf[1].contains(" 120000 ") && leaf[1].trim_start().starts_with("90 "), "{tree}");
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture("gprof/work.gprof"));
    assert!(folded.lines().any(|l| l.starts_with("main;is_even;is_odd ")), "{folded}");
    assert!(!folded.contains("cycle"), "{folded}");
}

/// gprof's reports are told by their content: as `.prof` (gprof2dot's name, GHC's extension) or
/// `.txt`, whichever of gprof's options made them.
#[test]
fn a_report_is_told_by_its_content() {
    let dir = temp();
    for (rel, name) in [("work.gprof", "out.prof"), ("work-call-graph.gprof", "q.txt"), ("work-flat.gprof", "p.txt")] {
        let path = dir.path().join(name);
        std::fs::copy(fixture(&format!("gprof/{rel}")), &path).unwrap();
        let out = proftool().arg("info").arg(&path).assert().success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(text.starts_with("format     gprof (recognised by content)\n"), "{rel}: {text}");
    }
}

#[test]
fn converts_to_folded_and_speedscope() {
    for rel in ["gprof/work.gprof", "gprof/work-brief.gprof", "gprof/work-call-graph.gprof"] {
        let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture(rel));
        assert!(folded.lines().any(|l| l.starts_with("main;sum_squares;leaf ")), "{folded}");
        let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture(rel));
        let json: serde_json::Value = serde_json::from_str(&speedscope).unwrap();
        let frames = json["shared"]["frames"].as_array().unwrap();
        assert!(frames.iter().any(|f| f["name"] == "leaf"), "{speedscope}");
    }
}

/// Every prefix of a report is an error, or reads with a warning that it looks cut short, or
/// reads all the time of the whole report (a cut in the explanations after its tables, or after a
/// whole flat profile before the call graph): none reads less without saying so, none panics.
#[test]
fn a_file_cut_anywhere_is_an_error_or_loses_nothing_silently() {
    for rel in ["gprof/work.gprof", "gprof/work-brief.gprof", "gprof/work-call-graph.gprof", "gprof/work-flat.gprof"] {
        let bytes = std::fs::read(fixture(rel)).unwrap();
        let (whole, _) = read_bytes(Format::Gprof, &bytes);
        let total = whole.unwrap().total(0);
        let mut errors = 0;
        for end in 0..bytes.len() {
            let (result, diag) = read_bytes(Format::Gprof, &bytes[..end]);
            let Ok(profile) = result else {
                errors += 1;
                continue;
            };
            let warned = diag.warnings().iter().any(|w| w.key == "gprof-flat-cut" || w.key == "cut-short");
            let same = matches!((profile.total(0), total), (Value::Float(a), Value::Float(b)) if (a - b).abs() < 1e-6);
            assert!(warned || same, "{rel} cut at {end} read {:?} of {total:?} without a warning", profile.total(0));
        }
        assert!(errors > bytes.len() / 4, "{rel}: {errors} errors");
    }
}

/// gprof2dot's test reports (GNU, BSD, macOS, AIX, an embedded simulator's in cycles, UTF-16):
/// each reads, with each function's figures the report's.
#[test]
fn gprof2dots_test_reports_read_with_their_figures() {
    let Some(dir) = std::env::var_os("PROFTOOL_GPROF2DOT_TESTS") else { return };
    let mut files: Vec<_> =
        std::fs::read_dir(Path::new(&dir).join("prof")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        agrees_with_the_report(&path);
    }
}

/// `gprof -l`'s rows are source lines (`leaf (work.c:12 @ 11ec)`): each is a line of its function
/// in its file with the row's self seconds, each function's self time the sum of its rows' and its
/// calls its entry row's (recursive ones too, as `-l` counts them: fib's 38,137,260); its call graph,
/// between lines, is left out and said. Once its rows were read as functions and its call graph's
/// lines as a graph of them, with a total of 0.
#[test]
fn a_line_by_line_report_reads_its_rows_as_lines() {
    let path = fixture("gprof/work-lines.gprof");
    let rows = flat_profile(&text_of(&path));
    let mut lines: BTreeMap<String, f64> = BTreeMap::new();
    let mut functions: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    for (name, &(own, calls)) in &rows {
        // `leaf (work.c:12 @ 11ec)`: the function, then its file and line.
        let (function, place) = name.split_once(" (").unwrap();
        let (file_line, _) = place.split_once(" @ ").unwrap();
        *lines.entry(format!("{function}[{file_line}]")).or_default() += own;
        let figures = functions.entry(function.to_string()).or_default();
        *figures = (figures.0 + own, figures.1 + calls);
    }
    assert_eq!(functions["fib"].1, 38137260);
    let out = proftool().args(["summary", "--lines", "--format", "json"]).arg(&path).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("gprof -l's call graph is left out"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let ours: BTreeMap<String, f64> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["self"].as_f64().unwrap() > 0.0)
        .map(|row| (row["name"].as_str().unwrap().to_string(), row["self"].as_f64().unwrap() / 1e6))
        .collect();
    let theirs: BTreeMap<String, f64> = lines.into_iter().filter(|&(_, own)| own > 0.0).collect();
    assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>());
    for (line, own) in &theirs {
        assert!(same(ours[line], *own), "{line}: {} against {own}", ours[line]);
    }
    let by_function = summary(&path);
    for (function, &(own, calls)) in &functions {
        let (self_time, total, our_calls) = by_function[function];
        assert!(same(self_time, own) && same(total, own), "{function}: {:?}", by_function[function]);
        assert_eq!(our_calls, calls, "{function}");
    }
}
