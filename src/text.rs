//! Reading text formats line by line from a stream, with the line number and byte offset of each line
//! for error messages. Lines end at LF; a CR before the LF is dropped, so CRLF files read like LF files.
//!
//! The input is read in [`Block`]s of whole lines. Each block is checked as UTF-8 once and kept as a
//! `String` with the offsets of its newlines, and lines are handed out as slices of it: no copy and no
//! call into the input per line. The partial line at the end of a block waits for the next block.
//!
//! A reader can ask [`Blocks`] to split lines longer than a block (a `-px` cost section is one line
//! of tens of megabytes) after a space or tab, so that they stream in pieces instead of being held
//! whole: each [`Line`] then says where in its line it starts and whether the line goes on.
//!
//! [`pipeline`] splits a reader over the machine's two cores: one thread reads blocks and runs a
//! per-line function that needs no state (splitting fields, parsing numbers), the calling thread
//! gets each line with its result, in order, and does what needs the model (interning, building).

use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use std::io::Read;

/// How much a block reads at least (unless the input ends first).
const BLOCK: usize = 128 * 1024;

/// The UTF-8 byte-order mark that Windows editors and Excel put at the start of a text file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The UTF-16 byte-order marks, little- and big-endian: PowerShell's `>` and Notepad's "Unicode"
/// write text as UTF-16 (LE) with its mark.
const UTF16_LE_BOM: &[u8] = b"\xFF\xFE";
const UTF16_BE_BOM: &[u8] = b"\xFE\xFF";

/// How a text input is encoded, as its byte-order mark says: UTF-8 without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    /// The encoding of an input that starts with `head`, and the length of its byte-order mark
    /// (0 when it has none).
    pub(crate) fn of(head: &[u8]) -> (Encoding, usize) {
        if head.starts_with(BOM) {
            (Encoding::Utf8, BOM.len())
        } else if head.starts_with(UTF16_LE_BOM) {
            (Encoding::Utf16Le, UTF16_LE_BOM.len())
        } else if head.starts_with(UTF16_BE_BOM) {
            (Encoding::Utf16Be, UTF16_BE_BOM.len())
        } else {
            (Encoding::Utf8, 0)
        }
    }
}

/// The longest start of `head` that is UTF-8: a sniffer's first bytes of a text input may end
/// inside a character.
pub(crate) fn utf8_start(head: &[u8]) -> &str {
    match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// The first bytes of a text input as its format's sniffer should see them: as UTF-8 (UTF-16
/// decoded, as far as the bytes go), without a byte-order mark, and with CRLF line endings as LF, so
/// that text written on Windows is recognised as the same text written elsewhere. Text inputs are
/// decoded the same way once, where the input is set up ([`crate::files::Input::into_text_reader`]),
/// so that readers never see a mark or UTF-16; their CRs are dropped line by line ([`Blocks`]).
pub(crate) fn sniffable(head: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    let (encoding, mark) = Encoding::of(head);
    let text: Cow<'_, [u8]> = match encoding {
        Encoding::Utf8 => Cow::Borrowed(&head[mark..]),
        utf16 => {
            let mut decoded = Vec::with_capacity(head.len());
            // The head may end inside a character: what was decoded before it is what counts.
            let _ = Utf16Decoder::new(&head[mark..], utf16, mark as u64).read_to_end(&mut decoded);
            Cow::Owned(decoded)
        }
    };
    if memchr::memchr(b'\r', &text).is_none() {
        return text;
    }
    let mut lf = Vec::with_capacity(text.len());
    let mut rest = &text[..];
    while let Some(cr) = memchr::memchr(b'\r', rest) {
        lf.extend_from_slice(&rest[..cr]);
        // A CR that ends the head may have had its LF cut off.
        if !matches!(rest.get(cr + 1), Some(b'\n') | None) {
            lf.push(b'\r');
        }
        rest = &rest[cr + 1..];
    }
    lf.extend_from_slice(rest);
    Cow::Owned(lf)
}

/// A UTF-16 input (after its byte-order mark) read as UTF-8. Byte offsets in the messages of the
/// reader it feeds count in the UTF-8 text; line numbers are the file's. An unpaired surrogate, or
/// an input that ends inside a character, is an error that gives its byte in the file, after the
/// text before it has been read.
pub(crate) struct Utf16Decoder<R> {
    input: R,
    big_endian: bool,
    /// Bytes read and not decoded yet: the start of a character cut by the end of a read.
    undecoded: Vec<u8>,
    /// Decoded text not handed out yet, from `decoded_pos` on.
    decoded: Vec<u8>,
    decoded_pos: usize,
    /// Offset in the file of `undecoded[0]`.
    offset: u64,
    /// What stopped the decoding, for every read after the text before it.
    error: Option<String>,
    eof: bool,
}

/// Bytes of UTF-16 read at once.
const UTF16_CHUNK: usize = 64 * 1024;

