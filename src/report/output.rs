//! A report for people and for scripts: aligned text, CSV or JSON, from one [`Report`].
//!
//! Text has widths from the data, numbers right-aligned, and names cut in the middle with `…` only
//! when a width is given (the terminal's, when stdout is one). CSV and JSON have every number in full
//! (`--decimal` is for text) under the column keys `docs/reports.md` lists.

use serde_json::{json, Map, Value as Json};
use std::fmt::Write;

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
}

/// How a number is printed in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digits {
    /// As a whole number.
    Whole,
    /// With `--decimal` decimals.
    Decimals,
}

/// One cell of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text (a name).
    Text(String),
    /// A number.
    Number(f64, Digits),
    /// Nothing known (calls where the profile has none): empty in text and CSV, null in JSON.
    Empty,
}

/// A column: its key (CSV header, JSON field) and its text heading.
#[derive(Clone, Debug)]
pub struct Column {
    /// The CSV header and JSON field.
    pub key: &'static str,
    /// The heading in text.
    pub heading: String,
}

impl Column {
    /// A column with key `key` and text heading `heading`.
    pub fn new(key: &'static str, heading: impl Into<String>) -> Column {
        Column { key, heading: heading.into() }
    }
}

/// A report: what it is of, its total, its table, and how text shows it.
#[derive(Clone, Debug)]
pub struct Report {
    /// `summary`, `calls` or `tree`.
    pub kind: &'static str,
    /// The metric reported.
    pub metric: String,
    /// Its unit (`ms`, `ns`, `bytes`, or the metric's name for counts).
    pub unit: String,
    /// The profile's total.
    pub total: f64,
    /// The total of what `--fn` selected, when it selected.
    pub selected: Option<f64>,
    /// How totals print in text.
    pub digits: Digits,
    /// The columns and rows.
    pub columns: Vec<Column>,
    /// The rows.
    pub rows: Vec<Vec<Cell>>,
    /// Facts about the whole report beyond the total (the tree's pruned nodes), as JSON fields and
    /// text lines after the table.
    pub notes: Vec<(&'static str, Json, String)>,
    /// For calls: the function of each block of rows (in JSON `functions`); in text each block has a
    /// heading line instead of the `function` column.
    pub blocks: Option<Vec<Block>>,
    /// For text: a depth column to indent the name column by, instead of showing it.
    pub indent: Option<(usize, usize)>,
}

/// A block of rows about one function (`calls`): rows whose `function` cell is its name.
#[derive(Clone, Debug)]
pub struct Block {
    /// The function.
    pub name: String,
    /// Its total.
    pub total: f64,
    /// Its total as a % of the profile's.
    pub pct: f64,
    /// Its calls, where the profile counts them.
    pub calls: Option<i64>,
}

/// The column the blocks' rows name their function in.
const BLOCK_COLUMN: usize = 0;

/// How text is laid out.
#[derive(Clone, Copy, Debug)]
pub struct TextStyle {
    /// Decimals of non-whole numbers (`--decimal`).
    pub decimals: usize,
    /// The width to cut names to fit in (the terminal's), if any.
    pub width: Option<usize>,
}

/// Levels of the tree indented in full; deeper nodes are indented this far and show their depth.
const MAX_INDENT: usize = 40;

impl Report {
    /// The report in `format`.
    pub fn render(&self, format: Format, style: TextStyle) -> String {
        match format {
            Format::Text => self.text(style),
            Format::Csv => self.csv(),
            Format::Json => self.json() + "\n",
        }
    }

    /// The heading: `Total: 68.4 ms` (and `; selected: 23.8 ms`).
    fn heading(&self, style: TextStyle) -> String {
        let amount = |v: f64| format!("{} {}", number(v, self.digits, style.decimals), self.unit);
        match self.selected {
            Some(selected) => format!("Total: {}; selected: {}", amount(self.total), amount(selected)),
            None => format!("Total: {}", amount(self.total)),
        }
    }

