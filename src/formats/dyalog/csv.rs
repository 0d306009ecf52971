//! Dyalog APL `]PROFILE … -format=csv` reports: tree, data and summary reports as UTF-8 CSV.
//!
//! ```text
//! "Depth","Element","Line","Calls","ExclusiveTime","InclusiveTime"
//! 0,"#.Samples.Sample",¯1,1,19.362,61.828
//! 1,"#.Samples.Sample",7,1,0.874,2.388
//! 2,"#.SharpPlot.ConstructorDefault",¯1,1,0.007,1.513
//! ```
//!
//! **Grammar** (shared notes §3.5): a header row of quoted column names (the XML element names; the
//! summary report calls its time `Time`), then one row per report row: names quoted, numbers bare,
//! a function row's Line empty or `¯1`. `-separators="DF"` sets the decimal mark D and the field
//! separator F (default `.,`; `,;` for spreadsheets that use a decimal comma, as in
//! `"#.psb.DrawWedge";;2;0,011;0,021`). The reader takes F from the header (the character after the
//! first quoted name) and D from the numbers of the first rows; `--dyalog-separators` forces both.
//! CRLF is accepted. Rows and their meaning are in the [parent module](super).
//!
//! **Model**: as for XML; a CSV has no settings, so the report kind (`dyalog-csv.report`: tree with a
//! Depth column, summary with a Time column, else data) and separators other than `.,`
//! (`dyalog-csv.separators`) are kept as header facts for the round trip. **Writing**: the columns of
//! the report kind, with the separators of `--dyalog-separators`, else those read, else `.,`.
//! **Lost**: the title, which a CSV report has no place for, and as for XML.

use super::rows::RowSink;
use super::{report_rows, Column, Report, Row, Separators};
use crate::diag::Diagnostics;
use crate::error::{Error, ParseError, ParseErrorKind, Position};
use crate::formats::{Format, Sniff};
use crate::model::Profile;
use std::io::{BufRead, Read, Write};

const FORMAT: Format = Format::DyalogCsv;

/// The header attr that holds the report kind.
const REPORT: &str = "dyalog-csv.report";

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

/// Where a record starts. The csv crate puts the start of a record after a CRLF at the CR, on the
/// line before: `crlf` moves it past the line end.
fn record_position(p: Option<&csv::Position>, crlf: bool) -> Position {
    match p {
        Some(p) if crlf && p.byte() > 0 => Position::line(p.line() + 1, p.byte() + 2),
        Some(p) => Position::line(p.line(), p.byte()),
        None => Position::default(),
    }
}

fn csv_error(e: csv::Error, crlf: bool) -> ParseError {
    let position = record_position(e.position(), crlf);
    let kind = match e.into_kind() {
        csv::ErrorKind::Io(io) => ParseErrorKind::Io(io),
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => ParseErrorKind::Unexpected {
            expected: format!("{expected_len} fields, as many as the header has"),
            found: format!("{len}"),
        },
        other => ParseErrorKind::Unexpected { expected: "CSV".into(), found: format!("{other:?}") },
    };
    ParseError { format: FORMAT, position, kind }
}

/// Reads a `]PROFILE` CSV report, with `separators` when given, else the file's own (line rows
/// merged into their functions with `merge_lines`).
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    separators: Option<Separators>,
    merge_lines: bool,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let (builder, (report, separators, warnings)) =
        super::rows::read_rows(FORMAT, input, merge_lines, |input, sink| parse(input, separators, sink))?;
    for warning in warnings.warnings() {
        diag.push(warning.clone());
    }
    let Some(mut builder) = builder else {
        let kind = ParseErrorKind::MissingMarker { format: FORMAT, expected: "a header row of quoted column names" };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    };
    let meta = builder.meta_mut();
    meta.attrs.push((REPORT.to_string(), report.name().to_string()));
    if separators != Separators::default() {
        meta.attrs.push((SEPARATORS.to_string(), format!("{}{}", separators.decimal, separators.field)));
    }
    Ok(builder.finish(None, diag))
}

