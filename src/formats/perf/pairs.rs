//! The symbol-and-DSO pairs the reading thread has seen, with their frames. A frame line's pair is
//! looked up on every line, in a table too large for the processor's caches when a recording has
//! tens of thousands of symbols: each pair is one slot of a cache line that holds its DSO's number
//! and the first bytes of its symbol, all of a symbol of up to [`INLINE`] bytes, so that a lookup
//! reads one line of memory where it read three (the table's slot, the text, the frames). DSOs,
//! a few, have a small table of their own.

use crate::model::FrameId;
use std::ops::Range;

/// The frames a frame line names: one, or, for a perf map's inlined `a->b`, several (innermost
/// first), or none (a placeholder).
#[derive(Clone)]
pub(super) enum FrameIds {
    One(FrameId),
    Several(Box<[FrameId]>),
}

/// How many bytes of a symbol its slot holds.
const INLINE: usize = 32;

/// A pair: its hash, its symbol's length and first bytes (the rest in [`Pairs::text`] from
/// `rest`), its DSO's number, whether its command is a `java` one, and its frames: one frame, or
/// an index of [`Pairs::several`].
#[repr(align(64))]
struct Pair {
    hash: u64,
    head: [u8; INLINE],
    symbol_len: u32,
    rest: usize,
    dso: u32,
    frames: u32,
    several: bool,
    java: bool,
}

/// The pairs seen and the DSOs, each keyed by its FxHash.
#[derive(Default)]
pub(super) struct Pairs {
    table: hashbrown::HashTable<Pair>,
    /// The bytes of symbols after their first [`INLINE`].
    text: Vec<u8>,
    /// The frames of pairs that name several or none.
    several: Vec<Box<[FrameId]>>,
    dsos: Dsos,
}

/// The DSOs seen, numbered in the order they came.
#[derive(Default)]
struct Dsos {
    /// Each DSO's number, by where its text is in `text`.
    table: hashbrown::HashTable<(Range<usize>, u32)>,
    text: Vec<u8>,
    /// Where each DSO's text is, by number.
    ranges: Vec<Range<usize>>,
}

impl Dsos {
    /// The number of `dso`, given the first time it comes.
    fn number(&mut self, dso: &[u8]) -> u32 {
        let number = self.ranges.len() as u32;
        let text = &self.text;
        let entry = self.table.entry(
            hash(&[dso]),
            |(range, _)| &text[range.clone()] == dso,
            |(range, _)| hash(&[&text[range.clone()]]),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(entry) => entry.get().1,
            hashbrown::hash_table::Entry::Vacant(entry) => {
                let range = self.text.len()..self.text.len() + dso.len();
                entry.insert((range.clone(), number));
                self.ranges.push(range);
                self.text.extend_from_slice(dso);
                number
            }
        }
    }

    /// The text of DSO `number`.
    fn text(&self, number: u32) -> &[u8] {
        &self.text[self.ranges[number as usize].clone()]
    }
}

/// A frame line's pair as the reading thread finds it: where its symbol (without its offset) and
/// DSO are in the line, and their hash. The building thread, which looks the pair up, then has the
/// less to do of the two.
#[derive(Clone, Debug)]
pub(super) struct PairKey {
    symbol: Range<usize>,
    dso: Range<usize>,
    hash: u64,
}

impl PairKey {
    /// The key of the symbol and DSO at these ranges of `line`.
    pub(super) fn new(line: &str, symbol: Range<usize>, dso: Range<usize>) -> PairKey {
        let hash = hash(&[line[symbol.clone()].as_bytes(), line[dso.clone()].as_bytes()]);
        PairKey { symbol, dso, hash }
    }

    /// The symbol (without its offset) and the DSO of `line`, the line the key was made of.
    pub(super) fn parts<'a>(&self, line: &'a str) -> (&'a str, &'a str) {
        (&line[self.symbol.clone()], &line[self.dso.clone()])
    }

    /// Where the symbol starts in the line the key was made of.
    pub(super) fn symbol_start(&self) -> usize {
        self.symbol.start
    }
}

/// The FxHash of `parts`, one after the other.
fn hash(parts: &[&[u8]]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    parts.iter().for_each(|part| h.write(part));
    h.finish()
}

