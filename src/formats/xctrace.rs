//! Instruments' Time Profiler table as `xctrace export` writes it (`xctrace export --input
//! run.trace --xpath '/trace-toc/run[@number="1"]/data/table[@schema="time-profile"]'`), the input
//! of `inferno-collapse-xctrace` (read only).
//!
//! ```text
//! <?xml version="1.0"?>
//! <trace-query-result>
//! <node xpath='//trace-toc[1]/run[1]/data[1]/table[10]'><schema name="time-profile">…</schema>
//! <row><sample-time id="1" fmt="00:00.053.360">53360000</sample-time><thread id="2" fmt="main …">…</thread>
//!   <weight id="9" fmt="1.00 ms">1000000</weight>
//!   <backtrace id="10"><frame id="11" name="0x18d3df0f1" addr="0x18d3df0f1"><binary id="12" name="dyld" …/></frame>
//!     <frame id="13" name="start" addr="0x18d373e50"><binary ref="12"/></frame></backtrace></row>
//! <row>…<weight ref="9"/><backtrace ref="10"/></row>
//! </node></trace-query-result>
//! ```
//!
//! **Grammar**: `trace-query-result`, `node`s, `row`s, one sample each. An element is written
//! whole the first time (`id="N"`) and then only named (`<frame ref="N"/>`, any element). A
//! `backtrace` lists its `frame`s innermost first; a frame has a `name` (the symbol, or the
//! address where there is none) and may hold its `binary` (`name`, `path`) and `source`.
//! A row's `weight` is the time it stands for, in nanoseconds.
//!
//! **Model**, as `inferno-collapse-xctrace` collapses the same file: each row with a backtrace is
//! one sample of its stack, root first (an empty backtrace, a stack of no frame to inferno, counted
//! under the pseudo-frame `(empty backtrace)`, said on stderr); frames are named by their `name`, a half-demangled Rust
//! symbol tidied ([`super::rust_symbols`]), with their binary's name as module. The interval is the
//! rows' weight when every row has the same (Instruments samples at 1 ms, or 100 µs in
//! high-frequency mode); where they differ, the samples still count rows, as inferno counts them,
//! with a warning.
//!
//! **Errors**: XML errors, a `ref` to an element not written before it, an `id` written twice, a
//! frame without a `name`, a weight that is not a number, each at its byte; a file that is not a
//! `trace-query-result`, or that ends before it closes (cut short).
//!
//! **Lost**: threads and processes (inferno's stacks have none), sample times, cores, thread
//! states, addresses, binaries' paths and source lines.

use super::kit::sink::{Order, StackSink};
use super::rust_symbols;
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, Profile};
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::io::{BufReader, Read};

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "xctrace",
    description: "Instruments' Time Profiler table (`xctrace export --xpath …time-profile…`), the stacks `inferno-collapse-xctrace` makes",
    extensions: &["xctrace.xml"],
    carries: Carries { modules: true, interval: true, ..Carries::STACKS_OF_SAMPLES },
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The document element of an export.
const ROOT: &[u8] = b"trace-query-result";

/// What the document should be, and how to make it.
const TABLE: &str = "<trace-query-result>, the Time Profiler table that xctrace export --input RUN.trace --xpath '/trace-toc/run[@number=\"1\"]/data/table[@schema=\"time-profile\"]' writes";

/// `Yes` when the first element is a `trace-query-result`.
fn sniff(head: &[u8]) -> Sniff {
    let mut rest = head.trim_ascii_start();
    if rest.starts_with(b"<?xml") {
        let Some(end) = memchr::memmem::find(rest, b"?>") else {
            return Sniff::No;
        };
        rest = rest[end + 2..].trim_ascii_start();
    }
    match rest.strip_prefix(b"<").is_some_and(|r| r.starts_with(ROOT)) {
        true => Sniff::Yes,
        false => Sniff::No,
    }
}

/// A frame being read: its id and name, and its binary once met.
struct PendingFrame {
    id: Option<u64>,
    name: String,
    binary: Option<String>,
}

/// The pseudo-frame the rows of an empty backtrace are counted under.
const EMPTY_BACKTRACE: &str = "(empty backtrace)";

