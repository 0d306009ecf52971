//! HPROF's text output of CPU samples and allocation sites: what the JDK's profiling agent (JDK 5
//! to 8) writes to `java.hprof.txt` with `java -agentlib:hprof=cpu=samples,heap=sites`
//! (`-Xrunhprof` before), as Oracle's "HPROF: A Heap/CPU Profiling Tool" describes it; the samples
//! as gprof2dot reads them (read only).
//!
//! ```text
//! JAVA PROFILE 1.0.1, created Tue Sep 21 14:05:19 2004
//! …
//! THREAD START (obj=5000014e, id = 200003, name="main", group="main")
//! TRACE 300027: (thread=200003)
//!     java.util.zip.ZipFile.getEntry(ZipFile.java:Native method)
//!     java.util.jar.JarFile.getEntry(JarFile.java:214)
//! SITES BEGIN (ordered by live bytes) Tue Sep 21 14:05:22 2004
//!           percent          live          alloc'ed  stack class
//!  rank   self  accum     bytes objs     bytes  objs trace name
//!     1 44.73% 44.73%   1161280 14516  1161280 14516 300027 java.util.zip.ZipEntry
//! SITES END
//! CPU SAMPLES BEGIN (total = 126) Tue Sep 21 14:05:22 2004
//! rank   self  accum   count trace method
//!    1 53.17% 53.17%      67 300027 java.util.zip.ZipFile.getEntry
//! CPU SAMPLES END
//! ```
//!
//! (Each frame line starts with a tab.)
//!
//! **Grammar**: the first line `JAVA PROFILE 1.0.N, created …`; a header documenting the records
//! in lines that start with their names (`TRACE           represents a Java stack trace.`), up to
//! a line of dashes `--------` (read from the first record where there is no such line); then
//! records, of which these are read: `THREAD START (…, id = N, name="NAME", …)`; `TRACE N:` (with ` (thread=N)` where the agent
//! ran with `thread=y`) and its frames, a line each starting with a tab, the top of the stack first
//! (`class.method(File.java:LINE)`, the line `Unknown line`, `Native method` or `Compiled method`
//! where it has none, `(Unknown Source)` where no file is known, `<empty>` for a trace of none);
//! the table between `SITES BEGIN` and `SITES END`, after its two lines of heading a row per
//! allocation site `RANK SELF% ACCUM% LIVE-BYTES LIVE-OBJS ALLOC-BYTES ALLOC-OBJS TRACE CLASS`; the
//! table between `CPU SAMPLES BEGIN (total = N)` and `CPU SAMPLES END`, after its heading a row per
//! trace `RANK SELF% ACCUM% COUNT TRACE METHOD`. Other records (`THREAD END`, `HEAP DUMP`,
//! `MONITOR`, `CPU TIME`) are passed over.
//!
//! **Model**: each row's trace is a stack, under a root of its thread, named as its `THREAD START`
//! names it (`thread N` where none does), where the trace says its thread. A samples row's stack
//! weighs its count (`samples`); a site's stack, with the class allocated as a frame below it (as
//! JFR's allocations are), weighs its bytes and objects live at the end (`inuse_space`,
//! `inuse_objects`) and allocated in all (`alloc_space`, `alloc_objects`), named as pprof names a
//! heap profile's; every allocation is counted (the agent instruments them), none sampled. A frame
//! is its method, its file as module, at its line where it has one (a line frame). The metrics of a
//! table the file does not have are not kept. The interval is not in the file (the agent's
//! `interval=`, 10 ms by default).
//!
//! **Errors**: a row that is not six columns (samples) or nine (sites), a count that is no number,
//! a trace that no `TRACE` record defines, at their line; a table that does not end; an input
//! without a `CPU SAMPLES` or `SITES` table (cpu=times writes `CPU TIME`, which is not read) is
//! refused.
//!
//! **Lost**: the records passed over, threads' groups and ends, the tables' percentages and the
//! samples table's method column (the trace's top frame), the agent's options.

