//! Conversions whatever the formats (each format's own cases are in tests/formats/): totals carry
//! across metric kinds at the interval, every fixture's stacks survive every seed format (checked
//! against each target's own rules rather than against proftool's reader of it), and what a target
//! has no place for is said: once, in one line, each thing with `-v`; measured inclusive values a
//! target derives; where functions are defined; threads where a target has none.

use crate::support::binary::{fixture, proftool, run, run_bytes, temp};
use crate::support::*;
use predicates::prelude::*;
use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::model::FrameKind;
use proftool::{Format, Profile};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn ghc_ticks_and_dyalog_time_convert_at_the_interval() {
    // notes-example.px: 50 ticks of 20 ms, isEven 20 of its own and isOdd 30 below it (hand arithmetic from its cost line).
    let (xml, _) = run(&["convert", "--to", "dyalog-xml"], &fixture("ghc-px/notes-example.px"));
    assert!(xml.contains("<TotalTime>1000</TotalTime>") && xml.contains("<SelectedTime>1000</SelectedTime>"), "{xml}");
    assert!(!xml.contains("Ticks>"), "GHC ticks are not timer inspections:\n{xml}");
    let rows: BTreeMap<String, (String, String)> = xml
        .split("<ProfileEntry>")
        .skip(1)
        .filter(|e| e.contains("<Line>¯1</Line>"))
        .map(|e| {
            let get =
                |n: &str| e[e.find(&format!("<{n}>")).unwrap() + n.len() + 2..].split('<').next().unwrap().to_string();
            (get("Element"), (get("ExclusiveTime"), get("InclusiveTime")))
        })
        .collect();
    assert_eq!(rows["Main.isEven"], ("400".to_string(), "1000".to_string()));
    assert_eq!(rows["Main.isOdd"], ("600".to_string(), "600".to_string()));

    // A Dyalog tree to -px: time into ticks of --interval, its timer inspections dropped by name.
    // f spends 3 ms of its own (1 of them on line 1), g 7 ms called from line 1: 10 ticks of 1 ms.
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("t.xml");
    std::fs::write(
        &xml,
        "<ProfileData><ProfileSettings><Version>1.37</Version><Command>tree</Command></ProfileSettings>\
         <ProfileEntry><Depth>0</Depth><Element>#.f</Element><Line>¯1</Line><Calls>1</Calls><ExclusiveTime>3</ExclusiveTime>\
         <InclusiveTime>10</InclusiveTime><ExclusiveTicks>4</ExclusiveTicks><InclusiveTicks>9</InclusiveTicks></ProfileEntry>\
         <ProfileEntry><Depth>1</Depth><Element>#.f</Element><Line>1</Line><Calls>1</Calls><ExclusiveTime>1</ExclusiveTime>\
         <InclusiveTime>8</InclusiveTime><ExclusiveTicks>1</ExclusiveTicks><InclusiveTicks>6</InclusiveTicks></ProfileEntry>\
         <ProfileEntry><Depth>2</Depth><Element>#.g</Element><Line>¯1</Line><Calls>2</Calls><ExclusiveTime>7</ExclusiveTime>\
         <InclusiveTime>7</InclusiveTime><ExclusiveTicks>5</ExclusiveTicks><InclusiveTicks>5</InclusiveTicks></ProfileEntry>\
         </ProfileData>",
    )
    .unwrap();
    let (px, err) = run(&["convert", "--interval", "1ms", "--to", "ghc-px"], &xml);
    assert!(px.starts_with("\""), "{px}");
    assert!(px.lines().nth(1) == Some("\"1 ms\""), "{px}");
    assert!(err.contains("timer-ticks"), "the inspections are named as dropped: {err}");
    let (folded, _) = run(&["convert", "--from", "ghc-px", "--to", "folded"], &{
        let p = dir.path().join("t.px");
        std::fs::write(&p, &px).unwrap();
        p
    });
    assert_eq!(folded, "MAIN.MAIN;#.f 3\nMAIN.MAIN;#.f;#.g 7\n", "{px}");
    assert!(px.lines().last().unwrap().starts_with("5 10 "), "ten ticks in all:\n{px}");
}

/// Every stack of `folded` with its share of the total, in normal form (sorted, equal stacks added).
fn shares(folded: &str) -> BTreeMap<String, f64> {
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        *weights.entry(stack.to_string()).or_default() +=
            count.parse::<f64>().unwrap_or_else(|e| panic!("{line:?}: {e}"));
    }
    let total: f64 = weights.values().sum();
    weights.values_mut().for_each(|w| *w /= total.max(1.0));
    weights
}

