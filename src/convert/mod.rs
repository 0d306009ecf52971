//! Conversion: projecting a profile onto what a target format carries, naming every loss.
//!
//! Writers consume a profile that already fits their format; this module makes it fit, following the
//! conversion rules of docs/conversions.md ("Conversions"), and says on stderr (through [`Diagnostics`]) what
//! did not survive, one warning per kind of loss:
//!
//! - a target with one number per node gets one metric: the one chosen (`--metric`), else the
//!   profile's primary one;
//!   the others are dropped by name. A per-node calls metric becomes per-function call counts where
//!   the target has those (LispWorks Call-Count);
//! - time becomes whole samples by dividing by the sampling interval (`--interval`, else the
//!   profile's own, else 1 ms), rounding node by node while keeping the total; counts that are
//!   counts already (samples, ticks) keep the profile's own interval, and an `--interval` that
//!   differs from it is not applied, with a warning;
//! - line frames merge into their functions where the target has no line numbers;
//! - threads and processes lose their frames where the target has none (their stacks kept), and
//!   become roots where its threads are roots (a LispWorks process below its pseudo-root);
//! - siblings that share a frame merge where the target stores whole stacks (equal stacks are one);
//! - characters a frame name cannot hold in the target are replaced (`;` in folded stacks);
//! - modules, per-function facts and header facts the target has no place for are dropped by name;
//! - when each sample was taken (the profile's timeline) is dropped where the target keeps no time
//!   order, with a warning.

pub use crate::formats::{ConvertOptions, FormatOptions, DEFAULT_INTERVAL, DEFAULT_MAX_SAMPLES};

mod frames;
mod metrics;
mod quantities;

use frames::*;
use metrics::*;
pub(crate) use quantities::into_quantity;
use quantities::*;

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{Carries, Format, ReadOptions, Structure};
use crate::model::{ops, Frame, FrameKind, MetricKind, Profile};
use std::cell::Cell;

/// `profile` reduced to what `target` carries. Works in place: a profile that already fits is
/// returned as it came, without a copy.
pub fn project(
    mut profile: Profile,
    target: Format,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, Error> {
    if let Some(file) = target.no_stack_file().filter(|_| profile.tree.is_empty()) {
        let what = format!("the profile holds no stack (a recording of no sample), and {file}, which no reader takes (pprof and speedscope hold an empty profile)");
        return Err(Error::Unrepresentable { format: target.into(), what });
    }
    let to = Conversion::new(target, options);
    let carries = &to.carries;
    let inclusive_only = profile.self_unknown().is_some();
    let (ghc_namespaces, own_interval) = (profile.meta.module_namespaces, profile.meta.interval);
    let timed = drop_timeline_not_held(&mut profile, carries, target, diag);
    if carries.weight_is_time {
        weigh_by_time(&mut profile, target, diag)?;
    }
    report_dropped_header(&profile, target, carries, diag);
    if carries.one_metric {
        // First, so that the steps below copy one column, not all.
        keep_one_metric(&mut profile, &to, diag)?;
    } else if !target.keeps_measured_inclusive() {
        let carried = |m: usize| carries.metrics.contains(&profile.metrics()[m].kind);
        report_measured_inclusive_dropped(&profile, target, carried, diag);
    }
    report_flat_rows(&profile, &to, inclusive_only, diag);
    let mut profile = fit_lines(profile, &to, diag);
    fit_time_and_counts(&mut profile, &to, diag);
    fit_namespaces(&mut profile, target, diag);
    fit_roots_and_frames(&mut profile, &to, ghc_namespaces, diag)?;
    if carries.structure == Structure::Stacks {
        // A target that stores whole stacks, whose stack is its own identity: equal stacks made
        // one, as they would read back as one.
        profile = ops::merged_siblings(profile);
    }
    fit_metrics(&mut profile, &to, diag);
    drop_function_facts(&mut profile, &to, diag);
    if carries.needs_time {
        time_beside_counts(&mut profile, &to, diag);
    }
    let mut profile = fit_by_target(profile, &to, diag);
    if !to.interval_applied.get() {
        interval_of_kept_counts(&mut profile, own_interval, &to, diag);
    }
    drop_header_facts(&mut profile.meta, carries);
    if timed && profile.timeline.is_none() && !diag.has("timeline-partial") {
        diag.warn("timeline-lost", None, || {
            format!("{target}: the samples' times were lost in the conversion; they are written in tree order")
        });
    }
    Ok(profile)
}

/// Drops the samples and slices of the profile's timeline that `target` does not keep, saying so;
/// whether the profile keeps a timeline.
fn drop_timeline_not_held(profile: &mut Profile, carries: &Carries, target: Format, diag: &mut Diagnostics) -> bool {
    let Some(mut timeline) = profile.timeline.take() else { return false };
    let (samples, slices) = (timeline.samples().len(), timeline.slices().len());
    if !carries.timeline && samples > 0 {
        diag.warn("timeline-dropped", None, || {
            format!("{target} holds no time order: the times of {samples} samples are dropped, their stacks kept")
        });
        let Some(rest) = timeline.without_samples() else { return false };
        timeline = rest;
    }
    if !carries.slices && slices > 0 {
        diag.warn("slices-dropped", None, || {
            format!("{target} holds no slices of a trace: the times of {slices} slices are dropped, their time kept as the call tree's")
        });
        let Some(rest) = timeline.without_slices() else { return false };
        timeline = rest;
    }
    profile.timeline = Some(timeline);
    true
}

/// A conversion under way: its target, what the target carries, the options it was asked with,
/// and whether a step has turned counts and time into one another at `--interval` (then the
/// profile's own interval no longer says what its counts were taken at, and no warning says that
/// `--interval` was not applied).
struct Conversion<'a> {
    target: Format,
    carries: Carries,
    options: &'a ConvertOptions,
    interval_applied: Cell<bool>,
}