use super::kit::lines::{self, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use crate::text::Line;
use rustc_hash::FxHashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "hprof",
    description: "HPROF's CPU samples and allocation sites (`java -agentlib:hprof=cpu=samples,heap=sites`, JDK 5 to 8: `java.hprof.txt`), the samples as gprof2dot reads them",
    extensions: &["hprof.txt"],
    carries: Carries::SAMPLES_PER_THREAD
        .weighing(&[MetricKind::Samples, MetricKind::Alloc, MetricKind::Objects])
        .with_source_lines()
        .with_modules(),
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The first line's start.
const FIRST_LINE: &str = "JAVA PROFILE 1.0.";

/// `Yes` where the input starts with HPROF's first line.
fn sniff(head: &[u8]) -> Sniff {
    Sniff::yes_if(crate::text::utf8_start(head).starts_with(FIRST_LINE))
}

/// The metrics of the sink, in this order: the samples of `CPU SAMPLES`, then what `SITES`
/// allocated, named as pprof names a heap profile's; those of a table the file does not have are
/// dropped at the end.
const SAMPLES: usize = 0;
const INUSE_SPACE: usize = 1;
const INUSE_OBJECTS: usize = 2;
const ALLOC_SPACE: usize = 3;
const ALLOC_OBJECTS: usize = 4;

/// Reads HPROF's CPU samples and allocation sites.
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    // heap=sites counts every allocation (the agent instruments them), as cpu=samples does not.
    let measured = |name, kind, unit| Metric::new(name, kind, unit, Repr::Int).sampled(Sampling::Measured);
    let metrics = vec![
        Metric::samples(),
        measured("inuse_space", MetricKind::Alloc, Unit::Bytes),
        measured("inuse_objects", MetricKind::Objects, Unit::Count),
        measured("alloc_space", MetricKind::Alloc, Unit::Bytes),
        measured("alloc_objects", MetricKind::Objects, Unit::Count),
    ];
    let sink = StackSink::new(SPEC.format_name(), metrics);
    lines::read_into(input, Records::default(), sink, diag)
}

/// A trace: its thread's id where it says it, and its frames, the top of the stack first.
struct Trace {
    thread: Option<u64>,
    frames: Vec<FrameId>,
}

/// Where the reading is among the records.
#[derive(Default, PartialEq)]
enum Place {
    /// In the header: the agent's documentation of its records, whose lines start with their names
    /// (`TRACE           represents a Java stack trace.`), up to a line of dashes.
    #[default]
    Header,
    /// Between records, or in one passed over.
    Records,
    /// In the frames of the trace of this id.
    Trace(u64),
    /// In a table, with this many lines of its heading still to come.
    Table { table: Table, headings_left: u8 },
}

/// The tables read: their rows weigh traces' stacks.
#[derive(Clone, Copy, PartialEq)]
enum Table {
    /// `CPU SAMPLES`: a trace's samples.
    Samples,
    /// `SITES`: what a trace allocated of a class, live and in all.
    Sites,
}

impl Table {
    /// The table whose first line is `text`, with the lines of its heading after it.
    fn starting(text: &str) -> Option<(Table, u8)> {
        if text.starts_with("CPU SAMPLES BEGIN") {
            Some((Table::Samples, 1))
        } else if text.starts_with("SITES BEGIN") {
            Some((Table::Sites, 2))
        } else {
            None
        }
    }

    /// The line that ends it.
    fn end(self) -> &'static str {
        match self {
            Table::Samples => "CPU SAMPLES END",
            Table::Sites => "SITES END",
        }
    }
}

/// The grammar of HPROF's text: the threads' names and the traces so far, and where it is.
#[derive(Default)]
struct Records {
    threads: FxHashMap<u64, String>,
    traces: FxHashMap<u64, Trace>,
    place: Place,
    /// Where the open table starts.
    table: Option<Position>,
    /// Whether a `CPU SAMPLES` and a `SITES` table were read: the metrics kept.
    read: [bool; 2],
    /// The frames of each distinct frame line.
    frames: FxHashMap<String, FrameId>,
}

