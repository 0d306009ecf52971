//! A decoder of what Python's `marshal` writes (CPython's `Python/marshal.c`, versions 0 to 4 of
//! its format, and Python 2's interned strings), for the values a pstats file holds: dicts,
//! tuples, strings of every kind, ints, longs, floats, `None`, `True`, `False`, refs, and the code
//! object the `profile` module keys its top entry by (`python -m profile` names it by the script's
//! code). Lists, sets and frozensets are read as tuples are; complex numbers, `StopIteration` and
//! `Ellipsis` as values of no use here.
//!
//! Values go into one arena, a value an index: a container's items are a range of indices, a
//! string a range of the input (not copied), and a ref (`r`, to a value written with `FLAG_REF`)
//! the index of the value it names, so that a key met a million times is one value. Decoding is a
//! loop over an explicit stack, never a recursion, its depth bounded as CPython bounds it
//! (`MAX_MARSHAL_STACK_DEPTH`, 2000); every length is checked against the bytes left before
//! anything is allocated for it.

/// How deep containers may nest (CPython's `MAX_MARSHAL_STACK_DEPTH`).
const MAX_DEPTH: usize = 2000;

/// `FLAG_REF`: the value is kept for refs to it.
const FLAG_REF: u8 = 0x80;

/// A decoded value; containers and strings point into the [`Values`] that hold them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Value {
    /// `None`, and values of no use to a pstats reader (complex numbers, `Ellipsis`).
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string, bytes or text, as a range of the input: its start and length.
    Str(u32, u32),
    /// A tuple, list, set or frozenset: its items, a range of [`Values::items`].
    Tuple(u32, u32),
    /// A dict: its keys and values, alternating, a range of [`Values::items`].
    Dict(u32, u32),
    /// A code object: its name, file and first line.
    Code {
        name: u32,
        file: u32,
        line: i32,
    },
    /// A container still being decoded (a ref to it is an error, as CPython's).
    Open,
}

/// The values of one input.
pub(super) struct Values<'a> {
    pub(super) input: &'a [u8],
    values: Vec<Value>,
    /// Where each value starts in the input: its type byte.
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl<'a> Values<'a> {
    /// How many values there are (each below this number).
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    pub(super) fn get(&self, value: u32) -> Value {
        self.values[value as usize]
    }

    /// Where a value starts in the input, for errors.
    pub(super) fn offset(&self, value: u32) -> usize {
        self.offsets[value as usize] as usize
    }

    /// The items of a tuple or dict's range.
    pub(super) fn items(&self, start: u32, len: u32) -> &[u32] {
        &self.items[start as usize..(start + len) as usize]
    }

    /// The bytes of a string.
    pub(super) fn bytes(&self, start: u32, len: u32) -> &'a [u8] {
        &self.input[start as usize..(start + len) as usize]
    }
}

/// Why the input is not marshal data, and where.
#[derive(Debug, PartialEq)]
pub(super) struct Error {
    pub(super) at: usize,
    pub(super) expected: String,
    pub(super) found: String,
}

/// A container being decoded: where its items start on the pending stack and how many are left.
struct Open {
    value: u32,
    kind: Kind,
    start: usize,
    left: u64,
}

#[derive(Clone, Copy)]
enum Kind {
    Tuple,
    Dict,
    /// A code object: how many raw ints it began with (4, 5 or 6), and its first line, a raw int
    /// after its eighth object, once read.
    Code {
        ints: u8,
        line: Option<i32>,
    },
}

/// The decoder's state: the input, where it is, the values and refs so far.
struct Decoder<'a> {
    input: &'a [u8],
    at: usize,
    values: Vec<Value>,
    offsets: Vec<u32>,
    /// Where the value being decoded starts.
    start: usize,
    items: Vec<u32>,
    refs: Vec<u32>,
    /// Python 2's interned strings (`t`), which its `R` names by number.
    interned: Vec<u32>,
}

