//! The frames a `perf script` symbol names, tidied as `inferno-collapse-perf` tidies them (see the
//! module documentation of [`super`]).

use std::borrow::Cow;
use std::ops::Range;

/// The range of `symbol` (in `line`) without its `+0x..` offset: the samples of one function at
/// other instructions are one frame, looked up once.
pub(super) fn without_offset(line: &str, symbol: Range<usize>) -> Range<usize> {
    // Back over the hex digits that end the symbol, to the `+0x` before them (then the last `+` of
    // the symbol: hex digits hold none).
    let text = &line.as_bytes()[symbol.clone()];
    let digits = text.iter().rev().take_while(|b| b.is_ascii_hexdigit()).count();
    match text[..text.len() - digits].ends_with(b"+0x") {
        true => symbol.start..symbol.end - digits - 3,
        false => symbol,
    }
}

/// Whether `symbol` is a placeholder of a process name, `(java)`: wholly in parentheses, as
/// FlameGraph's `stackcollapse-perf.pl` skips it. A symbol that only starts with a parenthesis,
/// C++'s `(anonymous namespace)::checksum`, is a function (inferno skips it too, and gives its
/// time to the caller).
fn is_placeholder(symbol: &str) -> bool {
    symbol.starts_with('(') && symbol.find(')') == Some(symbol.len() - 1)
}

/// The frames a symbol (without its offset) of `dso` (empty where the file prints none) names,
/// caller first, tidied as inferno tidies them (see the module documentation); none for a
/// placeholder.
pub(super) fn frame_names<'a>(symbol: &'a str, dso: &'a str, java: bool, annotate: bool) -> Vec<(String, &'a str)> {
    let symbol = if symbol.is_empty() { " " } else { symbol };
    if is_placeholder(symbol) {
        return Vec::new();
    }
    let annotation = if !annotate {
        ""
    } else if is_jit(dso) {
        "_[j]"
    } else if is_kernel(dso) {
        "_[k]"
    } else {
        ""
    };
    // Before the split, as inferno tidies a half-demangled Rust symbol whole.
    super::super::rust_symbols::tidy(symbol)
        .split("->")
        .enumerate()
        .map(|(i, part)| {
            let mut name = tidy(&with_dso(part, dso)).into_owned();
            if java && name.starts_with('L') && name.contains('/') {
                name.remove(0);
            }
            name.push_str(annotation);
            if i > 0 && !name.contains("_[i]") {
                name.push_str("_[i]");
            }
            (name, dso)
        })
        .collect()
}

/// Whether `dso` is the kernel's: `[kernel.kallsyms]` and the like, a module, a `vmlinux`.
fn is_kernel(dso: &str) -> bool {
    (dso.starts_with('[') && dso != "[unknown]") || dso.ends_with(".ko") || dso.ends_with("vmlinux")
}

/// Whether `dso` holds JIT code: a perf map (`/tmp/perf-PID.map`) or a `jitted-*.so` of perf inject.
fn is_jit(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map")) || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// `[unknown]` of a known DSO as `[basename]`.
fn with_dso<'a>(symbol: &'a str, dso: &str) -> Cow<'a, str> {
    if symbol != "[unknown]" || dso == "[unknown]" || dso.is_empty() {
        return Cow::Borrowed(symbol);
    }
    Cow::Owned(format!("[{}]", &dso[dso.rfind('/').map_or(0, |i| i + 1)..]))
}

/// `;` as `:`, and the argument list cut at the first `(` outside brackets that is not a Go method's
/// `.(` nor C++'s `(anonymous namespace)`.
fn tidy(name: &str) -> Cow<'_, str> {
    let mut depth = 0i32;
    let mut after_dot = false;
    let mut end = name.len();
    for (i, c) in name.char_indices() {
        match c {
            '<' | '{' | '[' => depth += 1,
            '>' | '}' | ']' | ')' => depth -= 1,
            '(' => {
                if depth == 0 && !after_dot && !name[i..].starts_with("(anonymous namespace)") {
                    end = i;
                    break;
                }
                depth += 1;
            }
            _ => {}
        }
        after_dot = c == '.';
    }
    let name = &name[..end];
    match name.contains(';') {
        true => Cow::Owned(name.replace(';', ":")),
        false => Cow::Borrowed(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotated_names_mark_the_kernel_and_jit_code() {
        let name = |s, d| frame_names(s, d, false, true).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(name("schedule", "[kernel.kallsyms]"), ["schedule_[k]"]);
        assert_eq!(name("nf_hook_slow", "/lib/modules/6.1/nf.ko"), ["nf_hook_slow_[k]"]);
        assert_eq!(name("start_kernel", "/boot/vmlinux"), ["start_kernel_[k]"]);
        assert_eq!(name("LazyCompile:*fib", "/tmp/perf-4242.map"), ["LazyCompile:*fib_[j]"]);
        assert_eq!(name("jitted_fn", "/home/u/.debug/jit/jitted-4242-7.so"), ["jitted_fn_[j]"]);
        assert_eq!(name("[unknown]", "[unknown]"), ["[unknown]"]);
        assert_eq!(name("main", "/usr/bin/app"), ["main"]);
        assert_eq!(frame_names("schedule", "[kernel.kallsyms]", false, false)[0].0, "schedule");
    }

    #[test]
    fn names_are_tidied_as_inferno_tidies_them() {
        let names = |s, d, java| frame_names(s, d, java, false).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        let line = "leaf+0x25 x+0x1+0x2 f+0xzz";
        let offsetless = |r: Range<usize>| &line[without_offset(line, r)];
        assert_eq!((offsetless(0..9), offsetless(10..19), offsetless(20..26)), ("leaf", "x+0x1", "f+0xzz"));
        assert_eq!(names("[unknown]", "/usr/lib/libc.so.6", false), ["[libc.so.6]"]);
        assert_eq!(names("[unknown]", "[unknown]", false), ["[unknown]"]);
        // A file printed without DSOs (`-F ip,sym`) has none to name it by.
        assert_eq!(names("[unknown]", "", false), ["[unknown]"]);
        assert_eq!(names("net/http.(*Client).Do", "/bin/go", false), ["net/http.(*Client).Do"]);
        assert_eq!(names("f(int, char)", "/a", false), ["f"]);
        assert_eq!(names("n::(anonymous namespace)::g(int)", "/a", false), ["n::(anonymous namespace)::g"]);
        assert_eq!(names("std::vector<f(int)>::push(x)", "/a", false), ["std::vector<f(int)>::push"]);
        assert_eq!(names("a;b", "/a", false), ["a:b"]);
        assert_eq!(names("Lorg/x/Y;.call(I)V", "/tmp/perf-1.map", true), ["org/x/Y:.call"]);
        // A Rust symbol perf left half demangled (inferno's test file collapse-perf/single-event.txt).
        let half = "gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f";
        assert_eq!(names(half, "/a", false), ["gc::gc::GcBox<T>::new::_{{closure}}"]);
        assert_eq!(names("a->b->c", "/tmp/perf-1.map", false), ["a", "b_[i]", "c_[i]"]);
        assert_eq!(names("", "/a", false), [" "]);
    }

    /// A process-name placeholder is no frame; a C++ function of an anonymous namespace is one,
    /// where inferno drops it.
    #[test]
    fn only_placeholders_in_parentheses_are_dropped() {
        let names = |s| frame_names(s, "/a", false, false).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert!(names("(prog)").is_empty());
        assert_eq!(names("(anonymous namespace)::checksum"), ["(anonymous namespace)::checksum"]);
        assert_eq!(names("(anonymous namespace)::f(int)"), ["(anonymous namespace)::f"]);
    }
}
