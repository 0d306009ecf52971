//! The cost line: `5 total-ticks (1 stack entries ticks alloc)* 0`, read across lines and pieces.

use super::lines::parse_u64;
use super::stacks::PxReader;
use super::tokens::{token_position, tokens, OddToken, Prepared};
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{excerpt, ParseError, ParseErrorKind, Position};
use crate::formats::ghc::MAX_COUNT;
use crate::text::Line;

/// The cost section: tokens across lines until the final `0`.
#[derive(Default)]
pub(super) struct CostSection {
    pub(super) started: bool,
    pub(super) done: bool,
    /// Whether the total ticks were read.
    pub(super) have_total: bool,
    /// The fields of the record being read (`1 stack entries ticks alloc`), and how many are in.
    pub(super) record: [u64; 5],
    pub(super) filled: usize,
    /// The index of the stack whose record is being read.
    pub(super) stack: Option<usize>,
    /// Whether text after the final `0` was reported.
    pub(super) trailing_reported: bool,
}

/// A token of the cost section: a plain number (see [`ManyTokens`]), or text.
#[derive(Clone, Copy)]
pub(super) enum Token<'a> {
    Number(u64),
    Text(&'a str),
}

impl CostSection {
    /// Reads the tokens of `line` after the first `skip` of them.
    pub(super) fn feed(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        skip: usize,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        match prepared {
            &Prepared::Stack { id, cc, parent } => {
                let (numbers, n) = Prepared::stack_tokens(id, cc, parent);
                self.feed_numbers(line, &numbers[..n], &[], skip, reader, diag)
            }
            Prepared::Tokens(many) => self.feed_numbers(line, &many.numbers, &many.odd, skip, reader, diag),
            Prepared::Text => {
                for (offset, token) in tokens(line.text).skip(skip) {
                    let at = || line.position_at(offset);
                    if !self.token(Token::Text(token), at, reader, diag)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// [`Self::feed`] from the numbers the reader thread parsed: whole records at a time between
    /// the odd tokens, which are read from the text.
    pub(super) fn feed_numbers(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        odd: &[OddToken],
        skip: usize,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let mut odd = odd.iter().skip_while(|t| t.index < skip).peekable();
        let mut k = skip;
        while k < numbers.len() {
            let next_odd = odd.peek().map_or(numbers.len(), |t| t.index);
            if k < next_odd {
                k = self.records(line, &numbers[k..next_odd], k, reader)?;
                if k == next_odd {
                    continue;
                }
            }
            let token = match odd.next_if(|t| t.index == k) {
                Some(t) => Token::Text(&line.text[t.start..t.end]),
                None => Token::Number(numbers[k]),
            };
            if !self.token(token, || token_position(line, k), reader, diag)? {
                break;
            }
            k += 1;
        }
        Ok(())
    }

    /// Reads the whole records at the start of `numbers` (tokens from the `first` of `line`) if a
    /// record is due; returns the index of the first token left.
    pub(super) fn records(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        first: usize,
        reader: &mut PxReader,
    ) -> Result<usize, ParseError> {
        if self.done || !self.have_total || self.filled != 0 {
            return Ok(first);
        }
        let mut k = 0;
        // Whether a count is too large for the model is checked once for all the records here
        // (their bits ORed together), and record by record only when one may be.
        let (mut counts, mut words) = (0u64, 0u64);
        let range_error = |reader: &PxReader, k: usize| {
            reader.out_of_range(&numbers[..k]).map(|(at, kind)| ParseError {
                format: FORMAT,
                position: token_position(line, first + at),
                kind,
            })
        };
        while let Some(&[1, id, entries, ticks, alloc]) = numbers.get(k..k + 5) {
            if let Err(kind) = reader.record(id, [entries, ticks, alloc]) {
                let stack_error = ParseError { format: FORMAT, position: token_position(line, first + k + 1), kind };
                return Err(range_error(reader, k).unwrap_or(stack_error));
            }
            counts |= entries | ticks;
            words |= alloc;
            k += 5;
        }
        if counts > MAX_COUNT || words > reader.max_words {
            if let Some(e) = range_error(reader, k) {
                return Err(e);
            }
        }
        Ok(first + k)
    }

    /// Reads one token; false after the final `0` (the rest of the line is ignored).
    pub(super) fn token(
        &mut self,
        token: Token<'_>,
        at: impl Fn() -> Position,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<bool, ParseError> {
        if self.done {
            if !self.trailing_reported {
                self.trailing_reported = true;
                diag.warn("trailing-text", Some(at()), || "text after the cost line's final 0 is ignored".into());
            }
            return Ok(false);
        }
        let number = |what: &'static str| match token {
            Token::Number(value) => Ok(value),
            Token::Text(text) => parse_u64(text.as_bytes()).ok_or_else(|| ParseError {
                format: FORMAT,
                position: at(),
                kind: ParseErrorKind::InvalidNumber { field: what, text: text.to_string() },
            }),
        };
        if !self.have_total {
            reader.total_ticks = number("the total ticks after 5")?;
            self.have_total = true;
            return Ok(true);
        }
        if self.filled == 0 {
            match token {
                Token::Number(1) | Token::Text("1") => self.filled = 1,
                Token::Number(0) | Token::Text("0") => self.done = true,
                _ => {
                    let found = match token {
                        Token::Number(value) => excerpt(value.to_string().as_bytes()),
                        Token::Text(text) => excerpt(text.as_bytes()),
                    };
                    return Err(ParseError {
                        format: FORMAT,
                        position: at(),
                        kind: ParseErrorKind::Unexpected {
                            expected: "1 (a stack's costs) or the terminating 0".into(),
                            found,
                        },
                    });
                }
            }
            return Ok(true);
        }
        const FIELDS: [&str; 5] = ["", "a stack id", "entries", "ticks", "alloc"];
        self.record[self.filled] = number(FIELDS[self.filled])?;
        reader.check_field(self.filled, self.record[self.filled]).map_err(|kind| ParseError {
            format: FORMAT,
            position: at(),
            kind,
        })?;
        if self.filled == 1 {
            let stack = reader.stack_for_costs(self.record[1]);
            self.stack = Some(stack.map_err(|kind| ParseError { format: FORMAT, position: at(), kind })?);
        }
        self.filled += 1;
        if self.filled == 5 {
            self.filled = 0;
            let [_, _, entries, ticks, alloc] = self.record;
            if let Some(i) = self.stack.take() {
                reader.set_costs(i, [entries, ticks, alloc]);
            }
        }
        Ok(true)
    }
}
