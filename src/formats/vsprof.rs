//! Visual Studio's call tree summary as CSV: what `VSPerfReport /summary:calltree` (the profiling
//! tools of Visual Studio 2008 to 2017) writes to `NAME_CallTreeSummary.csv`, the input of
//! inferno's `collapse-vsprof` (read only).
//!
//! ```text
//! Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,
//! 0,"Raytracer.exe",0,100.00,0.00,0.00,0.00,"",
//! 1,"Raytracer.Tracer.TraceImage(int32)",471,91.25,18.39,401.92,81.02,"Raytracer.exe",
//! 2,"Raytracer.Ray.get_Direction()","2,893,824",54.37,4.21,0.04,0.00,"Raytracer.exe",
//! ```
//!
//! **Grammar**: a header naming the columns (Visual Studio ends it, and each row, with a comma),
//! then a row per node of the call tree, its `Level` its depth: the first row's level is the
//! outermost, and a row is at most one level deeper than the row before it. Fields are separated by
//! commas, a field holding one in quotes (`""` a quote in it). Numbers are in the locale's form:
//! digits grouped in threes by `,`, `.` or a space, and percentages and times with their decimals
//! after `.` or `,`. Columns are found by their names, in any order; the others are passed over.
//!
//! **Model**: each row is a node below the rows it is under, of the function `Function Name` in
//! the binary `Module Name`:
//! - a sampling report's `Exclusive Samples` are the node's own `samples`;
//! - an instrumentation report's `Number of Calls` are the node's `calls`, and its own elapsed
//!   (wall) time, every call timed, is `time` in microseconds: `Elapsed Exclusive Time`
//!   (milliseconds) where the report has that column, else `Elapsed Exclusive Time %` of the run's
//!   time. The default report states no time in total, so the run's time is found from the row of
//!   the largest elapsed inclusive time (`Elapsed Inclusive Time`, or `Avg Elapsed Inclusive Time`
//!   × calls) over its `Elapsed Inclusive Time %`: to the report's two decimals of a percent.
//!
//! inferno's `collapse-vsprof` makes the same stacks of the default report and weighs each by its
//! calls, less those of its last callee.
//!
//! **Errors**: a header without `Level`, `Function Name` and the columns of samples or of time, a
//! row that skips a level, ends before a column or holds a number that is none, at their line;
//! an input without the header or without a row is refused. A report whose run time cannot be
//! found (every row's inclusive time 0) keeps its calls only, and says so.
//!
//! **Lost**: the inclusive columns (the sums of the nodes below), averages, and the columns passed
//! over (`Function Address`, `Source File`, `Process ID`, application times, probe overhead).

use super::kit::csv_fields::{Header, Rows, Table};
use super::kit::lines;
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Sampling, Unit, Value};
use crate::text::Line;
use std::borrow::Cow;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "vsprof",
    description: "Visual Studio's call tree summary as CSV (`VSPerfReport /summary:calltree`: `CallTreeSummary.csv`), as `inferno-collapse-vsprof` reads it",
    extensions: &["vsprof.csv"],
    carries: Carries::SAMPLES_PER_THREAD
        .as_tree()
        .weighing(&[MetricKind::Samples, MetricKind::Time, MetricKind::Calls])
        .with_modules(),
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The start of the header: its first two columns.
const HEADER: &str = "Level,Function Name,";

/// `Yes` when the input starts with the header.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(crate::text::utf8_start(head).starts_with(HEADER))
}

/// The metrics of the sink, in this order; those the header has no column for are dropped at the
/// end.
const SAMPLES: usize = 0;
const TIME: usize = 1;
const CALLS: usize = 2;

/// Reads a call tree summary.
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let time = Metric::time(Unit::Microseconds, Repr::Int).sampled(Sampling::Measured);
    let sink = StackSink::new(SPEC.format_name(), vec![Metric::samples(), time, Metric::entries("calls")]);
    lines::read_into(input, Rows::<Report>::default(), sink, diag)
}

/// Where the header puts the columns read, by their index in a row.
struct Columns {
    level: usize,
    function: usize,
    module: Option<usize>,
    samples: Option<usize>,
    calls: Option<usize>,
    time: Option<Time>,
}

/// Where an instrumentation report's own time of a node comes from.
#[derive(Clone, Copy)]
enum Time {
    /// `Elapsed Exclusive Time`, in milliseconds.
    Milliseconds(usize),
    /// `Elapsed Exclusive Time %` of the run's time, which the row of the largest inclusive time
    /// gives.
    Share { exclusive: usize, inclusive_share: usize, inclusive: Inclusive },
}

/// Where a row's elapsed inclusive time comes from.
#[derive(Clone, Copy)]
enum Inclusive {
    /// `Elapsed Inclusive Time`, in milliseconds.
    Total(usize),
    /// `Avg Elapsed Inclusive Time` (milliseconds) of each of the row's calls.
    Average(usize),
}

impl Columns {
    /// Which of the sink's metrics ([`SAMPLES`], [`TIME`], [`CALLS`]) the report has columns for.
    fn metrics(&self) -> [bool; 3] {
        [self.samples.is_some(), self.time.is_some(), self.calls.is_some()]
    }
}