impl<R: Read> Utf16Decoder<R> {
    /// Decodes `input`, UTF-16 in `encoding` (not [`Encoding::Utf8`]), which starts at byte `offset`
    /// of the file (after the mark).
    pub(crate) fn new(input: R, encoding: Encoding, offset: u64) -> Utf16Decoder<R> {
        Utf16Decoder {
            input,
            big_endian: encoding == Encoding::Utf16Be,
            undecoded: Vec::new(),
            decoded: Vec::new(),
            decoded_pos: 0,
            offset,
            error: None,
            eof: false,
        }
    }

    fn unit(&self, bytes: &[u8]) -> u32 {
        let pair = [bytes[0], bytes[1]];
        u32::from(if self.big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) })
    }

    fn invalid(&self, at: usize, what: &str) -> String {
        format!("invalid UTF-16 at byte {} of the file: {what}", self.offset + at as u64)
    }

    /// Decodes the whole characters of `undecoded` into `decoded`, up to the first error.
    fn decode(&mut self) {
        let bytes = std::mem::take(&mut self.undecoded);
        let mut at = 0;
        while at + 2 <= bytes.len() {
            let unit = self.unit(&bytes[at..]);
            let (code, len) = match unit {
                0xD800..=0xDBFF if at + 4 > bytes.len() => break,
                0xD800..=0xDBFF => match self.unit(&bytes[at + 2..]) {
                    low @ 0xDC00..=0xDFFF => (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 4),
                    _ => {
                        self.error = Some(self.invalid(at, "a high surrogate without its low one"));
                        break;
                    }
                },
                0xDC00..=0xDFFF => {
                    self.error = Some(self.invalid(at, "a low surrogate without its high one"));
                    break;
                }
                _ => (unit, 2),
            };
            // Every value decoded is a scalar value: surrogates were paired or refused above.
            let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
            self.decoded.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            at += len;
        }
        self.offset += at as u64;
        if self.error.is_none() {
            self.undecoded.extend_from_slice(&bytes[at..]);
            if self.eof && !self.undecoded.is_empty() {
                self.error = Some(self.invalid(0, "the input ends inside a character"));
            }
        }
    }
}

impl<R: Read> Read for Utf16Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.decoded_pos == self.decoded.len() {
            if let Some(error) = &self.error {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, error.clone()));
            }
            if self.eof {
                return Ok(0);
            }
            self.decoded.clear();
            self.decoded_pos = 0;
            let n = (&mut self.input).take(UTF16_CHUNK as u64).read_to_end(&mut self.undecoded)?;
            self.eof = n == 0;
            self.decode();
        }
        let n = buf.len().min(self.decoded.len() - self.decoded_pos);
        buf[..n].copy_from_slice(&self.decoded[self.decoded_pos..self.decoded_pos + n]);
        self.decoded_pos += n;
        Ok(n)
    }
}

/// Whole lines of the input, checked as UTF-8.
pub(crate) struct Block {
    text: String,
    /// Offsets of the newlines in `text`.
    newlines: Vec<u32>,
    /// Input offset of `text[0]`.
    offset: u64,
    /// Number of the block's first line.
    first_line: u64,
    /// Characters of the first line that came in earlier blocks (0 unless a long line was split).
    first_column: u64,
    /// The last line goes on in the next block (a long line split after a space or tab).
    ends_mid_line: bool,
    format: FormatName,
}

impl Block {
    /// The block's lines, in order.
    pub(crate) fn lines(&self) -> BlockLines<'_> {
        BlockLines { block: self, pos: 0, next_newline: 0, index: 0 }
    }

    /// Line `index` of the block, where [`BlockLines`] found it; `last` for the block's last line.
    fn line_at(&self, index: usize, span: LineSpan, last: bool) -> Line<'_> {
        Line {
            text: &self.text[span.start..span.start + span.len],
            position: Position::line(self.first_line + index as u64, self.offset + span.start as u64),
            start_column: if span.start == 0 { self.first_column } else { 0 },
            continues: self.ends_mid_line && last,
            unterminated: !(span.terminated || (self.ends_mid_line && last)),
            format: self.format,
        }
    }
}

/// Where a line's text is in its [`Block`].
#[derive(Clone, Copy)]
struct LineSpan {
    start: usize,
    len: usize,
    /// A line break follows the line (only the input's last line, or a piece of a split line, has none).
    terminated: bool,
}

/// Iterator over the lines of a [`Block`].
pub(crate) struct BlockLines<'b> {
    block: &'b Block,
    pos: usize,
    next_newline: usize,
    /// Index in the block of the next line.
    index: usize,
}

