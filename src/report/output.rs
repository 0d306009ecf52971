//! A report for people and for scripts: aligned text, CSV or JSON, from one [`Report`].
//!
//! Text has widths from the data, numbers right-aligned, and names cut in the middle with `…` only
//! when a width is given (the terminal's, when stdout is one). CSV and JSON have every number in full
//! (`--decimal` is for text) under the column keys `docs/reports.md` lists.

use super::units;
use crate::model::Unit;
use serde_json::{json, Map, Value as Json};
use std::borrow::Cow;
use std::fmt::Write;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
    /// A change: `--decimal` decimals and a sign, `+` included (`+2.5`, `-0.3`, `0.0`), so that it
    /// is never misread as a share.
    Signed,
    /// With this many decimals: an amount shown in a unit of its column's own choosing.
    Places(u8),
}

impl Digits {
    /// A small number per kind, for tables kept per kind.
    fn slot(self) -> usize {
        match self {
            Digits::Whole => 0,
            Digits::Decimals => 1,
            Digits::Signed => 2,
            Digits::Places(_) => 3,
        }
    }
}

/// One cell of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text (a name): its index in the report's texts, so that a cell is 16 bytes and a row of a
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
    /// For a column of amounts (time, bytes), their unit: text shows them in a unit of its choosing.
    pub amount: Option<Unit>,
}

impl Column {
    /// A column with key `key` and text heading `heading`.
    pub fn new(key: impl Into<Cow<'static, str>>, heading: impl Into<String>) -> Column {
        Column { key: key.into(), heading: heading.into(), amount: None }
    }

    /// A column of amounts in `unit`, headed `heading` and the unit text shows them in.
    pub fn amount(key: impl Into<Cow<'static, str>>, heading: impl Into<String>, unit: Unit) -> Column {
        Column { key: key.into(), heading: heading.into(), amount: Some(unit) }
    }
}

/// The rows of a report: a cell per column each, made when asked, so that a report can keep its
/// rows in less room than cells take (a tree keeps 24 bytes a row, 32 with calls, not 112).
pub trait Table: std::fmt::Debug + Send + Sync {
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

    /// `cells`, a cell for each of `columns` a row, as a report's table.
    pub fn boxed(columns: &[Column], cells: Vec<Cell>) -> Box<dyn Table> {
        Box::new(Cells::new(columns.len(), cells))
    }
}

impl Table for Cells {
    fn len(&self) -> usize {
        self.cells.len() / self.columns
    }

    fn row_into(&self, index: usize, cells: &mut Vec<Cell>) {
        cells.clear();
        cells.extend_from_slice(&self.cells[index * self.columns..(index + 1) * self.columns]);
    }
}

