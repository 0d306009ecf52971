//! One JFR chunk as the format defines it: its header, its integers (LEB128), its metadata event
//! (the types), the constant pools of its checkpoint events, and the values of events and pool
//! entries decoded by their types.

use super::{strings, FORMAT};
use crate::error::{ParseError, ParseErrorKind, Position};
use byteorder::{BigEndian, ByteOrder};
use rustc_hash::FxHashMap;

/// The bytes of a chunk header.
pub(super) const HEADER_LEN: usize = 68;
/// What every chunk starts with.
pub(super) const MAGIC: &[u8; 4] = b"FLR\0";
/// The type id of the metadata event.
const METADATA_EVENT: u64 = 0;
/// The type id of a checkpoint event.
const CHECKPOINT_EVENT: u64 = 1;
/// How deep the metadata's elements may nest (the JDK's go four deep: root, metadata, class,
/// field, annotation).
const MAX_ELEMENT_DEPTH: u32 = 16;
/// How deep values may nest (a struct field of a struct type …), against types that contain
/// themselves.
const MAX_VALUE_DEPTH: u32 = 32;

/// The fields of a chunk header that the reader uses.
pub(super) struct Header {
    pub major: u16,
    pub minor: u16,
    /// The chunk's size in bytes, its header included.
    pub size: u64,
    /// Where the last checkpoint event is, from the chunk's start.
    pub checkpoint: u64,
    /// Where the metadata event is, from the chunk's start.
    pub metadata: u64,
    /// The chunk's start, in nanoseconds since the Unix epoch.
    pub start_nanos: i64,
    /// The chunk's start, in ticks: the clock of its events' start times.
    pub start_ticks: u64,
    /// The ticks of a second, the unit of the events' durations.
    pub ticks_per_second: u64,
    /// Whether its integers are compressed (LEB128): always in 2.x, as the JDK reads them; in 1.x
    /// as the header's features say (bit 0 of its last byte), as JMC reads them.
    pub compressed: bool,
}

/// A positioned error of the reader.
pub(super) fn error(at: u64, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
    ParseError {
        format: FORMAT,
        position: Position::byte(at),
        kind: ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() },
    }
}

impl Header {
    /// The header at the start of `bytes` (at least [`HEADER_LEN`] of them), which starts at byte
    /// `at` of the input.
    pub(super) fn parse(bytes: &[u8; HEADER_LEN], at: u64) -> Result<Header, ParseError> {
        if &bytes[..4] != MAGIC {
            let found = crate::error::excerpt(&bytes[..4]);
            return Err(error(at, "a chunk's magic \"FLR\\0\"", found));
        }
        let (major, minor) = (BigEndian::read_u16(&bytes[4..]), BigEndian::read_u16(&bytes[6..]));
        if major != 1 && major != 2 {
            let expected = "a chunk of version 1.x or 2.x (what the JDK reads)";
            return Err(error(at + 4, expected, format!("version {major}.{minor}")));
        }
        let long = |offset: usize| BigEndian::read_u64(&bytes[offset..]);
        let header = Header {
            major,
            minor,
            size: long(8),
            checkpoint: long(16),
            metadata: long(24),
            start_nanos: long(32) as i64,
            start_ticks: long(48),
            ticks_per_second: long(56),
            compressed: major == 2 || bytes[67] & 1 == 1,
        };
        if header.size < HEADER_LEN as u64 {
            let found = format!("{} (a chunk still being written, or damaged)", header.size);
            return Err(error(at + 8, format!("a chunk size of at least {HEADER_LEN} bytes"), found));
        }
        if header.ticks_per_second == 0 {
            return Err(error(at + 56, "a number of ticks per second above 0 (the unit of durations)", "0"));
        }
        for (offset, field, value) in [(16, "constant pool", header.checkpoint), (24, "metadata", header.metadata)] {
            if value < HEADER_LEN as u64 || value >= header.size {
                let expected = format!("the {field} offset of an event inside the chunk of {} bytes", header.size);
                return Err(error(at + offset, expected, value.to_string()));
            }
        }
        Ok(header)
    }
}