    fn text(&self, style: TextStyle) -> String {
        let mut out = self.heading(style) + "\n";
        let shown: Vec<usize> = (0..self.columns.len())
            .filter(|&c| self.blocks.is_none() || c != BLOCK_COLUMN)
            .filter(|&c| self.indent.is_none_or(|(d, _)| d != c))
            .collect();
        let name_column = self.indent.map(|(_, name)| name);
        let cells: Vec<Vec<String>> = (self.rows.iter())
            .map(|row| {
                (shown.iter())
                    .map(|&c| match (&row[c], name_column == Some(c)) {
                        (Cell::Text(t), true) => indented(t, self.depth_of(row)),
                        (cell, _) => cell_text(cell, style.decimals),
                    })
                    .collect()
            })
            .collect();
        let headings: Vec<String> = shown.iter().map(|&c| self.columns[c].heading.clone()).collect();
        let mut widths: Vec<usize> = headings.iter().map(|h| h.chars().count()).collect();
        for row in &cells {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let text_columns: Vec<bool> = shown.iter().map(|&c| self.is_text_column(c)).collect();
        if let Some(limit) = style.width {
            fit_names(&mut widths, &text_columns, limit);
        }
        let line = |row: &[String]| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                let cell = cut_middle(cell, widths[i]);
                let pad = widths[i] - cell.chars().count();
                let last = i + 1 == row.len();
                match (text_columns[i], last) {
                    (true, true) => line.push_str(&cell),
                    (true, false) => line.push_str(&format!("{cell}{}", " ".repeat(pad))),
                    (false, _) => line.push_str(&format!("{}{cell}", " ".repeat(pad))),
                }
                if !last {
                    line.push_str("  ");
                }
            }
            line.truncate(line.trim_end().len());
            line + "\n"
        };
        if self.blocks.is_none() {
            out.push('\n');
            out.push_str(&line(&headings));
        }
        let mut block = 0;
        for (i, (row, cells)) in self.rows.iter().zip(&cells).enumerate() {
            if let Some(blocks) = &self.blocks {
                if i == 0 || self.rows[i - 1][BLOCK_COLUMN] != row[BLOCK_COLUMN] {
                    let title = blocks.get(block).map(|b| self.block_title(b, style)).unwrap_or_default();
                    let _ = write!(out, "\n{title}\n");
                    out.push_str(&line(&headings));
                    block += 1;
                }
            }
            out.push_str(&line(cells));
        }
        for (_, _, note) in &self.notes {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// `#.ch.CH∆Q: total 23.8 ms (33.7 % of all), 311 calls`.
    fn block_title(&self, block: &Block, style: TextStyle) -> String {
        let total = number(block.total, self.digits, style.decimals);
        let pct = number(block.pct, Digits::Decimals, style.decimals);
        let calls = block.calls.map(|c| format!(", {c} calls")).unwrap_or_default();
        format!("{}: total {total} {} ({pct} % of all){calls}", block.name, self.unit)
    }

    fn depth_of(&self, row: &[Cell]) -> usize {
        match self.indent.map(|(d, _)| &row[d]) {
            Some(Cell::Number(depth, _)) => *depth as usize,
            _ => 0,
        }
    }

    fn is_text_column(&self, column: usize) -> bool {
        self.rows.iter().any(|row| matches!(row[column], Cell::Text(_)))
            || self.rows.is_empty() && self.columns[column].key == "name"
    }

    fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(self.columns.iter().map(|c| c.key));
        for row in &self.rows {
            let _ = writer.write_record(row.iter().map(full_text));
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    fn json(&self) -> String {
        let rows: Vec<Json> = (self.rows.iter())
            .map(|row| {
                let fields = self.columns.iter().zip(row).map(|(c, cell)| (c.key.to_string(), cell_json(cell)));
                Json::Object(fields.collect::<Map<String, Json>>())
            })
            .collect();
        let mut object = json!({
            "report": self.kind,
            "metric": self.metric,
            "unit": self.unit,
            "total": whole_or_float(self.total),
            "selected": self.selected.map(whole_or_float),
        });
        if let Json::Object(map) = &mut object {
            for (key, value, _) in &self.notes {
                map.insert(key.to_string(), value.clone());
            }
            if let Some(blocks) = &self.blocks {
                let blocks = blocks.iter().map(|b| {
                    json!({ "name": b.name, "total": whole_or_float(b.total), "pct": whole_or_float(b.pct), "calls": b.calls })
                });
                map.insert("functions".into(), Json::Array(blocks.collect()));
            }
            map.insert("rows".into(), Json::Array(rows));
        }
        serde_json::to_string_pretty(&object).unwrap_or_default()
    }
}

/// `name` indented two spaces per level, up to [`MAX_INDENT`] levels; deeper, its depth shown.
fn indented(name: &str, depth: usize) -> String {
    match depth <= MAX_INDENT {
        true => format!("{}{name}", "  ".repeat(depth)),
        false => format!("{}[{depth}] {name}", "  ".repeat(MAX_INDENT)),
    }
}

/// Narrows the text columns (names) so that the line fits in `limit` characters, down to a few
/// characters each; numbers are never cut.
fn fit_names(widths: &mut [usize], text_columns: &[bool], limit: usize) {
    const NARROWEST: usize = 12;
    let line = |widths: &[usize]| widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    let excess = line(widths).saturating_sub(limit);
    if excess == 0 {
        return;
    }
    if let Some(i) = (0..widths.len()).filter(|&i| text_columns[i]).max_by_key(|&i| widths[i]) {
        widths[i] = widths[i].saturating_sub(excess).max(NARROWEST.min(widths[i]));
    }
}

/// `text` cut to `width` characters by taking out its middle, marked `…`.
pub fn cut_middle(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width || width == 0 {
        return text.to_string();
    }
    let keep = width - 1;
    let (head, tail) = (keep - keep / 2, keep / 2);
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// A number for people: whole, or with `decimals` decimals.
fn number(v: f64, digits: Digits, decimals: usize) -> String {
    match digits {
        Digits::Whole => format!("{v:.0}"),
        Digits::Decimals => format!("{v:.decimals$}"),
    }
}

fn cell_text(cell: &Cell, decimals: usize) -> String {
    match cell {
        Cell::Text(t) => t.clone(),
        Cell::Number(v, digits) => number(*v, *digits, decimals),
        Cell::Empty => String::new(),
    }
}

/// A cell for a script: numbers in full.
fn full_text(cell: &Cell) -> String {
    match cell {
        Cell::Text(t) => t.clone(),
        Cell::Number(v, _) => v.to_string(),
        Cell::Empty => String::new(),
    }
}

fn cell_json(cell: &Cell) -> Json {
    match cell {
        Cell::Text(t) => Json::String(t.clone()),
        Cell::Number(v, _) => whole_or_float(*v),
        Cell::Empty => Json::Null,
    }
}

/// A whole number as a JSON integer, any other as a float.
fn whole_or_float(v: f64) -> Json {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Json::from(v as i64)
    } else {
        Json::from(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(name: &str) -> Report {
        Report {
            kind: "summary",
            metric: "samples".into(),
            unit: "samples".into(),
            total: 10.0,
            selected: None,
            digits: Digits::Whole,
            columns: vec![Column::new("name", "name"), Column::new("total", "total"), Column::new("pct", "%")],
            rows: vec![vec![
                Cell::Text(name.into()),
                Cell::Number(10.0, Digits::Whole),
                Cell::Number(100.0, Digits::Decimals),
            ]],
            notes: Vec::new(),
            blocks: None,
            indent: None,
        }
    }

    #[test]
    fn names_fit_the_width_only_when_one_is_given() {
        let report = summary("a_rather_long_function_name");
        let style = TextStyle { decimals: 1, width: None };
        assert_eq!(
            report.render(Format::Text, style).lines().nth(3),
            Some("a_rather_long_function_name     10  100.0")
        );
        // 20 columns: "total" and "%" take 5 + 5 and two gaps of 2, which would leave the name 6, but
        // it keeps 12: 6 first characters, "…", 5 last.
        let narrow = report.render(Format::Text, TextStyle { width: Some(20), ..style });
        assert_eq!(narrow.lines().nth(3), Some("a_rath…_name     10  100.0"));
        // 30 columns leave the name 16: 8 first, "…", 7 last.
        let fitting = report.render(Format::Text, TextStyle { width: Some(30), ..style });
        assert_eq!(fitting.lines().nth(3), Some("a_rather…on_name     10  100.0"));
    }

    #[test]
    fn names_are_cut_in_the_middle() {
        assert_eq!(cut_middle("abcdefghij", 5), "ab…ij");
        assert_eq!(cut_middle("abcdefghij", 6), "abc…ij");
        assert_eq!(cut_middle("abc", 5), "abc");
        assert_eq!(cut_middle("#.ch.CH∆Q", 4), "#.…Q");
    }
}
