//! The `proftool` binary on GHC profiles: where functions are defined, interval and root rules,
//! what -px output loses.

use crate::support::binary::{fixture, proftool, run, run_bytes, run_stdin};

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

#[test]
fn ghc_json_with_a_long_argument_list_is_detected() {
    let original = std::fs::read_to_string(fixture("ghc-json/speedscope-haskell-simple.prof.json")).unwrap();
    let arguments: String = (0..20).map(|i| format!(", \"--some-long-argument-number-{i:02}=with-a-value\"")).collect();
    let long = original.replacen(
        "\"arguments\": [\"binary-trees\"",
        &format!("\"arguments\": [\"binary-trees\"{arguments}"),
        1,
    );
    assert!(long.find("rts_arguments").unwrap() > 512);
    let (out, _) = run_stdin(&["convert", "--to", "folded"], long.as_bytes());
    assert!(out.starts_with("MAIN.MAIN;Control.Exception.Base.CAF 0\n"), "{out}");
}

/// The second line of a -px file: its tick length.
fn px_interval(out: &[u8]) -> String {
    String::from_utf8_lossy(out).lines().nth(1).unwrap_or_default().to_string()
}

/// Time divided into `-px` ticks is divided at the interval the header states, whole milliseconds:
/// a run of 68.4 ms (a Dyalog-sized one, typed here as speedscope time) read back from the header
/// and its ticks is 68 ms at `--interval 250us` (stated as 1 ms: 68 ticks, not 274 ticks of "1 ms",
/// 274 ms) and 68 ms at `--interval 1500us` (stated as 2 ms: 34 ticks), by hand.
#[test]
fn time_becomes_ticks_of_the_interval_the_px_header_states() {
    let run = r#"{"$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "Rain"}, {"name": "Sum"}]},
        "profiles": [{"type": "evented", "name": "run", "unit": "milliseconds", "startValue": 0, "endValue": 68.4,
            "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 10},
                       {"type": "C", "frame": 1, "at": 50}, {"type": "C", "frame": 0, "at": 68.4}]}]}"#;
    for (interval, header, ticks) in [("250us", "\"1 ms\"", 68), ("1500us", "\"2 ms\"", 34), ("4ms", "\"4 ms\"", 17)] {
        let args = ["convert", "--from", "speedscope", "--interval", interval, "--to", "ghc-px"];
        let (px, err) = run_stdin(&args, run.as_bytes());
        assert_eq!(px_interval(px.as_bytes()), header, "{interval}: {err}");
        assert_eq!(err.contains("ghc-px states its interval in steps of 1ms"), interval != "4ms", "{err}");
        let summary =
            proftool().args(["summary", "-q", "--from", "ghc-px", "--format", "csv", "-"]).write_stdin(px).output();
        let summary = String::from_utf8(summary.unwrap().stdout).unwrap();
        // The self ticks of every row.
        let total: u64 = summary.lines().skip(1).filter_map(|l| l.split(',').nth(1)?.parse::<u64>().ok()).sum();
        assert_eq!(total, ticks, "{interval}: {summary}");
    }
}

#[test]
fn interval_does_not_relabel_counted_ticks() {
    // -px ticks of 20 ms, and .prof ticks of 1000 us: kept as counted, at their own interval.
    for (input, own) in [("ghc-px/notes-example.px", "20ms"), ("ghc-prof/inferno-ticks.prof", "1ms")] {
        let (out, err) = run_bytes(&["convert", "--interval", "10ms", "--to", "ghc-px"], &fixture(input));
        assert_eq!(px_interval(&out), format!("\"{}\"", own.replace("ms", " ms")), "{input}");
        let warning = format!(
            "--interval 10ms is not applied: no time is turned into counts, and counts are kept as they were taken; ghc-px gets the profile's own interval, {own}"
        );
        assert_eq!(err.matches(&warning).count(), 1, "{input}: {err}");
    }
    // A target without an interval says so too.
    let (_, err) = run_bytes(&["convert", "--interval", "10ms", "--to", "folded"], &fixture("ghc-px/notes-example.px"));
    assert!(
        err.contains("--interval 10ms is not applied") && err.contains("the profile's own interval is 20ms"),
        "{err}"
    );
    // The same interval as the profile's is no news.
    let (out, err) =
        run_bytes(&["convert", "--interval", "20ms", "--to", "ghc-px"], &fixture("ghc-px/notes-example.px"));
    assert_eq!((px_interval(&out).as_str(), err.contains("not applied")), ("\"20 ms\"", false));
}

