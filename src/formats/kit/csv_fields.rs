//! Tables of comma-separated values as the Windows profilers' exports write them (Visual Studio's
//! reports, xperf's tables): a header naming the columns ([`Header`]), then a row a line. A format
//! states what its columns are and what a row is ([`Table`]); [`Rows`] is the grammar of lines
//! that reads them. A field in quotes holds commas, and `""` is a quote in it; spaces after a comma are
//! passed over (xperf writes `, `); a comma that ends the line (as Visual Studio ends each) starts no
//! field.

use super::lines::StackLines;
use super::sink::{Missing, StackSink};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::text::Line;
use std::borrow::Cow;

/// A format's table of stacks: its header's columns, and what each row adds to the stacks.
pub(crate) trait Table: Default {
    /// The format's name in errors and warnings.
    const FORMAT: FormatName;
    /// What an input without a row should have held.
    const MISSING: Missing;
    /// Where the header puts the columns the format reads.
    type Columns;

    /// The columns of the header `header` and how many fields a row has at least (one past the last
    /// column read), or the error of a header without a column the format needs.
    fn columns(header: &Header<'_, '_>) -> Result<(Self::Columns, usize), ParseError>;

    /// Reads the row `row` of `line`, giving its stack to `sink`.
    fn row(
        &mut self,
        columns: &Self::Columns,
        row: &[Cow<'_, str>],
        line: &Line<'_>,
        sink: &mut StackSink,
    ) -> Result<(), ParseError>;

    /// At the end of the input, after the rows of a table whose header had `columns`.
    fn end(&mut self, columns: &Self::Columns, sink: &mut StackSink) {
        let _ = (columns, sink);
    }
}

/// The grammar of the lines of a [`Table`]: its header, then its rows; blank lines are passed over.
pub(crate) struct Rows<T: Table> {
    table: T,
    /// The header's columns and a row's least width, once read.
    columns: Option<(T::Columns, usize)>,
}

impl<T: Table> Default for Rows<T> {
    fn default() -> Rows<T> {
        Rows { table: T::default(), columns: None }
    }
}

impl<T: Table> StackLines for Rows<T> {
    const FORMAT: FormatName = T::FORMAT;
    const MISSING: Option<Missing> = Some(T::MISSING);

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        if line.text.trim_end().is_empty() {
            return Ok(());
        }
        let Some((columns, width)) = &self.columns else {
            self.columns = Some(T::columns(&Header::of(line))?);
            return Ok(());
        };
        let row = row(line, *width)?;
        self.table.row(columns, &row, line, sink)
    }

    fn end(&mut self, sink: &mut StackSink, _: Position) -> Result<(), ParseError> {
        if let Some((columns, _)) = &self.columns {
            self.table.end(columns, sink);
        }
        Ok(())
    }
}

/// A header line's columns, found by their names.
pub(crate) struct Header<'l, 'a> {
    line: &'l Line<'a>,
    names: Vec<Cow<'a, str>>,
}

impl<'l, 'a> Header<'l, 'a> {
    /// The columns of the header `line`.
    pub(crate) fn of(line: &'l Line<'a>) -> Header<'l, 'a> {
        Header { line, names: fields(line.text.trim_end()).collect() }
    }

    /// The index of the column `name`, where the header has it.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|field| field.trim_end() == name)
    }

    /// The index of the column `name`; the error at the header's line where it has none.
    pub(crate) fn required(&self, name: &str) -> Result<usize, ParseError> {
        self.find(name).ok_or_else(|| self.refused(format!("a header with a `{name}` column")))
    }

    /// The error of a header that is not the `expected` one, at its line.
    pub(crate) fn refused(&self, expected: impl Into<String>) -> ParseError {
        self.line.unexpected(expected, crate::error::excerpt(self.line.text.as_bytes()))
    }
}

/// The fields of the row `line` of a table whose columns read need `width` fields; the error at
/// `line` of a row with fewer.
fn row<'a>(line: &Line<'a>, width: usize) -> Result<Vec<Cow<'a, str>>, ParseError> {
    let row: Vec<Cow<'a, str>> = fields(line.text.trim_end()).collect();
    if row.len() < width {
        let found = format!("{} field{}", row.len(), if row.len() == 1 { "" } else { "s" });
        return Err(line.unexpected(format!("{width} fields, as the header's columns need"), found));
    }
    Ok(row)
}

/// The fields of a line of comma-separated values (see the module documentation).
pub(crate) fn fields(line: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let mut rest = Some(line).filter(|line| !line.is_empty());
    std::iter::from_fn(move || {
        let text = rest?.trim_start_matches(' ');
        let (field, after) = match text.strip_prefix('"') {
            Some(quoted) => quoted_field(quoted),
            None => match text.split_once(',') {
                Some((field, after)) => (Cow::Borrowed(field), Some(after)),
                None => (Cow::Borrowed(text), None),
            },
        };
        rest = after.filter(|after| !after.is_empty());
        Some(field)
    })
}

/// The field of `text`, the rest of a line after a field's opening quote, and the line after the
/// comma that ends it.
fn quoted_field(text: &str) -> (Cow<'_, str>, Option<&str>) {
    let mut value = String::new();
    let mut rest = text;
    loop {
        match rest.split_once('"') {
            Some((part, after)) if after.starts_with('"') => {
                value.push_str(part);
                value.push('"');
                rest = &after[1..];
            }
            Some((part, after)) => {
                let field = if value.is_empty() { Cow::Borrowed(part) } else { Cow::Owned(value + part) };
                let after = after.split_once(',').map(|(_, after)| after);
                return (field, after);
            }
            None => return (Cow::Owned(value + rest), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_split_at_commas_outside_quotes() {
        let split = |line| fields(line).map(Cow::into_owned).collect::<Vec<_>>();
        assert_eq!(split(r#"2,"f(a,b)","2,893,824",54.37,"","#), ["2", "f(a,b)", "2,893,824", "54.37", ""]);
        assert_eq!(split(r#"1,"say ""hi""",x"#), ["1", r#"say "hi""#, "x"]);
        assert_eq!(split("a,,b"), ["a", "", "b"]);
        assert_eq!(split(r#"a, b,  "c, d""#), ["a", "b", "c, d"]);
    }
}
