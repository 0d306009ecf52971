//! A table as aligned text: every cell measured in terminal columns (`unicode-width`, so that CJK
//! and emoji names align), numbers on the right, names on the left, two spaces between.
//!
//! The lines are written as they are made, so that a table of a million rows is never held as one
//! string; a long table is measured and written on two threads.

use super::amounts::{scalings, Scaling};
use super::numbers::{number_into, number_width};
use super::{Cell, Table, TextStyle};
use crate::report::safe_text::in_a_cell;
use std::ops::Range;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Rows from which a table is measured and written on two threads.
const PARALLEL_ROWS: usize = 20_000;

/// Rows a thread writes lines of at a time.
const CHUNK_ROWS: usize = 16_384;

/// Text a printer puts before the text cells of one column, made from the row's cells (an indent):
/// measured and written with the cell, so that the column is as wide as both and a cut takes both.
pub trait Prefix: Sync {
    /// The width, in terminal columns, of what [`Prefix::write_into`] appends for `row`.
    fn width(&self, row: &[Cell]) -> usize;

    /// Appends the prefix of `row` to `buffer`.
    fn write_into(&self, buffer: &mut String, row: &[Cell]);
}

/// The widest cell of each shown column of some rows, and whether the column holds text.
struct Measure {
    widths: Vec<usize>,
    text: Vec<bool>,
}

