//! Dyalog APL `]PROFILE … -format=csv` reports: tree, data and summary reports as UTF-8 CSV.
//!
//! ```text
//! "Depth","Element","Line","Calls","ExclusiveTime","InclusiveTime"
//! 0,"#.Samples.Sample",¯1,1,19.362,61.828
//! 1,"#.Samples.Sample",7,1,0.874,2.388
//! 2,"#.SharpPlot.ConstructorDefault",¯1,1,0.007,1.513
//! ```
//!
//! **Grammar** (the examples of Dyalog's `]PROFILE` documentation): a header row of quoted column names (the XML element names; the
//! summary report calls its time `Time`), then one row per report row: names quoted, numbers bare,
//! a function row's Line empty or `¯1`. `-separators="DF"` sets the decimal mark D and the field
//! separator F (default `.,`; `,;` for spreadsheets that use a decimal comma, as in
//! `"#.psb.DrawWedge";;2;0,011;0,021`). The reader takes F from the header (the character after the
//! first quoted name) and D from the numbers of the first rows; `--dyalog-separators` forces both.
//! CRLF is accepted. Rows and their meaning are in the [parent module](super).
//!
//! **Model**: as for XML; a CSV has no settings, so the report kind (`dyalog.report`, shared with
//! XML: tree with a Depth column, summary with a Time column, else data) and separators other than
//! `.,` (`dyalog-csv.separators`) are kept as header facts for the round trip, as is the total time
//! a PctOfTot column's percentages are of (`dyalog.total`, from the first row: a CSV has no
//! TotalTime). **Writing**: the columns of
//! the report kind, with the separators of `--dyalog-separators`, else those read, else `.,`.
//! **Lost**: the title, which a CSV report has no place for; line breaks in names (a row is one
//! line: proftool reads a file line by line, on two threads, and writes a space for each); and as for
//! XML.

use super::build::ReportBuilder;
use super::{report_of_columns, report_rows, Column, Row, Separators};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::shared::runs_as_formula;
use crate::formats::spec::{Reads, Rules, Sniff, Spec, Writes};
use crate::model::{FrameKind, FrameTable, Profile};
use crate::text;
use std::io::{Read, Write};
use std::ops::Range;

/// What Dyalog's CSV format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "dyalog-csv",
    description: "Dyalog APL `]PROFILE` report as CSV",
    extensions: &["csv"],
    carries: super::carries(true),
    reads: Some(Reads::text(sniff, |input, options, diag| {
        read(input, &options.formats.get(), options.merge_lines, diag)
    })),
    writes: Some(Writes::new(
        |profile, to| write(profile, to.out, to.options.formats.get::<super::Options>().separators, to.diag),
        Rules {
            no_stack_file: Some("a Dyalog CSV report of none is its header alone"),
            ..super::rules(|profile, _, diag| super::fit(profile, FORMAT, diag), false)
        },
    )),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The header attr that holds separators other than the default.
const SEPARATORS: &str = "dyalog-csv.separators";