impl Conversion<'_> {
    fn new(target: Format, options: &ConvertOptions) -> Conversion<'_> {
        Conversion { target, carries: target.carries(), options, interval_applied: Cell::new(false) }
    }
}

/// The reading options of a conversion to `target`: line frames merged while reading (where the
/// reader can: Dyalog) when the conversion would merge them and the target keeps whole stacks
/// (merging while reading also merges siblings of one function, which such a target merges
/// anyway, even in a report without lines). The one place this is decided for a conversion.
pub fn reading_for(target: Format, read: ReadOptions, options: &ConvertOptions) -> ReadOptions {
    let stacks = target.carries().structure == Structure::Stacks;
    ReadOptions { merge_lines: stacks && merges_lines(options, target), ..read }
}

/// Whether a conversion to `target` merges line frames into their functions: with `--functions`,
/// or for a target without line numbers unless `--lines` keeps them as names.
fn merges_lines(options: &ConvertOptions, target: Format) -> bool {
    options.functions || (!target.carries().source_lines && !options.lines)
}

/// For a target with one number per node: keeps the metric it writes ([`choose_metric`]), naming
/// the others as dropped (and its measured inclusive values, which the target derives); a target
/// with per-function counts takes a per-node calls metric as its Call-Count first.
fn keep_one_metric(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) -> Result<usize, Error> {
    let target = to.target;
    let chosen = choose_metric(profile, to.options, target)?;
    report_measured_inclusive_dropped(profile, target, |m| m == chosen, diag);
    if to.carries.function_facts {
        absorb_calls(profile, chosen);
    }
    keep_only(profile, chosen, target, diag);
    Ok(chosen)
}

