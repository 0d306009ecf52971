//! Dyalog APL `]PROFILE … -outfile=f.xml` reports: the only output `]PROFILE -infile=` reads back.
//!
//! ```text
//! <?xml version="1.0"?>
//! <ProfileData>
//!     <ProfileSettings>
//!         <Version>1.37</Version>
//!         <Title>2017/05/08 11:22:19</Title>
//!         <TimerBias>0.00007458669726290168</TimerBias>
//!         <Command>tree</Command>
//!         <TotalTime>173.41</TotalTime>
//!         <SelectedTime>173.41</SelectedTime>
//!     </ProfileSettings>
//!     <ProfileEntry>
//!         <Depth>0</Depth>
//!         <Element>#.Samples.Sample</Element>
//!         <Line>¯1</Line>
//!         <Calls>1</Calls>
//!         <ExclusiveTime>19.362</ExclusiveTime>
//!         <InclusiveTime>61.828</InclusiveTime>
//!     </ProfileEntry>
//! </ProfileData>
//! ```
//!
//! **Grammar** (shared notes §3.4): an optional XML declaration, `<ProfileData>` holding one
//! `<ProfileSettings>` (Version, Title, TimerBias, Command, TotalTime, SelectedTime) and any number of
//! `<ProfileEntry>`, each with one element per report column. Entries are read **by element name**:
//! their order differs between reports and versions. 0.9.0 names the function `<Function>`, later
//! versions `<Element>`; a function row's Line is `<Line></Line>`, `<Line/>`, `¯1` or `-1`. Rows and
//! their meaning are in the [parent module](super).
//!
//! **Model**: Title is the profile's title; the other settings are kept as header facts
//! (`dyalog-xml.Version`, …) and written back as read. **Writing** uses the current layout
//! (`<Element>`, `¯1` lines in trees, ExclusiveTime before InclusiveTime, ticks when the profile has
//! them); settings a profile lacks are filled in (Version 1.37, TimerBias 0, TotalTime the total
//! time). A profile read from a 0.x file keeps its Version and is written with that version's
//! swapped labels, so that it reads back the same.
//! **Lost**: nothing a Dyalog report holds; from other formats, everything but calls, time, ticks
//! and line numbers (named on stderr by the conversion step).

use super::rows::RowSink;
use super::{report_rows, Column, OutRow, Report, ReportBuilder, Row};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, ParseError, ParseErrorKind, Position};
use crate::formats::{Format, Sniff};
use crate::model::{Profile, Value};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::{BufRead, Read, Write};

const FORMAT: Format = Format::DyalogXml;

/// The header facts kept from `<ProfileSettings>`, in the order they are written.
const SETTINGS: [&str; 6] = ["Version", "Title", "TimerBias", "Command", "TotalTime", "SelectedTime"];

/// The header attr that holds the report kind.
const COMMAND: &str = "dyalog-xml.Command";

