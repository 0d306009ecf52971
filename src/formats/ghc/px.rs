//! GHC `+RTS -px` cost-centre stack logs.
//!
//! **Producer**: GHC 4.08 to 7.2 (`rts/Profiling.c`, removed in 7.4), for the `ghcprof` viewer. The file
//! is named `<prog>.prof` like the text report; despite the flag's "XML" name it is line-oriented text.
//!
//! ```text
//! "Wed Jun  3 21:49 1993"
//! "20 ms"
//! 1 9 "isEven" "Main"
//! 1 8 "main" "Main"
//! 1 1 "MAIN" "MAIN"
//! 2 1 1 1
//! 2 14 2 8 1
//! 2 15 2 9 14
//! 5 50 1 1 0 0 3 1 14 1 0 40 1 15 1 20 1000 0
//! ```
//!
//! **Grammar** (shared notes `formats.md` §1.3–1.6): a quoted timestamp line, a quoted `"N ms"` tick
//! length line, cost centres `1 id "label" "module"`, stacks `2 id 1 cc` (a root) or
//! `2 id 2 cc parent`, and one cost line `5 total-ticks (1 stack entries ticks alloc)* 0`.
//!
//! **Reading**: the module is taken from the right-hand end of a `1` line (labels may hold spaces,
//! and `"`: GHC never escaped them); a third string (pre-4.08 builds: the group) is dropped with a
//! warning. The first `2` line of a stack id is its tree edge; a repeat is a back edge of recursion
//! through another cost centre and only counted in a warning. Children keep the order their stacks
//! were declared in. Stacks without a cost record weigh zero. Cost centres used but never declared
//! (GHC 7.2 did not declare its built-ins) become `<cc N>` frames, with one warning. Like the
//! seed's Parsec parser, whitespace in the cost section may include line breaks, and text after
//! the final `0` is ignored (with a warning). Metrics: `ticks`, `entries` (per node) and `alloc`
//! in bytes: the file counts machine words, multiplied by `--ghc-word-size` (default 8).
//!
//! **Writing**: the timestamp (now, in GHC's `ctime` form without seconds, if the profile has none),
//! the interval in whole milliseconds (`--interval`, else the profile's, else 1 ms), one `1` line per
//! frame in descending id order as GHC wrote them, stacks numbered in pre-order from 1, and the cost
//! line ending ` 0`. Several roots go under one `MAIN` root. A `"` in a label or module is written
//! as `'` and a line break as a space, with a warning. Lost: frame kinds, line numbers (merged),
//! metrics other than ticks/entries/alloc, and allocation that is not a whole number of words
//! (rounded, with a warning).

use super::{cost_centre, new_profile, ALLOC, ENTRIES, TICKS};
use crate::convert::{ConvertOptions, DEFAULT_INTERVAL};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, ParseError, ParseErrorKind, Position};
use crate::formats::{Carries, Format, Sniff};
use crate::model::{FrameId, FrameRef, MetricKind, NodeId, Profile, Value};
use crate::text::{Line, Lines};
use rustc_hash::FxHashMap;
use std::io::{Read, Write};
use std::time::Duration;

/// What a `-px` file carries.
pub(crate) const CARRIES: Carries = super::carries(
    &[MetricKind::Ticks, MetricKind::Calls, MetricKind::Alloc],
    false,
    &[('"', '\''), ('\n', ' '), ('\r', ' ')],
);

const FORMAT: Format = Format::GhcPx;

