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
    /// Each DSO's number, by where its text is in `dso_text`.
    dsos: hashbrown::HashTable<(Range<usize>, u32)>,
    dso_text: Vec<u8>,
}

fn hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    h.finish()
}

impl Pairs {
    /// The number of `dso`, given the first time it comes.
    fn dso(&mut self, dso: &[u8]) -> u32 {
        let number = self.dsos.len() as u32;
        let text = &self.dso_text;
        let entry = self.dsos.entry(
            hash(dso),
            |(range, _)| &text[range.clone()] == dso,
            |(range, _)| hash(&text[range.clone()]),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(entry) => entry.get().1,
            hashbrown::hash_table::Entry::Vacant(entry) => {
                let range = self.dso_text.len()..self.dso_text.len() + dso.len();
                entry.insert((range, number));
                self.dso_text.extend_from_slice(dso);
                number
            }
        }
    }

    /// The frames of `symbol` and `dso` under a command that is a `java` one or not, named by `name`
    /// the first time they come; `None` for none.
    pub(super) fn frames(
        &mut self,
        symbol: &str,
        dso: &str,
        java: bool,
        name: impl FnOnce() -> Vec<FrameId>,
    ) -> Option<FrameIds> {
        let dso = self.dso(dso.as_bytes());
        let symbol = symbol.as_bytes();
        let head_len = symbol.len().min(INLINE);
        let (head, tail) = symbol.split_at(head_len);
        let key_hash = hash(symbol) ^ u64::from(dso).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(java);
        let text = &self.text;
        let entry = self.table.entry(
            key_hash,
            |pair| {
                pair.hash == key_hash
                    && pair.dso == dso
                    && pair.java == java
                    && pair.symbol_len as usize == symbol.len()
                    && pair.head[..head_len] == *head
                    && text[pair.rest..pair.rest + tail.len()] == *tail
            },
            |pair| pair.hash,
        );
        let pair = match entry {
            hashbrown::hash_table::Entry::Occupied(entry) => entry.into_mut(),
            hashbrown::hash_table::Entry::Vacant(entry) => {
                let ids = name();
                let (frames, several) = match ids[..] {
                    [one] => (one.0, false),
                    _ => {
                        self.several.push(ids.into());
                        (self.several.len() as u32 - 1, true)
                    }
                };
                let mut pair_head = [0; INLINE];
                pair_head[..head_len].copy_from_slice(head);
                let rest = self.text.len();
                self.text.extend_from_slice(tail);
                let symbol_len = symbol.len() as u32;
                let pair = Pair { hash: key_hash, head: pair_head, symbol_len, rest, dso, frames, several, java };
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
        let mut frames =
            |pairs: &mut Pairs, symbol: &str, dso: &str, java: bool| match pairs.frames(symbol, dso, java, || {
                next += 1;
                vec![FrameId(next)]
            }) {
                Some(FrameIds::One(FrameId(id))) => id,
                _ => unreachable!("one frame a pair here"),
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
        assert!(pairs.frames("(java)", "/usr/bin/java", false, Vec::new).is_none());
        let inlined = pairs.frames("a->b", "/tmp/perf-1.map", false, || vec![FrameId(7), FrameId(6)]);
        assert!(matches!(inlined, Some(FrameIds::Several(ids)) if *ids == [FrameId(7), FrameId(6)]));
    }
}
