//! Dyalog APL `]PROFILE` reports (the user command's `-outfile=` output), shared by the XML ([`xml`])
//! and CSV ([`csv`]) files: their columns, rows, numbers and how rows become a call tree. Both
//! readers parse a row's fields and hand it to `ReportBuilder`; both writers take rows from
//! `report_rows`.
//!
//! **Rows** (`⎕PROFILE 'tree'`, Dyalog's language reference): a *function row* (Line empty, `¯1` or
//! `-1`) is a function; a *line row* (Line a number, 0-based for dfns) is one line of it. A tree report
//! (a `Depth` column) alternates: function rows at even depths, their line rows one below, the
//! functions called from a line one below that. A row's parent is the nearest row before it one level
//! up; several depth-0 rows are several roots; recursion gives separate rows. Summary and data
//! reports have no Depth: they are flat, and read as one root per function with its line rows below.
//!
//! **Values**: Calls per row (a per-node count); ExclusiveTime and InclusiveTime in ms
//! (bias-adjusted in tree and summary reports, raw in data reports); ExclusiveTicks and InclusiveTicks (timer inspections). A function
//! row's exclusive time includes its lines' (Dyalog: "the function summary timing = the sum of its
//! lines plus time not attributable to a line"), so in the model a function node's self value is the
//! unattributed part, its ExclusiveTime minus its line rows' (docs/formats.md, "Dyalog reports"), and a line node's is
//! its ExclusiveTime. InclusiveTime is kept as the measured inclusive value. PctOfTot, CumPct and
//! AvgTime are derived: not read as values (only which of them a report has, the total time a
//! CSV's percentages are of, and a summary's own PctOfTot: the model's
//! [`crate::model::ReportFacts`]), recomputed on writing
//! (`format_cell`) but for a summary's PctOfTot while its rows are those read. Times are what
//! the report's kind says: bias-adjusted in a tree or summary report, raw in a data report
//! ([`crate::model::ReportFacts::times_as_measured`]); a summary's rows are inclusive times only
//! ([`crate::model::Meta::self_unknown`], set as it is read).
//!
//! **Quirks**: `]PROFILE` 0.9.0 wrote the exclusive and inclusive columns (times and ticks) of tree
//! and data reports under each other's labels (docs/formats.md, "Dyalog reports"); they are swapped back by version,
//! or, in any file, when more rows show "inclusive" < "exclusive" as labelled than swapped (the rule
//! and why in `build`). APL writes negative numbers with a high
//! minus `¯`. The summary report's time column is called `Time` in CSV: inclusive time, as XML's
//! `InclusiveTime`; a summary read with `<ExclusiveTime>` (`-exclusive`) is written with `Time` for it.
//!
//! **Exactness**: times are `f64` printed shortest-round-trip. A function's own time is its
//! exclusive time less its lines' (`unattributed`); on writing, `with_parts` picks the number
//! that subtracts back to it (where several do, the shortest for three-decimal lines, the nearest to
//! the sum for full-precision ones), so the very number read is written.

mod build;
pub mod csv;
pub mod xml;

use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseErrorKind};
use crate::formats::spec::{self, Carries, Rules};
use crate::model::ops::{self, shortened, unattributed, with_parts};
use crate::model::{
    significant, DerivedColumns, FrameId, FrameKind, FrameRef, Meta, Metric, MetricKind, NodeId, Profile, Repr,
    StatedTotal, Unit, Value, Values,
};
use std::str::FromStr;

/// What a Dyalog tree report carries: XML adds the settings' title; in CSV, where a row is a line, a
/// name cannot hold a line break (no APL name has one).
pub(crate) const fn carries(csv: bool) -> Carries {
    Carries {
        metrics: &[MetricKind::Calls, MetricKind::Time, MetricKind::Inspections],
        one_metric: false,
        source_lines: true,
        title: !csv,
        name_replacements: if csv { &[('\n', ' '), ('\r', ' ')] } else { &[] },
        lines_nest: true,
        time_unit: Some(Unit::Milliseconds),
        flat_reports: true,
        weight_is_time: true,
        ..Carries::TREE_OF_SAMPLES
    }
}

/// The line a call is put under when its caller's calling line is not known (a tree written from a
/// source without Dyalog's line rows): line 0, a tradfn's header line, on which no statement runs, so
/// that it cannot be taken for a measured line.
pub(crate) const UNKNOWN_CALLING_LINE: u32 = 0;

/// The rules of both Dyalog reports, XML and CSV, whose last step of fitting is `fit` (each names
/// its own format in what it says): what a report says of itself kept (the timer's cost where
/// `timer_cost`: XML's settings hold it, a CSV has none), measured inclusive times kept.
pub(crate) const fn rules(fit: spec::Fit, timer_cost: bool) -> Rules {
    Rules { fit, keeps_report: true, keeps_timer_cost: timer_cost, keeps_measured_inclusive: true, ..spec::STACKS_ONLY }
}