/// A reader of the bytes of one chunk, positioned for errors.
#[derive(Clone)]
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Where reading stops (the end of the event being read).
    end: usize,
    /// The input's offset of `bytes[0]`.
    base: u64,
    /// How many more values may be decoded in the event being read: a value of a type made of
    /// empty structs takes no bytes, so bytes alone do not bound the work.
    budget: u64,
    /// Whether integers are LEB128 (else big-endian of their type's width: JFR 1.0 without the
    /// compressed-integers feature).
    compressed: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor over a whole chunk (`bytes`, which start at byte `base` of the input), its
    /// integers compressed or not.
    pub(super) fn new(bytes: &'a [u8], base: u64, compressed: bool) -> Cursor<'a> {
        Cursor { bytes, at: 0, end: bytes.len(), base, budget: 0, compressed }
    }

    /// The input's offset of the next byte.
    pub(super) fn position(&self) -> u64 {
        self.base + self.at as u64
    }

    /// The cursor at the event that starts at `offset` of the chunk, reading up to its end, with
    /// its type id: an event is its size (an `int`, which counts itself), its type id (a `long`)
    /// and its fields.
    pub(super) fn event(&self, offset: usize) -> Result<(Cursor<'a>, u64), ParseError> {
        let mut event = Cursor { at: offset, end: self.bytes.len(), ..self.clone() };
        let size = event.int("an event's size")?;
        // The size counts its own bytes and at least one of the type id.
        let (least, rest) = (event.at - offset + 1, self.bytes.len() - offset);
        let Some(size) = usize::try_from(size).ok().filter(|&s| s >= least && s <= rest) else {
            let expected = format!("an event's size of {least} to {rest} bytes (the rest of its chunk)");
            return Err(error(self.base + offset as u64, expected, size.to_string()));
        };
        event.end = offset + size;
        event.budget = 1024 + 64 * size as u64;
        let kind = event.long("an event's type id")?;
        Ok((event, kind))
    }

    /// Where the event being read ends, from the chunk's start.
    pub(super) fn event_end(&self) -> usize {
        self.end
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ParseError> {
        if self.end - self.at < n {
            return Err(error(self.position(), what, "the end of its event"));
        }
        let bytes = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(bytes)
    }

    pub(super) fn byte(&mut self, what: &str) -> Result<u8, ParseError> {
        Ok(self.take(1, what)?[0])
    }

    /// An integer of `width` bytes: LEB128 where the chunk's integers are compressed, else
    /// big-endian of that width.
    fn integer(&mut self, width: usize, what: &str) -> Result<u64, ParseError> {
        if self.compressed {
            return self.varint(what);
        }
        Ok(self.take(width, what)?.iter().fold(0u64, |value, &b| value << 8 | u64::from(b)))
    }

    /// A LEB128 integer as JFR writes it: seven bits a byte, low bits first, and a ninth byte of
    /// eight bits.
    fn varint(&mut self, what: &str) -> Result<u64, ParseError> {
        let mut value = 0u64;
        for shift in (0..56).step_by(7) {
            let byte = self.byte(what)?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Ok(value | u64::from(self.byte(what)?) << 56)
    }

    /// A `long`.
    pub(super) fn long(&mut self, what: &str) -> Result<u64, ParseError> {
        self.integer(8, what)
    }

    /// An `int`: the low 32 bits of what is written, as the JDK reads one.
    pub(super) fn int(&mut self, what: &str) -> Result<i32, ParseError> {
        Ok(self.integer(4, what)? as u32 as i32)
    }

    /// A count of things that follow, each at least `least` bytes: more than the event's bytes
    /// can hold is an error, so nothing is allocated or looped over for a count the input lacks.
    pub(super) fn count(&mut self, what: &str, least: usize) -> Result<usize, ParseError> {
        let at = self.position();
        let n = self.int(what)?;
        let room = (self.end - self.at) / least.max(1);
        usize::try_from(n).ok().filter(|&n| n <= room).ok_or_else(|| {
            error(at, format!("{what}, at most {room} (what the rest of its event holds)"), n.to_string())
        })
    }

    /// A string as JFR encodes one: `None` for null, else its text (decoded as [`strings`] says) or
    /// its id in the string pool.
    pub(super) fn string(&mut self, keep: bool) -> Result<Value, ParseError> {
        let at = self.position();
        match self.byte("a string's encoding")? {
            0 => Ok(Value::Null),
            1 => Ok(Value::Str(String::new())),
            2 => Ok(Value::StrRef(self.long("a string's constant pool id")?)),
            3 | 5 => {
                let latin1 = self.bytes[self.at - 1] == 5;
                let n = self.count("a string's length", 1)?;
                let bytes = self.take(n, "a string's bytes")?;
                if !keep {
                    return Ok(Value::Null);
                }
                let text = if latin1 { strings::latin1(bytes) } else { strings::modified_utf8(bytes) };
                Ok(Value::Str(text))
            }
            4 => {
                let n = self.count("a string's length in characters", 1)?;
                // Code units, joined where two are the halves of one character.
                let mut units = Vec::with_capacity(if keep { n } else { 0 });
                for _ in 0..n {
                    let unit = self.char_unit()?;
                    if keep {
                        units.push(unit);
                    }
                }
                Ok(if keep { Value::Str(strings::utf16(&units)) } else { Value::Null })
            }
            other => Err(error(at, "a string encoding from 0 to 5", other.to_string())),
        }
    }

    /// A `char`: the low 16 bits of what is written.
    fn char_unit(&mut self) -> Result<u16, ParseError> {
        Ok(self.integer(2, "a character")? as u16)
    }

    /// A value of type `ty`; `keep` false reads past it and returns `Value::Null`.
    pub(super) fn value(&mut self, types: &Types, ty: usize, keep: bool) -> Result<Value, ParseError> {
        self.value_at_depth(types, ty, keep, 0)
    }

    fn value_at_depth(&mut self, types: &Types, ty: usize, keep: bool, depth: u32) -> Result<Value, ParseError> {
        if depth > MAX_VALUE_DEPTH {
            let expected = format!("values nested at most {MAX_VALUE_DEPTH} deep (a type that holds itself?)");
            return Err(error(self.position(), expected, format!("a {} nested deeper", types.name(ty))));
        }
        if self.budget == 0 {
            let expected = "as many values as the event's bytes can hold (types of no bytes nested?)";
            return Err(error(self.position(), expected, format!("more, in a {}", types.name(ty))));
        }
        self.budget -= 1;
        let int = |v: i64| if keep { Value::Int(v) } else { Value::Null };
        Ok(match types.list[ty].kind {
            Kind::Boolean | Kind::Byte => int(i64::from(self.byte("a byte")? as i8)),
            Kind::Char => int(i64::from(self.char_unit()?)),
            Kind::Short => int(i64::from(self.integer(2, "a short")? as u16 as i16)),
            Kind::Int => int(i64::from(self.int("an int")?)),
            Kind::Long => int(self.long("a long")? as i64),
            Kind::Float => {
                let v = BigEndian::read_f32(self.take(4, "a float")?);
                if keep {
                    Value::Float(f64::from(v))
                } else {
                    Value::Null
                }
            }
            Kind::Double => {
                let v = BigEndian::read_f64(self.take(8, "a double")?);
                if keep {
                    Value::Float(v)
                } else {
                    Value::Null
                }
            }
            Kind::String => self.string(keep)?,
            Kind::Struct => {
                let mut fields = Vec::new();
                for field in &types.list[ty].fields {
                    let value = self.field_at_depth(types, field, keep, depth)?;
                    if keep {
                        fields.push(value);
                    } else {
                        // `Value::Null`, which owns nothing: not dropped, as a drop of an enum
                        // that could own something is a call per value skipped.
                        std::mem::forget(value);
                    }
                }
                if keep {
                    Value::Struct(fields)
                } else {
                    Value::Null
                }
            }
        })
    }

    /// The value of a field of a struct or event: an array of items, or one item.
    pub(super) fn field(&mut self, types: &Types, field: &Field, keep: bool) -> Result<Value, ParseError> {
        self.field_at_depth(types, field, keep, 0)
    }

    fn field_at_depth(&mut self, types: &Types, field: &Field, keep: bool, depth: u32) -> Result<Value, ParseError> {
        if !field.array {
            return self.field_value(types, field, keep, depth);
        }
        let n = self.count("an array's length", 1)?;
        let mut items = Vec::new();
        for _ in 0..n {
            let item = self.field_value(types, field, keep, depth)?;
            if keep {
                items.push(item);
            } else {
                // `Value::Null`, as above.
                std::mem::forget(item);
            }
        }
        Ok(if keep { Value::Array(items) } else { Value::Null })
    }

    /// One value of a field (one item of an array field): a pool id, or a value of its type.
    fn field_value(&mut self, types: &Types, field: &Field, keep: bool, depth: u32) -> Result<Value, ParseError> {
        if field.pool {
            let id = self.long("a constant pool id")?;
            Ok(if keep { Value::Ref(id) } else { Value::Null })
        } else {
            self.value_at_depth(types, field.ty, keep, depth + 1)
        }
    }
}

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Null,
    /// Every integer type, and booleans.
    Int(i64),
    Float(f64),
    Str(String),
    /// A string by its id in the `java.lang.String` pool.
    StrRef(u64),
    /// A value by its id in its field type's constant pool (0: none).
    Ref(u64),
    Struct(Vec<Value>),
    Array(Vec<Value>),
}

/// What a type's values are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    String,
    Struct,
}

