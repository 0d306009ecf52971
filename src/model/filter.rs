//! Filters on a profile's stacks, with pprof's meanings, shared by `convert` and every report:
//!
//! - `--focus RE` keeps the stacks that pass through a frame whose name matches (the nodes at and
//!   below a match, and the callers above it, which keep none of their own value);
//! - `--ignore RE` drops the stacks that pass through a matching frame (the matching nodes and
//!   everything below them);
//! - `--hide RE` removes the matching frames from every stack and keeps the rest: a hidden node's
//!   own value goes to its nearest caller that stays, its callees move up to that caller;
//! - `--collapse-recursion RE` folds a matching function's calls of itself, direct or through other
//!   functions, into its outermost call (the Firefox Profiler's "collapse recursion"): `a;b;a;c`
//!   becomes `a;c`, its value under the outer `a`; the frames between the two calls keep only the
//!   stacks that end in them;
//! - `--thread NAME` keeps the stacks of one thread or process (a thread frame, or a root, so named),
//!   as `--focus` does;
//! - `--from-time`/`--to-time` keep the samples taken in a range of the profile's timeline (the
//!   Firefox Profiler's range selection): each node keeps its share of the samples kept
//!   ([`within_time`]);
//! - [`subtrees`] keeps the subtrees rooted at the outermost nodes of some frames (a report's `--fn`).
//!
//! A frame's name is [`Profile::frame_name`] (`Module.label` for GHC, `name[line]` for a line frame);
//! a line frame also matches by its function's name, so `--focus '^#\.Rain$'` keeps `#.Rain[6]`.
//!
//! Measured inclusive values (Dyalog) stay measured: a node whose subtree lost nothing keeps its
//! value to the digit, and one that lost some has exactly what it lost taken off. Every pass is
//! over the arena (parents before children), without recursion.

use super::ops::{copy_values, without_nodes};
use super::{FrameKind, NodeId, Profile, Timeline, Value};
use crate::diag::Diagnostics;
use crate::error::Error;
use regex::Regex;
use std::time::Duration;

/// The filters of one run; each one given narrows the profile in turn (thread, focus, ignore, hide,
/// collapse recursion).
#[derive(Clone, Debug, Default)]
pub struct Filters {
    /// `--focus RE`.
    pub focus: Option<Regex>,
    /// `--ignore RE`.
    pub ignore: Option<Regex>,
    /// `--hide RE`.
    pub hide: Option<Regex>,
    /// `--collapse-recursion RE`.
    pub collapse_recursion: Option<Regex>,
    /// `--thread NAME`.
    pub thread: Option<String>,
    /// `--from-time`, `--to-time`.
    pub time: TimeRange,
}

/// A range of a profile's timeline, from its start: `--from-time` (else the start) to `--to-time`
/// (else the end), a sample at its start kept and one at its end not (but at the timeline's end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeRange {
    /// `--from-time`.
    pub from: Option<Duration>,
    /// `--to-time`.
    pub to: Option<Duration>,
}