/// Yes when the input starts (after a declaration, comments or whitespace) with `<ProfileData>`.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    while rest.starts_with("<?") || rest.starts_with("<!--") {
        let end = if rest.starts_with("<?") { "?>" } else { "-->" };
        match rest.find(end) {
            Some(i) => rest = rest[i + end.len()..].trim_start(),
            None => return Sniff::No,
        }
    }
    if rest.starts_with("<ProfileData>") || rest.starts_with("<ProfileData ") {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// A buffered input that knows the line of any byte still in its buffer, so that a position the
/// XML parser reports can be given as a line: newlines are counted once per buffer, in bulk, as
/// it is refilled.
struct LineCounter<R> {
    inner: R,
    buf: Box<[u8]>,
    /// The unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// The input offset of `buf[0]`, and the newlines before it.
    buf_offset: u64,
    lines_before_buf: u64,
    /// The last position asked for (offset, newlines before it): positions are asked for in input
    /// order, so each is counted on from the one before.
    last: std::cell::Cell<(u64, u64)>,
}

impl<R: Read> LineCounter<R> {
    fn new(inner: R) -> LineCounter<R> {
        LineCounter {
            inner,
            buf: vec![0; 1 << 16].into_boxed_slice(),
            start: 0,
            end: 0,
            buf_offset: 0,
            lines_before_buf: 0,
            last: std::cell::Cell::new((0, 0)),
        }
    }

    /// The position of byte `offset`, with its line when the byte is still in the buffer (an event
    /// that began in an earlier buffer is given by its byte offset alone).
    fn position(&self, offset: u64) -> Position {
        let Some(i) =
            offset.checked_sub(self.buf_offset).and_then(|i| usize::try_from(i).ok()).filter(|&i| i <= self.end)
        else {
            return Position::byte(offset);
        };
        let (last_offset, last_lines) = self.last.get();
        let (from, lines) = match last_offset.checked_sub(self.buf_offset).and_then(|l| usize::try_from(l).ok()) {
            Some(l) if l <= i => (l, last_lines),
            _ => (0, self.lines_before_buf),
        };
        let lines = lines + memchr::memchr_iter(b'\n', &self.buf[from..i]).count() as u64;
        self.last.set((offset, lines));
        Position::line(lines + 1, offset)
    }
}

impl<R: Read> Read for LineCounter<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for LineCounter<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.start == self.end {
            self.lines_before_buf += memchr::memchr_iter(b'\n', &self.buf[..self.end]).count() as u64;
            self.buf_offset += self.end as u64;
            self.start = 0;
            self.end = 0;
            self.end = loop {
                match self.inner.read(&mut self.buf) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    result => break result?,
                }
            };
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn consume(&mut self, amount: usize) {
        self.start = (self.start + amount).min(self.end);
    }
}

/// An element proftool knows, or another one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    ProfileData,
    ProfileSettings,
    ProfileEntry,
    Column(Column),
    Other,
}

impl Tag {
    fn of(name: &[u8]) -> Tag {
        match name {
            b"ProfileData" => Tag::ProfileData,
            b"ProfileSettings" => Tag::ProfileSettings,
            b"ProfileEntry" => Tag::ProfileEntry,
            _ => Column::from_name(name).map_or(Tag::Other, Tag::Column),
        }
    }
}

/// A parser event, reduced to what the reader needs; names are in [`XmlInput::name`] and text is
/// appended to [`XmlInput::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Start(Tag),
    Empty(Tag),
    End(Tag),
    Text,
    /// Text of XML whitespace alone, outside [`XmlInput::element_text`]: not kept (the layout
    /// between elements is most of the events of a report).
    Space,
    Eof,
}

/// The XML parser with line counting and reusable buffers.
struct XmlInput<R: Read> {
    reader: Reader<LineCounter<R>>,
    buf: Vec<u8>,
    /// The name of the last start, empty or end element, as bytes (decoded only for messages).
    name: Vec<u8>,
    /// Text gathered since the caller last cleared it.
    text: String,
    /// Whether whitespace-only text is gathered too (inside an element whose text is wanted).
    keep_space: bool,
}

impl<R: Read> XmlInput<R> {
    fn new(input: R) -> XmlInput<R> {
        let counter = LineCounter::new(input);
        let mut reader = Reader::from_reader(counter);
        // Whitespace-only text between elements is not reported; text inside one is kept whole.
        reader.config_mut().trim_text_start = false;
        reader.config_mut().trim_text_end = false;
        XmlInput { reader, buf: Vec::new(), name: Vec::new(), text: String::new(), keep_space: false }
    }

    /// The position just after the last event.
    fn here(&self) -> Position {
        self.reader.get_ref().position(self.reader.buffer_position())
    }

    fn error(&self, position: Position, kind: ParseErrorKind) -> ParseError {
        ParseError { format: FORMAT, position, kind }
    }

    fn unexpected(&self, expected: &str, found: String) -> ParseError {
        self.error(self.here(), ParseErrorKind::Unexpected { expected: expected.into(), found })
    }