impl BlockLines<'_> {
    /// Where the next line is: its index in the block, its span, and whether it is the block's last.
    fn next_span(&mut self) -> Option<(usize, LineSpan, bool)> {
        let text = &self.block.text;
        if self.pos >= text.len() {
            return None;
        }
        let rest = &text.as_bytes()[self.pos..];
        let (len, consumed) = match self.block.newlines.get(self.next_newline) {
            Some(&newline) => {
                self.next_newline += 1;
                let i = newline as usize - self.pos;
                (i, i + 1)
            }
            // The last line of the input, without a newline (or past the indexed offsets).
            None => match memchr::memchr(b'\n', rest) {
                Some(i) => (i, i + 1),
                None => (rest.len(), rest.len()),
            },
        };
        let terminated = consumed > len;
        let len = if rest[..len].ends_with(b"\r") { len - 1 } else { len };
        let span = LineSpan { start: self.pos, len, terminated };
        let index = self.index;
        self.index += 1;
        self.pos += consumed;
        Some((index, span, self.pos >= text.len()))
    }
}

impl<'b> Iterator for BlockLines<'b> {
    type Item = Line<'b>;

    fn next(&mut self) -> Option<Line<'b>> {
        let (index, span, last) = self.next_span()?;
        Some(self.block.line_at(index, span, last))
    }
}

/// The longest line a line-based text reader takes by default (256 MiB, `--max-line-length`): a
/// folded stack a million frames deep is some tens of MB, and a GHC `-px` cost line of any length
/// is read in pieces split at its spaces; one huge line (a file of zeros, an endless stream) stops
/// there with an error instead of taking all the memory.
pub const DEFAULT_MAX_LINE_LENGTH: u64 = 256 << 20;

std::thread_local! {
    /// The longest line [`Blocks`] made on this thread take: set around each read of an input
    /// ([`with_max_line_length`]) from its reading options, so that the line readers, which are
    /// handed a stream, need no option of their own for it.
    static MAX_LINE_LENGTH: std::cell::Cell<u64> =
        const { std::cell::Cell::new(DEFAULT_MAX_LINE_LENGTH) };
}

/// Runs `read` with the [`Blocks`] it makes taking lines of at most `limit` bytes.
pub(crate) fn with_max_line_length<T>(limit: u64, read: impl FnOnce() -> T) -> T {
    let before = MAX_LINE_LENGTH.replace(limit);
    let result = read();
    MAX_LINE_LENGTH.set(before);
    result
}

/// Reads an input as [`Block`]s.
pub(crate) struct Blocks<'r> {
    input: &'r mut (dyn Read + Send),
    format: FormatName,
    /// Bytes after the last newline read so far.
    partial: Vec<u8>,
    /// Input offset and line number of the next block, and the characters of its line before it.
    offset: u64,
    line: u64,
    column: u64,
    eof: bool,
    /// Whether a line longer than a block is split after a space or tab.
    split_long_lines: bool,
    /// The most bytes a line (or a piece of a split one) may hold.
    max_line: u64,
    /// Whether bytes that are not UTF-8 are read as U+FFFD instead of refused.
    lossy: bool,
}

impl<'r> Blocks<'r> {
    pub(crate) fn new(input: &'r mut (dyn Read + Send), format: impl Into<FormatName>) -> Blocks<'r> {
        let format = format.into();
        Blocks {
            input,
            format,
            partial: Vec::new(),
            offset: 0,
            line: 1,
            column: 0,
            eof: false,
            split_long_lines: false,
            max_line: MAX_LINE_LENGTH.get(),
            lossy: false,
        }
    }

    /// Blocks whose bytes that are not UTF-8 are read as U+FFFD, for a format whose strings are
    /// whatever bytes its writer was given. A replacement is three bytes where its bytes were one
    /// to three: byte offsets after it in its block count them so.
    pub(crate) fn decoding_lossily(mut self) -> Blocks<'r> {
        self.lossy = true;
        self
    }

