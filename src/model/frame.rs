//! Frames and the table that interns them.
//!
//! A [`Frame`] is one place a stack can be in: a function, a source line of a function, a thread or
//! process, or another pseudo-frame. Its identity is the whole tuple (name, module, line, clause,
//! kind): two frames that differ in any field are different frames. The [`FrameTable`] hands out one
//! [`FrameId`] per distinct frame, so the call tree stores four bytes per node instead of a name, and a
//! reader that sees the same function a million times allocates its name once.

use hashbrown::HashTable;
use std::fmt;

/// What kind of place a frame stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameKind {
    /// A function (cost centre, symbol, APL function).
    Function,
    /// A source line inside a function: `name` is the function, `line` the line.
    Line,
    /// A thread or process (Sampler thread blocks, LispWorks process nodes).
    Thread,
    /// Any other node that is not code (a synthetic root, an "other" bucket).
    Pseudo,
}

impl FrameKind {
    /// The lowercase word used in dumps.
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Function => "function",
            FrameKind::Line => "line",
            FrameKind::Thread => "thread",
            FrameKind::Pseudo => "pseudo",
        }
    }
}

/// One interned frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Frame {
    /// The name as the source prints it (function, symbol, thread name), without module.
    pub name: String,
    /// Where the code lives: GHC module, library path, BR module file, APL namespace.
    pub module: Option<String>,
    /// Source line number as the source numbers it.
    pub line: Option<u32>,
    /// Clause or statement within the line (BR), or column.
    pub clause: Option<u32>,
    /// What the frame stands for.
    pub kind: FrameKind,
}

impl Frame {
    /// The frame as one name (see the `Display` impl), borrowed when it is just the name.
    pub fn display_name(&self) -> std::borrow::Cow<'_, str> {
        match self.line {
            None => std::borrow::Cow::Borrowed(&self.name),
            Some(_) => std::borrow::Cow::Owned(self.to_string()),
        }
    }

    /// Whether this is a line of no named function (a BR line in the main routine or a GOSUB
    /// routine): a line frame with an empty name. Its place (file, line, clause) is all that names it,
    /// so it is never merged into a function: where lines become functions it becomes one named by
    /// its place.
    pub fn is_anonymous_line(&self) -> bool {
        self.kind == FrameKind::Line && self.name.is_empty()
    }

    /// The function this frame is a place in: for a line frame its function (its name and module,
    /// no line), a line of no named function a function named by its place (it has no other name);
    /// any other frame itself. Where lines become functions, each becomes this.
    pub fn function(&self) -> std::borrow::Cow<'_, Frame> {
        if self.kind != FrameKind::Line {
            return std::borrow::Cow::Borrowed(self);
        }
        let name = if self.is_anonymous_line() { self.to_string() } else { self.name.clone() };
        std::borrow::Cow::Owned(Frame { name, line: None, clause: None, kind: FrameKind::Function, ..self.clone() })
    }

    /// A borrowed view of this frame, for lookups.
    pub fn as_ref(&self) -> FrameRef<'_> {
        FrameRef {
            name: &self.name,
            module: self.module.as_deref(),
            line: self.line,
            clause: self.clause,
            kind: self.kind,
        }
    }
}

impl fmt::Display for Frame {
    /// The frame as one name: `name`, or for a line frame `name[line]` (and `name[line.clause]`), as
    /// Dyalog names a function's line (`#.Rain[6]`), with the file where the frame has one
    /// (`FNCALC[orders.br:20.1]`, a BR line); a line of no named function is its place alone
    /// (`orders.br:690.1`, a BR GOSUB routine's line: see [`Frame::is_anonymous_line`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(line) = self.line else { return f.write_str(&self.name) };
        let anonymous = self.is_anonymous_line();
        if !anonymous {
            write!(f, "{}[", self.name)?;
        }
        if let Some(module) = &self.module {
            write!(f, "{module}:")?;
        }
        write!(f, "{line}")?;
        if let Some(clause) = self.clause {
            write!(f, ".{clause}")?;
        }
        if !anonymous {
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// A borrowed frame: readers look frames up with this so that a name seen before costs no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameRef<'a> {
    /// See [`Frame::name`].
    pub name: &'a str,
    /// See [`Frame::module`].
    pub module: Option<&'a str>,
    /// See [`Frame::line`].
    pub line: Option<u32>,
    /// See [`Frame::clause`].
    pub clause: Option<u32>,
    /// See [`Frame::kind`].
    pub kind: FrameKind,
}

impl<'a> FrameRef<'a> {
    /// A function frame with only a name.
    pub fn function(name: &'a str) -> FrameRef<'a> {
        FrameRef { name, module: None, line: None, clause: None, kind: FrameKind::Function }
    }

    /// A frame of `kind` with only a name.
    pub fn named(name: &'a str, kind: FrameKind) -> FrameRef<'a> {
        FrameRef { name, module: None, line: None, clause: None, kind }
    }

    /// The frame owned, its strings copied.
    pub(crate) fn to_owned_frame(self) -> Frame {
        Frame {
            name: self.name.to_owned(),
            module: self.module.map(str::to_owned),
            line: self.line,
            clause: self.clause,
            kind: self.kind,
        }
    }
}

/// Index of a frame in its profile's [`FrameTable`]. Only meaningful for the profile that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub u32);

impl FrameId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The interned frames of a profile. Ids are dense, start at 0 and never change once handed out.
#[derive(Clone, Debug, Default)]
pub struct FrameTable {
    frames: Vec<Frame>,
    /// The ids of `frames` by [`FrameTable::hash`]: one hash everywhere, so a hash a reader computed
    /// on another thread finds the frame without hashing it again.
    ids: HashTable<u32>,
    recent: Option<Box<RecentNames>>,
}

/// A direct-mapped cache of recently interned short names, small enough to stay in the CPU's cache.
///
/// Readers of big text profiles intern a name per line, and with tens of thousands of functions a
/// lookup in the table costs a cache miss for its entry and another for its name. A hot name is
/// found here instead, compared against bytes kept in the slot itself.
#[derive(Clone)]
struct RecentNames {
    slots: Box<[RecentSlot]>,
}

const RECENT_SLOTS: usize = 1 << RECENT_BITS;
const RECENT_BITS: u32 = 13;
const RECENT_NAME_MAX: usize = 46;

#[derive(Clone, Copy)]
struct RecentSlot {
    hash: u64,
    id: u32,
    kind: FrameKind,
    len: u8,
    bytes: [u8; RECENT_NAME_MAX],
}

impl std::fmt::Debug for RecentNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecentNames({} slots)", self.slots.len())
    }
}

impl FrameTable {
    /// The id of `frame`, interning it if it is new.
    pub fn intern(&mut self, frame: FrameRef<'_>) -> FrameId {
        self.intern_hashed(frame, FrameTable::hash(frame))
    }

