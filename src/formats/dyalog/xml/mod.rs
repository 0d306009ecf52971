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
//! **Grammar** (the examples of Dyalog's `]PROFILE` documentation): an optional XML declaration, `<ProfileData>` holding one
//! `<ProfileSettings>` (Version, Title, TimerBias, Command, TotalTime, SelectedTime) and any number of
//! `<ProfileEntry>`, each with one element per report column. Entries are read **by element name**:
//! their order differs between reports and versions. 0.9.0 names the function `<Function>`, later
//! versions `<Element>`; a function row's Line is `<Line></Line>`, `<Line/>`, `¯1` or `-1`. Rows and
//! their meaning are in the [parent module](super).
//!
//! **Reading** is streamed in blocks of whole entries (a block ends just after a `</ProfileEntry>`
//! tag), each parsed as a slice so that no event is copied; an entry that a block ends inside
//! (where `</ProfileEntry>` stands in a comment, CDATA or attribute) is read again in a longer block.
//! Blocks without such constructs, most of a report, are parsed two at a time on two threads.
//!
//! **Model**: Title is the profile's title; Command is the report kind, `dyalog.report`, the fact
//! the CSV reader sets too (from the columns when there is no Command); the other settings are kept
//! as header facts (`dyalog-xml.Version`, …) and written back as read. **Writing** uses the current
//! layout (`<Element>`, `¯1` lines in trees, ExclusiveTime before InclusiveTime, ticks when the
//! profile has them); settings a profile lacks are filled in (Version 1.37, TimerBias 0 with a
//! warning, TotalTime the total time); `--dyalog-title` sets the title. A report is written in the
//! 1.37 layout with its columns labelled as measured, so a Version read as `0.x` (whose labels
//! readers swap back, §3.7) is written as `1.37`, with a warning; or, with `--dyalog-version 0.9.0`
//! ([`super::Layout::V0_9_0`]), in 0.9.0's: no declaration, `<Function>`, `<Line></Line>`, and a tree's or
//! data report's columns under 0.9.0's swapped labels (the `]PROFILE` guide's tree example is
//! written back byte for byte). **Lost**: nothing a Dyalog report holds; from other formats,
//! everything but calls, time, ticks and line numbers (named on stderr by the conversion step).

mod rows;
mod write;

use super::build::ReportBuilder;
use super::{Column, Report, Row};
use crate::diag::Diagnostics;
use crate::error::{excerpt, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::spec::{Reads, Rules, Sniff, Spec, Writes};
use crate::model::Profile;
use quick_xml::events::Event;
use quick_xml::Reader;
use rows::{Kept, RowSink};
use std::io::{BufRead, Read};

/// What Dyalog's XML format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "dyalog-xml",
    description: "Dyalog APL `]PROFILE` report as XML",
    extensions: &["xml"],
    carries: super::carries(false),
    reads: Some(Reads::text(sniff, |input, options, diag| read(input, options.merge_lines, diag))),
    writes: Some(Writes::new(
        |profile, to| write(profile, to.out, &to.options.formats.get(), to.diag),
        Rules {
            // Read back, such a report would say neither its kind nor its columns.
            no_stack_file: Some("a Dyalog XML report of none has no row to say what it measures"),
            ..super::rules(|profile, _, diag| super::fit(profile, FORMAT, diag), true)
        },
    )),
};

/// The format's name in errors and warnings.
pub(super) const FORMAT: FormatName = SPEC.format_name();

/// The header facts kept from `<ProfileSettings>`, in the order they are written.
pub(super) const SETTINGS: [&str; 6] = ["Version", "Title", "TimerBias", "Command", "TotalTime", "SelectedTime"];

