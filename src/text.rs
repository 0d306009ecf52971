//! Reading text formats line by line from a stream, with the line number and byte offset of each line
//! for error messages. Lines end at LF; a CR before the LF is dropped, so CRLF files read like LF files.

use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::Format;
use std::io::BufRead;

/// A streaming line reader over a [`BufRead`]. A line that lies whole in the reader's buffer is
/// returned from there without a copy; one that crosses the buffer's end is gathered in `spill`.
pub(crate) struct Lines<'r> {
    input: &'r mut dyn BufRead,
    format: Format,
    spill: Vec<u8>,
    /// Bytes of the input's buffer that belong to the line last returned.
    to_consume: usize,
    line: u64,
    start: u64,
    next_start: u64,
}

impl<'r> Lines<'r> {
    pub(crate) fn new(input: &'r mut dyn BufRead, format: Format) -> Lines<'r> {
        Lines {
            input,
            format,
            spill: Vec::new(),
            to_consume: 0,
            line: 0,
            start: 0,
            next_start: 0,
        }
    }

    /// The next line without its line ending, as UTF-8, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'_>>, ParseError> {
        self.input.consume(std::mem::take(&mut self.to_consume));
        let (format, at) = (self.format, Position::line(self.line + 1, self.next_start));
        let io_error = |e| ParseError {
            format,
            position: at,
            kind: ParseErrorKind::Io(e),
        };
        let in_buffer = match self.input.fill_buf() {
            Ok([]) => return Ok(None),
            Ok(buf) => memchr::memchr(b'\n', buf).map(|i| i + 1),
            Err(e) => return Err(io_error(e)),
        };
        let bytes: &[u8] = match in_buffer {
            Some(n) => {
                self.to_consume = n;
                // The buffer is still filled: this call only hands it out again.
                match self.input.fill_buf() {
                    Ok(buf) => &buf[..n],
                    Err(e) => return Err(io_error(e)),
                }
            }
            None => {
                self.spill.clear();
                if let Err(e) = self.input.read_until(b'\n', &mut self.spill) {
                    return Err(io_error(e));
                }
                &self.spill
            }
        };
        self.line += 1;
        self.start = self.next_start;
        self.next_start += bytes.len() as u64;
        let mut end = bytes.len();
        if bytes[end - 1] == b'\n' {
            end -= 1;
            if end > 0 && bytes[end - 1] == b'\r' {
                end -= 1;
            }
        }
        match std::str::from_utf8(&bytes[..end]) {
            Ok(text) => Ok(Some(Line {
                text,
                position: Position::line(self.line, self.start),
                format: self.format,
            })),
            Err(e) => {
                let column = String::from_utf8_lossy(&bytes[..e.valid_up_to()])
                    .chars()
                    .count() as u64
                    + 1;
                Err(ParseError {
                    format: self.format,
                    position: Position {
                        byte: self.start + e.valid_up_to() as u64,
                        line: Some(self.line),
                        column: Some(column),
                    },
                    kind: ParseErrorKind::Encoding,
                })
            }
        }
    }

    /// An error at the start of the current line (line 1 before the first line is read).
    pub(crate) fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            format: self.format,
            position: Position::line(self.line.max(1), self.start),
            kind,
        }
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
        ParseError {
            format: self.format,
            position: self.position,
            kind,
        }
    }
}