/// `Yes` when the first two lines are a quoted line and a quoted `"N ms"`.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
        return Sniff::No;
    };
    let interval = std::str::from_utf8(second).ok().and_then(|s| quoted(s)).and_then(parse_interval_header);
    if quoted_bytes(first) && interval.is_some() {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

fn quoted_bytes(line: &[u8]) -> bool {
    line.len() >= 2 && line[0] == b'"' && line[line.len() - 1] == b'"'
}

/// The text inside `"…"`, if `line` is exactly that.
fn quoted(line: &str) -> Option<&str> {
    line.strip_prefix('"')?.strip_suffix('"')
}

/// `N ms` as a duration.
fn parse_interval_header(text: &str) -> Option<Duration> {
    let ms: u64 = text.strip_suffix(" ms")?.trim().parse().ok()?;
    Some(Duration::from_millis(ms))
}

/// Reads a `-px` file; allocation words are multiplied by `word_size` into bytes.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    word_size: u64,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut lines = Lines::new(input, FORMAT);
    let mut reader = PxReader::new();
    let first = lines.next_line()?;
    let after_first = first.as_ref().map_or(Position::line(1, 0), |l| next_line_position(l));
    reader.profile.meta.timestamp =
        Some(read_header(first, Position::line(1, 0), "the timestamp line in double quotes")?.into());
    let second = lines.next_line()?;
    let mut last = second.as_ref().map_or(after_first, |l| next_line_position(l));
    let second_at = second.as_ref().map_or(after_first, |l| l.position);
    let interval_text = read_header(second, after_first, "the tick length line in double quotes (\"20 ms\")")?;
    match parse_interval_header(interval_text) {
        Some(interval) => reader.profile.meta.interval = Some(interval),
        None => {
            let text = interval_text.to_string();
            diag.warn("interval-header", Some(second_at), || {
                format!("the tick length {text:?} is not \"N ms\": the profile has no interval")
            });
        }
    }
    let mut costs = CostSection::default();
    while let Some(line) = lines.next_line()? {
        last = next_line_position(&line);
        if costs.started {
            costs.feed(&line, 0, &mut reader, diag)?;
        } else {
            reader.declaration(&line, &mut costs, diag)?;
        }
    }
    if !costs.done {
        let expected = if costs.started { "the cost line's terminating 0" } else { "the cost line (5 …)" };
        return Err(ParseError {
            format: FORMAT,
            position: last,
            kind: ParseErrorKind::Unexpected { expected: expected.into(), found: "the end of the input".into() },
        });
    }
    reader.build(word_size, diag)
}

/// The text of a quoted header line, or an error naming what was expected.
fn read_header<'a>(line: Option<Line<'a>>, at_end: Position, expected: &'static str) -> Result<&'a str, ParseError> {
    let Some(line) = line else {
        return Err(ParseError {
            format: FORMAT,
            position: at_end,
            kind: ParseErrorKind::Unexpected { expected: expected.into(), found: "the end of the input".into() },
        });
    };
    quoted(line.text).ok_or_else(|| {
        line.error(ParseErrorKind::Unexpected { expected: expected.into(), found: excerpt(line.text.as_bytes()) })
    })
}

/// Where the line after `line` starts, for an input that ends there (assuming an LF ending).
fn next_line_position(line: &Line<'_>) -> Position {
    let next = line.position.line.map_or(1, |n| n + 1);
    Position::line(next, line.position.byte + line.text.len() as u64 + 1)
}

/// One `2` line's tree edge, and where it was declared (for errors).
struct Stack {
    id: u64,
    cc: u64,
    /// The parent's stack id, or [`NO_PARENT`] for a root.
    parent: u64,
    line: u64,
    byte: u64,
}

const NO_PARENT: u64 = u64::MAX;

impl Stack {
    fn position(&self) -> Position {
        Position::line(self.line, self.byte)
    }
}

/// Ids (stack or cost centre) → indices. GHC numbers both from 1 up, so a vector indexed by id
/// holds them in 4 bytes each; an id far beyond the count so far (a damaged or hostile file) goes to
/// a hash map instead, so that no input makes the reader allocate much more than its size.
#[derive(Default)]
struct IdIndex {
    dense: Vec<u32>,
    sparse: FxHashMap<u64, u32>,
    /// How many ids are mapped: the vector never grows past a few times this (or 1 Mi ids).
    len: usize,
}

const ABSENT: u32 = u32::MAX;

impl IdIndex {
    fn get(&self, id: u64) -> Option<u32> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(&v) if v != ABSENT => Some(v),
            _ => self.sparse.get(&id).copied(),
        }
    }

    /// Maps `id` to `value` unless it is mapped already; returns whether it was new.
    fn insert(&mut self, id: u64, value: u32) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        self.len += 1;
        let limit = (1usize << 20).max(self.len.saturating_mul(4));
        match usize::try_from(id).ok().filter(|&i| i < limit) {
            Some(i) => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, ABSENT);
                }
                self.dense[i] = value;
            }
            None => {
                self.sparse.insert(id, value);
            }
        }
        true
    }
}

