//! Processed profiles of versions 0 to 40, upgraded as far as what proftool reads of them: the
//! steps of the Firefox Profiler's upgraders (its `src/profile-logic/processed-profile-versioning`)
//! that change a thread's name, a function's name, file and line, or a sample's weight. Those
//! versions hold the same tables as version 41 in the same places (a thread's own, with its own
//! strings); the other steps move libraries, markers, categories and addresses, none of which is
//! read.
//!
//! - before 1, a thread without a `processType` named `Content` is the `GeckoMain` of a tab;
//! - before 4, a JS function (`isJS`) was named `name (url:line)` or `url:line`: its name is the
//!   part before ` (` (the URL where there is none), its file the URL (the last of `a -> b`), its
//!   line the number;
//! - before 17, a label frame `AutoEntryScript reason` is named `reason`;
//! - before 18, a JS function with a column had `file:line` as its file and the column as its
//!   line;
//! - before 29, a sample's weight was its `duration` (of weight type `samples`);
//! - before 37, `Java Main Thread` is `AndroidUI (JVM)`.
//!
//! Before 41 a resource may have no name (-1 or `null`, `<unnamed resource>` to the profiler):
//! such a library names no module, as the reader takes it.

use super::document::Thread;
use crate::formats::kit::string_table::StringTable;

/// Upgrades `threads` of processed profile version `version` (below 41) as described above.
pub(super) fn upgrade(threads: &mut [Thread], version: u64) {
    for thread in threads {
        thread_names(thread, version);
        if let Some(durations) = thread.samples.duration.take().filter(|_| version < 29) {
            thread.samples.weight = Some(durations);
            thread.samples.weight_type = Some("samples".into());
        }
        let Some(array) = thread.tables.string_array.as_mut() else { continue };
        let Some(funcs) = thread.tables.func_table.as_mut() else { continue };
        let mut strings = Strings(StringTable::of(std::mem::take(array)));
        // The functions the file holds (a damaged `length` allocates nothing: the reader refuses it).
        let length = funcs.length.min(funcs.name.len());
        funcs.file_name.resize(length.max(funcs.file_name.len()), None);
        funcs.line_number.resize(length.max(funcs.line_number.len()), None);
        funcs.column_number.resize(length.max(funcs.column_number.len()), None);
        for f in 0..length {
            let is_js = funcs.is_js.get(f).copied().unwrap_or(false);
            let Some(name) = strings.get(funcs.name[f]).map(str::to_owned) else { continue };
            if version < 4 && is_js {
                if let Some((name, url, line)) = js_location(&name) {
                    funcs.name[f] = strings.index(name.unwrap_or(url));
                    funcs.file_name[f] = Some(strings.index(url));
                    funcs.line_number[f] = Some(line);
                }
            }
            if let Some(reason) = name.strip_prefix("AutoEntryScript ").filter(|_| version < 17) {
                funcs.name[f] = strings.index(reason);
            }
            let file = funcs.file_name[f].and_then(|s| strings.get(s)).map(str::to_owned);
            if let Some((file, line)) = file.as_deref().and_then(file_and_line).filter(|_| version < 18 && is_js) {
                funcs.column_number[f] = funcs.line_number[f];
                funcs.file_name[f] = Some(strings.index(file));
                funcs.line_number[f] = Some(line);
            }
        }
        *array = strings.0.into_texts();
    }
}

/// A thread's name as the upgraders leave it.
fn thread_names(thread: &mut Thread, version: u64) {
    match thread.name.as_deref() {
        Some("Content") if version < 1 && thread.process_type.is_none() => thread.name = Some("GeckoMain".into()),
        Some("Java Main Thread") if version < 37 => thread.name = Some("AndroidUI (JVM)".into()),
        _ => {}
    }
}

/// A JS function's old name `name (url:line)` or `url:line` as its name (none in the second
/// form), URL (the last of `a -> b`) and line, as the profiler's patterns
/// `^(.*) \((.*):([0-9]+)\)$` and `^()(.*):([0-9]+)$` take it.
fn js_location(text: &str) -> Option<(Option<&str>, &str, u32)> {
    let (name, place) = match text.strip_suffix(')').and_then(|inner| inner.rsplit_once(" (")) {
        Some((name, place)) if file_and_line(place).is_some() => (Some(name), place),
        _ => (None, text),
    };
    let (url, line) = file_and_line(place)?;
    Some((name, url.rsplit(" -> ").next().unwrap_or(url), line))
}

/// `file:line` as its file and line, where it ends in a colon and digits.
fn file_and_line(text: &str) -> Option<(&str, u32)> {
    let (file, line) = text.rsplit_once(':')?;
    match crate::text::is_digits(line) {
        true => Some((file, line.parse().ok()?)),
        false => None,
    }
}

/// A thread's strings, to which the upgrade adds the names it makes (as the profiler's
/// `indexForString` does: an existing string keeps its index).
struct Strings(StringTable);

impl Strings {
    fn get(&self, i: u64) -> Option<&str> {
        self.0.get(usize::try_from(i).ok()?)
    }

    fn index(&mut self, text: &str) -> u64 {
        self.0.number(text) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Old JS names split as the profiler's patterns split them.
    #[test]
    fn old_js_names_split_as_the_profiler_splits_them() {
        assert_eq!(js_location("frobnicate (chrome://blargh:34)"), Some((Some("frobnicate"), "chrome://blargh", 34)));
        assert_eq!(js_location("a (b) (x.js -> http://h/y.js:7)"), Some((Some("a (b)"), "http://h/y.js", 7)));
        assert_eq!(js_location("http://h/y.js:12"), Some((None, "http://h/y.js", 12)));
        assert_eq!(js_location("Startup::XRE_Main"), None);
        assert_eq!(file_and_line("http://h:80/y.js:5"), Some(("http://h:80/y.js", 5)));
        assert_eq!(file_and_line("http://h/y.js"), None);
    }
}