/// Fits a profile already projected onto a Dyalog format to what `]PROFILE` writes. A tree report
/// alternates (function rows at even depths, line rows at odd ones, a called function under the line
/// row that called it: docs/formats.md, "Dyalog reports"), so a call from a function whose calling line is not known goes
/// under a line row [`UNKNOWN_CALLING_LINE`] of the caller, with a warning. A tree from another format
/// gets the columns of a 1.37 tree report (Calls, ExclusiveTime, InclusiveTime) whatever it measured,
/// 0 where it has no such value, with a warning each.
pub(crate) fn fit(mut profile: Profile, format: FormatName, diag: &mut Diagnostics) -> Profile {
    if report_of(&profile) != Report::Tree {
        return profile;
    }
    let from_dyalog = profile.meta.report.kind.is_some();
    if !from_dyalog {
        add_neutral_columns(&mut profile, format, diag);
    }
    let between = unknown_calling_lines(&mut profile);
    if between.iter().any(Option::is_some) {
        diag.warn("dyalog-unknown-line", None, || {
            format!(
                "{format}: a tree report calls functions from a line of their caller; where the source does not say which, they are put under line {UNKNOWN_CALLING_LINE} (a tradfn's header line, where no statement runs)"
            )
        });
        profile = ops::interpose(&profile, |node| between[node.index()]);
    }
    profile
}

/// Adds a calls and a time metric of zeros to a profile that lacks them, naming each.
fn add_neutral_columns(profile: &mut Profile, format: FormatName, diag: &mut Diagnostics) {
    let has = |profile: &Profile, kind| profile.metrics().iter().any(|m| m.kind == kind);
    if !has(profile, MetricKind::Calls) {
        // A source may count calls per function (LispWorks Call-Count, dropped with a word of
        // its own): it is per call path that none does.
        diag.warn("dyalog-no-calls", None, || {
            format!("{format}: the source does not count calls per call path, as a tree report's Calls are: Calls are written as 0")
        });
        let zeros = Values::zeros(Repr::Int, profile.tree.len());
        profile.add_metric(Metric::entries("calls"), zeros);
    }
    if !has(profile, MetricKind::Time) {
        diag.warn("dyalog-no-time", None, || format!("{format}: the source has no time: times are written as 0"));
        let zeros = Values::zeros(Repr::Float, profile.tree.len());
        profile
            .add_metric(Metric::time(Unit::Milliseconds, Repr::Float).sampled(crate::model::Sampling::Measured), zeros);
    }
}

/// For each node, the line frame to put between it and its parent: a function (or a line of another
/// function) directly below a function row gets the caller's [`UNKNOWN_CALLING_LINE`].
fn unknown_calling_lines(profile: &mut Profile) -> Vec<Option<FrameId>> {
    let tree = &profile.tree;
    let mut calling_line: Vec<Option<FrameId>> = vec![None; profile.frames.len()];
    let mut between = vec![None; tree.len()];
    for node in tree.nodes() {
        let Some(parent) = tree.parent(node) else { continue };
        let (f, p) = (profile.frames.get(tree.frame(node)), profile.frames.get(tree.frame(parent)));
        let own_line = f.kind == FrameKind::Line && f.name == p.name;
        if p.kind == FrameKind::Line || own_line {
            continue;
        }
        let slot = &mut calling_line[tree.frame(parent).index()];
        if slot.is_none() {
            let caller = p.clone();
            let line =
                FrameRef { line: Some(UNKNOWN_CALLING_LINE), clause: None, kind: FrameKind::Line, ..caller.as_ref() };
            *slot = Some(profile.frames.intern(line));
        }
        between[node.index()] = *slot;
    }
    between
}

/// A column of a report: an XML element or a CSV header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray)]
pub(crate) enum Column {
    Depth,
    Element,
    Line,
    Calls,
    ExclusiveTime,
    InclusiveTime,
    /// The summary report's time in CSV (inclusive time).
    Time,
    ExclusiveTicks,
    InclusiveTicks,
    PctOfTot,
    CumPct,
    AvgTime,
}

impl Column {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Column::Depth => "Depth",
            Column::Element => "Element",
            Column::Line => "Line",
            Column::Calls => "Calls",
            Column::ExclusiveTime => "ExclusiveTime",
            Column::InclusiveTime => "InclusiveTime",
            Column::Time => "Time",
            Column::ExclusiveTicks => "ExclusiveTicks",
            Column::InclusiveTicks => "InclusiveTicks",
            Column::PctOfTot => "PctOfTot",
            Column::CumPct => "CumPct",
            Column::AvgTime => "AvgTime",
        }
    }

    /// The column's bit in a set of columns.
    pub(crate) const fn bit(self) -> u16 {
        1 << self as u16
    }

    /// The columns of the set `bits`.
    pub(crate) fn of_bits(bits: u16) -> impl Iterator<Item = Column> {
        use strum::VariantArray;
        Column::VARIANTS.iter().copied().filter(move |c| bits & c.bit() != 0)
    }

    /// The set of the derived columns, recomputed on writing (a summary's PctOfTot is kept: [`crate::model::ReportFacts::row_percentages`]).
    pub(crate) const DERIVED: u16 = Column::PctOfTot.bit() | Column::CumPct.bit() | Column::AvgTime.bit();

    /// The column named `name`; `Function` is what 0.9.0 called `Element`.
    pub(crate) fn from_name(name: &[u8]) -> Option<Column> {
        Some(match name {
            b"Depth" => Column::Depth,
            b"Element" | b"Function" => Column::Element,
            b"Line" => Column::Line,
            b"Calls" => Column::Calls,
            b"ExclusiveTime" => Column::ExclusiveTime,
            b"InclusiveTime" => Column::InclusiveTime,
            b"Time" => Column::Time,
            b"ExclusiveTicks" => Column::ExclusiveTicks,
            b"InclusiveTicks" => Column::InclusiveTicks,
            b"PctOfTot" => Column::PctOfTot,
            b"CumPct" => Column::CumPct,
            b"AvgTime" => Column::AvgTime,
            _ => return None,
        })
    }
}

