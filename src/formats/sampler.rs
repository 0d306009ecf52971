//! Apple Sampler "supersampler" files (the CHUD/Shark-era Sampler.app), as reverse-engineered by Kevin
//! Reid in 2008 ("Apple's Sampler file format, and SBCL SB-SPROF report generation"); no other public
//! description or sample exists. Mixed text and binary, LF line endings.
//!
//! ```text
//! @supersamplerV1.0\n
//! @symboltableV1.1\n
//! \t<00 00 00 01>\t<00 00 00 00>\tThread_0001\tThread_0001\tThread_0001\n
//! \t<00 01 00 00>\t<00 00 00 00>\tmain\t/usr/bin/app\t/usr/bin/app\n
//! \t<00 01 00 01>\t<00 00 00 00>\tparse\t/usr/bin/app\t/usr/bin/app\n
//! @end\n
//! @threadV1.0\t0001\n
//! \t<00 00 00 01><00 00 00 00><00 00 00 01><00 00 00 02><00 01 00 01><00 01 00 00>\n
//! @end\n
//! ```
//!
//! **Grammar** (the blog's: any number of thread blocks, one `@end` after the last): the two header lines; a
//! symbol table of entries `TAB int32 id TAB int32 unknown TAB symbol TAB library-path TAB
//! library-path LF` ended by `@end LF`; then any number of blocks `@threadV1.0 TAB hhhh LF` (thread id
//! as four hex digits) each with any number of samples `TAB int32 1 int32 0 int32 1 int32 n
//! (int32 id){n} LF`; then one final `@end LF`. int32 is big-endian. Because an int32 may contain the
//! bytes TAB, LF or `@`, the reader parses by structure and never splits lines.
//!
//! **Frame order** is unconfirmed (docs/formats.md, "Sampler frame order is not known"). `--sampler-order leaf-first|root-first|auto`: reading
//! defaults to `auto`, which looks at the distinct stacks: a nearly constant *last* id (a thread entry
//! point) means leaf-first, a nearly constant *first* id means root-first; when the evidence is weak it
//! reads leaf-first and says so. Writing is leaf-first unless `root-first` is given.
//!
//! **Model**: each thread block is a root frame of kind thread, named by its symbol (`Thread_xxxx`
//! by the blog's convention, or any name; an id missing from the table names it so); blocks with
//! the same id merge. A symbol is a function frame; its first library path is the frame's module, and `unknown` (when not 0) and a second library path that differs from the first
//! are kept as frame attrs for the round trip. Samples are aggregated while reading, keyed by their raw
//! bytes, so memory grows with distinct stacks; the metric is samples. An id missing from the symbol
//! table becomes a placeholder frame with a warning (the rest of the file is still good); every other
//! defect is an error with its byte offset. Text is UTF-8; other bytes are replaced, with a warning.
//!
//! **Writing**: a block per root thread, its symbol named after the thread (a LispWorks process keeps
//! its name; the blog's `Thread_xxxx` names are a convention the file does not need), its id below
//! 0x10000 (from a `Thread_xxxx` name when it is one), and ids from 0x10000 up for symbols; a node
//! with N self samples becomes N identical sample lines (`--max-samples` stops a runaway file,
//! `--max-output-size` one whose records hold deep stacks); roots that are not threads go into one
//! thread `Thread_xxxx`. **Lost**: every metric but
//! samples (time becomes samples at `--interval`), line numbers (merged into functions), header facts,
//! frame kinds below the thread level, and TAB or LF in names (replaced by spaces, with a warning).

