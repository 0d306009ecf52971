//! Flame graphs (`svg`): the one proftool draws from the model is the one inferno draws from the
//! whole folded text, box for box, though proftool hands inferno only the lines of the boxes it
//! draws; through the binary, the picture's title and boxes, and an SVG is not read.

use crate::support::binary::{fixture, proftool, run, temp};
use crate::support::*;
use predicates::prelude::*;
use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::model::MetricKind;
use proftool::{Format, Profile};

/// The SVG inferno draws from `profile`'s folded stacks as `inferno-flamegraph` reads them (sorting
/// the lines itself), names that end in a number given a no-break space as proftool gives them.
fn inferno_svg(profile: &Profile) -> Vec<u8> {
    let mut folded = Vec::new();
    Format::Folded.write_fitted(profile, &mut folded, &ConvertOptions::default(), &mut Diagnostics::default()).unwrap();
    let folded = String::from_utf8(folded).unwrap();
    // A name XML cannot carry as it is has its control characters written `\u{1}`
    // (chromium-startup.json has one), then a name that ends in a number a no-break space before it.
    let fixed = |frame: &str| {
        let frame: String = frame
            .chars()
            .map(|c| match c.is_control() && !matches!(c, '\t' | '\n' | '\r') && (c as u32) < 0x20 {
                true => format!("\\u{{{:x}}}", c as u32),
                false => c.to_string(),
            })
            .collect();
        match frame.rsplit_once(' ') {
            Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit() || b == b'.') => {
                format!("{head}\u{a0}{tail}")
            }
            _ => frame.to_string(),
        }
    };
    let lines: Vec<String> = folded
        .lines()
        .map(|line| {
            let (stack, count) = line.rsplit_once(' ').unwrap();
            format!("{} {count}", stack.split(';').map(fixed).collect::<Vec<_>>().join(";"))
        })
        .collect();
    let mut options = inferno::flamegraph::Options::default();
    options.title = profile.meta.title.clone().unwrap_or_else(|| "Flame Graph".into());
    // A box counts time in its unit, anything else by its metric's name.
    let metric = &profile.metrics()[0];
    options.count_name =
        if metric.kind == MetricKind::Time { metric.unit.name().to_string() } else { metric.name.clone() };
    options.hash = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg).unwrap();
    svg
}

/// proftool's SVG of `profile`, and the reference, from the same projection.
fn both(profile: &Profile) -> Option<(Vec<u8>, Vec<u8>)> {
    let projected =
        convert::project(profile.clone(), Format::Svg, &ConvertOptions::default(), &mut Diagnostics::default()).ok()?;
    if projected.total(0).as_f64() == 0.0 {
        return None;
    }
    let mut ours = Vec::new();
    Format::Svg.write_fitted(&projected, &mut ours, &ConvertOptions::default(), &mut Diagnostics::default()).unwrap();
    Some((ours, inferno_svg(&projected)))
}

#[test]
fn every_fixture_is_drawn_as_inferno_draws_it() {
    let mut failures = Vec::new();
    for (format, path) in good_fixtures() {
        let (profile, _) = read_fixture(format, &path);
        if let Some((ours, theirs)) = both(&profile) {
            if ours != theirs {
                failures.push(format!("{}: the SVGs differ", path.display()));
            }
        }
    }
    assert_no_failures(failures);
}

#[test]
fn narrow_boxes_fold_away_without_moving_a_drawn_one() {
    // Names that sort apart from their own lines (`x 5` < `x y;…` < `x;…` as inferno sorts lines),
    // a leaf at 0 between two pieces of one frame, and thousands of boxes too narrow to draw
    // (each 1 of 200,000 samples) beside wide ones, at every depth.
    let mut text = String::from("x 5\nx y;c 1\nx;z 3000\nx;z;w 0\nx;zz 0\nx;zz;q 40000\n");
    for i in 0..3000 {
        text.push_str(&format!("main;wide;leaf{i} 1\nmain;wide;leaf{i};deeper 1\nx;z;tiny{i} 1\n"));
    }
    text.push_str("main;wide 100000\nmain;wide;big 42000\nmain 3000\nmain b 2\n");
    let (profile, _) = read_bytes(Format::Folded, text.as_bytes());
    let (ours, theirs) = both(&profile.unwrap()).unwrap();
    assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
}

