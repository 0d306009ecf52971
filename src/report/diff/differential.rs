//! The differential outputs of `diff --to`: what the field's tools read of a comparison.

use super::Matched;
use crate::convert::{self, ConvertOptions};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::Format;
use crate::model::{Metric, Profile};
use std::io::Write;

fn folded(
    mut profile: Profile,
    metric: usize,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<Vec<u8>, Error> {
    profile.meta.chosen_metric = Some(metric);
    let projected = convert::project(profile, Format::Folded, options, diag)?;
    let mut out = Vec::new();
    Format::Folded.write_fitted(&projected, &mut out, options, diag)?;
    Ok(out)
}

/// A differential output of `diff --to`: what the field's tools read of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumString, strum::VariantNames)]
#[strum(serialize_all = "lowercase")]
pub enum Differential {
    /// Two-count folded lines, `stack base new`, as `inferno-diff-folded` writes them.
    Folded,
    /// The differential flame graph inferno draws from them.
    Svg,
    /// NEW minus BASE as one pprof profile, as `go tool pprof -diff_base -proto` writes it.
    Pprof,
    /// proftool's page of both sides in one tree: NEW's widths, colours by change, the verdict.
    Html,
}

/// Writes the differential output `kind` of `matched` to `out`: `labels` name BASE and NEW in an
/// SVG's title and a page's heading; `negate` draws an SVG's widths from BASE; a page shows the
/// gate's `verdict`: whether a function crossed the limits, and each function as it judged it
/// ([`super::Comparison::judged`]). The output stops at `options`' output limit, as a
/// conversion's does.
pub fn write_differential(
    kind: Differential,
    matched: Matched,
    labels: (&str, &str),
    (options, negate): (&ConvertOptions, bool),
    verdict: (bool, &[super::Gated]),
    out: &mut dyn Write,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let mut limited = crate::formats::stacks::Limited::new(out, options.output_limit());
    let result = write_kind(kind, matched, labels, (options, negate), verdict, &mut limited, diag);
    let format = match kind {
        Differential::Folded => "folded",
        Differential::Svg => "svg",
        Differential::Pprof => "pprof",
        Differential::Html => "html",
    };
    limited.result(crate::error::FormatName(format), result, options)
}

/// [`write_differential`] without the limit.
fn write_kind(
    kind: Differential,
    matched: Matched,
    labels: (&str, &str),
    (options, negate): (&ConvertOptions, bool),
    (regression, judged): (bool, &[super::Gated]),
    out: &mut dyn Write,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let Matched { base, new, metrics, threads } = matched;
    let (base, new) = (threads.apply(base)?, threads.apply(new)?);
    match kind {
        Differential::Pprof => return differential_pprof(base, new, metrics, options, out, diag),
        Differential::Html => {
            let both = differential_tree(&base, &new, metrics, labels);
            let rows: Vec<_> = (judged.iter())
                .map(|g| crate::formats::html::DiffRow {
                    name: &g.name,
                    status: g.status,
                    shares: g.shares,
                    p: g.p,
                    outcome: g.outcome,
                })
                .collect();
            let page = crate::formats::html::DiffPage { base: 0, new: 1, labels, regression, rows: &rows };
            return crate::formats::html::write_diff_page(&both, &page, out);
        }
        Differential::Folded | Differential::Svg => {}
    }
    let lines = differential_folded(base, new, metrics, options, diag)?;
    match kind {
        Differential::Svg => {
            let title = format!("Differential Flame Graph: {} against {}", labels.1, labels.0);
            differential_svg(&lines, &title, negate, out)
        }
        _ => Ok(out.write_all(lines.as_bytes())?),
    }
}

/// `base` and `new` as one tree of frames named as the reports name them, each node's self value
/// of BASE (in NEW's unit) and of NEW: metrics `base` and `new` of NEW's kind, a path of either
/// side a path of the tree.
fn differential_tree(base: &Profile, new: &Profile, metrics: (usize, usize), labels: (&str, &str)) -> Profile {
    let metric = new.metrics()[metrics.1].clone();
    let to_new = base.metrics()[metrics.0].unit.factor_to(metric.unit).unwrap_or(1.0);
    let side = |name: &str| Metric { name: name.into(), repr: crate::model::Repr::Float, ..metric.clone() };
    let mut both = Profile::new(vec![side("base"), side("new")]);
    both.meta.title = Some(format!("{} against {}", labels.1, labels.0));
    let mut index = crate::model::ChildIndex::default();
    for (column, profile, metric, scale) in [(1, new, metrics.1, 1.0), (0, base, metrics.0, to_new)] {
        let tree = &profile.tree;
        // Each of the side's frames as a frame of both, named once.
        let ids: Vec<crate::model::FrameId> = profile
            .frames
            .iter()
            .map(|(frame, f)| both.frames.intern(crate::model::FrameRef::named(&profile.frame_name(frame), f.kind)))
            .collect();
        let mut at = vec![crate::model::NodeId(0); tree.len()];
        for node in tree.nodes() {
            let id = ids[tree.frame(node).index()];
            let parent = tree.parent(node).map(|p| at[p.index()]);
            let here = index.child_or_insert(&mut both.tree, parent, id);
            at[node.index()] = here;
            let value = tree.self_value(metric, node).as_f64() * scale;
            both.tree.add_self(column, here, crate::model::Value::Float(value));
        }
    }
    both.meta.chosen_metric = Some(1);
    both
}

/// The two-count folded lines of `base` and `new` compared by `metrics` (see [`shared_metric`]):
/// every stack of either with its count in each (`stack base new`), the lines `inferno-diff-folded`
/// writes from their folded stacks (computed by inferno itself), sorted so that the same profiles
/// always give the same text.
pub(super) fn differential_folded(
    base: Profile,
    new: Profile,
    metrics: (usize, usize),
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<String, Error> {
    let (before, after) = (folded(base, metrics.0, options, diag)?, folded(new, metrics.1, options, diag)?);
    let mut out = Vec::new();
    inferno::differential::from_readers(inferno::differential::Options::default(), &before[..], &after[..], &mut out)?;
    // Folded names are UTF-8, and so are inferno's lines made of them.
    let text = String::from_utf8_lossy(&out);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    Ok(lines.iter().map(|line| format!("{line}\n")).collect())
}

/// Writes NEW minus BASE, compared by `metrics` (see [`shared_metric`]), as one pprof profile whose
/// BASE samples are negated and labelled `pprof::base=true`, as `go tool pprof -diff_base -proto`
/// writes it: pprof's own tools then show the difference. BASE's values are put in NEW's unit.
pub(super) fn differential_pprof(
    base: Profile,
    new: Profile,
    metrics: (usize, usize),
    options: &ConvertOptions,
    out: &mut dyn Write,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let only = |mut one: Profile, metric: usize, diag: &mut Diagnostics| {
        let keep: Vec<bool> = (0..one.metrics().len()).map(|m| m == metric).collect();
        one.retain_metrics(&keep);
        convert::project(one, Format::Pprof, options, diag)
    };
    let (mut base, new) = (only(base, metrics.0, diag)?, only(new, metrics.1, diag)?);
    let (from, to) = (base.metrics()[0].clone(), new.metrics()[0].clone());
    let factor = from.unit.factor_to(to.unit).unwrap_or(1.0);
    let values = base.tree.self_values(0);
    let scaled = crate::model::Values::Int(
        (0..values.len()).map(|i| (values.get(i).as_f64() * factor).round() as i64).collect(),
    );
    base.replace_metric(0, crate::model::Metric { repr: crate::model::Repr::Int, ..to }, scaled);
    crate::formats::pprof::write_diff(&base, &new, out, options, diag)
}

/// Writes the differential flame graph of `lines` (from [`differential_folded`]) as inferno draws
/// it: widths from NEW, red where a stack grew, blue where it shrank. With `negate`, widths from
/// BASE, as `inferno-diff-folded` advises (the counts swapped, the hues switched back, so that red
/// still means grew).
pub(super) fn differential_svg(lines: &str, title: &str, negate: bool, out: &mut dyn Write) -> Result<(), Error> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.hash = true;
    options.negate_differentials = negate;
    // A name that ends in a number would read as a third count: its last space becomes a no-break space.
    let safe: Vec<String> = lines
        .lines()
        .filter_map(|line| {
            let (rest, after) = line.rsplit_once(' ')?;
            let (stack, before) = rest.rsplit_once(' ')?;
            let frames: Vec<String> =
                stack.split(';').map(|f| crate::formats::kit::count_names::one_count_name(f).into_owned()).collect();
            let (first, second) = if negate { (after, before) } else { (before, after) };
            Some(format!("{} {first} {second}", frames.join(";")))
        })
        .collect();
    let counted = |line: &&String| line.rsplit(' ').take(2).any(|count| count.parse::<f64>().is_ok_and(|c| c != 0.0));
    if !safe.iter().any(|line| counted(&line)) {
        // inferno draws nothing and fails: say why instead.
        return Err(Error::BadOption(
            "a differential flame graph is drawn from counts, and both profiles' are all 0".into(),
        ));
    }
    inferno::flamegraph::from_lines(&mut options, safe.iter().map(String::as_str), out)?;
    Ok(())
}