    /// The name of the last element.
    fn name(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// What the last event was, for messages.
    fn describe(&self, ev: Ev) -> String {
        match ev {
            Ev::Start(_) | Ev::Empty(_) => format!("<{}>", self.name()),
            Ev::End(_) => format!("</{}>", self.name()),
            Ev::Text => format!("text {}", excerpt(self.text.trim().as_bytes())),
            Ev::Space => "whitespace".into(),
            Ev::Eof => "the end of the input".into(),
        }
    }

    /// The next event that is not a comment, declaration or processing instruction.
    fn next(&mut self) -> Result<Ev, ParseError> {
        loop {
            self.buf.clear();
            let event = match self.reader.read_event_into(&mut self.buf) {
                Ok(event) => event,
                Err(e) => {
                    let position = self.reader.get_ref().position(self.reader.error_position());
                    let kind = ParseErrorKind::Unexpected { expected: "well-formed XML".into(), found: e.to_string() };
                    return Err(ParseError { format: FORMAT, position, kind });
                }
            };
            let (ev, name) = match event {
                Event::Start(e) => (Ev::Start(Tag::of(e.name().as_ref())), Some(e)),
                Event::Empty(e) => (Ev::Empty(Tag::of(e.name().as_ref())), Some(e)),
                Event::End(e) => {
                    let tag = Tag::of(e.name().as_ref());
                    set_name(&mut self.name, e.name().as_ref());
                    return Ok(Ev::End(tag));
                }
                Event::Text(t) if !self.keep_space && t.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) => {
                    return Ok(Ev::Space);
                }
                Event::Text(t) => {
                    let text = t.decode().map_err(|_| encoding_error(&self.reader))?;
                    self.text.push_str(&text);
                    return Ok(Ev::Text);
                }
                Event::CData(t) => {
                    let text = t.decode().map_err(|_| encoding_error(&self.reader))?;
                    self.text.push_str(&text);
                    return Ok(Ev::Text);
                }
                Event::GeneralRef(r) => {
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(c)) => Some(c.to_string()),
                        _ => r.decode().ok().and_then(|n| resolve_predefined_entity(&n)).map(str::to_string),
                    };
                    let Some(resolved) = resolved else {
                        let found = format!("&{};", String::from_utf8_lossy(&r));
                        return Err(self.unexpected(
                            "a predefined entity (&amp; &lt; &gt; &quot; &apos;) or a character reference",
                            found,
                        ));
                    };
                    self.text.push_str(&resolved);
                    return Ok(Ev::Text);
                }
                Event::Eof => return Ok(Ev::Eof),
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => continue,
            };
            if let Some(e) = name {
                set_name(&mut self.name, e.name().as_ref());
            }
            return Ok(ev);
        }
    }

    /// The text up to the end of the element just started; an element inside it is an error.
    fn element_text(&mut self) -> Result<(), ParseError> {
        self.text.clear();
        self.keep_space = true;
        let ended = loop {
            match self.next() {
                Ok(Ev::Text) => {}
                Ok(Ev::End(_)) => break Ok(()),
                Ok(ev) => break Err(self.unexpected("text, then the element's end tag", self.describe(ev))),
                Err(e) => break Err(e),
            }
        };
        self.keep_space = false;
        ended
    }

    /// Skips the rest of an element just started, whatever it holds.
    fn skip_element(&mut self) -> Result<(), ParseError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.next()? {
                Ev::Start(_) => depth += 1,
                Ev::End(_) => depth -= 1,
                Ev::Eof => return Err(self.unexpected("the element's end tag", "the end of the input".into())),
                Ev::Empty(_) | Ev::Text | Ev::Space => {}
            }
        }
        Ok(())
    }
}

/// Keeps an element's name for messages, reusing the buffer (a name per event must not allocate).
fn set_name(buf: &mut Vec<u8>, name: &[u8]) {
    buf.clear();
    buf.extend_from_slice(name);
}

fn encoding_error<R: Read>(reader: &Reader<LineCounter<R>>) -> ParseError {
    let position = reader.get_ref().position(reader.buffer_position());
    ParseError { format: FORMAT, position, kind: ParseErrorKind::Encoding }
}

/// The entity's replacement text, for the five entities XML predefines.
fn resolve_predefined_entity(name: &str) -> Option<&'static str> {
    quick_xml::escape::resolve_predefined_entity(name)
}

/// Reads a `]PROFILE` XML report.
pub(crate) fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let (builder, (settings, warnings)) = super::rows::read_rows(FORMAT, input, parse)?;
    for warning in warnings.warnings() {
        diag.push(warning.clone());
    }
    let builder = builder.unwrap_or_else(|| ReportBuilder::new(FORMAT, &[Column::Element]));
    Ok(finish(builder, settings, diag))
}

