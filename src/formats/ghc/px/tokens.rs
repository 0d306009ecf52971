//! What the reader thread makes of a line: its numbers, parsed before the consuming thread needs them.

use super::lines::{plain_stack_line, NO_PARENT};
use crate::error::Position;
use crate::text::Line;

/// What the reader thread makes of a line (or piece of the cost line) for the consuming thread:
/// the numbers, so that the consumer only does what needs the whole file's state.
/// Small, as there is one per line: a file is mostly stack lines.
pub(super) enum Prepared {
    /// A well-formed stack line: `2 id 1 cc` (a root; `parent` is [`NO_PARENT`]) or `2 id 2 cc parent`.
    Stack { id: u64, cc: u64, parent: u64 },
    /// Any other line without a quote: the cost line, a piece of it, or damage.
    Tokens(Box<ManyTokens>),
    /// Anything else (headers, cost centre lines, damage): the consumer reads the text.
    Text,
}

impl Prepared {
    /// The tokens of a stack line again, for a cost section that spans lines.
    pub(super) fn stack_tokens(id: u64, cc: u64, parent: u64) -> ([u64; 5], usize) {
        match parent {
            NO_PARENT => ([2, id, 1, cc, 0], 4),
            _ => ([2, id, 2, cc, parent], 5),
        }
    }
}

/// The tokens of a long line: plain numbers (no sign, no leading zero, at most 19 digits, so that
/// the number gives back the text), and where the others are, which are read from the text.
pub(super) struct ManyTokens {
    pub(super) numbers: Vec<u64>,
    /// The other tokens in order: their index among the tokens (where `numbers` holds 0), start and end.
    pub(super) odd: Vec<OddToken>,
}

pub(super) struct OddToken {
    pub(super) index: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// What the reader thread makes of `text`: see [`Prepared`].
// Inlined into the loop that collects what it returns, so that the value is written where it is
// kept: returned from a call, its fields were stored one by one and copied on in wide loads, which
// stalled (perf put 38% of the collecting loop on one).
#[inline(always)]
pub(super) fn prepare(text: &str) -> Prepared {
    let bytes = text.as_bytes();
    match plain_stack_line(bytes) {
        Some((id, cc, parent)) => Prepared::Stack { id, cc, parent },
        None => prepare_tokens(bytes),
    }
}

/// A line that is not a stack line: the cost line (or a piece of it) unless it holds a quote.
#[inline(never)]
pub(super) fn prepare_tokens(bytes: &[u8]) -> Prepared {
    if memchr::memchr(b'"', bytes).is_some() {
        return Prepared::Text;
    }
    // A cost line is 5 numbers of at least 2 bytes each, per record.
    let mut numbers = Vec::with_capacity(bytes.len() / 2);
    let mut odd = Vec::new();
    for (index, (start, number)) in (NumberTokens { bytes, pos: 0 }).enumerate() {
        if number.is_none() {
            let end = bytes[start..].iter().position(|&b| is_space(b)).map_or(bytes.len(), |i| start + i);
            odd.push(OddToken { index, start, end });
        }
        numbers.push(number.unwrap_or(0));
    }
    Prepared::Tokens(Box::new(ManyTokens { numbers, odd }))
}

pub(super) fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The space- or tab-separated tokens of a line as start offsets and plain numbers (`None` for
/// another token): one pass over the bytes, as most of a file is numbers.
///
/// The one part of the `-px` grammar not written with nom (the lines' is, in `lines`): the same
/// tokens as nom combinators (`plain` then a space or the end, else any token, then the spaces)
/// cost 22 % more instructions on a generated 10 MB file (callgrind, 700 M against 575 M) and
/// about as much time on the 100 MB bench file (`bench/run.sh ghc-px`), where the project allows
/// 10 %.
pub(super) struct NumberTokens<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl Iterator for NumberTokens<'_> {
    type Item = (usize, Option<u64>);

    // Inlined into its two loops, which then keep its state in registers.
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, Option<u64>)> {
        let (bytes, n) = (self.bytes, self.bytes.len());
        let mut i = self.pos;
        while i < n && is_space(bytes[i]) {
            i += 1;
        }
        if i == n {
            self.pos = n;
            return None;
        }
        let start = i;
        // The commonest token (a cost record's flag, entries and ticks): one digit, then a space.
        let first = bytes[i].wrapping_sub(b'0');
        if first <= 9 && bytes.get(i + 1).is_some_and(|&b| is_space(b)) {
            self.pos = i + 2;
            return Some((start, Some(u64::from(first))));
        }
        let (digits, mut value) = match bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            Some(eight) => crate::text::digits8(eight),
            None => (0, 0),
        };
        // The usual token: a short number without a leading zero, then a space or tab (skipped too).
        if (1..8).contains(&digits) && is_space(bytes[i + digits]) && (digits == 1 || bytes[i] != b'0') {
            self.pos = i + digits + 1;
            return Some((start, Some(value)));
        }
        i += digits;
        if digits == 0 || digits == 8 {
            // Near the end of the line, or a long number: a byte at a time.
            while i < n {
                let digit = bytes[i].wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                // Wrapping: past 19 digits the token is not plain anyway.
                value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
                i += 1;
            }
        }
        let digits = i - start;
        let plain =
            (1..=19).contains(&digits) && (digits == 1 || bytes[start] != b'0') && (i == n || is_space(bytes[i]));
        if !plain {
            while i < n && !is_space(bytes[i]) {
                i += 1;
            }
        }
        self.pos = i;
        Some((start, plain.then_some(value)))
    }
}

/// The position of the `k`-th token of `line` (for errors: it reads the line again).
pub(super) fn token_position(line: &Line<'_>, k: usize) -> Position {
    let offset = tokens(line.text).nth(k).map_or(line.text.len(), |(offset, _)| offset);
    line.position_at(offset)
}

/// The whitespace-separated tokens of `text`, with their byte offsets.
pub(super) fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, pos: 0 }
}

/// Iterator over the space- or tab-separated tokens of a line, with their byte offsets: a byte loop,
/// because the cost line alone can be most of a file.
pub(super) struct Tokens<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && is_space(bytes[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < bytes.len() && !is_space(bytes[self.pos]) {
            self.pos += 1;
        }
        // Spaces and tabs are ASCII, so both ends are character boundaries.
        Some((start, &self.text[start..self.pos]))
    }
}
