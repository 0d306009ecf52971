//! What the JSON readers and writers (GHC's `-pj`, speedscope, V8's `.cpuprofile`) share: errors
//! with a line and column, from serde_json's and from a byte offset; escaped strings; the head of an
//! input as each JSON format's check reads it.

use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// A serde_json error as a parse error of `format` with its line and column; `expected` says what
/// the JSON should have been (`JSON in GHC's -pj schema`). JSON that ends before it closes is said
/// to look cut short.
pub(crate) fn serde_error(format: FormatName, text: &str, e: &serde_json::Error, expected: &str) -> ParseError {
    let line = e.line().max(1);
    let line_start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    // serde_json counts its column in bytes: the error's byte is the column's, less 1; JSON cut
    // short ends at the end.
    let mut byte = match e.is_eof() {
        true => text.len(),
        false => (line_start + e.column().max(1) - 1).min(text.len()),
    };
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    error_at(format, text.as_bytes(), byte, ParseErrorKind::Unexpected { expected: expected.into(), found: found(e) })
}

/// `text` parsed as a document of `format`, or the parse error [`serde_error`] makes of why not;
/// `expected` says what the JSON should have been.
pub(crate) fn parse<'t, T: serde::Deserialize<'t>>(
    format: FormatName,
    text: &'t str,
    expected: &str,
) -> Result<T, ParseError> {
    serde_json::from_str(text).map_err(|e| serde_error(format, text, &e, expected))
}

/// What a serde_json error found, for a parse error that gives its position: JSON that ends before
/// it closes is said to look cut short.
pub(crate) fn found(e: &serde_json::Error) -> String {
    let message = message(e);
    match e.is_eof() {
        true => format!("the end of the input before the JSON closes ({message}): the file looks cut short"),
        false => format!("a JSON error ({message})"),
    }
}

/// serde_json's error message without the " at line L column C" it appends: a parse error's position
/// says that already.
pub(crate) fn message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rsplit_once(" at line ") {
        Some((before, _)) => before.to_string(),
        None => message,
    }
}

/// An error of `format` at byte `at` of `bytes`, with line and column.
pub(crate) fn error_at(format: FormatName, bytes: &[u8], at: usize, kind: ParseErrorKind) -> ParseError {
    let at = at.min(bytes.len());
    let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', &bytes[..line_start]).count() as u64 + 1;
    let column = String::from_utf8_lossy(&bytes[line_start..at]).chars().count() as u64 + 1;
    ParseError { format, position: Position { byte: at as u64, line: Some(line), column: Some(column) }, kind }
}

/// An error of `format` where `key` first stands in `text` (its start where it does not): of a value
/// serde read but the reader finds wrong.
pub(crate) fn error_at_key(format: FormatName, text: &str, key: &str, expected: String, found: String) -> ParseError {
    let at = memchr::memmem::find(text.as_bytes(), key.as_bytes()).unwrap_or(0);
    error_at(format, text.as_bytes(), at, ParseErrorKind::Unexpected { expected, found })
}

/// The byte of the `n`th (0-based) occurrence of `key` in `bytes`, or of its first, or 0: the place
/// of a table of the `n`th thread, for an error that names it by its JSON path too.
pub(crate) fn nth_key(bytes: &[u8], key: &str, n: usize) -> usize {
    let mut found = memchr::memmem::find_iter(bytes, key.as_bytes());
    let first = memchr::memmem::find(bytes, key.as_bytes()).unwrap_or(0);
    found.nth(n).unwrap_or(first)
}

/// The whole of `input`, read for a reader of `format` that needs all of it at once (JSON, a zip
/// archive, a marshalled dict): an I/O error at the byte it stopped at.
pub(crate) fn read_all(input: &mut (dyn std::io::Read + Send), format: FormatName) -> Result<Vec<u8>, ParseError> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| ParseError {
        format,
        position: Position::byte(bytes.len() as u64),
        kind: ParseErrorKind::Io(e),
    })?;
    Ok(bytes)
}

/// `bytes` as UTF-8 text, or an error at the first byte that is not (JSON is UTF-8).
pub(crate) fn text(format: FormatName, bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let found = Some(crate::error::excerpt(&bytes[e.valid_up_to()..]));
        error_at(format, bytes, e.valid_up_to(), ParseErrorKind::Encoding { found })
    })
}