struct PxReader {
    profile: Profile,
    /// Cost centre id → frame id.
    cost_centres: IdIndex,
    /// Stacks in declaration order, and stack id → index.
    stacks: Vec<Stack>,
    stack_index: IdIndex,
    /// Entries, ticks, alloc (words) per stack, by index, and whether the stack had a record.
    costs: Vec<[u64; 3]>,
    has_costs: Vec<bool>,
    total_ticks: u64,
}

impl PxReader {
    fn new() -> PxReader {
        PxReader {
            profile: new_profile(),
            cost_centres: IdIndex::default(),
            stacks: Vec::new(),
            stack_index: IdIndex::default(),
            costs: Vec::new(),
            has_costs: Vec::new(),
            total_ticks: 0,
        }
    }

    /// A line between the headers and the cost line: `1`, `2`, or the start of the cost line.
    fn declaration(
        &mut self,
        line: &Line<'_>,
        costs: &mut CostSection,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let text = line.text;
        match text.as_bytes().first() {
            Some(b'1') => self.cost_centre(line, diag),
            Some(b'2') => self.stack(line, diag),
            Some(b'5') => {
                costs.started = true;
                costs.feed(line, 1, self, diag)
            }
            _ if text.trim().is_empty() => {
                diag.warn("blank-line", Some(line.position), || "blank line skipped".into());
                Ok(())
            }
            _ => Err(line.error(ParseErrorKind::Unexpected {
                expected: "a cost centre (1 …), stack (2 …) or cost line (5 …)".into(),
                found: excerpt(text.as_bytes()),
            })),
        }
    }