#[test]
fn interval_turns_time_into_ticks_and_labels_counts_without_one() {
    // Time (from %time) becomes ticks of --interval.
    let (out, err) =
        run_bytes(&["convert", "--interval", "10ms", "--to", "ghc-px"], &fixture("ghc-prof/inferno-percent.prof"));
    assert_eq!(px_interval(&out), "\"10 ms\"");
    assert!(err.contains("time in ms divided into ticks of 10ms") && !err.contains("not applied"), "{err}");
    // Folded counts have no interval of their own: --interval says what they were taken at.
    let (out, err) = run_stdin(&["convert", "--interval", "10ms", "--from", "folded", "--to", "ghc-px"], b"a;b 3\n");
    assert_eq!(out.lines().nth(1), Some("\"10 ms\""));
    assert!(!err.contains("not applied"), "{err}");
}

#[test]
fn px_output_has_one_main_root() {
    // One root that is not MAIN goes under an added MAIN, as several roots do.
    for input in [&b"a;b 3\na;c 2\n"[..], b"a;b 3\nd 2\n"] {
        let (out, err) = run_stdin(&["convert", "--from", "folded", "--to", "ghc-px"], input);
        let main_id = out.lines().find(|l| l.ends_with(" \"MAIN\" \"MAIN\"")).expect(&out).split(' ').nth(1).unwrap();
        let roots: Vec<&str> =
            out.lines().filter(|l| l.starts_with("2 ") && l.split(' ').nth(2) == Some("1")).collect();
        assert_eq!(roots, [format!("2 1 1 {main_id}")], "{out}");
        assert!(
            err.contains("ghc-px has one root, MAIN: the input's roots are put under a MAIN added for them"),
            "{err}"
        );
    }
    // A MAIN root is kept as it is.
    let (out, err) =
        run_bytes(&["convert", "--to", "ghc-px"], &fixture("ghc-json/speedscope-haskell-simple.prof.json"));
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.lines().filter(|l| l.contains("\"MAIN\" \"MAIN\"")).count(), 1, "{out}");
    assert!(!err.contains("root"), "{err}");
}

#[test]
fn each_replacement_in_px_names_is_its_own_warning() {
    // A label with a quote and a line break (JSON escapes them): both replacements are named.
    let json = br#"{"program": "p", "arguments": [], "rts_arguments": [], "total_ticks": 1, "tick_interval": 1000,
 "cost_centres": [{"id": 1, "label": "say \"hi\"\nthere", "module": "Main", "src_loc": "", "is_caf": false}],
 "profile": {"id": 1, "entries": 1, "alloc": 8, "ticks": 1, "children": []}}"#;
    let (out, err) = run_stdin(&["convert", "--from", "ghc-json", "--to", "ghc-px"], json);
    assert!(out.contains("1 1 \"say 'hi' there\" \"Main\""), "{out}");
    for c in [r#"'"'"#, r"'\n'"] {
        assert!(err.contains(&format!("ghc-px frame names cannot hold {c}")), "{c}: {err}");
    }
}

/// Folded stacks name cost centres `Module.label`, as proftool and inferno write them; written as
/// -px they are split back into label and module, and `MAIN.MAIN` is GHC's root again, not a frame
/// under a MAIN added for it. Read back, the -px gives the very stacks it was written from.
#[test]
fn folded_names_are_split_back_into_cost_centres_for_px() {
    let (folded, _) = run_bytes(&["convert", "--to", "folded"], &fixture("ghc-px/notes-example.px"));
    let (px, stderr) = run_stdin(&["convert", "--from", "folded", "--to", "ghc-px"], &folded);
    assert!(!stderr.contains("MAIN added"), "{stderr}");
    for declared in ["\"MAIN\" \"MAIN\"", "\"isEven\" \"Main\"", "\"CAF\" \"Main\"", "\"DONT_CARE\" \"MAIN\""] {
        assert!(px.contains(declared), "{declared} in {px}");
    }
    let (again, _) = run_stdin(&["convert", "--from", "ghc-px", "--to", "folded"], px.as_bytes());
    assert_eq!(again.as_bytes(), folded);
}