/// The rows of a call tree summary read so far: the frames of the last row's stack, and what finds
/// the run's time where nodes' times are shares of it.
#[derive(Default)]
struct Report {
    /// The level of the first row: the outermost.
    first_level: Option<u64>,
    stack: Vec<FrameId>,
    /// Each node's share of the run's time, in percent, where times are shares.
    shares: Vec<(NodeId, f64)>,
    /// The run's time as the row of the largest inclusive time so far gives it.
    run: Option<RunTime>,
}

/// The run's time as a row gives it: the row's inclusive time over its share of the run's.
#[derive(Clone, Copy)]
struct RunTime {
    /// The row's elapsed inclusive time, in milliseconds.
    inclusive: f64,
    /// The run's, in milliseconds.
    run: f64,
}

/// A report whose run time cannot be found: its nodes' times are shares of nothing known.
static NO_RUN_TIME: Reason = Reason::new("vsprof-no-run-time", |_, rows| {
    format!("the run's time is not in the report (no row has an elapsed inclusive time): the times of its {rows} rows left out, their calls kept")
});

impl Table for Report {
    const FORMAT: FormatName = SPEC.format_name();
    const MISSING: Missing = Missing::anywhere("a `Level,Function Name,…` header and the rows of the call tree below it");
    type Columns = Columns;

    fn columns(header: &Header<'_, '_>) -> Result<(Columns, usize), ParseError> {
        let find = |name: &str| header.find(name);
        let (level, function) = (header.required("Level")?, header.required("Function Name")?);
        let calls = find("Number of Calls");
        let share = |exclusive| {
            let inclusive = match (find("Elapsed Inclusive Time"), find("Avg Elapsed Inclusive Time"), calls) {
                (Some(total), ..) => Inclusive::Total(total),
                (None, Some(average), Some(_)) => Inclusive::Average(average),
                _ => return None,
            };
            Some(Time::Share { exclusive, inclusive_share: find("Elapsed Inclusive Time %")?, inclusive })
        };
        let time = match find("Elapsed Exclusive Time") {
            Some(milliseconds) => Some(Time::Milliseconds(milliseconds)),
            None => find("Elapsed Exclusive Time %").and_then(share),
        };
        let samples = find("Exclusive Samples");
        if samples.is_none() && time.is_none() {
            let expected = "a header with an `Exclusive Samples` column (sampling) or `Elapsed Exclusive Time` or `Elapsed Exclusive Time %` and `Elapsed Inclusive Time %` (instrumentation)";
            return Err(header.refused(expected));
        }
        let module = find("Module Name");
        let time_columns = match time {
            Some(Time::Milliseconds(column)) => vec![column],
            Some(Time::Share { exclusive, inclusive_share, inclusive: Inclusive::Total(c) | Inclusive::Average(c) }) => {
                vec![exclusive, inclusive_share, c]
            }
            None => vec![],
        };
        let read = [Some(level), Some(function), module, samples, calls].into_iter().flatten().chain(time_columns);
        let width = read.max().map_or(0, |last| last + 1);
        Ok((Columns { level, function, module, samples, calls, time }, width))
    }