/// How the lines of a table are laid out: the columns shown, their headings and widths, which hold
/// text, how amounts are scaled, and the width of every text.
pub struct Layout<'a> {
    table: &'a Table,
    /// The columns shown, in order, and the prefix of one of them.
    shown: Vec<usize>,
    prefix: Option<(usize, &'a dyn Prefix)>,
    /// Per column of the table, how its amounts are scaled.
    scalings: Vec<Option<Scaling>>,
    /// Per column shown: its heading, its width, whether it holds text.
    headings: Vec<String>,
    widths: Vec<usize>,
    text_columns: Vec<bool>,
    decimals: usize,
    /// Each of the table's texts as a cell shows it ([`in_a_cell`]), escaped once, and its width.
    texts: Vec<(std::borrow::Cow<'a, str>, usize)>,
    /// See [`TextStyle::whole_names`].
    whole_names: bool,
}

impl<'a> Layout<'a> {
    /// The layout of `table` in `style`, its `hidden` columns left out and `prefix`, where given,
    /// put before the text cells of its column: every cell measured, the names narrowed to the
    /// style's width where there is one.
    pub fn new(
        table: &'a Table,
        style: TextStyle,
        hidden: &[usize],
        prefix: Option<(usize, &'a dyn Prefix)>,
    ) -> Layout<'a> {
        let shown: Vec<usize> = (0..table.columns.len()).filter(|c| !hidden.contains(c)).collect();
        let (scalings, all_headings) = scalings(table, style);
        let headings = shown.iter().map(|&c| all_headings[c].clone()).collect();
        let texts = table
            .texts
            .iter()
            .map(|text| {
                let shown = in_a_cell(text);
                let width = width_of(&shown);
                (shown, width)
            })
            .collect();
        // The widths and text columns are what measuring finds: it reads only the rest.
        let (widths, text_columns) = (Vec::new(), Vec::new());
        let mut layout = Layout {
            table,
            shown,
            prefix,
            scalings,
            headings,
            widths,
            text_columns,
            decimals: style.decimals,
            texts,
            whole_names: style.whole_names,
        };
        let rows = table.rows.len();
        let parallel = rows >= PARALLEL_ROWS;
        let half = if parallel { rows / 2 } else { rows };
        let measure = |rows| layout.measure(rows);
        let (first, second) = std::thread::scope(|scope| {
            let second = parallel.then(|| scope.spawn(|| measure(half..rows)));
            (measure(0..half), second.map(|s| s.join().unwrap_or_else(|_| measure(half..rows))))
        });
        let mut widths: Vec<usize> = layout.headings.iter().map(|h| width_of(h)).collect();
        // A column is of text if a cell of it is, or, in an empty table, if it is the name.
        let mut text_columns: Vec<bool> =
            layout.shown.iter().map(|&c| rows == 0 && table.columns[c].key == "name").collect();
        for part in std::iter::once(first).chain(second) {
            widths.iter_mut().zip(part.widths).for_each(|(w, p)| *w = (*w).max(p));
            text_columns.iter_mut().zip(part.text).for_each(|(t, p)| *t |= p);
        }
        if let Some(limit) = style.width {
            fit_names(&mut widths, &text_columns, limit);
        }
        (layout.widths, layout.text_columns) = (widths, text_columns);
        layout
    }

    /// Writes the line of the column headings, then the line of every row.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut headings = String::new();
        self.headings_into(&mut headings);
        out.write_all(headings.as_bytes())?;
        self.write_lines(out, 0..self.table.rows.len())
    }

    /// Appends the line of the column headings.
    pub fn headings_into(&self, out: &mut String) {
        let start = out.len();
        for (k, &width) in self.widths.iter().enumerate() {
            let heading = cut_middle(&self.headings[k], width);
            let pad = width - width_of(&heading);
            if !self.text_columns[k] {
                pad_into(out, pad);
            }
            out.push_str(&heading);
            if self.text_columns[k] {
                pad_into(out, pad);
            }
            out.push_str("  ");
        }
        out.truncate(start + out[start..].trim_end().len());
        out.push('\n');
    }

    /// Appends the lines of `rows`.
    pub fn lines_into(&self, text: &mut String, rows: Range<usize>) {
        text.reserve(rows.len() * (self.widths.iter().sum::<usize>() + 2 * self.widths.len()));
        let mut scratch = String::new();
        self.for_rows(rows, |row| self.line_into(text, row, &mut scratch));
    }

    /// Writes the lines of `rows`: a long run of them a chunk at a time on two threads.
    fn write_lines(&self, out: &mut dyn std::io::Write, rows: Range<usize>) -> std::io::Result<()> {
        if rows.len() >= PARALLEL_ROWS {
            return self.write_lines_on_two_threads(out, rows);
        }
        let mut text = String::new();
        self.lines_into(&mut text, rows);
        out.write_all(text.as_bytes())
    }

    /// Calls `f` with each row of `range` in turn, the amounts of the columns it scales as text
    /// shows them.
    fn for_rows(&self, range: Range<usize>, mut f: impl FnMut(&[Cell])) {
        let scaled: Vec<(usize, &Scaling)> =
            self.scalings.iter().enumerate().filter_map(|(c, s)| s.as_ref().map(|s| (c, s))).collect();
        let mut row = Vec::with_capacity(self.table.columns.len());
        for index in range {
            self.table.rows.row_into(index, &mut row);
            for &(c, scaling) in &scaled {
                if let Cell::Number(v, digits) = row[c] {
                    row[c] = Cell::Number(v / scaling.divisor, scaling.digits(digits));
                }
            }
            f(&row);
        }
    }

    /// The widest of each shown cell of `rows`, and which of them hold text.
    fn measure(&self, rows: Range<usize>) -> Measure {
        let shown = &self.shown;
        let mut measure = Measure { widths: vec![0; shown.len()], text: vec![false; shown.len()] };
        let mut scratch = String::new();
        // Per column, kind of digits and sign: the largest magnitude measured. A number's width
        // grows with its magnitude (rounding is monotone), so one no larger is no wider.
        let mut largest = vec![[-1.0f64; 10]; shown.len()];
        self.for_rows(rows, |row| {
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
                measure.widths[k] = measure.widths[k].max(self.cell_width(row, c, &mut scratch));
                measure.text[k] |= matches!(row[c], Cell::Text(_));
            }
        });
        measure
    }

    /// The width [`Layout::cell_into`] gives cell `column` of `row`, counted without formatting it
    /// where that is sure (texts, whole numbers, decimals the fast path rounds), else measured
    /// after formatting it into `scratch`.
    fn cell_width(&self, row: &[Cell], column: usize, scratch: &mut String) -> usize {
        match row[column] {
            Cell::Text(text) => {
                let prefix = self.prefix_of(column).map_or(0, |prefix| prefix.width(row));
                prefix + self.texts.get(text as usize).map_or(0, |(_, width)| *width)
            }
            Cell::Number(v, digits) => number_width(v, digits, self.decimals).unwrap_or_else(|| {
                scratch.clear();
                self.cell_into(scratch, row, column);
                width_of(scratch)
            }),
            Cell::Flag(true) => 1,
            Cell::Empty | Cell::Flag(false) => 0,
        }
    }

    /// The prefix of the text cells of `column`, if it has one.
    fn prefix_of(&self, column: usize) -> Option<&'a dyn Prefix> {
        self.prefix.filter(|&(prefixed, _)| prefixed == column).map(|(_, prefix)| prefix)
    }

    /// Appends cell `column` of `row` as text to `buffer`, a text cell after its prefix.
    fn cell_into(&self, buffer: &mut String, row: &[Cell], column: usize) {
        match &row[column] {
            Cell::Text(text) => {
                if let Some(prefix) = self.prefix_of(column) {
                    prefix.write_into(buffer, row);
                }
                buffer.push_str(self.texts.get(*text as usize).map_or("", |(shown, _)| shown));
            }
            Cell::Number(v, digits) => number_into(buffer, *v, *digits, self.decimals),
            Cell::Flag(true) => buffer.push('*'),
            Cell::Empty | Cell::Flag(false) => {}
        }
    }

    /// Appends the line of `row`, its cells padded to the widths (as [`Layout::headings_into`]
    /// pads the headings, each cell written in place unless it is a name to cut).
    fn line_into(&self, text: &mut String, row: &[Cell], scratch: &mut String) {
        let start = text.len();
        let mut own_line: Option<String> = None;
        let last = self.shown.len().saturating_sub(1);
        for (k, &c) in self.shown.iter().enumerate() {
            if k > 0 {
                text.push_str("  ");
            }
            let width = self.widths[k];
            // The last column's padding would only be trimmed.
            let pad_text = |text: &mut String, used: usize| {
                if k < last {
                    pad_into(text, width.saturating_sub(used));
                }
            };
            if let (Cell::Number(v, digits), false) = (&row[c], self.text_columns[k]) {
                // Formatted aside, and measured by its length: a number is ASCII.
                scratch.clear();
                number_into(scratch, *v, *digits, self.decimals);
                pad_into(text, width.saturating_sub(scratch.len()));
                text.push_str(scratch);
                continue;
            }
            let cell_width = self.cell_width(row, c, scratch);
            if cell_width > width && self.whole_names {
                let mut whole = String::new();
                self.cell_into(&mut whole, row, c);
                own_line = Some(whole);
                pad_text(text, 0);
            } else if cell_width > width {
                scratch.clear();
                self.cell_into(scratch, row, c);
                let cut = cut_middle(scratch, width);
                text.push_str(&cut);
                pad_text(text, width_of(&cut));
            } else if self.text_columns[k] {
                self.cell_into(text, row, c);
                pad_text(text, cell_width);
            } else {
                pad_into(text, width - cell_width);
                self.cell_into(text, row, c);
            }
        }
        // No space at the end of a line (an empty last cell, a name that ends in one).
        if text[start..].ends_with(char::is_whitespace) {
            text.truncate(start + text[start..].trim_end().len());
        }
        text.push('\n');
        if let Some(name) = own_line {
            text.insert_str(start, &format!("{name}\n"));
        }
    }

    /// Writes the lines of `rows` a chunk at a time, the odd chunks made on a second thread while
    /// this one makes and writes the even ones. The second thread's buffers come back to it once
    /// written: a buffer the size of a chunk is fresh memory from the system each time it is
    /// allocated anew.
    fn write_lines_on_two_threads(&self, out: &mut dyn std::io::Write, rows: Range<usize>) -> std::io::Result<()> {
        let end = rows.end;
        let chunks: Vec<Range<usize>> =
            rows.step_by(CHUNK_ROWS).map(|start| start..(start + CHUNK_ROWS).min(end)).collect();
        let lines = |text: &mut String, chunk: &Range<usize>| {
            text.clear();
            self.lines_into(text, chunk.clone());
        };
        std::thread::scope(|scope| {
            // The second thread runs at most two chunks ahead (one in the channel, one waiting to
            // go in); the channels close when either side stops.
            let (sender, receiver) = std::sync::mpsc::sync_channel::<String>(1);
            let (give_back, given_back) = std::sync::mpsc::channel::<String>();
            let odd = chunks.iter().skip(1).step_by(2);
            let second = scope.spawn(move || {
                odd.map(|chunk| {
                    let mut text = given_back.try_recv().unwrap_or_default();
                    lines(&mut text, chunk);
                    text
                })
                .try_for_each(|text| sender.send(text))
            });
            let mut own = String::new();
            for (i, chunk) in chunks.iter().enumerate() {
                if i % 2 == 0 {
                    lines(&mut own, chunk);
                    out.write_all(own.as_bytes())?;
                    continue;
                }
                let text = receiver.recv().unwrap_or_else(|_| {
                    let mut text = String::new();
                    lines(&mut text, chunk);
                    text
                });
                out.write_all(text.as_bytes())?;
                // The second thread may have stopped: then the buffer is dropped here.
                let _ = give_back.send(text);
            }
            // Joined here, so that a panic of the second thread, whose chunks this one then made,
            // is not raised again when the scope ends.
            let _ = second.join();
            Ok(())
        })
    }
}