/// The decimal mark and field separator of a CSV report (`-separators="DF"`; default `.,`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Separators {
    /// The decimal mark in numbers.
    pub decimal: char,
    /// The field separator (CSV only).
    pub field: char,
}

/// Dyalog's own options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The decimal mark and field separator of a CSV report (`--dyalog-separators`): those it is
    /// written with (default: those read, else `.,`); for reading, instead of detecting them.
    pub separators: Option<Separators>,
    /// The `]PROFILE` version whose layout an XML report is written in (`--dyalog-version`).
    pub layout: Layout,
    /// The title an XML report is written with (`--dyalog-title`, `]PROFILE -title=`), instead of
    /// the profile's.
    pub title: Option<String>,
}

/// The layout of an XML report, by the `]PROFILE` version that wrote it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// 1.37's (Dyalog's current documentation): `<Element>`, `¯1` lines in trees, the columns
    /// labelled as measured.
    #[default]
    Current,
    /// 0.9.0's, the `]PROFILE` guide's examples: no XML declaration, `<Function>`, empty
    /// `<Line></Line>` for a function row, and a tree's or data report's exclusive and inclusive
    /// columns (times and ticks) under each other's labels, as 0.9.0 wrote them (docs/formats.md,
    /// "Dyalog reports"), so that a reader that goes by the version (proftool's, `]PROFILE
    /// -infile=`) reads them right.
    V0_9_0,
}

impl Layout {
    /// The Version setting written.
    pub fn version(self) -> &'static str {
        match self {
            Layout::Current => "1.37",
            Layout::V0_9_0 => "0.9.0",
        }
    }
}

impl FromStr for Layout {
    type Err = String;

    fn from_str(s: &str) -> Result<Layout, String> {
        [Layout::Current, Layout::V0_9_0]
            .into_iter()
            .find(|layout| layout.version() == s)
            .ok_or_else(|| format!("expected 1.37 (the current layout) or 0.9.0 (the ]PROFILE guide's), found {s:?}"))
    }
}

impl Default for Separators {
    fn default() -> Separators {
        Separators { decimal: '.', field: ',' }
    }
}

impl FromStr for Separators {
    type Err = String;

    /// Parses `DF` as `]PROFILE -separators=` takes it: the decimal mark, then the field separator.
    fn from_str(s: &str) -> Result<Separators, String> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(decimal), Some(field), None) if decimal != field && decimal != '"' && field != '"' => {
                Ok(Separators { decimal, field })
            }
            _ => Err(format!("expected two different characters, the decimal mark then the field separator (like \",;\"), found {s:?}")),
        }
    }
}

/// One row's values, parsed; 0 for a column the report does not have.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Row {
    pub depth: i64,
    /// `None` for a function row.
    pub line: Option<u32>,
    pub calls: i64,
    /// Exclusive and inclusive time, under the file's labels.
    pub time: [f64; 2],
    /// Exclusive and inclusive ticks, under the file's labels.
    pub ticks: [i64; 2],
    /// Its PctOfTot, where it has one that reads as a number (a summary's are kept: [`crate::model::ReportFacts::row_percentages`]).
    pub pct: Option<f64>,
}

impl Row {
    /// Parses `text` as the value of `column`, with `decimal` as the decimal mark (`csv`: a CSV
    /// field, whose separators `--dyalog-separators` sets). Derived columns (CumPct, AvgTime) are
    /// not read: they are recomputed on writing; PctOfTot is read for a summary's percentages.
    pub(crate) fn set(&mut self, column: Column, text: &str, decimal: char, csv: bool) -> Result<(), ParseErrorKind> {
        let text = text.trim_ascii();
        // Most numbers are plain digits: read them straight from the bytes.
        let fast = u8::try_from(decimal).ok().filter(u8::is_ascii).and_then(|mark| match column {
            Column::Depth | Column::Calls | Column::ExclusiveTicks | Column::InclusiveTicks | Column::Line => {
                plain_integer(text.as_bytes()).and_then(|n| self.set_int(column, n))
            }
            Column::ExclusiveTime => plain_decimal(text, mark).map(|v| self.time[0] = v),
            Column::InclusiveTime | Column::Time => plain_decimal(text, mark).map(|v| self.time[1] = v),
            _ => None,
        });
        if fast.is_some() {
            return Ok(());
        }
        match column {
            Column::Depth => self.depth = parse_int(text, "Depth")?,
            Column::Line => self.line = parse_line(text)?,
            Column::Calls => self.calls = parse_int(text, "Calls")?,
            Column::ExclusiveTime => self.time[0] = parse_float(text, "ExclusiveTime", decimal, csv)?,
            Column::InclusiveTime | Column::Time => self.time[1] = parse_float(text, column.name(), decimal, csv)?,
            Column::ExclusiveTicks => self.ticks[0] = parse_int(text, "ExclusiveTicks")?,
            Column::InclusiveTicks => self.ticks[1] = parse_int(text, "InclusiveTicks")?,
            // A derived column: one that does not read is no matter, it is recomputed.
            Column::PctOfTot => self.pct = parse_float(text, "PctOfTot", decimal, csv).ok(),
            Column::Element | Column::CumPct | Column::AvgTime => {}
        }
        Ok(())
    }