/// Samples of a trace with no frame (`<empty>`) and no thread: no stack to weigh.
static NO_STACK: Reason = Reason::new("hprof-empty-trace", |rows, samples| {
    format!("rows of traces with no frame and no thread, which weigh no stack, left out: {rows} ({samples} samples)")
});

impl StackLines for Records {
    const FORMAT: FormatName = SPEC.format_name();
    const MISSING: Option<Missing> = Some(Missing::anywhere("a `CPU SAMPLES BEGIN` table of traces' counts (cpu=samples) or a `SITES BEGIN` table (heap=sites)"));

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        let text = line.text.trim_end();
        if let Place::Trace(id) = self.place {
            if let Some(frame) = text.strip_prefix('\t') {
                let frame = (frame != "<empty>").then(|| self.frame(frame, sink));
                if let Some(trace) = self.traces.get_mut(&id) {
                    trace.frames.extend(frame);
                }
                return Ok(());
            }
            self.place = Place::Records;
        }
        if self.place == Place::Header {
            if !text.starts_with("--------") && !is_record(text) {
                return Ok(());
            }
            self.place = Place::Records;
        }
        match self.place {
            Place::Table { table, headings_left: left @ 1.. } => {
                self.place = Place::Table { table, headings_left: left - 1 };
                Ok(())
            }
            Place::Table { table, .. } if text.starts_with(table.end()) => {
                (self.place, self.table) = (Place::Records, None);
                Ok(())
            }
            Place::Table { table: Table::Samples, .. } => self.row(line, text, sink),
            Place::Table { table: Table::Sites, .. } => self.site(line, text, sink),
            _ => self.record(line, text),
        }
    }

    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        if let Place::Table { table, .. } = self.place {
            sink.unclosed(self.table, last, &format!("`{}`", table.end()))?;
        }
        let [samples, sites] = self.read;
        sink.profile().retain_metrics(&[samples, sites, sites, sites, sites]);
        Ok(())
    }
}

impl Records {
    /// A line between records: a thread's start, a trace's first line, or the samples table's.
    fn record(&mut self, line: &Line<'_>, text: &str) -> Result<(), ParseError> {
        if let Some(rest) = text.strip_prefix("THREAD START (") {
            if let (Some(id), Some(name)) = (field(rest, "id = "), quoted(rest, "name=\"")) {
                if let Ok(id) = id.parse() {
                    self.threads.insert(id, name.to_string());
                }
            }
        } else if let Some(rest) = text.strip_prefix("TRACE ") {
            let (id, rest) = rest.split_once(':').ok_or_else(|| line.unexpected("`TRACE N:`", text))?;
            let id = id.parse().map_err(|_| line.unexpected("a trace's number", id))?;
            let thread = field(rest, "thread=").and_then(|t| t.parse().ok());
            self.traces.insert(id, Trace { thread, frames: Vec::new() });
            self.place = Place::Trace(id);
        } else if let Some((table, headings_left)) = Table::starting(text) {
            (self.place, self.table) = (Place::Table { table, headings_left }, Some(line.position));
            self.read[table as usize] = true;
        }
        Ok(())
    }