/// below-rounding.prof, made by hand from the format's rules: 10,000 ticks of 1 ms and 1,000,000,000
/// bytes. main has 3,000 ticks and 200,000,000 bytes, fib under it 2,500 and 150,000,000, go
/// 4,420 and 250,000,000, readInput 0 and 386,000,000 (all whole tenths of a percent). Under go,
/// run1 to run20 have 300,000 bytes each (0.03 %), and fib under each 4 ticks and 400,000 bytes
/// (0.04 %): those forty rows print 0.0. So the rows place 99.2 % of the time and 98.6 % of the
/// alloc; GHC's per-cost-centre table has fib at 25.8 % and 15.8 % (2,580 ticks, 158,000,000
/// bytes), where the tree places 25.0 and 15.0.
#[test]
fn a_p_report_puts_what_its_rows_round_to_nothing_under_one_frame() {
    let input = fixture("ghc-prof/below-rounding.prof");
    // The totals are the header's, and fib's self time is the table's 25.8 %.
    let out = proftool().args(["info", "--json"]).arg(&input).assert().success();
    let info: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let totals: Vec<(&str, f64)> = info["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["total"].as_f64().unwrap()))
        .collect();
    assert_eq!(totals, [("time", 10_000.0), ("entries", 44.0), ("alloc", 1_000_000_000.0)]);
    let top: Vec<(&str, f64)> = info["top_functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["self"].as_f64().unwrap()))
        .collect();
    assert_eq!(top, [("Main.go", 4420.0), ("Main.main", 3000.0), ("Main.fib", 2580.0)]);
    // What the rows leave: fib's 0.8 % of each (80 ms, 8,000,000 bytes) by name, and the run cost
    // centres' 0.6 % of the alloc (under 1 %, not in the table) in the frame itself.
    let (time, err) = run(&["convert", "--to", "folded", "--interval", "1ms"], &input);
    assert!(
        time.ends_with("MAIN.MAIN;Main.CAF;Main.main;Main.readInput 0\nMAIN.MAIN;<below 0.05 %>;Main.fib 80\n"),
        "{time}"
    );
    let (alloc, _) = run(&["convert", "--to", "folded", "--metric", "alloc"], &input);
    assert!(
        alloc.ends_with("MAIN.MAIN;<below 0.05 %> 6000000\nMAIN.MAIN;<below 0.05 %>;Main.fib 8000000\n"),
        "{alloc}"
    );
    for said in [
        "the tree's rows place 99.2 % of the header's total time; the other 0.8 % (80 ms), in rows under 0.05 %, is put under <below 0.05 %>",
        "the tree's rows place 98.6 % of the header's total alloc; the other 1.4 % (14000000 bytes), in rows under 0.05 %, is put under <below 0.05 %>",
        "profile with +RTS -P for exact ticks and bytes",
    ] {
        assert!(err.contains(said), "{said}\nnot in:\n{err}");
    }
}

/// inferno-percent.prof cut at the end of its line 40: the tree's first 19 rows (lines 22–40),
/// whose individual %time and %alloc all print 0.0. Rounding can leave out at most 0.05 % a row,
/// 0.9 % in all: the 100 % they leave says the report is cut, not rounded.
#[test]
fn a_ghc_time_report_cut_at_a_line_end_is_said_to_look_cut() {
    let text = std::fs::read_to_string(fixture("corpus/ghc-prof/inferno-percent.prof")).unwrap();
    let cut: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cut.prof");
    std::fs::write(&input, cut).unwrap();
    let out = proftool().arg("info").arg(&input).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("the report looks cut short: the tree's rows place 0.0 % of the header's total time, and the other 100.0 % (20 ms) is more than the rounding of its 19 rows can leave out (0.05 % each, 0.9 % in all)"),
        "{stderr}"
    );
    // The whole report leaves 0.1 % of its alloc, which its rows' rounding explains.
    let out = proftool().arg("info").arg(fixture("corpus/ghc-prof/inferno-percent.prof")).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("looks cut short") && stderr.contains("in rows under 0.05 %"), "{stderr}");
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