    /// `1 id "label" "module"` (or with a third string).
    fn cost_centre(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let Some((id, label, module, group)) = parse_cost_centre(line.text) else {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "a cost centre line: 1 id \"label\" \"module\"".into(),
                found: excerpt(line.text.as_bytes()),
            }));
        };
        if group.is_some() {
            diag.warn("cc-group", Some(line.position), || {
                "a cost centre line with a third string (pre-4.08 group): the group is dropped".into()
            });
        }
        let frame = self.profile.frames.intern(cost_centre(label, module));
        if self.cost_centres.get(id).is_some_and(|old| old != frame.0) {
            diag.warn("cc-redeclared", Some(line.position), || {
                format!("cost centre {id} declared again with another name: the first one is kept")
            });
        }
        self.cost_centres.insert(id, frame.0);
        Ok(())
    }

    /// `2 id 1 cc` or `2 id 2 cc parent`.
    fn stack(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let bad = || {
            line.error(ParseErrorKind::Unexpected {
                expected: "a stack line: 2 id 1 cc (a root) or 2 id 2 cc parent".into(),
                found: excerpt(line.text.as_bytes()),
            })
        };
        let mut fields = tokens(line.text).skip(1).map(|(_, f)| parse_u64(f.as_bytes()));
        let (Some(Some(id)), Some(Some(kind)), Some(Some(cc))) = (fields.next(), fields.next(), fields.next()) else {
            return Err(bad());
        };
        let parent = match (kind, fields.next()) {
            (1, None) => NO_PARENT,
            (2, Some(Some(parent))) if parent != NO_PARENT => parent,
            _ => return Err(bad()),
        };
        if fields.next().is_some() || !line.text.starts_with("2 ") {
            return Err(bad());
        }
        let index = u32::try_from(self.stacks.len()).map_err(|_| bad())?;
        if !self.stack_index.insert(id, index) {
            diag.warn("back-edge", Some(line.position), || {
                format!("stack {id} declared again: a back edge (recursion through another cost centre), not part of the tree")
            });
            return Ok(());
        }
        let position = line.position;
        self.stacks.push(Stack { id, cc, parent, line: position.line.unwrap_or(0), byte: position.byte });
        self.costs.push([0; 3]);
        self.has_costs.push(false);
        Ok(())
    }

    /// The index of stack `id`, which is about to get its cost record.
    fn stack_for_costs(&self, id: u64) -> Result<usize, ParseErrorKind> {
        let Some(i) = self.stack_index.get(id).map(|i| i as usize) else {
            return Err(ParseErrorKind::Unexpected {
                expected: "costs of a declared stack".into(),
                found: format!("costs of stack {id}, never declared"),
            });
        };
        if self.has_costs[i] {
            return Err(ParseErrorKind::Unexpected {
                expected: "one cost record per stack".into(),
                found: format!("a second record for stack {id}"),
            });
        }
        Ok(i)
    }

    /// The children of every stack in declaration order, as one array with offsets per stack
    /// (compressed: 8 bytes a stack), and the roots.
    #[allow(clippy::type_complexity)]
    fn child_lists(&self) -> Result<(Vec<u32>, Vec<u32>, Vec<u32>), ParseError> {
        let n = self.stacks.len();
        let mut parent_of: Vec<u32> = Vec::with_capacity(n);
        let mut counts = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for (i, stack) in self.stacks.iter().enumerate() {
            if stack.parent == NO_PARENT {
                roots.push(i as u32);
                parent_of.push(ABSENT);
                continue;
            }
            let Some(p) = self.stack_index.get(stack.parent) else {
                return Err(ParseError {
                    format: FORMAT,
                    position: stack.position(),
                    kind: ParseErrorKind::Unexpected {
                        expected: format!("stack {}'s parent to be a declared stack", stack.id),
                        found: format!("stack {}, never declared", stack.parent),
                    },
                });
            };
            parent_of.push(p);
            counts[p as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let offsets = counts.clone();
        let mut next = counts;
        let mut children = vec![0u32; offsets[n] as usize];
        for (i, &p) in parent_of.iter().enumerate().filter(|(_, &p)| p != ABSENT) {
            children[next[p as usize] as usize] = i as u32;
            next[p as usize] += 1;
        }
        Ok((offsets, children, roots))
    }

    /// Builds the tree: every stack under its parent, in declaration order, depth first.
    fn build(mut self, word_size: u64, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let n = self.stacks.len();
        let (offsets, children, roots) = self.child_lists()?;
        let mut undeclared: Vec<u64> = Vec::new();
        let mut placed = vec![false; n];
        let mut todo: Vec<(u32, Option<NodeId>)> = roots.iter().rev().map(|&r| (r, None)).collect();
        let mut sum_ticks = 0u64;
        while let Some((i, parent)) = todo.pop() {
            let i = i as usize;
            let cc = self.stacks[i].cc;
            let frame = match self.cost_centres.get(cc) {
                Some(frame) => FrameId(frame),
                None => {
                    undeclared.push(cc);
                    let frame = self.profile.frames.intern(FrameRef::function(&format!("<cc {cc}>")));
                    self.cost_centres.insert(cc, frame.0);
                    frame
                }
            };
            let node = self.profile.tree.push(parent, frame);
            placed[i] = true;
            let [entries, ticks, words] = self.costs[i];
            sum_ticks = sum_ticks.saturating_add(ticks);
            let tree = &mut self.profile.tree;
            tree.set_self(ENTRIES, node, Value::Int(to_i64(entries)));
            tree.set_self(TICKS, node, Value::Int(to_i64(ticks)));
            tree.set_self(ALLOC, node, Value::Int(to_i64(words.saturating_mul(word_size))));
            let mine = &children[offsets[i] as usize..offsets[i + 1] as usize];
            todo.extend(mine.iter().rev().map(|&c| (c, Some(node))));
        }
        // A stack never reached is in a cycle of parents or below one.
        if let Some(lost) = placed.iter().position(|&p| !p) {
            let stack = &self.stacks[lost];
            return Err(ParseError {
                format: FORMAT,
                position: stack.position(),
                kind: ParseErrorKind::Unexpected {
                    expected: format!("stack {} to lead up to a root stack", stack.id),
                    found: "a cycle of parent stacks".into(),
                },
            });
        }
        if !undeclared.is_empty() {
            let ids: Vec<String> = undeclared.iter().map(u64::to_string).collect();
            diag.warn("undeclared-cc", None, || {
                format!(
                    "cost centres used by stacks but never declared (GHC 7.2 did not declare its built-ins) are named <cc N>: {}",
                    ids.join(", ")
                )
            });
        }
        if sum_ticks != self.total_ticks {
            let total = self.total_ticks;
            diag.warn("total-ticks", None, || {
                format!("the cost line's total of {total} ticks differs from the sum of its stacks, {sum_ticks}")
            });
        }
        Ok(self.profile)
    }
}

/// Decimal digits as a number (no sign, no spaces), or `None`.
fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(value)
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Splits a cost centre line: id, label, module, and the third string if there is one. The module
/// is the last quoted string (a module cannot hold `"` or a space); the label is everything between
/// the first `"` and the `"` before the module's, so it may hold spaces and quotes.
fn parse_cost_centre(line: &str) -> Option<(u64, &str, &str, Option<&str>)> {
    let rest = line.strip_prefix("1 ")?;
    let (id, strings) = rest.split_once(' ')?;
    let id: u64 = id.parse().ok()?;
    let inner = quoted(strings)?;
    let (label, last) = inner.rsplit_once("\" \"")?;
    if last.contains('"') {
        return None;
    }
    // A third string: the part before it ends with `" "Module"`, a module name.
    if let Some((label3, module)) = label.rsplit_once("\" \"") {
        if looks_like_module(module) {
            return Some((id, label3, module, Some(last)));
        }
    }
    Some((id, label, last, None))
}

/// A Haskell module name: capitalised identifiers joined by dots.
fn looks_like_module(text: &str) -> bool {
    text.split('.').all(|part| {
        part.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
    })
}

/// The cost section: tokens across lines until the final `0`.
#[derive(Default)]
struct CostSection {
    started: bool,
    done: bool,
    /// Whether the total ticks were read.
    have_total: bool,
    /// The fields of the record being read (`1 stack entries ticks alloc`), and how many are in.
    record: [u64; 5],
    filled: usize,
    /// The index of the stack whose record is being read.
    stack: Option<usize>,
    /// Whether text after the final `0` was reported.
    trailing_reported: bool,
}

impl CostSection {
    /// Reads the tokens of `line` after the first `skip` of them.
    fn feed(
        &mut self,
        line: &Line<'_>,
        skip: usize,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let text = line.text;
        for (offset, token) in tokens(text).skip(skip) {
            if self.done {
                if !self.trailing_reported {
                    self.trailing_reported = true;
                    let at = column_position(line, offset);
                    diag.warn("trailing-text", Some(at), || "text after the cost line's final 0 is ignored".into());
                }
                return Ok(());
            }
            let at = || column_position(line, offset);
            let number = |what: &'static str| {
                parse_u64(token.as_bytes()).ok_or_else(|| ParseError {
                    format: FORMAT,
                    position: at(),
                    kind: ParseErrorKind::InvalidNumber { field: what, text: token.to_string() },
                })
            };
            if !self.have_total {
                reader.total_ticks = number("the total ticks after 5")?;
                self.have_total = true;
                continue;
            }
            if self.filled == 0 {
                match token {
                    "1" => self.filled = 1,
                    "0" => self.done = true,
                    _ => {
                        return Err(ParseError {
                            format: FORMAT,
                            position: at(),
                            kind: ParseErrorKind::Unexpected {
                                expected: "1 (a stack's costs) or the terminating 0".into(),
                                found: excerpt(token.as_bytes()),
                            },
                        })
                    }
                }
                continue;
            }
            const FIELDS: [&str; 5] = ["", "a stack id", "entries", "ticks", "alloc"];
            self.record[self.filled] = number(FIELDS[self.filled])?;
            if self.filled == 1 {
                self.stack = Some(reader.stack_for_costs(self.record[1]).map_err(|kind| ParseError {
                    format: FORMAT,
                    position: at(),
                    kind,
                })?);
            }
            self.filled += 1;
            if self.filled == 5 {
                self.filled = 0;
                let [_, _, entries, ticks, alloc] = self.record;
                if let Some(i) = self.stack.take() {
                    reader.costs[i] = [entries, ticks, alloc];
                    reader.has_costs[i] = true;
                }
            }
        }
        Ok(())
    }
}