use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes, Writing};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::model::{ops, ChildIndex, FrameId, FrameKind, FrameRef, Metric, NodeId, Profile, Value, Values};
use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::io::{BufRead, BufReader, Read, Write};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "sampler",
    description: "Apple Sampler \"supersampler\" stack samples",
    extensions: &["sampler"],
    carries: Carries {
        name_replacements: &[('\t', ' '), ('\n', ' '), ('\r', ' ')],
        weight_is_time: true,
        ..Carries::SAMPLES_PER_THREAD.with_modules()
    },
    reads: Some(Reads::binary(sniff, |input, options, diag| {
        read(input, &options.formats.get(), diag)
    })),
    writes: Some(Writes::new(write, Rules { fit_roots, ..spec::STACKS_ONLY })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

const MAGIC: &[u8] = b"@supersamplerV1.0\n";
const SYMBOL_TABLE: &[u8] = b"@symboltableV1.1\n";
const THREAD: &[u8] = b"@threadV1.0\t";
const END: &[u8] = b"@end\n";
/// Ids below this are thread ids.
const FIRST_SYMBOL_ID: u32 = 0x10000;

/// The order of the ids in a sample; named on the command line in kebab case (`leaf-first`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumString, strum::VariantNames)]
#[strum(serialize_all = "kebab-case")]
pub enum FrameOrder {
    /// Decide from the data when reading (leaf-first when writing).
    #[default]
    Auto,
    /// The first id is the innermost frame.
    LeafFirst,
    /// The first id is the outermost frame.
    RootFirst,
}

/// Sampler's own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The frame order of the stacks read (`Auto`: decided from the data) and written (`Auto`:
    /// leaf-first), `--sampler-order`.
    pub order: FrameOrder,
}

/// `Yes` when the input starts with the magic line.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    if head.starts_with(MAGIC) {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// A buffered reader that knows its byte offset, for messages.
struct Bytes<R> {
    input: BufReader<R>,
    offset: u64,
}

impl<R: Read> Bytes<R> {
    fn error(&self, offset: u64, kind: ParseErrorKind) -> ParseError {
        ParseError { format: FORMAT, position: Position::byte(offset), kind }
    }

    fn unexpected(&self, offset: u64, expected: &str, found: &[u8]) -> ParseError {
        let found = if found.is_empty() { "the end of the input".to_string() } else { excerpt(found) };
        self.error(offset, ParseErrorKind::Unexpected { expected: expected.into(), found })
    }

    fn peek(&mut self) -> Result<Option<u8>, ParseError> {
        match self.input.fill_buf() {
            Ok(buf) => Ok(buf.first().copied()),
            Err(e) => Err(self.error(self.offset, ParseErrorKind::Io(e))),
        }
    }

    /// Reads until `buf` is full or the input ends; returns how much was read.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, ParseError> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error(self.offset + filled as u64, ParseErrorKind::Io(e))),
            }
        }
        self.offset += filled as u64;
        Ok(filled)
    }

    /// Reads exactly `buf.len()` bytes; `what` names them for the error at the end of the input.
    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), ParseError> {
        let filled = self.fill(buf)?;
        if filled < buf.len() {
            let expected = format!("{what} ({} more bytes)", buf.len() - filled);
            return Err(self.unexpected(self.offset, &expected, &[]));
        }
        Ok(())
    }

    /// Reads `expected` exactly, or fails naming `what`.
    fn literal(&mut self, expected: &[u8], what: &str) -> Result<(), ParseError> {
        let start = self.offset;
        match self.read_literal(expected)? {
            Literal::Read => Ok(()),
            Literal::CutShort(after) => Err(self.unexpected(start + after as u64, what, &[])),
            Literal::Other(found) => Err(self.unexpected(start, what, &found)),
        }
    }

    /// Reads `expected.len()` bytes: whether they are `expected`, its start where the input ends
    /// (a file cut short), or what they are.
    fn read_literal(&mut self, expected: &[u8]) -> Result<Literal, ParseError> {
        let mut got = vec![0; expected.len()];
        let filled = self.fill(&mut got)?;
        got.truncate(filled);
        Ok(match got == expected {
            true => Literal::Read,
            false if filled > 0 && expected.starts_with(&got) => Literal::CutShort(filled),
            false => Literal::Other(got),
        })
    }

    /// Reads the `n` ids of a sample. The count comes from the input, so the buffer grows with the
    /// bytes that actually arrive rather than with the count.
    fn read_ids(&mut self, n: usize, ids: &mut Vec<u8>) -> Result<(), ParseError> {
        let start = self.offset;
        let want = n.saturating_mul(4);
        ids.clear();
        let got = match (&mut self.input).take(want as u64).read_to_end(ids) {
            Ok(got) => got,
            Err(e) => return Err(self.error(start, ParseErrorKind::Io(e))),
        };
        self.offset += got as u64;
        if got < want {
            let expected = format!("the {n} frame ids the sample announces ({} more bytes)", want - got);
            return Err(self.unexpected(self.offset, &expected, &[]));
        }
        Ok(())
    }

    fn u32(&mut self, what: &str) -> Result<u32, ParseError> {
        let mut bytes = [0; 4];
        self.read_exact(&mut bytes, what)?;
        Ok(u32::from_be_bytes(bytes))
    }

    /// Text up to (not including) the next TAB or LF, and that byte.
    fn text(&mut self, what: &str) -> Result<(Vec<u8>, u8), ParseError> {
        let start = self.offset;
        let mut text = Vec::new();
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) => return Err(self.error(self.offset, ParseErrorKind::Io(e))),
            };
            if buf.is_empty() {
                return Err(self.unexpected(start, &format!("{what} ended by a TAB or LF"), &[]));
            }
            match memchr::memchr2(b'\t', b'\n', buf) {
                Some(i) => {
                    text.extend_from_slice(&buf[..i]);
                    let end = buf[i];
                    self.input.consume(i + 1);
                    self.offset += i as u64 + 1;
                    return Ok((text, end));
                }
                None => {
                    let n = buf.len();
                    text.extend_from_slice(buf);
                    self.input.consume(n);
                    self.offset += n as u64;
                }
            }
        }
    }
}

