//! What every report says of the whole profile beside its table: what it is, the metric and its
//! unit, the total (and what `--fn` or the filters selected of it). Text shows it as the line
//! above the table (`Total: 68.4 ms`), JSON as the fields before the rows.

use super::table::{amount_text, number, whole_or_float, Digits, RowsJson, Table, TextStyle};
use super::units::Quantity;
use serde_json::{Map, Value as Json};

/// A report's header.
#[derive(Debug)]
pub struct Header {
    /// `summary`, `calls`, `tree`, `data` or `diff`.
    pub kind: &'static str,
    /// The metric reported.
    pub metric: String,
    /// Its unit (`ms`, `ns`, `bytes`, or the metric's name for counts).
    pub unit: String,
    /// The profile's total.
    pub total: f64,
    /// The total of what `--fn` or the filters selected, when they narrowed the profile.
    pub selected: Option<f64>,
    /// How totals print in text.
    pub digits: Digits,
    /// What the total is an amount of, where text shows it as the table's amounts (in a unit of
    /// its own size; a count by its word); else it shows with `unit`.
    pub amount: Option<Quantity>,
}

impl Header {
    /// `v`, an amount of the report's metric, as text: `1.80 s`, in the unit of its own size, or
    /// `5 samples` for counts.
    pub(crate) fn amount_text(&self, v: f64, style: TextStyle) -> String {
        match &self.amount {
            Some(quantity) => amount_text(v, quantity, self.digits, style),
            None => format!("{} {}", number(v, self.digits, style.decimals), self.unit),
        }
    }

    /// The line above the table: `Total: 68.4 ms` (and `; selected: 23.8 ms`).
    pub(crate) fn total_line(&self, style: TextStyle) -> String {
        let amount = |v: f64| self.amount_text(v, style);
        match self.selected {
            Some(selected) => format!("Total: {}; selected: {}", amount(self.total), amount(selected)),
            None => format!("Total: {}", amount(self.total)),
        }
    }

    /// Writes the report as one JSON object (docs/reports.md): the header's fields, the report's
    /// own `fields`, then the rows of `table`.
    pub(crate) fn write_json(
        &self,
        out: &mut dyn std::io::Write,
        fields: Map<String, Json>,
        table: &Table,
    ) -> std::io::Result<()> {
        let document = Document {
            report: self.kind,
            metric: &self.metric,
            unit: &self.unit,
            total: whole_or_float(self.total),
            selected: self.selected.map(whole_or_float),
            fields,
            rows: RowsJson(table),
        };
        out.write_all((serde_json::to_string_pretty(&document).unwrap_or_default() + "\n").as_bytes())
    }
}

/// The JSON object of a report.
#[derive(serde::Serialize)]
struct Document<'a> {
    report: &'static str,
    metric: &'a str,
    unit: &'a str,
    total: Json,
    selected: Option<Json>,
    #[serde(flatten)]
    fields: Map<String, Json>,
    rows: RowsJson<'a>,
}