/// A type of the metadata.
pub(super) struct Type {
    pub name: String,
    /// Its id in the chunk (event types: the id their events carry).
    pub id: u64,
    pub kind: Kind,
    pub fields: Vec<Field>,
}

/// A field of a type.
pub(super) struct Field {
    pub name: String,
    /// Its type, an index into [`Types::list`].
    pub ty: usize,
    /// Whether its values are ids in its type's constant pool.
    pub pool: bool,
    /// Whether it is an array (`dimension="1"`).
    pub array: bool,
}

/// The types of a chunk's metadata.
#[derive(Default)]
pub(super) struct Types {
    pub list: Vec<Type>,
    by_id: FxHashMap<u64, usize>,
}

impl Types {
    /// The type with id `id`.
    pub(super) fn by_id(&self, id: u64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The type named `name` (a name of JFR 2's), or its JFR 1.0 name (JDK 9 and 10).
    pub(super) fn named(&self, name: &str) -> Option<usize> {
        self.list.iter().position(|t| current_name(&t.name) == name)
    }

    pub(super) fn name(&self, ty: usize) -> &str {
        &self.list[ty].name
    }

    /// The index of the field `name` of type `ty`.
    pub(super) fn field(&self, ty: usize, name: &str) -> Option<usize> {
        self.list[ty].fields.iter().position(|f| f.name == name)
    }
}

/// The name a type of JFR 1.0 (JDK 9 and 10, `com.oracle.jdk.ExecutionSample`,
/// `com.oracle.jfr.types.StackTrace`) has since JFR 2.0 (JDK 11, `jdk.ExecutionSample`,
/// `jdk.types.StackTrace`): the JDK's parser and JMC's read the old names as the new ones.
pub(super) fn current_name(name: &str) -> std::borrow::Cow<'_, str> {
    if let Some(rest) = name.strip_prefix("com.oracle.jdk.") {
        format!("jdk.{rest}").into()
    } else if let Some(rest) = name.strip_prefix("com.oracle.jfr.types.") {
        format!("jdk.types.{rest}").into()
    } else {
        name.into()
    }
}

/// An element of the metadata's tree: a name, attributes and children, names and values as
/// indices into the metadata's strings.
struct Element {
    name: usize,
    attributes: Vec<(usize, usize)>,
    children: Vec<Element>,
}

/// The metadata event at `offset` of the chunk: its strings and its tree of elements, `class`
/// elements (below `metadata`) being the types with their `field`s.
pub(super) fn metadata(chunk: &Cursor<'_>, offset: usize) -> Result<Types, ParseError> {
    let start = chunk.base + offset as u64;
    let (mut event, kind) = chunk.event(offset)?;
    if kind != METADATA_EVENT {
        let expected = "the metadata event (type 0) where the chunk header says it is";
        return Err(error(start, expected, format!("an event of type {kind}")));
    }
    for what in ["the metadata's start time", "the metadata's duration", "the metadata's id"] {
        event.long(what)?;
    }
    let n = event.count("the metadata's number of strings", 1)?;
    let mut strings = Vec::new();
    for _ in 0..n {
        strings.push(match event.string(true)? {
            Value::Str(s) => Some(s),
            _ => None,
        });
    }
    let root = element(&mut event, strings.len(), 0)?;
    let text = |i: usize| strings[i].as_deref().unwrap_or("");
    let attribute =
        |e: &Element, key: &str| e.attributes.iter().find(|&&(k, _)| text(k) == key).map(|&(_, v)| text(v).to_string());
    let bad = |what: &str, found: String| error(start, format!("{what} in the metadata"), found);
    let mut types = Types::default();
    // Field types by id until every class is known.
    let mut field_types = Vec::new();
    let classes = root
        .children
        .iter()
        .filter(|e| text(e.name) == "metadata")
        .flat_map(|m| &m.children)
        .filter(|e| text(e.name) == "class");
    for class in classes {
        let name = attribute(class, "name").unwrap_or_default();
        let id_text = attribute(class, "id").unwrap_or_default();
        let id = id_text.parse::<u64>().map_err(|_| bad("a class id", format!("{id_text:?} for {name:?}")))?;
        let mut fields = Vec::new();
        for field in class.children.iter().filter(|e| text(e.name) == "field") {
            let class_text = attribute(field, "class").unwrap_or_default();
            let ty = class_text.parse::<u64>().map_err(|_| bad("a field's class id", format!("{class_text:?}")))?;
            field_types.push(ty);
            fields.push(Field {
                name: attribute(field, "name").unwrap_or_default(),
                ty: 0,
                pool: attribute(field, "constantPool").as_deref() == Some("true"),
                array: attribute(field, "dimension").as_deref() == Some("1"),
            });
        }
        let kind = match name.as_str() {
            "boolean" => Kind::Boolean,
            "byte" => Kind::Byte,
            "char" => Kind::Char,
            "short" => Kind::Short,
            "int" => Kind::Int,
            "long" => Kind::Long,
            "float" => Kind::Float,
            "double" => Kind::Double,
            "java.lang.String" => Kind::String,
            _ => Kind::Struct,
        };
        if types.by_id.insert(id, types.list.len()).is_some() {
            return Err(bad("one class per id", format!("two of id {id}")));
        }
        types.list.push(Type { name, id, kind, fields });
    }
    let mut ids = field_types.into_iter();
    for ty in 0..types.list.len() {
        for f in 0..types.list[ty].fields.len() {
            let id = ids.next().unwrap_or_default();
            let field_ty = types.by_id(id).ok_or_else(|| {
                bad(
                    "a class id for each field",
                    format!("{id} for {}.{}", types.list[ty].name, types.list[ty].fields[f].name),
                )
            })?;
            types.list[ty].fields[f].ty = field_ty;
        }
    }
    Ok(types)
}

/// An element of the metadata's tree, its children read to [`MAX_ELEMENT_DEPTH`].
fn element(event: &mut Cursor<'_>, n_strings: usize, depth: u32) -> Result<Element, ParseError> {
    let at = event.position();
    if depth > MAX_ELEMENT_DEPTH {
        return Err(error(at, format!("metadata elements nested at most {MAX_ELEMENT_DEPTH} deep"), "deeper"));
    }
    let index = |event: &mut Cursor<'_>| {
        let at = event.position();
        let i = event.int("a metadata string index")?;
        usize::try_from(i)
            .ok()
            .filter(|&i| i < n_strings)
            .ok_or_else(|| error(at, format!("an index of one of the metadata's {n_strings} strings"), i.to_string()))
    };
    let name = index(event)?;
    let mut attributes = Vec::new();
    for _ in 0..event.count("an element's number of attributes", 2)? {
        attributes.push((index(event)?, index(event)?));
    }
    let mut children = Vec::new();
    for _ in 0..event.count("an element's number of children", 3)? {
        children.push(element(event, n_strings, depth + 1)?);
    }
    Ok(Element { name, attributes, children })
}