/// A symbol table entry as read.
struct Symbol {
    name: String,
    library: String,
    library2: String,
    unknown: u32,
    /// Its frame, once a stack or thread block used it.
    frame: Option<FrameId>,
}

/// The samples of one thread, aggregated by their raw bytes (the ids as written).
struct ThreadSamples {
    id: u16,
    stacks: IndexMap<Box<[u8]>, u64, FxBuildHasher>,
}

/// What a literal's bytes were.
enum Literal {
    Read,
    /// The input ended after this many bytes of it.
    CutShort(usize),
    /// Other bytes, these.
    Other(Vec<u8>),
}

/// Reads a Sampler file.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let order = options.order;
    let mut bytes = Bytes { input: BufReader::with_capacity(256 * 1024, input), offset: 0 };
    match bytes.read_literal(MAGIC)? {
        Literal::Read => {}
        // Cut inside its first line: a Sampler file all the same, cut short.
        Literal::CutShort(after) => {
            let expected = "the rest of the first line, @supersamplerV1.0 (the file looks cut short)";
            return Err(bytes.unexpected(after as u64, expected, &[]));
        }
        Literal::Other(_) => {
            let kind = ParseErrorKind::MissingMarker { format: FORMAT, expected: "@supersamplerV1.0 and a newline" };
            return Err(bytes.error(0, kind));
        }
    }
    bytes.literal(SYMBOL_TABLE, "@symboltableV1.1 and a newline")?;
    let mut symbols = read_symbols(&mut bytes, diag)?;
    let threads = read_threads(&mut bytes, &symbols, diag)?;
    let order = decide_order(order, &threads, diag);
    let mut profile = Profile::new(vec![Metric::samples()]);
    build(&mut profile, &mut symbols, &threads, order, diag);
    Ok(profile)
}

fn read_symbols<R: Read>(bytes: &mut Bytes<R>, diag: &mut Diagnostics) -> Result<FxHashMap<u32, Symbol>, ParseError> {
    let mut symbols = FxHashMap::default();
    loop {
        let start = bytes.offset;
        match bytes.peek()? {
            Some(b'\t') => {}
            Some(b'@') => {
                bytes.literal(END, "@end after the symbol table")?;
                return Ok(symbols);
            }
            other => {
                let found: Vec<u8> = other.into_iter().collect();
                return Err(bytes.unexpected(start, "a symbol (TAB) or @end", &found));
            }
        }
        bytes.literal(b"\t", "TAB")?;
        let id = bytes.u32("a symbol id")?;
        bytes.literal(b"\t", "TAB after the symbol id")?;
        let unknown = bytes.u32("the symbol's second number")?;
        bytes.literal(b"\t", "TAB after the symbol's second number")?;
        let mut fields = [String::new(), String::new(), String::new()];
        for (i, (field, what)) in
            fields.iter_mut().zip(["the symbol", "the library path", "the second library path"]).enumerate()
        {
            let at = bytes.offset;
            let (text, end) = bytes.text(what)?;
            let wanted = if i == 2 { b'\n' } else { b'\t' };
            if end != wanted {
                let expected = format!("{} after {what}", if wanted == b'\n' { "LF" } else { "TAB" });
                return Err(bytes.unexpected(bytes.offset - 1, &expected, &[end]));
            }
            *field = utf8(text, at, diag);
        }
        let [name, library, library2] = fields;
        if symbols.insert(id, Symbol { name, library, library2, unknown, frame: None }).is_some() {
            diag.warn("sampler-duplicate-symbol", Some(Position::byte(start)), || {
                format!("symbol id {id:#x} is defined twice; the last definition is used")
            });
        }
    }
}

