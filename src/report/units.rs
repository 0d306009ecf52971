//! The units text shows amounts in: per quantity (a metric's values, in every column of them), the
//! unit in which its largest value is at least 1 (`3.07 s`, `460 ms`, `8.0 MiB`), as `go tool pprof
//! -top` scales its values, or the one `--unit` names. Samples and ticks are counts, shown as time
//! only where `--unit` names a unit of time and the profile states their interval; nothing else
//! turns into time, and a unit that does not fit is refused (`refusal`). CSV and JSON keep every
//! number in the metric's own unit.

use crate::model::{Profile, Unit};
use std::time::Duration;

/// A unit amounts of one family are shown in: its word, and its size in the family's smallest unit.
type Scale = (&'static str, f64);

/// Time, sized in nanoseconds (pprof's units but hours, which a report never needs).
const TIME: [Scale; 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// Bytes, binary as pprof's are.
const BYTES: [Scale; 5] = [
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1024.0 * 1024.0),
    ("GiB", 1024.0 * 1024.0 * 1024.0),
    ("TiB", 1024.0 * 1024.0 * 1024.0 * 1024.0),
];

/// The unit `word` names as an amount: time in nanoseconds or bytes, and how many of those it is
/// (`ms`: 10^6 ns; `µs` as `us`); `None` for a word of no unit here.
pub(crate) fn amount_of(word: &str) -> Option<(Unit, f64)> {
    let word = if word == "µs" { "us" } else { word };
    let find = |scales: &[Scale]| scales.iter().find(|(w, _)| *w == word).map(|&(_, size)| size);
    find(&TIME).map(|size| (Unit::Nanoseconds, size)).or_else(|| find(&BYTES).map(|size| (Unit::Bytes, size)))
}

/// Every word `--unit` takes.
pub const WORDS: [&str; 9] = ["ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB"];

/// What the numbers of a column of amounts (or of a report's total) are.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Their unit.
    pub unit: Unit,
    /// What they are of (the metric's name; `cpu/call` for `--avg`): text shows every column of
    /// one quantity in one unit, picked by the largest of them all.
    pub name: String,
    /// The word a count is named by where it shows as a count (the metric's name: `samples`).
    pub label: String,
    /// Whether they are samples or ticks, which turn into time at the profile's interval.
    pub ticks: bool,
    /// The profile's interval in nanoseconds, where it states one: a time unit `--unit` names shows
    /// samples and ticks as time at it (23 ticks of 1 ms as 23 ms). Nothing else turns into time.
    pub interval_nanos: Option<f64>,
}

/// How a column of amounts shows: divided by `divisor`, named `word`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// The unit's word (`ms`).
    pub word: &'static str,
    /// How many of the quantity's unit make one of it.
    pub divisor: f64,
    /// Whether the values are shown in their own unit (then as the metric's digits say).
    pub own: bool,
}

/// The units of `quantity`'s family and the size of its unit in them: time and bytes; samples or
/// ticks of a known interval as time where `wanted` names a unit of time; none for other counts.
fn family(quantity: &Quantity, wanted: Option<&str>) -> Option<(&'static [Scale], f64)> {
    match quantity.unit {
        Unit::Bytes => Some((&BYTES, 1.0)),
        Unit::Count if quantity.ticks && wanted.is_some_and(|w| find(&TIME, w).is_some()) => {
            quantity.interval_nanos.map(|nanos| (&TIME[..], nanos))
        }
        Unit::Count => None,
        time => time.nanos().map(|nanos| (&TIME[..], nanos)),
    }
}

/// The unit of `scales` named `word`.
fn find(scales: &[Scale], word: &str) -> Option<Scale> {
    scales.iter().find(|(w, _)| *w == word).copied()
}

/// How amounts of `quantity` whose largest magnitude is `largest` show: in the unit `wanted` names
/// where it is of the family, else in the largest unit in which `largest` is at least 1, never finer
/// than the metric's own (Dyalog's milliseconds stay `]PROFILE`'s; the metric's own for 0). `None`
/// for a quantity shown as a count.
pub fn shown(quantity: &Quantity, largest: f64, wanted: Option<&str>) -> Option<Shown> {
    let (scales, size) = family(quantity, wanted)?;
    let in_smallest = largest.abs() * size;
    let own = scales.iter().find(|(_, s)| *s == size).copied().unwrap_or(("", size));
    let (word, scale) = match wanted.and_then(|w| find(scales, w)) {
        Some(named) => named,
        None if in_smallest == 0.0 || !in_smallest.is_finite() => own,
        None => scales.iter().rev().find(|(_, s)| in_smallest >= *s && *s >= size).copied().unwrap_or(own),
    };
    Some(Shown { word, divisor: scale / size, own: scale == size })
}

