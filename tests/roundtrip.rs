//! Round trips over every pair of registered formats, written once: a new format joins by being in
//! `Format::ALL` and having fixtures.

use crate::support::*;
use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::formats::Structure;
use proftool::model::{dump::dump, ops, Frame, FrameKind, MetricKind, Value};
use proftool::{Format, Profile};

/// Writes `profile` as `format` with default options.
pub fn write(format: Format, profile: &Profile) -> Vec<u8> {
    try_write(format, profile).unwrap_or_else(|e| panic!("writing {format}: {e}"))
}

fn try_write(format: Format, profile: &Profile) -> Result<Vec<u8>, proftool::Error> {
    let mut out = Vec::new();
    convert::write(profile.clone(), format, &mut out, &ConvertOptions::default(), &mut Diagnostics::default())?;
    Ok(out)
}

/// The stacks of a profile that carry samples, independent of how any format orders or groups them:
/// its folded text, read back (so that names are compared as folded sanitises them) and written in
/// normal form, without the zero-count lines that formats with one record per sample cannot hold.
/// Time is divided into samples of 1 ms, so that two profiles whose times a writer rounded apart (to
/// whole nanoseconds, say) give the same stacks.
pub fn stacks(profile: &Profile) -> String {
    if profile.tree.is_empty() {
        // No stack at all (folded refuses it).
        return String::new();
    }
    let options = ConvertOptions::new(Some(proftool::convert::DEFAULT_INTERVAL));
    let mut out = Vec::new();
    convert::write(profile.clone(), Format::Folded, &mut out, &options, &mut Diagnostics::default()).unwrap();
    let folded = read_bytes(Format::Folded, &out).0.unwrap();
    let text = String::from_utf8(write(Format::Folded, &ops::normalize(&folded))).unwrap();
    text.lines().filter(|l| !l.ends_with(" 0")).map(|l| format!("{l}\n")).collect()
}

/// What `target` can hold of `profile`: the conversion step's projection.
pub fn projected(profile: &Profile, target: Format) -> Profile {
    convert::project(profile.clone(), target, &ConvertOptions::default(), &mut Diagnostics::default()).unwrap()
}

/// The total of the metric a one-number target writes.
pub fn primary_total(profile: &Profile) -> Option<Value> {
    profile.primary_metric().map(|m| profile.total(m))
}

/// Checks `profile` (read from `origin`, if it was read from a file) through `target` and back;
/// returns what went wrong.
pub fn check_pair(origin: Option<Format>, target: Format, profile: &Profile, label: &str) -> Vec<String> {
    if let Some(failures) = check_refusal(target, profile, label) {
        return failures;
    }
    let expected = projected(profile, target);
    if expected.metrics().is_empty() {
        // None of its metrics is one the target holds (instructions into the Firefox Profiler's
        // samples): a target that refuses it says so.
        if let Err(proftool::Error::Unrepresentable { .. }) = try_write(target, profile) {
            return Vec::new();
        }
    }
    let written = write(target, profile);
    if target.carries().structure == Structure::Graph {
        return check_graph(target, &written, &expected, label);
    }
    // Time written into folded stacks reads back as time where its unit is given (`--folded-unit`).
    let time_unit = expected.metrics().iter().find(|m| m.kind == MetricKind::Time).map(|m| m.unit);
    let mut read_options = own_output();
    read_options
        .formats
        .set(proftool::formats::folded::Options { unit: time_unit.filter(|_| target == Format::Folded) });
    let (reread, _) = read_bytes_with(target, &written, &read_options);
    let reread = match reread {
        Ok(p) => p,
        Err(e) => return vec![format!("{label}: {target} output does not read back: {e}")],
    };
    let mut failures = Vec::new();
    if let Err(e) = reread.validate() {
        failures.push(format!("{label}: {target} re-read is invalid: {e}"));
    }
    if origin == Some(target) {
        failures.extend(same_format_change(target, (profile, &expected), &reread, label));
    }
    if write(target, &reread) != written {
        failures.push(format!("{label}: writing the re-read {target} is not byte-identical"));
    }
    if !totals_agree(primary_total(&expected), primary_total(&reread), expected.tree.len()) {
        failures.push(format!(
            "{label}: total changed from {:?} to {:?}",
            primary_total(&expected),
            primary_total(&reread)
        ));
    }
    if stacks(&reread) != stacks(&expected) {
        failures.push(format!("{label}: stacks changed:\n{}---\n{}", stacks(&expected), stacks(&reread)));
    }
    failures
}

