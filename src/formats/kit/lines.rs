//! Text formats of stacks as grammars of lines: a format states what a line is ([`StackLines`])
//! and [`read`] runs it over the input's lines into a [`StackSink`]; and stacks written as a tree of
//! indented lines, a line per frame ([`Indented`]), which several profilers print.

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

/// Stacks written as indented lines, a frame a line, each line one level deeper than the line it
/// is below (a call tree, or an inverted one): a line with no line one level deeper right after it
/// ends a stack, the frames of the lines it is below and its own, which weighs that line's weight.
/// Each level is kept as an `L`, the frame and what else a reader knows of it.
pub(crate) struct Indented<L> {
    /// The levels of the last line, outermost first.
    levels: Vec<L>,
    /// The last line's weight.
    weight: i64,
}

impl<L> Default for Indented<L> {
    fn default() -> Self {
        Indented { levels: Vec::new(), weight: 0 }
    }
}

impl<L> Indented<L> {
    /// Whether a line may be at `depth` (0 the outermost): no deeper than one below the last line,
    /// whose depth (-1 for none) is the error where it is deeper.
    pub(crate) fn check_depth(&self, depth: usize) -> Result<(), i64> {
        match depth > self.levels.len() {
            true => Err(self.levels.len() as i64 - 1),
            false => Ok(()),
        }
    }

    /// Starts a line at `depth`: the last line ends its stack (given to `ended` with its weight)
    /// unless this one is below it. The levels this line is below.
    pub(crate) fn start(&mut self, depth: usize, ended: impl FnOnce(&[L], i64)) -> &[L] {
        if depth < self.levels.len() {
            ended(&self.levels, self.weight);
        }
        self.levels.truncate(depth);
        &self.levels
    }

    /// The line started, of `level` and `weight`.
    pub(crate) fn push(&mut self, level: L, weight: i64) {
        self.levels.push(level);
        self.weight = weight;
    }

    /// Ends the tree: the last line ends its stack (given to `ended`), if there is one.
    pub(crate) fn end(&mut self, ended: impl FnOnce(&[L], i64)) {
        if !self.levels.is_empty() {
            ended(&self.levels, self.weight);
        }
        self.levels.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a, a b (ends a;b 2), a c (ends a;c 3), d (ends d 4), and no line skips a level.
    #[test]
    fn each_line_with_none_below_it_ends_a_stack() {
        let mut tree = Indented::default();
        let mut stacks = Vec::new();
        for (depth, name, weight) in [(0, "a", 1), (1, "b", 2), (1, "c", 3), (0, "d", 4)] {
            assert_eq!(tree.check_depth(depth), Ok(()));
            tree.start(depth, |levels: &[&str], weight| stacks.push((levels.join(";"), weight)));
            tree.push(name, weight);
        }
        assert_eq!(tree.check_depth(2), Err(0));
        tree.end(|levels, weight| stacks.push((levels.join(";"), weight)));
        assert_eq!(stacks, [("a;b".into(), 2), ("a;c".into(), 3), ("d".into(), 4)]);
    }
}