/// Says once that a flat report (rows without call structure) becomes stacks of one function each
/// in a target that holds no flat reports, and by how much its rows overlap where they do.
fn report_flat_rows(profile: &Profile, to: &Conversion, inclusive_only: bool, diag: &mut Diagnostics) {
    let target = to.target;
    if !profile.meta.flat || to.carries.flat_reports {
        return;
    }
    diag.warn("flat-report", None, || {
        format!("the source is a flat report without call structure: in {target} each function is a stack of its own")
    });
    if inclusive_only {
        diag.warn("flat-inclusive-only", None, || {
            format!("the source is a summary report, which holds inclusive times only: its functions' own times are unknown, and in {target} each function's inclusive time is written as its own")
        });
    }
    if let Some((metric, rows, total)) = profile.overlapping_rows() {
        let (unit, excess, source) = (profile.metrics()[metric].unit.name(), rows - total.value, &total.source);
        let amount = |v: f64| format!("{} {unit}", crate::model::significant(v, 10));
        diag.warn("flat-overlap", None, || {
            format!(
                "the source's rows overlap (each function's time holds that of the functions it calls): in {target} they add up to {}, {} ({:.1} %) more than its total of {} ({source})",
                amount(rows), amount(excess), 100.0 * excess / total.value, amount(total.value)
            )
        });
    }
}

/// Fits line frames to the target: unnested where its lines stand in their function's place (BR),
/// named `name[line]` with `--lines` where it has no line numbers, else merged into their functions
/// where it has none (said once).
fn fit_lines(mut profile: Profile, to: &Conversion, diag: &mut Diagnostics) -> Profile {
    let (target, carries, options) = (to.target, &to.carries, to.options);
    let has_lines = profile.frames.iter().any(|(_, f)| f.kind == FrameKind::Line);
    if has_lines && carries.source_lines && !carries.lines_nest && !options.functions {
        profile = ops::unnest_lines(&profile);
    }
    if profile.meta.lines_merged && !options.functions {
        lines_merged(target, diag);
    }
    if has_lines && options.lines && !options.functions && !carries.source_lines {
        diag.warn("lines-named", None, || {
            format!("{target} has no line numbers: line frames written as functions named name[line] (--lines)")
        });
        ops::map_frames(&mut profile, |frame| {
            let named =
                Frame { name: frame.to_string(), line: None, clause: None, kind: FrameKind::Function, ..frame.clone() };
            (frame.kind == FrameKind::Line).then_some(named)
        });
    } else if has_lines && merges_lines(options, target) {
        if !options.functions {
            lines_merged(target, diag);
        }
        profile = ops::merge_lines(&profile);
    }
    profile
}

/// Gives the target the quantities it holds: counts it does not hold as time where it measures time (Dyalog's
/// samples, Firefox's GHC ticks), time as samples where it is made of one record per sample (BR),
/// time in the unit it writes (Dyalog's ms).
fn fit_time_and_counts(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    let carries = &to.carries;
    if carries.metrics.contains(&MetricKind::Time) && !carries.needs_samples && !carries.needs_time {
        counts_into_time(profile, to, diag);
    }
    if carries.needs_samples {
        time_into_samples(profile, to, diag);
    }
    if let Some(unit) = carries.time_unit {
        into_time_unit(profile, unit);
    }
}

/// Names frames as the target does: `Module.label` where GHC's namespaces meet a target without
/// them, split back into cost centre and module for a GHC target.
fn fit_namespaces(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    if profile.meta.module_namespaces && !target.module_is_namespace() {
        ops::qualify_names(profile);
    } else if target.module_is_namespace() && !profile.meta.module_namespaces {
        into_namespaces(profile, target, diag);
    }
}

/// Fits the roots and frames: threads made roots or dropped as the target holds them
/// ([`fit_threads`]), names and kinds fitted ([`fit_frames`]), a single-root target's root given the
/// others ([`put_roots_under_one`]), the target's own rule for roots, and frame facts of other
/// formats dropped.
fn fit_roots_and_frames(
    profile: &mut Profile,
    to: &Conversion,
    ghc_namespaces: bool,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let (target, carries) = (to.target, &to.carries);
    fit_threads(profile, target, carries, diag)?;
    fit_frames(profile, target, carries, diag);
    if let Some(root) = target.single_root() {
        put_roots_under_one(profile, root, ghc_namespaces, target, diag);
    }
    target.fit_roots(profile);
    drop_foreign_frame_attrs(profile, target, diag);
    Ok(())
}

