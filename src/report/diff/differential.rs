//! The differential outputs of `diff --to FORMAT`: the sides matched and judged here, given to the
//! format's own writer of a comparison ([`crate::formats::spec::Differential`]) in the form it
//! asks for.

use super::Matched;
use crate::convert::{self, ConvertOptions};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName};
use crate::formats::spec::{Compared, Differential, Judged};
use crate::formats::Format;
use crate::model::{Metric, Profile, Repr, Values};
use std::io::Write;

/// Writes the comparison `matched` as `format` writes one (`diff --to FORMAT`): `labels` name BASE
/// and NEW in an SVG's title and a page's heading; `negate` draws an SVG's widths from BASE; a
/// page shows the gate's `verdict`: whether a function crossed the limits, and each function as
/// it judged it ([`super::Comparison::judged`]). The output stops at `options`' output limit, as a
/// conversion's does.
pub fn write_differential(
    format: Format,
    matched: Matched,
    labels: (&str, &str),
    (options, negate): (&ConvertOptions, bool),
    (regression, judged): (bool, &[super::Gated]),
    out: &mut dyn Write,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let differential = format.differential().ok_or_else(|| Error::BadOption(no_differential(format.name())))?;
    let Matched { base, new, metrics, threads } = matched;
    // Only thread frames hidden: no time range, so nothing is left out that a note would say.
    let (base, new) = (threads.apply(base)?.profile, threads.apply(new)?.profile);
    let judged: Vec<Judged> = (judged.iter())
        .map(|g| Judged { name: &g.name, status: g.status, shares: g.shares, p: g.p, outcome: g.outcome })
        .collect();
    let compared = Compared { labels, negate, regression, judged: &judged };
    let mut limited = crate::formats::stacks::Limited::new(out, options.output_limit());
    let result = match differential {
        Differential::TwoCountLines(write) => differential_folded(base, new, metrics, options, diag)
            .and_then(|lines| write(&lines, &compared, &mut limited)),
        Differential::Sides { projected, write } => {
            let target = projected.then_some(format);
            sides(base, new, metrics, target, options, diag)
                .and_then(|(base, new)| write((&base, &new), &compared, &mut limited, options, diag))
        }
    };
    limited.result(FormatName(format.name()), result, options)
}

/// The error for `--to NAME` where the format named writes no comparison: those that do.
pub fn no_differential(name: &str) -> String {
    format!("--to {name}: a differential output is one of {}", Format::differential_names())
}

/// BASE and NEW, each with the compared metric (`metrics`) alone, projected onto `target` where
/// one is given, BASE's values in NEW's unit.
fn sides(
    base: Profile,
    new: Profile,
    metrics: (usize, usize),
    target: Option<Format>,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<(Profile, Profile), Error> {
    let only = |mut one: Profile, metric: usize, diag: &mut Diagnostics| {
        let keep: Vec<bool> = (0..one.metrics().len()).map(|m| m == metric).collect();
        one.retain_metrics(&keep);
        match target {
            Some(target) => convert::project(one, target, options, diag),
            None => Ok(one),
        }
    };
    let (mut base, new) = (only(base, metrics.0, diag)?, only(new, metrics.1, diag)?);
    let to = new.metrics()[0].clone();
    let factor = base.metrics()[0].unit.factor_to(to.unit).unwrap_or(1.0);
    if factor != 1.0 {
        let values = base.tree.self_values(0);
        let scaled = Values::Float((0..values.len()).map(|i| values.get(i).as_f64() * factor).collect());
        base.replace_metric(0, Metric { repr: Repr::Float, ..to }, scaled);
    }
    Ok((base, new))
}

/// The folded stacks of `profile` weighed by `metric`.
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

/// The two-count folded lines of `base` and `new` compared by `metrics` (see [`shared_metric`](super::shared_metric)):
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