/// A report: what it is of, its total, its table, and how text shows it.
#[derive(Debug)]
pub struct Report {
    /// `summary`, `calls`, `tree`, `data` or `diff`.
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
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows.
    pub table: Box<dyn Table>,
    /// The texts [`Cell::Text`] cells are indices of.
    pub texts: Vec<String>,
    /// Facts about the whole report beyond the total (the tree's pruned nodes), as JSON fields and
    /// text lines after the table.
    pub notes: Vec<(&'static str, Json, String)>,
    /// For calls: the function of each block of rows (in JSON `functions`); in text each block has a
    /// heading line instead of the `function` column.
    pub blocks: Option<Vec<Block>>,
    /// For text: a depth column to indent the name column by, instead of showing it.
    pub indent: Option<(usize, usize)>,
    /// For text: the lines shown instead of the `Total:` heading (a diff's two profiles).
    pub title: Option<String>,
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
    /// Whether `--decimal` was given: then amounts in a unit of their column's choosing have as many
    /// too, else three significant digits of the column's largest.
    pub decimals_given: bool,
    /// The width to cut names to fit in (the terminal's), if any.
    pub width: Option<usize>,
    /// The unit amounts are shown in (`--unit`), where it is of their family.
    pub unit: Option<&'static str>,
}

/// How the numbers of a column of amounts show in text: divided by `divisor`, with `digits` (else
/// the cell's own).
#[derive(Clone, Debug)]
struct Scaling {
    divisor: f64,
    digits: Option<Digits>,
}

/// Rows from which a table without blocks is measured and written on two threads.
const PARALLEL_ROWS: usize = 20_000;

/// Rows a thread writes lines of at a time.
const CHUNK_ROWS: usize = 16_384;

/// The widest cell of each shown column of some rows, and whether the column holds text.
struct Measure {
    widths: Vec<usize>,
    text: Vec<bool>,
}

/// How the lines of a table are laid out: the columns shown, their widths, which hold text, and
/// the width of every text.
struct Layout {
    shown: Vec<usize>,
    /// Per column of the report, how its amounts are scaled.
    scalings: Vec<Option<Scaling>>,
    widths: Vec<usize>,
    text_columns: Vec<bool>,
    decimals: usize,
    text_widths: Vec<usize>,
}

/// Levels of the tree indented in full; deeper nodes are indented this far and show their depth.
const MAX_INDENT: usize = 40;

impl Report {
    /// Calls `f` with each row of `range` in turn, the amounts of the columns `scalings` scales as
    /// text shows them.
    fn for_rows(&self, range: std::ops::Range<usize>, scalings: &[Option<Scaling>], mut f: impl FnMut(&[Cell])) {
        let scaled: Vec<(usize, &Scaling)> =
            scalings.iter().enumerate().filter_map(|(c, s)| s.as_ref().map(|s| (c, s))).collect();
        let mut row = Vec::with_capacity(self.columns.len());
        for index in range {
            self.table.row_into(index, &mut row);
            for &(c, scaling) in &scaled {
                if let Cell::Number(v, digits) = row[c] {
                    row[c] = Cell::Number(v / scaling.divisor, scaling.digits.unwrap_or(digits));
                }
            }
            f(&row);
        }
    }

    /// How each column's amounts show in text, and its heading.
    fn scalings(&self, style: TextStyle) -> (Vec<Option<Scaling>>, Vec<String>) {
        self.columns
            .iter()
            .enumerate()
            .map(|(c, column)| {
                let largest = column.amount.map(|unit| (unit, self.table.largest(c)));
                match largest.and_then(|(unit, largest)| Some((units::shown(unit, largest, style.unit)?, largest))) {
                    Some((shown, largest)) => {
                        let heading = match column.heading.is_empty() {
                            true => shown.word.to_string(),
                            false => format!("{} {}", column.heading, shown.word),
                        };
                        (Some(self.scaling(shown, largest / shown.divisor, style)), heading)
                    }
                    None => (None, column.heading.clone()),
                }
            })
            .unzip()
    }

    /// The scaling of amounts shown as `shown`, the largest of them `largest` once scaled.
    fn scaling(&self, shown: units::Shown, largest: f64, style: TextStyle) -> Scaling {
        let places = if style.decimals_given { style.decimals } else { units::decimals_for(largest) };
        let digits = (!shown.own).then_some(Digits::Places(places.min(u8::MAX as usize) as u8));
        Scaling { divisor: shown.divisor, digits }
    }

    /// `v`, an amount of the report's metric, as text: `1.80 s`, in the unit of its own size, or
    /// `5 samples` for counts.
    fn amount_text(&self, v: f64, style: TextStyle) -> String {
        let unit = self.columns.iter().find_map(|c| c.amount);
        match unit.and_then(|unit| units::shown(unit, v, style.unit)) {
            Some(shown) => {
                let scaling = self.scaling(shown, v / shown.divisor, style);
                let digits = scaling.digits.unwrap_or(self.digits);
                format!("{} {}", number(v / scaling.divisor, digits, style.decimals), shown.word)
            }
            None => format!("{} {}", number(v, self.digits, style.decimals), self.unit),
        }
    }

    /// The text of a text cell.
    fn text_of(&self, index: u32) -> &str {
        self.texts.get(index as usize).map_or("", String::as_str)
    }