/// Text as UTF-8; other bytes are replaced, with a warning.
fn utf8(text: Vec<u8>, at: u64, diag: &mut Diagnostics) -> String {
    String::from_utf8(text).unwrap_or_else(|e| {
        diag.warn("sampler-not-utf8", Some(Position::byte(at)), || {
            "text that is not UTF-8: bad bytes replaced by U+FFFD".into()
        });
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    })
}

fn read_threads<R: Read>(
    bytes: &mut Bytes<R>,
    symbols: &FxHashMap<u32, Symbol>,
    diag: &mut Diagnostics,
) -> Result<Vec<ThreadSamples>, ParseError> {
    let mut threads: Vec<ThreadSamples> = Vec::new();
    let mut current: Option<usize> = None;
    let mut header = [0u8; 16];
    let mut ids: Vec<u8> = Vec::new();
    loop {
        let start = bytes.offset;
        match bytes.peek()? {
            Some(b'@') => {
                let mut tag = [0u8; 5];
                bytes.read_exact(&mut tag, "@end or @threadV1.0")?;
                if tag == *END {
                    return match bytes.peek()? {
                        None => Ok(threads),
                        Some(b) => {
                            Err(bytes.unexpected(bytes.offset, "the end of the input after the final @end", &[b]))
                        }
                    };
                }
                let mut more = vec![0; THREAD.len() - tag.len()];
                bytes.read_exact(&mut more, "@threadV1.0")?;
                if tag != THREAD[..5] || more != THREAD[5..] {
                    let mut found = tag.to_vec();
                    found.extend_from_slice(&more);
                    return Err(bytes.unexpected(start, "@threadV1.0 or @end", &found));
                }
                let id_at = bytes.offset;
                let (hex, end) = bytes.text("the thread id")?;
                let id = std::str::from_utf8(&hex).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
                let id = match (id, end) {
                    (Some(id), b'\n') if id <= 0xFFFF && !hex.is_empty() => id as u16,
                    (Some(id), b'\n') => {
                        return Err(bytes.unexpected(
                            id_at,
                            "a thread id of at most ffff",
                            format!("{id:x}").as_bytes(),
                        ))
                    }
                    _ => return Err(bytes.unexpected(id_at, "a thread id in hexadecimal and a newline", &hex)),
                };
                current = Some(match threads.iter().position(|t| t.id == id) {
                    Some(i) => i,
                    None => {
                        threads.push(ThreadSamples { id, stacks: IndexMap::default() });
                        threads.len() - 1
                    }
                });
            }
            Some(b'\t') => {
                let Some(thread) = current else {
                    return Err(bytes.unexpected(start, "@threadV1.0 before the first sample", b"\t"));
                };
                // Most samples lie whole in the read buffer: count them there, without copying.
                let buffered = bytes.input.buffer();
                if let Some(len) = whole_sample(buffered) {
                    check_header(&buffered[1..17], start, diag);
                    add_stack(&mut threads[thread].stacks, &buffered[17..len - 1], symbols, start, diag);
                    bytes.input.consume(len);
                    bytes.offset += len as u64;
                    continue;
                }
                let mut tab = [0u8; 1];
                bytes.read_exact(&mut tab, "TAB")?;
                bytes.read_exact(&mut header, "a sample's four numbers")?;
                check_header(&header, start, diag);
                let n = u32::from_be_bytes([header[12], header[13], header[14], header[15]]) as usize;
                bytes.read_ids(n, &mut ids)?;
                let lf_at = bytes.offset;
                let mut lf = [0u8; 1];
                bytes.read_exact(&mut lf, "LF after the sample")?;
                if lf[0] != b'\n' {
                    return Err(bytes.unexpected(lf_at, &format!("LF after the sample's {n} frame ids"), &lf));
                }
                add_stack(&mut threads[thread].stacks, &ids, symbols, start, diag);
            }
            other => {
                let found: Vec<u8> = other.into_iter().collect();
                return Err(bytes.unexpected(start, "a sample (TAB), @threadV1.0 or the final @end", &found));
            }
        }
    }
}