/// The whitespace-separated tokens of `text`, with their byte offsets.
fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, pos: 0 }
}

/// Iterator over the space- or tab-separated tokens of a line, with their byte offsets: a byte loop,
/// because the cost line alone can be most of a file.
struct Tokens<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let bytes = self.text.as_bytes();
        let is_space = |b: u8| b == b' ' || b == b'\t';
        while self.pos < bytes.len() && is_space(bytes[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < bytes.len() && !is_space(bytes[self.pos]) {
            self.pos += 1;
        }
        // Spaces and tabs are ASCII, so both ends are character boundaries.
        Some((start, &self.text[start..self.pos]))
    }
}

/// The position of byte `offset` of `line`, with its column.
fn column_position(line: &Line<'_>, offset: usize) -> Position {
    let column = line.text.get(..offset).map_or(0, |s| s.chars().count()) as u64 + 1;
    Position { byte: line.position.byte + offset as u64, line: line.position.line, column: Some(column) }
}

/// Writes `profile` (projected onto what `-px` carries) as a `-px` file.
pub(crate) fn write(
    profile: &Profile,
    out: &mut dyn Write,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    let timestamp = profile.meta.timestamp.clone().unwrap_or_else(now_ctime);
    writeln!(w, "\"{}\"", sanitise(&timestamp, diag))?;
    writeln!(w, "\"{} ms\"", interval_ms(options.interval.or(profile.meta.interval), diag))?;
    let tree = &profile.tree;
    // Cost centre ids count down the frame table, so that they come out descending as GHC's did and
    // a reader that interns them in file order rebuilds the same table.
    let n_frames = profile.frames.len() as u32;
    let cc_id = |frame: FrameId| n_frames - frame.0;
    for (id, frame) in profile.frames.iter() {
        let module = frame.module.as_deref().unwrap_or("");
        writeln!(w, "1 {} \"{}\" \"{}\"", cc_id(id), frame.name, sanitise(module, diag))?;
    }
    // Stacks are numbered 1.. in pre-order; `ids[node]` is a node's stack id.
    let mut ids = vec![0u64; tree.len()];
    let mut order = Vec::with_capacity(tree.len());
    for (n, visit) in tree.walk().enumerate() {
        let node = visit.node;
        ids[node.index()] = n as u64 + 1;
        order.push(node);
        let cc = cc_id(tree.frame(node));
        match tree.parent(node) {
            None => writeln!(w, "2 {} 1 {cc}", n + 1)?,
            Some(parent) => writeln!(w, "2 {} 2 {cc} {}", n + 1, ids[parent.index()])?,
        }
    }
    let column = |kind: MetricKind| profile.metrics().iter().position(|m| m.kind == kind);
    let (ticks, entries, alloc) = (column(MetricKind::Ticks), column(MetricKind::Calls), column(MetricKind::Alloc));
    let value = |m: Option<usize>, node: NodeId| m.map_or(0, |m| tree.self_value(m, node).as_count().max(0) as u64);
    let word = super::word_size(options.ghc_word_size);
    let total: u64 = order.iter().fold(0u64, |sum, &node| sum.saturating_add(value(ticks, node)));
    let mut digits = itoa::Buffer::new();
    w.write_all(b"5 ")?;
    w.write_all(digits.format(total).as_bytes())?;
    let mut rounded = false;
    for (n, &node) in order.iter().enumerate() {
        let bytes = value(alloc, node);
        rounded |= bytes % word != 0;
        let fields = [n as u64 + 1, value(entries, node), value(ticks, node), bytes.div_ceil(word)];
        w.write_all(b" 1")?;
        for field in fields {
            w.write_all(b" ")?;
            w.write_all(digits.format(field).as_bytes())?;
        }
    }
    w.write_all(b" 0\n")?;
    if rounded {
        diag.warn("alloc-rounded", None, || {
            format!(
                "ghc-px counts allocation in {word}-byte words: byte counts that are not whole words are rounded up"
            )
        });
    }
    w.flush()?;
    Ok(())
}