/// Yes when the input starts (after a declaration, comments or whitespace) with `<ProfileData>` (or
/// `<ProfileData/>`, an empty report).
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
    if ["<ProfileData>", "<ProfileData ", "<ProfileData/>"].iter().any(|start| rest.starts_with(start)) {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// How much input a block holds at least, past what it carries over (unless the input ends first).
const BLOCK: usize = 1 << 18;

/// The start of the end tag after which a block may end.
const ENTRY_END: &[u8] = b"</ProfileEntry";

/// The synthetic start tag of a block that begins inside `<ProfileData>`.
const INSIDE: &[u8] = b"<ProfileData>";

/// The input in blocks that end just after a `</ProfileEntry>` tag (or at the end of the input), so
/// that the XML parser reads each block as a slice: its events borrow from the block, nothing is
/// copied event by event. A block that begins inside `<ProfileData>` starts with a synthetic
/// `<ProfileData>` tag, so that the parser checks end tags as if it had read the whole document.
///
/// A `</ProfileEntry>` inside a comment, CDATA section or attribute value makes a block end inside
/// that construct, as does a block that ends at another `>` (where no entry ends): the parser
/// reports the end of the block there, and `parse` reads the item again from its start in a longer
/// block.
struct Blocks<'i> {
    input: &'i mut dyn BufRead,
    /// Bytes read at a time, and so the least a block grows by.
    block: usize,
    /// The current block, and where it starts.
    buf: Vec<u8>,
    start: BlockStart,
    /// Input read past the current block, and the storage of the block before it (reused).
    rest: Vec<u8>,
    spare: Vec<u8>,
    eof: bool,
    /// The current block is the last.
    last: bool,
    /// The current block ends just after a `</ProfileEntry>` tag (not at another `>`, nor at the
    /// end of the input).
    entry_cut: bool,
}

/// Where a block starts in the input: what its byte offsets are counted from.
#[derive(Clone, Copy, Debug)]
struct BlockStart {
    /// Synthetic bytes before the input.
    prefix: usize,
    /// The input offset of the byte after them, and the newlines before it.
    offset: u64,
    lines_before: u64,
    /// The characters of its line before it (for columns in messages).
    column_before: u64,
}

/// The characters of UTF-8 `bytes` (its bytes that are not continuation bytes).
fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64
}