/// Yes when the first line is a header of quoted Dyalog column names that names the function.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let Some(names) = header_names(head) else { return Sniff::No };
    let known = names.iter().all(|n| Column::from_name(n.as_bytes()).is_some());
    let element = names.iter().any(|n| Column::from_name(n.as_bytes()) == Some(Column::Element));
    if known && element && names.len() > 1 {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// The first line without a byte-order mark and line end.
fn first_line(head: &[u8]) -> &[u8] {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let line = head.split(|&b| b == b'\n').next().unwrap_or(head);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The quoted names of a header line, if it is one.
fn header_names(head: &[u8]) -> Option<Vec<String>> {
    let line = std::str::from_utf8(first_line(head)).ok()?;
    let field = field_separator(line.as_bytes())?;
    line.split(field)
        .map(|name| name.trim().strip_prefix('"').and_then(|n| n.strip_suffix('"')).map(str::to_string))
        .collect()
}

/// The field separator: the character after the header's first quoted name.
fn field_separator(line: &[u8]) -> Option<char> {
    let rest = std::str::from_utf8(line).ok()?.strip_prefix('"')?;
    let after = &rest[rest.find('"')? + 1..];
    Some(after.trim_start_matches(' ').chars().next().unwrap_or(','))
}

/// The separators of a file from its first bytes: the field separator from the header, the decimal
/// mark from numbers in the rows (a comma can only be one when it does not separate fields).
fn detect_separators(head: &[u8]) -> Separators {
    let field = field_separator(first_line(head)).unwrap_or(',');
    if field == ',' {
        return Separators { decimal: '.', field };
    }
    let rows = head.split(|&b| b == b'\n').skip(1);
    let mark_between_digits =
        |line: &[u8], mark: u8| line.windows(3).any(|w| w[0].is_ascii_digit() && w[1] == mark && w[2].is_ascii_digit());
    let decimal = rows
        .filter_map(|line| {
            let unquoted: Vec<u8> = line.split(|&b| b == b'"').step_by(2).flatten().copied().collect();
            if mark_between_digits(&unquoted, b',') {
                Some(',')
            } else if mark_between_digits(&unquoted, b'.') {
                Some('.')
            } else {
                None
            }
        })
        .next();
    Separators { decimal: decimal.unwrap_or(if field == ';' { ',' } else { '.' }), field }
}

/// Reads a `]PROFILE` CSV report, with `separators` when given, else the file's own (line rows
/// merged into their functions with `merge_lines`).
///
/// Lines are split into fields, numbers parsed and function names hashed on a second thread
/// ([`text::pipeline`]); names are slices of the checked block. A Dyalog name has no quotes or
/// line breaks, so a row is one line and its fields are found in one pass over it; a line that
/// quotes otherwise (a doubled `""`, text after a closing quote) is read by the csv crate.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &super::Options,
    merge_lines: bool,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let separators = options.separators;
    let io_error = |e: std::io::Error| ParseError { format: FORMAT, position: Position::default(), kind: e.into() };
    let mut head = Vec::new();
    input.take(HEAD).read_to_end(&mut head).map_err(io_error)?;
    let separators = separators.unwrap_or_else(|| detect_separators(&head));
    // Fields are split byte by byte, at a separator that cannot be part of another character.
    let field = u8::try_from(u32::from(separators.field)).ok().filter(u8::is_ascii).ok_or_else(|| ParseError {
        format: FORMAT,
        position: Position::default(),
        kind: ParseErrorKind::Unexpected {
            expected: "an ASCII field separator".into(),
            found: format!("{:?}", separators.field),
        },
    })?;
    let header = std::str::from_utf8(first_line(&head)).map_err(|e| ParseError {
        format: FORMAT,
        position: Position { byte: e.valid_up_to() as u64, line: Some(1), column: None },
        kind: ParseErrorKind::Encoding { found: Some(crate::error::excerpt(&first_line(&head)[e.valid_up_to()..])) },
    })?;
    if header.trim().is_empty() {
        let kind = ParseErrorKind::MissingMarker { format: FORMAT, expected: "a header row of quoted column names" };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    }
    let columns = header_columns(header, field, diag)?;
    let known: Vec<Column> = columns.iter().flatten().copied().collect();
    let report = report_of_columns(&known);
    let total = percent_total(&head, &columns, field, separators.decimal);
    let mut builder = ReportBuilder::new(FORMAT, &known, merge_lines);
    let prepare = |line: &str| {
        parse_row(line, &columns, field, separators.decimal).map(|(name, row)| {
            // A function row's name is looked up in the frame table: hashed here, on the parsing
            // thread, which has less to do than the building one.
            let hash = row.line.is_none().then(|| FrameTable::name_hash(name.text(line), FrameKind::Function));
            (name, hash, row)
        })
    };
    let mut input = std::io::Cursor::new(head).chain(input);
    let (mut rows, mut last_line) = (0u64, Position::line(1, 0));
    text::pipeline(&mut input, FORMAT, prepare, |line, parsed| {
        last_line = line.position;
        // ]PROFILE ends every row: a last row without its break was cut short.
        line.warn_if_cut_short("its last field may be cut", diag);
        // The header, read above, and blank lines (which the csv crate skips too) are no rows.
        if line.position.line == Some(1) || line.text.is_empty() {
            return Ok(());
        }
        let (name, hash, row) = parsed.map_err(|e| e.at_line(&line))?;
        rows += 1;
        builder.add(name.text(line.text), hash, &row).map_err(|kind| line.error(kind))
    })?;
    if rows == 0 {
        // A header and no row: a file cut right after its first line (]PROFILE writes a row for
        // every function it timed); no profile to convert.
        return Err(ParseError {
            format: FORMAT,
            position: last_line,
            kind: ParseErrorKind::Unexpected {
                expected: "a row after the header".into(),
                found: "the end of the input: the report holds no row (it looks cut short)".into(),
            },
        });
    }
    let meta = builder.meta_mut();
    meta.report.kind = Some(report);
    meta.report.percentages_of = total;
    if separators != Separators::default() {
        meta.attrs.push((SEPARATORS.to_string(), format!("{}{}", separators.decimal, separators.field)));
    }
    Ok(builder.finish(None, diag))
}

/// The total time the report's percentages are of (its TotalTime, which a CSV does not hold), from
/// its first row that has a time and a PctOfTot above 0: time × 100 / PctOfTot, to PctOfTot's ten
/// significant digits. Read from the head of the input, once per file.
fn percent_total(head: &[u8], columns: &[Option<Column>], field: u8, decimal: char) -> Option<f64> {
    let find = |wanted: &[Column]| columns.iter().position(|c| c.is_some_and(|c| wanted.contains(&c)));
    let (pct, time) = (find(&[Column::PctOfTot])?, find(&[Column::Time, Column::InclusiveTime])?);
    let rows = head.split(|&b| b == b'\n').skip(1).filter_map(|line| std::str::from_utf8(line).ok());
    rows.filter_map(|line| {
        let fields = split(line.trim_end_matches('\r'), field).ok()?;
        let number = |i: usize| {
            let mut row = Row::default();
            row.set(Column::Time, fields.get(i)?, decimal, true).ok()?;
            Some(row.time[1])
        };
        let (pct, time) = (number(pct)?, number(time)?);
        // Kept to the last digit: rounded, its percentages would no longer come back as read.
        (pct > 0.0).then(|| time * 100.0 / pct)
    })
    .next()
}

/// How much of the input separators are detected from.
const HEAD: u64 = 64 * 1024;

/// The name of a row parsed on the reader thread: where it is in its line, or, unquoted by the csv
/// crate, itself.
enum RowName {
    At(Range<usize>),
    Unquoted(String),
}

impl RowName {
    /// The name of a row of `line`, without the `'` the writer guards a name a spreadsheet would run
    /// as a formula with (a Dyalog name never begins with a quote).
    fn text<'a>(&'a self, line: &'a str) -> &'a str {
        let name = match self {
            RowName::At(range) => &line[range.clone()],
            RowName::Unquoted(name) => name,
        };
        match name.strip_prefix('\'') {
            Some(guarded) if runs_as_formula(guarded) => guarded,
            _ => name,
        }
    }
}

/// One row parsed on the reader thread: its name and values (an error boxed, so that a row travels
/// in a few words).
type ParsedRow = Result<(RowName, Row), Box<RowError>>;

/// Why a row is not one, and where in its line (the field's byte offset), when that is known.
#[derive(Debug)]
struct RowError {
    kind: ParseErrorKind,
    at: Option<usize>,
}

impl RowError {
    fn new(kind: ParseErrorKind) -> Box<RowError> {
        Box::new(RowError { kind, at: None })
    }

    /// The error, at its field of `line` when known.
    fn at_line(self, line: &text::Line<'_>) -> ParseError {
        match self.at {
            Some(at) => line.error_at(at, self.kind),
            None => line.error(self.kind),
        }
    }
}

impl From<ParseErrorKind> for Box<RowError> {
    fn from(kind: ParseErrorKind) -> Box<RowError> {
        RowError::new(kind)
    }
}

/// A row being parsed field by field.
struct RowFields<'c> {
    columns: &'c [Option<Column>],
    decimal: char,
    row: Row,
    name: RowName,
    count: usize,
}

