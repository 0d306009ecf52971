//! The Firefox Profiler's processed profile (`firefox`): samply's own files read with their sample
//! counts, and what proftool writes read back with the source's totals, at the version pinned.

use crate::support::binary::{fixture, info, perf_records, proftool, run, temp};

/// The samples of a processed profile, from the JSON on its own (not through proftool's reader):
/// every thread's `samples.length`, each of weight 1 (samply writes `weight: null`, or 1s).
fn sample_count(path: &std::path::Path) -> u64 {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut total = 0;
    for thread in json["threads"].as_array().unwrap() {
        let samples = &thread["samples"];
        assert_eq!(samples["weightType"], "samples");
        total += match samples["weight"].as_array() {
            Some(weights) => weights.iter().map(|w| w.as_u64().unwrap_or(1)).sum(),
            None => samples["length"].as_u64().unwrap(),
        };
    }
    total
}

/// samply 0.13.1's files (version 49) read by content with every thread's samples, at its 1 ms.
#[test]
fn samplys_files_read_with_their_samples() {
    for rel in ["firefox/samples.firefox.json", "firefox/node.firefox.json"] {
        let (text, _) = info(rel);
        assert!(text.contains("format     firefox (recognised by content)"), "{rel}: {text}");
        let samples = sample_count(&fixture(rel));
        assert!(
            text.contains(&format!("metric     samples (samples, count, additive): total {samples}\n")),
            "{rel}: {text}"
        );
        assert!(text.contains("interval   1ms"), "{rel}: {text}");
    }
}

/// A thread's own samples (a LispWorks process's own: processes.tree's 100 samples, 15 of them
/// of its processes themselves, by hand from the file) are written under a frame named as the
/// thread, not as samples of no stack the profiler leaves out: all 100 read back, and the frame is
/// in the thread's samples.
#[test]
fn a_threads_own_samples_are_kept_under_its_name() {
    let dir = temp();
    let out = dir.path().join("out.firefox.json");
    let done = proftool().args(["convert"]).arg(fixture("lispworks/processes.tree")).arg(&out).assert().success();
    let stderr = String::from_utf8(done.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("threads' own (no frame below the thread) written under a frame named as the thread"),
        "{stderr}"
    );
    assert_eq!(sample_count(&out), 100);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(json["threads"].as_array().unwrap().iter().all(|t| t["samples"]["stack"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| !s.is_null())));
}

/// Written at version 55 (meta.preprocessedProfileVersion 55, meta.version 24), with tables of the
/// length they state, and read back with the source's samples; two threads of one name stay two.
#[test]
fn written_at_the_pinned_version_and_read_back() {
    let dir = temp();
    let out = dir.path().join("out.firefox.json");
    proftool().args(["convert", "-q"]).arg(fixture("firefox/samples.firefox.json")).arg(&out).assert().success();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["meta"]["preprocessedProfileVersion"], 55);
    assert_eq!(json["meta"]["version"], 24);
    assert_eq!(json["meta"]["categories"][0]["color"], "grey");
    for thread in json["threads"].as_array().unwrap() {
        for (table, column) in [
            ("samples", "stack"),
            ("samples", "weight"),
            ("stackTable", "prefix"),
            ("frameTable", "func"),
            ("funcTable", "name"),
        ] {
            assert_eq!(
                thread[table][column].as_array().unwrap().len() as u64,
                thread[table]["length"].as_u64().unwrap(),
                "{table}.{column}"
            );
        }
    }
    assert_eq!(sample_count(&out), sample_count(&fixture("firefox/samples.firefox.json")));
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &out);
    assert!(folded.contains("work;") && folded.contains("work (tid 31409);"), "{folded}");
}

/// Time is written as `tracing-ms` weights, with their fractions: a Gecko recording's 15.999 ms
/// (by hand from its samples' times, tests/formats/gecko.rs) comes back whole.
#[test]
fn time_is_written_as_tracing_ms() {
    let dir = temp();
    let out = dir.path().join("out.firefox.json");
    proftool()
        .args(["convert", "-q"])
        .arg(fixture("gecko/firefox61-recursion.gecko.json"))
        .arg(&out)
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let samples = &json["threads"][0]["samples"];
    assert_eq!(samples["weightType"], "tracing-ms");
    let total: f64 = samples["weight"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).sum();
    assert!((total - 15.999).abs() < 1e-9, "{total}");
    let (text, _) = info(out.to_str().unwrap());
    assert!(text.contains("metric     time (time, ms, additive): total 15.999"), "{text}");
}

/// A file of a version outside those read is refused, naming them.
#[test]
fn another_version_is_refused_naming_the_versions_read() {
    let stderr =
        crate::support::binary::failure(proftool().arg("info").arg(fixture("firefox/bad/version-71.firefox.json")));
    assert!(
        stderr.contains("expected meta.preprocessedProfileVersion 0 to 70") && stderr.contains("found version 71"),
        "{stderr}"
    );
}

