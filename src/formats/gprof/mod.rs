//! GNU gprof's text report (`gprof PROG gmon.out`, binutils' `gprof/cg_print.c` and
//! `hist.c`; also `-b` without explanations, `-q` the call graph only, `-p` the flat profile only,
//! and the BSD, macOS and AIX gprofs' reports of the same tables; read only), as gprof2dot's
//! `GprofParser` reads it.
//!
//! ```text
//! Flat profile:
//!
//! Each sample counts as 0.01 seconds.                     the sampling interval
//!   %   cumulative   self              self     total
//!  time   seconds   seconds    calls  ms/call  ms/call  name
//!  55.08      0.22     0.22   300000     0.00     0.00  leaf
//!   2.50      0.40     0.01       60     0.17     0.17  fib
//!
//! index % time    self  children    called     name
//!                                                  <spontaneous>           a caller outside
//! [1]    100.0    0.00    0.40                 main [1]                    primary line
//!                 0.06    0.13      60/60          sum_squares [3]         a callee
//! -----------------------------------------------
//!                 0.09    0.00  120000/300000      sum_cubes [5]           a caller: leaf's time
//!                 0.13    0.00  180000/300000      sum_squares [3]         due to it, its calls
//! [2]     55.0    0.22    0.00  300000         leaf [2]
//! -----------------------------------------------
//! [4]     27.5    0.11    0.00      60+181770  <cycle 1 as a whole> [4]
//!                 0.07    0.00   90900             is_odd <cycle 1> [6]    its members
//! -----------------------------------------------
//!                                90870             is_odd <cycle 1> [6]    a call inside the cycle
//!                 0.11    0.00      60/60          main [1]                the cycle's time due to main
//! [7]     10.0    0.04    0.00   90930         is_even <cycle 1> [7]
//! -----------------------------------------------
//!                              38137200             fib [8]                recursive calls
//!                 0.01    0.00      60/60          main [1]
//! [8]      2.5    0.01    0.00      60+38137200 fib [8]
//! ```
//!
//! **Schema**: text of sections; explanations between them (gprof's without `-b`), form feeds,
//! `#` comments (AIX) and the index by function name are skipped. The flat profile's table, after
//! its header (`%   cumulative   self …`): `%time cumulative self [calls self/call total/call] name`
//! (the calls columns blank for a function of no call count), up to a blank line. The call graph,
//! after its header (`index % time self children called name`, or BSD's `descendents` and
//! `called+self`, which GNU's `-T` writes `descendants`): entries ended by lines of dashes, each of its callers' lines, its primary line
//! `[index] %time self children [called[+self]] name [index]`, then its callees' lines; a caller's
//! or callee's line is `[self children] called[/total] name [index]`, the times those of the callee
//! due to that caller, none for a call inside a cycle or a recursive call; `<spontaneous>` is a
//! caller outside the profile, a line ending in `(index)` a function gprof does not list. A
//! cycle's entry is `<cycle N as a whole>` and its members' lines; members are named `name <cycle
//! N>`. Names are everything between the figures and the index: C++ names with spaces and
//! templates. Times are seconds (`Each sample counts as 0.01 seconds.`), or thousands of cycles
//! where the flat profile's header says `cycles` (a simulator's gprof).
//!
//! **Model**: the call graph made a tree ([`super::kit::call_graph`]), a function per index: each
//! function's own figures are exact, shared out among its nodes: `time` (self seconds, as µs,
//! floats; its total is its self plus children, each node's measured inclusive time its share),
//! `calls` (the primary line's `called`, not counting recursive calls: the flat profile's calls)
//! and `recursive-calls` (the `+m`), per node. Below a node standing for a fraction `r` of its
//! function's self plus children, a callee gets `r` of what its caller line says; into a cycle,
//! the line's times are the cycle's as a whole, so the callee member gets that fraction of the
//! cycle's total; a call inside a cycle, of no times, that fraction of the callee's calls. gprof
//! counts the calls inside a cycle to no member's children, so a member's node grows to hold the
//! members below it ([`hold_children`]): as gprof2dot reads a cycle, the member a path enters by
//! has the cycle's time there, and a member's total is more than its self plus children. A call
//! back into a function on the path is not expanded; functions nothing calls (or called only from
//! `<spontaneous>`) are roots. Names without their `<cycle N>`. A report of a flat profile only
//! (`-p`) is a root per function, its self time and calls; functions of the flat profile the call
//! graph lacks are added so. A line-by-line report (`-l`, rows `leaf (work.c:12 @ 11ec)`) is a root
//! per function (its file its module) with its lines below it ([`lines`]). Time is sampled at the stated interval (the profile's interval; 0.01
//! s where unstated); a report in cycles weighs `cycles` (events, thousands multiplied out).
//!
//! **Errors**, at their line: a line of the flat profile's table or of a call graph entry that is
//! none; an entry without its primary line; a second call graph; the input ending inside the call
//! graph or a table's last line without its line break (a file cut short); an input of neither
//! table. A graph that would expand into more than `--max-graph-nodes` nodes. A flat profile whose
//! percentages add up to well below 100 is said to look cut short.
//!
//! **Lost**: the percentages, cumulative seconds and per-call columns (derived), the index
//! numbers, cycles as wholes and their numbers, the callees' lines (the callers' lines say the
//! same), functions listed with `(index)`, the granularity line: stacks are shares of the graph.
//! Two functions of one name (static functions of two files, which only the index by name tells
//! apart by their file) are one frame.

