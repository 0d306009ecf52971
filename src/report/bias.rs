//! `--bias N`: Dyalog's times recomputed with another timer bias, as `]PROFILE -bias=` does.
//!
//! `]PROFILE` takes the cost of reading the clock (the TimerBias, in ms) off every time it reports,
//! once per clock inspection: adjusted = raw − ticks × bias (seed 002: `#.ch.CH∆Q` 23.032 ms with
//! the bias, 23.820 with `-bias=0`, 4043 inspections × 0.000195 = 0.788 ms). The report keeps the
//! bias it was adjusted with (`TimerBias`) and the inspections (`timer-ticks`), so every time can be
//! adjusted again: new = adjusted + ticks × (TimerBias − N), self values by their own inspections,
//! measured inclusive values by their inclusive ones.

use crate::error::Error;
use crate::model::{MetricKind, Profile, Value};

/// Recomputes the times of `profile` with the timer bias `bias` (in milliseconds).
pub fn apply_bias(profile: &mut Profile, bias: f64) -> Result<(), Error> {
    let refuse = |why: &str| Err(Error::BadOption(format!("--bias {bias}: {why}")));
    let metrics = profile.metrics();
    let Some(ticks) = metrics.iter().position(|m| m.kind == MetricKind::Inspections) else {
        return refuse("the profile has no timer inspections (Dyalog's ExclusiveTicks and InclusiveTicks)");
    };
    let Some((time, per_ms)) = (metrics.iter().enumerate())
        .find_map(|(i, m)| Some((i, 1e6 / m.unit.nanos()?)).filter(|_| m.kind == MetricKind::Time))
    else {
        return refuse("the profile has no time to adjust");
    };
    let recorded =
        profile.meta.attrs.iter().find(|(key, _)| key.ends_with(".TimerBias")).map(|(_, v)| v.parse::<f64>());
    let Some(Ok(recorded)) = recorded else {
        return refuse("the profile does not say the TimerBias its times were adjusted with");
    };
    // Time per inspection to add back, in the time metric's unit.
    let per_tick = (recorded - bias) * per_ms;
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

/// Puts back the timer bias `profile`'s times were adjusted with, where it says it and has the timer
/// inspections (a Dyalog report): its times as measured, as `]PROFILE data` shows them. A profile
/// without them is left as it is: [`apply_bias`] refuses before it changes anything.
pub fn remove_bias(profile: &mut Profile) {
    // Nothing to put back is no error here: the profile's times are then as measured.
    let _ = apply_bias(profile, 0.0);
}