    /// The report in `format`.
    pub fn render(&self, format: Format, style: TextStyle) -> String {
        let mut bytes = Vec::new();
        let written = self.write(&mut bytes, format, style);
        debug_assert!(written.is_ok(), "writing to memory does not fail");
        // Every part written is a `str`.
        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Writes the report in `format` to `out`.
    pub fn write(&self, out: &mut dyn std::io::Write, format: Format, style: TextStyle) -> std::io::Result<()> {
        match format {
            Format::Text => self.write_text(out, style),
            Format::Csv => out.write_all(self.csv().as_bytes()),
            Format::Json => out.write_all((self.json() + "\n").as_bytes()),
        }
    }

    /// The heading: `Total: 68.4 ms` (and `; selected: 23.8 ms`).
    fn heading(&self, style: TextStyle) -> String {
        if let Some(title) = &self.title {
            return title.clone();
        }
        let amount = |v: f64| self.amount_text(v, style);
        match self.selected {
            Some(selected) => format!("Total: {}; selected: {}", amount(self.total), amount(selected)),
            None => format!("Total: {}", amount(self.total)),
        }
    }

    /// Writes the report as aligned text: the widths from every cell, then the lines, written as
    /// they are made, so that a report of a million rows is never held as one string. A long table
    /// without blocks is measured and written on two threads.
    fn write_text(&self, out: &mut dyn std::io::Write, style: TextStyle) -> std::io::Result<()> {
        let shown: Vec<usize> = (0..self.columns.len())
            .filter(|&c| self.blocks.is_none() || c != BLOCK_COLUMN)
            .filter(|&c| self.indent.is_none_or(|(d, _)| d != c))
            .collect();
        let (scalings, all_headings) = self.scalings(style);
        let headings: Vec<&str> = shown.iter().map(|&c| all_headings[c].as_str()).collect();
        let rows = self.table.len();
        let parallel = self.blocks.is_none() && rows >= PARALLEL_ROWS;
        let text_widths: Vec<usize> = self.texts.iter().map(|t| width_of(t)).collect();
        let measure = |rows| self.measure(rows, &shown, &scalings, style.decimals, &text_widths);
        let half = if parallel { rows / 2 } else { rows };
        let (first, second) = std::thread::scope(|scope| {
            let second = parallel.then(|| scope.spawn(|| measure(half..rows)));
            (measure(0..half), second.map(|s| s.join().unwrap_or_else(|_| measure(half..rows))))
        });
        let mut widths: Vec<usize> = headings.iter().map(|h| width_of(h)).collect();
        // A column is of text if a cell of it is, or, in an empty table, if it is the name.
        let mut text_columns: Vec<bool> = shown.iter().map(|&c| rows == 0 && self.columns[c].key == "name").collect();
        for part in std::iter::once(first).chain(second) {
            widths.iter_mut().zip(part.widths).for_each(|(w, p)| *w = (*w).max(p));
            text_columns.iter_mut().zip(part.text).for_each(|(t, p)| *t |= p);
        }
        if let Some(limit) = style.width {
            fit_names(&mut widths, &text_columns, limit);
        }
        let layout = Layout { shown, scalings, widths, text_columns, decimals: style.decimals, text_widths };
        let mut text = self.heading(style) + "\n";
        let heading_line = |text: &mut String| write_line(text, &layout, |i| headings[i]);
        let Some(blocks) = &self.blocks else {
            text.push('\n');
            heading_line(&mut text);
            out.write_all(text.as_bytes())?;
            match parallel {
                true => self.write_lines_on_two_threads(out, rows, &layout)?,
                false => out.write_all(self.lines(0..rows, &layout).as_bytes())?,
            }
            let mut notes = String::new();
            self.notes_into(&mut notes);
            return out.write_all(notes.as_bytes());
        };
        let mut block = 0;
        let mut previous: Option<Cell> = None;
        let mut scratch = String::new();
        self.for_rows(0..rows, &layout.scalings, |row| {
            if previous.as_ref() != Some(&row[BLOCK_COLUMN]) {
                let title = blocks.get(block).map(|b| self.block_title(b, style)).unwrap_or_default();
                let _ = write!(text, "\n{title}\n");
                heading_line(&mut text);
                block += 1;
            }
            self.line_into(&mut text, row, &layout, &mut scratch);
            previous = Some(row[BLOCK_COLUMN].clone());
        });
        self.notes_into(&mut text);
        out.write_all(text.as_bytes())
    }

    /// The widest of each `shown` cell of `rows`, and which of them hold text.
    fn measure(
        &self,
        rows: std::ops::Range<usize>,
        shown: &[usize],
        scalings: &[Option<Scaling>],
        decimals: usize,
        text_widths: &[usize],
    ) -> Measure {
        let mut measure = Measure { widths: vec![0; shown.len()], text: vec![false; shown.len()] };
        let mut scratch = String::new();
        // Per column, kind of digits and sign: the largest magnitude measured. A number's width
        // grows with its magnitude (rounding is monotone), so one no larger is no wider.
        let mut largest = vec![[-1.0f64; 8]; shown.len()];
        self.for_rows(rows, scalings, |row| {
            for (k, &c) in shown.iter().enumerate() {
                if let Cell::Number(v, digits) = row[c] {
                    // Infinities and NaN are words, not digits: always measured, and no bound.
                    // By the sign bit: -0.0 can print as `-0`, wider than `0`.
                    let largest = &mut largest[k][2 * digits.slot() + usize::from(v.is_sign_negative())];
                    if v.is_finite() && v.abs() <= *largest {
                        continue;
                    }
                    if v.is_finite() {
                        *largest = v.abs();
                    }
                }
                measure.widths[k] = measure.widths[k].max(self.cell_width(row, c, decimals, text_widths, &mut scratch));
                measure.text[k] |= matches!(row[c], Cell::Text(_));
            }
        });
        measure
    }

    /// The width [`Report::cell_into`] gives cell `column` of `row`, counted without formatting it
    /// where that is sure (texts, whole numbers, decimals [`fixed_point`] rounds), else measured
    /// after formatting it into `scratch`.
    fn cell_width(
        &self,
        row: &[Cell],
        column: usize,
        decimals: usize,
        text_widths: &[usize],
        scratch: &mut String,
    ) -> usize {
        match row[column] {
            Cell::Text(text) => {
                let indent = match self.indent {
                    Some((_, name)) if name == column => indent_width(self.depth_of(row)),
                    _ => 0,
                };
                indent + text_widths.get(text as usize).copied().unwrap_or(0)
            }
            Cell::Number(v, digits) => number_width(v, digits, decimals).unwrap_or_else(|| {
                scratch.clear();
                self.cell_into(scratch, row, column, decimals);
                width_of(scratch)
            }),
            Cell::Flag(true) => 1,
            Cell::Empty | Cell::Flag(false) => 0,
        }
    }

    /// The lines of `rows`.
    fn lines(&self, rows: std::ops::Range<usize>, layout: &Layout) -> String {
        let mut text = String::new();
        self.lines_into(&mut text, rows, layout);
        text
    }

    /// Puts the lines of `rows` in `text` (emptied first, its room kept).
    fn lines_into(&self, text: &mut String, rows: std::ops::Range<usize>, layout: &Layout) {
        text.clear();
        text.reserve(rows.len() * (layout.widths.iter().sum::<usize>() + 2 * layout.widths.len()));
        let mut scratch = String::new();
        self.for_rows(rows, &layout.scalings, |row| self.line_into(text, row, layout, &mut scratch));
    }

    /// Writes the lines of `rows` a chunk at a time, the odd chunks made on a second thread while
    /// this one makes and writes the even ones. The second thread's buffers come back to it once
    /// written: a buffer the size of a chunk is fresh memory from the system each time it is
    /// allocated anew.
    fn write_lines_on_two_threads(
        &self,
        out: &mut dyn std::io::Write,
        rows: usize,
        layout: &Layout,
    ) -> std::io::Result<()> {
        let chunks: Vec<std::ops::Range<usize>> =
            (0..rows).step_by(CHUNK_ROWS).map(|start| start..(start + CHUNK_ROWS).min(rows)).collect();
        std::thread::scope(|scope| {
            // The second thread runs at most two chunks ahead (one in the channel, one waiting to
            // go in); the channels close when either side stops.
            let (sender, receiver) = std::sync::mpsc::sync_channel::<String>(1);
            let (give_back, given_back) = std::sync::mpsc::channel::<String>();
            let odd = chunks.iter().skip(1).step_by(2);
            let second = scope.spawn(move || {
                odd.map(|chunk| {
                    let mut text = given_back.try_recv().unwrap_or_default();
                    self.lines_into(&mut text, chunk.clone(), layout);
                    text
                })
                .try_for_each(|lines| sender.send(lines))
            });
            let mut own = String::new();
            for (i, chunk) in chunks.iter().enumerate() {
                if i % 2 == 0 {
                    self.lines_into(&mut own, chunk.clone(), layout);
                    out.write_all(own.as_bytes())?;
                    continue;
                }
                let lines = receiver.recv().unwrap_or_else(|_| self.lines(chunk.clone(), layout));
                out.write_all(lines.as_bytes())?;
                // The second thread may have stopped: then the buffer is dropped here.
                let _ = give_back.send(lines);
            }
            // Joined here, so that a panic of the second thread, whose chunks this one then made,
            // is not raised again when the scope ends.
            let _ = second.join();
            Ok(())
        })
    }

    /// Appends the line of `row`, its cells padded to `layout`'s widths (as [`write_line`] does,
    /// each cell written in place unless it is a name to cut).
    fn line_into(&self, text: &mut String, row: &[Cell], layout: &Layout, scratch: &mut String) {
        let start = text.len();
        let last = layout.shown.len().saturating_sub(1);
        for (k, &c) in layout.shown.iter().enumerate() {
            if k > 0 {
                text.push_str("  ");
            }
            let width = layout.widths[k];
            // The last column's padding would only be trimmed.
            let pad_text = |text: &mut String, used: usize| {
                if k < last {
                    pad_into(text, width.saturating_sub(used));
                }
            };
            if let (Cell::Number(v, digits), false) = (&row[c], layout.text_columns[k]) {
                // Formatted aside, and measured by its length: a number is ASCII.
                scratch.clear();
                number_into(scratch, *v, *digits, layout.decimals);
                pad_into(text, width.saturating_sub(scratch.len()));
                text.push_str(scratch);
                continue;
            }
            let cell_width = self.cell_width(row, c, layout.decimals, &layout.text_widths, scratch);
            if cell_width > width {
                scratch.clear();
                self.cell_into(scratch, row, c, layout.decimals);
                let cut = cut_middle(scratch, width);
                text.push_str(&cut);
                pad_text(text, width_of(&cut));
            } else if layout.text_columns[k] {
                self.cell_into(text, row, c, layout.decimals);
                pad_text(text, cell_width);
            } else {
                pad_into(text, width - cell_width);
                self.cell_into(text, row, c, layout.decimals);
            }
        }
        // No space at the end of a line (an empty last cell, a name that ends in one).
        if text[start..].ends_with(char::is_whitespace) {
            text.truncate(start + text[start..].trim_end().len());
        }
        text.push('\n');
    }

    /// The text lines of the notes after the table.
    fn notes_into(&self, out: &mut String) {
        for (_, _, note) in self.notes.iter().filter(|(_, _, note)| !note.is_empty()) {
            let _ = writeln!(out, "{note}");
        }
    }

    /// Appends cell `column` of `row` as text to `buffer`: the name column of a tree indented by
    /// its depth.
    fn cell_into(&self, buffer: &mut String, row: &[Cell], column: usize, decimals: usize) {
        if let (Some((_, name)), Cell::Text(_)) = (self.indent, &row[column]) {
            if name == column {
                indent_into(buffer, self.depth_of(row));
            }
        }
        match &row[column] {
            Cell::Text(text) => buffer.push_str(self.text_of(*text)),
            Cell::Number(v, digits) => number_into(buffer, *v, *digits, decimals),
            Cell::Flag(true) => buffer.push('*'),
            Cell::Empty | Cell::Flag(false) => {}
        }
    }

    /// `#.ch.CH∆Q: total 23.8 ms (33.7 % of all), 311 calls`.
    fn block_title(&self, block: &Block, style: TextStyle) -> String {
        let total = self.amount_text(block.total, style);
        let pct = number(block.pct, Digits::Decimals, style.decimals);
        let calls = block.calls.map(|c| format!(", {c} calls")).unwrap_or_default();
        format!("{}: total {total} ({pct} % of all){calls}", block.name)
    }

    fn depth_of(&self, row: &[Cell]) -> usize {
        match self.indent.map(|(d, _)| &row[d]) {
            Some(Cell::Number(depth, _)) => *depth as usize,
            _ => 0,
        }
    }

    /// The report as CSV: a header of the column keys, then the rows, numbers in full.
    fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(self.columns.iter().map(|c| c.key.as_ref()));
        let mut field = String::new();
        self.for_rows(0..self.table.len(), &[], |row| {
            for cell in row {
                field.clear();
                self.full_into(&mut field, cell);
                let _ = writer.write_field(&field);
            }
            let _ = writer.write_record(None::<&[u8]>);
        });
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The report as one JSON object (docs/reports.md), its rows serialized from the table as they
    /// are written rather than built as values first.
    fn json(&self) -> String {
        let mut extra = Map::new();
        for (key, value, _) in &self.notes {
            extra.insert(key.to_string(), value.clone());
        }
        if let Some(blocks) = &self.blocks {
            let blocks = blocks.iter().map(|b| {
                json!({ "name": b.name, "total": whole_or_float(b.total), "pct": whole_or_float(b.pct), "calls": b.calls })
            });
            extra.insert("functions".into(), Json::Array(blocks.collect()));
        }
        let document = Document {
            report: self.kind,
            metric: &self.metric,
            unit: &self.unit,
            total: whole_or_float(self.total),
            selected: self.selected.map(whole_or_float),
            extra,
            rows: RowsJson(self),
        };
        serde_json::to_string_pretty(&document).unwrap_or_default()
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
    extra: Map<String, Json>,
    rows: RowsJson<'a>,
}

/// The rows of a report, each a JSON object keyed by its columns' keys, made as they are written.
struct RowsJson<'a>(&'a Report);

impl serde::Serialize for RowsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let report = self.0;
        let mut rows = serializer.serialize_seq(Some(report.table.len()))?;
        let mut cells = Vec::with_capacity(report.columns.len());
        for index in 0..report.table.len() {
            report.table.row_into(index, &mut cells);
            rows.serialize_element(&RowJson { report, cells: &cells })?;
        }
        rows.end()
    }
}