/// Gives the target the metrics it holds: the one metric of a one-number target as whole counts
/// ([`single_count`]); for the others, ticks where the target counts ticks only (GHC), and the
/// metrics it has no place for dropped, by name.
fn fit_metrics(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    if to.carries.one_metric {
        return single_count(profile, to, diag);
    }
    let holds = |k| to.carries.metrics.contains(&k);
    if holds(MetricKind::Ticks) && !holds(MetricKind::Samples) && !holds(MetricKind::Time) {
        counts_as_ticks(profile, to, diag);
    }
    let keep: Vec<bool> = profile.metrics().iter().map(|m| holds(m.kind)).collect();
    report_dropped_metrics(profile, &keep, to.target, None, diag);
    if keep.contains(&false) {
        profile.retain_metrics(&keep);
    }
}

/// Drops per-function counts (LispWorks Call/Seen/Top) where the target has none, said once.
fn drop_function_facts(profile: &mut Profile, to: &Conversion, diag: &mut Diagnostics) {
    if to.carries.function_facts || profile.function_facts.is_empty() {
        return;
    }
    let target = to.target;
    diag.warn("facts-dropped", None, || {
        format!("{target} has no per-function counts: Call-Count, Seen-Count and Top-Count are dropped")
    });
    // Dropped indeed, before the writer runs: a writer that formats on several threads needs the room.
    profile.function_facts.clear();
}

/// The target's own last step ([`Format::fit`]), after siblings of one frame are merged where its
/// rules say a node of it is one chain of callers ([`crate::formats::spec::Rules::merges_siblings`]);
/// one that turns counts into time (BR's timed mode) at `--interval` has applied it.
fn fit_by_target(profile: Profile, to: &Conversion, diag: &mut Diagnostics) -> Profile {
    let has_time = |p: &Profile| p.metric_of_kind(MetricKind::Time).is_some();
    let timed = has_time(&profile);
    // A node per frame under each caller, as the target's reader builds them.
    let profile = match to.target.merges_siblings() {
        true => ops::merged_siblings(profile),
        false => profile,
    };
    let profile = to.target.fit(profile, to.options, diag);
    // Counts into time at the profile's own interval where it has one ([`crate::formats::Turning`]).
    let own = profile.meta.interval;
    if !timed && has_time(&profile) && (own.is_none() || own == to.options.interval) {
        to.interval_applied.set(true);
    }
    profile
}

/// Drops the header facts the target has no place for (named before), so that the profile is what
/// it holds.
fn drop_header_facts(meta: &mut crate::model::Meta, carries: &Carries) {
    (meta.title, meta.timestamp, meta.interval) = (
        meta.title.take().filter(|_| carries.title),
        meta.timestamp.take().filter(|_| carries.timestamp),
        meta.interval.take().filter(|_| carries.interval),
    );
}