impl Pairs {
    /// The frames of the pair `key` finds in `line` (the line it was made of) under a command that
    /// is a `java` one or not, named by `name` (given the symbol and DSO) the first time they come;
    /// `None` for none.
    pub(super) fn frames(
        &mut self,
        line: &str,
        key: &PairKey,
        java: bool,
        name: impl FnOnce(&str, &str) -> Vec<FrameId>,
    ) -> Option<FrameIds> {
        let (symbol_text, dso_text) = (&line[key.symbol.clone()], &line[key.dso.clone()]);
        let (symbol, dso) = (symbol_text.as_bytes(), dso_text.as_bytes());
        let (head, tail) = symbol.split_at(symbol.len().min(INLINE));
        // Zero-padded as slots hold it, so that heads compare as whole arrays, inline; the lengths
        // compared first tell a symbol from one that ends in zero bytes.
        let mut padded = [0; INLINE];
        padded[..head.len()].copy_from_slice(head);
        // One probe a line: the DSO's text is compared through its number (a few DSOs, whose text
        // stays in the cache), and numbered only when a pair is new.
        let key_hash = key.hash ^ u64::from(java);
        let (text, dsos) = (&self.text, &mut self.dsos);
        let entry = self.table.entry(
            key_hash,
            |pair| {
                pair.hash == key_hash
                    && pair.java == java
                    && pair.symbol_len as usize == symbol.len()
                    && pair.head == padded
                    && (tail.is_empty() || text[pair.rest..pair.rest + tail.len()] == *tail)
                    && dsos.text(pair.dso) == dso
            },
            |pair| pair.hash,
        );
        let pair = match entry {
            hashbrown::hash_table::Entry::Occupied(entry) => entry.into_mut(),
            hashbrown::hash_table::Entry::Vacant(entry) => {
                let ids = name(symbol_text, dso_text);
                let (frames, several) = match ids[..] {
                    [one] => (one.0, false),
                    _ => {
                        self.several.push(ids.into());
                        (self.several.len() as u32 - 1, true)
                    }
                };
                let dso = dsos.number(dso);
                let rest = self.text.len();
                self.text.extend_from_slice(tail);
                let symbol_len = symbol.len() as u32;
                let pair = Pair { hash: key_hash, head: padded, symbol_len, rest, dso, frames, several, java };
                entry.insert(pair).into_mut()
            }
        };
        match pair.several {
            false => Some(FrameIds::One(FrameId(pair.frames))),
            true => Some(&self.several[pair.frames as usize])
                .filter(|ids| !ids.is_empty())
                .map(|ids| FrameIds::Several(ids.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair is its whole symbol (beyond the bytes its slot holds), its DSO and its command's kind.
    #[test]
    fn pairs_are_told_apart_by_all_their_bytes() {
        let mut pairs = Pairs::default();
        let mut next = 0;
        let mut frames = |pairs: &mut Pairs, symbol: &str, dso: &str, java: bool| {
            let line = format!("{symbol} ({dso})");
            let key = PairKey::new(&line, 0..symbol.len(), symbol.len() + 2..line.len() - 1);
            match pairs.frames(&line, &key, java, |_, _| {
                next += 1;
                vec![FrameId(next)]
            }) {
                Some(FrameIds::One(FrameId(id))) => id,
                _ => unreachable!("one frame a pair here"),
            }
        };
        let long = "std::vector<unsigned int, std::allocator<unsigned int> >::_M_default_initialize";
        let other = "std::vector<unsigned int, std::allocator<unsigned int> >::_M_default_append";
        let ids = [
            frames(&mut pairs, long, "/usr/lib/libstdc++.so.6", false),
            frames(&mut pairs, other, "/usr/lib/libstdc++.so.6", false),
            frames(&mut pairs, long, "/tmp/prog", false),
            frames(&mut pairs, long, "/usr/lib/libstdc++.so.6", true),
            frames(&mut pairs, "main", "/tmp/prog", false),
        ];
        assert_eq!(ids, [1, 2, 3, 4, 5]);
        assert_eq!(frames(&mut pairs, long, "/usr/lib/libstdc++.so.6", false), 1);
        assert_eq!(frames(&mut pairs, "main", "/tmp/prog", false), 5);
        // A placeholder names no frame; inlined frames are several.
        let placeholder = "(java) (/usr/bin/java)";
        assert!(pairs.frames(placeholder, &PairKey::new(placeholder, 0..6, 8..21), false, |_, _| Vec::new()).is_none());
        let inlined = "a->b (/tmp/perf-1.map)";
        let inlined = pairs.frames(inlined, &PairKey::new(inlined, 0..4, 6..21), false, |symbol, dso| {
            assert_eq!((symbol, dso), ("a->b", "/tmp/perf-1.map"));
            vec![FrameId(7), FrameId(6)]
        });
        assert!(matches!(inlined, Some(FrameIds::Several(ids)) if *ids == [FrameId(7), FrameId(6)]));
    }
}
