//! Text formats of stacks as grammars of lines: a format states what a line is ([`StackLines`])
//! and [`read`] runs it over the input's lines into a [`StackSink`]; what such grammars keep: a
//! stack written a frame a line up to the line that ends it ([`OpenStack`]), and the frames of each
//! distinct frame line, named once ([`FramesByText`]).

use super::sink::{Missing, StackSink};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::options::ReadOptions;
use crate::model::{FrameId, FrameRef, Metric, Profile};
use crate::text::Line;
use std::collections::HashMap;

/// The grammar of a text format of stacks, line by line, from its start ([`Default`]).
pub(crate) trait StackLines: Default {
    /// The format's name in errors and warnings.
    const FORMAT: FormatName;
    /// What a last line that the input ends in without a line break may have lost, for a format
    /// whose writers end every line (it is then said to look cut short); `None` for others.
    const LAST_LINE_CUT: Option<&'static str> = None;
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
) -> Result<Profile, ParseError> {
    read_into(input, G::default(), StackSink::new(G::FORMAT, vec![Metric::samples()]), diag)
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
/// of one negative or too large.
pub(crate) fn count(line: &Line<'_>, text: &str, what: &str) -> Result<i64, ParseError> {
    text.parse::<u64>().ok().and_then(|n| i64::try_from(n).ok()).ok_or_else(|| {
        let expected = format!("{what}, from 0 to {}", i64::MAX);
        line.error(ParseErrorKind::Unexpected { expected, found: text.into() })
    })
}

/// A stack written a frame a line, innermost first, up to the line that ends it (its count): where
/// it starts, and its frames so far.
#[derive(Default)]
pub(crate) struct OpenStack {
    /// Where the open stack starts; none between stacks.
    start: Option<Position>,
    /// Its frames, innermost first; after it is closed, the closed stack's until the next opens.
    frames: Vec<FrameId>,
}

impl OpenStack {
    /// Opens a stack at `at`, of no frame yet (a line that only opens one, bpftrace's `@[`).
    pub(crate) fn open(&mut self, at: Position) {
        self.start = Some(at);
        self.frames.clear();
    }

    /// Whether a stack is open.
    pub(crate) fn is_open(&self) -> bool {
        self.start.is_some()
    }

    /// Adds `frames`, innermost first, to the open stack, opened at `at` where none is (a stack
    /// that starts with its first frame).
    pub(crate) fn push(&mut self, at: Position, frames: impl IntoIterator<Item = FrameId>) {
        if !self.is_open() {
            self.open(at);
        }
        self.frames.extend(frames);
    }

    /// Closes the stack: its frames, innermost first (none for a stack closed as it opened, or where
    /// none was open).
    pub(crate) fn close(&mut self) -> &[FrameId] {
        if self.start.take().is_none() {
            self.frames.clear();
        }
        &self.frames
    }

    /// Nothing where no stack is open; else the error of an input that ends, after its line `last`,
    /// inside the open stack, where `closing` should have come ([`StackSink::unclosed`]).
    pub(crate) fn unclosed(&self, sink: &StackSink, last: Position, closing: &str) -> Result<(), ParseError> {
        sink.unclosed(self.start, last, closing)
    }
}

/// The frames each distinct text names, made once: a frame line is written in every stack that
/// passes through it, and naming it (tidied, split into several frames) is done at its first.
#[derive(Default)]
pub(crate) struct FramesByText(HashMap<String, Vec<FrameId>>);

impl FramesByText {
    /// The frames of `text`: functions of the names `names` gives it, in their order, interned in
    /// `sink` the first time `text` is met.
    pub(crate) fn get(
        &mut self,
        text: &str,
        sink: &mut StackSink,
        names: impl FnOnce(&str) -> Vec<String>,
    ) -> &[FrameId] {
        if !self.0.contains_key(text) {
            let frames = names(text).iter().map(|name| sink.frame(FrameRef::function(name))).collect();
            self.0.insert(text.to_string(), frames);
        }
        &self.0[text]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_opens_at_its_first_line_and_closes_with_its_frames() {
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let (a, b) = (sink.frame(FrameRef::function("a")), sink.frame(FrameRef::function("b")));
        let mut stack = OpenStack::default();
        assert!(!stack.is_open() && stack.close().is_empty());
        stack.push(Position::line(3, 30), [a]);
        stack.push(Position::line(4, 40), [b]);
        let error = stack.unclosed(&sink, Position::line(4, 40), "a count").unwrap_err().to_string();
        assert!(error.contains("a count starting at line 3") && error.contains("cut short"), "{error}");
        assert_eq!(stack.close(), [a, b]);
        assert!(!stack.is_open() && stack.unclosed(&sink, Position::line(5, 50), "a count").is_ok());
        stack.open(Position::line(6, 60));
        assert!(stack.is_open() && stack.close().is_empty());
        stack.push(Position::line(7, 70), [b]);
        assert_eq!(stack.close(), [b]);
    }

    #[test]
    fn a_texts_frames_are_named_once() {
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let mut frames = FramesByText::default();
        let mut named = 0;
        let mut split = |text: &str| {
            named += 1;
            text.split('>').map(str::to_string).collect()
        };
        let first = frames.get("a>b", &mut sink, &mut split).to_vec();
        assert_eq!(frames.get("a>b", &mut sink, &mut split), first);
        let other = frames.get("b", &mut sink, &mut split).to_vec();
        assert_eq!((first.len(), other, named), (2, vec![first[1]], 2));
        assert_eq!(sink.profile().frames.get(first[0]).name, "a");
    }
}