mod lines;
mod report;

use super::kit::call_graph::{hold_children, CallGraph, Layout, TooManyNodes, Unexpanded};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use report::Report;
use rustc_hash::{FxHashMap, FxHashSet};
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "gprof",
    description: "GNU gprof's text report (flat profile and call graph, `gprof PROG gmon.out`)",
    extensions: &["gprof"],
    carries: Carries::STACKS_OF_SAMPLES.as_graph().weighing(&[MetricKind::Time, MetricKind::Calls]),
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// Whether `head`'s first line of text (blank lines and `#` comments skipped) starts a gprof
/// report: `Flat profile:`, a call graph's title (`Call graph`, BSD's `call graph profile:`), its
/// `granularity:` line (`-q -b`) or its header (`index % time self children called name`).
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')) else {
        return Sniff::No;
    };
    let words: Vec<&str> = first.split_whitespace().take(8).collect();
    let header = report::is_graph_header(&words);
    Sniff::yes_if(
        first == "Flat profile:"
            || first == "Call graph"
            || first == "Call graph (explanation follows)"
            || first == "call graph profile:"
            || first.starts_with("granularity: each sample hit covers")
            || first.starts_with("ngranularity: ")
            || header,
    )
}

/// Seconds in the profile's unit of time.
const MICROS: f64 = 1e6;

/// The sampling interval gprof's reports state, where one does not.
const DEFAULT_INTERVAL: f64 = 0.01;

/// The figures of a function or a call, in the order of [`metrics`]: time (µs) or cycles, calls,
/// recursive calls; and its inclusive figure (self plus children).
type Figures = ([f64; 3], f64);

fn metrics(interval: f64, cycles: bool) -> Vec<Metric> {
    let weight = if cycles {
        Metric::new("cycles", MetricKind::Events, Unit::Count, Repr::Float)
    } else {
        let per = (interval * 1e9).round() as u64;
        Metric::time(Unit::Microseconds, Repr::Float).sampled(Sampling::Sampled { of: None, per })
    };
    vec![weight, Metric::entries("calls"), Metric::entries("recursive-calls")]
}