/// A profile of version 69 (hand-written, fixtures/README.md): the tables shared by every thread,
/// callers as offsets (`prefixOffset`), files as `sources`. Each thread's stacks hold the samples the
/// Firefox Profiler's own call trees give them (profiler-cli 0.10.0's `thread samples-top-down
/// --include-idle`), each weighed by its `weight` (the worker's `onmessage` 1 + 2); the sample with
/// no stack is left out, as the profiler's call tree leaves it out, and counted on stderr; the
/// second `GeckoMain` is named by its tid; the unsymbolicated address named with its library, as
/// the profiler shows it (`libxul.so!0x1c2b4e`). Its functions' files are its sources' (in its
/// dump).
#[test]
fn version_69_reads_from_its_shared_tables() {
    let path = fixture("firefox/shared-tables.firefox.json");
    let (text, err) = run(&["convert", "--to", "folded"], &path);
    assert_eq!(
        crate::support::sorted_lines(&text),
        [
            "DOM Worker;(root) 1",
            "DOM Worker;(root);onmessage 3",
            "GeckoMain (tid 31100);(root);XRE_main;run 1",
            "GeckoMain (tid 31100);(root);XRE_main;run;fib 2",
            "GeckoMain;(root);XRE_main 1",
            "GeckoMain;(root);XRE_main;libxul.so!0x1c2b4e 1",
            "GeckoMain;(root);XRE_main;run 1",
            "GeckoMain;(root);XRE_main;run;fib 1",
            "GeckoMain;(root);XRE_main;run;fib;fib 1",
            "GeckoMain;(root);XRE_main;run;fib;fib;fib 1",
        ]
    );
    assert!(err.contains("firefox: not read: 2 markers, the CPU time between samples of 1 threads"), "{err}");
    assert!(err.contains("firefox: 1 samples with no stack left out, as the profiler's call tree leaves them out"));
    let (info, _) = info("firefox/shared-tables.firefox.json");
    // 14 samples in the file, one of them with no stack.
    assert_eq!(sample_count(&path), 14);
    assert!(info.contains("metric     samples (samples, count, additive): total 13\n"), "{info}");
}

/// Processed profiles of versions 0, 7 and 24 (hand-written, fixtures/README.md) read as the
/// Firefox Profiler upgrades them: each thread's stacks and samples are those of its call trees in
/// profiler-cli 0.10.0 (`thread samples-top-down --include-idle`, which loads a file through the
/// profiler's upgraders): version 0's `Content` thread is a `GeckoMain` (the profiler's "Content
/// Process"; the second of that name here), its JS functions named `frobnicate (chrome://blargh:34)`
/// and `https://example.org/app.js:12` split into name and file, its `AutoEntryScript` label named
/// `setTimeout handler`; version 7's sample with no stack left out (6 of 7 in the tree); version
/// 24's `Java Main Thread` is `AndroidUI (JVM)` and its `duration`s are the weights (1, 2, 3, 1: 7,
/// the profiler's 100 %); a resource of no name (the profiler's `<unnamed resource>`) names no
/// library. A version-0 file (no `preprocessedProfileVersion`) is told from a Gecko profile by its
/// threads' `stringArray`, as the profiler tells it.
#[test]
fn old_versions_read_as_the_profiler_upgrades_them() {
    for (file, expected) in [
        (
            "firefox/version-0.firefox.json",
            &[
                "GeckoMain (2);(root);XRE_main 1",
                "GeckoMain (2);(root);XRE_main;setTimeout handler 1",
                "GeckoMain (2);(root);XRE_main;setTimeout handler;https://example.org/app.js 2",
                "GeckoMain;(root) 1",
                "GeckoMain;(root);XRE_main;frobnicate 3",
                "GeckoMain;(root);XRE_main;setTimeout handler;https://example.org/app.js 1",
                "GeckoMain;(root);libxul.so!0x1f84 2",
            ][..],
        ),
        (
            "firefox/version-7.firefox.json",
            &[
                "GeckoMain;(root);event handler 1",
                "GeckoMain;(root);event handler;run 1",
                "GeckoMain;(root);event handler;run;fib 1",
                "GeckoMain;(root);event handler;run;fib;fib 2",
                "GeckoMain;(root);libxul.so!0x2a31f0 1",
            ],
        ),
        (
            "firefox/version-24.firefox.json",
            &[
                "AndroidUI (JVM);(root);org.example.Main 1",
                "AndroidUI (JVM);(root);org.example.Main;onCreate 1",
                "AndroidUI (JVM);(root);org.example.Main;onCreate;0x51c0 5",
            ],
        ),
    ] {
        let (text, _) = info(file);
        assert!(text.contains("format     firefox (recognised by content)"), "{file}: {text}");
        let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture(file));
        assert_eq!(crate::support::sorted_lines(&folded), expected, "{file}");
    }
    // Where each is defined (its split file, line and column: version 7's `run` at app.js:10:13) is
    // in the fixtures' dumps.
}

