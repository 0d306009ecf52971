//! What several format modules share: the name a frame is written with, the words of units, unique
//! metric names, and which metric a profile is weighed by.

use crate::model::{Profile, Unit};
use std::borrow::Cow;

/// The name a frame is written with in a format that names every frame (pprof, speedscope): its own,
/// or for a line of no named function (a BR main routine's) its place, `orders.br:100.0`.
pub(crate) fn written_name(frame: &crate::model::Frame) -> Cow<'_, str> {
    match frame.is_anonymous_line() {
        true => Cow::Owned(frame.to_string()),
        false => Cow::Borrowed(&frame.name),
    }
}

/// Says that `profile` is weighed by its metric `metric` (pprof's default sample type, speedscope's
/// profile shown first), where the usual preference ([`Profile::primary_metric`]) would not pick it.
pub(crate) fn weigh_by(profile: &mut Profile, metric: usize) {
    if profile.primary_metric() != Some(metric) {
        profile.meta.weighed_by = profile.metrics().get(metric).map(|m| m.kind);
    }
}

/// A time unit as pprof and speedscope name it (`nanoseconds` … `seconds`): the model's unit, and
/// what a value is multiplied by to be in it (seconds are read as milliseconds, as the model has no
/// unit of seconds).
pub(crate) fn time_unit(name: &str) -> Option<(Unit, i64)> {
    match name {
        "nanoseconds" => Some((Unit::Nanoseconds, 1)),
        "microseconds" => Some((Unit::Microseconds, 1)),
        "milliseconds" => Some((Unit::Milliseconds, 1)),
        "seconds" => Some((Unit::Milliseconds, 1000)),
        _ => None,
    }
}

/// The word pprof and speedscope write for a unit of time or size (what [`time_unit`] reads back),
/// or `None` for a count, which each of them names its own way.
pub(crate) fn unit_word(unit: Unit) -> Option<&'static str> {
    match unit {
        Unit::Nanoseconds => Some("nanoseconds"),
        Unit::Microseconds => Some("microseconds"),
        Unit::Milliseconds => Some("milliseconds"),
        Unit::Bytes => Some("bytes"),
        Unit::Count | Unit::Words => None,
    }
}

/// `name`, or `name (2)`, `name (3)`, … where `taken` says a metric has it already: metric names
/// are unique in a profile.
pub(crate) fn unique_name(name: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&name) {
        return name;
    }
    (2..).map(|n| format!("{name} ({n})")).find(|c| !taken(c)).unwrap_or(name)
}