/// Decodes the one value `input` holds (bytes after it are an error, as `marshal.loads` says).
pub(super) fn decode(input: &[u8]) -> Result<(Values<'_>, u32), Error> {
    if input.len() > u32::MAX as usize {
        return Err(Error { at: 0, expected: "marshal data of less than 4 GiB".into(), found: "more".into() });
    }
    // A value takes 5 bytes or more but for a few (None, True, False, small strings): room for
    // most of them at once, not a copy of everything at each doubling.
    let expected = input.len() / 5;
    let mut decoder = Decoder {
        input,
        at: 0,
        values: Vec::with_capacity(expected),
        offsets: Vec::with_capacity(expected),
        start: 0,
        items: Vec::new(),
        refs: Vec::new(),
        interned: Vec::new(),
    };
    let root = decoder.run()?;
    if decoder.at != input.len() {
        return Err(Error {
            at: decoder.at,
            expected: "the end of the input after the marshal value".into(),
            found: format!("{} more bytes", input.len() - decoder.at),
        });
    }
    Ok((Values { input, values: decoder.values, offsets: decoder.offsets, items: decoder.items }, root))
}

impl Decoder<'_> {
    fn cut_short(&self, what: &str) -> Error {
        Error { at: self.at, expected: what.to_string(), found: "the end of the input (the file is cut short)".into() }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], Error> {
        if self.input.len() - self.at < n {
            return Err(self.cut_short(what));
        }
        let bytes = &self.input[self.at..self.at + n];
        self.at += n;
        Ok(bytes)
    }

    fn byte(&mut self, what: &str) -> Result<u8, Error> {
        Ok(self.take(1, what)?[0])
    }

    fn int32(&mut self, what: &str) -> Result<i32, Error> {
        let bytes = self.take(4, what)?;
        Ok(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// A length of items of at least `item_bytes` bytes each, checked against the bytes left.
    fn length(&mut self, item_bytes: usize, what: &str) -> Result<u64, Error> {
        let at = self.at;
        let n = self.int32(what)?;
        let left = (self.input.len() - self.at) as u64;
        match u64::try_from(n) {
            Ok(n) if n.saturating_mul(item_bytes as u64) <= left => Ok(n),
            Ok(n) => Err(Error {
                at,
                expected: format!("{what} that fits in the input ({left} bytes left)"),
                found: n.to_string(),
            }),
            Err(_) => Err(Error { at, expected: format!("{what} of 0 or more"), found: n.to_string() }),
        }
    }

    fn push(&mut self, value: Value) -> u32 {
        self.values.push(value);
        self.offsets.push(self.start as u32);
        (self.values.len() - 1) as u32
    }

    /// Decodes the value at the input's start, containers through an explicit stack.
    fn run(&mut self) -> Result<u32, Error> {
        let mut open: Vec<Open> = Vec::new();
        let mut pending: Vec<u32> = Vec::new();
        loop {
            if let Some(top) = open.last_mut().filter(|top| top.left == 0) {
                if let Kind::Code { ints, line: None } = top.kind {
                    // After its eighth object, its first line, then its last objects: two in
                    // 3.11's layout (the line table and the exception table), else one.
                    let line = self.int32("a code object's first line number")?;
                    let fifth = self.values[pending[top.start + 4] as usize];
                    top.left = if qualname_layout(ints, fifth) { 2 } else { 1 };
                    top.kind = Kind::Code { ints, line: Some(line) };
                    continue;
                }
                let Some(top) = open.pop() else { break };
                let value = self.close(top, &mut pending)?;
                match open.last_mut() {
                    Some(parent) => {
                        pending.push(value);
                        parent.left -= 1;
                    }
                    None => return Ok(value),
                }
                continue;
            }
            let started_at = self.at;
            let null = || Error { at: started_at, expected: "a value".into(), found: "NULL (`0`)".into() };
            match self.value(&mut open, pending.len())? {
                Some(NULL) => match open.last_mut() {
                    // A dict ends at a NULL (`0`) where a key would be.
                    Some(parent) if matches!(parent.kind, Kind::Dict) && (pending.len() - parent.start).is_multiple_of(2) => {
                        parent.left = 0
                    }
                    _ => return Err(null()),
                },
                Some(value) => match open.last_mut() {
                    Some(parent) => {
                        pending.push(value);
                        parent.left -= 1;
                    }
                    None => return Ok(value),
                },
                None if open.len() > MAX_DEPTH => {
                    return Err(Error {
                        at: started_at,
                        expected: format!("containers nested at most {MAX_DEPTH} deep (CPython's limit)"),
                        found: "deeper".into(),
                    });
                }
                None => {}
            }
        }
        Err(self.cut_short("a value"))
    }

    /// A finished container's value, its items moved from `pending` into the arena.
    fn close(&mut self, top: Open, pending: &mut Vec<u32>) -> Result<u32, Error> {
        let start = self.items.len() as u32;
        let items = &pending[top.start..];
        let value = match top.kind {
            Kind::Tuple => Value::Tuple(start, items.len() as u32),
            Kind::Dict => Value::Dict(start, items.len() as u32),
            Kind::Code { ints, line } => self.code(items, ints, line.unwrap_or(0))?,
        };
        if !matches!(value, Value::Code { .. }) {
            self.items.extend_from_slice(items);
        }
        pending.truncate(top.start);
        self.values[top.value as usize] = value;
        Ok(top.value)
    }

    /// A code object of its `ints` raw ints and its objects: 3.11's layout names its file and name
    /// 6th and 7th, the earlier ones 7th and 8th ([`qualname_layout`]).
    fn code(&self, items: &[u32], ints: u8, line: i32) -> Result<Value, Error> {
        let is_str = |i: usize| items.get(i).is_some_and(|&v| matches!(self.values[v as usize], Value::Str(..)));
        let fifth = items.get(4).map_or(Value::None, |&v| self.values[v as usize]);
        let (file, name) = match qualname_layout(ints, fifth) {
            true => (5, 6),
            false => (6, 7),
        };
        match (items.get(file), items.get(name)) {
            (Some(&file_value), Some(&name_value)) if is_str(file) && is_str(name) => {
                Ok(Value::Code { name: name_value, file: file_value, line })
            }
            _ => Err(Error {
                at: self.at,
                expected: "a code object with its file and name (as CPython 2.7 to 3.13 write it)".into(),
                found: "other objects".into(),
            }),
        }
    }

    /// Decodes one value: a scalar's index, or `None` where it opened a container (pushed on
    /// `open`, its items to come).
    fn value(&mut self, open: &mut Vec<Open>, pending: usize) -> Result<Option<u32>, Error> {
        let at = self.at;
        self.start = at;
        let code = self.byte("a value's type byte")?;
        let (flag, kind) = (code & FLAG_REF != 0, code & !FLAG_REF);
        let reserved = match flag {
            true => {
                self.refs.push(u32::MAX);
                Some(self.refs.len() - 1)
            }
            false => None,
        };
        let scalar = match kind {
            b'0' => return Ok(Some(NULL)),
            b'N' | b'S' | b'.' => Value::None,
            b'F' => Value::Bool(false),
            b'T' => Value::Bool(true),
            b'i' => Value::Int(i64::from(self.int32("an int")?)),
            b'I' => {
                let bytes = self.take(8, "a 64-bit int")?;
                Value::Int(i64::from_le_bytes(bytes.try_into().unwrap_or_default()))
            }
            b'l' => self.long()?,
            b'g' => {
                let bytes = self.take(8, "a binary float")?;
                Value::Float(f64::from_le_bytes(bytes.try_into().unwrap_or_default()))
            }
            b'f' => self.text_float()?,
            b'y' => {
                self.take(16, "a binary complex number")?;
                Value::None
            }
            b'x' => {
                self.text_float()?;
                self.text_float()?;
                Value::None
            }
            b's' | b't' | b'u' | b'a' | b'A' => {
                let n = self.length(1, "a string's length")? as usize;
                let start = self.at as u32;
                self.take(n, "a string's bytes")?;
                Value::Str(start, n as u32)
            }
            b'z' | b'Z' => {
                let n = self.byte("a short string's length")? as usize;
                let start = self.at as u32;
                self.take(n, "a short string's bytes")?;
                Value::Str(start, n as u32)
            }
            b'R' => {
                let n = self.int32("a string ref")?;
                let found = usize::try_from(n).ok().and_then(|n| self.interned.get(n));
                let Some(&value) = found else {
                    return Err(Error {
                        at,
                        expected: "a ref to an interned string before it".into(),
                        found: n.to_string(),
                    });
                };
                return Ok(Some(value));
            }
            b'r' => {
                let n = self.int32("a ref")?;
                let found = usize::try_from(n).ok().and_then(|n| self.refs.get(n)).copied();
                return match found {
                    Some(value) if value != u32::MAX && self.values[value as usize] != Value::Open => Ok(Some(value)),
                    _ => Err(Error { at, expected: "a ref to a whole value before it".into(), found: n.to_string() }),
                };
            }
            b'(' | b'[' | b'<' | b'>' => {
                let n = self.length(1, "a tuple's length")?;
                return Ok(self.open(open, Kind::Tuple, n, reserved, pending));
            }
            b')' => {
                let n = u64::from(self.byte("a small tuple's length")?);
                return Ok(self.open(open, Kind::Tuple, n, reserved, pending));
            }
            b'{' => return Ok(self.open(open, Kind::Dict, u64::MAX, reserved, pending)),
            b'c' => {
                let ints = self.code_ints()?;
                return Ok(self.open(open, Kind::Code { ints, line: None }, 8, reserved, pending));
            }
            _ => {
                return Err(Error {
                    at,
                    expected: "a marshal type (a dict, tuple, string, int, float, None, True, False or ref)".into(),
                    found: format!("byte 0x{code:02x}"),
                })
            }
        };
        let value = self.push(scalar);
        if let Some(slot) = reserved {
            self.refs[slot] = value;
        }
        if kind == b't' {
            self.interned.push(value);
        }
        Ok(Some(value))
    }

    /// Opens a container of `n` items (a dict: up to its NULL; a code object: its first eight
    /// objects).
    fn open(
        &mut self,
        open: &mut Vec<Open>,
        kind: Kind,
        n: u64,
        reserved: Option<usize>,
        pending: usize,
    ) -> Option<u32> {
        let value = self.push(Value::Open);
        if let Some(slot) = reserved {
            self.refs[slot] = value;
        }
        open.push(Open { value, kind, start: pending, left: n });
        None
    }

    /// A code object's raw ints before its first object, its bytecode: 4 in CPython 2.7
    /// (`co_argcount`, `co_nlocals`, `co_stacksize`, `co_flags`), 5 in 3.0 to 3.7
    /// (`co_kwonlyargcount` added) and from 3.11 (`co_posonlyargcount` in, `co_nlocals` out), 6 in
    /// 3.8 to 3.10 (both). Marshal data does not say which Python wrote it, so the count is the
    /// least after which a bytecode starts ([`Decoder::bytecode_at`]). After too few ints, the
    /// bytes taken for the bytecode's type and length are an int's low byte and the rest of it
    /// with the next type byte (`s` or `r`, 0x72 or more) or int above: a length of 1.9 GB or a
    /// ref past those read, which the check refuses.
    fn code_ints(&mut self) -> Result<u8, Error> {
        let Some(ints) = [4u8, 5, 6].into_iter().find(|&n| self.bytecode_at(self.at + 4 * usize::from(n))) else {
            return Err(Error {
                at: self.at,
                expected: "a code object's 4, 5 or 6 counts and flags, then its bytecode (as CPython 2.7 to 3.13 write it)"
                    .into(),
                found: "no bytes or ref to them followed by a tuple after 4, 5 or 6 ints (or the input ends inside them)"
                    .into(),
            });
        };
        self.take(4 * usize::from(ints), "a code object's counts and flags")?;
        Ok(ints)
    }

    /// Whether a code object's bytecode starts at `at`: bytes (`s`) that fit in the input, or a
    /// ref (`r`) to a string before it (3.10 writes a bytecode met before as a ref), followed by
    /// its constants, a tuple or a ref.
    fn bytecode_at(&self, at: usize) -> bool {
        let kind = |i: usize| self.input.get(i).map(|&b| b & !FLAG_REF);
        let int = |i: usize| {
            let bytes = self.input.get(i..i.checked_add(4)?)?;
            usize::try_from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).ok()
        };
        let is_string = |n: usize| {
            self.refs.get(n).is_some_and(|&v| v != u32::MAX && matches!(self.values[v as usize], Value::Str(..)))
        };
        let after = match (kind(at), int(at + 1)) {
            (Some(b's'), Some(len)) => (at + 5).checked_add(len),
            (Some(b'r'), Some(n)) if is_string(n) => Some(at + 5),
            _ => None,
        };
        after.and_then(kind).is_some_and(|consts| matches!(consts, b'(' | b')' | b'r'))
    }

    /// A long (`l`): a signed count of 15-bit digits, least significant first, as an int where it
    /// fits in 64 bits, else as a float.
    fn long(&mut self) -> Result<Value, Error> {
        let at = self.at;
        let n = self.int32("a long's digit count")?;
        let digits = n.unsigned_abs() as usize;
        if digits > (self.input.len() - self.at) / 2 {
            return Err(Error {
                at,
                expected: "a long's digits in the input".into(),
                found: format!("{digits} digits"),
            });
        }
        let bytes = self.take(2 * digits, "a long's digits")?;
        let mut value = 0f64;
        let mut exact: Option<i128> = Some(0);
        for (i, pair) in bytes.chunks_exact(2).enumerate().rev() {
            let digit = u16::from_le_bytes([pair[0], pair[1]]);
            if digit >= 1 << 15 {
                return Err(Error { at: at + 4 + 2 * i, expected: "a 15-bit digit".into(), found: digit.to_string() });
            }
            value = value * 32768.0 + f64::from(digit);
            exact = exact.and_then(|e| e.checked_mul(1 << 15)).and_then(|e| e.checked_add(i128::from(digit)));
        }
        let sign = if n < 0 { -1 } else { 1 };
        Ok(match exact.and_then(|e| i64::try_from(e * sign).ok()) {
            Some(int) => Value::Int(int),
            None => Value::Float(value * sign as f64),
        })
    }

    /// A float written as text (`f`, marshal versions 0 and 1): its length, then its digits.
    fn text_float(&mut self) -> Result<Value, Error> {
        let at = self.at;
        let n = self.byte("a float's length")? as usize;
        let text = self.take(n, "a float's digits")?;
        match std::str::from_utf8(text).ok().and_then(|t| t.parse::<f64>().ok()) {
            Some(float) => Ok(Value::Float(float)),
            None => {
                Err(Error { at, expected: "a float".into(), found: format!("{:?}", String::from_utf8_lossy(text)) })
            }
        }
    }
}

/// Whether a code object of `ints` raw ints whose fifth object is `fifth` is in CPython 3.11's
/// layout (5 ints, `co_localspluskinds`, bytes, fifth; its file, name and `co_qualname` after), of
/// two objects after its first line; 2.7's to 3.10's (`co_freevars`, a tuple, fifth) have one.
fn qualname_layout(ints: u8, fifth: Value) -> bool {
    ints == 5 && matches!(fifth, Value::Str(..))
}

/// The value index that stands for NULL, a dict's end.
const NULL: u32 = u32::MAX;