/// The length of the sample (TAB, four numbers, the ids, LF) at the start of `buf`, if it is all
/// there and ends with its LF.
fn whole_sample(buf: &[u8]) -> Option<usize> {
    let count = buf.get(13..17)?;
    let n = u32::from_be_bytes([count[0], count[1], count[2], count[3]]) as usize;
    let len = n.checked_mul(4)?.checked_add(18)?;
    (buf.get(len - 1) == Some(&b'\n')).then_some(len)
}

/// Warns when a sample's first three numbers are not the 1, 0, 1 every known file has.
fn check_header(header: &[u8], at: u64, diag: &mut Diagnostics) {
    if header[..12] != [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1] {
        diag.warn("sampler-sample-header", Some(Position::byte(at)), || {
            "a sample does not start with the numbers 1, 0, 1: they are not kept".into()
        });
    }
}

/// Counts one sample of the stack `ids` (raw bytes); a stack seen for the first time has its ids
/// checked against the symbol table.
fn add_stack(
    stacks: &mut IndexMap<Box<[u8]>, u64, FxBuildHasher>,
    ids: &[u8],
    symbols: &FxHashMap<u32, Symbol>,
    at: u64,
    diag: &mut Diagnostics,
) {
    match stacks.get_mut(ids) {
        Some(count) => *count += 1,
        None => {
            check_ids(ids, symbols, at, diag);
            stacks.insert(ids.into(), 1);
        }
    }
}

fn check_ids(ids: &[u8], symbols: &FxHashMap<u32, Symbol>, at: u64, diag: &mut Diagnostics) {
    for id in ids.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])) {
        if !symbols.contains_key(&id) {
            diag.warn("sampler-unknown-id", Some(Position::byte(at)), || {
                format!("a sample names symbol id {id:#x}, which the symbol table lacks: shown as a placeholder frame")
            });
        }
    }
}

/// Decides the frame order (docs/formats.md, "Sampler frame order is not known"): a nearly constant last id means leaf-first.
fn decide_order(order: FrameOrder, threads: &[ThreadSamples], diag: &mut Diagnostics) -> FrameOrder {
    if order != FrameOrder::Auto {
        return order;
    }
    let mut first: FxHashMap<&[u8], u64> = FxHashMap::default();
    let mut last: FxHashMap<&[u8], u64> = FxHashMap::default();
    let mut total = 0u64;
    for (stack, &count) in threads.iter().flat_map(|t| t.stacks.iter()).filter(|(s, _)| s.len() >= 8) {
        *first.entry(&stack[..4]).or_default() += count;
        *last.entry(&stack[stack.len() - 4..]).or_default() += count;
        total += count;
    }
    if total == 0 {
        return FrameOrder::LeafFirst; // no sample with two frames: the order changes nothing
    }
    let share = |m: &FxHashMap<&[u8], u64>| m.values().copied().max().unwrap_or(0) as f64 / total as f64;
    let (first, last) = (share(&first), share(&last));
    if last >= 0.6 && last > first + 0.2 {
        FrameOrder::LeafFirst
    } else if first >= 0.6 && first > last + 0.2 {
        diag.warn("sampler-order", None, || {
            format!("frame order: the first frame of {:.0}% of samples is the same one, so stacks read root-first (override with --sampler-order)", first * 100.0)
        });
        FrameOrder::RootFirst
    } else {
        diag.warn("sampler-order", None, || {
            format!("frame order: no frame is clearly the outermost (first {:.0}%, last {:.0}% constant); reading leaf-first (set --sampler-order to be sure)", first * 100.0, last * 100.0)
        });
        FrameOrder::LeafFirst
    }
}

