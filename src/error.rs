//! Errors of the library: a parse error carries the format and the position in the input; a write
//! error says what the target cannot hold; a detection error lists the candidates. The binary adds the
//! file name in front (`in.tree: lispworks: line 3 (byte 40): …`).

use std::fmt;
use std::io;

/// A format as errors and messages name it: its command-line name (`lispworks`, `ghc-px`). Errors
/// are defined below the format registry, so they name a format by this, which the registry's
/// `Format` converts into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormatName(pub &'static str);

impl fmt::Display for FormatName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Where in an input something was found. `byte` is always known; `line` and `column` (1-based) for
/// text formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Byte offset from the start of the input (0-based).
    pub byte: u64,
    /// Line number (1-based), for text formats.
    pub line: Option<u64>,
    /// Column (1-based, in characters), where known.
    pub column: Option<u64>,
}

impl Position {
    /// A position in a binary input.
    pub fn byte(byte: u64) -> Position {
        Position { byte, line: None, column: None }
    }

    /// The start of a line of a text input.
    pub fn line(line: u64, byte: u64) -> Position {
        Position { byte, line: Some(line), column: None }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "line {line}, column {column} (byte {})", self.byte)
            }
            (Some(line), None) => write!(f, "line {line} (byte {})", self.byte),
            _ => write!(f, "byte {}", self.byte),
        }
    }
}

/// What went wrong while reading an input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input does not start the way the format requires.
    #[error("not a {format} file: expected {expected}")]
    MissingMarker {
        /// The format that was expected.
        format: FormatName,
        /// What the start should look like.
        expected: &'static str,
    },
    /// Something else than the grammar allows.
    #[error("expected {expected}, found {found}")]
    Unexpected {
        /// What the grammar allows here.
        expected: String,
        /// What the input has (quoted, shortened).
        found: String,
    },
    /// A field that must be an integer is not one.
    #[error("{field} must be an integer, found {text:?}")]
    InvalidNumber {
        /// The field's name.
        field: &'static str,
        /// Its text.
        text: String,
    },
    /// An indented or depth-numbered tree skipped a level.
    #[error("depth jumps from {previous} to {found}: a node can be at most one level below the line before it")]
    DepthJump {
        /// The depth of the previous node (none before the first).
        previous: i64,
        /// The depth found.
        found: i64,
    },
    /// Text that is not valid UTF-8 in a format that requires it.
    #[error("invalid UTF-8 (the format is UTF-8 text){}", found.as_ref().map_or(String::new(), |f| format!(", found {f}")))]
    Encoding {
        /// The bytes from the first that is not UTF-8 on, as hex (`bytes ff fe 61`), where the
        /// reader has them.
        found: Option<String>,
    },
    /// The input could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// A failure to read an input, with where it happened.
#[derive(Debug, thiserror::Error)]
#[error("{format}: {position}: {kind}")]
pub struct ParseError {
    /// The format being read.
    pub format: FormatName,
    /// Where in the input.
    pub position: Position,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// Any failure of the library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading an input failed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The input format could not be determined.
    #[error("cannot tell the input format: {why}; name it with --from (one of: {readers})")]
    UnknownInput {
        /// Why not.
        why: String,
        /// The names of the formats that can be read, comma-separated.
        readers: String,
    },
    /// The output format could not be determined.
    #[error("cannot tell the output format: {why}; name it with --to (one of: {writers})")]
    UnknownOutput {
        /// Why not.
        why: String,
        /// The names of the formats that can be written, comma-separated.
        writers: String,
    },
    /// The input is of a kind proftool does not read (a format it only writes, JSON that is not
    /// GHC's), or not of the format named with `--from`.
    #[error("cannot read the input{}: {why}", named.map(|f| format!(" as {f}")).unwrap_or_default())]
    Unreadable {
        /// The format named with `--from`, if one was.
        named: Option<FormatName>,
        /// What the input is and what to do instead.
        why: String,
    },
    /// The format cannot be read (or written).
    #[error("{format} cannot be {action}")]
    Unsupported {
        /// The format.
        format: FormatName,
        /// `read` or `written`.
        action: &'static str,
    },
    /// The profile cannot be written as asked.
    #[error("cannot write {format}: {what}")]
    Unrepresentable {
        /// The target format.
        format: FormatName,
        /// Why.
        what: String,
    },
    /// An option has a value that does not fit the profile.
    #[error("{0}")]
    BadOption(String),
    /// Writing the output or another I/O operation failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The error of `raw`, text that is not UTF-8: its bytes from the first that is not on.
pub(crate) fn not_utf8(raw: &[u8]) -> ParseErrorKind {
    let valid = std::str::from_utf8(raw).err().map_or(raw.len(), |e| e.valid_up_to());
    ParseErrorKind::Encoding { found: Some(excerpt(&raw[valid..])) }
}

/// Shortens `text` for an error message.
pub(crate) fn excerpt(text: &[u8]) -> String {
    const MAX: usize = 60;
    // Bytes that are no text (not UTF-8, or control characters but white space: a binary file's
    // magic) are shown as hex, which says what they are where replacement characters would not.
    const MAX_BYTES: usize = 16;
    let head = &text[..text.len().min(MAX)];
    let not_utf8 = std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some());
    let control = head.iter().any(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f);
    if not_utf8 || control {
        let hex: Vec<String> = text.iter().take(MAX_BYTES).map(|b| format!("{b:02x}")).collect();
        let more = if text.len() > MAX_BYTES { " …" } else { "" };
        return format!("bytes {}{more}", hex.join(" "));
    }
    let s = String::from_utf8_lossy(head).into_owned();
    if text.len() > MAX {
        format!("{s:?}…")
    } else {
        format!("{s:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    /// Text is quoted; bytes that are no text (a ZIP's magic, bytes that are not UTF-8) are hex.
    #[test]
    fn excerpts_show_binary_bytes_as_hex() {
        assert_eq!(excerpt(b"prog 1234\tx"), "\"prog 1234\\tx\"");
        assert_eq!(excerpt(b"PK\x03\x04"), "bytes 50 4b 03 04");
        assert_eq!(excerpt(b"a\xffb"), "bytes 61 ff 62");
        assert_eq!(excerpt(&[0u8; 20]), "bytes 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 …");
        // A character cut by the excerpt's length is still text.
        let text = "é".repeat(40);
        assert!(excerpt(text.as_bytes()).starts_with("\"éé"));
    }
}
