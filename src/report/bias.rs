//! `--bias N`: Dyalog's times recomputed with another timer bias, as `]PROFILE -bias=` does.
//!
//! `]PROFILE` takes the cost of reading the clock (the TimerBias, in ms) off every time it reports,
//! once per clock inspection: adjusted = raw − ticks × bias (the `]PROFILE` guide, docs/sources.md:
//! `#.ch.CH∆Q` 23.032 ms with the bias, 23.820 with `-bias=0`, 4043 inspections × 0.000195 = 0.788
//! ms). A report keeps the bias of its run (`TimerBias`) and the inspections (`timer-ticks`), so
//! every time can be adjusted again: new = held + ticks × (B − N), where B is the bias the times
//! held are adjusted with, self values by their own inspections, measured inclusive values by their
//! inclusive ones.
//!
//! B is what the report's `Command` says its numbers are: a tree or summary report's are adjusted
//! with its TimerBias, a data report's are raw (the `]PROFILE` guide, docs/sources.md: `data` is
//! "without bias adjustment"; Appendix B: `#.Rain` 71.67758248 = 68.40049488 + 16810 ×
//! 0.000194948697), so B = 0. A CSV tree or summary states no TimerBias: B is unknown there.

use crate::error::Error;
use crate::model::{MetricKind, Profile, Value};

/// The timer bias a profile's times are to be shown with, as a report asks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Times {
    /// As `]PROFILE`'s reports show them: adjusted with the run's TimerBias.
    Adjusted,
    /// As measured, no bias taken off (`data`).
    Measured,
    /// Adjusted with this bias instead (`--bias N`).
    Bias(f64),
    /// `data --bias N`: as `Bias`, but where the report does not say the bias its times are
    /// adjusted with (a CSV tree), N is that bias, put back to show them as measured.
    MeasuredBias(f64),
}

/// The bias the times of `profile` are adjusted with (B above), where it is known.
fn adjusted_with(profile: &Profile) -> Option<f64> {
    if profile.meta.report.times_as_measured() {
        return Some(0.0);
    }
    run_bias(profile)
}

/// The TimerBias of the run that `profile` reports, where it says it (the timer's cost,
/// [`crate::model::ReportFacts::timer_cost`]).
fn run_bias(profile: &Profile) -> Option<f64> {
    profile.meta.report.timer_cost
}

/// Whether `profile` is a profiler's own report ([`crate::model::ReportFacts::kind`]).
fn is_report(profile: &Profile) -> bool {
    profile.meta.report.kind.is_some()
}

/// Recomputes the times of `profile` with the timer bias `bias` (in milliseconds).
pub(crate) fn apply_bias(profile: &mut Profile, bias: f64) -> Result<(), Error> {
    let refuse = |why: String| Error::BadOption(format!("--bias {bias}: {why}"));
    columns(profile).map_err(refuse)?;
    let held = adjusted_with(profile)
        .ok_or_else(|| refuse("the profile does not say the TimerBias its times were adjusted with".into()))?;
    rebias(profile, held, bias).map_err(refuse)
}

/// For a profile written in a format other than Dyalog's: a data report's times, as measured, with
/// the run's TimerBias taken off, so that the file written holds the times every report shows;
/// what was done, or why it could not be, in a sentence.
pub fn take_off_timer_bias(profile: &mut Profile) -> Result<Option<String>, Error> {
    let has_ticks = profile.metrics().iter().any(|m| m.kind == MetricKind::Inspections);
    if !(has_ticks && profile.meta.report.times_as_measured()) {
        return Ok(None);
    }
    Ok(Some(match run_bias(profile) {
        Some(bias) => {
            rebias(profile, 0.0, bias).map_err(Error::BadOption)?;
            format!(
                "the source is a ]PROFILE data report, whose times are as measured: they are written with its TimerBias ({bias} ms a timer inspection) taken off, as every report shows them"
            )
        }
        None => "the source is a ]PROFILE data report, whose times are as measured, and it does not say its \
                 TimerBias: they are written as measured, not bias-adjusted"
            .to_string(),
    }))
}