fn read(input: &mut (dyn Read + Send), options: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let report = report::read(input)?;
    say_flat_cut(&report, diag);
    let interval = report.interval.unwrap_or(DEFAULT_INTERVAL);
    // Seconds as µs; thousands of cycles as cycles.
    let scale = if report.cycles { 1e3 } else { MICROS };
    let line_by_line = lines::is_line_by_line(&report);
    let mut metrics = metrics(interval, report.cycles);
    if line_by_line {
        // `-l`'s calls count the recursive ones too: none are told apart.
        metrics.truncate(2);
    }
    let mut profile = Profile::new(metrics);
    profile.meta.weighed_by = Some(if report.cycles { MetricKind::Events } else { MetricKind::Time });
    if !report.cycles {
        // An interval no Duration holds (a report of 1e300 seconds a sample) is left unstated.
        profile.meta.interval = std::time::Duration::try_from_secs_f64(interval).ok();
    }
    if line_by_line {
        lines::read(&report, &mut profile, scale, diag)?;
        return Ok(profile);
    }
    let graph = Graph::of(&report, scale);
    let frames: Vec<FrameId> = graph.names.iter().map(|name| profile.frames.intern(FrameRef::function(name))).collect();
    let max_nodes = match options.max_graph_nodes {
        0 => crate::files::DEFAULT_MAX_GRAPH_NODES,
        given => given,
    };
    let layout = Layout { metrics: [0, 1, 2], whole: [false, true, true], inclusive: Some(0) };
    let first = profile.tree.len();
    let built = graph.graph.build(&mut profile, &frames, layout, max_nodes);
    let mut unexpanded = built.map_err(|TooManyNodes| ParseError {
        format: FORMAT,
        position: Position::line(1, 0),
        kind: ParseErrorKind::Unexpected {
            expected: format!("a call graph that expands into a tree of at most {max_nodes} nodes (--max-graph-nodes N raises the limit)"),
            found: format!("a graph of {} functions and {} calls that expands into more", graph.names.len(), graph.calls),
        },
    })?;
    // A cycle's member holds the members it calls, whose time its own total leaves out.
    let members: FxHashSet<FrameId> = frames.iter().zip(&graph.members).filter(|(_, &m)| m).map(|(&f, _)| f).collect();
    unexpanded.grown = hold_children(&mut profile, first, 0, |frame| members.contains(&frame));
    say_apportioned(&unexpanded, graph.calls, diag);
    Ok(profile)
}

/// Says that a flat profile looks cut short where its percentages add up to well below 100 (a
/// report of the flat profile alone ends with its table: a cut between rows is told only so).
fn say_flat_cut(report: &Report, diag: &mut Diagnostics) {
    let sum: f64 = report.flat.iter().map(|row| row.percent).sum();
    // Each percentage is rounded to 0.005; 0.5 more for the sampling's own rounding.
    let slack = 0.5 + 0.005 * report.flat.len() as f64;
    if sum > 0.0 && sum < 100.0 - slack {
        diag.warn("gprof-flat-cut", report.flat_at, || {
            format!("the flat profile's percentages add up to {sum:.2}, not 100: it looks cut short, and the functions after its last row are missing")
        });
    }
}

/// Says once that the tree is apportioned from a caller graph, and what was not expanded.
fn say_apportioned(unexpanded: &Unexpanded, calls: usize, diag: &mut Diagnostics) {
    if calls == 0 {
        return;
    }
    diag.warn("gprof-graph", None, || {
        let mut text = "gprof's call graph is a caller graph, not a tree: each function's figures are shared among its paths by what each caller's line accounts for".to_string();
        text += match unexpanded.grown {
            0 => "; the stacks are shares, not measured; each function's own time, total and calls are the report's exactly",
            _ => "; the stacks are shares, not measured; each function's own time and calls are the report's exactly, and its total but in a cycle",
        };
        text += &unexpanded.said("below a millionth of the total", "their figures being in their functions' other stacks");
        text
    });
}

/// The report's functions and calls as a caller graph, and which functions are a cycle's members.
struct Graph {
    names: Vec<String>,
    graph: CallGraph<3>,
    calls: usize,
    members: Vec<bool>,
}