impl RowFields<'_> {
    /// Takes the next field, `text`, found `at` (the name is kept as where it is).
    fn take(&mut self, text: &str, at: impl FnOnce() -> RowName) -> Result<(), ParseErrorKind> {
        match self.columns.get(self.count).copied().flatten() {
            Some(Column::Element) => self.name = at(),
            Some(column) => self.row.set(column, text, self.decimal, true)?,
            None => {}
        }
        self.count += 1;
        Ok(())
    }
}

/// Parses one line as a row of `columns`. Inlined, with [`plain_row`], into the loop that keeps
/// its results, as the `-px` reader's line step is, so that a row is written where it is kept.
#[inline(always)]
fn parse_row(line: &str, columns: &[Option<Column>], field: u8, decimal: char) -> ParsedRow {
    if let Some((name, row)) =
        u8::try_from(decimal).ok().filter(u8::is_ascii).and_then(|mark| plain_row(line, columns, field, mark))
    {
        return Ok((RowName::At(name), row));
    }
    fields_row(line, columns, field, decimal)
}

/// [`parse_row`] field by field: any row, with an error for a field that is not its column's (or,
/// where the row is evidently separated otherwise than the header, for that).
#[inline(never)]
fn fields_row(line: &str, columns: &[Option<Column>], field: u8, decimal: char) -> ParsedRow {
    fields_of(line, columns, field, decimal)
        .map_err(|error| mixed_separators(line, columns.len(), field).map_or(error, RowError::new))
}