impl<'i> Blocks<'i> {
    fn new(input: &'i mut dyn BufRead, block: usize) -> Blocks<'i> {
        Blocks {
            input,
            block: block.max(1),
            buf: Vec::new(),
            start: BlockStart { prefix: 0, offset: 0, lines_before: 0, column_before: 0 },
            rest: Vec::new(),
            spare: Vec::new(),
            eof: false,
            last: false,
            entry_cut: false,
        }
    }

    /// Whether the current block can be parsed on its own, ahead of its turn: it starts inside
    /// `<ProfileData>`, ends just after a `</ProfileEntry>` tag, and has none of the constructs such
    /// a tag can stand in (comment, CDATA, processing instruction, attribute value), so every entry
    /// in it ends in it. Real reports are made of such blocks.
    fn plain(&self) -> bool {
        let input = &self.buf[self.start.prefix..];
        self.start.prefix > 0
            && self.entry_cut
            && !self.last
            && memchr::memchr3(b'!', b'?', b'"', input).is_none()
            && memchr::memchr(b'\'', input).is_none()
    }

    /// Goes back to the block before the current one, `buf` (a copy of it) starting at `start`: the
    /// current block's input is read again after it.
    fn rewind(&mut self, buf: Vec<u8>, start: BlockStart) {
        let mut rest = self.buf.split_off(self.start.prefix);
        rest.append(&mut self.rest);
        self.rest = rest;
        self.spare = std::mem::replace(&mut self.buf, buf);
        self.start = start;
        self.last = false;
        self.entry_cut = true;
    }

    /// Moves to the next block, which starts at byte `keep` of the current block's input (all of it
    /// read when `keep` is past its end) and reaches past the current block's end; `inside` when it
    /// starts inside `<ProfileData>`. False after the last block.
    fn advance(&mut self, keep: usize, inside: bool) -> Result<bool, ParseError> {
        if self.last {
            return Ok(false);
        }
        let keep = keep.min(self.buf.len() - self.start.prefix);
        let read = &self.buf[self.start.prefix..self.start.prefix + keep];
        self.start.lines_before += memchr::memchr_iter(b'\n', read).count() as u64;
        self.start.column_before = match memchr::memrchr(b'\n', read) {
            Some(i) => chars(&read[i + 1..]),
            None => self.start.column_before + chars(read),
        };
        self.start.offset += keep as u64;
        let mut next = std::mem::take(&mut self.spare);
        next.clear();
        if inside {
            next.extend_from_slice(INSIDE);
        }
        next.extend_from_slice(&self.buf[self.start.prefix + keep..]);
        let old_end = next.len();
        next.append(&mut self.rest);
        self.spare = std::mem::replace(&mut self.buf, next);
        self.start.prefix = if inside { INSIDE.len() } else { 0 };
        // Reading on by at least as much as is carried over keeps re-reading a long item linear.
        let wanted = old_end + self.block.max(old_end - self.start.prefix);
        let mut searched = old_end;
        self.entry_cut = false;
        loop {
            if self.eof {
                break;
            }
            if self.buf.len() >= wanted {
                if let Some((cut, entry_cut)) = last_cut(&self.buf, searched, old_end) {
                    self.rest.extend_from_slice(&self.buf[cut..]);
                    self.buf.truncate(cut);
                    self.entry_cut = entry_cut;
                    break;
                }
                // An end tag may straddle what was read and what is read next.
                searched = self.buf.len().saturating_sub(256).max(old_end);
            }
            let n = (&mut *self.input)
                .take(self.block as u64)
                .read_to_end(&mut self.buf)
                .map_err(|e| self.error(ParseErrorKind::Io(e)))?;
            self.eof = n < self.block;
        }
        self.last = self.eof && self.rest.is_empty();
        Ok(true)
    }

    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { format: FORMAT, position: Position::line(self.start.lines_before + 1, self.start.offset), kind }
    }
}

/// Where a block can end: just after the last `</ProfileEntry>` tag that starts at `from` or later
/// and ends after `after`; failing that, just after the last `>` past `after`, so that a document
/// without entries (not a report at all, say) is still read a block at a time. A `>` is never
/// inside a character or entity reference, and an element cut there is read again. The cut, and
/// whether it follows a `</ProfileEntry>` tag.
fn last_cut(buf: &[u8], from: usize, after: usize) -> Option<(usize, bool)> {
    let mut region = buf.get(from..)?;
    while let Some(at) = memchr::memmem::rfind(region, ENTRY_END) {
        let tail = &region[at + ENTRY_END.len()..];
        let spaces = tail.iter().take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')).count();
        let end = from + at + ENTRY_END.len() + spaces + 1;
        if tail.get(spaces) == Some(&b'>') && end > after {
            return Some((end, true));
        }
        region = &region[..at];
    }
    memchr::memrchr(b'>', buf.get(after..)?).map(|at| (after + at + 1, false))
}

/// Byte offsets in a block as input positions with their lines.
struct BlockPositions {
    start: BlockStart,
    /// The last position asked for (index in the block, newlines before it in the block):
    /// positions are mostly asked for in input order, so each is counted on from the one before.
    last: std::cell::Cell<(usize, u64)>,
}

impl BlockPositions {
    fn of(start: BlockStart) -> BlockPositions {
        BlockPositions { start, last: std::cell::Cell::new((start.prefix, 0)) }
    }

    /// The position of `block[at]`.
    fn position(&self, block: &[u8], at: u64) -> Position {
        let BlockStart { prefix, offset, lines_before, .. } = self.start;
        let at = usize::try_from(at).unwrap_or(usize::MAX).clamp(prefix, block.len());
        let (from, lines) = match self.last.get() {
            (last, lines) if last <= at => (last, lines),
            _ => (prefix, 0),
        };
        let lines = lines + memchr::memchr_iter(b'\n', &block[from..at]).count() as u64;
        self.last.set((at, lines));
        Position::line(lines_before + lines + 1, offset + (at - prefix) as u64)
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
        match Tag::structure(name) {
            Tag::Other => Column::from_name(name).map_or(Tag::Other, Tag::Column),
            tag => tag,
        }
    }