    /// Blocks that end after a space or tab inside a line that has grown past a block without a
    /// line break (see the module documentation).
    pub(crate) fn splitting_long_lines(mut self) -> Blocks<'r> {
        self.split_long_lines = true;
        self
    }

    /// The next block of whole lines, or `None` at the end of the input. `reuse` lends the storage
    /// of a block that is done with.
    pub(crate) fn next_block(&mut self, reuse: Option<Block>) -> Result<Option<Block>, ParseError> {
        let (mut bytes, mut newlines) = match reuse {
            Some(block) => (block.text.into_bytes(), block.newlines),
            None => (Vec::new(), Vec::new()),
        };
        bytes.clear();
        bytes.append(&mut self.partial);
        let mut searched = 0;
        let mut last_newline = None;
        let mut ends_mid_line = false;
        loop {
            last_newline = memchr::memrchr(b'\n', &bytes[searched..]).map(|i| searched + i).or(last_newline);
            if !self.eof && last_newline.is_none() && bytes.len() >= BLOCK && self.split_long_lines {
                if let Some(end) = split_point(&bytes) {
                    ends_mid_line = true;
                    self.partial.extend_from_slice(&bytes[end + 1..]);
                    bytes.truncate(end + 1);
                    break;
                }
            }
            if self.eof || (last_newline.is_some() && bytes.len() >= BLOCK) {
                if let Some(end) = last_newline.filter(|_| !self.eof) {
                    self.partial.extend_from_slice(&bytes[end + 1..]);
                    bytes.truncate(end + 1);
                }
                break;
            }
            // A line still without its end, past the limit: stop reading it.
            let line_start = last_newline.map_or(0, |i| i + 1);
            if (bytes.len() - line_start) as u64 > self.max_line {
                let lines_before = memchr::memchr_iter(b'\n', &bytes[..line_start]).count() as u64;
                return Err(self.line_too_long(lines_before, line_start, bytes.len()));
            }
            searched = bytes.len();
            // read_to_end fills spare capacity without zeroing it first, and retries interruptions.
            let n = match (&mut *self.input).take(BLOCK as u64).read_to_end(&mut bytes) {
                Ok(n) => n,
                // Where the input stopped: read_to_end keeps what came before the error.
                Err(e) => {
                    let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
                    let at = Position::line(self.line + lines, self.offset + bytes.len() as u64);
                    return Err(ParseError { format: self.format, position: at, kind: ParseErrorKind::Io(e) });
                }
            };
            self.eof = n < BLOCK;
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) if self.lossy => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Err(e) => return Err(self.encoding_error(e.as_bytes(), e.utf8_error().valid_up_to())),
        };
        newlines.clear();
        // A block is at most a few MiB unless one line is longer than 4 GiB; offsets past u32 are
        // not indexed, and the line iterator finds them itself.
        newlines.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map_while(|i| u32::try_from(i).ok()));
        // A line that came whole within the reads, past the limit (the pieces of a line split at
        // its spaces, the block's first after a split and its last before one, are a block at most).
        let starts = std::iter::once(0).chain(newlines.iter().map(|&n| n as usize + 1));
        let ends = newlines.iter().map(|&n| n as usize).chain(std::iter::once(text.len()));
        let last = newlines.len();
        let whole = |index: usize| !(index == 0 && self.column > 0 || index == last && ends_mid_line);
        if let Some((index, (start, _))) = starts
            .zip(ends)
            .enumerate()
            .find(|&(index, (start, end))| (end - start) as u64 > self.max_line && whole(index))
        {
            return Err(self.line_too_long(index as u64, start, text.len()));
        }
        let first_column = self.column;
        // Only a block that ends inside a line passes a column on to the next.
        self.column = match ends_mid_line {
            false => 0,
            true => {
                let last_line_start = memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |i| i + 1);
                let last_line_chars = text[last_line_start..].chars().count() as u64;
                if last_line_start == 0 {
                    first_column + last_line_chars
                } else {
                    last_line_chars
                }
            }
        };
        let block = Block {
            offset: self.offset,
            first_line: self.line,
            first_column,
            ends_mid_line,
            format: self.format,
            text,
            newlines,
        };
        self.offset += block.text.len() as u64;
        self.line += block.newlines.len() as u64;
        Ok(Some(block))
    }

    /// The error for a line longer than a line may be (one huge line, an endless stream): line
    /// `lines_before` of the block being read, which starts at `line_start` of it, read up to
    /// `read_to`: where it starts, the limit, and the option that raises it.
    fn line_too_long(&self, lines_before: u64, line_start: usize, read_to: usize) -> ParseError {
        let limit = self.max_line;
        ParseError {
            format: self.format,
            position: Position::line(self.line + lines_before, self.offset + line_start as u64),
            kind: ParseErrorKind::Unexpected {
                expected: format!("lines of at most {limit} bytes (--max-line-length SIZE raises the limit)"),
                found: format!("a line longer than that (read to byte {})", self.offset + read_to as u64),
            },
        }
    }

    /// The error for the first byte that is not UTF-8, at `bad` in `block`.
    fn encoding_error(&self, block: &[u8], bad: usize) -> ParseError {
        let line_start = memchr::memrchr(b'\n', &block[..bad]).map_or(0, |i| i + 1);
        let lines_before = memchr::memchr_iter(b'\n', &block[..line_start]).count() as u64;
        let before = if line_start == 0 { self.column } else { 0 };
        let column = before + String::from_utf8_lossy(&block[line_start..bad]).chars().count() as u64 + 1;
        ParseError {
            format: self.format,
            position: Position {
                byte: self.offset + bad as u64,
                line: Some(self.line + lines_before),
                column: Some(column),
            },
            kind: ParseErrorKind::Encoding { found: Some(crate::error::excerpt(&block[bad..])) },
        }
    }
}

/// Where a block of a line longer than a block (with no line break) may end: after its last space
/// or tab, a character boundary that keeps space-separated fields whole. `None` if there is none: the
/// line stays whole.
fn split_point(bytes: &[u8]) -> Option<usize> {
    memchr::memrchr2(b' ', b'\t', bytes)
}