/// For a row that is not one: when another separator splits it into as many fields as the header
/// has and the header's does not, the error that says so (header and rows separated differently).
#[cold]
fn mixed_separators(line: &str, fields: usize, field: u8) -> Option<ParseErrorKind> {
    let count = |separator: u8| {
        let mut n = 0;
        let simple = simple_fields(line, separator, |_| {
            n += 1;
            Ok::<(), ()>(())
        });
        simple.ok().filter(|&simple| simple).map(|_| n)
    };
    if count(field) == Some(fields) {
        return None;
    }
    let other = [b',', b';', b'\t'].into_iter().filter(|&s| s != field).find(|&s| count(s) == Some(fields))?;
    let (header, row) = (char::from(field), char::from(other));
    Some(ParseErrorKind::Unexpected {
        expected: format!("fields separated by {header:?}, as the header's are"),
        found: format!("mixed separators: the header uses {header:?} but this row {row:?}"),
    })
}

/// [`fields_row`] without the check for mixed separators.
fn fields_of(line: &str, columns: &[Option<Column>], field: u8, decimal: char) -> ParsedRow {
    let new = || RowFields { columns, decimal, row: Row::default(), name: RowName::At(0..0), count: 0 };
    let mut fields = new();
    let at = |start: usize| move |kind| Box::new(RowError { kind, at: Some(start) });
    if !simple_fields(line, field, |range| {
        let start = range.start;
        fields.take(&line[range.clone()], || RowName::At(range)).map_err(at(start))
    })? {
        // Read again, whole, the csv crate's way.
        fields = new();
        for text in quoted_fields(line, field)? {
            fields.take(&text, || RowName::Unquoted(text.clone()))?;
        }
    }
    let RowFields { row, name, count, .. } = fields;
    if count != columns.len() {
        return Err(RowError::new(ParseErrorKind::Unexpected {
            expected: format!("{} fields, as many as the header has", columns.len()),
            found: count.to_string(),
        }));
    }
    Ok((name, row))
}