    /// The tag of an end element: only the structure's ends are told apart (a column's end is
    /// [`Tag::Other`], as the reader matches it with no more than being an end).
    fn structure(name: &[u8]) -> Tag {
        match name {
            b"ProfileData" => Tag::ProfileData,
            b"ProfileSettings" => Tag::ProfileSettings,
            b"ProfileEntry" => Tag::ProfileEntry,
            _ => Tag::Other,
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

/// The XML parser over one block.
struct XmlInput<'b> {
    reader: Reader<&'b [u8]>,
    block: &'b [u8],
    positions: BlockPositions,
    /// The block is the end of the input.
    last: bool,
    /// The parser reached the end of the block, which is not the end of the input.
    hit_end: bool,
    /// Where the top-level item being read started in the block.
    item_start: u64,
    /// The name of the last start, empty or end element, as bytes (decoded only for messages).
    name: Vec<u8>,
    /// Text gathered since the caller last cleared it.
    text: String,
    /// Whether whitespace-only text is gathered too (inside an element whose text is wanted).
    keep_space: bool,
}

impl<'b> XmlInput<'b> {
    /// The parser over the current block, past its synthetic start tag.
    fn new(blocks: &'b Blocks<'_>) -> Result<XmlInput<'b>, ParseError> {
        XmlInput::over(&blocks.buf, blocks.start, blocks.last)
    }

    /// The parser over `block`, which starts at `start` (and is the `last`), past its synthetic
    /// start tag.
    fn over(block: &'b [u8], start: BlockStart, last: bool) -> Result<XmlInput<'b>, ParseError> {
        let mut reader = Reader::from_reader(block);
        // Text inside an element is kept whole (whitespace between elements is told apart by Ev::Space).
        reader.config_mut().trim_text_start = false;
        reader.config_mut().trim_text_end = false;
        let mut x = XmlInput {
            reader,
            block,
            positions: BlockPositions::of(start),
            last,
            hit_end: false,
            item_start: 0,
            name: Vec::new(),
            text: String::new(),
            keep_space: false,
        };
        if start.prefix > 0 {
            x.next()?;
        }
        Ok(x)
    }

    /// The position of byte `at` of the block.
    fn position(&self, at: u64) -> Position {
        self.positions.position(self.block, at)
    }

    /// The position of byte `at` of the block with its column (for messages only: it looks back for
    /// the line's start).
    fn position_with_column(&self, at: u64) -> Position {
        let mut position = self.position(at);
        let prefix = self.positions.start.prefix;
        let at = usize::try_from(at).unwrap_or(usize::MAX).clamp(prefix, self.block.len());
        let before = match memchr::memrchr(b'\n', &self.block[prefix..at]) {
            Some(i) => chars(&self.block[prefix + i + 1..at]),
            None => self.positions.start.column_before + chars(&self.block[prefix..at]),
        };
        position.column = Some(before + 1);
        position
    }

    /// The position just after the last event.
    fn here(&self) -> Position {
        self.position(self.reader.buffer_position())
    }

    /// Where the item being read started, in the block's input bytes.
    fn item_start_in_input(&self) -> usize {
        usize::try_from(self.item_start).unwrap_or(usize::MAX).saturating_sub(self.positions.start.prefix)
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
            // Matched where it lies: the event moved out of the `Result` first is read back in wide
            // loads from the narrow stores that wrote it, which stall (perf: 29 % of this function).
            let (ev, name) = match self.reader.read_event() {
                Err(e) => {
                    // A syntax error is always a construct the block ended inside.
                    self.hit_end |= !self.last && matches!(e, quick_xml::Error::Syntax(_));
                    let position = self.position(self.reader.error_position());
                    let kind = ParseErrorKind::Unexpected { expected: "well-formed XML".into(), found: e.to_string() };
                    return Err(ParseError { format: FORMAT, position, kind });
                }
                Ok(Event::Start(e)) => (Ev::Start(Tag::of(e.name().as_ref())), Some(e)),
                Ok(Event::Empty(e)) => (Ev::Empty(Tag::of(e.name().as_ref())), Some(e)),
                Ok(Event::End(e)) => {
                    let tag = Tag::structure(e.name().as_ref());
                    set_name(&mut self.name, e.name().as_ref());
                    return Ok(Ev::End(tag));
                }
                Ok(Event::Text(t))
                    if !self.keep_space && t.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    return Ok(Ev::Space);
                }
                Ok(Event::Text(t)) => {
                    // Text up to the end of a block may go on in the next: an error about it is
                    // given once it is read whole.
                    self.hit_end |= !self.last && self.reader.buffer_position() == self.block.len() as u64;
                    let text = t.decode().map_err(|_| self.encoding_error(&t))?;
                    self.text.push_str(&text);
                    return Ok(Ev::Text);
                }
                Ok(Event::CData(t)) => {
                    let text = t.decode().map_err(|_| self.encoding_error(&t))?;
                    self.text.push_str(&text);
                    return Ok(Ev::Text);
                }
                Ok(Event::GeneralRef(r)) => {
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
                Ok(Event::Eof) => {
                    self.hit_end |= !self.last;
                    return Ok(Ev::Eof);
                }
                Ok(Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_)) => continue,
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

    /// The error of text `raw` that is not UTF-8, with its bytes from the first that is not.
    fn encoding_error(&self, raw: &[u8]) -> ParseError {
        self.error(self.here(), crate::error::not_utf8(raw))
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

/// The entity's replacement text, for the five entities XML predefines.
fn resolve_predefined_entity(name: &str) -> Option<&'static str> {
    quick_xml::escape::resolve_predefined_entity(name)
}

/// Reads a `]PROFILE` XML report.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    merge_lines: bool,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    read_in_blocks(input, BLOCK, merge_lines, diag)
}

/// [`read`] with blocks of `block` bytes (tests read in tiny blocks to reach every boundary).
fn read_in_blocks(
    input: &mut (dyn Read + Send),
    block: usize,
    merge_lines: bool,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let parse = |input: &mut dyn BufRead, sink: &mut RowSink<'_>| parse(input, block, sink);
    let (builder, (settings, warnings)) = rows::read_rows(input, merge_lines, parse)?;
    for warning in warnings.warnings() {
        diag.push(warning.clone());
    }
    let builder = builder.unwrap_or_else(|| ReportBuilder::new(FORMAT, &[Column::Element], merge_lines));
    Ok(finish(builder, settings, diag))
}

/// Parses the XML block by block, handing each entry to `sink`; returns the settings and warnings.
///
/// Plain blocks ([`Blocks::plain`]), most of a report, are parsed two at a time: one on a helper
/// thread while this one parses the next, each with a document of its own, their rows kept until
/// their turn. A block that fails so is read again in turn, as every other block is, so that its
/// error (or its being read again in a longer block) is what reading in order gives.
fn parse(
    input: &mut dyn BufRead,
    block: usize,
    sink: &mut RowSink<'_>,
) -> Result<(Vec<(String, String)>, Diagnostics), ParseError> {
    let mut blocks = Blocks::new(input, block);
    let mut document = Document::default();
    std::thread::scope(|scope| {
        let mut helper: Option<Helper> = None;
        let mut keep = usize::MAX;
        while blocks.advance(keep, document.stage == Stage::Inside)? {
            keep = usize::MAX;
            let plain = document.stage == Stage::Inside && document.columns_sent && blocks.plain();
            let pending = helper.as_ref().is_some_and(|h| h.pending);
            if plain && !pending {
                helper.get_or_insert_with(|| Helper::spawn(scope)).send(&blocks, document.first_columns)?;
                continue;
            }
            // This block is read here while the helper reads the one before it, which is taken in
            // first.
            let current = plain.then(|| read_ahead(&blocks.buf, blocks.start, document.first_columns));
            let earlier_taken = match helper.as_mut().and_then(Helper::take_result) {
                Some(earlier) => document.take_ahead(earlier, &mut blocks, sink)?,
                None => true,
            };
            if let Some(current) = current.filter(|_| earlier_taken) {
                if document.take(current, sink)? {
                    continue;
                }
            }
            let mut x = XmlInput::new(&blocks)?;
            keep = match document.read_block(&mut x, sink) {
                Ok(()) => usize::MAX,
                // The block ended inside an item: it is read again, from its start, in a longer block.
                Err(_) if x.hit_end => x.item_start_in_input(),
                Err(e) => return Err(e),
            };
        }
        Ok((document.settings, document.diag))
    })
}

/// A plain block read ahead: the rows it gave and its document, or `None` where it failed.
type ReadAhead = Option<(Kept, Document)>;

/// Reads a plain block, `buf` starting at `start`, with a document of its own.
fn read_ahead(buf: &[u8], start: BlockStart, first_columns: u16) -> ReadAhead {
    let mut x = XmlInput::over(buf, start, false).ok()?;
    let mut document = Document { stage: Stage::Inside, columns_sent: true, first_columns, ..Document::default() };
    let mut sink = RowSink::keeping();
    document.read_block(&mut x, &mut sink).ok()?;
    (document.stage == Stage::Inside).then(|| (sink.into_kept(), document))
}

/// A plain block read on the helper thread: a copy of it, where it starts, and what reading it gave.
struct AheadBlock {
    buf: Vec<u8>,
    start: BlockStart,
    read: ReadAhead,
}

/// The helper thread that reads a plain block while the parsing thread reads the next; one block
/// at a time.
struct Helper {
    blocks: std::sync::mpsc::Sender<(Vec<u8>, BlockStart, u16)>,
    results: std::sync::mpsc::Receiver<AheadBlock>,
    pending: bool,
}

impl Helper {
    fn spawn<'s>(scope: &'s std::thread::Scope<'s, '_>) -> Helper {
        let (blocks, to_read) = std::sync::mpsc::channel::<(Vec<u8>, BlockStart, u16)>();
        let (to_parser, results) = std::sync::mpsc::channel();
        scope.spawn(move || {
            for (buf, start, first_columns) in to_read {
                let read = read_ahead(&buf, start, first_columns);
                if to_parser.send(AheadBlock { buf, start, read }).is_err() {
                    return;
                }
            }
        });
        Helper { blocks, results, pending: false }
    }

    /// Hands the current block to the helper thread.
    fn send(&mut self, blocks: &Blocks<'_>, first_columns: u16) -> Result<(), ParseError> {
        self.blocks.send((blocks.buf.clone(), blocks.start, first_columns)).map_err(|_| helper_stopped())?;
        self.pending = true;
        Ok(())
    }

    /// The block sent last, once read, if one was sent and not taken yet.
    fn take_result(&mut self) -> Option<Result<AheadBlock, ParseError>> {
        std::mem::take(&mut self.pending).then(|| self.results.recv().map_err(|_| helper_stopped()))
    }
}

fn helper_stopped() -> ParseError {
    rows::thread_stopped("the helper thread")
}

/// Where the reading of the document is, between blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    Before,
    Inside,
    After,
}

/// What is read of the document so far.
#[derive(Default)]
struct Document {
    stage: Stage,
    settings: Vec<(String, String)>,
    entry: Entry,
    columns_sent: bool,
    /// The (non-derived) columns of the first entry, the report's: every entry must have them.
    first_columns: u16,
    diag: Diagnostics,
}

impl Document {
    /// Reads the items of one block: everything, or up to an error.
    fn read_block(&mut self, x: &mut XmlInput<'_>, sink: &mut RowSink<'_>) -> Result<(), ParseError> {
        loop {
            x.item_start = x.reader.buffer_position();
            x.text.clear();
            let ev = x.next()?;
            match (self.stage, ev) {
                (_, Ev::Space) => {}
                (_, Ev::Text) if x.text.trim().is_empty() => {}
                (Stage::Before | Stage::Inside, Ev::Eof) if !x.last => return Ok(()),
                (Stage::Before, Ev::Start(Tag::ProfileData)) => self.stage = Stage::Inside,
                // No settings, no entries: an empty report, as `<ProfileData></ProfileData>` is.
                (Stage::Before, Ev::Empty(Tag::ProfileData)) => self.stage = Stage::After,
                (Stage::Before, _) => {
                    let kind = ParseErrorKind::MissingMarker { format: FORMAT, expected: "a <ProfileData> element" };
                    return Err(x.error(x.here(), kind));
                }
                (Stage::Inside, Ev::Start(Tag::ProfileSettings)) => {
                    // Kept only once read whole: settings a block ends inside are read again.
                    let mut settings = Vec::new();
                    read_settings(x, &mut settings)?;
                    self.settings.append(&mut settings);
                }
                (Stage::Inside, Ev::Empty(Tag::ProfileSettings)) => {}
                (Stage::Inside, Ev::Start(Tag::ProfileEntry)) => self.entry(x, sink)?,
                (Stage::Inside, Ev::End(Tag::ProfileData)) => self.stage = Stage::After,
                (Stage::Inside, ev) => {
                    return Err(x.unexpected("<ProfileSettings>, <ProfileEntry> or </ProfileData>", x.describe(ev)))
                }
                (Stage::After, Ev::Eof) => return Ok(()),
                (Stage::After, ev) => return Err(x.unexpected("nothing after </ProfileData>", x.describe(ev))),
            }
        }
    }

