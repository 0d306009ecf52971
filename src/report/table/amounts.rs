//! Amounts (time, bytes; samples and ticks as time where `--unit` asks) in text: the columns of one
//! quantity in one unit ([`crate::report::units`]), picked by the largest value of them all (a
//! self of 674 ms beside a total of 1.2 s shows as 0.67 s), with three significant digits of that
//! largest unless `--decimal` says how many, the same down every column.

use super::numbers::number;
use super::{Digits, Table, TextStyle};
use crate::report::units::{self, Quantity};

/// How the numbers of a column of amounts show in text: divided by `divisor`, with `places`
/// decimals (else the cell's own digits).
#[derive(Clone, Debug)]
pub(super) struct Scaling {
    pub divisor: f64,
    pub places: Option<u8>,
}

impl Scaling {
    /// The digits a cell of `digits` shows with: a change keeps its sign.
    pub fn digits(&self, digits: Digits) -> Digits {
        match (self.places, digits) {
            (None, digits) => digits,
            (Some(places), Digits::Signed | Digits::SignedPlaces(_)) => Digits::SignedPlaces(places),
            (Some(places), _) => Digits::Places(places),
        }
    }
}

/// The scaling of amounts shown as `shown`, the largest of them `largest` once scaled.
fn scaling(shown: units::Shown, largest: f64, style: TextStyle) -> Scaling {
    let places = if style.decimals_given { style.decimals } else { units::decimals_for(largest) };
    let places = (!shown.own).then_some(places.min(u8::MAX as usize) as u8);
    Scaling { divisor: shown.divisor, places }
}

/// How each column of `table` shows its amounts in text, and its heading (a column of amounts'
/// ends in the unit they are shown in, or for a count in its word).
pub(super) fn scalings(table: &Table, style: TextStyle) -> (Vec<Option<Scaling>>, Vec<String>) {
    let columns = &table.columns;
    // Measured only where it picks a unit: a column of counts shows as it is.
    let picks_unit = |quantity: &Quantity| units::shown(quantity, 1.0, style.unit).is_some();
    let largest: Vec<f64> = (columns.iter().enumerate())
        .map(|(c, column)| column.amount.as_ref().filter(|q| picks_unit(q)).map_or(0.0, |_| table.rows.largest(c)))
        .collect();
    // The largest of each column's quantity, over every column of it.
    let of_quantity = |quantity: &Quantity| {
        let same = |c: &usize| columns[*c].amount.as_ref().is_some_and(|q| q.name == quantity.name);
        (0..columns.len()).filter(same).map(|c| largest[c]).fold(0.0, f64::max)
    };
    let headed = |heading: &str, word: &str| match (heading.is_empty(), word.is_empty()) {
        (true, _) => word.to_string(),
        (false, true) => heading.to_string(),
        (false, false) => format!("{heading} {word}"),
    };
    (columns.iter())
        .map(|column| {
            let Some(quantity) = &column.amount else { return (None, column.heading.clone()) };
            let largest = of_quantity(quantity);
            match units::shown(quantity, largest, style.unit) {
                Some(shown) => {
                    (Some(scaling(shown, largest / shown.divisor, style)), headed(&column.heading, shown.word))
                }
                None => (None, headed(&column.heading, &quantity.label)),
            }
        })
        .unzip()
}

/// `v`, an amount of `quantity`, as text: `1.80 s`, in the unit of its own size; where it shows as a
/// count, with `digits` and named by its word (`5 samples`).
pub fn amount_text(v: f64, quantity: &Quantity, digits: Digits, style: TextStyle) -> String {
    match units::shown(quantity, v, style.unit) {
        Some(shown) => {
            let scaling = scaling(shown, v / shown.divisor, style);
            format!("{} {}", number(v / scaling.divisor, scaling.digits(digits), style.decimals), shown.word)
        }
        None => format!("{} {}", number(v, digits, style.decimals), quantity.label),
    }
}
