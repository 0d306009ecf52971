//! The units text shows amounts in: per column, the unit in which the column's largest value is
//! at least 1 (`3.07 s`, `460 ms`, `8.0 MiB`), as `go tool pprof -top` scales its values, or the one
//! `--unit` names. CSV and JSON keep every number in the metric's own unit.

use crate::model::Unit;

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
pub fn amount_of(word: &str) -> Option<(Unit, f64)> {
    let word = if word == "µs" { "us" } else { word };
    let find = |scales: &[Scale]| scales.iter().find(|(w, _)| *w == word).map(|&(_, size)| size);
    find(&TIME).map(|size| (Unit::Nanoseconds, size)).or_else(|| find(&BYTES).map(|size| (Unit::Bytes, size)))
}

/// Every word `--unit` takes.
pub const WORDS: [&str; 9] = ["ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB"];

/// How a column of amounts in `unit` shows: divided by `divisor`, named `word`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// The unit's word (`ms`).
    pub word: &'static str,
    /// How many of the metric's unit make one of it.
    pub divisor: f64,
    /// Whether the values are shown in their own unit (then as the metric's digits say).
    pub own: bool,
}

/// The units of `unit`'s family and `unit`'s size in them; none for counts and words.
fn family(unit: Unit) -> Option<(&'static [Scale], f64)> {
    match unit {
        Unit::Bytes => Some((&BYTES, 1.0)),
        time => time.nanos().map(|nanos| (&TIME[..], nanos)),
    }
}

/// How amounts in `unit` whose largest magnitude is `largest` show: in the unit `wanted` names
/// where it is of the family, else in the largest unit in which `largest` is at least 1, never finer
/// than the metric's own (Dyalog's milliseconds stay `]PROFILE`'s; the metric's own for 0). `None`
/// for a unit that has no family (counts).
pub fn shown(unit: Unit, largest: f64, wanted: Option<&str>) -> Option<Shown> {
    let (scales, size) = family(unit)?;
    let in_smallest = largest.abs() * size;
    let own = scales.iter().find(|(_, s)| *s == size).copied().unwrap_or(("", size));
    let (word, scale) = match wanted.and_then(|w| scales.iter().find(|(word, _)| *word == w)) {
        Some(&named) => named,
        None if in_smallest == 0.0 || !in_smallest.is_finite() => own,
        None => scales.iter().rev().find(|(_, s)| in_smallest >= *s && *s >= size).copied().unwrap_or(own),
    };
    Some(Shown { word, divisor: scale / size, own: scale == size })
}

/// Whether text shows amounts in `unit` in a unit of its choosing (time, bytes; not counts).
pub fn scales(unit: Unit) -> bool {
    family(unit).is_some()
}

/// Whether `word` names a unit of `unit`'s family.
pub fn fits(unit: Unit, word: &str) -> bool {
    family(unit).is_some_and(|(scales, _)| scales.iter().any(|(w, _)| *w == word))
}

/// The decimals that show `largest` (already scaled) with three significant digits: `3.07`, `46.0`,
/// `460`.
pub fn decimals_for(largest: f64) -> usize {
    match largest.abs() {
        l if l < 10.0 => 2,
        l if l < 100.0 => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_value_picks_the_unit() {
        let word = |unit, largest| shown(unit, largest, None).map(|s| (s.word, s.divisor));
        assert_eq!(word(Unit::Nanoseconds, 3.07e9), Some(("s", 1e9)));
        assert_eq!(word(Unit::Nanoseconds, 4.6e8), Some(("ms", 1e6)));
        assert_eq!(word(Unit::Nanoseconds, 999.0), Some(("ns", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 68.4), Some(("ms", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 0.5), Some(("ms", 1.0)));
        assert_eq!(word(Unit::Milliseconds, 2500.0), Some(("s", 1e3)));
        assert_eq!(word(Unit::Bytes, 8.0 * 1024.0 * 1024.0), Some(("MiB", 1024.0 * 1024.0)));
        assert_eq!(word(Unit::Bytes, 0.0), Some(("B", 1.0)));
        assert_eq!(word(Unit::Count, 5.0), None);
        assert_eq!(shown(Unit::Nanoseconds, 3.07e9, Some("ms")).map(|s| s.word), Some("ms"));
        assert!(!fits(Unit::Nanoseconds, "MiB") && fits(Unit::Bytes, "KiB"));
        assert_eq!([decimals_for(3.07), decimals_for(46.0), decimals_for(460.0)], [2, 1, 0]);
    }
}