/// One row as a JSON object keyed by its columns' keys.
struct RowJson<'a> {
    report: &'a Report,
    cells: &'a [Cell],
}

impl serde::Serialize for RowJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.cells.len()))?;
        for (column, cell) in self.report.columns.iter().zip(self.cells) {
            map.serialize_entry(column.key.as_ref(), &self.report.cell_json(cell))?;
        }
        map.end()
    }
}

/// Appends a line of cells (`cell(i)` for column `i`) to `out`, each padded to its width: text on
/// the left, numbers on the right, two spaces between, none at the end.
fn write_line<'a>(out: &mut String, layout: &Layout, cell: impl Fn(usize) -> &'a str) {
    let (widths, text_columns) = (&layout.widths, &layout.text_columns);
    let start = out.len();
    for (i, &width) in widths.iter().enumerate() {
        let cell = cut_middle(cell(i), width);
        let pad = width - width_of(&cell);
        if !text_columns[i] {
            pad_into(out, pad);
        }
        out.push_str(&cell);
        if text_columns[i] {
            pad_into(out, pad);
        }
        out.push_str("  ");
    }
    out.truncate(start + out[start..].trim_end().len());
    out.push('\n');
}

/// Appends `n` spaces to `buffer`, a slice at a time.
fn pad_into(buffer: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let step = n.min(SPACES.len());
        buffer.push_str(&SPACES[..step]);
        n -= step;
    }
}

