//! xperf's sampled CPU stacks as CSV: the summary table of the CPU sampling graph of a trace that
//! `xperf -on Latency -stackwalk profile` recorded, with its `Stack` column, exported with "Export
//! Full Table" (Windows Performance Toolkit), as gprof2dot reads it (read only).
//!
//! ```text
//! Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp
//! val3.exe, val3.exe, val3.exe (4144), [Root]/ntdll.dll!_RtlUserThreadStart/val3.exe!main/val3.exe!_allmul, val3.exe, _allmul, 0x00000000003f1506, 5104, 0, 1.001237, 0.01, 1, 9.771723102
//! ```
//!
//! **Grammar**: a header naming the columns, then a row per sample (or per samples of one place):
//! fields separated by commas, spaces after a comma passed over. Columns are found by their names:
//! `Process Name`, `Stack`, `Module`, `Function`, `Weight` (milliseconds) and `Count` are read, and
//! `Process` (the name and its id) where the table has it; the others are passed over. A stack is
//! `[Root]` and then its frames, the outermost first, each `module!function`, separated by `/`; `?`
//! where the trace has none.
//!
//! **Model**, as gprof2dot's XPerfParser reads the table: each row is a stack under a root of its
//! process (the `Process` column where the table has it, else its name), its frames those of its
//! `Stack` after `[Root]`, and below them the row's own `Module!Function` where the stack does not
//! end in it (the function alone for a stack `?`). It weighs its `Count` (`samples`) and `Weight` ×
//! `Count` (`time`, in nanoseconds: the sampled time). A frame `module!function` is the function
//! in the module. The rows of the `Idle` process (the processors' idle time) are left out, as
//! gprof2dot leaves them out, and said.
//!
//! **Errors**: a header without the columns read, a row with fewer fields than the header, a stack
//! that does not start at `[Root]`, or a weight or count that is no number, at their line; an
//! input without the header or without a row is refused.
//!
//! **Lost**: threads, processors, addresses and time stamps; the other columns.

use super::kit::csv_fields::{Header, Rows, Table};
use super::kit::lines;
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use crate::text::Line;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "xperf",
    description: "xperf's sampled CPU stacks as CSV (the Windows Performance Toolkit's summary table with its `Stack` column, \"Export Full Table\"), as gprof2dot reads them",
    extensions: &["xperf", "xperf.csv"],
    carries: Carries::SAMPLES_PER_THREAD.weighing(&[MetricKind::Time, MetricKind::Samples]).with_modules(),
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// `Yes` when the first line names the columns of processes, stacks and weights.
fn sniff(head: &[u8]) -> Sniff {
    let first = crate::text::utf8_start(head).lines().next().unwrap_or_default();
    let names: Vec<&str> = first.split(',').map(str::trim).collect();
    Sniff::yes_if(["Process Name", "Stack", "Weight", "Count"].iter().all(|name| names.contains(name)))
}

/// The sink's metrics, in this order.
const TIME: usize = 0;
const SAMPLES: usize = 1;

/// Reads an exported table of sampled stacks.
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let time = Metric::time(Unit::Nanoseconds, Repr::Int).sampled(Sampling::weights_of("samples"));
    let mut sink = StackSink::new(SPEC.format_name(), vec![time, Metric::samples()]);
    // As gprof2dot weighs each function: by its sampled time.
    sink.profile().meta.weighed_by = Some(MetricKind::Time);
    lines::read_into(input, Rows::<Samples>::default(), sink, diag)
}

/// Where the header puts the columns read, by their index in a row.
struct Columns {
    process_name: usize,
    /// `Process`, the process's name and id, where the table has it.
    process: Option<usize>,
    stack: usize,
    module: usize,
    function: usize,
    weight: usize,
    count: usize,
}

/// The rows read so far: the frames of each distinct `module!function` and process, and the
/// last row's stack.
#[derive(Default)]
struct Samples {
    frames: FxHashMap<String, FrameId>,
    processes: FxHashMap<String, FrameId>,
    stack: Vec<FrameId>,
}

/// The samples of the Idle process: no program's time.
static IDLE: Reason = Reason::new("xperf-idle", |rows, nanos| {
    format!("rows of the Idle process (the processors' idle time) left out, as gprof2dot leaves them out: {rows} ({} ms)", nanos / 1_000_000)
});