/// Gives `profile` the interval `given` (`--interval`) where it states none, so that its samples or
/// ticks can show as time; where it states another, its own stands (counts are at the interval they
/// were taken at, as a conversion keeps them) and the note returned says so.
pub(crate) fn interval_of_counts(profile: &mut Profile, given: Option<Duration>) -> Option<String> {
    let given = given?;
    match profile.meta.interval {
        None => {
            profile.meta.interval = Some(given);
            None
        }
        Some(own) if own != given => Some(format!(
            "the profile states its interval, {own:?}: its samples or ticks were taken at it and show as time at it, not at --interval {given:?}"
        )),
        Some(_) => None,
    }
}

/// Why `--unit word` cannot show `quantity`, if it cannot: a unit of another family, or samples or
/// ticks whose interval the profile does not state.
pub(crate) fn refusal(quantity: &Quantity, word: &str) -> Option<String> {
    let fits = family(quantity, Some(word)).is_some_and(|(scales, _)| find(scales, word).is_some());
    if fits {
        return None;
    }
    let name = &quantity.name;
    let is_time = find(&TIME, word).is_some();
    Some(match quantity.unit {
        Unit::Count if is_time && quantity.ticks => format!(
            "--unit {word}: the profile does not state its interval, so its {name} do not turn into time (give it with --interval; without --unit they show as {name})"
        ),
        Unit::Count => format!("--unit {word}: {name} is a count, shown as one: it has no unit to show it in"),
        Unit::Bytes => format!("--unit {word}: {name} is in bytes: give B, KiB, MiB, GiB or TiB"),
        _ => format!("--unit {word}: {name} is time: give ns, us, ms or s"),
    })
}
/// The decimals that show `largest` (already scaled) with three significant digits: `3.07`, `46.0`,
/// `460`.
pub(crate) fn decimals_for(largest: f64) -> usize {
    match largest.abs() {
        l if l < 10.0 => 2,
        l if l < 100.0 => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quantity of `unit`, neither samples nor ticks.
    fn of(unit: Unit) -> Quantity {
        Quantity { unit, name: "m".into(), label: "m".into(), ticks: false, interval_nanos: None }
    }

    #[test]
    fn the_largest_value_picks_the_unit() {
        let word = |unit, largest| shown(&of(unit), largest, None).map(|s| (s.word, s.divisor));
        assert_eq!(word(Unit::Nanoseconds, 3.07e9), Some(("s", 1e9)));
        assert_eq!(word(Unit::Nanoseconds, 4.6e8), Some(("ms", 1e6)));
        assert_eq!(word(Unit::Nanoseconds, 999.0), Some(("ns", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 68.4), Some(("ms", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 0.5), Some(("ms", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 2500.0), Some(("s", 1e3)));
        assert_eq!(word(Unit::Bytes, 8.0 * 1024.0 * 1024.0), Some(("MiB", 1024.0 * 1024.0)));
        assert_eq!(word(Unit::Bytes, 0.0), Some(("B", 1.0)));
        assert_eq!(word(Unit::Count, 5.0), None);
        assert_eq!(shown(&of(Unit::Nanoseconds), 3.07e9, Some("ms")).map(|s| s.word), Some("ms"));
        assert!(refusal(&of(Unit::Nanoseconds), "MiB").is_some() && refusal(&of(Unit::Bytes), "KiB").is_none());
        assert_eq!([decimals_for(3.07), decimals_for(46.0), decimals_for(460.0)], [2, 1, 0]);
    }

    /// Ticks of 20 ms (by hand: 23 of them are 460 ms) show as time only where `--unit` asks for
    /// time, and only where the interval is known; other counts never do.
    #[test]
    fn ticks_turn_into_time_at_a_known_interval_only() {
        let ticks = Quantity { ticks: true, interval_nanos: Some(2e7), ..of(Unit::Count) };
        assert_eq!(shown(&ticks, 23.0, None), None);
        let in_ms = shown(&ticks, 23.0, Some("ms")).unwrap();
        assert_eq!((in_ms.word, 23.0 / in_ms.divisor, in_ms.own), ("ms", 460.0, false));
        assert!(refusal(&ticks, "ms").is_none() && refusal(&ticks, "KiB").is_some());
        let unknown = Quantity { interval_nanos: None, ..ticks.clone() };
        assert_eq!(shown(&unknown, 23.0, Some("ms")), None);
        assert!(refusal(&unknown, "ms").unwrap().contains("does not state its interval"));
        let objects = Quantity { interval_nanos: Some(2e7), ..of(Unit::Count) };
        assert_eq!(shown(&objects, 23.0, Some("ms")), None);
        assert!(refusal(&objects, "ms").is_some());
    }
}
