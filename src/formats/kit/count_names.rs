//! Names in lines that end in a count (folded stacks, and the lines a flame graph is drawn from),
//! where a name that ends in a number would read as a second count.

use std::borrow::Cow;

/// `name`, made safe from inferno's and flamegraph.pl's reading of `stack 12 34` as a differential
/// line (two counts): where it ends in a space and a number (`Listener 1`), that space becomes a
/// no-break space, which looks the same in a flame graph. Every frame of that name gets it, not only
/// a leaf (where the misreading happens), so that a frame keeps one name on every line.
pub(crate) fn one_count_name(name: &str) -> Cow<'_, str> {
    match name.rsplit_once(' ') {
        Some((head, tail)) if looks_like_a_count(tail) => format!("{head}\u{a0}{tail}").into(),
        _ => name.into(),
    }
}

/// What inferno takes for a count: digits, with a fraction or not.
fn looks_like_a_count(text: &str) -> bool {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    !text.is_empty() && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
}

/// The name [`one_count_name`] was written from: a no-break space before a number that ends a name
/// was a space (proftool writes it so; a name of another writer with one there is taken the same).
pub(crate) fn spaced_count_name(name: &str) -> Cow<'_, str> {
    match name.rsplit_once('\u{a0}') {
        Some((head, tail)) if looks_like_a_count(tail) => format!("{head} {tail}").into(),
        _ => name.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_ends_in_a_number_is_not_a_second_count() {
        assert_eq!(one_count_name("Listener 1"), "Listener\u{a0}1");
        assert_eq!(one_count_name("x 2.5"), "x\u{a0}2.5");
        assert_eq!(one_count_name("Listener 1a"), "Listener 1a");
        assert_eq!(one_count_name("leaf"), "leaf");
        for name in ["Listener 1", "x 2.5", "Listener 1a", "a\u{a0}b", "leaf"] {
            assert_eq!(spaced_count_name(&one_count_name(name)), name);
        }
    }
}