    /// Sets an integer column from a plain number (a Line so given is a line row's); `None` for a
    /// Line too large to be one, which [`parse_line`] then reports.
    pub(crate) fn set_int(&mut self, column: Column, n: i64) -> Option<()> {
        match column {
            Column::Depth => self.depth = n,
            Column::Calls => self.calls = n,
            Column::ExclusiveTicks => self.ticks[0] = n,
            Column::InclusiveTicks => self.ticks[1] = n,
            _ => self.line = Some(u32::try_from(n).ok()?),
        }
        Some(())
    }
}

/// Digits, nothing else: the common integer field.
fn plain_integer(text: &[u8]) -> Option<i64> {
    leading_integer(text).filter(|&(_, len)| len == text.len()).map(|(value, _)| value)
}

/// The value and length of the digits `text` starts with (`None` when it starts with none, or they
/// do not fit an `i64`).
pub(crate) fn leading_integer(text: &[u8]) -> Option<(i64, usize)> {
    let (value, len) = crate::text::leading_digits(text).filter(|&(_, len)| len > 0)?;
    Some((i64::try_from(value).ok()?, len))
}

/// `digits` or `digits` `mark` `digits`, nothing else: the common time field.
fn plain_decimal(text: &str, mark: u8) -> Option<f64> {
    leading_decimal(text, mark).filter(|&(_, len)| len == text.len()).map(|(value, _)| value)
}

/// The value and length of the `digits` or `digits` `mark` `digits` that `text` starts with (`None`
/// when it starts with neither). With at most 15 digits in all, its digits make an integer below
/// 2^53 and its decimals a power of ten below 10^22, both exact in binary, so one division is
/// correctly rounded and gives what `str::parse` gives; longer ones (sums printed in full) with a
/// `.` mark are what `str::parse` reads as they are.
pub(crate) fn leading_decimal(text: &str, mark: u8) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    // The digits from `start` on, added to `mantissa` (which only overflows past 15 digits, where
    // it is not used); where they end.
    let digits_from = |start: usize, mut mantissa: u64| {
        let mut end = start;
        while let Some(digit) = bytes.get(end).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9) {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
            end += 1;
        }
        (mantissa, end)
    };
    let (mantissa, whole) = digits_from(0, 0);
    let (mantissa, len, decimals) = match bytes.get(whole) {
        Some(&b) if b == mark => {
            let (mantissa, end) = digits_from(whole + 1, mantissa);
            (mantissa, end, end - whole - 1)
        }
        _ => (mantissa, whole, 0),
    };
    let value = match whole + decimals {
        0 => return None,
        1..=15 => mantissa as f64 / POWERS[decimals],
        // Digits and a `.` end at a character boundary: the text is what `str::parse` reads.
        _ if mark == b'.' => text[..len].parse().ok().filter(|v: &f64| v.is_finite())?,
        _ => return None,
    };
    Some((value, len))
}

/// Powers of ten that divide a mantissa of at most 15 digits into its value, correctly rounded.
const POWERS: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/// An APL number's text as Rust parses numbers: `¯` as `-`, `decimal` as `.`; borrowed when it is so
/// already, else rewritten into `buf` (`None` when it does not fit: no number is that long).
fn normalized<'a>(text: &'a str, decimal: char, buf: &'a mut [u8; 64]) -> Option<&'a str> {
    if text.is_ascii() && decimal == '.' {
        return Some(text);
    }
    let mut len = 0;
    for c in text.chars() {
        let c = match c {
            '¯' => '-',
            c if c == decimal => '.',
            c => c,
        };
        let slot = buf.get_mut(len..len + c.len_utf8())?;
        c.encode_utf8(slot);
        len += c.len_utf8();
    }
    std::str::from_utf8(&buf[..len]).ok()
}

fn parse_int(text: &str, field: &'static str) -> Result<i64, ParseErrorKind> {
    let text = text.trim();
    let mut buf = [0; 64];
    let t = normalized(text, '.', &mut buf).unwrap_or("");
    let digits = t.strip_prefix('-').unwrap_or(t);
    let valid = crate::text::is_digits(digits);
    valid
        .then(|| t.parse::<i64>().ok())
        .flatten()
        .ok_or_else(|| ParseErrorKind::InvalidNumber { field, text: text.to_string() })
}

/// A Line field: empty, `¯1` or `-1` for a function row, else a line number.
fn parse_line(text: &str) -> Result<Option<u32>, ParseErrorKind> {
    let text = text.trim();
    if text.is_empty() || text == "¯1" || text == "-1" {
        return Ok(None);
    }
    let n = parse_int(text, "Line")?;
    u32::try_from(n).map(Some).map_err(|_| ParseErrorKind::Unexpected {
        expected: "a Line number of 0 or more, or empty or ¯1 for a function row".into(),
        found: format!("{text:?}"),
    })
}

