//! Comparing two profiles (`proftool diff BASE NEW`): which metric they are compared by, and the
//! differential outputs the field's tools read: two-count folded lines (`stack base new`, as
//! `inferno-diff-folded` writes them) and the differential flame graph inferno draws from them.

use crate::convert::{self, ConvertOptions};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::Format;
use crate::model::{MetricKind, Profile};
use std::io::Write;

/// The metric kinds two profiles are compared by, in the order they are preferred when none is named:
/// what a profile measures first (samples, time, ticks), then allocation, then calls.
const KINDS: [MetricKind; 5] =
    [MetricKind::Samples, MetricKind::Time, MetricKind::Ticks, MetricKind::Alloc, MetricKind::Calls];

/// The metric each of `base` and `new` is compared by (their indices): the one named `requested` in
/// both, else the first kind both have (each profile's own first metric of it). An error names what
/// each has when they share nothing.
pub fn shared_metric(base: &Profile, new: &Profile, requested: Option<&str>) -> Result<(usize, usize), Error> {
    let names = |p: &Profile| p.metrics().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ");
    if let Some(name) = requested {
        return match (base.metric_index(name), new.metric_index(name)) {
            (Some(b), Some(n)) if base.metrics()[b].kind == new.metrics()[n].kind => Ok((b, n)),
            _ => Err(Error::BadOption(format!(
                "--metric {name}: both profiles must have it, of one kind (BASE has: {}; NEW has: {})",
                names(base),
                names(new)
            ))),
        };
    }
    let first_of = |p: &Profile, kind| p.metrics().iter().position(|m| m.kind == kind);
    KINDS.iter().find_map(|&kind| Some((first_of(base, kind)?, first_of(new, kind)?))).ok_or_else(|| {
        Error::BadOption(format!(
            "the two profiles share no kind of metric to compare (BASE has: {}; NEW has: {})",
            names(base),
            names(new)
        ))
    })
}

/// `profile`'s folded stacks of its metric `metric`.
fn folded(
    profile: &Profile,
    metric: usize,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<Vec<u8>, Error> {
    let options = ConvertOptions { metric: Some(profile.metrics()[metric].name.clone()), ..options.clone() };
    let projected = convert::project(profile.clone(), Format::Folded, &options, diag)?;
    let mut out = Vec::new();
    Format::Folded.write_fitted(&projected, &mut out, &options, diag)?;
    Ok(out)
}

/// The two-count folded lines of `base` and `new` compared by `metrics` (see [`shared_metric`]):
/// every stack of either with its count in each (`stack base new`), the lines `inferno-diff-folded`
/// writes from their folded stacks (computed by inferno itself), sorted so that the same profiles
/// always give the same text.
pub fn differential_folded(
    base: &Profile,
    new: &Profile,
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

/// Writes the differential flame graph of `lines` (from [`differential_folded`]) as inferno draws
/// it: widths from NEW (from BASE with `negate`), red where a stack grew, blue where it shrank.
pub fn differential_svg(lines: &str, title: &str, negate: bool, out: &mut dyn Write) -> Result<(), Error> {
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
                stack.split(';').map(|f| crate::formats::svg::one_count_name(f).into_owned()).collect();
            Some(format!("{} {before} {after}", frames.join(";")))
        })
        .collect();
    inferno::flamegraph::from_lines(&mut options, safe.iter().map(String::as_str), out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ReadOptions;

    fn read(format: Format, text: &str) -> Profile {
        format.read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap()
    }

    #[test]
    fn the_two_count_lines_are_inferno_diff_folded_s() {
        let base = read(Format::Folded, include_str!("../fixtures/cli/diff-base.folded"));
        let new = read(Format::Folded, include_str!("../fixtures/cli/diff-new.folded"));
        let metrics = shared_metric(&base, &new, None).unwrap();
        let lines = differential_folded(&base, &new, metrics, &ConvertOptions::default(), &mut Diagnostics::default());
        assert_eq!(lines.unwrap(), include_str!("../fixtures/cli/diff.inferno-diff-folded"));
    }

    #[test]
    fn profiles_are_compared_by_a_kind_both_have() {
        let folded = read(Format::Folded, "a 1\n");
        let px = read(Format::GhcPx, include_str!("../fixtures/ghc-px/notes-example.px"));
        let err = shared_metric(&folded, &px, None).unwrap_err().to_string();
        assert!(err.starts_with("the two profiles share no kind of metric to compare (BASE has: samples"), "{err}");
        let dyalog = read(Format::DyalogXml, include_str!("../fixtures/dyalog-xml/v1.37-tree.xml"));
        // A Dyalog report (calls, time) and a BR timed file (samples, time) meet on time.
        let timed = Format::Br
            .read(
                &mut &include_bytes!("../fixtures/br/timed.br")[..],
                &ReadOptions::default(),
                &mut Diagnostics::default(),
            )
            .unwrap();
        let (d, b) = shared_metric(&dyalog, &timed, None).unwrap();
        assert_eq!((dyalog.metrics()[d].kind, timed.metrics()[b].kind), (MetricKind::Time, MetricKind::Time));
        assert!(shared_metric(&dyalog, &timed, Some("samples")).is_err());
    }
}