/// Where `target` must not write `profile` (or there is nothing to read back: a picture), the
/// failures of that check; `None` where it is written and read back.
fn check_refusal(target: Format, profile: &Profile, label: &str) -> Option<Vec<String>> {
    if !target.can_read() {
        // Written only (a picture): it must be written, unless there is nothing to draw, which
        // it must then say.
        let nothing = primary_total(&projected(profile, target)).is_none_or(|total| total.as_f64() == 0.0);
        return Some(match try_write(target, profile) {
            Ok(_) => Vec::new(),
            Err(proftool::Error::Unrepresentable { .. }) if nothing => Vec::new(),
            Err(e) => vec![format!("{label}: {target} is not written: {e}")],
        });
    }
    // A profile of no stack: folded stacks of it would be an empty file, a LispWorks tree or a
    // Dyalog report one of no row, which their readers do not take.
    if profile.tree.is_empty() && target.no_stack_file().is_some() {
        return Some(refused(target, profile, "no stack", &format!("{label}: {target} takes a profile of no stack")));
    }
    // A heap profile's bytes and objects are no samples: such a target must refuse it.
    if refuses_for_want_of_time(profile, target) {
        return Some(refused(target, profile, "--metric", &format!("{label}: {target} takes a profile with no time")));
    }
    // A profile of no sample: a BR file is a group per sample, and one of none is empty.
    if br_of_no_sample(profile, target) {
        return Some(refused(
            target,
            profile,
            "holds no sample",
            &format!("{label}: {target} takes a profile of no sample"),
        ));
    }
    // Samples with no frame but their thread: nothing is left to write where threads go.
    if holds_nothing_but_threads(profile, target) {
        let wrong = format!("{label}: {target} takes a profile of threads only");
        return Some(refused(target, profile, "nothing but threads", &wrong));
    }
    None
}

/// What a same-format round trip changed of `profile` (its projection `expected`) that the format
/// carries: `reread` is what its output read back as.
fn same_format_change(
    target: Format,
    (profile, expected): (&Profile, &Profile),
    reread: &Profile,
    label: &str,
) -> Option<String> {
    // A Dyalog XML Version 0.x is written as 1.37, the layout the file is written in (a warning).
    let same_format =
        |p: &Profile| dump(p).replace("attr dyalog-xml.Version: \"0.9.0\"", "attr dyalog-xml.Version: \"1.37\"");
    // A LispWorks tree has one root (LispWorks' documentation, docs/sources.md): several come back
    // under the root the writer adds.
    let several_roots = profile.tree.roots().nth(1).is_some();
    // A metric the format reads but does not write (a Chrome trace's CPU profiles: samples beside
    // time; its writer writes slices of time) comes back as the conversion projects it.
    let drops_metrics = expected.metrics().len() < profile.metrics().len();
    let original = if (target == Format::Lispworks && several_roots) || drops_metrics { expected } else { profile };
    let written_kinds = with_kinds_written(original, target);
    // The root LispWorks adds has the Seen and Top counts its writer computes for it.
    let reread_model = match several_roots && target == Format::Lispworks {
        true => {
            let mut facts_of_the_source = reread.clone();
            let frames = &reread.frames;
            facts_of_the_source.function_facts.retain(|&f, _| profile.frames.contains(frames.get(f).as_ref()));
            facts_of_the_source
        }
        false => reread.clone(),
    };
    // A profile without a timeline is written with its samples or slices laid out by the tree (a
    // flame chart of slices, samples at a running time), which read back are a timeline the source
    // did not have: the models are compared without it.
    let mut reread_model = reread_model;
    if original.timeline.is_none() {
        reread_model.timeline = None;
    }
    // Folded stacks write no line of count 0: a stack of none (`main;idle 0`) does not come back,
    // and only the stacks with counts are compared (below).
    let zero_stacks = target == Format::Folded
        && profile.tree.walk().any(|v| v.is_leaf && profile.tree.self_value(0, v.node).as_f64() == 0.0);
    (!zero_stacks && same_format(&reread_model) != same_format(&written_kinds)).then(|| {
        format!(
            "{label}: same-format round trip changed the model:\n{}\n---\n{}",
            dump(&written_kinds),
            dump(&reread_model)
        )
    })
}

/// No failure where writing `profile` as `target` is refused saying `why`; else `wrong` and what
/// writing did.
fn refused(target: Format, profile: &Profile, why: &str, wrong: &str) -> Vec<String> {
    match try_write(target, profile) {
        Err(proftool::Error::Unrepresentable { what, .. }) if what.contains(why) => Vec::new(),
        other => vec![format!("{wrong}: {:?}", other.map(|_| ()))],
    }
}

/// Whether `target` weighs stacks by time (samples, ticks or time) and `profile` is weighed by a
/// count of other things (its primary metric) and has no time, so that converting it without
/// `--metric` is refused.
pub fn refuses_for_want_of_time(profile: &Profile, target: Format) -> bool {
    let metrics = profile.metrics();
    let by_a_count =
        profile.primary_metric().is_some_and(|m| metrics[m].is_additive() && !metrics[m].kind.measures_time());
    target.carries().weight_is_time && by_a_count && !metrics.iter().any(|m| m.kind.measures_time() && m.is_additive())
}