impl Graph {
    fn of(report: &Report, scale: f64) -> Graph {
        let mut names: Vec<String> = Vec::new();
        let mut by_index: FxHashMap<u32, u32> = FxHashMap::default();
        let mut function = |index: u32, names: &mut Vec<String>| -> u32 {
            *by_index.entry(index).or_insert_with(|| {
                let name = report.names.get(&index).cloned().unwrap_or_else(|| format!("[{index}]"));
                names.push(name);
                (names.len() - 1) as u32
            })
        };
        // Every function with an entry, then those only its callers' lines name.
        let slots: Vec<u32> = report.entries.iter().map(|entry| function(entry.index, &mut names)).collect();
        for entry in &report.entries {
            for caller in &entry.callers {
                function(caller.index, &mut names);
            }
        }
        let mut own: Vec<Figures> = vec![([0.0; 3], 0.0); names.len()];
        let mut members = vec![false; names.len()];
        for (entry, &slot) in report.entries.iter().zip(&slots) {
            let figures = [entry.own * scale, entry.called as f64, entry.recursive as f64];
            own[slot as usize] = (figures, (entry.own + entry.children) * scale);
            members[slot as usize] = entry.cycle.is_some();
        }
        // Functions of the flat profile the call graph lacks (or all of them, without one).
        let known: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        let extra: Vec<(String, Figures)> = report
            .flat
            .iter()
            .filter(|row| !known.contains(row.name.as_str()))
            .map(|row| {
                let figures = [row.own * scale, row.calls.unwrap_or(0) as f64, 0.0];
                (row.name.clone(), (figures, row.own * scale))
            })
            .collect();
        for (name, figures) in extra {
            names.push(name);
            own.push(figures);
            members.push(false);
        }
        let mut graph = CallGraph::new();
        for &(figures, inclusive) in &own {
            graph.function(figures, inclusive);
        }
        let mut calls = 0;
        for (entry, &callee) in report.entries.iter().zip(&slots) {
            let (figures, inclusive) = own[callee as usize];
            // The cycle's total, where the callee is a member: its callers' times are the cycle's.
            let whole = entry.cycle.and_then(|n| report.wholes.get(&n)).map(|c| (c.own + c.children) * scale);
            for caller in &entry.callers {
                if caller.index == entry.index {
                    continue;
                }
                let share = if entry.called > 0 { caller.count as f64 / entry.called as f64 } else { 0.0 };
                let recursive = figures[2] * share;
                let count = caller.count as f64;
                let (call, call_inclusive) = match (caller.times, whole) {
                    // Into a cycle from outside it: its part of the cycle.
                    (Some((s, c)), Some(whole)) if caller.cycle != entry.cycle => {
                        let part = if whole > 0.0 { (s + c) * scale / whole } else { 0.0 };
                        ([figures[0] * part, count, recursive], inclusive * part)
                    }
                    (Some((s, c)), _) => ([s * scale, count, recursive], (s + c) * scale),
                    // Inside a cycle: its part of the callee's calls.
                    (None, _) => ([figures[0] * share, count, recursive], inclusive * share),
                };
                let caller = by_index.get(&caller.index).copied().unwrap_or(callee);
                graph.call(caller, callee, call, call_inclusive);
                calls += 1;
            }
        }
        Graph { names, graph, calls, members }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_told_by_their_first_line() {
        let yes = |text: &str| sniff(text.as_bytes()) == Sniff::Yes;
        assert!(yes("Flat profile:\n\nEach sample counts as 0.01 seconds.\n"));
        assert!(yes("\t\t\tCall graph\n\n\ngranularity: each sample hit covers 2 byte(s)"));
        assert!(yes("\t\t     Call graph (explanation follows)\n"));
        assert!(yes("index  % time    self  children called     name\n"));
        assert!(yes("\n\n\ncall graph profile:\n"));
        assert!(yes("# @(#)64 1.4 com/cmd/stat/gprof/gprof.callg\n#\n\ncall graph profile:\n"));
        assert!(!yes("COST CENTRE MODULE\n"));
        assert!(!yes("Flat profile of something else\n"));
        // macOS sample's call graph.
        assert!(!yes("\nCall graph:\n    825 Thread_1\n"));
    }

    #[test]
    fn an_interval_of_no_duration_is_no_panic() {
        let text = "Flat profile:\n\nEach sample counts as 1e300 seconds.\n  %   cumulative   self\n time   seconds   seconds    calls  name\n100.00 0.01 0.01 1 0.00 0.00 f\n";
        let mut input = text.as_bytes();
        let profile = read(&mut input, &ReadOptions::default(), &mut Diagnostics::default()).ok().unwrap();
        assert_eq!(profile.meta.interval, None);
    }
}
