//! Where a function is defined: the format-neutral frame fact [`DEFINED_AT`] and the parser of the
//! source spans GHC prints.
//!
//! A reader that knows where a frame's code is defined keeps that text, as the source printed it,
//! under the frame attr [`DEFINED_AT`] (no format prefix: every format's writer may use it). Writers
//! with a file and line per function (speedscope, pprof) take them from [`SourceLocation::parse`];
//! [`crate::model::Frame::line`] is not used for this, since a frame with a line is a source-line frame.

/// The frame-attr key of where a frame's code is defined (GHC's `SRC` column and `src_loc`).
pub const DEFINED_AT: &str = "defined-at";

/// A file and line (and column where known), parsed from a [`DEFINED_AT`] text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLocation<'a> {
    /// The file as written (`src/Main.hs`).
    pub file: &'a str,
    /// The first line of the span, 1-based.
    pub line: u32,
    /// The first column of the span, 1-based, where given.
    pub column: Option<u32>,
}

impl<'a> SourceLocation<'a> {
    /// Parses GHC's forms of a source span: `file:line:col`, `file:line:col-col`,
    /// `file:(line,col)-(line,col)` and `file:line`. Anything else, such as GHC's non-locations
    /// `<no location info>`, `<built-in>` and `<entire-module>`, is `None` (and stays text).
    pub fn parse(text: &'a str) -> Option<SourceLocation<'a>> {
        let text = text.trim();
        if text.starts_with('<') {
            return None;
        }
        if let Some(span) = text.strip_suffix(')') {
            // file:(l1,c1)-(l2,c2)
            let (file, start) = span.rsplit_once(":(")?;
            let (start, end) = start.split_once(")-(")?;
            let (line, column) = start.split_once(',')?;
            let (end_line, end_column) = end.split_once(',')?;
            number(end_line)?;
            number(end_column)?;
            return SourceLocation::new(file, line, Some(column));
        }
        let (rest, last) = text.rsplit_once(':')?;
        match rest.rsplit_once(':') {
            // file:line:col or file:line:col-col
            Some((file, line)) if number(line).is_some() => {
                let (column, end) = last.split_once('-').map_or((last, None), |(c, e)| (c, Some(e)));
                if let Some(end) = end {
                    number(end)?;
                }
                SourceLocation::new(file, line, Some(column))
            }
            // file:line
            _ => SourceLocation::new(rest, last, None),
        }
    }

    fn new(file: &'a str, line: &str, column: Option<&str>) -> Option<SourceLocation<'a>> {
        let column = match column {
            Some(column) => Some(number(column)?),
            None => None,
        };
        (!file.is_empty()).then_some(SourceLocation { file, line: number(line)?, column })
    }
}

/// A whole number of ASCII digits that fits a `u32`.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::SourceLocation;

    fn parse(text: &str) -> Option<(&str, u32, Option<u32>)> {
        SourceLocation::parse(text).map(|l| (l.file, l.line, l.column))
    }

    #[test]
    fn ghc_spans() {
        assert_eq!(parse("src/Main.hs:51:9-31"), Some(("src/Main.hs", 51, Some(9))));
        assert_eq!(parse("Main.hs:12:1"), Some(("Main.hs", 12, Some(1))));
        assert_eq!(parse("file:(12,3)-(14,9)"), Some(("file", 12, Some(3))));
        assert_eq!(parse("Main.hs:7"), Some(("Main.hs", 7, None)));
        assert_eq!(parse(r"C:\src\Main.hs:3:5"), Some((r"C:\src\Main.hs", 3, Some(5))));
    }

    #[test]
    fn non_locations() {
        for text in ["<no location info>", "<built-in>", "<entire-module>", "", "Main.hs", ":1:2", "a:b:c", "f:1:2-x"] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