#[test]
fn a_flame_graph_is_drawn_as_svg() {
    let dir = temp();
    let svg = dir.path().join("out.svg");
    proftool().arg("convert").arg(fixture("lispworks/processes.tree")).arg(&svg).assert().success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<?xml") && text.contains("<svg") && text.trim_end().ends_with("</svg>"), "{text}");
    assert!(text.contains("fib benchmark: run 2"), "the tree's title is the picture's");
    // Inclusive samples checked by hand against processes.tree (see the folded test above): the
    // listener's 5 own samples are in its box, not in a box of their own (its name ends in a number,
    // which inferno would otherwise read as a second count: the space before it is a no-break one).
    for title in [
        "<title>Profile root (100 samples, 100.00%)</title>",
        "<title>CAPI Execution Listener\u{a0}1 (90 samples, 90.00%)</title>",
        "<title>CL-USER::FIB (60 samples, 60.00%)</title>",
        "<title>CL-USER::FIB (35 samples, 35.00%)</title>",
        "<title>Idle &quot;process&quot; (10 samples, 10.00%)</title>",
    ] {
        assert!(text.contains(title), "{title} missing");
    }
    assert_eq!(text.matches("<title>CAPI Execution Listener").count(), 1, "one box for the listener");
}

#[test]
fn an_svg_is_not_read_and_an_empty_profile_is_not_drawn() {
    let dir = temp();
    let svg = dir.path().join("in.svg");
    std::fs::write(&svg, "<svg/>").unwrap();
    proftool()
        .arg("convert")
        .arg(&svg)
        .arg(dir.path().join("out.folded"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("its extension says svg, which proftool writes but does not read"));
    let out = dir.path().join("out.svg");
    let zeros = dir.path().join("zeros.folded");
    std::fs::write(&zeros, "main;idle 0\nmain;wait 0\n").unwrap();
    proftool()
        .arg("convert")
        .arg(&zeros)
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("this profile's are all 0"));
    assert!(!out.exists());
}

/// Names holding every C0 control character (and a title with one) make well-formed XML: those
/// XML cannot carry are written `\u{1}`, said once on stderr with how many.
#[test]
fn control_characters_in_names_leave_the_svg_well_formed() {
    // The check refuses what XML cannot carry, raw or as a reference, and takes what it can.
    for bad in ["<a>\u{1}</a>", "<a b=\"&#1;\"/>", "<a>&#x1f;</a>", "<a><b></a>"] {
        assert!(well_formed_xml(bad).is_err(), "{bad:?}");
    }
    well_formed_xml("<a b=\"&#9;\">\t\r\n&amp;\u{7f}</a>").unwrap();
    let dir = temp();
    let input = dir.path().join("names.speedscope.json");
    std::fs::write(&input, control_character_names()).unwrap();
    let (svg, stderr) = run(&["convert", "--to", "svg"], &input);
    well_formed_xml(&svg).unwrap();
    assert!(svg.contains(r"f\u{1b}") && svg.contains(r"f\u{0}") && svg.contains(r"t\u{1}"), "{svg}");
    // 29 names and the title; tab, line feed and carriage return are XML's (the folded stacks
    // inferno draws from write a line break as a space).
    assert!(
        stderr.contains(
            r"svg: 30 name(s) hold control characters that XML 1.0 cannot carry, even escaped: written as escapes of their code (\u{1}, \u{1b} for ESC)"
        ),
        "{stderr}"
    );
}