/// The frame of symbol `id`, interned on first use with its attrs.
fn symbol_frame(profile: &mut Profile, symbols: &mut FxHashMap<u32, Symbol>, id: u32, kind: FrameKind) -> FrameId {
    let Some(symbol) = symbols.get_mut(&id) else {
        if kind == FrameKind::Thread {
            return profile.frames.intern(FrameRef::named(&format!("Thread_{id:04x}"), kind));
        }
        // A placeholder keeps the id it stands for, as a symbol would.
        let frame = profile.frames.intern(FrameRef::named(&format!("<unknown symbol {id:#x}>"), kind));
        profile.frame_attrs.insert(frame, vec![("sampler.id".to_string(), format!("{id:#x}"))]);
        return frame;
    };
    if let Some(frame) = symbol.frame.filter(|f| profile.frames.get(*f).kind == kind) {
        return frame;
    }
    // A thread's symbol conventionally repeats its name as the library path.
    let default_library = if kind == FrameKind::Thread { symbol.name.as_str() } else { "" };
    let module = (symbol.library != default_library).then_some(symbol.library.as_str());
    let frame = profile.frames.intern(FrameRef { module, ..FrameRef::named(&symbol.name, kind) });
    let mut attrs = Vec::new();
    if kind == FrameKind::Function {
        attrs.push(("sampler.id".to_string(), format!("{id:#x}")));
    }
    if symbol.unknown != 0 {
        attrs.push(("sampler.unknown".to_string(), symbol.unknown.to_string()));
    }
    if symbol.library2 != symbol.library {
        attrs.push(("sampler.library2".to_string(), symbol.library2.clone()));
    }
    if !attrs.is_empty() {
        profile.frame_attrs.insert(frame, attrs);
    }
    symbol.frame = Some(frame);
    frame
}

fn build(
    profile: &mut Profile,
    symbols: &mut FxHashMap<u32, Symbol>,
    threads: &[ThreadSamples],
    order: FrameOrder,
    diag: &mut Diagnostics,
) {
    let mut index = ChildIndex::default();
    let mut frames: Vec<FrameId> = Vec::new();
    // The first thread id of each thread frame: threads of one name are one root, said.
    let mut ids_of_frames: FxHashMap<FrameId, u16> = FxHashMap::default();
    for thread in threads {
        let thread_frame = symbol_frame(profile, symbols, u32::from(thread.id), FrameKind::Thread);
        let first = *ids_of_frames.entry(thread_frame).or_insert(thread.id);
        if first != thread.id {
            let name = profile.frames.get(thread_frame).name.clone();
            diag.warn("sampler-thread-names", None, || {
                format!("threads {first:04x} and {:04x} are both named {name}: their samples are one thread's", thread.id)
            });
        }
        let root = index.child_or_insert(&mut profile.tree, None, thread_frame);
        for (stack, &count) in &thread.stacks {
            frames.clear();
            for id in stack.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])) {
                frames.push(symbol_frame(profile, symbols, id, FrameKind::Function));
            }
            if order != FrameOrder::RootFirst {
                frames.reverse();
            }
            let mut node = root;
            for &frame in &frames {
                node = index.child_or_insert(&mut profile.tree, Some(node), frame);
            }
            profile.tree.add_self(0, node, Value::Int(i64::try_from(count).unwrap_or(i64::MAX)));
        }
    }
}