/// The common row, read in one pass: every field in its column's plain form (digits; a time of
/// digits and at most one decimal mark, 15 digits at most; `¯1` for a function row's Line; a quoted
/// name without quotes in it), nothing around them; `None` for any other row, which is then read
/// field by field. The values are those [`Row::set`] gives.
#[inline(always)]
fn plain_row(line: &str, columns: &[Option<Column>], field: u8, mark: u8) -> Option<(Range<usize>, Row)> {
    const FUNCTION_ROW: &[u8] = "¯1".as_bytes();
    let bytes = line.as_bytes();
    let mut row = Row::default();
    let mut name = 0..0;
    let mut pos = 0;
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            (bytes.get(pos) == Some(&field)).then_some(())?;
            pos += 1;
        }
        let rest = &bytes[pos..];
        pos += match column {
            Some(Column::Element) => {
                (rest.first() == Some(&b'"')).then_some(())?;
                let end = memchr::memchr(b'"', &rest[1..])?;
                name = pos + 1..pos + 1 + end;
                end + 2
            }
            Some(Column::Line) if rest.starts_with(FUNCTION_ROW) => FUNCTION_ROW.len(),
            Some(
                column @ (Column::Depth
                | Column::Line
                | Column::Calls
                | Column::ExclusiveTicks
                | Column::InclusiveTicks),
            ) => {
                let (value, n) = super::leading_integer(rest)?;
                row.set_int(*column, value)?;
                n
            }
            Some(column @ (Column::ExclusiveTime | Column::InclusiveTime | Column::Time)) => {
                // `pos` follows a separator or a quote: a character boundary.
                let (value, len) = super::leading_decimal(&line[pos..], mark)?;
                row.time[usize::from(*column != Column::ExclusiveTime)] = value;
                len
            }
            Some(Column::PctOfTot) => {
                // A plain number, else the field-by-field reading, which tells the others.
                let end = rest.iter().position(|&b| b == field).unwrap_or(rest.len());
                if end > 0 {
                    let (value, len) = super::leading_decimal(&line[pos..pos + end], mark)?;
                    (len == end).then_some(())?;
                    row.pct = Some(value);
                }
                end
            }
            // Columns not read (derived, unknown): anything up to the separator but a quote or a CR.
            _ => {
                let end = rest.iter().position(|&b| b == field).unwrap_or(rest.len());
                (!rest[..end].iter().any(|&b| b == b'"' || b == b'\r')).then_some(end)?
            }
        };
    }
    (pos == bytes.len()).then_some((name, row))
}

/// Hands `each` where the fields of a line are, unquoted, in order, as long as its quoted fields are
/// plain (`"text"` with no quote inside, then the separator or the line end); false when one is not
/// (the fields before it were handed over). One pass over the bytes: fields are a few bytes long,
/// shorter than what a `memchr` call pays off on.
fn simple_fields<E>(line: &str, field: u8, mut each: impl FnMut(Range<usize>) -> Result<(), E>) -> Result<bool, E> {
    let bytes = line.as_bytes();
    let mut pos = 0;
    loop {
        let range = if bytes.get(pos) == Some(&b'"') {
            let start = pos + 1;
            let Some(end) = bytes[start..].iter().position(|&b| b == b'"').map(|i| start + i) else {
                return Ok(false);
            };
            pos = end + 1;
            if bytes.get(pos).is_some_and(|&b| b != field) {
                return Ok(false);
            }
            start..end
        } else {
            let start = pos;
            pos += bytes[pos..].iter().position(|&b| b == field || b == b'\r').unwrap_or(bytes.len() - pos);
            // A lone CR ends a record for the csv crate: such a line is left to it.
            if bytes.get(pos) == Some(&b'\r') {
                return Ok(false);
            }
            start..pos
        };
        each(range)?;
        if pos >= bytes.len() {
            return Ok(true);
        }
        pos += 1;
    }
}

/// The fields of a line, unquoted.
fn split(line: &str, field: u8) -> Result<Vec<String>, ParseErrorKind> {
    let mut fields = Vec::new();
    let simple = simple_fields(line, field, |range| {
        fields.push(line[range].to_string());
        Ok::<(), ParseErrorKind>(())
    })?;
    if simple {
        Ok(fields)
    } else {
        quoted_fields(line, field)
    }
}