/// How many of `eight` bytes are decimal digits before the first other byte, and their value:
/// eight bytes at once, as most tokens are short numbers.
pub(crate) fn digits8(eight: &[u8; 8]) -> (usize, u64) {
    // Digits become 0..=9 with a zero high nibble; any other byte has a high nibble or is over 9.
    let x = u64::from_le_bytes(*eight) ^ 0x3030_3030_3030_3030;
    // A carry from `+ 6` only goes up, past the first non-digit (the lowest byte that counts).
    let other = (x | x.wrapping_add(0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0;
    let digits = (other.trailing_zeros() / 8) as usize;
    if digits == 0 {
        return (0, 0);
    }
    // The digits moved to the top bytes, zeros below them: then pairs, fours and eights combine.
    let v = x << (64 - 8 * digits);
    let v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul((10 << 8) + 1) >> 8;
    let v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul((100 << 16) + 1) >> 16;
    let v = (v & 0x0000_FFFF_0000_FFFF).wrapping_mul((10_000 << 32) + 1) >> 32;
    (digits, v)
}

/// Whether `text` is a number as profilers print counts, offsets and line numbers: one or more
/// ASCII digits and nothing else.
pub(crate) fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The value and length of the run of ASCII digits that `bytes` starts with; `None` if it overflows.
/// Up to seven digits, the usual case, are read at once ([`digits8`]).
#[inline]
pub(crate) fn leading_digits(bytes: &[u8]) -> Option<(u64, usize)> {
    if let Some((n, value)) = bytes.first_chunk::<8>().map(digits8).filter(|&(n, _)| n < 8) {
        return Some((value, n));
    }
    let n = bytes.iter().position(|b| !b.is_ascii_digit()).unwrap_or(bytes.len());
    let value = bytes[..n].iter().try_fold(0u64, |v, &d| v.checked_mul(10)?.checked_add(u64::from(d - b'0')))?;
    Some((value, n))
}

/// Reads `input` line by line on two threads: a reader thread splits the input into lines and runs
/// `prepare` on each; `consume` gets every line with what `prepare` made of it, in input order, on
/// the calling thread. Stops at the first error of either. An input that fits in one block is read
/// on the calling thread alone.
pub(crate) fn pipeline<T: Send>(
    input: &mut (dyn Read + Send),
    format: impl Into<FormatName>,
    prepare: impl FnMut(&str) -> T + Send,
    consume: impl FnMut(Line<'_>, T) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    pipeline_blocks(Blocks::new(input, format.into()), prepare, consume)
}

/// [`pipeline`] over the given blocks (which may split long lines).
pub(crate) fn pipeline_blocks<T: Send>(
    blocks: Blocks<'_>,
    mut prepare: impl FnMut(&str) -> T + Send,
    mut consume: impl FnMut(Line<'_>, T) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    pipeline_with_parts(blocks, |text, _: &mut Vec<()>| prepare(text), |line, item, _| consume(line, item))
}

/// [`pipeline`] where `prepare` may also put parts of what it makes of a line in a vector shared by
/// the lines of a block (the frames of every stack, say), which `consume` gets beside each line:
/// one vector per block, reused, instead of one per line allocated on one thread and freed on the
/// other.
pub(crate) fn pipeline_with_parts<T: Send, P: Send>(
    mut blocks: Blocks<'_>,
    mut prepare: impl FnMut(&str, &mut Vec<P>) -> T + Send,
    mut consume: impl FnMut(Line<'_>, T, &[P]) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let Some(first) = blocks.next_block(None)? else {
        return Ok(());
    };
    // A block's lines (each one's span and item) and their parts, as vectors that are reused.
    type Vectors<T, P> = (Vec<(LineSpan, T)>, Vec<P>);
    // A block with what the reader thread made of it: each line's span and item, and their parts.
    struct Batch<T, P> {
        block: Block,
        lines: Vec<(LineSpan, T)>,
        parts: Vec<P>,
    }
    // The reader thread finds the lines once and hands over where each starts and ends.
    let mut consume_block = |batch: &mut Batch<T, P>| {
        let last = batch.lines.len().saturating_sub(1);
        let (block, parts) = (&batch.block, &batch.parts);
        batch
            .lines
            .drain(..)
            .enumerate()
            .try_for_each(|(i, (span, item))| consume(block.line_at(i, span, i == last), item, parts))
    };
    // Called on one thread only, in line order, so it may keep state (names seen so far, say).
    // `spare` lends the vectors of a batch that is done with.
    let mut prepare_block = move |block: Block, spare: Option<Vectors<T, P>>| {
        let (mut lines, mut parts) = spare.unwrap_or_default();
        lines.clear();
        parts.clear();
        let mut spans = block.lines();
        while let Some((_, span, _)) = spans.next_span() {
            let item = prepare(&block.text[span.start..span.start + span.len], &mut parts);
            lines.push((span, item));
        }
        Batch { block, lines, parts }
    };
    if blocks.eof {
        return consume_block(&mut prepare_block(first, None));
    }
    // One batch queued while one is consumed and one is read keeps both threads busy; the blocks
    // and vectors come back to be reused.
    let (to_consumer, batches) = std::sync::mpsc::sync_channel::<Result<Batch<T, P>, ParseError>>(1);
    let (to_reader, done) = std::sync::mpsc::channel::<Batch<T, P>>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut prepare_block = prepare_block;
            let mut next = Ok(Some(first));
            let mut spare = None;
            loop {
                let batch = match next {
                    Ok(Some(block)) => Ok(prepare_block(block, spare.take())),
                    Ok(None) => return,
                    Err(e) => Err(e),
                };
                let failed = batch.is_err();
                // A closed channel means the consumer stopped at an error: so do we.
                if to_consumer.send(batch).is_err() || failed {
                    return;
                }
                let reuse = done.try_recv().ok().map(|used| {
                    spare = Some((used.lines, used.parts));
                    used.block
                });
                next = blocks.next_block(reuse);
            }
        });
        for batch in batches {
            let mut batch = batch?;
            consume_block(&mut batch)?;
            let _ = to_reader.send(batch);
        }
        Ok(())
    })
}

