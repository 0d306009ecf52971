//! Amounts (time, bytes) in text: each column's in the unit of its choosing ([`crate::report::units`]),
//! with three significant digits of its largest unless `--decimal` says how many.

use super::numbers::number;
use super::{Digits, Table, TextStyle};
use crate::model::Unit;
use crate::report::units;

/// How the numbers of a column of amounts show in text: divided by `divisor`, with `digits` (else
/// the cell's own).
#[derive(Clone, Debug)]
pub(super) struct Scaling {
    pub divisor: f64,
    pub digits: Option<Digits>,
}

/// The scaling of amounts shown as `shown`, the largest of them `largest` once scaled.
fn scaling(shown: units::Shown, largest: f64, style: TextStyle) -> Scaling {
    let places = if style.decimals_given { style.decimals } else { units::decimals_for(largest) };
    let digits = (!shown.own).then_some(Digits::Places(places.min(u8::MAX as usize) as u8));
    Scaling { divisor: shown.divisor, digits }
}

/// How each column of `table` shows its amounts in text, and its heading (a column of amounts'
/// ends in the unit they are shown in).
pub(super) fn scalings(table: &Table, style: TextStyle) -> (Vec<Option<Scaling>>, Vec<String>) {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(c, column)| {
            let largest = column.amount.map(|unit| (unit, table.rows.largest(c)));
            match largest.and_then(|(unit, largest)| Some((units::shown(unit, largest, style.unit)?, largest))) {
                Some((shown, largest)) => {
                    let heading = match column.heading.is_empty() {
                        true => shown.word.to_string(),
                        false => format!("{} {}", column.heading, shown.word),
                    };
                    (Some(scaling(shown, largest / shown.divisor, style)), heading)
                }
                None => (None, column.heading.clone()),
            }
        })
        .unzip()
}

/// `v`, an amount in `unit`, as text: `1.80 s`, in the unit of its own size; where it has none that
/// scales (counts), with `digits` and named `word` (`5 samples`).
pub fn amount_text(v: f64, unit: Option<Unit>, digits: Digits, word: &str, style: TextStyle) -> String {
    match unit.and_then(|unit| units::shown(unit, v, style.unit)) {
        Some(shown) => {
            let scaling = scaling(shown, v / shown.divisor, style);
            let digits = scaling.digits.unwrap_or(digits);
            format!("{} {}", number(v / scaling.divisor, digits, style.decimals), shown.word)
        }
        None => format!("{} {}", number(v, digits, style.decimals), word),
    }
}
