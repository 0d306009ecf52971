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
    assert_eq!(profile["parent"].as_array().unwrap().len(), profile["frame"].as_array().unwrap().len());
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
        .args(["diff", "-q", "--to", "html"])
        .arg(&out)
        .arg(&base)
        .arg(&new)
        .assert()
        .code(3);
    let page = std::fs::read_to_string(&out).unwrap();
    let profile = profile_of(&page);
    assert_eq!(profile["diff"]["regression"], true);
    assert_eq!(profile["diff"]["flagged"], serde_json::json!(["render"]));
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