/// Appends `text` as a JSON string, escaped by serde_json.
pub(crate) fn push_string(json: &mut String, text: &str) {
    // Serialising a `str` cannot fail.
    json.push_str(&serde_json::to_string(text).unwrap_or_default());
}

/// The first bytes of an input as a JSON format's check reads them, white space before them left
/// out: the keys they mention anywhere, the object or array they open, a key's value.
#[derive(Clone, Copy)]
pub(crate) struct Head<'a>(&'a [u8]);

impl<'a> Head<'a> {
    pub(crate) fn of(bytes: &'a [u8]) -> Head<'a> {
        Head(bytes.trim_ascii_start())
    }

    /// The head's bytes, from its first that is not white space.
    pub(crate) fn bytes(self) -> &'a [u8] {
        self.0
    }

    /// Whether `text` (a key with its quotes, say) stands anywhere in the head.
    pub(crate) fn mentions(self, text: &[u8]) -> bool {
        memchr::memmem::find(self.0, text).is_some()
    }

    /// The object the head opens, as its members from its first key; where it opens none, the
    /// answer of the check of every format of objects: `not a JSON object`.
    pub(crate) fn object(self) -> Result<&'a [u8], &'static str> {
        self.0.strip_prefix(b"{").map(<[u8]>::trim_ascii_start).ok_or("not a JSON object")
    }

    /// What follows the first `key` (with its quotes) of the head, its colon and white space: the
    /// start of its value.
    pub(crate) fn value_of(self, key: &[u8]) -> Option<&'a [u8]> {
        let after = &self.0[memchr::memmem::find(self.0, key)? + key.len()..];
        after.trim_ascii_start().strip_prefix(b":").map(<[u8]>::trim_ascii_start)
    }
}

/// A JSON array read an element at a time, each handed to `each` as soon as it is read, so that no
/// array of them is built: serde's seed and visitor of it, `expecting` saying what the array holds
/// in serde's errors, and the text `each` returns an error at the element.
pub(crate) struct Each<T, F> {
    expecting: &'static str,
    each: F,
    element: PhantomData<fn() -> T>,
}

impl<T, F: FnMut(T) -> Result<(), String>> Each<T, F> {
    pub(crate) fn new(expecting: &'static str, each: F) -> Each<T, F> {
        Each { expecting, each, element: PhantomData }
    }
}

impl<'de, T: serde::Deserialize<'de>, F: FnMut(T) -> Result<(), String>> DeserializeSeed<'de> for Each<T, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: serde::Deserialize<'de>, F: FnMut(T) -> Result<(), String>> Visitor<'de> for Each<T, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut elements: A) -> Result<(), A::Error> {
        while let Some(element) = elements.next_element::<T>()? {
            (self.each)(element).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error's byte is that of the character serde_json stopped at, and its column counts
    /// characters: after a `µ` (two bytes), the `x` at byte 8 is column 8, its eighth character.
    /// The byte was taken as that of the column's character, one past (byte 9); JSON cut short
    /// ends at its end.
    #[test]
    fn an_error_is_at_the_byte_serde_json_stopped_at() {
        let position = |text: &str| {
            let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            let position = serde_error(FormatName("test"), text, &e, "JSON").position;
            (position.byte, position.column)
        };
        assert_eq!(position("[\"µs\", x]"), (8, Some(8)));
        assert_eq!(position("[1,\n 2 x]"), (7, Some(4)));
        assert_eq!(position("[\"µs\", "), (8, Some(8)));
    }

    #[test]
    fn a_head_is_read_past_white_space() {
        let head = Head::of(b"\n  { \"mode\" : \"wall\", \"frames\": {}}");
        assert!(head.mentions(b"\"frames\""));
        assert_eq!(head.object().map(|m| &m[..6]), Ok(&b"\"mode\""[..]));
        assert_eq!(head.value_of(b"\"mode\"").map(|v| &v[..6]), Some(&b"\"wall\""[..]));
        assert_eq!(head.value_of(b"\"raw\""), None);
        assert_eq!(Head::of(b"[1]").object(), Err("not a JSON object"));
    }
}
