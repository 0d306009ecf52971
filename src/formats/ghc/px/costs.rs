//! The cost line: `5 total-ticks (1 stack entries ticks alloc)* 0`, read across lines and pieces.

use super::lines::parse_u64;
use super::tokens::{token_position, tokens, OddToken, Prepared};
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{excerpt, ParseError, ParseErrorKind, Position};
use crate::formats::ghc::MAX_COUNT;
use crate::text::Line;

/// The cost section: tokens across lines until the final `0`.
#[derive(Default)]
pub(super) struct CostSection {
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

/// What the cost section gives the costs it reads to: the stacks they belong to. The cost section
/// reads and checks the tokens; the store says which stack a record is for, whether the model can
/// hold its fields, and keeps them. (The cost section knows the store only by this trait, so that
/// it and the stacks do not import each other.)
pub(super) trait CostStore {
    /// Keeps the total ticks the cost line starts with.
    fn set_total_ticks(&mut self, ticks: u64);

    /// The most words of allocation whose bytes the model holds.
    fn max_words(&self) -> u64;

    /// Whether field `field` of a record (2 entries, 3 ticks, 4 alloc in words) can hold `value`.
    fn check_field(&self, field: usize, value: u64) -> Result<(), ParseErrorKind>;

    /// The index of stack `id`, which is about to get its cost record.
    fn stack_for_costs(&self, id: u64) -> Result<usize, ParseErrorKind>;

    /// Stores the costs (entries, ticks, alloc in words) of the stack at index `i`.
    fn set_costs(&mut self, i: usize, values: [u64; 3]);

    /// Stores the costs of stack `id`, or says why not. Whether the model can hold them is checked
    /// by the caller ([`Self::check_field`]).
    fn record(&mut self, id: u64, values: [u64; 3]) -> Result<(), ParseErrorKind> {
        let i = self.stack_for_costs(id)?;
        self.set_costs(i, values);
        Ok(())
    }

    /// The first field of the records `1 id entries ticks alloc` at the start of `numbers` that
    /// the model cannot hold, as an error kind with its token's index in `numbers`.
    #[cold]
    fn out_of_range(&self, numbers: &[u64]) -> Option<(usize, ParseErrorKind)> {
        numbers
            .chunks_exact(5)
            .enumerate()
            .find_map(|(r, record)| (2..5).find_map(|f| self.check_field(f, record[f]).err().map(|e| (r * 5 + f, e))))
    }
}

/// A token of the cost section: a plain number (see [`ManyTokens`](super::tokens::ManyTokens)), or text.
#[derive(Clone, Copy)]
pub(super) enum Token<'a> {
    Number(u64),
    Text(&'a str),
}

impl CostSection {
    /// Reads the tokens of `line` after the first `skip` of them.
    pub(super) fn feed<S: CostStore>(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        skip: usize,
        store: &mut S,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        match prepared {
            &Prepared::Stack { id, cc, parent } => {
                let (numbers, n) = Prepared::stack_tokens(id, cc, parent);
                self.feed_numbers(line, &numbers[..n], &[], skip, store, diag)
            }
            Prepared::Tokens(many) => self.feed_numbers(line, &many.numbers, &many.odd, skip, store, diag),
            Prepared::Text => {
                for (offset, token) in tokens(line.text).skip(skip) {
                    let at = || line.position_at(offset);
                    if !self.token(Token::Text(token), at, store, diag)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// [`Self::feed`] from the numbers the reader thread parsed: whole records at a time between
    /// the odd tokens, which are read from the text.
    fn feed_numbers<S: CostStore>(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        odd: &[OddToken],
        skip: usize,
        store: &mut S,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let mut odd = odd.iter().skip_while(|t| t.index < skip).peekable();
        let mut k = skip;
        while k < numbers.len() {
            let next_odd = odd.peek().map_or(numbers.len(), |t| t.index);
            if k < next_odd {
                k = self.records(line, &numbers[k..next_odd], k, store)?;
                if k == next_odd {
                    continue;
                }
            }
            let token = match odd.next_if(|t| t.index == k) {
                Some(t) => Token::Text(&line.text[t.start..t.end]),
                None => Token::Number(numbers[k]),
            };
            if !self.token(token, || token_position(line, k), store, diag)? {
                break;
            }
            k += 1;
        }
        Ok(())
    }

    /// Reads the whole records at the start of `numbers` (tokens from the `first` of `line`) if a
    /// record is due; returns the index of the first token left.
    fn records<S: CostStore>(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        first: usize,
        store: &mut S,
    ) -> Result<usize, ParseError> {
        if self.done || !self.have_total || self.filled != 0 {
            return Ok(first);
        }
        let mut k = 0;
        // Whether a count is too large for the model is checked once for all the records here
        // (their bits ORed together), and record by record only when one may be.
        let (mut counts, mut words) = (0u64, 0u64);
        let range_error = |store: &S, k: usize| {
            store.out_of_range(&numbers[..k]).map(|(at, kind)| ParseError {
                format: FORMAT,
                position: token_position(line, first + at),
                kind,
            })
        };
        while let Some(&[1, id, entries, ticks, alloc]) = numbers.get(k..k + 5) {
            if let Err(kind) = store.record(id, [entries, ticks, alloc]) {
                let stack_error = ParseError { format: FORMAT, position: token_position(line, first + k + 1), kind };
                return Err(range_error(store, k).unwrap_or(stack_error));
            }
            counts |= entries | ticks;
            words |= alloc;
            k += 5;
        }
        if counts > MAX_COUNT || words > store.max_words() {
            if let Some(e) = range_error(store, k) {
                return Err(e);
            }
        }
        Ok(first + k)
    }

    /// Reads one token; false after the final `0` (the rest of the line is ignored).
    fn token<S: CostStore>(
        &mut self,
        token: Token<'_>,
        at: impl Fn() -> Position,
        store: &mut S,
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
            store.set_total_ticks(number("the total ticks after 5")?);
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
        store.check_field(self.filled, self.record[self.filled]).map_err(|kind| ParseError {
            format: FORMAT,
            position: at(),
            kind,
        })?;
        if self.filled == 1 {
            let stack = store.stack_for_costs(self.record[1]);
            self.stack = Some(stack.map_err(|kind| ParseError { format: FORMAT, position: at(), kind })?);
        }
        self.filled += 1;
        if self.filled == 5 {
            self.filled = 0;
            let [_, _, entries, ticks, alloc] = self.record;
            if let Some(i) = self.stack.take() {
                store.set_costs(i, [entries, ticks, alloc]);
            }
        }
        Ok(true)
    }
}