    /// An entry, at `position`, whose `columns` are not the first entry's: an error for one it lacks
    /// (its value would be read as 0, a Depth as a root), a warning for one the first lacks (the
    /// report has no such column: its values are not read).
    #[cold]
    fn other_columns(&mut self, x: &XmlInput<'_>, columns: u16, position: Position) -> Result<(), ParseError> {
        if let Some(missing) = Column::of_bits(self.first_columns & !columns).next() {
            let kind = ParseErrorKind::Unexpected {
                expected: format!("a <{}> element in every <ProfileEntry>, as the first one has", missing.name()),
                found: "an entry without one".into(),
            };
            return Err(x.error(position, kind));
        }
        for extra in Column::of_bits(columns & !self.first_columns) {
            self.diag.warn("dyalog-entry-column", Some(position), || {
                let name = extra.name();
                format!("{FORMAT}: an entry has the element <{name}>, which the first <ProfileEntry> lacks: not a column of this report, ignored")
            });
        }
        Ok(())
    }

    /// Takes in a block read ahead of its turn, its rows handed to `sink`; false when reading it
    /// failed.
    fn take(&mut self, read: ReadAhead, sink: &mut RowSink<'_>) -> Result<bool, ParseError> {
        let Some((kept, document)) = read else { return Ok(false) };
        self.settings.extend(document.settings);
        self.diag.absorb(document.diag);
        sink.append(kept)?;
        Ok(true)
    }

