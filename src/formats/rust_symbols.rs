//! Rust symbols that a tool printed half demangled: the legacy mangling's escapes left in and the
//! hash kept (`std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h7cd9ec399e9db3f7`, as DTrace,
//! macOS `sample` and Instruments print them). Tidied as inferno's collapsers tidy them, so that the
//! readers of those tools' output give inferno's stacks: the trailing `::h` and 16 hex digits cut,
//! `..` read as `::`, and the escapes `$LT$`, `$u20$`… read as the characters they stand for.

use std::borrow::Cow;

/// The hash's length: `h` and 16 hex digits.
const HASH_LEN: usize = 17;

/// The escapes of the legacy mangling and the characters they stand for.
const ESCAPES: [(&str, &str); 20] = [
    ("$SP$", "@"),
    ("$BP$", "*"),
    ("$RF$", "&"),
    ("$LT$", "<"),
    ("$GT$", ">"),
    ("$LP$", "("),
    ("$RP$", ")"),
    ("$C$", ","),
    ("$u7e$", "~"),
    ("$u20$", " "),
    ("$u27$", "'"),
    ("$u3d$", "="),
    ("$u5b$", "["),
    ("$u5d$", "]"),
    ("$u7b$", "{"),
    ("$u7d$", "}"),
    ("$u3b$", ";"),
    ("$u2b$", "+"),
    ("$u21$", "!"),
    ("$u22$", "\""),
];

/// `symbol` tidied where it ends in a Rust hash (see the module documentation); any other symbol,
/// a fully mangled one (`_ZN…E`) included, as it is.
pub(crate) fn tidy(symbol: &str) -> Cow<'_, str> {
    let Some(hash) = symbol.len().checked_sub(HASH_LEN).and_then(|at| symbol.get(at..)) else {
        return Cow::Borrowed(symbol);
    };
    if !hash.starts_with('h') || !hash[1..].bytes().all(|b| b.is_ascii_hexdigit()) {
        return Cow::Borrowed(symbol);
    }
    let mut rest = &symbol[..symbol.len() - HASH_LEN];
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = &rest[1..];
    }
    let mut tidied = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("..") {
            tidied.push_str("::");
            rest = after;
        } else if let Some(after) = rest.strip_prefix('.') {
            tidied.push('.');
            rest = after;
        } else if rest.starts_with('$') {
            match ESCAPES.iter().find(|(escape, _)| rest.starts_with(escape)) {
                Some((escape, character)) => {
                    tidied.push_str(character);
                    rest = &rest[escape.len()..];
                }
                // An escape it does not know: the rest as it is, as inferno leaves it.
                None => {
                    tidied.push_str(rest);
                    break;
                }
            }
        } else {
            let plain = rest.find(['$', '.']).unwrap_or(rest.len());
            tidied.push_str(&rest[..plain]);
            rest = &rest[plain..];
        }
    }
    Cow::Owned(tidied)
}

/// A frame written after its module and a backtick, ``module`symbol`` (as DTrace prints a frame and
/// inferno names one of macOS `sample`), with its symbol, without its trailing space, tidied; a
/// frame without a backtick, or whose symbol is not tidied, as it is.
pub(crate) fn tidy_after_module(frame: &str) -> Cow<'_, str> {
    let Some((module, symbol)) = frame.split_once('`') else {
        return Cow::Borrowed(frame);
    };
    match tidy(symbol.trim_end()) {
        Cow::Owned(symbol) => Cow::Owned(format!("{module}`{symbol}")),
        Cow::Borrowed(_) => Cow::Borrowed(frame),
    }
}

#[cfg(test)]
mod tests {
    use super::{tidy, tidy_after_module};

    /// Symbols from inferno's tests of the same tidying, with what its collapsers print for them.
    #[test]
    fn half_demangled_symbols_lose_their_hash_and_escapes() {
        let cases = [
            ("std::sys::unix::fs::File::open::hb90e1c1c787080f0", "std::sys::unix::fs::File::open"),
            (
                "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::next::hc14f1750ca79129b",
                "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next",
            ),
            (
                "rg::search_parallel::_$u7b$$u7b$closure$u7d$$u7d$::_$u7b$$u7b$closure$u7d$$u7d$::h6e849b55a66fcd85",
                "rg::search_parallel::_{{closure}}::_{{closure}}",
            ),
            (
                "_$LT$$RF$std..fs..File$u20$as$u20$std..io..Read$GT$::read::h5d84059cf335c8e6",
                "<&std::fs::File as std::io::Read>::read",
            ),
        ];
        for (symbol, tidied) in cases {
            assert_eq!(tidy(symbol), tidied);
        }
    }

    #[test]
    fn other_symbols_stay_as_they_are() {
        for symbol in ["_ZN3std2rt19lang_start_internal17h540c897fe52ba9c5E", "main", "é"] {
            assert_eq!(tidy(symbol), symbol);
        }
        // Sixteen hex digits after an `h`, but a multi-byte character where the hash would start.
        assert_eq!(tidy("éh0123456789abcde"), "éh0123456789abcde");
    }

    #[test]
    fn a_frame_after_its_module_has_its_symbol_tidied() {
        assert_eq!(tidy_after_module("rg`rg::main::h6909bd3a32e27a08"), "rg`rg::main");
        assert_eq!(tidy_after_module("rg`rg::main::h6909bd3a32e27a08  "), "rg`rg::main");
        assert_eq!(tidy_after_module("a`b`c::h6909bd3a32e27a08"), "a`b`c");
        // No backtick, no module: not tidied, as inferno leaves a symbol of no module.
        assert_eq!(tidy_after_module("rg::main::h6909bd3a32e27a08"), "rg::main::h6909bd3a32e27a08");
        assert_eq!(tidy_after_module("libc.so.1`_lwp_park  "), "libc.so.1`_lwp_park  ");
    }
}