/// Appends `n` spaces to `buffer`, a slice at a time.
pub fn pad_into(buffer: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let step = n.min(SPACES.len());
        buffer.push_str(&SPACES[..step]);
        n -= step;
    }
}

/// The width of `text` in terminal columns as the reports show it (its length, when it is ASCII
/// and shown as it is): a character a terminal would act on takes the width of its escape, which
/// [`crate::report::safe_text::SafeText`] writes after the padding is counted.
fn width_of(text: &str) -> usize {
    let shown = crate::report::safe_text::shown(text);
    if shown.is_ascii() {
        shown.len()
    } else {
        // Terminal columns: a CJK character or an emoji takes two, a combining mark none.
        UnicodeWidthStr::width(&*shown)
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
fn cut_middle(text: &str, width: usize) -> std::borrow::Cow<'_, str> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::{Cells, Column, Digits};

    const STYLE: TextStyle =
        TextStyle { decimals: 1, decimals_given: false, width: None, unit: None, whole_names: false };

    /// A name is as wide as the reports show it: a character a terminal would act on as its escape
    /// (`ctl\u{1}`: 3 + 5 columns; `rtl \u{202e}`: 4 + 8), once counted as one column or none, so
    /// that the numbers after such a name stood further right than the others'.
    #[test]
    fn a_name_is_as_wide_as_its_escapes() {
        assert_eq!(width_of("ctl\u{1}"), 8);
        assert_eq!(width_of("rtl \u{202e}"), 12);
        assert_eq!((width_of("emoji😀"), width_of("plain")), (7, 5));
    }

    /// A name's line break or tab is shown as its escape, counted in its width: once written as it
    /// was, it split the row in two, or pushed the numbers after it out of their columns.
    #[test]
    fn a_line_break_or_tab_in_a_name_stays_in_its_row() {
        let shown = text(&table("a\nb\tc"), STYLE, None);
        assert_eq!(shown, "name           total      %\na\\u{a}b\\u{9}c     10  100.0\n");
    }

    /// A table of one row: `name`, 10, 100 %.
    fn table(name: &str) -> Table {
        Table {
            columns: vec![Column::new("name", "name"), Column::new("total", "total"), Column::new("pct", "%")],
            rows: Box::new(Cells::new(
                3,
                vec![Cell::Text(0), Cell::Number(10.0, Digits::Whole), Cell::Number(100.0, Digits::Decimals)],
            )),
            texts: vec![name.into()],
        }
    }

    /// The heading line and the lines of `table` in `style`, with `prefix` before column 0's cells.
    fn text(table: &Table, style: TextStyle, prefix: Option<(usize, &dyn Prefix)>) -> String {
        let mut out = Vec::new();
        Layout::new(table, style, &[], prefix).write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn names_are_cut_in_terminal_columns() {
        // Two columns per character: 5 columns hold two of them and the mark, one on each side.
        assert_eq!(cut_middle("処理する関数", 5), "処…数");
        assert_eq!(width_of(&cut_middle("処理する関数", 5)), 5);
        assert_eq!(cut_middle("処理する関数", 12), "処理する関数");
        assert_eq!(cut_middle("abcdefghij", 5), "ab…ij");
        assert_eq!(width_of("😀a"), 3);
    }

    #[test]
    fn names_fit_the_width_only_when_one_is_given() {
        let table = table("a_rather_long_function_name");
        assert_eq!(text(&table, STYLE, None).lines().nth(1), Some("a_rather_long_function_name     10  100.0"));
        // 20 columns: "total" and "%" take 5 + 5 and two gaps of 2, which would leave the name 6, but
        // it keeps 12: 6 first characters, "…", 5 last.
        let narrow = text(&table, TextStyle { width: Some(20), ..STYLE }, None);
        assert_eq!(narrow.lines().nth(1), Some("a_rath…_name     10  100.0"));
        // 30 columns leave the name 16: 8 first, "…", 7 last.
        let fitting = text(&table, TextStyle { width: Some(30), ..STYLE }, None);
        assert_eq!(fitting.lines().nth(1), Some("a_rather…on_name     10  100.0"));
    }

    /// As many `>` as the row's total.
    struct Arrows;

    impl Prefix for Arrows {
        fn width(&self, row: &[Cell]) -> usize {
            match row[1] {
                Cell::Number(n, _) => n as usize,
                _ => 0,
            }
        }

        fn write_into(&self, buffer: &mut String, row: &[Cell]) {
            buffer.extend(std::iter::repeat_n('>', self.width(row)));
        }
    }

    #[test]
    fn a_prefix_is_measured_and_cut_with_its_cell() {
        let table = table("処理");
        assert_eq!(
            text(&table, STYLE, Some((0, &Arrows))),
            "name            total      %\n>>>>>>>>>>処理     10  100.0\n"
        );
        let narrow = text(&table, TextStyle { width: Some(20), ..STYLE }, Some((0, &Arrows)));
        assert_eq!(narrow.lines().nth(1), Some(">>>>>>…>処理     10  100.0"));
        // Not before another column's cells.
        assert_eq!(text(&table, STYLE, Some((1, &Arrows))).lines().nth(1), Some("処理     10  100.0"));
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
            let mut table = table("a");
            let cells = order.iter().flat_map(|&v| {
                [Cell::Number(v, Digits::Whole), Cell::Number(v, Digits::Decimals), Cell::Number(v, Digits::Signed)]
            });
            table.rows = Box::new(Cells::new(3, cells.collect()));
            for decimals in 0..=3 {
                let measured = Layout::new(&table, TextStyle { decimals, ..STYLE }, &[], None).measure(0..order.len());
                for (column, digits) in [Digits::Whole, Digits::Decimals, Digits::Signed].into_iter().enumerate() {
                    let widest = order.iter().map(|&v| super::super::numbers::number(v, digits, decimals).len()).max();
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
                let mut table = table("a");
                table.columns.truncate(1);
                table.rows =
                    Box::new(Cells::new(1, order.iter().map(|&v| Cell::Number(v, Digits::Decimals)).collect()));
                let measured = Layout::new(&table, TextStyle { decimals, ..STYLE }, &[], None).measure(0..2);
                let widest =
                    order.iter().map(|&v| super::super::numbers::number(v, Digits::Decimals, decimals).len()).max();
                assert_eq!(Some(measured.widths[0]), widest, "{decimals} {order:?}");
            }
        }
    }

    #[test]
    fn a_long_table_is_written_in_order_on_two_threads() {
        let rows = 3 * CHUNK_ROWS + 7;
        assert!(rows >= PARALLEL_ROWS);
        let mut table = table("a");
        table.texts = vec!["a".into(), "bb".into(), "ccc".into()];
        table.columns.truncate(2);
        let cells = (0..rows).flat_map(|i| [Cell::Text(i as u32 % 3), Cell::Number(i as f64, Digits::Whole)]);
        table.rows = Box::new(Cells::new(2, cells.collect()));
        let text = text(&table, STYLE, None);
        let lines: Vec<&str> = text.lines().skip(1).collect();
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