/// samply's file with its keys sorted (`jq -S`: `libs` first, `meta` after) is told by content and
/// reads as the file it came from.
#[test]
fn sorted_keys_are_told_by_content() {
    let (text, _) = info("firefox/sorted-keys.firefox.json");
    assert!(text.contains("format     firefox (recognised by content)"), "{text}");
    let sorted = run(&["convert", "-q", "--to", "folded"], &fixture("firefox/sorted-keys.firefox.json")).0;
    let original = run(&["convert", "-q", "--to", "folded"], &fixture("firefox/shared-tables.firefox.json")).0;
    assert_eq!(sorted, original);
}

/// Each function's (self, total) samples in the CSV summary of `path`.
fn summary_rows(path: &std::path::Path) -> (std::collections::BTreeMap<String, (u64, u64)>, String) {
    let done = proftool().args(["summary", "--format", "csv"]).arg(path).assert().success();
    let output = done.get_output();
    let rows = String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            (cells[0].to_string(), (cells[1].parse().unwrap(), cells[3].parse().unwrap()))
        })
        .collect();
    (rows, String::from_utf8(output.stderr.clone()).unwrap())
}

/// samply's symbol file beside its profile (`--unstable-presymbolicate`: symbolicated.firefox.json
/// and symbolicated.firefox.syms.json) names the addresses, as `samply load` names them for the
/// profiler. The figures (self, total) are work.c's functions found by `nm` of the binary that was
/// recorded, by address, in the profile's own tables (fixtures/README.md), not by the symbol file.
#[test]
fn samplys_symbol_file_beside_the_profile_names_its_addresses() {
    let (rows, stderr) = summary_rows(&fixture("firefox/symbolicated.firefox.json"));
    let by_nm = [
        ("main", (0, 165)),
        ("worker", (0, 123)),
        ("render", (0, 246)),
        ("parse_input", (0, 42)),
        ("leaf", (286, 286)),
        ("fib", (2, 2)),
    ];
    for (name, figures) in by_nm {
        assert_eq!(rows.get(name), Some(&figures), "{name}: {rows:?}");
    }
    assert!(!rows.keys().any(|name| name.contains("!0x")), "no address left: {rows:?}");
    assert!(stderr.contains("33 frames named by samply's symbols in "), "{stderr}");
    assert!(stderr.contains("symbolicated.firefox.syms.json"), "{stderr}");
}

/// Without its symbol file the same profile's addresses are named by their library and address,
/// and stderr says how samply names them; a symbol file that is not one is said and passed over.
#[test]
fn without_a_symbol_file_addresses_keep_their_library_and_the_way_to_name_them_is_said() {
    let dir = temp();
    let alone = dir.path().join("alone.json");
    std::fs::copy(fixture("firefox/symbolicated.firefox.json"), &alone).unwrap();
    let (rows, stderr) = summary_rows(&alone);
    assert!(!rows.contains_key("render"), "{rows:?}");
    assert!(rows.keys().any(|name| name.starts_with("work!0x")), "{rows:?}");
    assert!(stderr.contains("33 frames are unsymbolicated addresses"), "{stderr}");
    assert!(stderr.contains("`samply record --unstable-presymbolicate` writes "), "{stderr}");
    assert!(stderr.contains("writes alone.syms.json beside the profile, which names them"), "{stderr}");

    std::fs::write(dir.path().join("alone.syms.json"), "{\"string_table\": [").unwrap();
    let (rows, stderr) = summary_rows(&alone);
    assert!(rows.keys().any(|name| name.starts_with("work!0x")), "{rows:?}");
    assert!(stderr.contains("alone.syms.json is not samply's symbol file (EOF while parsing"), "{stderr}");
}

/// Sample times are a running sum without the noise of adding floats: three samples of 3 µs each
/// (the Chrome trace case's self times, by hand) start at 0, 0.003 and 0.006 ms, and the thread
/// ends at 0.009 ms (0.009000000000000001 when added as floats).
#[test]
fn sample_times_add_up_without_the_noise_of_floats() {
    let case = fixture("chrome-trace/cases/one-name-nested-at-one-timestamp.json");
    let out = proftool().args(["convert", "-q", "--to", "firefox"]).arg(case).arg("-").assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let thread = &json["threads"][0];
    assert_eq!(thread["samples"]["time"], serde_json::json!([0.0, 0.003, 0.006]));
    assert_eq!(thread["processShutdownTime"], serde_json::json!(0.009));
}