/// Shows the times of `profile` as `times` asks, where it can: `Ok(Some(note))` says why it could
/// not and what the times shown then are.
pub(super) fn show_times(profile: &mut Profile, times: Times) -> Result<Option<String>, Error> {
    let held = adjusted_with(profile);
    let has_ticks = profile.metrics().iter().any(|m| m.kind == MetricKind::Inspections);
    match (times, held) {
        (Times::MeasuredBias(bias), None) if has_ticks && is_report(profile) => {
            rebias(profile, bias, 0.0).map_err(|why| Error::BadOption(format!("--bias {bias}: {why}")))?;
            Ok(None)
        }
        (Times::Bias(bias) | Times::MeasuredBias(bias), _) => apply_bias(profile, bias).map(|()| None),
        (Times::Measured, None) if has_ticks && is_report(profile) => Ok(Some(
            "the report does not say the TimerBias its times were adjusted with (a CSV report has no settings): \
             its times are shown bias-adjusted, not as measured; give the run's TimerBias (]PROFILE state's \
             timer cost) with --bias MS to put it back"
                .into(),
        )),
        (Times::Measured, Some(held)) => {
            // Without timer inspections there is nothing to put back: the times are as measured.
            let _ = rebias(profile, held, 0.0);
            Ok(None)
        }
        (Times::Adjusted, _) if has_ticks && profile.meta.report.times_as_measured() => match run_bias(profile) {
            Some(bias) => rebias(profile, 0.0, bias).map(|()| None).map_err(Error::BadOption),
            None => Ok(Some(
                "a data report holds times as measured and this one does not say its TimerBias (a CSV report \
                 has no settings): they are shown without bias adjustment; give the run's TimerBias with --bias MS \
                 to take it off"
                    .into(),
            )),
        },
        _ => Ok(None),
    }
}

/// Recomputes the times of `profile`, adjusted with the bias `held`, with the bias `bias`; an
/// error says what the profile lacks.
fn rebias(profile: &mut Profile, held: f64, bias: f64) -> Result<(), String> {
    let (ticks, time, per_ms) = columns(profile)?;
    // Time per inspection to add back, in the time metric's unit.
    let per_tick = (held - bias) * per_ms;
    let tree = &mut profile.tree;
    for node in tree.nodes() {
        let adjusted = tree.self_value(time, node).as_f64() + tree.self_value(ticks, node).as_f64() * per_tick;
        tree.set_self(time, node, Value::Float(adjusted));
    }
    if let Some(measured) = tree.measured_inclusive(time).cloned() {
        let inclusive_ticks = match tree.measured_inclusive(ticks) {
            Some(counted) => counted.clone(),
            None => tree.derived_inclusive(ticks),
        };
        for node in tree.nodes() {
            let i = node.index();
            let adjusted = measured.get(i).as_f64() + inclusive_ticks.get(i).as_f64() * per_tick;
            tree.set_measured_inclusive(time, node, Value::Float(adjusted));
        }
    }
    Ok(())
}

/// The timer inspections and the time metric of `profile`, and how many of the time's units make a
/// millisecond; an error says which it lacks.
fn columns(profile: &Profile) -> Result<(usize, usize, f64), String> {
    let metrics = profile.metrics();
    let Some(ticks) = metrics.iter().position(|m| m.kind == MetricKind::Inspections) else {
        return Err("the profile has no timer inspections (Dyalog's ExclusiveTicks and InclusiveTicks)".into());
    };
    let Some((time, per_ms)) = (metrics.iter().enumerate())
        .find_map(|(i, m)| Some((i, 1e6 / m.unit.nanos()?)).filter(|_| m.kind == MetricKind::Time))
    else {
        return Err("the profile has no time to adjust".into());
    };
    Ok((ticks, time, per_ms))
}