/// A time: an APL number (`¯` minus, `E` exponent) with `decimal` as the decimal mark (`csv`: in a
/// CSV field, whose separators `--dyalog-separators` sets; XML numbers always have `.`).
fn parse_float(text: &str, field: &'static str, decimal: char, csv: bool) -> Result<f64, ParseErrorKind> {
    let text = text.trim();
    let other = if decimal == '.' { ',' } else { '.' };
    if text.contains(other) {
        let (hint, mixed) = if csv { (" (set with --dyalog-separators)", ": mixed separators") } else { ("", "") };
        return Err(ParseErrorKind::Unexpected {
            expected: format!("{field} with the decimal mark {decimal:?}{hint}"),
            found: format!("{text:?}, which has {other:?}{mixed}"),
        });
    }
    let mut buf = [0; 64];
    let t = normalized(text, decimal, &mut buf).unwrap_or("");
    let plain = t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    match t.parse::<f64>() {
        Ok(v) if plain && v.is_finite() => Ok(v),
        _ => Err(ParseErrorKind::Unexpected { expected: format!("{field} as a number"), found: format!("{text:?}") }),
    }
}

/// Formats a number the way APL does: `¯` for minus, `decimal` as the decimal mark.
pub(crate) fn format_number(value: Value, decimal: char, out: &mut String) {
    use std::fmt::Write;
    let start = out.len();
    let _ = write!(out, "{value}");
    if out[start..] == *"-0" {
        // Negative zero is zero to APL; `¯0` would not read back as a number in every tool.
        out.truncate(start);
        out.push('0');
    } else if out[start..].starts_with('-') {
        out.replace_range(start..start + 1, "¯");
    }
    if decimal != '.' {
        if let Some(dot) = out[start..].find('.') {
            out.replace_range(start + dot..start + dot + 1, decimal.encode_utf8(&mut [0; 4]));
        }
    }
}

/// The kind of report: the model's [`ReportKind`] ([`crate::model::ReportFacts::kind`]), set by
/// both readers (XML: its `<Command>`; CSV, or XML without one: [`report_of_columns`]) and read by
/// both writers, so that a summary stays a summary from XML to CSV and back.
pub(crate) use crate::model::ReportKind as Report;

/// The report with `columns`: a tree with a Depth column, a summary with a Time column (CSV), else
/// data.
pub(crate) fn report_of_columns(columns: &[Column]) -> Report {
    if columns.contains(&Column::Depth) {
        Report::Tree
    } else if columns.contains(&Column::Time) {
        Report::Summary
    } else {
        Report::Data
    }
}

/// The report a profile is written as: the one it was read from (or made as), else a tree, else
/// (a flat profile from another format) data.
fn report_of(profile: &Profile) -> Report {
    match profile.meta.report.kind {
        Some(Report::Summary) if profile.meta.flat => Report::Summary,
        _ if profile.meta.flat => Report::Data,
        _ => Report::Tree,
    }
}

/// The derived columns ([`crate::model::ReportFacts::derived`]) of a report whose columns are `bits`.
pub(crate) fn derived_columns(bits: u16) -> DerivedColumns {
    let has = |column: Column| bits & column.bit() != 0;
    DerivedColumns {
        percent_of_total: has(Column::PctOfTot),
        cumulative_percent: has(Column::CumPct),
        time_per_call: has(Column::AvgTime),
    }
}

/// The derived columns a profile was read with, as column bits.
fn derived_read(profile: &Profile) -> u16 {
    let derived = profile.meta.report.derived;
    [
        (derived.percent_of_total, Column::PctOfTot),
        (derived.cumulative_percent, Column::CumPct),
        (derived.time_per_call, Column::AvgTime),
    ]
    .into_iter()
    .filter(|&(set, _)| set)
    .fold(0, |bits, (_, column)| bits | column.bit())
}

/// The columns written for `report`, given which metrics the profile has (`exclusive`: a summary of
/// exclusive times, `]PROFILE summary -exclusive`, read without inclusive ones).
fn report_columns(report: Report, metrics: &MetricColumns, csv: bool, exclusive: bool, derived: u16) -> Vec<Column> {
    let mut columns = read_columns(report, metrics, csv, exclusive);
    // Derived columns the report read had (PctOfTot is a summary's own), recomputed.
    if metrics.time.is_some() {
        let written = columns.iter().fold(0, |bits, c| bits | c.bit());
        let more = [Column::PctOfTot, Column::CumPct, Column::AvgTime].into_iter();
        columns.extend(more.filter(|c| derived & !written & c.bit() != 0));
    }
    columns
}

/// [`report_columns`] without the derived columns of the report read.
fn read_columns(report: Report, metrics: &MetricColumns, csv: bool, exclusive: bool) -> Vec<Column> {
    let mut columns = Vec::new();
    if report == Report::Tree {
        columns.push(Column::Depth);
    }
    columns.extend([Column::Element, Column::Line]);
    if report == Report::Summary {
        if metrics.time.is_some() {
            let time = match (csv, exclusive) {
                (true, _) => Column::Time,
                (false, false) => Column::InclusiveTime,
                (false, true) => Column::ExclusiveTime,
            };
            columns.extend([time, Column::PctOfTot]);
        }
        columns.extend(metrics.calls.map(|_| Column::Calls));
        return columns;
    }
    columns.extend(metrics.calls.map(|_| Column::Calls));
    if metrics.time.is_some() {
        columns.extend([Column::ExclusiveTime, Column::InclusiveTime]);
    }
    if metrics.ticks.is_some() {
        columns.extend([Column::ExclusiveTicks, Column::InclusiveTicks]);
    }
    columns
}

/// The metric indices of a Dyalog profile.
#[derive(Clone, Copy, Debug, Default)]
struct MetricColumns {
    calls: Option<usize>,
    time: Option<usize>,
    ticks: Option<usize>,
}

