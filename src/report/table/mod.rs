//! One table of a report, for people and for scripts: aligned text ([`Layout`]), CSV or JSON.
//!
//! A table is columns, rows of cells, and the texts its text cells name. Nothing here knows which
//! report a table is of: the report's printer ([`crate::report::Printer`]) writes what else it shows
//! around the table, and may leave columns out of the text and put a [`Prefix`] before the text
//! cells of one.
//!
//! Text has widths from the data, numbers right-aligned, and names cut in the middle with `…` only
//! when a width is given (the terminal's, `COLUMNS` or 100 in a pipe; none with `--wide`). CSV and
//! JSON have every number in full (`--decimal` is for text) under the column keys
//! `docs/reports.md` lists.

mod amounts;
mod csv;
mod json;
mod numbers;
mod text;

pub use amounts::amount_text;
pub use json::RowsJson;
pub use numbers::{decimal_digits, number, whole_or_float};
pub use text::{pad_into, Layout, Prefix};

use crate::report::units::Quantity;
use std::borrow::Cow;

/// An output format of the reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumString, strum::VariantNames, strum::Display)]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    /// Aligned columns.
    #[default]
    Text,
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object.
    Json,
    /// `diff`'s verdict for a pull request's comment: a Markdown table (GitHub's) of what failed.
    Markdown,
    /// `diff`'s verdict as JUnit XML: a test case per function tested, a failure per regression,
    /// which CI systems show as tests.
    Junit,
}

impl Format {
    /// Whether only `diff` writes it.
    pub fn is_diff_s(self) -> bool {
        matches!(self, Format::Markdown | Format::Junit)
    }
}

/// How text is laid out.
#[derive(Clone, Copy, Debug)]
pub struct TextStyle {
    /// Decimals of non-whole numbers (`--decimal`).
    pub decimals: usize,
    /// Whether `--decimal` was given: then amounts in a unit of their column's choosing have as many
    /// too, else three significant digits of their quantity's largest.
    pub decimals_given: bool,
    /// The width to cut names to fit in (the terminal's, or a pipe's), if any.
    pub width: Option<usize>,
    /// Whether a name too long for its column goes whole on a line of its own, its figures on the
    /// next, instead of being cut: text for a log (a pipe or a file with no `COLUMNS`), where a
    /// name cut to a few characters reads like its neighbours.
    pub whole_names: bool,
    /// The unit amounts of the reported metric are shown in (`--unit`), where it is of their family
    /// (samples and ticks of a known interval: time).
    pub unit: Option<&'static str>,
}

/// How a number is printed in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digits {
    /// As a whole number.
    Whole,
    /// With `--decimal` decimals.
    Decimals,
    /// A change: `--decimal` decimals and a sign, `+` included (`+2.5`, `-0.3`, `0.0`), so that it
    /// is never misread as a share.
    Signed,
    /// With this many decimals: an amount shown in a unit of its column's own choosing.
    Places(u8),
    /// A change with this many decimals and a sign: a change of an amount shown in a unit of its
    /// column's own choosing.
    SignedPlaces(u8),
}

impl Digits {
    /// A small number per kind, for tables kept per kind.
    fn slot(self) -> usize {
        match self {
            Digits::Whole => 0,
            Digits::Decimals => 1,
            Digits::Signed => 2,
            Digits::Places(_) => 3,
            Digits::SignedPlaces(_) => 4,
        }
    }
}

/// One cell of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text (a name): its index in the table's texts, so that a cell is 16 bytes and a row of a
    /// name shown a thousand times does not copy it.
    Text(u32),
    /// A number.
    Number(f64, Digits),
    /// Nothing known (calls where the profile has none): empty in text and CSV, null in JSON.
    Empty,
    /// Yes or no (a diff's change past its limits): `*` or nothing in text, `true` or `false` in CSV
    /// and JSON.
    Flag(bool),
}

/// A column: its key (CSV header, JSON field) and its text heading.
#[derive(Clone, Debug)]
pub struct Column {
    /// The CSV header and JSON field (of a metric's, in `data`, made from its name).
    pub key: Cow<'static, str>,
    /// The heading in text; of a column of amounts, the words before the unit text shows them in.
    pub heading: String,
    /// For a column of amounts of a metric, what they are: text shows them in a unit of its
    /// choosing (time, bytes), or as counts named by their word.
    pub amount: Option<Quantity>,
}

impl Column {
    /// A column with key `key` and text heading `heading`.
    pub fn new(key: impl Into<Cow<'static, str>>, heading: impl Into<String>) -> Column {
        Column { key: key.into(), heading: heading.into(), amount: None }
    }

    /// A column of amounts of `quantity`, headed `heading` and the unit text shows them in (or
    /// the word of a count).
    pub fn amount(key: impl Into<Cow<'static, str>>, heading: impl Into<String>, quantity: Quantity) -> Column {
        Column { key: key.into(), heading: heading.into(), amount: Some(quantity) }
    }
}

/// The rows of a table: a cell per column each, made when asked, so that a report can keep its
/// rows in less room than cells take (a tree keeps 24 bytes a row, 32 with calls, not 112).
pub trait Rows: std::fmt::Debug + Send + Sync {
    /// How many rows there are.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `index`'s cells, into `cells` (emptied first).
    fn row_into(&self, index: usize, cells: &mut Vec<Cell>);

    /// The largest magnitude of the numbers of `column`.
    fn largest(&self, column: usize) -> f64 {
        let mut cells = Vec::new();
        (0..self.len()).fold(0.0, |largest, index| {
            self.row_into(index, &mut cells);
            match cells.get(column) {
                Some(Cell::Number(v, _)) if v.is_finite() => largest.max(v.abs()),
                _ => largest,
            }
        })
    }
}

/// Cells stored row after row, `columns` a row.
#[derive(Clone, Debug)]
pub struct Cells {
    columns: usize,
    cells: Vec<Cell>,
}

impl Cells {
    /// `cells`, row after row, `columns` a row.
    pub fn new(columns: usize, cells: Vec<Cell>) -> Cells {
        Cells { columns: columns.max(1), cells }
    }

    /// `cells`, a cell for each of `columns` a row, as a table's rows.
    pub fn boxed(columns: &[Column], cells: Vec<Cell>) -> Box<dyn Rows> {
        Box::new(Cells::new(columns.len(), cells))
    }
}

impl Rows for Cells {
    fn len(&self) -> usize {
        self.cells.len() / self.columns
    }

    fn row_into(&self, index: usize, cells: &mut Vec<Cell>) {
        cells.clear();
        cells.extend_from_slice(&self.cells[index * self.columns..(index + 1) * self.columns]);
    }
}

/// A table: its columns, its rows, and the texts its text cells are indices of.
#[derive(Debug)]
pub struct Table {
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows.
    pub rows: Box<dyn Rows>,
    /// The texts [`Cell::Text`] cells are indices of.
    pub texts: Vec<String>,
}

impl Table {
    /// The text of a text cell.
    fn text_of(&self, index: u32) -> &str {
        self.texts.get(index as usize).map_or("", String::as_str)
    }
}
