//! Text formats of stacks as grammars of lines: a format states what a line is ([`StackLines`])
//! and [`read`] runs it over the input's lines into a [`StackSink`].

use super::sink::{Missing, StackSink};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::options::ReadOptions;
use crate::model::{Metric, Profile};
use crate::text::Line;

/// The grammar of a text format of stacks, line by line, from its start ([`Default`]).
pub(crate) trait StackLines: Default {
    /// The format's name in errors and warnings.
    const FORMAT: FormatName;
    /// What a last line that the input ends in without a line break may have lost, for a format
    /// whose writers end every line (it is then said to look cut short); `None` for others.
    const LAST_LINE_CUT: Option<&'static str>;
    /// What an input without a stack should have held, for a format that refuses one.
    const MISSING: Option<Missing>;

    /// Reads one line, giving the stacks it ends to `sink`.
    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, diag: &mut Diagnostics) -> Result<(), ParseError>;

    /// At the end of the input, whose last line starts at `last`: gives the stack still open to
    /// `sink`, or says that the input ends where it cannot.
    fn end(&mut self, sink: &mut StackSink, last: Position) -> Result<(), ParseError>;
}

/// Reads `input`'s lines with the grammar `G`: the profile of its stacks, their samples (a
/// format's [`crate::formats::spec::Reader`]).
pub(crate) fn read<G: StackLines>(
    input: &mut (dyn std::io::Read + Send),
    _: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, Error> {
    read_into(input, G::default(), StackSink::new(G::FORMAT, vec![Metric::samples()]), diag).map_err(Error::from)
}

/// Reads `input`'s lines with `grammar` into `sink`: for a grammar made with a reading option, or
/// a sink of other metrics than samples.
pub(crate) fn read_into<G: StackLines>(
    input: &mut (dyn std::io::Read + Send),
    mut grammar: G,
    mut sink: StackSink,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut last = Position::line(1, 0);
    crate::text::pipeline(
        input,
        G::FORMAT,
        |_| (),
        |line, ()| {
            last = line.position;
            if let Some(lost) = G::LAST_LINE_CUT {
                line.warn_if_cut_short(lost, diag);
            }
            grammar.line(&line, &mut sink, diag)
        },
    )?;
    grammar.end(&mut sink, last)?;
    sink.finish(G::MISSING, diag)
}

/// `text`, the digits of a count of `what` (`a stack's count`), as a count; the error at `line`
/// of one too large.
pub(crate) fn count(line: &Line<'_>, text: &str, what: &str) -> Result<i64, ParseError> {
    text.parse::<i64>().map_err(|_| {
        let expected = format!("{what}, at most {}", i64::MAX);
        line.error(ParseErrorKind::Unexpected { expected, found: text.into() })
    })
}