impl MetricColumns {
    fn of(profile: &Profile) -> MetricColumns {
        let find = |kind| profile.metric_of_kind(kind);
        MetricColumns {
            calls: find(MetricKind::Calls),
            time: find(MetricKind::Time),
            ticks: find(MetricKind::Inspections),
        }
    }
}

/// One row to write.
pub(crate) struct OutRow<'p> {
    pub depth: u32,
    pub name: &'p str,
    pub line: Option<u32>,
    pub calls: Option<i64>,
    pub time: Option<[f64; 2]>,
    pub ticks: Option<[i64; 2]>,
    /// The PctOfTot the report read gave the row ([`crate::model::ReportFacts::row_percentages`]),
    /// written again as it was.
    pub pct: Option<f64>,
}

/// The rows and columns to write for `profile` (already projected onto a Dyalog format), in file
/// order.
///
/// Depths follow the reading rules: a function row two levels below the function that calls it when
/// no line is known (function-level sources), one below a calling line. A line row whose function
/// row is not its parent (lines from a source without Dyalog's nesting, such as BR) gets a function
/// row of its own first, with the line's values, so that the file reads back into the same totals.
pub(crate) fn report_rows<'p>(profile: &'p Profile, csv: bool) -> (Report, Vec<Column>, Vec<OutRow<'p>>) {
    let report = report_of(profile);
    let metrics = MetricColumns::of(profile);
    let tree = &profile.tree;
    // A summary read with an ExclusiveTime column only: its one time is the exclusive one, which
    // the CSV calls Time (this module's **Quirks** above).
    let exclusive_summary =
        report == Report::Summary && metrics.time.is_some_and(|m| tree.measured_inclusive(m).is_none());
    let columns = report_columns(report, &metrics, csv, exclusive_summary, derived_read(profile));
    let frame = |n: NodeId| profile.frames.get(tree.frame(n));
    let is_line = |n: NodeId| frame(n).kind == FrameKind::Line;
    let children = tree.children();
    let inclusive = |m: Option<usize>| {
        m.map(|m| tree.measured_inclusive(m).cloned().unwrap_or_else(|| tree.derived_inclusive_decimal(m)))
    };
    let (time_inclusive, ticks_inclusive) = (inclusive(metrics.time), inclusive(metrics.ticks));
    let percentages = profile.row_percentages();
    // The depth of each node's row, and whether the row is a function row.
    let mut depth_of: Vec<u32> = vec![0; tree.len()];
    let mut rows = Vec::with_capacity(tree.len());
    for visit in tree.walk_with(children.clone()) {
        let node = visit.node;
        let f = frame(node);
        let parent = tree.parent(node);
        let own_function = parent.filter(|&p| !is_line(p) && frame(p).name == f.name);
        let function_depth = match parent {
            None => 0,
            Some(p) if is_line(p) => depth_of[p.index()] + 1,
            Some(p) => depth_of[p.index()] + 2,
        };
        let time = metrics.time.zip(time_inclusive.as_ref()).map(|(m, incl)| {
            let lines = children.of_node(node).iter().filter(|&&c| is_line(c) && !is_line(node));
            let lines = lines.map(|&c| tree.self_value(m, c).as_f64());
            // Added up in file order, as the reader subtracts them.
            let (sum, short) =
                lines.fold((0.0, true), |(sum, short), line| (sum + line, short && shortened(line) == line));
            let exclusive = with_parts(tree.self_value(m, node).as_f64(), sum, short);
            // Derived inclusive sums can fall below the exclusive sum in the last binary digit.
            [exclusive, incl.get(node.index()).as_f64().max(exclusive)]
        });
        let ticks = metrics.ticks.zip(ticks_inclusive.as_ref()).map(|(m, incl)| {
            let lines = children.of_node(node).iter().filter(|&&c| is_line(c) && !is_line(node));
            let own = lines.fold(tree.self_value(m, node).as_count(), |sum, &c| sum + tree.self_value(m, c).as_count());
            [own, incl.get(node.index()).as_count()]
        });
        let calls = metrics.calls.map(|m| tree.self_value(m, node).as_count());
        let pct = percentages.as_ref().and_then(|p| p[node.index()]);
        let mut row = OutRow { depth: function_depth, name: &f.name, line: None, calls, time, ticks, pct };
        if f.kind == FrameKind::Line {
            row.line = Some(f.line.unwrap_or(0));
            row.depth = match own_function {
                Some(p) => depth_of[p.index()] + 1,
                // A flat report's line row stands alone (`summary -lines` has no function rows).
                None if report != Report::Tree => function_depth,
                // In a tree, a line row needs its function's row above it.
                None => {
                    rows.push(OutRow { line: None, ..row });
                    function_depth + 1
                }
            };
        }
        depth_of[node.index()] = row.depth;
        rows.push(row);
    }
    if exclusive_summary {
        // Its Time, and PctOfTot, are of the exclusive time.
        for time in rows.iter_mut().filter_map(|row| row.time.as_mut()) {
            time[1] = time[0];
        }
    }
    (report, columns, rows)
}

