//! `]PROFILE`'s switches that pick and add to the rows of `summary` and `calls` (the `]PROFILE`
//! guide, docs/sources.md, "Data Selection Switches"): `-exclusive`, `-first=`, `-pct=`, `-cumpct`,
//! `-avg`, with one meaning in both reports.

use super::table::{Cell, Column, Digits};
use super::units::Quantity;

/// How rows are sorted, which are kept, and the columns `-avg` and `-cumpct` add.
#[derive(Clone, Debug, Default)]
pub struct Ranking {
    /// Sort by self value instead of total (`--exclusive`).
    pub exclusive: bool,
    /// At most this many rows (`--first N`).
    pub first: Option<usize>,
    /// Rows while the cumulative % stays at most this (`--pct P`).
    pub pct: Option<f64>,
    /// Show the cumulative % (`--cumpct`).
    pub cumpct: bool,
    /// Show the value per call (`--avg`).
    pub avg: bool,
}

impl Ranking {
    /// The value rows are sorted by: the self value with `--exclusive`, else the total.
    pub(super) fn key(&self, own: f64, total: f64) -> f64 {
        if self.exclusive {
            own
        } else {
            total
        }
    }

    /// The rows `sorted` (heaviest first) keeps, each with the cumulative % of the profile's total
    /// its `share` (its key as a %) reaches: the first `--first`, while that % stays ≤ `--pct`.
    pub(super) fn kept<'a, T>(
        &self,
        sorted: &'a [T],
        share: impl Fn(&T) -> f64 + 'a,
    ) -> impl Iterator<Item = (&'a T, f64)> + 'a {
        let limit = self.pct;
        sorted.iter().take(self.first.unwrap_or(usize::MAX)).scan(0.0, move |cumulative, row| {
            *cumulative += share(row);
            match limit.is_some_and(|limit| *cumulative > limit) {
                true => None,
                false => Some((row, *cumulative)),
            }
        })
    }

    /// Adds the columns `--avg` and `--cumpct` ask for, of amounts of `quantity`.
    pub(super) fn add_columns(&self, quantity: &Quantity, columns: &mut Vec<Column>) {
        if self.avg {
            // Per call, a quantity of its own: its unit is picked by its own largest value.
            let per_call = Quantity { name: format!("{}/call", quantity.name), ..quantity.clone() };
            columns.push(Column::amount("avg", "avg", per_call));
        }
        if self.cumpct {
            columns.push(Column::new("cum_pct", "cum %"));
        }
    }

    /// Adds a row's cells of those columns: its `key` per call (empty where its calls are unknown or
    /// 0), the cumulative %.
    pub(super) fn add_cells(&self, key: f64, calls: Option<i64>, cumulative: f64, cells: &mut Vec<Cell>) {
        if self.avg {
            cells.push(match calls {
                None | Some(0) => Cell::Empty,
                Some(calls) => Cell::Number(key / calls as f64, Digits::Decimals),
            });
        }
        if self.cumpct {
            cells.push(Cell::Number(cumulative, Digits::Decimals));
        }
    }
}