/// Writes `profile` as `target`, the conversion step included: [`project`] onto what the format
/// carries (naming every loss in `diag`), then the format's writer ([`Format::write_fitted`]).
pub fn write(
    profile: Profile,
    target: Format,
    out: &mut dyn std::io::Write,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let projected = project(profile, target, options, diag)?;
    target.write_fitted(&projected, out, options, diag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ReadOptions;
    use crate::model::{FrameRef, Value, Values};

    fn read(format: Format, text: &str) -> Profile {
        format.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap()
    }

    /// The folded text of `profile` (one metric of whole counts).
    fn folded(profile: &Profile) -> String {
        let mut out = Vec::new();
        Format::Folded
            .write_fitted(profile, &mut out, &ConvertOptions::default(), &mut Diagnostics::default())
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn equal_stacks_are_made_one() {
        // Two roots `main` (as a Dyalog report of several roots can give) become one.
        let mut profile = read(Format::Folded, "main;a 1\nmain;b 2\n");
        let (main, c) =
            (profile.frames.intern(FrameRef::function("main")), profile.frames.intern(FrameRef::function("c")));
        let root = profile.tree.push(None, main);
        let leaf = profile.tree.push(Some(root), c);
        profile.tree.set_self(0, leaf, Value::Int(4));
        assert!(profile.tree.has_duplicate_siblings(profile.frames.len()));
        let merged = ops::merged_siblings(profile);
        assert_eq!(folded(&merged), "main;a 1\nmain;b 2\nmain;c 4\n");
    }

    #[test]
    fn line_frames_merge_into_their_functions_for_a_target_without_lines() {
        let dyalog = read(Format::DyalogXml, include_str!("../../fixtures/dyalog-xml/several-roots.xml"));
        assert!(dyalog.frames.iter().any(|(_, f)| f.kind == FrameKind::Line));
        let mut diag = Diagnostics::default();
        let options = ConvertOptions::default();
        let fitted = fit_lines(dyalog.clone(), &Conversion::new(Format::Folded, &options), &mut diag);
        assert!(fitted.frames.iter().all(|(_, f)| f.kind != FrameKind::Line));
        assert!(diag.has("lines-merged"));
        let total = |p: &Profile| p.total(p.metric_index("time").unwrap()).as_f64();
        assert!((total(&fitted) - total(&dyalog)).abs() < 1e-9);
    }

    #[test]
    fn samples_become_time_at_the_interval_for_a_target_of_time() {
        let mut profile = read(Format::Folded, "main;a 3\n");
        let options = ConvertOptions::new(Some(std::time::Duration::from_millis(5)));
        let mut diag = Diagnostics::default();
        fit_time_and_counts(&mut profile, &Conversion::new(Format::DyalogXml, &options), &mut diag);
        assert_eq!((profile.metrics()[0].kind, profile.total(0)), (MetricKind::Time, Value::Float(15.0)));
    }

    #[test]
    fn one_metric_is_kept_and_the_others_named() {
        let mut px = read(Format::GhcPx, include_str!("../../fixtures/ghc-px/notes-example.px"));
        let mut diag = Diagnostics::default();
        let options = ConvertOptions::default();
        let chosen = keep_one_metric(&mut px, &Conversion::new(Format::Folded, &options), &mut diag).unwrap();
        assert_eq!(chosen, 0);
        let names: Vec<&str> = px.metrics().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["ticks"]);
        assert!(diag.has("metric-dropped"));
    }

    #[test]
    fn per_function_counts_and_header_facts_go_where_the_target_has_none() {
        let mut tree = read(Format::Lispworks, include_str!("../../fixtures/lispworks/processes.tree"));
        assert!(!tree.function_facts.is_empty() && tree.meta.title.is_some());
        let (options, mut diag) = (ConvertOptions::default(), Diagnostics::default());
        let to = Conversion::new(Format::Folded, &options);
        drop_function_facts(&mut tree, &to, &mut diag);
        drop_header_facts(&mut tree.meta, &to.carries);
        assert!(tree.function_facts.is_empty() && tree.meta.title.is_none() && diag.has("facts-dropped"));
    }

    #[test]
    fn whole_samples_keep_the_total() {
        let ms = Values::Float(vec![0.4, 0.4, 0.4, 1.7, 0.0]);
        let counts = whole_samples(&ms, 1.0);
        assert_eq!(counts.iter().sum::<i64>(), 3); // 2.9 rounds to 3
        assert_eq!(counts, vec![1, 0, 0, 2, 0]); // largest remainder first, ties by position
        let ns = Values::Int(vec![2_500_000, 500_000]);
        assert_eq!(whole_samples(&ns, 1_000_000.0), vec![3, 0]);
    }
}