/// `stacks` without their first frame (a root a target added or renamed: GHC's `MAIN`, a Sampler
/// thread), equal stacks added.
fn without_root(stacks: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    for (stack, share) in stacks {
        if let Some((_, rest)) = stack.split_once(';') {
            *out.entry(rest.to_string()).or_default() += share;
        }
    }
    out
}

/// Whether two sets of shares agree: the same stacks, each within half a percentage point, leaving
/// out stacks under 1 % (a conversion into whole samples may round them away).
fn agree(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> bool {
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter().all(|k| {
        let (x, y) = (a.get(k).copied().unwrap_or(0.0), b.get(k).copied().unwrap_or(0.0));
        (x < 0.01 && y < 0.01) || (x - y).abs() <= 0.005
    })
}

/// The shares of `profile`'s stacks by each of its other additive metrics, where `target` weighs its
/// stacks by another metric than the profile's primary one: it has no place for it (a named loss: a
/// memory profile into a format of time), or cannot say which metric comes first (GHC's -px).
fn shares_by_other_metrics(profile: &Profile, target: Format) -> Vec<BTreeMap<String, f64>> {
    let Some(primary) = profile.primary_metric().map(|m| &profile.metrics()[m].name) else { return Vec::new() };
    let projected =
        proftool::convert::project(profile.clone(), target, &ConvertOptions::default(), &mut Diagnostics::default())
            .unwrap();
    if projected.primary_metric().map(|m| &projected.metrics()[m].name) == Some(primary) {
        return Vec::new();
    }
    let others = profile.metrics().iter().filter(|m| m.is_additive() && &m.name != primary);
    others
        .map(|m| {
            let mut out = Vec::new();
            let mut chosen = profile.clone();
            chosen.choose_metric(&m.name).unwrap();
            convert::write(chosen, Format::Folded, &mut out, &ConvertOptions::default(), &mut Diagnostics::default())
                .unwrap();
            shares(&fitted_threads(&String::from_utf8(out).unwrap(), profile, target))
        })
        .collect()
}

/// The folded stacks `folded` of `profile` as `target` holds threads, by string work on the stacks:
/// without a thread's frame where it has no threads (BR, Dyalog, GHC; a stack of nothing but
/// threads goes), without a pseudo-frame root above a thread where threads are roots of their own
/// (Sampler: LispWorks' processes below its `"Profile root"`).
fn fitted_threads(folded: &str, profile: &Profile, target: Format) -> String {
    let named = |kind: FrameKind| -> BTreeSet<String> {
        profile.frames.iter().filter(|(_, f)| f.kind == kind).map(|(_, f)| f.name.clone()).collect()
    };
    let (threads, pseudo) = (named(FrameKind::Thread), named(FrameKind::Pseudo));
    let carries = target.carries();
    let mut out = String::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let frames: Vec<&str> = stack.split(';').collect();
        // A name's space before a number that ends it is a no-break space in folded text.
        let is = |names: &BTreeSet<String>, frame: &str| names.contains(&frame.replace('\u{a0}', " "));
        let kept: Vec<&str> = match (carries.threads, carries.thread_roots) {
            (false, _) => frames.into_iter().filter(|f| !is(&threads, f)).collect(),
            (true, true) if frames.len() > 1 && is(&pseudo, frames[0]) && is(&threads, frames[1]) => {
                frames[1..].to_vec()
            }
            _ => frames,
        };
        if !kept.is_empty() {
            out.push_str(&format!("{} {count}\n", kept.join(";")));
        }
    }
    out
}