/// Parses the CSV, handing the header's columns and each row to `sink`; returns the report kind,
/// the separators and the warnings.
fn parse(
    mut input: &mut dyn BufRead,
    separators: Option<Separators>,
    sink: &mut RowSink<'_>,
) -> Result<(Report, Separators, Diagnostics), ParseError> {
    let mut diag = Diagnostics::default();
    let head =
        input.fill_buf().map_err(|e| ParseError { format: FORMAT, position: Position::default(), kind: e.into() })?;
    let separators = separators.unwrap_or_else(|| detect_separators(head));
    let crlf = memchr::memchr(b'\n', head).is_some_and(|i| i > 0 && head[i - 1] == b'\r');
    let field = u8::try_from(u32::from(separators.field)).map_err(|_| ParseError {
        format: FORMAT,
        position: Position::default(),
        kind: ParseErrorKind::Unexpected {
            expected: "an ASCII field separator".into(),
            found: format!("{:?}", separators.field),
        },
    })?;
    let mut reader = csv::ReaderBuilder::new().delimiter(field).has_headers(false).from_reader(&mut input);
    let mut record = csv::ByteRecord::new();
    if !reader.read_byte_record(&mut record).map_err(|e| csv_error(e, crlf))? {
        return Ok((Report::Data, separators, diag));
    }
    let columns = header_columns(&record, &mut diag)?;
    let known: Vec<Column> = columns.iter().flatten().copied().collect();
    sink.columns(&known)?;
    let report = if known.contains(&Column::Depth) {
        Report::Tree
    } else if known.contains(&Column::Time) {
        Report::Summary
    } else {
        Report::Data
    };
    while reader.read_byte_record(&mut record).map_err(|e| csv_error(e, crlf))? {
        let position = record_position(record.position(), crlf);
        let error = |kind| ParseError { format: FORMAT, position, kind };
        let mut row = Row::default();
        let mut name = "";
        for (field, column) in record.iter().zip(&columns) {
            let Some(column) = *column else { continue };
            if column == Column::Element {
                name = std::str::from_utf8(field).map_err(|_| error(ParseErrorKind::Encoding))?;
            } else {
                row.set(column, field, separators.decimal).map_err(error)?;
            }
        }
        sink.row(name, &row, position)?;
    }
    Ok((report, separators, diag))
}

/// The columns of a header row (`None` for a column proftool does not know, with a warning).
fn header_columns(record: &csv::ByteRecord, diag: &mut Diagnostics) -> Result<Vec<Option<Column>>, ParseError> {
    let columns: Vec<Option<Column>> = record
        .iter()
        .map(|name| {
            let name = String::from_utf8_lossy(name);
            // Dyalog quotes its names; the seed's copy has a space after each comma, which leaves the
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
            found: crate::error::excerpt(record.iter().collect::<Vec<_>>().join(&b","[..]).as_slice()),
        };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    }
    Ok(columns)
}

/// Writes `profile` as a `]PROFILE` CSV report with `separators` (else those it was read with).
pub(crate) fn write(profile: &Profile, out: &mut dyn Write, separators: Option<Separators>) -> Result<(), Error> {
    let read_with = profile.meta.attrs.iter().find(|(k, _)| k == SEPARATORS).and_then(|(_, v)| v.parse().ok());
    let separators: Separators = separators.or(read_with).unwrap_or_default();
    let (report, columns, rows) = report_rows(profile, REPORT, true);
    let base = super::percent_base(profile, "", report, &rows);
    let mut text = String::with_capacity(1 << 16);
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            text.push(separators.field);
        }
        quote(column.name(), &mut text);
    }
    text.push('\n');
    for row in &rows {
        for (i, &column) in columns.iter().enumerate() {
            if i > 0 {
                text.push(separators.field);
            }
            if column == Column::Element {
                quote(row.name, &mut text);
            } else {
                super::format_cell(row, column, report, base, separators.decimal, &mut text);
            }
        }
        text.push('\n');
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// `"text"`, with `"` doubled as CSV escapes it.
fn quote(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}