/// What the reader keeps of the pool entries of a type.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Keep {
    /// Nothing (types it does not resolve).
    No,
    /// The value, decoded (the names a stack trace or thread resolves through).
    Value,
    /// Where the value is, to be read where it is used (stack traces, the bulk of a chunk's
    /// pools: read once each without building a value).
    Place,
}

/// The entries of a chunk's constant pools that the reader keeps (as [`Keep`] says), by type and
/// id, each with where it starts in the input.
#[derive(Default)]
pub(super) struct Pools<'a> {
    pub values: FxHashMap<(usize, u64), (u64, Value)>,
    /// A cursor at each value kept by its place, reading to the end of its checkpoint.
    pub places: FxHashMap<(usize, u64), (u64, Cursor<'a>)>,
}

/// Reads the checkpoint events of a chunk, from the last (at `offset`, the header's) back through
/// each one's delta to the one before, keeping the pool entries as `keep` says for each type.
pub(super) fn checkpoints<'a>(
    chunk: &Cursor<'a>,
    offset: usize,
    types: &Types,
    keep: &[Keep],
    pools: &mut Pools<'a>,
) -> Result<(), ParseError> {
    let mut offset = offset;
    loop {
        let start = chunk.base + offset as u64;
        let (mut event, kind) = chunk.event(offset)?;
        if kind != CHECKPOINT_EVENT {
            let expected = "a checkpoint event (type 1) where the chunk header or the checkpoint after says";
            return Err(error(start, expected, format!("an event of type {kind}")));
        }
        event.long("a checkpoint's start time")?;
        event.long("a checkpoint's duration")?;
        let delta_at = event.position();
        let delta = event.long("a checkpoint's delta to the one before")? as i64;
        event.byte("a checkpoint's type")?;
        for _ in 0..event.count("a checkpoint's number of pools", 2)? {
            let type_at = event.position();
            let type_id = event.long("a constant pool's type id")?;
            let ty = types.by_id(type_id).ok_or_else(|| {
                error(type_at, "a constant pool of a type of the metadata", format!("type id {type_id}"))
            })?;
            for _ in 0..event.count("a constant pool's number of entries", 1)? {
                let entry_at = event.position();
                let id = event.long("a constant's id")?;
                match keep[ty] {
                    Keep::No => _ = event.value(types, ty, false)?,
                    Keep::Value => {
                        let value = event.value(types, ty, true)?;
                        pools.values.entry((ty, id)).or_insert((entry_at, value));
                    }
                    Keep::Place => {
                        let place = event.clone();
                        event.value(types, ty, false)?;
                        pools.places.entry((ty, id)).or_insert((entry_at, place));
                    }
                }
            }
        }
        if event.at != event.end {
            let expected = format!("the end of the checkpoint event that starts at byte {start}");
            return Err(error(event.position(), expected, "more bytes"));
        }
        if delta == 0 {
            return Ok(());
        }
        let before = i64::try_from(offset).ok().and_then(|o| o.checked_add(delta));
        match before.and_then(|b| usize::try_from(b).ok()).filter(|&b| delta < 0 && b >= HEADER_LEN) {
            Some(before) => offset = before,
            None => {
                let expected = "a delta back to an earlier checkpoint of the chunk";
                return Err(error(delta_at, expected, delta.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JFR's LEB128: seven bits a byte, and a ninth byte of eight bits.
    #[test]
    fn compressed_integers_read_as_the_jdk_writes_them() {
        let read = |bytes: &[u8]| Cursor::new(bytes, 0, true).long("x");
        assert_eq!(read(&[0x05]).unwrap(), 5);
        assert_eq!(read(&[0x80, 0x01]).unwrap(), 128);
        assert_eq!(read(&[0xff; 9]).unwrap(), u64::MAX);
        assert!(read(&[0x80]).unwrap_err().to_string().contains("byte 1: expected x, found the end"));
        let int = Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0x0f], 0, true).int("x").unwrap();
        assert_eq!(int, -1);
        // JFR 1.0 without compressed integers: big-endian of the type's width, as JMC reads them.
        let mut plain = Cursor::new(&[0, 0, 0, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe], 0, false);
        assert_eq!(plain.long("x").unwrap(), 256);
        assert_eq!(plain.int("x").unwrap(), -2);
    }
}