/// A streaming line reader on one thread: the plain path the tests hold the pipeline to.
#[cfg(test)]
pub(crate) struct Lines<'r> {
    blocks: Blocks<'r>,
    block: Option<Block>,
    /// Where the next line starts in `block`, as a line iterator's state.
    pos: usize,
    next_newline: usize,
    index: usize,
}

#[cfg(test)]
impl<'r> Lines<'r> {
    pub(crate) fn new(input: &'r mut (dyn Read + Send), format: impl Into<FormatName>) -> Lines<'r> {
        let format = format.into();
        Lines { blocks: Blocks::new(input, format), block: None, pos: 0, next_newline: 0, index: 0 }
    }

    /// The next line without its line ending, as UTF-8, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'_>>, ParseError> {
        if self.block.as_ref().is_none_or(|b| self.pos >= b.text.len()) {
            self.block = self.blocks.next_block(self.block.take())?;
            if self.block.is_none() {
                return Ok(None);
            }
            (self.pos, self.next_newline, self.index) = (0, 0, 0);
        }
        let Some(block) = &self.block else {
            return Ok(None);
        };
        let mut lines = BlockLines { block, pos: self.pos, next_newline: self.next_newline, index: self.index };
        let line = lines.next();
        (self.pos, self.next_newline, self.index) = (lines.pos, lines.next_newline, lines.index);
        Ok(line)
    }
}

/// One line of text with where it starts: a whole line, or a piece of a long one when the
/// [`Blocks`] split long lines.
pub(crate) struct Line<'a> {
    /// The text, without the line ending.
    pub(crate) text: &'a str,
    /// Line number and byte offset of its start.
    pub(crate) position: Position,
    /// Characters of the line before this piece (0 for a whole line or a first piece).
    pub(crate) start_column: u64,
    /// The line goes on in the next piece.
    pub(crate) continues: bool,
    /// The input ends in this line, without a line break after it. For a format whose writers end
    /// every line, the file was most likely cut short in this line ([`Line::warn_if_cut_short`]).
    pub(crate) unterminated: bool,
    format: FormatName,
}

impl<'a> Line<'a> {
    /// A whole line of `format` made of pieces that were joined.
    pub(crate) fn joined(text: &'a str, position: Position, format: impl Into<FormatName>) -> Line<'a> {
        let format = format.into();
        Line { text, position, start_column: 0, continues: false, unterminated: false, format }
    }
}

impl Line<'_> {
    /// An error at the start of this line.
    pub(crate) fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { format: self.format, position: self.position, kind }
    }

    /// The position of byte `offset` of this line, with its column (a piece of a line starts after
    /// column 1).
    pub(crate) fn position_at(&self, offset: usize) -> Position {
        let column = self.start_column + self.text.get(..offset).map_or(0, |s| s.chars().count()) as u64 + 1;
        Position { byte: self.position.byte + offset as u64, line: self.position.line, column: Some(column) }
    }

    /// Warns, naming this line, when the input ends in it without a line break although the format's
    /// writers end every line: a file cut short in its last line reads without an error, and `what`
    /// says what the cut may have taken (a name's end, a count's last digits).
    pub(crate) fn warn_if_cut_short(&self, what: &str, diag: &mut Diagnostics) {
        if self.unterminated {
            diag.warn("cut-short", Some(self.position), || {
                format!("the input ends without a line break, which {} files end every line with: it looks cut short, and {what}", self.format)
            });
        }
    }

    /// An error at byte `offset` of this line ([`Line::position_at`]).
    pub(crate) fn error_at(&self, offset: usize, kind: ParseErrorKind) -> ParseError {
        ParseError { format: self.format, position: self.position_at(offset), kind }
    }

    /// The error, at the start of this line, of `found` where `expected` should be.
    pub(crate) fn unexpected(&self, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
        self.error(ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() })
    }

    /// The error, at byte `offset` of this line, of `text` where `field`, a number, should be.
    pub(crate) fn invalid_number_at(&self, offset: usize, field: &'static str, text: &str) -> ParseError {
        self.error_at(offset, ParseErrorKind::InvalidNumber { field, text: text.to_string() })
    }

    /// The error, at byte `offset` of this line, of `found` where `expected` should be.
    pub(crate) fn unexpected_at(
        &self,
        offset: usize,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> ParseError {
        self.error_at(offset, ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() })
    }
}