/// Each sample of a processed profile: its thread's name, its time (µs, `meta.startTime` plus
/// the sample's, rounded) and the name of the function its stack ends at, in the file's order
/// (read from the JSON on its own, not through proftool's reader).
fn timed_samples(json: &serde_json::Value) -> Vec<(String, i64, String)> {
    let start = json["meta"]["startTime"].as_f64().unwrap();
    let mut out = Vec::new();
    for thread in json["threads"].as_array().unwrap() {
        let name = |i: &serde_json::Value| thread["stringArray"][i.as_u64().unwrap() as usize].as_str().unwrap();
        let samples = &thread["samples"];
        for (stack, time) in samples["stack"].as_array().unwrap().iter().zip(samples["time"].as_array().unwrap()) {
            let frame = &thread["stackTable"]["frame"][stack.as_u64().unwrap() as usize];
            let func = &thread["frameTable"]["func"][frame.as_u64().unwrap() as usize];
            let leaf = name(&thread["funcTable"]["name"][func.as_u64().unwrap() as usize]);
            let micros = ((start + time.as_f64().unwrap()) * 1000.0).round() as i64;
            out.push((thread["name"].as_str().unwrap().to_string(), micros, leaf.to_string()));
        }
    }
    out
}

/// The samples written by `proftool convert ARGS perf/threads.perf --to firefox`, and the records
/// of the perf text that pass `keep`, each as (thread, µs, leaf), both sorted by thread and time.
fn written_and_recorded(args: &[&str], keep: impl Fn(&[String]) -> bool) -> [Vec<(String, i64, String)>; 2] {
    let mut records: Vec<(String, i64, String)> = (perf_records("perf/threads.perf").into_iter())
        .filter(|(_, _, frames)| keep(frames))
        .map(|(thread, time, frames)| (thread, time, frames[0].clone()))
        .collect();
    let args = [&["convert", "-q", "--to", "firefox"], args].concat();
    let (out, _) = run(&args, &fixture("perf/threads.perf"));
    let mut written = timed_samples(&serde_json::from_str(&out).unwrap());
    // The file's order is thread by thread; the records', time order: both sorted alike.
    written.sort_by_key(|(thread, time, _)| (thread.clone(), *time));
    records.sort_by_key(|(thread, time, _)| (thread.clone(), *time));
    [written, records]
}

/// perf → firefox keeps each sample at its `perf script` time: threads.perf's 26 records (read from
/// the text here) are the samples of the profile written, each on its thread at its time with its
/// leaf, each one ms of cpu-clock (1001001 ns, its period, in ms).
#[test]
fn perf_samples_keep_their_times() {
    let [written, records] = written_and_recorded(&[], |_| true);
    assert_eq!(records.len(), 26);
    assert_eq!(written, records);
    let (out, _) = run(&["convert", "-q", "--to", "firefox"], &fixture("perf/threads.perf"));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    for thread in json["threads"].as_array().unwrap() {
        assert!(thread["samples"]["weight"].as_array().unwrap().iter().all(|w| w.as_f64() == Some(1.001001)));
    }
}

/// A filter keeps the times of the samples it keeps: `--focus calc_work` gives the 13 records whose
/// stacks pass through it (`grep -c calc_work`: a line each), `--hide calc_work` every record, the
/// hidden frame's at its caller.
#[test]
fn filtered_samples_keep_their_times() {
    let through = |frames: &[String]| frames.iter().any(|f| f == "calc_work");
    let [written, records] = written_and_recorded(&["--focus", "^calc_work$"], through);
    assert_eq!(written, records);
    assert_eq!(records.len(), 13);
    let [written, records] = written_and_recorded(&["--hide", "^calc_work$"], |_| true);
    let times =
        |samples: &[(String, i64, String)]| samples.iter().map(|(t, time, _)| (t.clone(), *time)).collect::<Vec<_>>();
    assert_eq!(times(&written), times(&records));
    assert!(written.iter().all(|(_, _, leaf)| leaf != "calc_work"));
}

/// A processed profile written from a processed profile keeps its samples' times (samply's file,
/// its 339 samples of version 49 at their times from its `startTime`; its two threads named `work`
/// are `work` and `work (tid 31409)` once read).
#[test]
fn sample_times_survive_a_round_trip() {
    let times = |json: &serde_json::Value| {
        let mut times: Vec<i64> = timed_samples(json).into_iter().map(|(_, time, _)| time).collect();
        times.sort();
        times
    };
    let source: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("firefox/samples.firefox.json")).unwrap()).unwrap();
    let (out, _) = run(&["convert", "-q", "--to", "firefox"], &fixture("firefox/samples.firefox.json"));
    let theirs = times(&source);
    assert_eq!(theirs.len(), 339);
    assert_eq!(times(&serde_json::from_str(&out).unwrap()), theirs);
}