/// Parses the XML, handing each entry to `sink`; returns the settings and warnings.
fn parse(input: &mut dyn BufRead, sink: &mut RowSink<'_>) -> Result<(Vec<(String, String)>, Diagnostics), ParseError> {
    let mut diag = Diagnostics::default();
    let mut x = XmlInput::new(input);
    loop {
        match x.next()? {
            Ev::Start(Tag::ProfileData) => break,
            Ev::Space => {}
            Ev::Text if x.text.trim().is_empty() => x.text.clear(),
            _ => {
                let kind = ParseErrorKind::MissingMarker { format: FORMAT, expected: "a <ProfileData> element" };
                return Err(x.error(x.here(), kind));
            }
        }
    }
    let mut settings: Vec<(String, String)> = Vec::new();
    let mut entry = Entry::default();
    let mut first = true;
    loop {
        x.text.clear();
        match x.next()? {
            Ev::Start(Tag::ProfileSettings) => read_settings(&mut x, &mut settings)?,
            Ev::Empty(Tag::ProfileSettings) => {}
            Ev::Start(Tag::ProfileEntry) => {
                let position = x.here();
                entry.read(&mut x, &mut diag)?;
                if std::mem::take(&mut first) {
                    sink.columns(&entry.columns)?;
                }
                sink.row(&entry.name, &entry.row, position)?;
            }
            Ev::Space => {}
            Ev::Text if x.text.trim().is_empty() => {}
            Ev::End(Tag::ProfileData) => break,
            ev => return Err(x.unexpected("<ProfileSettings>, <ProfileEntry> or </ProfileData>", x.describe(ev))),
        }
    }
    loop {
        x.text.clear();
        match x.next()? {
            Ev::Eof => break,
            Ev::Space => {}
            Ev::Text if x.text.trim().is_empty() => {}
            ev => return Err(x.unexpected("nothing after </ProfileData>", x.describe(ev))),
        }
    }
    Ok((settings, diag))
}

/// The profile from its rows and settings: Title as the title, the rest as header facts.
fn finish(builder: ReportBuilder, settings: Vec<(String, String)>, diag: &mut Diagnostics) -> Profile {
    let setting = |name: &str| settings.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let version = setting("Version").unwrap_or("");
    let swapped = version.starts_with("0.") && matches!(setting("Command"), Some("tree" | "data"));
    let labels_swapped = swapped.then(|| version.to_string());
    let mut builder = builder;
    let meta = builder.meta_mut();
    for (name, value) in settings {
        if name == "Title" {
            meta.title = Some(value).filter(|t| !t.is_empty());
        } else {
            meta.attrs.push((format!("dyalog-xml.{name}"), value));
        }
    }
    builder.finish(labels_swapped.as_deref(), diag)
}

fn read_settings<R: BufRead>(x: &mut XmlInput<R>, settings: &mut Vec<(String, String)>) -> Result<(), ParseError> {
    loop {
        x.text.clear();
        match x.next()? {
            Ev::Start(_) => {
                let name = x.name();
                x.element_text()?;
                settings.push((name, x.text.trim().to_string()));
            }
            Ev::Empty(_) => settings.push((x.name(), String::new())),
            Ev::Space => {}
            Ev::Text if x.text.trim().is_empty() => {}
            Ev::End(Tag::ProfileSettings) => return Ok(()),
            ev => return Err(x.unexpected("a setting or </ProfileSettings>", x.describe(ev))),
        }
    }
}

/// One `<ProfileEntry>` being read, its buffers reused from entry to entry.
#[derive(Default)]
struct Entry {
    name: String,
    row: Row,
    columns: Vec<Column>,
}