/// `text` with `"` and line breaks replaced (header texts and modules; frame names were fitted).
fn sanitise(text: &str, diag: &mut Diagnostics) -> String {
    if !text.contains(['"', '\n', '\r']) {
        return text.to_string();
    }
    diag.warn("px-quote", None, || "ghc-px strings cannot hold '\"' or line breaks: written as ' and space".into());
    text.replace('"', "'").replace(['\n', '\r'], " ")
}

/// The tick length in whole milliseconds (at least 1), with a warning when that rounds.
fn interval_ms(interval: Option<Duration>, diag: &mut Diagnostics) -> u128 {
    if interval.is_none() {
        diag.warn("interval-default", None, || {
            format!("the profile has no sampling interval: ghc-px writes {DEFAULT_INTERVAL:?} (set with --interval)")
        });
    }
    let interval = interval.unwrap_or(DEFAULT_INTERVAL);
    let ms = (interval.as_nanos() + 500_000) / 1_000_000;
    let ms = ms.max(1);
    if Duration::from_millis(ms as u64) != interval {
        diag.warn("interval-rounded", None, || {
            format!("ghc-px gives the tick length in whole milliseconds: {interval:?} is written as {ms} ms")
        });
    }
    ms
}

/// The current time as GHC's `time_str()` wrote it: `ctime()` without seconds, in UTC.
fn now_ctime() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    ctime_minutes(secs)
}