/// What PctOfTot is a percentage of: the report's total time, which `]PROFILE` prints as "Total
/// time" and writes as TotalTime (docs/formats.md, "Dyalog reports"; the guide's summaries: 47.14893489 of 68.40049488
/// ms is 68.93069264%, 1.37's 25.626 of 58.2 ms 44.03092784%, and `-exclusive` 23.032 of 68.4 ms
/// 33.672%). The XML TotalTime setting, else the total a CSV's percentages were of
/// ([`crate::model::ReportFacts::percentages_of`]), else the time of the whole report (a tree's roots together; the largest row of
/// a flat report, whose rows overlap).
pub(crate) fn percent_base(profile: &Profile, report: Report, rows: &[OutRow<'_>]) -> f64 {
    report_total(&profile.meta).map_or_else(|| total_time(report, rows), |(total, _)| total)
}

/// The total time a report states, and where, as a phrase: the XML's TotalTime setting, else the
/// total a CSV's percentages are of ([`crate::model::ReportFacts::percentages_of`]).
fn report_total(meta: &Meta) -> Option<(f64, &'static str)> {
    let attr = |key: &str| meta.attr(key).and_then(|v| v.parse::<f64>().ok());
    (attr("dyalog-xml.TotalTime").map(|total| (total, "the report's TotalTime")))
        .or_else(|| meta.report.percentages_of.map(|total| (total, "the total its PctOfTot is of")))
}

/// Makes the total a summary report states the profile's total time ([`Meta::stated_total`]): its
/// rows are functions' inclusive times, each holding the functions it calls, so they add up to
/// more (or, with `-exclusive`, the heaviest functions' own times, which may add up to less). A tree's or data report's TotalTime is
/// not the total of its rows (docs/formats.md, "Dyalog reports": 272.97 ms in the guide's tree for a root of 68.4 ms).
fn state_summary_total(profile: &mut Profile) {
    let time = profile.metric_of_kind(MetricKind::Time);
    let stated = time.zip(report_total(&profile.meta)).filter(|_| report_of(profile) == Report::Summary);
    profile.meta.stated_total = stated.map(|(m, (value, source))| StatedTotal {
        metric: profile.metrics()[m].name.clone(),
        unit: profile.metrics()[m].unit,
        value,
        source: source.to_string(),
        // Inclusive times, as measured (an `-exclusive` summary has none).
        rows_overlap: profile.tree.measured_inclusive(m).is_some(),
    });
}

/// The time of the whole report: the inclusive times of a tree's roots added up, or the largest
/// inclusive time of a flat report.
pub(crate) fn total_time(report: Report, rows: &[OutRow<'_>]) -> f64 {
    let function_times = rows.iter().filter(|r| r.line.is_none() && r.depth == 0).filter_map(|r| r.time.map(|t| t[1]));
    match report {
        // A fold from +0.0: `sum` starts at -0.0, which an empty report would write as `¯0`.
        Report::Tree => function_times.fold(0.0, |total, t| total + t),
        Report::Summary | Report::Data => function_times.fold(0.0, f64::max),
    }
}

/// What the derived columns of a row are worked out from: the total time PctOfTot is of, and
/// CumPct's percentage of the rows so far.
pub(crate) struct Derived {
    pub base: f64,
    pub cumulative: f64,
}

/// Appends the text of `row`'s `column` (names as they are: the caller quotes or escapes them).
/// Rows are given in file order (CumPct adds up their percentages, as `-cumpct` does: 33.672 +
/// 11.5 = 45.172% in the guide); AvgTime is the time over the calls (23.82 ms over 311 calls, 0.077).
pub(crate) fn format_cell(
    row: &OutRow<'_>,
    column: Column,
    report: Report,
    derived: &mut Derived,
    decimal: char,
    out: &mut String,
) {
    let base = derived.base;
    let derived_number = |v: f64, out: &mut String| {
        out.push_str(&significant(v, 10).replace('.', decimal.encode_utf8(&mut [0; 4])));
    };
    let number = |v: Option<Value>, out: &mut String| {
        if let Some(v) = v {
            format_number(v, decimal, out);
        }
    };
    match column {
        Column::Depth => number(Some(Value::Int(i64::from(row.depth))), out),
        Column::Element => out.push_str(row.name),
        Column::Line => match row.line {
            Some(line) => number(Some(Value::Int(i64::from(line))), out),
            None if report == Report::Tree => out.push_str("¯1"),
            None => {}
        },
        Column::Calls => number(row.calls.map(Value::Int), out),
        Column::ExclusiveTime => number(row.time.map(|t| Value::Float(t[0])), out),
        Column::InclusiveTime | Column::Time => number(row.time.map(|t| Value::Float(t[1])), out),
        Column::ExclusiveTicks => number(row.ticks.map(|t| Value::Int(t[0])), out),
        Column::InclusiveTicks => number(row.ticks.map(|t| Value::Int(t[1])), out),
        Column::PctOfTot => {
            if let Some(pct) = row_pct(row, base) {
                derived_number(pct, out);
            }
        }
        Column::CumPct => {
            if let Some(pct) = row_pct(row, base) {
                derived.cumulative += pct;
                derived_number(derived.cumulative, out);
            }
        }
        Column::AvgTime => {
            if let (Some(t), Some(calls)) = (row.time, row.calls.filter(|&c| c > 0)) {
                derived_number(t[1] / calls as f64, out);
            }
        }
    }
}

/// A row's PctOfTot: the one it was read with, else its time's share of `base`.
fn row_pct(row: &OutRow<'_>, base: f64) -> Option<f64> {
    // Of no total, 0: a number all the same (an empty field is a line number's alone).
    row.pct.or_else(|| row.time.map(|t| if base > 0.0 { t[1] / base * 100.0 } else { 0.0 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_have_ten_significant_digits_like_apl() {
        // The v1.37 summary report: 25.626 ms of 58.2 ms.
        assert_eq!(significant(25.626 / 58.2 * 100.0, 10), "44.03092784");
        assert_eq!(significant(3.153 / 58.2 * 100.0, 10), "5.417525773");
        assert_eq!(significant(100.0, 10), "100");
        assert_eq!(significant(0.0012345678912, 10), "0.001234567891");
    }

    #[test]
    fn unattributed_time_adds_back_to_the_very_number() {
        let parts = |values: &[f64]| values.iter().fold(0.0, |sum, v| sum + v);
        // 0.1 + 0.2 is not 0.3 in binary: no time of its own, and 0.3 written back.
        assert_eq!(unattributed(0.3, parts(&[0.1, 0.2])), Some(0.0));
        assert_eq!(with_parts(0.0, parts(&[0.1, 0.2]), true), 0.3);
        for (total, lines) in [
            (68.40049487792044, vec![0.0015370955140001, 0.01035477506, 0.0872545383]),
            (19.362, vec![0.002, 0.0, 0.005, 0.874]),
            (0.8205615629464091, vec![0.001537095514, 0.01035477506, 0.001926992908, 0.0872545383, 0.01708800315]),
            (1e-7, vec![3e-8]),
        ] {
            let lines = parts(&lines);
            let own = unattributed(total, lines).unwrap();
            assert_eq!(with_parts(own, lines, false), total, "{total}");
        }
        assert_eq!(unattributed(0.002, parts(&[0.001, 0.0015])), None);
    }

    proptest::proptest! {
        /// Any exclusive time at least its lines' (three-decimal times as 1.37 prints them, or full
        /// precision as 0.9.0 XML does) is written back as the very number read.
        #[test]
        fn a_function_time_survives_its_lines(
            thousandths in proptest::collection::vec(0u32..100_000, 0..12),
            extra in 0u32..100_000,
            full in proptest::collection::vec(0.0f64..100.0, 0..12),
            slack in 0.0f64..10.0,
        ) {
            let lines: Vec<f64> = thousandths.iter().map(|&t| format!("{}.{:03}", t / 1000, t % 1000).parse().unwrap()).collect();
            let parts = lines.iter().fold(0.0, |sum, l| sum + l);
            let sum: u32 = thousandths.iter().sum::<u32>() + extra;
            let total: f64 = format!("{}.{:03}", sum / 1000, sum % 1000).parse().unwrap();
            let own = unattributed(total, parts).unwrap();
            proptest::prop_assert_eq!(with_parts(own, parts, true), total);
            let parts = full.iter().fold(0.0, |sum, l| sum + l);
            let total = parts + slack;
            let own = unattributed(total, parts).unwrap();
            let short = full.iter().all(|&line| shortened(line) == line);
            proptest::prop_assert_eq!(with_parts(own, parts, short), total);
        }
    }

    #[test]
    fn no_time_is_zero_never_negative_zero() {
        // A profile without a time metric (ticks only, from GHC say) once wrote `<TotalTime>¯0`.
        assert!(total_time(Report::Tree, &[]).is_sign_positive());
        let mut text = String::new();
        format_number(Value::Float(-0.0), '.', &mut text);
        format_number(Value::Float(-1.5), ',', &mut text);
        assert_eq!(text, "0¯1,5");
    }

    #[test]
    fn column_names_read_back() {
        use strum::VariantArray;
        for &column in Column::VARIANTS {
            assert_eq!(Column::from_name(column.name().as_bytes()), Some(column));
        }
        assert_eq!(Column::from_name(b"Function"), Some(Column::Element));
    }

    #[test]
    fn apl_numbers() {
        assert_eq!(parse_float("¯1.5E¯3", "t", '.', true).unwrap(), -0.0015);
        for text in ["0.0008172849135", "19.362", "0", "123456789012345", "0.00000000000001", "7."] {
            assert_eq!(plain_decimal(text, b'.'), Some(text.parse::<f64>().unwrap()), "{text}");
        }
        assert_eq!(plain_decimal("0,011", b','), Some(0.011));
        for text in ["0.8205615629464091", "18313.107000000018", "12345678901234567890123.5"] {
            assert_eq!(plain_decimal(text, b'.'), Some(text.parse::<f64>().unwrap()), "{text}");
        }
        assert_eq!(plain_decimal("0,8205615629464091", b','), None); // 16 digits, a comma: the slow path
        assert_eq!(plain_decimal("1.2.3", b'.'), None);
        assert_eq!(plain_decimal(&"9".repeat(400), b'.'), None); // not finite: an error
        assert_eq!(plain_decimal("1e5", b'.'), None);
        assert_eq!(plain_integer(b"1234"), Some(1234));
        assert_eq!(plain_integer(b"-1"), None);
        assert_eq!(parse_float("0,011", "t", ',', true).unwrap(), 0.011);
        assert!(parse_float("0.011", "t", ',', true).is_err());
        assert!(parse_float("inf", "t", '.', true).is_err());
        assert_eq!(parse_int("¯7", "Calls").unwrap(), -7);
        assert_eq!(parse_line("¯1").unwrap(), None);
        assert_eq!(parse_line("").unwrap(), None);
        assert_eq!(parse_line("12").unwrap(), Some(12));
        let mut s = String::new();
        format_number(Value::Float(-0.5), ',', &mut s);
        assert_eq!(s, "¯0,5");
    }
}