    fn row(&mut self, columns: &Columns, row: &[Cow<'_, str>], line: &Line<'_>, sink: &mut StackSink) -> Result<(), ParseError> {
        let level = integer(&row[columns.level]).ok_or_else(|| line.unexpected("a level", format!("`{}`", row[columns.level])))?;
        let depth = level.checked_sub(*self.first_level.get_or_insert(level)).ok_or_else(|| {
            line.unexpected(format!("a level of at least the first row's, {}", self.first_level.unwrap_or(0)), level.to_string())
        })? as usize;
        if depth > self.stack.len() {
            let expected = format!("a row at most one level deeper than the row before it ({})", self.stack.len());
            return Err(line.unexpected(expected, format!("level {level}")));
        }
        self.stack.truncate(depth);
        let module = columns.module.map(|index| row[index].as_ref()).filter(|module| !module.is_empty());
        let kind = if level == 0 { FrameKind::Thread } else { FrameKind::Function };
        self.stack.push(sink.frame(FrameRef { module, kind, ..FrameRef::function(&row[columns.function]) }));
        let weights = Weights::of(line, row, columns)?;
        let node = sink.add_weights_at(Order::RootFirst, self.stack.iter().copied(), &weights.own);
        if let (Some(node), Some(share)) = (node, weights.share) {
            self.shares.push((node, share));
        }
        if let Some(run) = weights.run {
            self.run = self.run.filter(|largest| largest.inclusive >= run.inclusive).or(Some(run));
        }
        Ok(())
    }

    fn end(&mut self, columns: &Columns, sink: &mut StackSink) {
        let mut metrics = columns.metrics();
        if let Some(Time::Share { .. }) = columns.time {
            match self.run {
                Some(RunTime { run, .. }) => {
                    for &(node, share) in &self.shares {
                        let micros = (share / 100.0 * run * 1000.0).round() as i64;
                        sink.profile().tree.add_self(TIME, node, Value::Int(micros));
                    }
                }
                None => {
                    metrics[TIME] = false;
                    sink.leave_out(&NO_RUN_TIME, None, self.shares.len() as u64);
                }
            }
        }
        sink.profile().retain_metrics(&metrics);
    }
}

/// What a row weighs: its own samples, calls and time in the sink's metrics, and where times are
/// shares, its share and the run's time as it gives it.
struct Weights {
    own: Vec<(usize, i64)>,
    share: Option<f64>,
    run: Option<RunTime>,
}

impl Weights {
    /// The weights of `row`, a row of `line` with the header's columns `columns`.
    fn of(line: &Line<'_>, row: &[Cow<'_, str>], columns: &Columns) -> Result<Weights, ParseError> {
        let number = |index: usize, what: &str| {
            decimal(&row[index]).ok_or_else(|| line.unexpected(what.to_string(), format!("`{}`", row[index])))
        };
        let count = |index: usize, what: &str| {
            let count = integer(&row[index]).and_then(|count| i64::try_from(count).ok());
            count.ok_or_else(|| line.unexpected(what.to_string(), format!("`{}`", row[index])))
        };
        let mut weights = Weights { own: Vec::with_capacity(3), share: None, run: None };
        if let Some(index) = columns.samples {
            weights.own.push((SAMPLES, count(index, "a count of exclusive samples")?));
        }
        let calls = columns.calls.map(|index| count(index, "a number of calls")).transpose()?;
        if let Some(calls) = calls {
            weights.own.push((CALLS, calls));
        }
        match columns.time {
            Some(Time::Milliseconds(index)) => {
                let milliseconds = number(index, "an elapsed exclusive time, in milliseconds")?;
                weights.own.push((TIME, (milliseconds * 1000.0).round() as i64));
            }
            Some(Time::Share { exclusive, inclusive_share, inclusive }) => {
                weights.share = Some(number(exclusive, "an elapsed exclusive time %")?);
                let share = number(inclusive_share, "an elapsed inclusive time %")?;
                let inclusive = match inclusive {
                    Inclusive::Total(index) => number(index, "an elapsed inclusive time, in milliseconds")?,
                    Inclusive::Average(index) => {
                        number(index, "an average elapsed inclusive time, in milliseconds")? * calls.unwrap_or(0) as f64
                    }
                };
                weights.run = (share > 0.0 && inclusive > 0.0).then(|| RunTime { inclusive, run: inclusive / share * 100.0 });
            }
            None => {}
        }
        Ok(weights)
    }
}

/// A count in the locale's form: digits, grouped in threes by one of `,`, `.`, a space or a
/// no-break space.
fn integer(text: &str) -> Option<u64> {
    let text = text.trim();
    let separator = text.chars().find(|c| !c.is_ascii_digit());
    let mut groups = text.split(|c: char| Some(c) == separator);
    let first = groups.next().filter(|first| (1..=3).contains(&first.len()) || separator.is_none())?;
    let mut value: u64 = first.parse().ok()?;
    for group in groups {
        if group.len() != 3 || !matches!(separator, Some(',' | '.' | ' ' | '\u{a0}')) {
            return None;
        }
        value = value.checked_mul(1000)?.checked_add(group.parse().ok()?)?;
    }
    Some(value)
}

/// A percentage or a time in the locale's form: an [`integer`], and after its last `.` or `,`
/// where fewer or more than three digits follow it, its decimals.
fn decimal(text: &str) -> Option<f64> {
    let text = text.trim();
    let mark = text.rfind(['.', ',']).filter(|&at| text.len() - at - 1 != 3);
    let (whole, decimals) = match mark {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, ""),
    };
    if !decimals.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole = if whole.is_empty() { 0 } else { integer(whole)? };
    format!("{whole}.{decimals}0").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_in_the_locales_form() {
        assert_eq!(integer("2,893,824"), Some(2_893_824));
        assert_eq!(integer("2.893.824"), Some(2_893_824));
        assert_eq!(integer("2\u{a0}893"), Some(2_893));
        assert_eq!(integer("471"), Some(471));
        assert_eq!(integer("28,93"), None);
        assert_eq!(integer("2,893.824"), None);
        assert_eq!(integer("-1"), None);
        assert_eq!(decimal("91.25"), Some(91.25));
        assert_eq!(decimal("91,25"), Some(91.25));
        assert_eq!(decimal("1,234.50"), Some(1234.5));
        assert_eq!(decimal("1.234,50"), Some(1234.5));
        assert_eq!(decimal("0.00"), Some(0.0));
        assert_eq!(decimal("1,234"), Some(1234.0));
        assert_eq!(decimal("12"), Some(12.0));
        assert_eq!(decimal("n/a"), None);
        assert_eq!(sniff(b"Level,Function Name,Number of Calls\n"), Sniff::Yes);
        assert_eq!(sniff(b"Function Stack,CPU Time:Self\n"), Sniff::No);
    }
}