/// `folded` without the first frame of the stacks that start with a thread `Thread_xxxx` that
/// `profile` has no frame of: the one thread Sampler puts the roots that are no thread in.
fn without_added_thread(folded: &str, profile: &Profile) -> String {
    let added = |frame: &str| {
        frame.strip_prefix("Thread_").is_some_and(|id| id.len() == 4 && u16::from_str_radix(id, 16).is_ok())
            && !profile.frames.iter().any(|(_, f)| f.name == frame)
    };
    folded
        .lines()
        .map(|line| match line.split_once(';') {
            Some((first, rest)) if added(first) => format!("{rest}\n"),
            _ => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn every_fixture_keeps_its_stacks_through_every_seed_format() {
    let seed_formats = [
        Format::Lispworks,
        Format::Folded,
        Format::Sampler,
        Format::DyalogXml,
        Format::DyalogCsv,
        Format::Br,
        Format::GhcPx,
    ];
    let mut failures = Vec::new();
    for (origin, path) in good_fixtures() {
        let (profile, _) = read_fixture(origin, &path);
        // Time divided into samples as the seed formats divide it (folded alone keeps it whole).
        let interval = profile.meta.interval.unwrap_or(proftool::convert::DEFAULT_INTERVAL);
        let folded_source = folded(&profile, Some(interval));
        if folded_source.is_empty() {
            continue;
        }
        // A profile of threads alone (perf script -F without ip: each sample its command) leaves a
        // format without threads no frame to write, which it refuses, saying so.
        let threads_alone = profile.frames.iter().all(|(_, f)| f.kind == FrameKind::Thread);
        let targets = seed_formats.into_iter().filter(|&t| !threads_alone || t.carries().threads);
        for target in targets.filter(|&t| !crate::roundtrip::refuses_for_want_of_time(&profile, t)) {
            // Characters the target's names cannot hold are replaced (a named loss).
            let fit = |frame: &str| {
                let replacements = target.carries().name_replacements;
                replacements.iter().fold(frame.to_string(), |text, &(c, with)| text.replace(c, &with.to_string()))
            };
            let replace = |stack: &String| stack.split(';').map(fit).collect::<Vec<_>>().join(";");
            let fit_names = |shares: &BTreeMap<String, f64>| -> BTreeMap<String, f64> {
                shares.iter().map(|(k, &v)| (replace(k), v)).collect()
            };
            // A target that states its interval in steps (-px: whole milliseconds) counts time in
            // intervals it can state: 250 µs samples are ticks of 1 ms there, by hand the nearest
            // whole number of steps, at least one.
            let stated = target.carries().interval_step.map_or(interval, |step| {
                let steps = ((interval.as_nanos() + step.as_nanos() / 2) / step.as_nanos()).max(1);
                step * steps as u32
            });
            let folded_source = if stated == interval { folded_source.clone() } else { folded(&profile, Some(stated)) };
            let source = fit_names(&shares(&fitted_threads(&folded_source, &profile, target)));
            let mut diag = Diagnostics::default();
            let mut written = Vec::new();
            let options = ConvertOptions::new(Some(interval));
            convert::write(profile.clone(), target, &mut written, &options, &mut diag).unwrap();
            let (reread, _) = read_bytes_with(target, &written, &own_output());
            let reread = shares(&without_added_thread(&folded(&reread.unwrap(), Some(stated)), &profile));
            // The losses the conversion names: a root added (-px's MAIN, LispWorks' root, Sampler's
            // thread).
            let root_changed = diag.has("roots-adopted") || (target == Format::Sampler && !agree(&source, &reread));
            let kept_from = |source: &BTreeMap<String, f64>| {
                agree(source, &reread)
                    || (root_changed
                        && (agree(source, &without_root(&reread))
                            || agree(&without_root(source), &without_root(&reread))))
            };
            let kept = kept_from(&source)
                || shares_by_other_metrics(&profile, target).iter().any(|other| kept_from(&fit_names(other)));
            if !kept {
                failures.push(format!("{} -> {target}: stacks changed\n{source:?}\n---\n{reread:?}", path.display()));
            }
        }
    }
    assert_no_failures(failures);
}

#[test]
fn conversions_name_what_they_lose() {
    let dir = temp();
    let convert = |verbose: &[&str]| {
        let mut cmd = proftool();
        cmd.arg("convert").args(verbose).arg(fixture("lispworks/processes.tree")).arg(dir.path().join("o.folded"));
        String::from_utf8(cmd.assert().success().get_output().stderr.clone()).unwrap()
    };
    // What folded has no place for is named in one line; lost numbers (the per-function counts)
    // have a line of their own; -v names each thing in a line of its own.
    let err = convert(&[]);
    assert!(err.contains("proftool: warning: folded has no place for: title (-v names each)\n"), "{err}");
    assert!(err.contains("Call-Count, Seen-Count and Top-Count are dropped"), "{err}");
    let err = convert(&["-v"]);
    assert!(err.contains("proftool: warning: folded has no title: \"fib benchmark: run 2\" is dropped\n"), "{err}");
    assert!(!err.contains("-v names each"), "{err}");
}

#[test]
fn what_a_target_merely_lacks_shares_one_line_and_lost_numbers_keep_theirs() {
    // A GHC -pj profile to folded: title, timestamp, interval, the per-node entries and where functions
    // are defined share one line; the allocation folded cannot hold has its own.
    let (_, err) = run_bytes(&["convert", "--to", "folded"], &fixture("ghc-json/work.prof.json"));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "proftool: warning: folded has no place for: title, timestamp, interval, metric entries, defined-at (-v names each)",
            "proftool: warning: folded holds one number per node: metric alloc dropped (writing ticks)",
        ],
        "{err}"
    );
    let (_, verbose) = run_bytes(&["convert", "-v", "--to", "folded"], &fixture("ghc-json/work.prof.json"));
    assert_eq!(verbose.lines().count(), 6, "{verbose}");
}

#[test]
fn targets_without_source_locations_name_their_drop() {
    let (_, err) = run_bytes(&["convert", "-v", "--to", "folded"], &fixture("ghc-json/work.prof.json"));
    assert!(err.contains("folded has no place for per-frame facts defined-at: dropped"), "{err}");
}

#[test]
fn measured_inclusive_time_that_a_target_derives_is_named_when_dropped() {
    // The manual's 0.9.0 excerpt lists only some of Rain's rows: Rain measured 68.4 ms inclusive,
    // its rows add up to 0.914 ms. Folded stacks derive inclusive values, so the rest is lost.
    let dir = temp();
    proftool()
        .arg("convert")
        .arg(fixture("dyalog-xml/v0.9.0-tree.xml"))
        .arg(dir.path().join("o.folded"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "folded derives inclusive values, so measured inclusive values that differ are dropped: time on 2 nodes \
             (most: #.Rain, 68.4 ms measured, 0.914 ms from its own value and its children's)",
        ));
    // Dyalog keeps them, and a report whose rows add up says nothing.
    for (input, output) in [("dyalog-xml/v0.9.0-tree.xml", "o.csv"), ("dyalog-xml/several-roots.xml", "o.folded")] {
        proftool()
            .arg("convert")
            .arg(fixture(input))
            .arg(dir.path().join(output))
            .assert()
            .success()
            .stderr(predicate::str::contains("measured inclusive").not());
    }
}

/// Issue 34 §8: a target without threads (BR, Dyalog, GHC's -px) has no process names as
/// functions: the processes' frames go, said once, and their own samples go to the root above them
/// (by hand from processes.tree: 5 of the listener and 10 idle, 15 for "Profile root"). `--thread`
/// picks a process first: the listener's 90 samples alone, in one Sampler block.
#[test]
fn processes_are_dropped_where_there_are_no_threads() {
    let tree = fixture("lispworks/processes.tree");
    let dir = temp();
    let br = dir.path().join("p.br");
    let out = proftool().arg("convert").arg(&tree).arg(&br).assert().success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let warning = "br has no threads: the frames of threads and processes \"CAPI Execution Listener 1\", \"Idle \\\"process\\\"\" are dropped, their stacks kept\n";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    let bytes = std::fs::read(&br).unwrap();
    for name in [&b"CAPI"[..], b"Idle"] {
        assert!(!bytes.windows(name.len()).any(|w| w == name), "{bytes:?}");
    }
    let expected = [
        "Profile root 15",
        "Profile root;CL-USER::FIB 25",
        "Profile root;CL-USER::FIB;CL-USER::FIB 25",
        "Profile root;CL-USER::FIB;CL-USER::FIB;(METHOD PRINT-OBJECT (WIDGET T)) 10",
        "Profile root;CL-USER::|weird name| 25",
    ];
    assert_eq!(run(&["convert", "-q", "--to", "folded"], &br).0, expected.join("\n") + "\n");
    let (_, err) = run(&["convert", "--to", "dyalog-xml"], &tree);
    assert_eq!(err.matches("dyalog-xml has no threads").count(), 1, "{err}");
    let sampler = dir.path().join("listener.sampler");
    let listener = "CAPI Execution Listener 1";
    proftool().args(["convert", "-q", "--thread", listener]).arg(&tree).arg(&sampler).assert().success();
    let bytes = std::fs::read(&sampler).unwrap();
    let blocks = bytes.windows(12).filter(|w| w == b"@threadV1.0\t").count();
    assert_eq!(blocks, 1);
    let (folded, _) = run(&["convert", "-q", "--sampler-order", "leaf-first", "--to", "folded"], &sampler);
    let total: i64 = folded.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap()).sum();
    assert_eq!(total, 90, "{folded}");
    assert!(folded.lines().all(|l| l.starts_with("CAPI Execution Listener\u{a0}1")), "{folded}");
}
