//! Text a terminal shows as text: the characters of a profile's names that a terminal would act on
//! instead of showing (ESC and the rest of C0 but line breaks and tabs, DEL, C1, and the marks that
//! reorder a line's text, such as RLO) are written escaped, as `\u{1b}`, as error messages quote
//! them. A name from a file cannot retitle the terminal, move its cursor or hide text.

use std::io::{self, Write};

/// A writer that escapes, in what is written through it, the characters `is_unsafe` names.
/// Each write is taken whole: the reports write a name within one write, never cut.
pub struct SafeText<'a> {
    out: &'a mut dyn Write,
}

impl<'a> SafeText<'a> {
    /// Escapes what is written to `out`.
    pub fn new(out: &'a mut dyn Write) -> SafeText<'a> {
        SafeText { out }
    }
}

impl Write for SafeText<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf).map(|text| crate::text::escape_chars(text, is_unsafe)) {
            Ok(std::borrow::Cow::Owned(escaped)) => self.out.write_all(escaped.as_bytes())?,
            // Text with nothing to escape, or bytes that are no text (none of the reports').
            _ => self.out.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `text` with each character `is_unsafe` names written as `\u{…}`.
pub fn escaped(text: &str) -> String {
    shown(text).into_owned()
}

/// `text` as a terminal is shown it through [`SafeText`]: itself where nothing is escaped.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::escape_chars(text, is_unsafe)
}

/// `text` as one cell of a report's line shows it: what [`SafeText`] escapes, and its line breaks
/// and tabs as well, which would split the row or shift the columns after it (`a\u{a}b`).
pub(crate) fn in_a_cell(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::escape_chars(text, |c| matches!(c, '\n' | '\t') || is_unsafe(c))
}

/// Whether a terminal would act on `c` rather than show it: a control character (C0 but a line
/// break or a tab, DEL, C1) or a mark that changes the direction of text (U+202A–U+202E,
/// U+2066–U+2069, and the marks U+200E, U+200F, U+061C).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ESC (an OSC title sequence), BEL, BS, CR and RLO are escaped; line breaks, tabs and other
    /// text (CJK, an APL `⍵`) are kept.
    #[test]
    fn what_a_terminal_acts_on_is_escaped() {
        let mut out = Vec::new();
        let name = "\u{1b}]0;owned\u{7}f\u{8}\r\u{202e}gnp.exe";
        write!(SafeText::new(&mut out), "{name} 3\n你好\t⍵\n").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "\\u{1b}]0;owned\\u{7}f\\u{8}\\u{d}\\u{202e}gnp.exe 3\n你好\t⍵\n");
    }
}