/// Adds a row's sample of `frames` (innermost first); a row of an empty backtrace, a stack of no
/// frame to inferno, is counted under [`EMPTY_BACKTRACE`]. Whether it was one.
fn add_row(sink: &mut StackSink, frames: &[FrameId]) -> bool {
    match frames.is_empty() {
        true => {
            let empty = sink.frame(FrameRef::named(EMPTY_BACKTRACE, FrameKind::Pseudo));
            sink.add(Order::RootFirst, [empty], 0, 1);
        }
        false => sink.add(Order::LeafFirst, frames.iter().copied(), 0, 1),
    }
    frames.is_empty()
}

/// A row's backtrace: one written before it (by its id), or its own without an id.
enum RowStack {
    Written(u64),
    Own(Vec<FrameId>),
}

/// What has been read of the file: the elements written once and named later, by id.
#[derive(Default)]
struct Written {
    backtraces: HashMap<u64, Vec<FrameId>>,
    frames: HashMap<u64, FrameId>,
    binaries: HashMap<u64, String>,
    weights: HashMap<u64, i64>,
}

/// The error of an element at the byte it starts at: what was expected and what was found.
type ErrorAt<'e> = &'e dyn Fn(&str, String) -> ParseError;

/// An export being read: where the reader is (inside the document, a row, a backtrace with its id
/// and frames, a frame, a weight with its id and text), the row's backtrace and weight once read,
/// and what the rows so far came to.
struct Export {
    sink: StackSink,
    written: Written,
    in_document: bool,
    closed: bool,
    in_row: bool,
    backtrace: Option<(Option<u64>, Vec<FrameId>)>,
    frame: Option<PendingFrame>,
    weight: Option<Option<u64>>,
    weight_text: String,
    row_stack: Option<RowStack>,
    row_weight: Option<i64>,
    /// The weight of every row so far, while they are all the same; rows of other weights.
    interval: Option<i64>,
    other_weights: u64,
    empty_rows: usize,
}

/// Reads an `xctrace export` of the Time Profiler (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut reader = quick_xml::Reader::from_reader(BufReader::new(input));
    let mut export = Export {
        sink: StackSink::new(FORMAT, vec![Metric::samples()]),
        written: Written::default(),
        in_document: false,
        closed: false,
        in_row: false,
        backtrace: None,
        frame: None,
        weight: None,
        weight_text: String::new(),
        row_stack: None,
        row_weight: None,
        interval: None,
        other_weights: 0,
        empty_rows: 0,
    };
    let mut buf = Vec::new();
    loop {
        // The last event's bytes are done with: the buffer holds one event at a time.
        buf.clear();
        let at = reader.buffer_position();
        let error = |expected: &str, found: String| ParseError {
            format: FORMAT,
            position: Position::byte(at),
            kind: ParseErrorKind::Unexpected { expected: expected.into(), found },
        };
        let event = reader.read_event_into(&mut buf).map_err(|e| ParseError {
            format: FORMAT,
            position: Position::byte(reader.error_position()),
            kind: ParseErrorKind::Unexpected { expected: "well-formed XML".into(), found: e.to_string() },
        })?;
        match event {
            Event::Start(element) => export.start(&element, false, &error)?,
            Event::Empty(element) => export.start(&element, true, &error)?,
            Event::Text(text) if export.weight.is_some() => {
                let text = text.decode().map_err(|_| ParseError {
                    format: FORMAT,
                    position: Position::byte(at),
                    kind: crate::error::not_utf8(&text),
                })?;
                export.weight_text.push_str(&text);
            }
            Event::End(end) => export.end(end.name().as_ref(), &error)?,
            Event::Eof => break,
            _ => {}
        }
    }
    export.finish(Position::byte(reader.buffer_position()), diag)
}

