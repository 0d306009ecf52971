//! The HTML viewer (`html`, written only): one file with nothing outside it, the profile's JSON
//! in it intact whatever its names hold. The page itself is tested in headless Chromium by
//! `.ci/html-viewer.mjs` (`.ci/consumers`).

use crate::support::binary::{fixture, run, run_stdin};

/// The profile's JSON in a page.
fn profile_of(page: &str) -> serde_json::Value {
    let start = page.find(r#"<script id="profile" type="application/json">"#).unwrap();
    let json = &page[start..].split_once('>').unwrap().1;
    serde_json::from_str(json.split_once("</script>").unwrap().0).unwrap()
}

/// A page needs nothing but itself: no script, style, image or font from elsewhere, and a
/// content security policy that forbids any; the profile is in it whole, the metric shown first
/// the one the source is weighed by (perf's cpu-clock: 51,250,000 ns, 205 samples of 250,000).
#[test]
fn a_page_is_self_contained_and_holds_the_profile() {
    let (page, _) = run(&["convert", "-q", "--to", "html"], &fixture("perf/work.perf"));
    for outside in ["<script src", "<link", "<img", "@import", "url(", "fetch(", "XMLHttpRequest"] {
        assert!(!page.contains(outside), "{outside}");
    }
    assert!(page.contains("default-src 'none'"));
    let profile = profile_of(&page);
    let shown = profile["weighedBy"].as_u64().unwrap() as usize;
    assert_eq!(profile["metrics"][shown]["name"], "cpu-clock");
    let total: i64 = profile["values"][shown].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).sum();
    assert_eq!(total, 51_250_000);
    assert_eq!(profile["parentOffset"].as_array().unwrap().len(), profile["frame"].as_array().unwrap().len());
}

/// A name that holds `</script>` cannot end the profile's script: it is written `\u003c/script>`
/// and read back whole.
#[test]
fn a_name_cannot_close_the_script() {
    let (page, _) = run_stdin(&["convert", "--from", "folded", "--to", "html"], b"main;</script><b>x 3\nmain 1\n");
    assert_eq!(page.matches("</script>").count(), 2, "the profile's and the viewer's");
    let profile = profile_of(&page);
    assert!(profile["strings"].as_array().unwrap().iter().any(|s| s == "</script><b>x"), "{profile}");
}

/// The title is the profile's, made safe as HTML text.
#[test]
fn the_title_is_the_profiles() {
    let (page, _) = run(&["convert", "-q", "--to", "html"], &fixture("lispworks/processes.tree"));
    assert!(page.contains("<title>proftool: fib benchmark: run 2</title>"), "{}", &page[..400]);
}

/// `diff --to html` writes the differential page, with the gate's verdict, and still exits 3 on a
/// regression.
#[test]
fn a_differential_page_has_both_sides_and_the_verdict() {
    let dir = crate::support::binary::temp();
    let out = dir.path().join("diff.html");
    let (base, new) = (fixture("gate/perf-1.perf.gz"), fixture("gate/perf-slow-1.perf.gz"));
    crate::support::binary::proftool()
        .args(["diff", "-q", "--run-floor", "0", "--to", "html"])
        .arg(&out)
        .arg(&base)
        .arg(&new)
        .assert()
        .code(3);
    let page = std::fs::read_to_string(&out).unwrap();
    let profile = profile_of(&page);
    assert_eq!(profile["diff"]["regression"], true);
    // The gate's rows: render failed, first (the largest change); the others did not.
    let rows = &profile["diff"]["rows"];
    assert_eq!(rows["name"][0], "render");
    let failed: Vec<&serde_json::Value> = (0..rows["name"].as_array().unwrap().len())
        .filter(|&i| rows["outcome"][i] == "failed")
        .map(|i| &rows["name"][i])
        .collect();
    assert_eq!(failed, ["render"]);
    let names: Vec<&str> = profile["metrics"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["base", "new"]);
}

/// `view --no-open` writes the page where asked and prints its path.
#[test]
fn view_writes_the_page_and_prints_its_path() {
    let dir = crate::support::binary::temp();
    let out = dir.path().join("work.html");
    let run = crate::support::binary::proftool()
        .args(["view", "-q", "--no-open", "--out"])
        .arg(&out)
        .arg(fixture("perf/work.perf"))
        .assert()
        .success();
    assert_eq!(String::from_utf8(run.get_output().stdout.clone()).unwrap(), format!("{}\n", out.display()));
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<!doctype html>"));
}