impl Table for Samples {
    const FORMAT: FormatName = SPEC.format_name();
    const MISSING: Missing = Missing::anywhere("a `Process Name, …, Stack, …, Weight, …, Count` header and the rows of sampled stacks below it");
    type Columns = Columns;

    fn columns(header: &Header<'_, '_>) -> Result<(Columns, usize), ParseError> {
        let required = |name: &str| header.required(name);
        let (process_name, stack, module) = (required("Process Name")?, required("Stack")?, required("Module")?);
        let (function, weight, count) = (required("Function")?, required("Weight")?, required("Count")?);
        let process = header.find("Process");
        let read = [process_name, stack, module, function, weight, count].into_iter().chain(process);
        let width = read.max().map_or(0, |last| last + 1);
        Ok((Columns { process_name, process, stack, module, function, weight, count }, width))
    }

    fn row(&mut self, columns: &Columns, row: &[Cow<'_, str>], line: &Line<'_>, sink: &mut StackSink) -> Result<(), ParseError> {
        let weight: f64 = row[columns.weight].trim().parse().ok().filter(|w: &f64| w.is_finite() && *w >= 0.0).ok_or_else(|| {
            line.unexpected("a weight, in milliseconds", format!("`{}`", row[columns.weight]))
        })?;
        let count = lines::count(line, row[columns.count].trim(), "a count of samples")?;
        let nanos = ((weight * 1e6).round() as i64).checked_mul(count).ok_or_else(|| {
            line.unexpected("a weight × count of at most 2⁶³ ns", format!("{weight} ms × {count}"))
        })?;
        if row[columns.process_name] == "Idle" {
            sink.leave_out(&IDLE, Some(line.position), nanos);
            return Ok(());
        }
        let (module, function) = (row[columns.module].as_ref(), row[columns.function].as_ref());
        self.stack.clear();
        let process = &row[columns.process.unwrap_or(columns.process_name)];
        self.stack.push(interned(&mut self.processes, process, sink, FrameKind::Thread));
        let stack = row[columns.stack].as_ref();
        let mut last = None;
        if stack != "?" {
            let frames = stack.strip_prefix("[Root]").ok_or_else(|| {
                line.unexpected("a stack starting at `[Root]`", crate::error::excerpt(stack.as_bytes()))
            })?;
            for frame in frames.split('/').filter(|frame| !frame.is_empty()) {
                self.stack.push(interned(&mut self.frames, frame, sink, FrameKind::Function));
                last = Some(frame);
            }
        }
        // The row's function below the stack where the stack does not end in it (named once
        // `module!function` only then: most stacks do).
        if !last.is_some_and(|frame| is_symbol(frame, module, function)) {
            let symbol = format!("{module}!{function}");
            self.stack.push(interned(&mut self.frames, &symbol, sink, FrameKind::Function));
        }
        sink.add_weights(Order::RootFirst, self.stack.iter().copied(), &[(TIME, nanos), (SAMPLES, count)]);
        Ok(())
    }
}

/// Whether `frame` is `module!function`.
fn is_symbol(frame: &str, module: &str, function: &str) -> bool {
    frame.strip_prefix(module).and_then(|rest| rest.strip_prefix('!')) == Some(function)
}

/// The frame of `text` (a process, or a frame `module!function`), made once in `frames`.
fn interned(frames: &mut FxHashMap<String, FrameId>, text: &str, sink: &mut StackSink, kind: FrameKind) -> FrameId {
    if let Some(&frame) = frames.get(text) {
        return frame;
    }
    let frame = match (kind, text.split_once('!')) {
        (FrameKind::Function, Some((module, function))) => {
            let module = Some(module).filter(|module| !module.is_empty());
            sink.frame(FrameRef { module, ..FrameRef::function(function) })
        }
        _ => sink.frame(FrameRef::named(text, kind)),
    };
    frames.insert(text.to_string(), frame);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_told_by_its_columns() {
        let header = b"Process Name, Display Name, Process, Stack, Module, Function, Weight, Count\n";
        assert_eq!(sniff(header), Sniff::Yes);
        assert_eq!(sniff(b"Process Name, Module, Function, Weight\n"), Sniff::No);
    }
}