    /// A row of the samples table: its trace's stack, under its thread, weighs its count.
    fn row(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError> {
        let columns: Vec<&str> = text.split_whitespace().collect();
        let [_, _, _, count, trace, _] = columns[..] else {
            return Err(line.unexpected("a row `RANK SELF% ACCUM% COUNT TRACE METHOD`", text));
        };
        let count = lines::count(line, count, "a trace's count of samples")?;
        let (frames, thread) = self.stack(line, trace, sink)?;
        if frames.is_empty() && thread.is_none() {
            sink.leave_out(&NO_STACK, Some(line.position), count);
            return Ok(());
        }
        sink.add(Order::LeafFirst, frames.iter().copied().chain(thread), SAMPLES, count);
        Ok(())
    }

    /// A row of the sites table: its trace's stack, under its thread, with the class allocated
    /// below it, weighs the bytes and objects of the class live at the end and allocated in all.
    fn site(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError> {
        let columns: Vec<&str> = text.split_whitespace().collect();
        let [_, _, _, live_bytes, live_objects, bytes, objects, trace, class] = columns[..] else {
            let expected = "a row `RANK SELF% ACCUM% LIVE-BYTES LIVE-OBJS ALLOC-BYTES ALLOC-OBJS TRACE CLASS`";
            return Err(line.unexpected(expected, text));
        };
        let count = |text, what| lines::count(line, text, what);
        let weights = [
            (INUSE_SPACE, count(live_bytes, "a site's live bytes")?),
            (INUSE_OBJECTS, count(live_objects, "a site's live objects")?),
            (ALLOC_SPACE, count(bytes, "a site's allocated bytes")?),
            (ALLOC_OBJECTS, count(objects, "a site's allocated objects")?),
        ];
        let class = sink.frame(FrameRef::function(class));
        let (frames, thread) = self.stack(line, trace, sink)?;
        sink.add_weights(Order::LeafFirst, std::iter::once(class).chain(frames.iter().copied()).chain(thread), &weights);
        Ok(())
    }

    /// The frames of the trace numbered `trace`, the top of the stack first, and its thread's
    /// frame where it names its thread; the error at `line` of a trace no record defines.
    fn stack(&self, line: &Line<'_>, trace: &str, sink: &mut StackSink) -> Result<(&[FrameId], Option<FrameId>), ParseError> {
        let id: u64 = trace.parse().map_err(|_| line.unexpected("a trace's number", trace))?;
        let trace = self.traces.get(&id).ok_or_else(|| line.unexpected("a trace a `TRACE` record defines", trace))?;
        let thread = trace.thread.map(|thread| {
            let name = self.threads.get(&thread).cloned().unwrap_or_else(|| format!("thread {thread}"));
            sink.frame(FrameRef::named(&name, FrameKind::Thread))
        });
        Ok((&trace.frames, thread))
    }

    /// The frame of a trace's frame line `class.method(File.java:LINE)`, made once.
    fn frame(&mut self, text: &str, sink: &mut StackSink) -> FrameId {
        if let Some(&frame) = self.frames.get(text) {
            return frame;
        }
        let (method, place) = text.strip_suffix(')').and_then(|t| t.rsplit_once('(')).unwrap_or((text, ""));
        let (file, line) = place.rsplit_once(':').unwrap_or((place, ""));
        let module = Some(file).filter(|file| !file.is_empty() && *file != "Unknown Source");
        let line = line.parse::<u32>().ok().filter(|&line| line > 0);
        let kind = if line.is_some() { FrameKind::Line } else { FrameKind::Function };
        let frame = sink.frame(FrameRef { module, line, kind, ..FrameRef::function(method) });
        self.frames.insert(text.to_string(), frame);
        frame
    }
}

/// Whether `text` starts a record, as the header's documentation of them does not: a thread's
/// start, a trace (`TRACE N:`), a table. A file whose header lacks its line of dashes is read from
/// its first record.
fn is_record(text: &str) -> bool {
    let trace = text.strip_prefix("TRACE ").and_then(|rest| rest.split_once(':'));
    text.starts_with("THREAD START (")
        || trace.is_some_and(|(id, _)| crate::text::is_digits(id))
        || Table::starting(text).is_some()
}

/// The value after `key` in `text`, up to the next comma, parenthesis or space.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = &text[text.find(key)? + key.len()..];
    Some(rest.split([',', ')', ' ']).next().unwrap_or(rest))
}

/// The quoted value after `key` (which ends with its opening quote) in `text`.
fn quoted<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = &text[text.find(key)? + key.len()..];
    rest.split_once('"').map(|(value, _)| value)
}