impl Export {
    /// Reads an element's start (`empty`: the whole element, `<frame … />`).
    fn start(&mut self, element: &BytesStart<'_>, empty: bool, error: ErrorAt<'_>) -> Result<(), ParseError> {
        let name = element.name();
        let name = name.as_ref();
        if !self.in_document {
            if name != ROOT {
                return Err(error(TABLE, tag(name)));
            }
            (self.in_document, self.closed) = (!empty, empty);
            return Ok(());
        }
        // Elements of no interest (sample times, threads, cores…) are not looked into.
        if !matches!(name, b"row" | b"backtrace" | b"frame" | b"binary" | b"weight") {
            return Ok(());
        }
        let id = number(element, b"id", error)?;
        let reference = number(element, b"ref", error)?;
        match name {
            b"row" => {
                self.in_row = !empty;
                (self.row_stack, self.row_weight) = (None, None);
            }
            b"backtrace" if self.in_row && self.backtrace.is_none() => self.backtrace(id, reference, empty, error)?,
            b"frame" if self.frame.is_none() => self.frame(element, id, reference, empty, error)?,
            b"binary" => self.binary(element, id, reference, error)?,
            b"weight" if self.in_row && self.backtrace.is_none() => match reference {
                Some(reference) => {
                    let weight = self.written.weights.get(&reference);
                    self.row_weight = Some(*weight.ok_or_else(|| unwritten("weight", reference, error))?);
                }
                None if !empty => {
                    self.weight = Some(id);
                    self.weight_text.clear();
                }
                None => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// Reads a row's `backtrace`: a ref to one written before, one of no frame, or the start of
    /// one with frames.
    fn backtrace(
        &mut self,
        id: Option<u64>,
        reference: Option<u64>,
        empty: bool,
        error: ErrorAt<'_>,
    ) -> Result<(), ParseError> {
        match reference {
            Some(reference) => {
                if !self.written.backtraces.contains_key(&reference) {
                    return Err(unwritten("backtrace", reference, error));
                }
                self.row_stack = Some(RowStack::Written(reference));
            }
            // A backtrace of no frame, written whole as `<backtrace id="N"/>`: later rows may name
            // it by its id too.
            None if empty => self.row_stack = Some(self.backtrace_read(id, Vec::new(), error)?),
            None => self.backtrace = Some((id, Vec::new())),
        }
        Ok(())
    }

    /// The row's stack of a backtrace read whole, kept under its id for later references.
    fn backtrace_read(
        &mut self,
        id: Option<u64>,
        frames: Vec<FrameId>,
        error: ErrorAt<'_>,
    ) -> Result<RowStack, ParseError> {
        let Some(id) = id else { return Ok(RowStack::Own(frames)) };
        if self.written.backtraces.insert(id, frames).is_some() {
            return Err(twice(id, error));
        }
        Ok(RowStack::Written(id))
    }

    /// Reads a backtrace's `frame`: a ref to one written before, or one with its name.
    fn frame(
        &mut self,
        element: &BytesStart<'_>,
        id: Option<u64>,
        reference: Option<u64>,
        empty: bool,
        error: ErrorAt<'_>,
    ) -> Result<(), ParseError> {
        let Some((_, frames)) = self.backtrace.as_mut() else { return Ok(()) };
        if let Some(reference) = reference {
            frames.push(*self.written.frames.get(&reference).ok_or_else(|| unwritten("frame", reference, error))?);
            return Ok(());
        }
        let name = match attribute(element, b"name") {
            Ok(Some(name)) => name,
            Ok(None) => return Err(error("a frame with a name attribute", "a frame without one".into())),
            Err(why) => {
                let expected = "a frame name of text, character references and the five entities XML defines";
                return Err(error(expected, why));
            }
        };
        let pending = PendingFrame { id, name, binary: None };
        match empty {
            true => frames.push(intern(pending, &mut self.sink, &mut self.written, error)?),
            false => self.frame = Some(pending),
        }
        Ok(())
    }

    /// Reads a frame's `binary`: a ref to one written before, or one with its name.
    fn binary(
        &mut self,
        element: &BytesStart<'_>,
        id: Option<u64>,
        reference: Option<u64>,
        error: ErrorAt<'_>,
    ) -> Result<(), ParseError> {
        let Some(pending) = self.frame.as_mut() else { return Ok(()) };
        let binary = match reference {
            Some(reference) => {
                self.written.binaries.get(&reference).ok_or_else(|| unwritten("binary", reference, error))?.clone()
            }
            None => attribute(element, b"name").ok().flatten().unwrap_or_default(),
        };
        if let (Some(id), None) = (id, reference) {
            if self.written.binaries.insert(id, binary.clone()).is_some() {
                return Err(twice(id, error));
            }
        }
        pending.binary = Some(binary);
        Ok(())
    }

    /// Reads an element's end: a weight's, a frame's, a backtrace's, a row's, the document's.
    fn end(&mut self, name: &[u8], error: ErrorAt<'_>) -> Result<(), ParseError> {
        match name {
            b"weight" if self.weight.is_some() => {
                let text = self.weight_text.trim();
                let value = text.parse::<i64>().map_err(|_| error("a weight in nanoseconds", format!("{text:?}")))?;
                if let Some(Some(id)) = self.weight.take() {
                    if self.written.weights.insert(id, value).is_some() {
                        return Err(twice(id, error));
                    }
                }
                self.row_weight = Some(value);
            }
            b"frame" if self.frame.is_some() => {
                if let (Some(pending), Some((_, frames))) = (self.frame.take(), self.backtrace.as_mut()) {
                    frames.push(intern(pending, &mut self.sink, &mut self.written, error)?);
                }
            }
            b"backtrace" if self.backtrace.is_some() => {
                if let Some((id, frames)) = self.backtrace.take() {
                    self.row_stack = Some(self.backtrace_read(id, frames, error)?);
                }
            }
            b"row" if self.in_row => self.row_end(),
            ROOT => self.closed = true,
            _ => {}
        }
        Ok(())
    }

    /// Adds a row's sample, and its weight to what the rows' weights say of the interval.
    fn row_end(&mut self) {
        self.in_row = false;
        let frames = match &self.row_stack {
            Some(RowStack::Written(id)) => self.written.backtraces.get(id).map_or(&[][..], Vec::as_slice),
            Some(RowStack::Own(frames)) => frames.as_slice(),
            None => return,
        };
        self.empty_rows += usize::from(add_row(&mut self.sink, frames));
        match (self.interval, self.row_weight.take()) {
            (_, None) => {}
            (None, Some(weight)) if self.other_weights == 0 => self.interval = Some(weight),
            (Some(same), Some(weight)) if same == weight => {}
            _ => self.other_weights += 1,
        }
    }

    /// The profile of the rows read, or the error of an export that ends, at `end`, before it
    /// closes; the rows of an empty backtrace and of other weights said on stderr.
    fn finish(self, end: Position, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        if !self.closed {
            let expected = if self.in_document { "</trace-query-result>" } else { TABLE };
            return Err(self.sink.cut_short(end, expected.into()));
        }
        let empty_rows = self.empty_rows;
        if empty_rows > 0 {
            diag.warn("xctrace-empty-backtraces", None, || {
                format!("{empty_rows} rows with an empty backtrace counted under `{EMPTY_BACKTRACE}`, as inferno-collapse-xctrace counts them (a stack of no frame)")
            });
        }
        let mut profile = self.sink.finish(None, diag)?;
        match (self.interval, self.other_weights) {
            (Some(weight), 0) if weight > 0 => {
                profile.meta.interval = Some(std::time::Duration::from_nanos(weight.unsigned_abs()));
            }
            (Some(_), n) if n > 0 => diag.warn("mixed-weights", None, || {
                format!("{n} rows weigh other than the first: the samples count rows, as inferno-collapse-xctrace counts them, and the profile has no interval")
            }),
            _ => {}
        }
        Ok(profile)
    }
}

/// The model's frame of a frame read whole, kept under its id for later references.
fn intern(
    pending: PendingFrame,
    sink: &mut StackSink,
    written: &mut Written,
    error: ErrorAt<'_>,
) -> Result<FrameId, ParseError> {
    let name = rust_symbols::tidy(&pending.name);
    let module = pending.binary.as_deref().filter(|b| !b.is_empty());
    let frame = sink.frame(FrameRef { module, ..FrameRef::function(&name) });
    if let Some(id) = pending.id {
        if written.frames.insert(id, frame).is_some() {
            return Err(twice(id, error));
        }
    }
    Ok(frame)
}

/// The value of attribute `key`, unescaped; `None` where it is missing, and what is wrong with it
/// where it does not unescape (an entity the document does not define, named: xctrace's entities
/// are never expanded) or is not UTF-8.
fn attribute(element: &BytesStart<'_>, key: &[u8]) -> Result<Option<String>, String> {
    let Some(attribute) = element.try_get_attribute(key).ok().flatten() else { return Ok(None) };
    match attribute.normalized_value(quick_xml::XmlVersion::Explicit1_0) {
        Ok(value) => Ok(Some(value.into_owned())),
        Err(e) => Err(format!("a {} attribute that does not read ({e})", String::from_utf8_lossy(key))),
    }
}

/// The number of attribute `key` (`id`, `ref`), if the element has it.
fn number(element: &BytesStart<'_>, key: &[u8], error: ErrorAt<'_>) -> Result<Option<u64>, ParseError> {
    // Read from the attribute's bytes as they are: a number has nothing to unescape.
    let Some(attribute) = element.try_get_attribute(key).ok().flatten() else {
        return Ok(None);
    };
    let number = std::str::from_utf8(&attribute.value).ok().and_then(|text| text.parse().ok());
    number.map(Some).ok_or_else(|| {
        let text = String::from_utf8_lossy(&attribute.value);
        error(
            &format!("a number as {}", String::from_utf8_lossy(key)),
            format!("{}={text:?}", String::from_utf8_lossy(key)),
        )
    })
}

/// The error of a `ref` to an element not written before it.
fn unwritten(what: &str, reference: u64, error: ErrorAt<'_>) -> ParseError {
    error(&format!("a ref to a {what} written before it"), format!("ref=\"{reference}\", which no {what} before has"))
}

/// The error of an `id` written twice.
fn twice(id: u64, error: ErrorAt<'_>) -> ParseError {
    error("an id of its own for each element", format!("id=\"{id}\" a second time"))
}

/// An element's name as a message shows it.
fn tag(name: &[u8]) -> String {
    format!("<{}>", String::from_utf8_lossy(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Value;

    /// Rows name backtraces, frames, binaries and weights written before them; the stacks are
    /// those of inferno's own example in its source (checked by hand).
    #[test]
    fn references_name_what_was_written_before() {
        let xml = r#"<?xml version="1.0"?>
<trace-query-result><node>
<row><weight id="9" fmt="1.00 ms">1000000</weight><backtrace id="10"><frame id="11" name="leaf" addr="0x1"><binary id="12" name="prog"/></frame><frame id="13" name="start" addr="0x2"><binary ref="12"/></frame></backtrace></row>
<row><weight ref="9"/><backtrace ref="10"/></row>
<row><weight ref="9"/><backtrace id="20"><frame id="21" name="rust_test2::foo::ha31fba0d06a8a3eb" addr="0x3"/><frame ref="13"/></backtrace></row>
</node></trace-query-result>"#;
        let mut diag = Diagnostics::default();
        let profile = read(&mut xml.as_bytes(), &ReadOptions::default(), &mut diag).unwrap();
        let tree = &profile.tree;
        let name = |node| profile.frames.get(tree.frame(node)).name.clone();
        let mut stacks: Vec<String> = tree
            .nodes()
            .filter(|&node| tree.self_value(0, node) != Value::Int(0))
            .map(|node| {
                let path: Vec<String> = tree.ancestors(node).into_iter().chain([node]).map(name).collect();
                format!("{} {}", path.join(";"), tree.self_value(0, node))
            })
            .collect();
        stacks.sort();
        assert_eq!(stacks, ["start;leaf 2", "start;rust_test2::foo 1"]);
        assert_eq!(profile.meta.interval, Some(std::time::Duration::from_millis(1)));
        let dangling = xml.replace(r#"<backtrace ref="10"/>"#, r#"<backtrace ref="99"/>"#);
        let error = read(&mut dangling.as_bytes(), &ReadOptions::default(), &mut diag).unwrap_err().to_string();
        assert!(error.contains("ref=\"99\", which no backtrace before has"), "{error}");
    }

    /// A backtrace of no frame written whole with its id (`<backtrace id="4"/>`) is named by a later
    /// row's ref, as inferno-collapse-xctrace reads it (once refused as a ref to nothing); its rows
    /// are counted under `(empty backtrace)`, as inferno counts them (a stack of no frame).
    #[test]
    fn an_empty_backtrace_is_named_by_its_id() {
        let xml = r#"<?xml version="1.0"?>
<trace-query-result><node>
<row><weight id="1" fmt="1.00 ms">1000000</weight><backtrace id="2"><frame id="3" name="start" addr="0x1"/></backtrace></row>
<row><weight ref="1"/><backtrace id="4"/></row>
<row><weight ref="1"/><backtrace ref="4"/></row>
</node></trace-query-result>"#;
        let profile = read(&mut xml.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        assert_eq!(profile.tree.len(), 2);
        assert_eq!(profile.total(0), Value::Int(3));
        let twice = xml.replace(r#"<backtrace ref="4"/>"#, r#"<backtrace id="4"/>"#);
        let error = read(&mut twice.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap_err().to_string();
        assert!(error.contains("id=\"4\" a second time"), "{error}");
    }
}