/// The width [`indent_into`] gives `depth`.
fn indent_width(depth: usize) -> usize {
    2 * depth.min(MAX_INDENT) + if depth > MAX_INDENT { decimal_digits(depth as u64) + 3 } else { 0 }
}

/// The number of decimal digits of `n`.
fn decimal_digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Two spaces per level of `depth`, up to [`MAX_INDENT`] levels; deeper, the depth shown (`[1000] `).
fn indent_into(buffer: &mut String, depth: usize) {
    pad_into(buffer, 2 * depth.min(MAX_INDENT));
    if depth > MAX_INDENT {
        let _ = write!(buffer, "[{depth}] ");
    }
}

/// The width of `text` in characters (its length, when it is ASCII).
fn width_of(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        // Terminal columns: a CJK character or an emoji takes two, a combining mark none.
        UnicodeWidthStr::width(text)
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

/// `text` cut to `width` terminal columns by taking out its middle, marked `…` (a wide character
/// that would straddle the cut is left out, so the result may be a column narrower).
pub fn cut_middle(text: &str, width: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= width || width == 0 || width_of(text) <= width {
        return std::borrow::Cow::Borrowed(text);
    }
    let keep = width - 1;
    let (head, tail) = (keep - keep / 2, keep / 2);
    let columns = |c: char| UnicodeWidthChar::width(c).unwrap_or(0);
    // The longest start and end that fit in `head` and `tail` columns.
    let fitting = |budget: usize, chars: &mut dyn Iterator<Item = char>| {
        let mut used = 0;
        chars
            .take_while(|&c| {
                used += columns(c);
                used <= budget
            })
            .collect::<Vec<char>>()
    };
    let start = fitting(head, &mut text.chars());
    let mut end = fitting(tail, &mut text.chars().rev());
    end.reverse();
    let mut out: String = start.into_iter().collect();
    out.push('…');
    out.extend(end);
    std::borrow::Cow::Owned(out)
}

/// A number for people: whole, or with `decimals` decimals.
fn number(v: f64, digits: Digits, decimals: usize) -> String {
    let mut text = String::new();
    number_into(&mut text, v, digits, decimals);
    text
}

/// Appends [`number`] to `buffer`; a whole number that fits an i64 exactly through `itoa`, which is
/// many times faster than formatting the float.
fn number_into(buffer: &mut String, v: f64, digits: Digits, decimals: usize) {
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
fn number_width(v: f64, digits: Digits, decimals: usize) -> Option<usize> {
    match digits {
        Digits::Whole if is_whole(v) => Some(usize::from((v as i64) < 0) + decimal_digits((v as i64).unsigned_abs())),
        Digits::Decimals => fixed_point(v, decimals).map(|scaled| decimal_digits(scaled).max(decimals + 1) + 1),
        Digits::Places(places) => number_width(v, Digits::Decimals, places.into()),
        _ => None,
    }
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

impl Report {
    /// Appends a cell for a script to `buffer`: numbers in full.
    fn full_into(&self, buffer: &mut String, cell: &Cell) {
        match cell {
            Cell::Text(t) => buffer.push_str(self.text_of(*t)),
            Cell::Number(v, _) => {
                let _ = write!(buffer, "{v}");
            }
            Cell::Flag(flag) => {
                let _ = write!(buffer, "{flag}");
            }
            Cell::Empty => {}
        }
    }

    /// A cell as JSON.
    fn cell_json(&self, cell: &Cell) -> Json {
        match cell {
            Cell::Text(t) => Json::String(self.text_of(*t).to_string()),
            Cell::Number(v, _) => whole_or_float(*v),
            Cell::Flag(flag) => Json::Bool(*flag),
            Cell::Empty => Json::Null,
        }
    }
}

/// A whole number as a JSON integer, any other as a float.
pub(crate) fn whole_or_float(v: f64) -> Json {
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
    fn names_are_cut_in_terminal_columns() {
        // Two columns per character: 5 columns hold two of them and the mark, one on each side.
        assert_eq!(cut_middle("処理する関数", 5), "処…数");
        assert_eq!(width_of(&cut_middle("処理する関数", 5)), 5);
        assert_eq!(cut_middle("処理する関数", 12), "処理する関数");
        assert_eq!(cut_middle("abcdefghij", 5), "ab…ij");
        assert_eq!(width_of("😀a"), 3);
    }

    fn summary(name: &str) -> Report {
        Report {
            kind: "summary",
            metric: "samples".into(),
            unit: "samples".into(),
            total: 10.0,
            selected: None,
            digits: Digits::Whole,
            columns: vec![Column::new("name", "name"), Column::new("total", "total"), Column::new("pct", "%")],
            texts: vec![name.into()],
            table: Box::new(Cells::new(
                3,
                vec![Cell::Text(0), Cell::Number(10.0, Digits::Whole), Cell::Number(100.0, Digits::Decimals)],
            )),
            notes: Vec::new(),
            blocks: None,
            indent: None,
            title: None,
        }
    }

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
    fn names_fit_the_width_only_when_one_is_given() {
        let report = summary("a_rather_long_function_name");
        let style = TextStyle { decimals: 1, decimals_given: false, width: None, unit: None };
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

    #[test]
    fn columns_are_as_wide_as_their_widest_cell() {
        let values = [
            0.0,
            -0.0,
            0.04,
            0.05,
            0.96,
            9.94,
            9.96,
            99.5,
            -0.4,
            -0.6,
            -9.96,
            123.0,
            -123.0,
            1e9,
            2.5e9,
            9.5e15,
            1e16,
            -1e16,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-9,
            5.0,
            1234.5678,
        ];
        // Each ordering of the values down the column, every kind of digits in its own column.
        for rotation in 0..values.len() {
            let mut order = values.to_vec();
            order.rotate_left(rotation);
            if rotation % 2 == 1 {
                order.reverse();
            }
            let mut report = summary("a");
            let cells = order.iter().flat_map(|&v| {
                [Cell::Number(v, Digits::Whole), Cell::Number(v, Digits::Decimals), Cell::Number(v, Digits::Signed)]
            });
            report.table = Box::new(Cells::new(3, cells.collect()));
            for decimals in 0..=3 {
                let measured = report.measure(0..order.len(), &[0, 1, 2], &[], decimals, &[]);
                for (column, digits) in [Digits::Whole, Digits::Decimals, Digits::Signed].into_iter().enumerate() {
                    let widest = order.iter().map(|&v| number(v, digits, decimals).len()).max();
                    assert_eq!(Some(measured.widths[column]), widest, "{digits:?} {decimals} {order:?}");
                }
            }
        }
    }

    #[test]
    fn negative_zero_is_measured_as_printed() {
        // `-0` (no decimals) and `-0.0000000` (7, past the fast path) are wider than `0` and than
        // `0.0000000`, whichever comes first.
        for decimals in [0, 1, 7] {
            for order in [[0.0, -0.0], [-0.0, 0.0]] {
                let mut report = summary("a");
                let cells = order.iter().map(|&v| Cell::Number(v, Digits::Decimals)).collect();
                report.table = Box::new(Cells::new(1, cells));
                let measured = report.measure(0..2, &[0], &[], decimals, &[]);
                let widest = order.iter().map(|&v| number(v, Digits::Decimals, decimals).len()).max();
                assert_eq!(Some(measured.widths[0]), widest, "{decimals} {order:?}");
            }
        }
    }

    #[test]
    fn a_long_table_is_written_in_order_on_two_threads() {
        let rows = 3 * CHUNK_ROWS + 7;
        assert!(rows >= PARALLEL_ROWS);
        let mut report = summary("a");
        report.texts = vec!["a".into(), "bb".into(), "ccc".into()];
        report.columns.truncate(2);
        let cells = (0..rows).flat_map(|i| [Cell::Text(i as u32 % 3), Cell::Number(i as f64, Digits::Whole)]);
        report.table = Box::new(Cells::new(2, cells.collect()));
        let text =
            report.render(Format::Text, TextStyle { decimals: 1, decimals_given: false, width: None, unit: None });
        let lines: Vec<&str> = text.lines().skip(3).collect();
        assert_eq!(lines.len(), rows);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(*line, format!("{:<4}  {:>5}", ["a", "bb", "ccc"][i % 3], i), "row {i}");
        }
    }

    #[test]
    fn names_are_cut_in_the_middle() {
        assert_eq!(cut_middle("abcdefghij", 5), "ab…ij");
        assert_eq!(cut_middle("abcdefghij", 6), "abc…ij");
        assert_eq!(cut_middle("abc", 5), "abc");
        assert_eq!(cut_middle("#.ch.CH∆Q", 4), "#.…Q");
    }
}