    /// Takes in the block before the current one, read on the helper thread; where that failed,
    /// makes it the current block again, to be read in turn. Whether it was taken in.
    fn take_ahead(
        &mut self,
        earlier: Result<AheadBlock, ParseError>,
        blocks: &mut Blocks<'_>,
        sink: &mut RowSink<'_>,
    ) -> Result<bool, ParseError> {
        let AheadBlock { buf, start, read } = earlier?;
        let taken = self.take(read, sink)?;
        if !taken {
            blocks.rewind(buf, start);
        }
        Ok(taken)
    }

    /// Reads a `<ProfileEntry>` just started and hands it on; its warnings are given only once it is
    /// read whole (an entry cut by the end of a block is read again).
    fn entry(&mut self, x: &mut XmlInput<'_>, sink: &mut RowSink<'_>) -> Result<(), ParseError> {
        let position = x.here();
        self.entry.read(x)?;
        let columns = self.entry.bits & !Column::DERIVED;
        if !std::mem::replace(&mut self.columns_sent, true) {
            sink.columns(&self.entry.columns)?;
            self.first_columns = columns;
        } else if columns != self.first_columns {
            self.other_columns(x, columns, position)?;
        }
        for (name, at) in self.entry.unknown.drain(..) {
            self.diag.warn("dyalog-unknown-column", Some(at), || format!("{FORMAT}: unknown column <{name}> ignored"));
        }
        sink.row(&self.entry.name, &self.entry.row, position)
    }
}

/// The profile from its rows and settings: Title as the title, Command as the report's kind,
/// TimerBias as the timer's cost ([`crate::model::ReportFacts`]; a TimerBias that would not be
/// written back as it reads is kept as its text too), the rest as header facts.
fn finish(builder: ReportBuilder, settings: Vec<(String, String)>, diag: &mut Diagnostics) -> Profile {
    let setting = |name: &str| settings.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let version = setting("Version").unwrap_or("");
    let swapped = version.starts_with("0.") && matches!(setting("Command"), Some("tree" | "data"));
    let labels_swapped = swapped.then(|| version.to_string());
    let mut builder = builder;
    let from_columns = builder.report();
    let meta = builder.meta_mut();
    for (name, value) in settings {
        match name.as_str() {
            "Title" => meta.title = Some(value).filter(|t| !t.is_empty()),
            // The report kind, one fact for XML and CSV.
            "Command" => meta.report.kind = meta.report.kind.or(Report::from_name(&value)),
            "TimerBias" => {
                let cost = value.parse::<f64>().ok();
                meta.report.timer_cost = meta.report.timer_cost.or(cost);
                if cost.is_none_or(|cost| cost.to_string() != value) {
                    meta.attrs.push((format!("dyalog-xml.{name}"), value));
                }
            }
            _ => meta.attrs.push((format!("dyalog-xml.{name}"), value)),
        }
    }
    // Without a Command (or with one that names no report), the kind its columns say.
    meta.report.kind = meta.report.kind.or(Some(from_columns));
    builder.finish(labels_swapped.as_deref(), diag)
}

fn read_settings(x: &mut XmlInput<'_>, settings: &mut Vec<(String, String)>) -> Result<(), ParseError> {
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
    /// The set of its columns ([`Column::bit`]).
    bits: u16,
    /// Elements that are not columns, and where.
    unknown: Vec<(String, Position)>,
}

impl Entry {
    fn read(&mut self, x: &mut XmlInput<'_>) -> Result<(), ParseError> {
        self.name.clear();
        self.row = Row::default();
        self.columns.clear();
        self.bits = 0;
        self.unknown.clear();
        loop {
            x.text.clear();
            let (column, empty) = match x.next()? {
                Ev::Start(Tag::Column(c)) => (c, false),
                Ev::Empty(Tag::Column(c)) => (c, true),
                Ev::Start(_) => {
                    self.unknown.push((x.name(), x.here()));
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
            self.bits |= column.bit();
            // A name is taken as it is (a writer does not pad inside elements); numbers are trimmed.
            if column == Column::Element {
                self.name.push_str(&x.text);
            } else if let Err(kind) = self.row.set(column, &x.text, '.', false) {
                return Err(x.error(x.position_with_column(offset), kind));
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

pub(crate) use write::write;

#[cfg(test)]
mod tests;