/// Writes `profile` (projected to one count metric, every root a thread) as a Sampler file.
pub(crate) fn write(profile: &Profile, Writing { out, options, .. }: Writing<'_>) -> Result<(), Error> {
    let tree = &profile.tree;
    let Values::Int(counts) = tree.self_values(0) else {
        return Err(Error::Unrepresentable { format: FORMAT, what: "sample counts must be whole numbers".into() });
    };
    let total = counts.iter().fold(0u64, |sum, &c| sum.saturating_add(c.max(0) as u64));
    if total > options.max_samples {
        let max = options.max_samples;
        let what = format!("{total} samples would be {total} sample lines, more than --max-samples {max} allows (raise it to write them)");
        return Err(Error::Unrepresentable { format: FORMAT, what });
    }
    // A record per sample, each a tab, four words, the stack's ids below its thread and a line end.
    let id_bytes = |node: NodeId| if tree.parent(node).is_some() { 4 } else { 0 };
    let records = |node: NodeId, _| (counts[node.index()].max(0) as u64, 18);
    super::stacks::check_output_size(FORMAT, super::stacks::whole_stacks_size(tree, id_bytes, records), options)?;
    let Values::Int(inclusive) = tree.derived_inclusive(0) else {
        return Err(Error::Unrepresentable { format: FORMAT, what: "sample counts must be whole numbers".into() });
    };
    let children = tree.children();
    let threads = thread_ids(profile, children.roots());
    let (symbols, symbol_ids) = symbol_ids(profile, &inclusive, &threads);
    out.write_all(MAGIC)?;
    out.write_all(SYMBOL_TABLE)?;
    for &(id, root) in &threads {
        let frame = tree.frame(root);
        let name = &profile.frames.get(frame).name;
        write_symbol(out, profile, u32::from(id), frame, name)?;
    }
    for &frame in &symbols {
        write_symbol(out, profile, symbol_ids[frame.index()], frame, "")?;
    }
    out.write_all(END)?;
    let leaf_first = options.formats.get::<Options>().order != FrameOrder::RootFirst;
    let mut line = Vec::with_capacity(256);
    let mut ids: Vec<u32> = Vec::new();
    for &(id, root) in &threads {
        writeln!(out, "@threadV1.0\t{id:04x}")?;
        // Depth-first below the thread root; `path` holds the ids from the top of the block down.
        let mut stack: Vec<(NodeId, usize)> = vec![(root, 0)];
        let mut path: Vec<u32> = Vec::new();
        while let Some((node, depth)) = stack.pop() {
            if node != root {
                path.truncate(depth - 1);
                path.push(symbol_ids[tree.frame(node).index()]);
            }
            // Only a node with samples copies its path: a deep chain with a sample at its end stays
            // linear in its depth.
            if counts[node.index()] > 0 {
                ids.clear();
                ids.extend_from_slice(&path);
                if leaf_first {
                    ids.reverse();
                }
                write_samples(out, &ids, counts[node.index()], &mut line)?;
            }
            let with_samples = children.of_node(node).iter().rev().filter(|c| inclusive[c.index()] > 0);
            stack.extend(with_samples.map(|&c| (c, depth + 1)));
        }
    }
    out.write_all(END)?;
    Ok(())
}

/// The symbols to write, in the order the samples first use them (subtrees without samples write
/// nothing, not even a symbol), and their ids: the id a symbol was read with where no thread or
/// other symbol has it, else the next free one from 0x10000 up (above every thread id). A file read and written
/// again so keeps its ids.
fn symbol_ids(profile: &Profile, inclusive: &[i64], threads: &[(u16, NodeId)]) -> (Vec<FrameId>, Vec<u32>) {
    let tree = &profile.tree;
    let mut symbols: Vec<FrameId> = Vec::new();
    let mut listed = vec![false; profile.frames.len()];
    for visit in tree.walk() {
        let frame = tree.frame(visit.node);
        if visit.depth > 0 && inclusive[visit.node.index()] > 0 && !listed[frame.index()] {
            listed[frame.index()] = true;
            symbols.push(frame);
        }
    }
    let kept_id = |frame: FrameId| {
        let attrs = profile.frame_attrs.get(&frame)?;
        let (_, text) = attrs.iter().find(|(k, _)| k == "sampler.id")?;
        u32::from_str_radix(text.trim_start_matches("0x"), 16).ok()
    };
    let mut ids = vec![0u32; profile.frames.len()];
    let mut used: rustc_hash::FxHashSet<u32> = threads.iter().map(|&(id, _)| u32::from(id)).collect();
    for &frame in &symbols {
        if let Some(id) = kept_id(frame).filter(|id| used.insert(*id)) {
            ids[frame.index()] = id;
        }
    }
    let mut next = FIRST_SYMBOL_ID;
    for &frame in &symbols {
        if ids[frame.index()] == 0 {
            while used.contains(&next) {
                next += 1;
            }
            used.insert(next);
            ids[frame.index()] = next;
        }
    }
    (symbols, ids)
}

/// Sampler's fitting of a profile's roots (called by the conversion step): every stack belongs to
/// a thread, so roots that are not threads go under one thread ("no threads into Sampler: one
/// thread", docs/conversions.md), and frames below the roots are functions (a thread is only a block).
pub(crate) fn fit_roots(profile: &mut Profile) {
    put_roots_in_a_thread(profile);
    ops::make_functions(profile, ops::is_nested_non_code);
}

