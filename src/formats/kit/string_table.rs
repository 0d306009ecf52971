//! A table of strings, each held once and numbered in the order it was first added: how pprof's
//! `string_table`, the Firefox Profiler's `stringArray`, the page's strings and callgrind's names
//! are kept.

use rustc_hash::FxHashMap;

/// Strings numbered by their place in a list, each once.
#[derive(Default)]
pub(crate) struct StringTable {
    numbers: FxHashMap<Box<str>, usize>,
    texts: Vec<String>,
}

impl StringTable {
    /// A table that holds `texts` at their places; a string listed twice is found at its first.
    pub(crate) fn of(texts: Vec<String>) -> StringTable {
        let mut numbers = FxHashMap::default();
        for (number, text) in texts.iter().enumerate() {
            numbers.entry(text.as_str().into()).or_insert(number);
        }
        StringTable { numbers, texts }
    }

    /// The number of `text`, added at the end where it is new.
    pub(crate) fn number(&mut self, text: &str) -> usize {
        if let Some(&number) = self.numbers.get(text) {
            return number;
        }
        self.texts.push(text.to_string());
        self.numbers.insert(text.into(), self.texts.len() - 1);
        self.texts.len() - 1
    }

    /// The string numbered `number`, if the table has one.
    pub(crate) fn get(&self, number: usize) -> Option<&str> {
        self.texts.get(number).map(String::as_str)
    }

    /// The strings, in the order of their numbers.
    pub(crate) fn texts(&self) -> &[String] {
        &self.texts
    }

    /// The strings, in the order of their numbers.
    pub(crate) fn into_texts(self) -> Vec<String> {
        self.texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_keeps_its_first_number() {
        let mut table = StringTable::of(vec![String::new(), "a".into(), "a".into()]);
        assert_eq!((table.number("a"), table.number(""), table.number("b"), table.number("b")), (1, 0, 3, 3));
        assert_eq!((table.get(2), table.get(3), table.get(4)), (Some("a"), Some("b"), None));
        assert_eq!(table.into_texts(), ["", "a", "a", "b"]);
    }
}