    /// [`Self::intern`] with the frame's [`Self::hash`] computed already.
    fn intern_hashed(&mut self, frame: FrameRef<'_>, hash: u64) -> FrameId {
        let frames = &self.frames;
        if let Some(&id) = self.ids.find(hash, |&id| frames[id as usize].as_ref() == frame) {
            return FrameId(id);
        }
        let id = u32::try_from(self.frames.len()).unwrap_or(u32::MAX);
        let frames = &self.frames;
        self.ids.insert_unique(hash, id, |&id| FrameTable::hash(frames[id as usize].as_ref()));
        self.frames.push(frame.to_owned_frame());
        FrameId(id)
    }

    /// The hash of a frame in the table. A frame that is only a name and a kind hashes as
    /// [`Self::name_hash`] does.
    fn hash(frame: FrameRef<'_>) -> u64 {
        use std::hash::{Hash, Hasher};
        if frame.module.is_none() && frame.line.is_none() && frame.clause.is_none() {
            return FrameTable::name_hash(frame.name, frame.kind);
        }
        let mut h = rustc_hash::FxHasher::default();
        frame.name.hash(&mut h);
        frame.kind.hash(&mut h);
        (frame.module, frame.line, frame.clause).hash(&mut h);
        h.finish()
    }

    /// The id of the frame that is only `name` and `kind` (no module, line or clause): [`Self::intern`]
    /// with a cache in front, for readers that intern a name per input line.
    pub(crate) fn intern_name(&mut self, name: &str, kind: FrameKind) -> FrameId {
        self.intern_name_hashed(name, kind, FrameTable::name_hash(name, kind))
    }

    /// The hash [`Self::intern_name_hashed`] wants, which a reader can compute on another thread.
    pub(crate) fn name_hash(name: &str, kind: FrameKind) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        name.hash(&mut h);
        kind.hash(&mut h);
        h.finish()
    }

    /// [`Self::intern_name`] with the name's hash computed already (by [`Self::name_hash`]).
    pub(crate) fn intern_name_hashed(&mut self, name: &str, kind: FrameKind, hash: u64) -> FrameId {
        if name.len() > RECENT_NAME_MAX {
            return self.intern_hashed(FrameRef::named(name, kind), hash);
        }
        let recent = self.recent.get_or_insert_with(|| {
            let empty = RecentSlot { hash: 0, id: u32::MAX, kind, len: 0, bytes: [0; RECENT_NAME_MAX] };
            Box::new(RecentNames { slots: vec![empty; RECENT_SLOTS].into_boxed_slice() })
        });
        // The top bits pick the slot: FxHasher mixes them best.
        let slot_index = (hash >> (64 - RECENT_BITS)) as usize;
        let slot = &recent.slots[slot_index];
        if slot.hash == hash
            && slot.id != u32::MAX
            && slot.kind == kind
            && &slot.bytes[..usize::from(slot.len)] == name.as_bytes()
        {
            return FrameId(slot.id);
        }
        let id = self.intern_hashed(FrameRef::named(name, kind), hash);
        let mut bytes = [0; RECENT_NAME_MAX];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        if let Some(recent) = &mut self.recent {
            recent.slots[slot_index] = RecentSlot { hash, id: id.0, kind, len: name.len() as u8, bytes };
        }
        id
    }

    /// Frees the cache of recent names, which only speeds up readers (it comes back when a name is
    /// interned again).
    pub(crate) fn drop_name_cache(&mut self) {
        self.recent = None;
    }

    /// Whether the table holds `frame`.
    pub fn contains(&self, frame: FrameRef<'_>) -> bool {
        let frames = &self.frames;
        self.ids.find(FrameTable::hash(frame), |&id| frames[id as usize].as_ref() == frame).is_some()
    }

    /// The frame with id `id`.
    ///
    /// # Panics
    /// If `id` did not come from this table.
    pub fn get(&self, id: FrameId) -> &Frame {
        &self.frames[id.index()]
    }

    /// Number of distinct frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// All frames with their ids, in the order they were interned.
    pub fn iter(&self) -> impl Iterator<Item = (FrameId, &Frame)> {
        self.frames.iter().enumerate().map(|(i, f)| (FrameId(i as u32), f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_by_the_whole_tuple() {
        let mut table = FrameTable::default();
        let a = table.intern(FrameRef::function("f"));
        let b = table.intern(FrameRef::named("f", FrameKind::Thread));
        let c = table.intern(FrameRef { line: Some(3), ..FrameRef::function("f") });
        assert_eq!(a, table.intern(FrameRef::function("f")));
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(table.len(), 3);
        assert_eq!(table.get(c).to_string(), "f[3]");
    }
}
