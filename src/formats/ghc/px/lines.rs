//! The grammar of single `-px` lines other than the cost line, after the Parsec parser of
//! docs/sources.md (`ParseProfile.hs`: `costCenterStack`, `costCenter`, `natural`) in nom, with the notes' amendments
//! (`formats.md` §1.6): a cost centre's strings are split from the right, as a label may hold `"`
//! and spaces, which a parser that reads a string up to its first `"` cannot take. The headers are
//! whole quoted lines, read from both ends for the same reason.

use crate::formats::ghc::looks_like_module;
use crate::text;
use nom::bytes::complete::take_till1;
use nom::character::complete::{char, satisfy, space0, space1};
use nom::combinator::{all_consuming, consumed, eof, map_res, recognize, verify};
use nom::error::{Error, ErrorKind};
use nom::sequence::preceded;
use nom::{IResult, Parser};
use std::time::Duration;

pub(super) fn quoted_bytes(line: &[u8]) -> bool {
    line.len() >= 2 && line[0] == b'"' && line[line.len() - 1] == b'"'
}

/// The text inside `"…"`, if `line` is exactly that.
pub(super) fn quoted(line: &str) -> Option<&str> {
    line.strip_prefix('"')?.strip_suffix('"')
}

/// `N ms` as a duration.
pub(super) fn parse_interval_header(text: &str) -> Option<Duration> {
    let ms: u64 = text.strip_suffix(" ms")?.trim().parse().ok()?;
    Some(Duration::from_millis(ms))
}

/// `ParseProfile.hs`'s `natural`: digits (leading zeros allowed), here at most 20 and within a u64.
// One pass over the digits, eight at a time (`text::leading_digits`): most of a file is numbers.
#[inline(always)]
fn natural(input: &[u8]) -> IResult<&[u8], u64> {
    match text::leading_digits(input) {
        Some((value, digits)) if (1..=20).contains(&digits) => Ok((&input[digits..], value)),
        _ => Err(nom::Err::Error(Error::new(input, ErrorKind::Digit))),
    }
}

/// A number as GHC writes one: no leading zero, at most 19 digits, so that the number gives back its
/// text (see `ManyTokens`).
#[inline(always)]
fn plain(input: &[u8]) -> IResult<&[u8], u64> {
    verify(consumed(natural), |(text, _): &(&[u8], u64)| text.len() <= 19 && (text.len() == 1 || text[0] != b'0'))
        .map(|(_, value)| value)
        .parse(input)
}

/// A stack line as GHC writes it, of [`plain`] numbers with a space after the `2`: the reader
/// thread's fast path (a stack line it does not take is read again by [`stack_line`]).
#[inline(always)]
pub(super) fn plain_stack_line(line: &[u8]) -> Option<(u64, u64, u64)> {
    stack_fields(line, |i| recognize((char(' '), space0)).parse(i), plain)
}

/// `ParseProfile.hs`'s `costCenterStack`: `2 id 1 cc` (a root; its parent is [`NO_PARENT`])
/// or `2 id 2 cc parent`. Fields are separated by runs of spaces and tabs (its `space` is one
/// whitespace character; the others are made spaces before this parser sees them), and the line
/// may end with some.
pub(super) fn stack_line(line: &[u8]) -> Option<(u64, u64, u64)> {
    stack_fields(line, space1, natural)
}

/// [`stack_line`] with the separator after the `2` and the numbers read by the parsers given
/// (generic, not function pointers: the fast path's parsers are inlined into it).
#[inline(always)]
fn stack_fields<'a>(
    line: &'a [u8],
    first_separator: impl Fn(&'a [u8]) -> IResult<&'a [u8], &'a [u8]>,
    number: impl Fn(&'a [u8]) -> IResult<&'a [u8], u64> + Copy,
) -> Option<(u64, u64, u64)> {
    let (rest, (_, _, id, _, flag, _, cc)) =
        (char('2'), first_separator, number, space1, number, space1, number).parse(line).ok()?;
    let (rest, parent) = match flag {
        1 => (rest, NO_PARENT),
        2 => preceded(space1, verify(number, |&parent| parent != NO_PARENT)).parse(rest).ok()?,
        _ => return None,
    };
    let end: IResult<&[u8], _> = (space0, eof).parse(rest);
    end.ok()?;
    Some((id, cc, parent))
}

/// Decimal digits as a number (no sign, no spaces), or `None`.
pub(super) fn parse_u64(digits: &[u8]) -> Option<u64> {
    all_consuming(natural).parse(digits).ok().map(|(_, value)| value)
}

/// Splits a cost centre line (`ParseProfile.hs`'s `costCenter`): id, label, module, and the third string if
/// there is one. The module is the last quoted string (a module cannot hold `"` or a space); the
/// label is everything between the first `"` and the `"` before the module's, so it may hold
/// spaces and quotes. Fields are separated by one whitespace character (a space as GHC wrote them,
/// or any other, as `ParseProfile.hs` reads them); the id is what `str::parse` takes.
pub(super) fn parse_cost_centre(line: &str) -> Option<(u64, &str, &str, Option<&str>)> {
    let space = || satisfy(char::is_whitespace);
    let id = map_res(take_till1(char::is_whitespace), str::parse::<u64>);
    let parsed: IResult<&str, _> = (char('1'), space(), id, space()).parse(line);
    let (strings, (_, _, id, _)) = parsed.ok()?;
    let inner = quoted(strings)?;
    let (label, last) = rsplit_strings(inner)?;
    if last.contains('"') {
        return None;
    }
    // A third string: the part before it ends with `" "Module"`, a module name.
    if let Some((label3, module)) = rsplit_strings(label) {
        if looks_like_module(module) {
            return Some((id, label3, module, Some(last)));
        }
    }
    Some((id, label, last, None))
}

/// Splits `a" "b` at its last `"`, whitespace character, `"`: into `a` and `b`.
fn rsplit_strings(inner: &str) -> Option<(&str, &str)> {
    let mut end = inner.len();
    while let Some(quote) = inner[..end].rfind('"') {
        let mut after = inner[quote + 1..].chars();
        if let (Some(space), Some('"')) = (after.next(), after.next()) {
            if space.is_whitespace() {
                return Some((&inner[..quote], after.as_str()));
            }
        }
        end = quote;
    }
    None
}

/// The parent of a root stack.
pub(super) const NO_PARENT: u64 = u64::MAX;