/// A call graph (callgrind) keeps each function's own values, not the stacks they were in: read
/// back, its tree is the one its graph apportions to (docs/formats.md). What must survive: the
/// total and every function's own total of the metric written first, and, written again, the
/// same functions' own costs.
fn check_graph(target: Format, written: &[u8], expected: &Profile, label: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let reread = match read_bytes_with(target, written, &own_output()).0 {
        Ok(p) => p,
        Err(e) => return vec![format!("{label}: {target} output does not read back: {e}")],
    };
    if let Err(e) = reread.validate() {
        failures.push(format!("{label}: {target} re-read is invalid: {e}"));
    }
    if !totals_agree(primary_total(expected), primary_total(&reread), expected.tree.len()) {
        failures.push(format!(
            "{label}: total changed from {:?} to {:?}",
            primary_total(expected),
            primary_total(&reread)
        ));
    }
    if !same_function_totals(expected, &reread) {
        failures.push(format!(
            "{label}: functions' own totals changed:\n{:?}\n---\n{:?}",
            function_totals(expected),
            function_totals(&reread)
        ));
    }
    let again = write(target, &reread);
    let (_, reread_again) = (0, read_bytes_with(target, &again, &own_output()).0);
    match reread_again {
        Ok(p) if same_function_totals(&reread, &p) => {}
        other => {
            failures.push(format!("{label}: {target} written again changes functions' totals: {:?}", other.map(|_| ())))
        }
    }
    failures
}

/// Every function's own total of the primary metric, with how many nodes it is added up from, by
/// the name and module of the function (a line frame's function).
pub fn function_totals(profile: &Profile) -> std::collections::BTreeMap<(String, Option<String>), (f64, usize)> {
    let mut totals = std::collections::BTreeMap::<(String, Option<String>), (f64, usize)>::new();
    let Some(metric) = profile.primary_metric() else { return totals };
    for node in profile.tree.nodes() {
        let function = profile.frames.get(profile.tree.frame(node)).function().into_owned();
        let total = totals.entry((function.name, function.module)).or_default();
        total.0 += profile.tree.self_value(metric, node).as_f64();
        total.1 += 1;
    }
    totals.retain(|_, (value, _)| *value != 0.0);
    totals
}

/// Whether `got` gives every function the own total `expected` gives it, up to the rounding of
/// each of its nodes' values to whole numbers (a graph format's counts are).
fn same_function_totals(expected: &Profile, got: &Profile) -> bool {
    let (expected, got) = (function_totals(expected), function_totals(got));
    expected.len() == got.len()
        && expected
            .iter()
            .zip(&got)
            .all(|((f, (a, nodes)), (g, (b, _)))| f == g && (a - b).abs() <= 0.5 * *nodes as f64)
}

/// Whether `target` is BR and `profile` holds no sample for it to write (a BR file of none is empty).
pub fn br_of_no_sample(profile: &Profile, target: Format) -> bool {
    target == Format::Br
        && convert::project(profile.clone(), target, &ConvertOptions::default(), &mut Diagnostics::default())
            .is_ok_and(|p| primary_total(&p).is_none_or(|t| t.as_f64() == 0.0))
}

/// Whether `target` has no threads and every node of `profile` is a thread, so that converting it
/// is refused.
pub fn holds_nothing_but_threads(profile: &Profile, target: Format) -> bool {
    let is_thread = |node| profile.frames.get(profile.tree.frame(node)).kind == FrameKind::Thread;
    !target.carries().threads && !profile.tree.is_empty() && profile.tree.nodes().all(is_thread)
}

/// Whether the totals of a primary metric agree: as numbers, up to the rounding of floats added in
/// another order (a reader adds what a writer wrote apart), and of floats written as whole numbers
/// (pprof: each of `nodes` values to the nearest one, which the writer warns about).
fn totals_agree(expected: Option<Value>, got: Option<Value>, nodes: usize) -> bool {
    let (Some(expected), Some(got)) = (expected, got) else { return expected.is_none() && got.is_none() };
    let rounded = matches!((expected, got), (Value::Float(_), Value::Int(_)));
    let tolerance = 1e-9 * expected.as_f64().abs().max(1.0) + if rounded { 0.5 * nodes as f64 } else { 0.0 };
    (expected.as_f64() - got.as_f64()).abs() <= tolerance
}

/// `profile` with the frame kinds `target` writes: a format without frame kinds writes threads and
/// pseudo-frames as functions (as the conversion step fits them), though its reader may tell them
/// apart (speedscope's profiles are threads, pprof's `--tag` values pseudo-frames).
fn with_kinds_written(profile: &Profile, target: Format) -> Profile {
    let carries = target.carries();
    let mut profile = profile.clone();
    if !carries.frame_kinds && !carries.thread_roots {
        let function = |f: &Frame| matches!(f.kind, FrameKind::Thread | FrameKind::Pseudo);
        ops::map_frames(&mut profile, |f| function(f).then(|| Frame { kind: FrameKind::Function, ..f.clone() }));
    }
    profile
}

#[test]
fn every_fixture_through_every_writable_format() {
    let mut failures = Vec::new();
    for (origin, path) in good_fixtures() {
        let (profile, _) = read_fixture(origin, &path);
        for &target in Format::ALL.iter().filter(|f| f.can_write()) {
            let label = format!("{} -> {target}", path.display());
            failures.extend(check_pair(Some(origin), target, &profile, &label));
        }
    }
    assert_no_failures(failures);
}