impl Entry {
    fn read<R: BufRead>(&mut self, x: &mut XmlInput<R>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        self.name.clear();
        self.row = Row::default();
        self.columns.clear();
        loop {
            x.text.clear();
            let (column, empty) = match x.next()? {
                Ev::Start(Tag::Column(c)) => (c, false),
                Ev::Empty(Tag::Column(c)) => (c, true),
                Ev::Start(_) => {
                    let name = x.name();
                    diag.warn("dyalog-unknown-column", Some(x.here()), || {
                        format!("{FORMAT}: unknown column <{name}> ignored")
                    });
                    x.skip_element()?;
                    continue;
                }
                Ev::Empty(_) => continue,
                Ev::Space => continue,
                Ev::Text if x.text.trim().is_empty() => continue,
                Ev::End(Tag::ProfileEntry) => break,
                ev => return Err(x.unexpected("a column element or </ProfileEntry>", x.describe(ev))),
            };
            // Its position is worked out only for a message (the bytes are still buffered then).
            let offset = x.reader.buffer_position();
            if !empty {
                x.element_text()?;
            }
            self.columns.push(column);
            // A name is taken as it is (a writer does not pad inside elements); numbers are trimmed.
            if column == Column::Element {
                self.name.push_str(&x.text);
            } else if let Err(kind) = self.row.set(column, x.text.as_bytes(), '.') {
                return Err(x.error(x.reader.get_ref().position(offset), kind));
            }
        }
        if !self.columns.contains(&Column::Element) {
            let kind = ParseErrorKind::Unexpected {
                expected: "an <Element> (or <Function>) column in every <ProfileEntry>".into(),
                found: "an entry without one".into(),
            };
            return Err(x.error(x.here(), kind));
        }
        Ok(())
    }
}

/// Writes `profile` as a `]PROFILE` XML report.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write) -> Result<(), Error> {
    let (report, columns, rows) = report_rows(profile, COMMAND, false);
    let settings = settings(profile, report, &rows);
    // A profile read from a 0.x file keeps its Version, and so the labels that version gives its
    // columns (read back, they are swapped again): the round trip is exact.
    let version_swaps = settings[0].1.starts_with("0.") && matches!(report, Report::Tree | Report::Data);
    let mut text = String::with_capacity(1 << 16);
    text.push_str("<?xml version=\"1.0\"?>\n<ProfileData>\n    <ProfileSettings>\n");
    for (name, value) in settings {
        element(&mut text, 8, &name, &value);
    }
    text.push_str("    </ProfileSettings>\n");
    let base = super::percent_base(profile, "dyalog-xml.TotalTime", report, &rows);
    let mut value = String::new();
    for row in &rows {
        text.push_str("    <ProfileEntry>\n");
        for &column in &columns {
            value.clear();
            super::format_cell(row, column, report, base, '.', &mut value);
            let label = if version_swaps { column.swapped() } else { column };
            element(&mut text, 8, label.name(), &value);
        }
        text.push_str("    </ProfileEntry>\n");
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    text.push_str("</ProfileData>\n");
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// `<name>value</name>` (or `<name/>`) on its own line, indented.
fn element(out: &mut String, indent: usize, name: &str, value: &str) {
    out.extend(std::iter::repeat_n(' ', indent));
    if value.is_empty() {
        out.push('<');
        out.push_str(name);
        out.push_str("/>\n");
        return;
    }
    out.push('<');
    out.push_str(name);
    out.push('>');
    out.push_str(&quick_xml::escape::partial_escape(value));
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// The settings to write: the six `]PROFILE` writes, as read or else filled in from the profile,
/// then any others read.
fn settings(profile: &Profile, report: Report, rows: &[OutRow<'_>]) -> Vec<(String, String)> {
    let attr = |name: &str| {
        let key = format!("dyalog-xml.{name}");
        profile.meta.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    };
    let total = || {
        let mut s = String::new();
        super::format_number(Value::Float(super::total_time(report, rows)), '.', &mut s);
        s
    };
    SETTINGS
        .iter()
        .map(|&name| {
            let value = match name {
                "Version" => attr(name).unwrap_or_else(|| "1.37".to_string()),
                "Title" => profile.meta.title.clone().unwrap_or_default(),
                "TimerBias" => attr(name).unwrap_or_else(|| "0".into()),
                "Command" => report.name().to_string(),
                _ => attr(name).unwrap_or_else(total),
            };
            (name.to_string(), value)
        })
        .chain(profile.meta.attrs.iter().filter_map(|(key, value)| {
            let name = key.strip_prefix("dyalog-xml.")?;
            (!SETTINGS.contains(&name)).then(|| (name.to_string(), value.clone()))
        }))
        .collect()
}