/// `Wed Jun  3 21:49 1993` for `secs` after the Unix epoch (UTC).
fn ctime_minutes(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = DAYS[(days.rem_euclid(7)) as usize];
    format!("{weekday} {} {day:>2} {hour:02}:{minute:02} {year}", MONTHS[(month - 1) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_centre_lines_take_the_module_from_the_right() {
        assert_eq!(parse_cost_centre(r#"1 10 "isOdd" "Main""#), Some((10, "isOdd", "Main", None)));
        assert_eq!(parse_cost_centre(r#"1 3 "a "b" c" "M.N""#), Some((3, r#"a "b" c"#, "M.N", None)));
        assert_eq!(parse_cost_centre(r#"1 3 "f" "Main" "grp""#), Some((3, "f", "Main", Some("grp"))));
        assert_eq!(parse_cost_centre(r#"1 3 "x" "y" "z""#), Some((3, r#"x" "y"#, "z", None)));
        assert_eq!(parse_cost_centre(r#"1 x "f" "M""#), None);
        assert_eq!(parse_cost_centre(r#"1 3 "f""#), None);
    }

    #[test]
    fn ctime_has_no_seconds_and_pads_the_day() {
        assert_eq!(ctime_minutes(739_144_140), "Thu Jun  3 21:49 1993");
        assert_eq!(ctime_minutes(0), "Thu Jan  1 00:00 1970");
    }

    #[test]
    fn sniff_wants_two_quoted_headers() {
        assert_eq!(sniff(b"\"Wed Jun  3 21:49 1993\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n"), Sniff::Yes);
        assert_eq!(sniff(b"\"x\"\r\n\"1 ms\"\r\n"), Sniff::Yes);
        assert_eq!(sniff(b"<?xml version=\"1.0\"?>\n<ProfileData>\n"), Sniff::No);
        assert_eq!(sniff(b"\"x\"\n\"fast\"\n"), Sniff::No);
    }

    /// The grammar of the seed's `ParseProfile.hs` (Parsec), as strictly as it reads: two quoted
    /// header lines, `1` lines with exactly two quoted strings (a string ends at its first `"`),
    /// then `2` lines, then `5 total ` and records `1 id e t a ` up to a `0`. Single spaces; `eol`
    /// is LF or CRLF. Returns where it failed.
    fn seed_grammar(text: &str) -> Result<(), String> {
        fn quoted(s: &str) -> Option<&str> {
            let rest = s.strip_prefix('"')?;
            let end = rest.find('"')?;
            Some(&rest[end + 1..])
        }
        fn natural(s: &str) -> Option<&str> {
            let n = s.bytes().take_while(u8::is_ascii_digit).count();
            (n > 0).then(|| &s[n..])
        }
        fn eol(s: &str) -> Option<&str> {
            s.strip_prefix("\r\n").or_else(|| s.strip_prefix('\n'))
        }
        let mut s = text;
        for header in ["timestamp", "interval"] {
            s = quoted(s).and_then(eol).ok_or(header)?;
        }
        while s.starts_with('1') {
            let rest = s.strip_prefix("1 ").and_then(natural).and_then(|r| r.strip_prefix(' '));
            let rest = rest.and_then(quoted).and_then(|r| r.strip_prefix(' ')).and_then(quoted).and_then(eol);
            s = rest.ok_or_else(|| format!("cost centre at {:?}", &s[..s.len().min(40)]))?;
        }
        while s.starts_with('2') {
            let rest = s.strip_prefix("2 ").and_then(natural).ok_or("stack id")?;
            let rest = match rest.strip_prefix(" 1 ") {
                Some(r) => natural(r),
                None => rest.strip_prefix(" 2 ").and_then(natural).and_then(|r| r.strip_prefix(' ')).and_then(natural),
            };
            s = rest.and_then(eol).ok_or("stack line")?;
        }
        s = s.strip_prefix("5 ").and_then(natural).and_then(|r| r.strip_prefix(' ')).ok_or("5 total")?;
        while !s.starts_with('0') {
            let mut rest = s.strip_prefix("1 ").ok_or("record")?;
            for _ in 0..4 {
                rest = natural(rest).and_then(|r| r.strip_prefix(' ')).ok_or("record field")?;
            }
            s = rest;
        }
        Ok(())
    }

    fn write_px(profile: Profile) -> (String, Diagnostics) {
        let mut out = Vec::new();
        let mut diag = Diagnostics::default();
        Format::GhcPx.write(profile, &mut out, &ConvertOptions::default(), &mut diag).unwrap();
        (String::from_utf8(out).unwrap(), diag)
    }

    fn read_as(format: Format, text: &str) -> Profile {
        let mut diag = Diagnostics::default();
        format.read(&mut text.as_bytes(), &crate::formats::ReadOptions::default(), &mut diag).unwrap()
    }

    #[test]
    fn the_seed_grammar_accepts_what_the_writer_writes() {
        let notes = include_str!("../../../fixtures/ghc-px/notes-example.px");
        assert_eq!(seed_grammar(notes), Ok(()));
        let sources = [
            (Format::GhcPx, notes),
            (Format::GhcPx, include_str!("../../../fixtures/ghc-px/ghc72-undeclared.px")),
            (Format::GhcProf, include_str!("../../../fixtures/ghc-prof/inferno-utf8.prof")),
            (Format::Folded, "a;say \"hi\" 3\nb;c 1\n"),
            (Format::Lispworks, include_str!("../../../fixtures/lispworks/processes.tree")),
        ];
        for (format, text) in sources {
            let (written, _) = write_px(read_as(format, text));
            assert_eq!(seed_grammar(&written), Ok(()), "{format}:\n{written}");
        }
        assert!(seed_grammar("\"t\"\n\"20 ms\"\n1 1 \"a \"q\" b\" \"M\"\n5 0 0\n").is_err());
    }

    #[test]
    fn quotes_and_line_breaks_in_labels_are_replaced_with_a_warning() {
        let (written, diag) = write_px(read_as(Format::Folded, "main;say \"hi\" 3\n"));
        let body: Vec<&str> = written.lines().skip(1).collect();
        assert_eq!(
            body,
            [
                "\"1 ms\"",
                "1 2 \"main\" \"\"",
                "1 1 \"say 'hi'\" \"\"",
                "2 1 1 2",
                "2 2 2 1 1",
                "5 3 1 1 0 0 0 1 2 0 3 0 0"
            ]
        );
        assert!(diag.has("name-sanitised"), "{:?}", diag.warnings());
    }

    #[test]
    fn a_deep_chain_reads_without_recursion() {
        let depth = 200_000;
        let mut text = String::from("\"t\"\n\"1 ms\"\n1 1 \"f\" \"M\"\n2 1 1 1\n");
        for id in 2..=depth {
            text.push_str(&format!("2 {id} 2 1 {}\n", id - 1));
        }
        text.push_str(&format!("5 1 1 {depth} 1 1 8 0\n"));
        let profile = read_as(Format::GhcPx, &text);
        assert_eq!(profile.max_depth(), Some(depth - 1));
        assert_eq!(profile.total(TICKS), Value::Int(1));
    }

    #[test]
    fn scattered_ids_cannot_grow_the_index_without_bound() {
        let mut index = IdIndex::default();
        for k in 0..64 {
            assert!(index.insert(1u64 << k, k));
        }
        assert!(index.dense.len() <= 1 << 20, "{}", index.dense.len());
        assert_eq!(index.get(1 << 40), Some(40));
        assert_eq!(index.get(3), None);
        assert!(!index.insert(1 << 40, 0));
    }
}