/// The fields of a line as the csv crate reads them (doubled quotes, text around quotes).
fn quoted_fields(line: &str, field: u8) -> Result<Vec<String>, ParseErrorKind> {
    let mut reader =
        csv::ReaderBuilder::new().delimiter(field).has_headers(false).flexible(true).from_reader(line.as_bytes());
    let mut record = csv::StringRecord::new();
    let error = |e: csv::Error| ParseErrorKind::Unexpected { expected: "CSV".into(), found: format!("{:?}", e.kind()) };
    reader.read_record(&mut record).map_err(error)?;
    // The csv crate ends a record at a lone CR too; a row is one line.
    if reader.read_record(&mut csv::StringRecord::new()).map_err(error)? {
        return Err(ParseErrorKind::Unexpected {
            expected: "one row per line".into(),
            found: "a carriage return inside the line".into(),
        });
    }
    Ok(record.iter().map(str::to_string).collect())
}

/// The columns of the header line (`None` for a column proftool does not know, with a warning).
fn header_columns(line: &str, field: u8, diag: &mut Diagnostics) -> Result<Vec<Option<Column>>, ParseError> {
    let names =
        split(line, field).map_err(|kind| ParseError { format: FORMAT, position: Position::line(1, 0), kind })?;
    let columns: Vec<Option<Column>> = names
        .iter()
        .map(|name| {
            // Dyalog quotes its names; the guide's copy has a space after each comma, which leaves the
            // quotes in the field.
            let name = name.trim();
            let name = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')).unwrap_or(name);
            let column = Column::from_name(name.as_bytes());
            if column.is_none() {
                let name = name.to_string();
                diag.warn("dyalog-unknown-column", Some(Position::line(1, 0)), || {
                    format!("{FORMAT}: unknown column {name:?} ignored")
                });
            }
            column
        })
        .collect();
    if !columns.contains(&Some(Column::Element)) {
        let kind = ParseErrorKind::Unexpected {
            expected: "a header with an \"Element\" (or \"Function\") column".into(),
            found: crate::error::excerpt(names.join(",").as_bytes()),
        };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    }
    Ok(columns)
}

/// Writes `profile` as a `]PROFILE` CSV report with `separators` (else those it was read with); a
/// name a spreadsheet would run as a formula has a `'` put in front of it (said on stderr).
pub(crate) fn write(
    profile: &Profile,
    out: &mut dyn Write,
    separators: Option<Separators>,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let read_with = profile.meta.attr(SEPARATORS).and_then(|v| v.parse().ok());
    let separators: Separators = separators.or(read_with).unwrap_or_default();
    let (report, columns, rows) = report_rows(profile, true);
    let base = super::percent_base(profile, report, &rows);
    let mut derived = super::Derived { base, cumulative: 0.0 };
    let mut text = String::with_capacity(1 << 16);
    let mut guarded = 0usize;
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            text.push(separators.field);
        }
        quote(column.name(), false, &mut text);
    }
    text.push('\n');
    for row in &rows {
        for (i, &column) in columns.iter().enumerate() {
            if i > 0 {
                text.push(separators.field);
            }
            if column == Column::Element {
                let formula = runs_as_formula(row.name);
                guarded += usize::from(formula);
                quote(row.name, formula, &mut text);
            } else {
                super::format_cell(row, column, report, &mut derived, separators.decimal, &mut text);
            }
        }
        text.push('\n');
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    out.write_all(text.as_bytes())?;
    if guarded > 0 {
        diag.warn("dyalog-csv-formula", None, || {
            format!("{FORMAT}: {guarded} name(s) begin with =, +, -, @, a tab or a CR, which a spreadsheet runs as a formula: written with a ' in front, which proftool reads back without it")
        });
    }
    Ok(())
}