/// `text` with each character `escape` names written as a visible escape, `\u{1b}`: the one way
/// proftool writes a character that the reader of an output would act on or could not carry (a
/// terminal's controls: `report::safe_text`; what XML 1.0 cannot hold: `formats::shared`). The
/// text itself where it has none.
pub(crate) fn escape_chars(text: &str, escape: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(&escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escape(c) {
            // Writing to a String cannot fail.
            true => _ = write!(out, "\\u{{{:x}}}", c as u32),
            false => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lines_errors_are_at_its_start_or_at_a_column() {
        let line = Line::joined("a bc", Position::line(3, 30), FormatName("test"));
        let at_start = line.unexpected("a count", "a").to_string();
        assert!(at_start.contains("line 3 (byte 30)") && at_start.contains("expected a count, found a"), "{at_start}");
        let at_column = line.unexpected_at(2, "a count", "bc").to_string();
        assert!(at_column.contains("line 3, column 3 (byte 32)"), "{at_column}");
        let number = line.invalid_number_at(2, "a weight", "bc").to_string();
        assert!(number.contains("line 3, column 3 (byte 32)") && number.contains("a weight"), "{number}");
    }

    #[test]
    fn digits_are_one_or_more_and_nothing_else() {
        assert!(is_digits("0") && is_digits("0042"));
        assert!(!is_digits("") && !is_digits("+1") && !is_digits("1.5") && !is_digits("12 ") && !is_digits("٣"));
    }

    /// Reads `input` in pieces of `chunk` bytes, as a pipe would deliver it.
    struct Trickle<'a> {
        input: &'a [u8],
        chunk: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.input.len());
            buf[..n].copy_from_slice(&self.input[..n]);
            self.input = &self.input[n..];
            Ok(n)
        }
    }

    type Seen = Vec<(String, u64, u64)>;

    fn all_lines(input: &[u8], chunk: usize) -> Result<Seen, String> {
        let mut source = Trickle { input, chunk };
        let mut lines = Lines::new(&mut source, FormatName("folded"));
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().map_err(|e| e.to_string())? {
            out.push((line.text.to_string(), line.position.line.unwrap_or(0), line.position.byte));
        }
        Ok(out)
    }

    fn all_lines_pipelined(input: &[u8], chunk: usize) -> Result<Seen, String> {
        let mut source = Trickle { input, chunk };
        let mut out = Vec::new();
        pipeline(&mut source, FormatName("folded"), str::len, |line, len| {
            assert_eq!(line.text.len(), len);
            out.push((line.text.to_string(), line.position.line.unwrap_or(0), line.position.byte));
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn lines_positions_and_line_endings() {
        let input = "a 1\r\nbb 2\n\nλ 3";
        for chunk in [1, 2, 3, 7, 1000] {
            let want = vec![
                ("a 1".to_string(), 1, 0),
                ("bb 2".to_string(), 2, 5),
                (String::new(), 3, 10),
                ("λ 3".to_string(), 4, 11),
            ];
            assert_eq!(all_lines(input.as_bytes(), chunk).unwrap(), want, "chunk {chunk}");
            assert_eq!(all_lines_pipelined(input.as_bytes(), chunk).unwrap(), want, "chunk {chunk}");
        }
    }

    #[test]
    fn lines_longer_than_a_block_and_many_blocks() {
        let long = "x".repeat(3 * BLOCK + 17);
        let mut input = format!("{long}\n");
        for i in 0..100_000 {
            input.push_str(&format!("line {i}\n"));
        }
        let last = ("line 99999".to_string(), 100_001, (input.len() - "line 99999\n".len()) as u64);
        for got in
            [all_lines(input.as_bytes(), 100_000).unwrap(), all_lines_pipelined(input.as_bytes(), 100_000).unwrap()]
        {
            assert_eq!(got.len(), 100_001);
            assert_eq!(got[0].0.len(), long.len());
            assert_eq!(got[100_000], last);
        }
    }

    /// Lines, split where the blocks split them, with start columns and whether they go on.
    type Piece = (String, u64, u64, u64, bool);

    fn pieces(input: &[u8], chunk: usize) -> Result<Vec<Piece>, String> {
        let mut source = Trickle { input, chunk };
        let mut blocks = Blocks::new(&mut source, FormatName("ghc-px")).splitting_long_lines();
        let mut out = Vec::new();
        while let Some(block) = blocks.next_block(None).map_err(|e| e.to_string())? {
            for line in block.lines() {
                let at = (line.position.line.unwrap_or(0), line.position.byte);
                out.push((line.text.to_string(), at.0, at.1, line.start_column, line.continues));
            }
        }
        Ok(out)
    }

    #[test]
    fn long_lines_split_after_a_space_when_asked() {
        let long: String = (0..BLOCK).map(|i| format!("λ{i} ")).collect::<String>() + "end";
        let input = format!("first\n{long}\r\nlast");
        let got = pieces(input.as_bytes(), 100_000).unwrap();
        assert!(got.len() > 4, "{}", got.len());
        assert_eq!(got[0], ("first".to_string(), 1, 0, 0, false));
        let middle = &got[1..got.len() - 1];
        let joined: String = middle.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(joined, long);
        let (mut column, mut offset) = (0, 6);
        for (i, (text, line, byte, start_column, continues)) in middle.iter().enumerate() {
            assert_eq!((*line, *byte, *start_column, *continues), (2, offset, column, i + 1 < middle.len()));
            assert!(i + 1 == middle.len() || text.ends_with(' '));
            column += text.chars().count() as u64;
            offset += text.len() as u64;
        }
        assert_eq!(got.last().unwrap(), &("last".to_string(), 3, (input.len() - 4) as u64, 0, false));
        // Without the option the line stays whole.
        assert_eq!(all_lines(input.as_bytes(), 100_000).unwrap()[1].0, long);
    }

    #[test]
    fn invalid_utf8_in_a_piece_of_a_long_line_has_its_column() {
        let mut input = "x ".repeat(BLOCK).into_bytes();
        input.extend_from_slice(b"ab\xff 1\n");
        let want = format!(
            "ghc-px: line 1, column {} (byte {}): invalid UTF-8 (the format is UTF-8 text), found bytes ff 20 31 0a",
            2 * BLOCK + 3,
            2 * BLOCK + 2
        );
        assert_eq!(pieces(&input, 4096).unwrap_err(), want);
    }

    #[test]
    fn invalid_utf8_is_located_across_blocks() {
        let mut input = "ok 1\n".repeat(BLOCK / 5 + 3).into_bytes();
        let line = BLOCK / 5 + 4;
        let byte = input.len() + 2; // after "ab"
        input.extend_from_slice(b"ab\xffc 1\n");
        let want = format!(
            "folded: line {line}, column 3 (byte {byte}): invalid UTF-8 (the format is UTF-8 text), found bytes ff 63 20 31 0a"
        );
        assert_eq!(all_lines(&input, 4096).unwrap_err(), want);
        assert_eq!(all_lines_pipelined(&input, 4096).unwrap_err(), want);
    }

    /// `text` in UTF-16 (no mark), little- or big-endian.
    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        text.encode_utf16().flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
    }

    #[test]
    fn utf16_decodes_to_the_same_text_across_reads() {
        // Past one read of the decoder, with the pair of a character outside the BMP cut by the
        // end of the first read (its 65,536 bytes end 2 bytes into the 16,384th 😀).
        let text = format!("x{}\nλ 1\r\n", "😀".repeat(20_000));
        for big_endian in [false, true] {
            let encoding = if big_endian { Encoding::Utf16Be } else { Encoding::Utf16Le };
            let bytes = utf16(&text, big_endian);
            let mut decoded = String::new();
            Utf16Decoder::new(&bytes[..], encoding, 2).read_to_string(&mut decoded).unwrap();
            assert!(decoded == text, "{} bytes decoded", decoded.len());
        }
    }

    #[test]
    fn sniffers_see_utf8_without_a_mark_and_crlf_as_lf() {
        assert_eq!(&*sniffable(b"\xEF\xBB\xBFa 1\r\nb 2\r"), b"a 1\nb 2");
        assert_eq!(&*sniffable(&[b"\xFF\xFE", &utf16("a 1\r\n", false)[..]].concat()), b"a 1\n");
        // A head cut inside a character keeps what came before it.
        let mut cut = [b"\xFE\xFF", &utf16("λ 1\n", true)[..]].concat();
        cut.push(0xD8);
        assert_eq!(&*sniffable(&cut), "λ 1\n".as_bytes());
        // A CR inside a line is text.
        assert_eq!(&*sniffable(b"a\rb 1\n"), b"a\rb 1\n");
    }

    #[test]
    fn a_consumer_error_stops_the_reader() {
        let input = "x\n".repeat(4 * BLOCK);
        let mut source = input.as_bytes();
        let mut seen = 0;
        let result = pipeline(
            &mut source,
            FormatName("folded"),
            |_| (),
            |line, ()| {
                seen += 1;
                if seen == 10 {
                    return Err(line.error(ParseErrorKind::Encoding { found: None }));
                }
                Ok(())
            },
        );
        assert!(result.is_err());
        assert_eq!(seen, 10);
    }
}
