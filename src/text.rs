//! Reading text formats line by line from a stream, with the line number and byte offset of each line
//! for error messages. Lines end at LF; a CR before the LF is dropped, so CRLF files read like LF files.
//!
//! The input is read in blocks of whole lines. Each block is checked as UTF-8 once and kept as a
//! `String`, and lines are handed out as slices of it: no copy and no call into the input per line.
//! The partial line at the end of a block waits in `partial` for the next block.

use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::Format;
use std::io::Read;

/// How much a block reads at least (unless the input ends first).
const BLOCK: usize = 256 * 1024;

/// A streaming line reader. See the module documentation.
pub(crate) struct Lines<'r> {
    input: &'r mut dyn Read,
    format: Format,
    /// Whole lines, checked as UTF-8; `pos` is where the next line starts.
    text: String,
    pos: usize,
    /// Where the newlines of `text` are, found in one pass per block; `next_newline` indexes it.
    newlines: Vec<u32>,
    next_newline: usize,
    /// Bytes after the last newline read so far.
    partial: Vec<u8>,
    /// Input offset of `text[0]`.
    text_offset: u64,
    /// Lines handed out so far.
    line: u64,
    eof: bool,
}

impl<'r> Lines<'r> {
    pub(crate) fn new(input: &'r mut dyn Read, format: Format) -> Lines<'r> {
        Lines {
            input,
            format,
            text: String::new(),
            pos: 0,
            newlines: Vec::new(),
            next_newline: 0,
            partial: Vec::new(),
            text_offset: 0,
            line: 0,
            eof: false,
        }
    }

    /// The next line without its line ending, as UTF-8, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'_>>, ParseError> {
        if self.pos >= self.text.len() && !self.refill()? {
            return Ok(None);
        }
        let rest = &self.text[self.pos..];
        let (len, consumed) = match self.newlines.get(self.next_newline) {
            Some(&newline) => {
                self.next_newline += 1;
                let i = newline as usize - self.pos;
                (i, i + 1)
            }
            None => match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(i) => (i, i + 1),
                None => (rest.len(), rest.len()),
            },
        };
        let text = rest[..len].strip_suffix('\r').unwrap_or(&rest[..len]);
        self.line += 1;
        let position = Position::line(self.line, self.text_offset + self.pos as u64);
        self.pos += consumed;
        Ok(Some(Line { text, position, format: self.format }))
    }

    /// Reads the next block of whole lines into `text`; false at the end of the input.
    fn refill(&mut self) -> Result<bool, ParseError> {
        self.text_offset += self.text.len() as u64;
        self.pos = 0;
        let mut block = std::mem::take(&mut self.text).into_bytes();
        block.clear();
        block.append(&mut self.partial);
        let mut searched = 0;
        loop {
            let last_newline = memchr::memrchr(b'\n', &block[searched..]).map(|i| searched + i);
            if self.eof || (last_newline.is_some() && block.len() >= BLOCK) {
                if let Some(end) = last_newline.filter(|_| !self.eof) {
                    self.partial.extend_from_slice(&block[end + 1..]);
                    block.truncate(end + 1);
                }
                break;
            }
            searched = block.len();
            // read_to_end fills spare capacity without zeroing it first, and retries interruptions.
            let n = match (&mut *self.input).take(BLOCK as u64).read_to_end(&mut block) {
                Ok(n) => n,
                Err(e) => {
                    let at = Position::line(self.line + 1, self.text_offset);
                    return Err(ParseError { format: self.format, position: at, kind: ParseErrorKind::Io(e) });
                }
            };
            self.eof = n < BLOCK;
        }
        if block.is_empty() {
            return Ok(false);
        }
        match String::from_utf8(block) {
            Ok(text) => {
                self.newlines.clear();
                // A block is at most a few MiB unless one line is longer than 4 GiB; offsets past
                // u32 are not indexed and are found by the fallback below.
                self.newlines.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map_while(|i| u32::try_from(i).ok()));
                self.next_newline = 0;
                self.text = text;
                Ok(true)
            }
            Err(e) => Err(self.encoding_error(e.as_bytes(), e.utf8_error().valid_up_to())),
        }
    }

    /// The error for the first byte that is not UTF-8, at `bad` in `block`.
    fn encoding_error(&self, block: &[u8], bad: usize) -> ParseError {
        let line_start = memchr::memrchr(b'\n', &block[..bad]).map_or(0, |i| i + 1);
        let lines_before = memchr::memchr_iter(b'\n', &block[..line_start]).count() as u64;
        let column = String::from_utf8_lossy(&block[line_start..bad]).chars().count() as u64 + 1;
        ParseError {
            format: self.format,
            position: Position {
                byte: self.text_offset + bad as u64,
                line: Some(self.line + lines_before + 1),
                column: Some(column),
            },
            kind: ParseErrorKind::Encoding,
        }
    }

    /// An error at the start of the line after the last one handed out (line 1 before the first).
    pub(crate) fn error(&self, kind: ParseErrorKind) -> ParseError {
        let at = Position::line(self.line + 1, self.text_offset + self.pos as u64);
        ParseError { format: self.format, position: at, kind }
    }
}

/// One line of text with where it starts.
pub(crate) struct Line<'a> {
    /// The text, without the line ending.
    pub(crate) text: &'a str,
    /// Line number and byte offset of its start.
    pub(crate) position: Position,
    format: Format,
}

impl Line<'_> {
    /// An error at the start of this line.
    pub(crate) fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { format: self.format, position: self.position, kind }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn all_lines(input: &[u8], chunk: usize) -> Result<Vec<(String, u64, u64)>, String> {
        let mut source = Trickle { input, chunk };
        let mut lines = Lines::new(&mut source, Format::Folded);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().map_err(|e| e.to_string())? {
            out.push((line.text.to_string(), line.position.line.unwrap_or(0), line.position.byte));
        }
        Ok(out)
    }

    #[test]
    fn lines_positions_and_line_endings() {
        let input = "a 1\r\nbb 2\n\nλ 3";
        for chunk in [1, 2, 3, 7, 1000] {
            let got = all_lines(input.as_bytes(), chunk).unwrap();
            let want = vec![
                ("a 1".to_string(), 1, 0),
                ("bb 2".to_string(), 2, 5),
                (String::new(), 3, 10),
                ("λ 3".to_string(), 4, 11),
            ];
            assert_eq!(got, want, "chunk {chunk}");
        }
    }

    #[test]
    fn lines_longer_than_a_block_and_many_blocks() {
        let long = "x".repeat(3 * BLOCK + 17);
        let mut input = format!("{long}\n");
        for i in 0..100_000 {
            input.push_str(&format!("line {i}\n"));
        }
        let got = all_lines(input.as_bytes(), 100_000).unwrap();
        assert_eq!(got.len(), 100_001);
        assert_eq!(got[0].0.len(), long.len());
        assert_eq!(got[100_000], ("line 99999".to_string(), 100_001, (input.len() - "line 99999\n".len()) as u64));
    }

    #[test]
    fn invalid_utf8_is_located_across_blocks() {
        let mut input = "ok 1\n".repeat(BLOCK / 5 + 3).into_bytes();
        let line = BLOCK / 5 + 4;
        let byte = input.len() + 2; // after "ab"
        input.extend_from_slice(b"ab\xffc 1\n");
        let err = all_lines(&input, 4096).unwrap_err();
        assert_eq!(err, format!("folded: line {line}, column 3 (byte {byte}): invalid UTF-8 (the format is UTF-8 text)"));
    }
}