impl TimeRange {
    /// Whether it is the whole timeline (no range given).
    pub fn is_whole(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    /// The range as options, for messages: `--from-time 1ms --to-time 2ms`.
    fn options(&self) -> String {
        let option = |name: &str, at: Option<Duration>| at.map(|at| format!("{name} {at:?}"));
        [option("--from-time", self.from), option("--to-time", self.to)]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Filters {
    /// Whether no filter is given (then [`Filters::apply`] returns the profile as it came).
    pub fn is_empty(&self) -> bool {
        self.focus.is_none()
            && self.ignore.is_none()
            && self.hide.is_none()
            && self.collapse_recursion.is_none()
            && self.thread.is_none()
            && self.time.is_whole()
    }

    /// `profile` narrowed by every filter given; an error that says which filter left nothing.
    pub fn apply(&self, profile: Profile) -> Result<Filtered, Error> {
        Ok(self.apply_measuring_hidden(profile)?.0)
    }

    /// [`Filters::apply`] for a profile to be written: a stack made only of hidden frames has no
    /// frame left to hold its value, so it is dropped, as pprof drops such a sample; a warning says
    /// how much of the primary metric went with them, which the file no longer counts in its total.
    pub fn apply_to_write(&self, profile: Profile, diag: &mut Diagnostics) -> Result<Profile, Error> {
        let (Filtered { profile, notes }, dropped) = self.apply_measuring_hidden(profile)?;
        for note in notes {
            diag.warn("filtered-metrics", None, || note);
        }
        let (Some(re), Some(m)) = (&self.hide, profile.primary_metric()) else { return Ok(profile) };
        let (lost, whole) = dropped[m];
        if lost != 0.0 {
            let metric = &profile.metrics()[m];
            diag.warn("hidden-stacks", None, || {
                format!(
                    "--hide {}: stacks made only of hidden frames are dropped, with {} {} of {} ({:.2} % of {})",
                    re.as_str(),
                    crate::model::significant(lost, 12),
                    metric.unit.name(),
                    metric.name,
                    100.0 * lost / whole,
                    crate::model::significant(whole, 12),
                )
            });
        }
        Ok(profile)
    }

    /// [`Filters::apply`], and per metric what `--hide` dropped with the stacks made only of hidden
    /// frames and the total it was dropped from (zeros without `--hide`).
    fn apply_measuring_hidden(&self, mut profile: Profile) -> Result<(Filtered, Vec<(f64, f64)>), Error> {
        let mut notes = Vec::new();
        if !self.time.is_whole() {
            let range = self.time.options();
            let left_out;
            (profile, left_out) =
                within_time(&profile, self.time).map_err(|why| Error::BadOption(format!("{range}: {why}")))?;
            if !left_out.is_empty() {
                notes.push(format!(
                    "{range}: {} left out, the timeline's samples holding none of {}: the profile keeps no time of {}",
                    left_out.join(", "),
                    if left_out.len() == 1 { "it" } else { "them" },
                    if left_out.len() == 1 { "its values" } else { "their values" },
                ));
            }
        }
        let mut dropped = vec![(0.0, 0.0); profile.metrics().len()];
        if let Some(name) = &self.thread {
            let narrowed = focus(&profile, &thread_nodes(&profile, name));
            if narrowed.tree.is_empty() {
                let threads = thread_names(&profile);
                return Err(Error::BadOption(format!(
                    "--thread {name}: no thread or process root is named so{threads}"
                )));
            }
            profile = narrowed;
        }
        if let Some(re) = &self.focus {
            profile = focus(&profile, &node_matches(&profile, re));
            nonempty(&profile, || format!("--focus {}: no stack passes through a frame that matches", re.as_str()))?;
        }
        if let Some(re) = &self.ignore {
            profile = ignore(&profile, &node_matches(&profile, re));
            nonempty(&profile, || {
                format!("--ignore {}: every stack passes through a frame that matches", re.as_str())
            })?;
        }
        if let Some(re) = &self.hide {
            let before: Vec<f64> = (0..dropped.len()).map(|m| profile.total(m).as_f64()).collect();
            profile = hide(&profile, &node_matches(&profile, re));
            nonempty(&profile, || format!("--hide {}: every frame matches", re.as_str()))?;
            for (m, whole) in before.into_iter().enumerate() {
                dropped[m] = (whole - profile.total(m).as_f64(), whole);
            }
        }
        if let Some(re) = &self.collapse_recursion {
            profile = collapse_recursion(&profile, &frame_matches(&profile, re));
        }
        Ok((Filtered { profile, notes }, dropped))
    }
}

/// A profile narrowed by [`Filters`], and what the narrowing left out that is not said by its
/// numbers, a sentence each (the metrics a time range cannot cut).
pub struct Filtered {
    /// The profile narrowed.
    pub profile: Profile,
    /// What the narrowing left out, for stderr or a report's heading.
    pub notes: Vec<String>,
}

/// `text` as the regex of option `option` (`--focus`), or the regex crate's message in one line:
/// `--focus a(: invalid regex: unclosed group (column 2)`.
pub fn parse_regex(option: &str, text: &str) -> Result<Regex, String> {
    Regex::new(text).map_err(|err| {
        let message = err.to_string();
        let lines: Vec<&str> = message.lines().collect();
        // The syntax error's text: the pattern, a line marking where (`^` or `^---^`), `error: what`.
        let what = lines.last().map_or("", |l| l.trim().trim_start_matches("error: "));
        let column = lines.iter().find_map(|l| {
            let marks = l.trim_start();
            let all_marks = !marks.is_empty() && marks.chars().all(|c| c == '^' || c == '-');
            all_marks.then(|| (l.len() - marks.len()).saturating_sub(3))
        });
        match column {
            Some(column) => format!("{option} {text}: invalid regex: {what} (column {column})"),
            None => format!("{option} {text}: invalid regex: {what}"),
        }
    })
}

/// An error made by `message` when `profile` has no node left.
fn nonempty(profile: &Profile, message: impl FnOnce() -> String) -> Result<(), Error> {
    match profile.tree.is_empty() {
        true => Err(Error::BadOption(format!("{}: nothing is left", message()))),
        false => Ok(()),
    }
}

/// `" (it has: a, b)"`: the names of the thread frames and roots of `profile`, for a message.
fn thread_names(profile: &Profile) -> String {
    let mut names: Vec<String> = (profile.tree.nodes())
        .filter(|&n| {
            profile.tree.parent(n).is_none() || profile.frames.get(profile.tree.frame(n)).kind == FrameKind::Thread
        })
        .map(|n| profile.frame_name(profile.tree.frame(n)).into_owned())
        .collect();
    names.sort();
    names.dedup();
    match names.is_empty() {
        true => String::new(),
        false => format!(" (it has: {})", names.join(", ")),
    }
}

/// Per node, whether its frame is a thread or process named `name`, or it is a root so named.
fn thread_nodes(profile: &Profile, name: &str) -> Vec<bool> {
    let tree = &profile.tree;
    let named: Vec<bool> = profile.frames.iter().map(|(id, _)| profile.frame_name(id) == name).collect();
    (tree.nodes())
        .map(|n| {
            let frame = tree.frame(n);
            named[frame.index()] && (tree.parent(n).is_none() || profile.frames.get(frame).kind == FrameKind::Thread)
        })
        .collect()
}

/// Per frame, whether `re` matches its name, its row's name in the reports (a BR line's, after its
/// routine), or, for a line frame, its function's name.
pub(crate) fn frame_matches(profile: &Profile, re: &Regex) -> Vec<bool> {
    (profile.frames.iter())
        .map(|(id, frame)| {
            re.is_match(&profile.frame_name(id))
                || (profile.frame_attr(id, super::ROUTINE).is_some() && re.is_match(&profile.row_name(id)))
                || (frame.kind == FrameKind::Line && !frame.name.is_empty() && re.is_match(&frame.name))
        })
        .collect()
}

/// Per node, whether `re` matches its frame ([`frame_matches`]).
fn node_matches(profile: &Profile, re: &Regex) -> Vec<bool> {
    per_node(profile, &frame_matches(profile, re))
}

/// Per node, the mark of its frame.
pub fn per_node(profile: &Profile, by_frame: &[bool]) -> Vec<bool> {
    profile.tree.nodes().map(|n| by_frame[profile.tree.frame(n).index()]).collect()
}

/// What becomes of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// It stays; with `own`, with its own additive values, else with none (a caller kept only for
    /// the stacks below it).
    Keep { own: bool },
    /// It goes; its own additive values go to its nearest caller that stays.
    Hide,
    /// It goes with its own values.
    Cut,
    /// It goes into a node above it (the outermost call of its recursion): its own additive values
    /// go there, its callees move up under it.
    Into(NodeId),
}

/// Per node, whether it or one of its callers is marked.
fn at_or_below_mark(profile: &Profile, marked: &[bool]) -> Vec<bool> {
    let tree = &profile.tree;
    let mut under = marked.to_vec();
    for node in tree.nodes() {
        if let Some(p) = tree.parent(node) {
            under[node.index()] |= under[p.index()];
        }
    }
    under
}

/// `profile` keeping the stacks through a marked node (`--focus`, `--thread`).
pub fn focus(profile: &Profile, marked: &[bool]) -> Profile {
    let tree = &profile.tree;
    let under = at_or_below_mark(profile, marked);
    let mut above = vec![false; tree.len()];
    for node in tree.nodes().rev() {
        if let Some(p) = tree.parent(node) {
            above[p.index()] |= above[node.index()] || marked[node.index()];
        }
    }
    let fates: Vec<Fate> = (0..tree.len())
        .map(|i| match (under[i], above[i]) {
            (true, _) => Fate::Keep { own: true },
            (false, true) => Fate::Keep { own: false },
            (false, false) => Fate::Cut,
        })
        .collect();
    rebuild(profile, &fates)
}

/// `profile` without the stacks through a marked node (`--ignore`).
pub fn ignore(profile: &Profile, marked: &[bool]) -> Profile {
    let fates: Vec<Fate> = at_or_below_mark(profile, marked)
        .iter()
        .map(|&u| if u { Fate::Cut } else { Fate::Keep { own: true } })
        .collect();
    rebuild(profile, &fates)
}

/// `profile` without the marked nodes, the rest of their stacks kept (`--hide`).
pub fn hide(profile: &Profile, marked: &[bool]) -> Profile {
    let fates: Vec<Fate> = marked.iter().map(|&m| if m { Fate::Hide } else { Fate::Keep { own: true } }).collect();
    rebuild(profile, &fates)
}

/// `profile` with the recursion of the marked frames collapsed (`--collapse-recursion`): a node of a
/// marked function with a caller of the same name goes into the outermost such caller. One
/// depth-first walk keeps, per name, the outermost node of it on the path.
pub fn collapse_recursion(profile: &Profile, marked_frames: &[bool]) -> Profile {
    let tree = &profile.tree;
    // Marked frames by name: frames of one name (in different files) are one function, as the
    // reports' rows are.
    let mut names: std::collections::HashMap<std::borrow::Cow<str>, usize> = Default::default();
    let key_of: Vec<Option<usize>> = (profile.frames.iter())
        .map(|(id, _)| {
            let fresh = names.len();
            marked_frames[id.index()].then(|| *names.entry(profile.frame_name(id)).or_insert(fresh))
        })
        .collect();
    let mut outermost: Vec<Option<NodeId>> = vec![None; names.len()];
    // The path's nodes, root first, with whether each is the outermost of its name.
    let mut path: Vec<(NodeId, bool)> = Vec::new();
    let mut fates = vec![Fate::Keep { own: true }; tree.len()];
    for visit in tree.walk() {
        for (left, was_outermost) in path.drain(visit.depth as usize..) {
            if let (true, Some(key)) = (was_outermost, key_of[tree.frame(left).index()]) {
                outermost[key] = None;
            }
        }
        let key = key_of[tree.frame(visit.node).index()];
        let outer = key.and_then(|k| outermost[k]);
        match (key, outer) {
            (_, Some(outer)) => fates[visit.node.index()] = Fate::Into(outer),
            (Some(k), None) => outermost[k] = Some(visit.node),
            (None, None) => {}
        }
        path.push((visit.node, key.is_some() && outer.is_none()));
    }
    cut_emptied(profile, &mut fates);
    rebuild(profile, &fates)
}

/// Cuts the kept nodes that a collapse left with nothing: those whose only weight was in a call that
/// went into a caller (`b` of `a;b;a;c` once `a` is collapsed), and their callees of no weight.
fn cut_emptied(profile: &Profile, fates: &mut [Fate]) {
    let tree = &profile.tree;
    let metrics = profile.metrics().len();
    let (mut weighs, mut emptied) = (vec![false; tree.len()], vec![false; tree.len()]);
    for node in tree.nodes().rev() {
        let i = node.index();
        weighs[i] |= (0..metrics).any(|m| tree.self_value(m, node).as_f64() != 0.0);
        let parent = tree.parent(node).map(NodeId::index);
        // A call that goes into a caller takes its weight there, and empties its own caller.
        match (fates[i], parent) {
            (Fate::Into(outer), Some(p)) => {
                weighs[outer.index()] |= weighs[i];
                emptied[p] = true;
            }
            (_, Some(p)) => {
                weighs[p] |= weighs[i];
                emptied[p] |= emptied[i];
            }
            (_, None) => {}
        }
    }
    for node in tree.nodes() {
        let i = node.index();
        let under_cut = tree.parent(node).is_some_and(|p| fates[p.index()] == Fate::Cut);
        if fates[i] == (Fate::Keep { own: true }) && !weighs[i] && (emptied[i] || under_cut) {
            fates[i] = Fate::Cut;
        }
    }
}

/// `profile` made of the subtrees rooted at the outermost marked nodes (a report's `--fn`): their
/// callers go, with their own values.
pub fn subtrees(profile: &Profile, marked: &[bool]) -> Profile {
    let fates: Vec<Fate> = (at_or_below_mark(profile, marked).iter())
        .map(|&u| if u { Fate::Keep { own: true } } else { Fate::Cut })
        .collect();
    rebuild(profile, &fates)
}

/// `profile` cut to the samples of its timeline taken in `range` (offsets from the timeline's
/// start): each node keeps, in every metric, the shares of its samples kept ([`Timeline::shares`]:
/// all of its value where all are kept), and the nodes with none below them go; of a trace, its
/// slices cut to the range. The metrics not in its samples (counted per node, or weighing nodes with
/// no sample: a JFR recording's allocation samples beside its execution samples) are left out,
/// named, but the one it is reported by (chosen, else its primary). An error says why it cannot be
/// cut: it has no timeline, the metric it is reported by is not in its samples, a metric is not in
/// its slices, or no sample or slice is in the range.
pub fn within_time(profile: &Profile, range: TimeRange) -> Result<(Profile, Vec<String>), String> {
    let Some(timeline) = &profile.timeline else {
        return Err("the profile has no timeline: its format, or the steps before, keep no time of its samples".into());
    };
    let at = |offset: Option<Duration>, otherwise: i64| {
        offset.map_or(otherwise, |d| timeline.start.saturating_add(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)))
    };
    let (from, to) = (at(range.from, timeline.start), at(range.to, timeline.end));
    match (timeline.samples().is_empty(), timeline.slices().is_empty()) {
        (true, false) => slices_within(profile, timeline, (from, to)).map(|profile| (profile, Vec::new())),
        (false, true) => {
            // A sample at the end of a range given is the next range's: profilers that sample on a
            // grid (py-spy) put samples right on the ends of ranges of whole intervals, which two
            // ranges end to end would both count. One at the timeline's end is in a range to it.
            let to_given = range.to.is_some();
            samples_within(profile, timeline, (from, to), |time| {
                from <= time && (time < to || (!to_given && time == to))
            })
        }
        _ => Err("a timeline of both samples and slices is not cut to a range".into()),
    }
}

/// [`within_time`] of a timeline of samples, from `from` to `to` (ns on its clock), keeping those
/// `in_range` says are: the profile, and the names of the metrics left out.
fn samples_within(
    profile: &Profile,
    timeline: &Timeline,
    (from, to): (i64, i64),
    in_range: impl Fn(i64) -> bool,
) -> Result<(Profile, Vec<String>), String> {
    let samples = timeline.samples();
    let kept: Vec<bool> = samples.iter().map(|s| in_range(s.time)).collect();
    if !kept.contains(&true) {
        let span = Duration::from_nanos(u64::try_from(timeline.end - timeline.start).unwrap_or(0));
        return Err(format!("no sample is in the range (the timeline is {span:?} long)"));
    }
    let (tree, metrics) = (&profile.tree, profile.metrics());
    let reported_by = profile.meta.chosen_metric.or_else(|| profile.primary_metric());
    let mut out = profile.clone();
    let (mut kept_metrics, mut left_out) = (vec![true; metrics.len()], Vec::new());
    for (m, metric) in metrics.iter().enumerate() {
        let Some(shares) = metric.is_additive().then(|| timeline.shares(tree, m)).flatten() else {
            if reported_by == Some(m) {
                return Err(unheld_metric(profile, timeline, m));
            }
            kept_metrics[m] = false;
            left_out.push(metric.name.clone());
            continue;
        };
        let (mut sums, mut all) = (vec![0f64; tree.len()], vec![true; tree.len()]);
        for ((sample, share), &keep) in samples.iter().zip(shares).zip(&kept) {
            match keep {
                true => sums[sample.node.index()] += share,
                false => all[sample.node.index()] = false,
            }
        }
        let value = |n: NodeId| if all[n.index()] { tree.self_value(m, n).as_f64() } else { sums[n.index()] };
        let values = match metric.repr {
            super::Repr::Int => super::Values::Int(tree.nodes().map(|n| value(n).round() as i64).collect()),
            super::Repr::Float => super::Values::Float(tree.nodes().map(value).collect()),
        };
        out.replace_metric(m, metric.clone(), values);
    }
    out.tree.forget_measured_inclusive();
    let in_range = samples.iter().zip(&kept).filter(|(_, &keep)| keep).map(|(s, _)| *s);
    out.timeline = Timeline::new(in_range.collect(), Some((from, to.max(from))));
    // A node stays where a sample kept is at or below it.
    let mut sampled = vec![false; tree.len()];
    out.timeline.iter().flat_map(Timeline::samples).for_each(|s| sampled[s.node.index()] = true);
    for node in tree.nodes().rev() {
        if let (true, Some(p)) = (sampled[node.index()], tree.parent(node)) {
            sampled[p.index()] = true;
        }
    }
    let fates: Vec<Fate> = sampled.iter().map(|&s| if s { Fate::Keep { own: true } } else { Fate::Cut }).collect();
    let mut cut = rebuild(&out, &fates);
    cut.retain_metrics(&kept_metrics);
    Ok((cut, left_out))
}

/// The error of a time range whose metric `m`, the one a profile is reported by, is not in its
/// timeline's samples: why, and the metrics that are.
fn unheld_metric(profile: &Profile, timeline: &Timeline, m: usize) -> String {
    let metric = &profile.metrics()[m];
    let why = match metric.is_additive() {
        true => "not all in its timeline's samples (the profile keeps no time of some of its values)",
        false => "counted per node, not per sample",
    };
    let held: Vec<&str> = (profile.metrics().iter().enumerate())
        .filter(|(i, other)| other.is_additive() && timeline.shares(&profile.tree, *i).is_some())
        .map(|(_, other)| other.name.as_str())
        .collect();
    match held.is_empty() {
        true => format!("its {} is {why}", metric.name),
        false => format!("its {} is {why}; those of {} are (--metric)", metric.name, held.join(", ")),
    }
}

/// [`within_time`] of a trace's slices, from `from` to `to` (ns on its clock): each slice cut to the
/// range, each node's time the length of its slices in it less its callees', and the nodes with none
/// go. The slices must be their nodes' time, in the profile's one metric that adds up.
fn slices_within(profile: &Profile, timeline: &Timeline, (from, to): (i64, i64)) -> Result<Profile, String> {
    let (tree, metrics) = (&profile.tree, profile.metrics());
    let timed = metrics.iter().position(|m| m.kind == super::MetricKind::Time && m.unit.nanos().is_some());
    let Some(m) = timed else { return Err("its slices weigh no metric of time".into()) };
    let nanos = metrics[m].unit.nanos().unwrap_or(1.0);
    if let Some(other) =
        (metrics.iter().enumerate()).find(|&(o, _)| o != m && tree.self_values(o).to_f64().iter().any(|&v| v != 0.0))
    {
        return Err(format!("its {} is not in its trace's slices", other.1.name));
    }
    let (mut whole, mut within) = (vec![0i64; tree.len()], vec![0i64; tree.len()]);
    for s in timeline.slices() {
        whole[s.node.index()] += s.end - s.start;
        within[s.node.index()] += (s.end.min(to) - s.start.max(from)).max(0);
    }
    let inclusive = tree.derived_inclusive(m);
    let unsliced =
        |n: NodeId| ((inclusive.get(n.index()).as_f64() * nanos).round() as i64 - whole[n.index()]).abs() > 1;
    // A root's own time would be at no slice (a thread's time is its slices').
    let unsliced_root = |n: NodeId| tree.parent(n).is_none() && tree.self_value(m, n).as_f64() != 0.0;
    if tree.nodes().any(|n| unsliced_root(n) || (tree.parent(n).is_some() && unsliced(n))) {
        return Err("the time of some nodes is not the length of their slices (a filter changed it)".into());
    }
    if within.iter().all(|&ns| ns == 0) {
        let span = Duration::from_nanos(u64::try_from(timeline.end - timeline.start).unwrap_or(0));
        return Err(format!("no slice is in the range (the timeline is {span:?} long)"));
    }
    // Each node's own time in the range: its slices' less its callees'.
    let mut own = within.clone();
    for node in tree.nodes() {
        if let Some(parent) = tree.parent(node) {
            own[parent.index()] -= within[node.index()];
        }
    }
    let values = match metrics[m].repr {
        super::Repr::Int => super::Values::Int(own.iter().map(|&ns| (ns as f64 / nanos).round() as i64).collect()),
        super::Repr::Float => super::Values::Float(own.iter().map(|&ns| ns as f64 / nanos).collect()),
    };
    let mut out = profile.clone();
    out.replace_metric(m, metrics[m].clone(), values);
    out.tree.forget_measured_inclusive();
    let cut = timeline.slices().iter().map(|s| super::Slice { start: s.start.max(from), end: s.end.min(to), ..*s });
    out.timeline = Timeline::of_slices(cut.filter(|s| s.end > s.start).collect(), Some((from, to.max(from))));
    // A node stays where time in the range is at or below it.
    let fates: Vec<Fate> = within.iter().map(|&ns| if ns > 0 { Fate::Keep { own: true } } else { Fate::Cut }).collect();
    Ok(rebuild(&out, &fates))
}

/// `profile` with each node's fate applied: kept nodes are copied in arena order under their
/// nearest kept caller (so parents still come first), hidden nodes' additive values added to it.
fn rebuild(profile: &Profile, fates: &[Fate]) -> Profile {
    let src = &profile.tree;
    if fates.iter().all(|&f| f == Fate::Keep { own: true }) {
        return profile.clone();
    }
    let mut out = without_nodes(profile);
    forget_counts_of_stacks(&mut out);
    let metrics = profile.metrics();
    // The new node of each old node's nearest kept caller-or-self.
    let mut anchor: Vec<Option<NodeId>> = vec![None; src.len()];
    for node in src.nodes() {
        let above = src.parent(node).and_then(|p| anchor[p.index()]);
        let new = match fates[node.index()] {
            Fate::Keep { own } => {
                let id = out.tree.push(above, src.frame(node));
                copy_values(src, node, &mut out.tree, id);
                if !own {
                    (0..metrics.len())
                        .filter(|&m| metrics[m].is_additive())
                        .for_each(|m| out.tree.set_self(m, id, Value::Int(0)));
                }
                Some(id)
            }
            Fate::Hide => {
                if let Some(to) = above {
                    (0..metrics.len())
                        .filter(|&m| metrics[m].is_additive())
                        .for_each(|m| out.tree.add_self(m, to, src.self_value(m, node)));
                }
                above
            }
            Fate::Cut => above,
            Fate::Into(outer) => {
                let to = anchor[outer.index()];
                if let Some(to) = to {
                    (0..metrics.len())
                        .filter(|&m| metrics[m].is_additive())
                        .for_each(|m| out.tree.add_self(m, to, src.self_value(m, node)));
                }
                to
            }
        };
        anchor[node.index()] = new;
    }
    // A sample goes where its node's value went: nowhere for a cut node or a kept caller's own; a
    // slice stays where its node does, with its own value.
    let value_went = |node: NodeId| match fates[node.index()] {
        Fate::Keep { own: false } | Fate::Cut => None,
        Fate::Keep { own: true } | Fate::Hide | Fate::Into(_) => anchor[node.index()],
    };
    let node_kept =
        |node: NodeId| (fates[node.index()] == Fate::Keep { own: true }).then(|| anchor[node.index()]).flatten();
    out.timeline = profile.timeline.as_ref().and_then(|t| t.remapped_apart(&value_went, &node_kept));
    for m in (0..metrics.len()).filter(|&m| src.measured_inclusive(m).is_some()) {
        for (node, value) in remeasured(profile, m, fates) {
            if let Some(id) = anchor[node.index()] {
                out.tree.set_measured_inclusive(m, id, value);
            }
        }
    }
    out
}

/// Forgets the per-function counts of samples the stacks held (LispWorks Seen and Top: samples in
/// which a function was on the stack, and on its top) once stacks are cut or frames hidden: they
/// are the unfiltered file's, and writers count them again from the tree that is kept. Call counts
/// stay: no stack says how many of them its calls made.
fn forget_counts_of_stacks(profile: &mut Profile) {
    for facts in profile.function_facts.values_mut() {
        (facts.seen, facts.top) = (None, None);
    }
}

/// The measured inclusive values of metric `m` of the nodes `fates` keep, after the fates: each is
/// the value read less what its subtree lost (nothing lost: the value read, to the digit).
fn remeasured(profile: &Profile, m: usize, fates: &[Fate]) -> Vec<(NodeId, Value)> {
    let tree = &profile.tree;
    let Some(measured) = tree.measured_inclusive(m) else { return Vec::new() };
    let read = |n: NodeId| measured.get(n.index()).as_f64();
    // Per node: the sum of its children's values read and of what their subtrees lost.
    let mut children_read = vec![0.0f64; tree.len()];
    let mut children_lost = vec![0.0f64; tree.len()];
    let mut kept = Vec::new();
    for node in tree.nodes().rev() {
        let i = node.index();
        let lost = match fates[i] {
            // What goes into a caller stays inside that caller's measured value.
            Fate::Keep { own: true } | Fate::Hide | Fate::Into(_) => children_lost[i],
            // What stays of a node is what stays of its children.
            Fate::Keep { own: false } | Fate::Cut => read(node) - (children_read[i] - children_lost[i]),
        };
        if let Fate::Keep { .. } = fates[i] {
            kept.push((node, read(node) - lost));
        }
        if let Some(p) = tree.parent(node) {
            children_read[p.index()] += read(node);
            children_lost[p.index()] += lost;
        }
    }
    let int = matches!(measured, super::Values::Int(_));
    kept.into_iter().map(|(n, v)| (n, if int { Value::Int(v.round() as i64) } else { Value::Float(v) })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{dump::dump, FrameRef, Metric};

    /// a;b;c 5, a;b 1, a;d;b 2, e 3 (b recursive under d).
    fn profile() -> Profile {
        profile_of(Metric::samples())
    }

    fn profile_of(metric: Metric) -> Profile {
        stacks_of(metric, &[(&["a", "b", "c"], 5), (&["a", "b"], 1), (&["a", "d", "b"], 2), (&["e"], 3)])
    }

    /// A profile of `stacks`, each a path of function names and its samples.
    fn stacks_of(metric: Metric, stacks: &[(&[&str], i64)]) -> Profile {
        let mut p = Profile::new(vec![metric]);
        let mut index = crate::model::ChildIndex::default();
        for &(stack, n) in stacks {
            let mut parent = None;
            for name in stack {
                let frame = p.frames.intern(FrameRef::function(name));
                parent = Some(index.child_or_insert(&mut p.tree, parent, frame));
            }
            p.tree.add_self(0, parent.unwrap(), Value::Int(n));
        }
        p
    }

    fn re(s: &str) -> Option<Regex> {
        Some(Regex::new(s).unwrap())
    }

    fn lines(p: &Profile) -> Vec<String> {
        dump(p).lines().skip_while(|l| *l != "tree:").skip(1).map(str::to_owned).collect()
    }

    #[test]
    fn focus_keeps_stacks_through_a_match_and_callers_without_their_own() {
        let p = Filters { focus: re("^b$"), ..Filters::default() }.apply(profile()).unwrap().profile;
        assert_eq!(
            lines(&p),
            [
                "\"a\" [function] samples=0 (total 8)",
                "  \"b\" [function] samples=1 (total 6)",
                "    \"c\" [function] samples=5 (total 5)",
                "  \"d\" [function] samples=0 (total 2)",
                "    \"b\" [function] samples=2 (total 2)",
            ]
        );
    }

    #[test]
    fn ignore_drops_stacks_and_hide_moves_values_up() {
        let p = Filters { ignore: re("^d$"), hide: re("^b$"), ..Filters::default() }.apply(profile()).unwrap().profile;
        assert_eq!(
            lines(&p),
            [
                "\"a\" [function] samples=1 (total 6)",
                "  \"c\" [function] samples=5 (total 5)",
                "\"e\" [function] samples=3 (total 3)"
            ]
        );
    }

    #[test]
    fn recursion_direct_and_through_others_goes_into_the_outermost_call() {
        // By hand: a;b;a;c 4 puts c under the outer a; a;a 2 is a's own; b keeps a;b's 1;
        // x;a;a;a;c 3: both inner a's into the a under x.
        let p = stacks_of(
            Metric::samples(),
            &[(&["a", "b", "a", "c"], 4), (&["a", "b"], 1), (&["a", "a"], 2), (&["x", "a", "a", "a", "c"], 3)],
        );
        let p = Filters { collapse_recursion: re("^a$"), ..Filters::default() }.apply(p).unwrap().profile;
        let p = crate::model::ops::merge_siblings(&p);
        assert_eq!(
            lines(&p),
            [
                "\"a\" [function] samples=2 (total 7)",
                "  \"b\" [function] samples=1 (total 1)",
                "  \"c\" [function] samples=4 (total 4)",
                "\"x\" [function] samples=0 (total 3)",
                "  \"a\" [function] samples=0 (total 3)",
                "    \"c\" [function] samples=3 (total 3)",
            ]
        );
    }

    #[test]
    fn a_filter_that_keeps_nothing_says_so() {
        let err = Filters { focus: re("zzz"), ..Filters::default() }.apply(profile()).err().unwrap();
        assert_eq!(err.to_string(), "--focus zzz: no stack passes through a frame that matches: nothing is left");
        let err = Filters { thread: Some("x".into()), ..Filters::default() }.apply(profile()).err().unwrap();
        assert_eq!(err.to_string(), "--thread x: no thread or process root is named so (it has: a, e)");
    }

    #[test]
    fn measured_inclusive_values_lose_what_their_subtree_lost() {
        let mut p = profile_of(Metric::time(crate::model::Unit::Milliseconds, crate::model::Repr::Float));
        // Measured: a 20 (more than its stacks' 16: time no row accounts for), b 6.5, c 5, d 2.25, b 2, e 3.
        for (node, v) in [(0, 20.0), (1, 6.5), (2, 5.0), (3, 2.25), (4, 2.0), (5, 3.0)] {
            p.tree.set_measured_inclusive(0, NodeId(node), Value::Float(v));
        }
        let ignored = ignore(&p, &per_node(&p, &frame_matches(&p, &Regex::new("^c$").unwrap())));
        let measured = ignored.tree.measured_inclusive(0).unwrap();
        assert_eq!((0..5).map(|i| measured.get(i).as_f64()).collect::<Vec<_>>(), [15.0, 1.5, 2.25, 2.0, 3.0]);
        let focused = focus(&p, &per_node(&p, &frame_matches(&p, &Regex::new("^d$").unwrap())));
        let measured = focused.tree.measured_inclusive(0).unwrap();
        assert_eq!((0..3).map(|i| measured.get(i).as_f64()).collect::<Vec<_>>(), [2.25, 2.25, 2.0]);
    }

    #[test]
    fn an_invalid_regex_is_one_line() {
        assert_eq!(parse_regex("--focus", "a(").unwrap_err(), "--focus a(: invalid regex: unclosed group (column 2)");
        assert_eq!(
            parse_regex("--hide", "x{2,1}").unwrap_err(),
            "--hide x{2,1}: invalid regex: invalid repetition count range, the start must be <= the end (column 2)"
        );
    }

    #[test]
    fn deep_trees_are_filtered_without_recursion() {
        let mut p = Profile::new(vec![Metric::samples()]);
        let (f, g) = (p.frames.intern(FrameRef::function("f")), p.frames.intern(FrameRef::function("g")));
        let leaf = p.tree.push_chain(1_000_000, |i| if i % 2 == 0 { f } else { g });
        p.tree.add_self(0, leaf.unwrap(), Value::Int(1));
        let hidden = Filters { hide: re("^g$"), ..Filters::default() }.apply(p).unwrap().profile;
        assert_eq!(hidden.tree.len(), 500_000);
        assert_eq!(hidden.total(0), Value::Int(1));
    }
}