/// Gathers the roots that are not threads under one thread root, for formats whose every stack
/// belongs to a thread ("no threads into Sampler: one thread", docs/conversions.md).
fn put_roots_in_a_thread(profile: &mut Profile) {
    let tree = &profile.tree;
    let loose = tree.roots().any(|r| profile.frames.get(tree.frame(r)).kind != FrameKind::Thread);
    if !loose {
        return;
    }
    let taken = |n: u32| profile.frames.contains(FrameRef::named(&format!("Thread_{n:04x}"), FrameKind::Thread));
    let n = (1..=0xFFFF).find(|&n| !taken(n)).unwrap_or(0xFFFF);
    let thread = profile.frames.intern(FrameRef::named(&format!("Thread_{n:04x}"), FrameKind::Thread));
    *profile = ops::adopt_roots(profile, thread, |frame| frame.kind != FrameKind::Thread);
}

/// The 16-bit id in a thread name `Thread_xxxx`, the only names a thread-rooted format gives threads.
fn thread_name_id(name: &str) -> Option<u16> {
    name.strip_prefix("Thread_").filter(|h| h.len() == 4).and_then(|h| u16::from_str_radix(h, 16).ok())
}

/// A thread id for every root: from its `Thread_xxxx` name where that is free, else the next free id.
fn thread_ids(profile: &Profile, roots: &[NodeId]) -> Vec<(u16, NodeId)> {
    let tree = &profile.tree;
    let named = |r: NodeId| thread_name_id(&profile.frames.get(tree.frame(r)).name);
    let mut ids: Vec<Option<u16>> = Vec::with_capacity(roots.len());
    for &r in roots {
        let id = named(r).filter(|id| !ids.contains(&Some(*id)));
        ids.push(id);
    }
    let mut next = 1u16;
    let mut taken: Vec<u16> = ids.iter().flatten().copied().collect();
    roots
        .iter()
        .zip(ids)
        .map(|(&root, id)| {
            let id = id.unwrap_or_else(|| {
                while taken.contains(&next) {
                    next = next.wrapping_add(1);
                }
                taken.push(next);
                next
            });
            (id, root)
        })
        .collect()
}

/// One symbol table entry. A thread's library paths default to its name, as Sampler writes them.
fn write_symbol(
    out: &mut dyn Write,
    profile: &Profile,
    id: u32,
    frame: FrameId,
    default_library: &str,
) -> Result<(), Error> {
    let f = profile.frames.get(frame);
    let attr = |key: &str| {
        profile.frame_attrs.get(&frame).and_then(|a| a.iter().find(|(k, _)| k == key)).map(|(_, v)| v.as_str())
    };
    let unknown: u32 = attr("sampler.unknown").and_then(|v| v.parse().ok()).unwrap_or(0);
    let library = f.module.as_deref().unwrap_or(default_library);
    let library2 = attr("sampler.library2").unwrap_or(library);
    out.write_all(b"\t")?;
    out.write_all(&id.to_be_bytes())?;
    out.write_all(b"\t")?;
    out.write_all(&unknown.to_be_bytes())?;
    for text in [f.name.as_str(), library, library2] {
        out.write_all(b"\t")?;
        out.write_all(clean(text).as_bytes())?;
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// Text fields end at TAB or LF. Frame names were fitted already; a module or kept attr may not be.
fn clean(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\t', '\n']) {
        std::borrow::Cow::Owned(text.replace(['\t', '\n'], " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Writes `count` identical sample lines for the stack `ids`.
fn write_samples(out: &mut dyn Write, ids: &[u32], count: i64, line: &mut Vec<u8>) -> Result<(), Error> {
    if count <= 0 {
        return Ok(());
    }
    line.clear();
    line.push(b'\t');
    for n in [1u32, 0, 1, ids.len() as u32] {
        line.extend_from_slice(&n.to_be_bytes());
    }
    for id in ids {
        line.extend_from_slice(&id.to_be_bytes());
    }
    line.push(b'\n');
    for _ in 0..count {
        out.write_all(line)?;
    }
    Ok(())
}
