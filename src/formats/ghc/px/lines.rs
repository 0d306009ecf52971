//! The grammar of single `-px` lines other than the cost line.

use super::tokens::tokens;
use crate::formats::ghc::looks_like_module;
use crate::text;
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

/// Id, cost centre and parent (or [`NO_PARENT`]) from the numbers of a stack line.
pub(super) fn stack_fields(numbers: &[u64]) -> Option<(u64, u64, u64)> {
    match *numbers {
        [_, id, 1, cc] => Some((id, cc, NO_PARENT)),
        [_, id, 2, cc, parent] if parent != NO_PARENT => Some((id, cc, parent)),
        _ => None,
    }
}

/// [`stack_fields`] of a line that is not all plain numbers (leading zeros, say) or not separated by
/// single spaces (tabs); its first token is `2`.
pub(super) fn parse_stack_fields(text: &str) -> Option<(u64, u64, u64)> {
    let mut numbers = [0u64; 5];
    let mut n = 0;
    let mut tokens = tokens(text);
    tokens.next().filter(|&(_, first)| first == "2")?;
    numbers[0] = 2;
    n += 1;
    for (_, token) in tokens {
        *numbers.get_mut(n)? = parse_u64(token.as_bytes())?;
        n += 1;
    }
    stack_fields(&numbers[..n])
}

/// Decimal digits as a number (no sign, no spaces), or `None`.
pub(super) fn parse_u64(digits: &[u8]) -> Option<u64> {
    let (value, n) = text::leading_digits(digits).filter(|_| digits.len() <= 20)?;
    (n > 0 && n == digits.len()).then_some(value)
}

/// Splits a cost centre line: id, label, module, and the third string if there is one. The module
/// is the last quoted string (a module cannot hold `"` or a space); the label is everything between
/// the first `"` and the `"` before the module's, so it may hold spaces and quotes.
/// Fields are separated by one whitespace character (a space as GHC wrote them, or any other, as
/// the seed's parser reads them).
pub(super) fn parse_cost_centre(line: &str) -> Option<(u64, &str, &str, Option<&str>)> {
    let rest = line.strip_prefix('1')?.strip_prefix(char::is_whitespace)?;
    let (id, strings) = rest.split_once(char::is_whitespace)?;
    let id: u64 = id.parse().ok()?;
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
pub(super) fn rsplit_strings(inner: &str) -> Option<(&str, &str)> {
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

/// The parent of a root stack, in [`stack_fields`].
pub(super) const NO_PARENT: u64 = u64::MAX;