/// `"text"`, with `"` doubled as CSV escapes it, and a `'` in front where it is a `formula`.
fn quote(text: &str, formula: bool, out: &mut String) {
    out.push('"');
    if formula {
        out.push('\'');
    }
    for c in text.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str, field: u8) -> Vec<String> {
        split(line, field).unwrap()
    }

    #[test]
    fn fields_of_dyalog_rows() {
        assert_eq!(fields("0,\"#.Sample\",¯1,1,19.362", b','), ["0", "#.Sample", "¯1", "1", "19.362"]);
        assert_eq!(fields("\"#.psb.DrawWedge\";;2;0,011", b';'), ["#.psb.DrawWedge", "", "2", "0,011"]);
        assert_eq!(fields("1,,", b','), ["1", "", ""]);
        // The guide's header, a space after each comma: the quotes stay in the field.
        assert_eq!(fields("\"Depth\", \"Element\"", b','), ["Depth", " \"Element\""]);
        assert_eq!(simple_fields("\"a\"\"b\",1", b',', |_| Ok::<_, ()>(())), Ok(false));
        assert_eq!(fields("\"a\"\"b\",1", b','), ["a\"b", "1"]);
        assert_eq!(fields("\"a,b\"x,1", b','), ["a,bx", "1"]);
        // The csv crate ends a record at a lone CR: not inside a row.
        assert!(split("\"a\"\"b\",1\r\"c\",2", b',').is_err());
        // A Line too large for one is an error, not a function row.
        let columns = [Some(Column::Depth), Some(Column::Element), Some(Column::Line)];
        let error = parse_row("1,\"#.f\",4294967296", &columns, b',', '.').err().map(|e| e.kind.to_string());
        assert!(error.as_ref().is_some_and(|e| e.contains("Line number")), "{error:?}");
    }

    proptest::proptest! {
        /// A time of digits and at most one `.` is the number `str::parse` makes of it.
        #[test]
        fn times_are_what_str_parse_reads(text in "[0-9]{0,20}(\\.[0-9]{0,20})?", rest in "(,.*)?") {
            let expected = text.parse::<f64>().ok().filter(|v| v.is_finite() && !text.is_empty() && text != ".");
            let line = format!("{text}{rest}");
            proptest::prop_assert_eq!(super::super::leading_decimal(&line, b'.'), expected.map(|v| (v, text.len())));
        }

        /// A row read in one pass has the values it has read field by field.
        #[test]
        fn plain_rows_read_as_field_by_field(
            depth in "[0-9]{1,3}| 1|",
            name in "\"[#.a-z]{0,5}\"|[a-z]{1,3}",
            line_number in "¯1|-1|[0-9]{1,3}|",
            calls in "[0-9]{1,20}|¯2",
            times in proptest::collection::vec("[0-9]{0,9}[.,]?[0-9]{0,9}|1e5|¯0.5", 2),
            derived in "[0-9.]{0,4}|\"x\"",
            semicolon: bool,
        ) {
            let (field, decimal) = if semicolon { (b';', ',') } else { (b',', '.') };
            let fields = [depth, name, line_number, calls, times[0].clone(), times[1].clone(), derived];
            let line = fields.join(if semicolon { ";" } else { "," });
            let columns = [Column::Depth, Column::Element, Column::Line, Column::Calls, Column::ExclusiveTime, Column::Time, Column::PctOfTot];
            let columns: Vec<Option<Column>> = columns.into_iter().map(Some).collect();
            if let Some((name, row)) = plain_row(&line, &columns, field, decimal as u8) {
                let Ok((RowName::At(expected_name), expected)) = fields_row(&line, &columns, field, decimal) else {
                    return Err(proptest::test_runner::TestCaseError::fail(format!("{line}: read in one pass only")));
                };
                proptest::prop_assert_eq!(name, expected_name);
                proptest::prop_assert_eq!(format!("{row:?}"), format!("{expected:?}"), "{}", line);
            }
        }

        /// Any line, plain or quoted in any way, splits into the fields the csv crate reads.
        #[test]
        fn fields_are_those_the_csv_crate_reads(line in "[a\",; \r]{0,12}") {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line.as_bytes());
            let mut record = csv::StringRecord::new();
            if reader.read_record(&mut record).unwrap() {
                let expected: Vec<String> = record.iter().map(str::to_string).collect();
                // A line the csv crate reads as two records is an error, not a row.
                match reader.read_record(&mut csv::StringRecord::new()).unwrap() {
                    true => proptest::prop_assert!(split(&line, b',').is_err(), "{:?}", line),
                    false => proptest::prop_assert_eq!(fields(&line, b','), expected),
                }
            }
        }
    }
}
