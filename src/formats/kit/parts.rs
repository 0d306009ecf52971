//! Reports in parts, as profilers print them for people to read: a header, up to the line that
//! starts the body (the stacks); the body, up to the line that ends it; and what follows it (totals,
//! a summary of the body), which a reader of the stacks does not read. A format states its parts
//! ([`Parts`]) and how its header and body are read ([`Body`]); [`Report`] is its grammar of lines,
//! which gives each line to the part it is in and says what a report that ends too early lacks.

use super::lines::StackLines;
use super::sink::{Missing, StackSink};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::text::Line;

/// A report's parts, by the starts of the lines between them, and what its body is in errors.
pub(crate) struct Parts {
    /// The start of the line the body follows, the header's last line (`Call graph:`).
    pub(crate) start: &'static str,
    /// The start of the line that ends the body, the first line of what follows it.
    pub(crate) end: &'static str,
    /// What the body is, in errors (`the call tree`).
    pub(crate) body: &'static str,
}

impl Parts {
    /// The error of a line in the body, `text`, that is neither one of its lines, which start as
    /// `how` says (`four spaces first`), nor the line that ends it.
    pub(crate) fn not_a_body_line(&self, line: &Line<'_>, text: &str, how: &str) -> ParseError {
        let expected = format!("a line of {} ({how}) or `{}`", self.body, self.end);
        line.unexpected(expected, crate::error::excerpt(text.as_bytes()))
    }
}

/// How a format's report in parts is read, from its start ([`Default`]).
pub(crate) trait Body: Default {
    /// The format's name in errors and warnings.
    const FORMAT: FormatName;
    /// The report's parts.
    const PARTS: Parts;

    /// Reads a line of the header (one before the line that starts the body), for its facts.
    fn header(&mut self, text: &str, sink: &mut StackSink);

    /// Reads a line of the body that is not blank, `text` without its trailing space, giving the
    /// stacks it ends to `sink`.
    fn line(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError>;

    /// At the line that ends the body: gives `sink` the stack still open.
    fn end(&mut self, sink: &mut StackSink);
}

/// Where a reader is in a report; a report starts with its header.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Part {
    /// Before the line that starts the body.
    #[default]
    Header,
    /// After the line that starts the body, up to the line that ends it.
    Body,
    /// From the line that ends the body on.
    After,
}

/// The grammar of lines of a report in parts, its body read as `B` says.
#[derive(Default)]
pub(crate) struct Report<B> {
    /// The part the last line was in.
    part: Part,
    /// The body's reading.
    body: B,
}

impl<B: Body> StackLines for Report<B> {
    const FORMAT: FormatName = B::FORMAT;
    // A report cut short lacks the line that ends its body, which is the error; the last line is not
    // judged by its missing line break (LAST_LINE_CUT's default).
    // A body of no stack (nothing was sampled) is an empty profile.
    const MISSING: Option<Missing> = None;

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        match self.part {
            Part::Header if line.text.starts_with(B::PARTS.start) => self.part = Part::Body,
            Part::Header => self.body.header(line.text, sink),
            Part::Body => {
                let text = line.text.trim_end();
                if text.starts_with(B::PARTS.end) {
                    self.body.end(sink);
                    self.part = Part::After;
                } else if !text.is_empty() {
                    self.body.line(line, text, sink)?;
                }
            }
            Part::After => {}
        }
        Ok(())
    }

    /// The error of a report that ends before its body starts, or inside it (cut short).
    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError> {
        let Parts { start, end, body } = B::PARTS;
        match self.part {
            Part::Header => Err(sink.ends_before(last, format!("a `{start}` line, {body}'s start"))),
            Part::Body => Err(sink.cut_short(last, format!("the `{end}` line that ends {body}"))),
            Part::After => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::kit::lines::read_into;
    use crate::model::Metric;

    /// A body that keeps what it was given: header lines as `h:TEXT`, body lines as `b:TEXT` (a
    /// line `bad` refused), its end as `end`; the profile's title holds them.
    #[derive(Default)]
    struct Kept(Vec<String>);

    impl Body for Kept {
        const FORMAT: FormatName = FormatName("test");
        const PARTS: Parts = Parts { start: "Tree:", end: "Totals", body: "the tree" };

        fn header(&mut self, text: &str, sink: &mut StackSink) {
            self.keep(format!("h:{text}"), sink);
        }

        fn line(&mut self, line: &Line<'_>, text: &str, sink: &mut StackSink) -> Result<(), ParseError> {
            if text == "bad" {
                return Err(
                    line.error(crate::error::ParseErrorKind::Unexpected { expected: "x".into(), found: "bad".into() })
                );
            }
            self.keep(format!("b:{text}"), sink);
            Ok(())
        }

        fn end(&mut self, sink: &mut StackSink) {
            self.keep("end".into(), sink);
        }
    }

    impl Kept {
        fn keep(&mut self, what: String, sink: &mut StackSink) {
            self.0.push(what);
            sink.profile().meta.title = Some(self.0.join("|"));
        }
    }

    /// What `report` is read as: the parts given to the body, or the error.
    fn read(report: &str) -> Result<String, String> {
        let sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let profile = read_into(&mut report.as_bytes(), Report::<Kept>::default(), sink, &mut Diagnostics::default());
        profile.map(|profile| profile.meta.title.unwrap_or_default()).map_err(|error| error.to_string())
    }

    #[test]
    fn each_line_goes_to_the_part_it_is_in() {
        let report = "Title\n\nTree: 2 lines\n  a 3  \n\n  b\nTotals:\n  a 3\nTree:\nbad\n";
        assert_eq!(read(report).unwrap(), "h:Title|h:|b:  a 3|b:  b|end");
        assert!(read("Tree:\nbad\nTotals\n").unwrap_err().contains("line 2"));
    }

    #[test]
    fn a_line_in_the_body_that_is_none_of_it_is_said_with_the_end_line() {
        let line = Line::joined("x 3", Position::line(5, 50), FormatName("test"));
        let error = Kept::PARTS.not_a_body_line(&line, line.text, "a space first").to_string();
        assert!(error.contains("line 5 (byte 50)"), "{error}");
        assert!(error.contains("expected a line of the tree (a space first) or `Totals`, found \"x 3\""), "{error}");
    }

    #[test]
    fn a_report_that_ends_before_its_body_ends_is_refused() {
        let header = read("Title\nTotals\n").unwrap_err();
        assert!(header.contains("a `Tree:` line, the tree's start") && header.contains("line 2"), "{header}");
        assert!(!header.contains("cut short"), "{header}");
        let body = read("Title\nTree:\n  a 3\n").unwrap_err();
        assert!(body.contains("the `Totals` line that ends the tree") && body.contains("line 3"), "{body}");
        assert!(body.contains("cut short"), "{body}");
        assert_eq!(read("Tree:\nTotals"), Ok("end".into()));
    }
}
