//! Numbers as text shows them (whole, with `--decimal` decimals, signed), formatted without the
//! float formatter where that is sure to give the same text: a report of a million rows formats
//! several million numbers. And numbers as JSON has them.

use super::Digits;
use serde_json::Value as Json;
use std::fmt::Write;

/// A number for people: whole, or with `decimals` decimals.
pub fn number(v: f64, digits: Digits, decimals: usize) -> String {
    let mut text = String::new();
    number_into(&mut text, v, digits, decimals);
    text
}

/// Appends [`number`] to `buffer`; a whole number that fits an i64 exactly through `itoa`, which is
/// many times faster than formatting the float.
pub(super) fn number_into(buffer: &mut String, v: f64, digits: Digits, decimals: usize) {
    match digits {
        Digits::Whole if is_whole(v) => buffer.push_str(itoa::Buffer::new().format(v as i64)),
        Digits::Whole => {
            let _ = write!(buffer, "{v:.0}");
        }
        Digits::Signed => {
            let rounded_to_zero = (v.abs() * 10f64.powi(decimals as i32)).round() == 0.0;
            if !rounded_to_zero {
                buffer.push(if v > 0.0 { '+' } else { '-' });
            }
            number_into(buffer, if rounded_to_zero { 0.0 } else { v.abs() }, Digits::Decimals, decimals);
        }
        Digits::Places(places) => number_into(buffer, v, Digits::Decimals, places.into()),
        Digits::SignedPlaces(places) => number_into(buffer, v, Digits::Signed, places.into()),
        Digits::Decimals => match fixed_point(v, decimals) {
            Some(scaled) => {
                // The digits of the scaled value, the point put in before the last `decimals`.
                let mut digits = itoa::Buffer::new();
                let digits = digits.format(scaled);
                let zeros = (decimals + 1).saturating_sub(digits.len());
                let (units, fraction) = match zeros {
                    0 => digits.split_at(digits.len() - decimals),
                    _ => ("0", digits),
                };
                buffer.push_str(units);
                buffer.push('.');
                buffer.extend(std::iter::repeat_n('0', zeros.saturating_sub(1)));
                buffer.push_str(fraction);
            }
            None => {
                let _ = write!(buffer, "{v:.decimals$}");
            }
        },
    }
}

/// The width [`number_into`] gives `v`, where its fast paths format it (else `None`).
pub(super) fn number_width(v: f64, digits: Digits, decimals: usize) -> Option<usize> {
    match digits {
        Digits::Whole if is_whole(v) => Some(usize::from((v as i64) < 0) + decimal_digits((v as i64).unsigned_abs())),
        Digits::Decimals => fixed_point(v, decimals).map(|scaled| decimal_digits(scaled).max(decimals + 1) + 1),
        Digits::Places(places) => number_width(v, Digits::Decimals, places.into()),
        _ => None,
    }
}

/// The number of decimal digits of `n`.
pub fn decimal_digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Whether `v` is a whole number an i64 holds exactly (compared through the cast, as `fract` is a
/// call into libm on most targets).
fn is_whole(v: f64) -> bool {
    v.abs() < 9e15 && (v as i64) as f64 == v
}

/// `v` rounded to `decimals` decimals, times 10^`decimals`, where that is sure to be the rounding
/// `format!("{v:.N}")` does: a positive `v` below 1e9 whose scaled value is not within 1e-6 of a tie
/// (elsewhere the float's exact digits decide, and `format!` is left to do it).
fn fixed_point(v: f64, decimals: usize) -> Option<u64> {
    const POWERS: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];
    let scale = *POWERS.get(decimals).filter(|_| decimals > 0)?;
    if !(0.0..1e9).contains(&v) {
        return None;
    }
    // Below 1e15, so the cast is the floor, and the fraction is exact.
    let scaled = v * scale;
    let whole = scaled as u64;
    let fraction = scaled - whole as f64;
    if (fraction - 0.5).abs() <= 1e-6 {
        return None;
    }
    Some(whole + u64::from(fraction > 0.5))
}

/// A number as CSV and JSON write it: to 15 significant digits, so that a sum of decimal amounts
/// (a GHC `-p` report's 15.7 % of 51 ms and its other rows, added up) is the number meant (51), not
/// what floating-point addition leaves of it (51.000000000000014).
pub fn written(v: f64) -> f64 {
    crate::model::ops::shortened(v)
}

/// A whole number as a JSON integer, any other as a float, each [`written`].
pub fn whole_or_float(v: f64) -> Json {
    let v = written(v);
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Json::from(v as i64)
    } else {
        Json::from(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_signed_shares_are_not() {
        let mut text = String::new();
        for v in [2.54, -0.31, 0.0, -0.04, 0.04] {
            number_into(&mut text, v, Digits::Signed, 1);
            text.push(' ');
        }
        assert_eq!(text, "+2.5 -0.3 0.0 0.0 0.0 ");
    }

    #[test]
    fn decimals_round_as_format_does() {
        for v in [0.0, 0.05, 0.25, 1.15, 2.675, 33.672, 99.95, 99.96, 100.0, 68.40049487792044, 1e-9, 123456.789] {
            for decimals in 0..=7 {
                let mut fast = String::new();
                number_into(&mut fast, v, Digits::Decimals, decimals);
                assert_eq!(fast, format!("{v:.decimals$}"), "{v} to {decimals}");
            }
        }
        // Percentages as reports make them: every share of totals up to 2,000.
        for whole in [3.0f64, 7.0, 60.0, 68.40049487792044, 1999.0] {
            for part in 0..2000 {
                let v = 100.0 * f64::from(part) / whole;
                for decimals in 1..=3 {
                    let mut fast = String::new();
                    number_into(&mut fast, v, Digits::Decimals, decimals);
                    assert_eq!(fast, format!("{v:.decimals$}"), "{v} to {decimals}");
                }
            }
        }
    }

    #[test]
    fn widths_counted_are_the_widths_formatted() {
        let values = [0.0, -0.0, 1.0, -1.0, 9.0, 10.0, 99.96, 999.95, -12.5, 1e15, 9.5e15, 0.049, 123456.789, f64::NAN];
        for v in values {
            for digits in [Digits::Whole, Digits::Decimals, Digits::Signed] {
                for decimals in 0..=4 {
                    if let Some(width) = number_width(v, digits, decimals) {
                        assert_eq!(width, number(v, digits, decimals).len(), "{v} {digits:?} {decimals}");
                    }
                }
            }
        }
    }
}