/// A Dyalog tree's totals are measured: the page holds `#.Rain`'s InclusiveTime, 68.40049487792044
/// ms (the `]PROFILE` guide's tree report says 68.4 ms; its self values add up to 0.9 ms), states
/// it as the total, and maps each of Rain's lines to Rain's frame, so that the page merges them as
/// `summary` does.
#[test]
fn a_dyalog_tree_keeps_its_measured_totals_and_its_lines_functions() {
    let (page, _) = run(&["convert", "-q", "--to", "html"], &fixture("dyalog-xml/v0.9.0-tree.xml"));
    let profile = profile_of(&page);
    let time = profile["metrics"].as_array().unwrap().iter().position(|m| m["name"] == "time").unwrap();
    assert_eq!(profile["totals"][time], 68.40049487792044);
    assert_eq!(profile["measured"][time][0], 68.40049487792044);
    let self_sum: f64 = profile["values"][time].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
    assert!(self_sum < 1.0, "{self_sum}");
    let strings = profile["strings"].as_array().unwrap();
    let name_of = |frame: usize| strings[profile["frames"][4 * frame].as_u64().unwrap() as usize].as_str().unwrap();
    let rain = (0..profile["function"].as_array().unwrap().len()).find(|&f| name_of(f) == "#.Rain").unwrap();
    let line = (0..profile["function"].as_array().unwrap().len()).find(|&f| name_of(f) == "#.Rain[6]").unwrap();
    assert_eq!(profile["function"][line], rain as u64);
    assert_eq!(profile["function"][rain], rain as u64);
}

/// A line whose function is no frame of the profile (pprof's `fn[file:line]`) gets its function as
/// a frame of its own, named as `summary` names the function.
#[test]
fn a_line_of_no_function_frame_gets_one() {
    let (page, _) = run_stdin(&["convert", "--from", "folded", "--to", "html", "--lines"], b"main;work 3\n");
    let profile = profile_of(&page);
    // Folded stacks have no lines: every frame is its own function.
    let frames = profile["frames"].as_array().unwrap().len() / 4;
    assert_eq!(profile["function"], serde_json::json!((0..frames).collect::<Vec<_>>()));
    let (page, _) = run(&["convert", "-q", "--to", "html"], &fixture("pprof/cpu.pb.gz"));
    let profile = profile_of(&page);
    let strings = profile["strings"].as_array().unwrap();
    let functions = profile["function"].as_array().unwrap();
    let lines = (0..functions.len()).filter(|&f| profile["frames"][4 * f + 3] == 1).count();
    assert!(lines > 0, "the fixture has lines");
    for (f, function) in functions.iter().enumerate() {
        let function = function.as_u64().unwrap() as usize;
        let (name, of) = (
            &strings[profile["frames"][4 * f].as_u64().unwrap() as usize],
            &strings[profile["frames"][4 * function].as_u64().unwrap() as usize],
        );
        let kind =
            if profile["frames"][4 * f + 3] == 1 { serde_json::json!(0) } else { profile["frames"][4 * f + 3].clone() };
        assert_eq!(profile["frames"][4 * function + 3], kind);
        assert!(name.as_str().unwrap().starts_with(of.as_str().unwrap()), "{name} of {of}");
    }
}

/// Every fixture's page states the total `summary --format json` gives, of the metric it shows
/// first (the browser test, .ci/html-viewer.mjs, checks what the page draws and its table).
#[test]
fn every_pages_total_is_summarys() {
    let (mut failures, mut checked) = (Vec::new(), 0);
    for (_, path) in crate::support::good_fixtures() {
        let out = crate::support::binary::proftool()
            .args(["convert", "-q", "--to", "html"])
            .arg(&path)
            .arg("-")
            .output()
            .unwrap();
        if !out.status.success() {
            continue;
        }
        let profile = profile_of(&String::from_utf8(out.stdout).unwrap());
        let summary =
            crate::support::binary::proftool().args(["summary", "-q", "--format", "json"]).arg(&path).output().unwrap();
        let summary: serde_json::Value = serde_json::from_slice(&summary.stdout).unwrap();
        let shown = profile["weighedBy"].as_u64().unwrap() as usize;
        checked += 1;
        let (total, want) = (profile["totals"][shown].as_f64().unwrap(), summary["total"].as_f64().unwrap());
        if profile["metrics"][shown]["name"] != summary["metric"] || (total - want).abs() > 1e-9 * want.abs().max(1.0) {
            failures.push(format!(
                "{}: {total} of {}, summary {want} of {}",
                path.display(),
                profile["metrics"][shown]["name"],
                summary["metric"]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(checked > 90, "{checked} fixtures");
}

/// A page without a title of its own (perf names none) is titled by its file's name.
#[test]
fn a_page_without_a_title_is_named_by_its_file() {
    let (page, _) = run(&["convert", "-q", "--to", "html"], &fixture("perf/work.perf"));
    assert!(page.contains("<title>proftool: work.perf</title>"), "{}", &page[..400]);
}
