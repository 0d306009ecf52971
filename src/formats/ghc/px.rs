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
//! **Reading** is split over two threads (`text::pipeline`): a reader thread splits lines and parses
//! their numbers (`prepare`), the calling thread indexes the stacks and builds the profile. The cost
//! line, most of a file, is read in pieces of about 128 KiB cut after a space (`text::Blocks` splitting
//! long lines), so it is never held whole; other long lines are joined again. While every stack's
//! parent and cost centre were declared before it, as GHC writes them, each stack becomes a node as
//! it is declared. After the first that is not, stacks are kept as a parent index and a frame (8
//! bytes each; ids and positions only for the rare parent declared after its child) and the tree is
//! built, depth first, when the cost line starts. Each cost record goes straight into its node.
//!
//! A cost centre's module is taken from the right-hand end of its `1` line (labels may hold spaces,
//! and `"`: GHC never escaped them); a third string (pre-4.08 builds: the group) is dropped with a
//! warning. The first `2` line of a stack id is its tree edge; a repeat is a back edge of recursion
//! through another cost centre and only counted in a warning. Children keep the order their stacks
//! were declared in. Stacks without a cost record weigh zero. Cost centres used but never declared
//! (GHC 7.2 did not declare its built-ins) become `<cc N>` frames, with one warning. Like the
//! seed's Parsec parser (whose `space` is any one whitespace character), fields may be separated
//! by tabs, vertical tabs, form feeds, lone CRs or Unicode spaces as well as spaces (read on a
//! slow path, taken only when a line is not plain numbers and spaces), whitespace in the cost
//! section may include line breaks, and text after the final `0` is ignored (with a warning). A
//! count the model cannot hold (above `i64::MAX`, alloc after the word size) is an error. Metrics:
//! `ticks`, `entries` (per node) and `alloc` in bytes: the file counts machine words, multiplied
//! by `--ghc-word-size` (default 8).
//!
//! **Writing**: the timestamp (now, in GHC's `ctime` form without seconds, if the profile has none),
//! the interval in whole milliseconds (the profile's own, which conversion sets from `--interval`
//! where time became ticks or the profile has none; else 1 ms), one `1` line per frame in
//! descending id order as GHC wrote them, stacks numbered in pre-order from 1, and the cost line
//! ending ` 0`. The roots go under one added `MAIN` (module `MAIN`), with a warning, unless there
//! is one root and it is `MAIN` or the root of a GHC profile. A `"` in a label or module is
//! written as `'` and a line break as a space, with a warning. Lost: frame kinds, line numbers
//! (merged), metrics other than ticks/entries/alloc, and allocation that is not a whole number of
//! words (rounded, with a warning).

use super::{cost_centre, looks_like_module, profile_with, ALLOC, ENTRIES, MAX_COUNT, TICKS};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, ParseError, ParseErrorKind, Position};
use crate::formats::{Carries, Format, Sniff};
use crate::formats::{ConvertOptions, DEFAULT_INTERVAL};
use crate::model::{CallTree, FrameId, FrameRef, MetricKind, NodeId, Profile, Value, Values};
use crate::text::{self, Blocks, Line};
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
    let mut state = ReadState::new(word_size);
    let blocks = Blocks::new(input, FORMAT).splitting_long_lines();
    text::pipeline_blocks(blocks, prepare, |line, prepared| state.line(line, &prepared, diag))?;
    state.finish(diag)
}

/// Where the reader is in the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Timestamp,
    Interval,
    Declarations,
    Costs,
}

/// The consuming side of the read: the lines in order, with what [`prepare`] made of them.
struct ReadState {
    stage: Stage,
    reader: PxReader,
    costs: CostSection,
    /// The pieces so far of a long line that is read whole (any but the cost line), and where it starts.
    joined: String,
    joined_at: Option<Position>,
    /// Where the line after the last one starts (for errors at the end).
    last: Position,
}

impl ReadState {
    fn new(word_size: u64) -> ReadState {
        ReadState {
            stage: Stage::Timestamp,
            reader: PxReader::new(word_size),
            costs: CostSection::default(),
            joined: String::new(),
            joined_at: None,
            last: Position::line(1, 0),
        }
    }

    /// Takes one line or piece of a long line. Only the cost line is read in pieces: it is most of
    /// the file, and its tokens never span pieces.
    fn line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let cost_piece = self.stage == Stage::Costs
            || (self.stage == Stage::Declarations && self.joined_at.is_none() && line.text.starts_with('5'));
        if cost_piece || (self.joined_at.is_none() && !line.continues) {
            return self.whole_line(line, prepared, diag);
        }
        self.joined_at.get_or_insert(line.position);
        self.joined.push_str(line.text);
        if line.continues {
            return Ok(());
        }
        let text = std::mem::take(&mut self.joined);
        let at = self.joined_at.take().unwrap_or(line.position);
        let result = self.whole_line(Line::joined(&text, at, FORMAT), &prepare(&text), diag);
        self.joined = text;
        self.joined.clear();
        result
    }

    fn whole_line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        // The slow path, taken only where the fast parse failed: the seed's parser separates fields
        // with any one whitespace character, which for a stack or cost line is read as a space.
        if odd_spaces(&line, prepared) && self.stage != Stage::Timestamp && self.stage != Stage::Interval {
            let text: String = line.text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
            let mut spaced = Line::joined(&text, line.position, FORMAT);
            (spaced.start_column, spaced.continues) = (line.start_column, line.continues);
            return self.spaced_line(spaced, &prepare(&text), diag);
        }
        self.spaced_line(line, prepared, diag)
    }

    /// [`Self::whole_line`] once its separators are spaces and tabs.
    fn spaced_line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let next = next_line_position(&line);
        match self.stage {
            Stage::Timestamp => {
                let timestamp = read_header(&line, "the timestamp line in double quotes")?;
                self.reader.profile.meta.timestamp = Some(timestamp.into());
                self.stage = Stage::Interval;
            }
            Stage::Interval => {
                self.interval(&line, diag)?;
                self.stage = Stage::Declarations;
            }
            Stage::Declarations => {
                self.reader.declaration(&line, prepared, &mut self.costs, diag)?;
                if self.costs.started {
                    self.stage = Stage::Costs;
                }
            }
            Stage::Costs => self.costs.feed(&line, prepared, 0, &mut self.reader, diag)?,
        }
        self.last = next;
        Ok(())
    }

    /// The second header line, `"N ms"`.
    fn interval(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let text = read_header(line, Self::INTERVAL_HEADER)?;
        match parse_interval_header(text) {
            Some(interval) => self.reader.profile.meta.interval = Some(interval),
            None => {
                let text = text.to_string();
                diag.warn("interval-header", Some(line.position), || {
                    format!("the tick length {text:?} is not \"N ms\": the profile has no interval")
                });
            }
        }
        Ok(())
    }

    const INTERVAL_HEADER: &'static str = "the tick length line in double quotes (\"20 ms\")";

    /// After the last line: the error for a file that ends early, else the profile.
    fn finish(self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let (position, expected) = match self.stage {
            Stage::Timestamp => (self.last, "the timestamp line in double quotes"),
            Stage::Interval => (self.last, Self::INTERVAL_HEADER),
            Stage::Declarations => (self.last, "the cost line (5 …)"),
            Stage::Costs if !self.costs.done => (self.last, "the cost line's terminating 0"),
            Stage::Costs => return self.reader.finish(diag),
        };
        Err(ParseError {
            format: FORMAT.into(),
            position,
            kind: ParseErrorKind::Unexpected { expected: expected.into(), found: "the end of the input".into() },
        })
    }
}

/// The text of a quoted header line, or an error naming what was expected.
fn read_header<'a>(line: &Line<'a>, expected: &'static str) -> Result<&'a str, ParseError> {
    quoted(line.text).ok_or_else(|| {
        line.error(ParseErrorKind::Unexpected { expected: expected.into(), found: excerpt(line.text.as_bytes()) })
    })
}

/// Whether `line`, which the fast parse did not take as plain numbers, is a stack or cost line
/// (no quote) with whitespace other than spaces and tabs between its fields: a vertical tab, a form
/// feed, a lone CR, a Unicode space, all of which the seed's `space` takes.
fn odd_spaces(line: &Line<'_>, prepared: &Prepared) -> bool {
    let failed = match prepared {
        Prepared::Stack { .. } => false,
        Prepared::Tokens(many) => !many.odd.is_empty(),
        Prepared::Text => true,
    };
    failed && !line.text.contains('"') && line.text.chars().any(|c| c.is_whitespace() && c != ' ' && c != '\t')
}

/// Where the line after `line` starts, for an input that ends there (assuming an LF ending).
fn next_line_position(line: &Line<'_>) -> Position {
    let next = line.position.line.map_or(1, |n| n + 1);
    Position::line(next, line.position.byte + line.text.len() as u64 + 1)
}

/// What the reader thread makes of a line (or piece of the cost line) for the consuming thread:
/// the numbers, so that the consumer only does what needs the whole file's state.
/// Small, as there is one per line: a file is mostly stack lines.
enum Prepared {
    /// A well-formed stack line: `2 id 1 cc` (a root; `parent` is [`NO_PARENT`]) or `2 id 2 cc parent`.
    Stack { id: u64, cc: u64, parent: u64 },
    /// Any other line without a quote: the cost line, a piece of it, or damage.
    Tokens(Box<ManyTokens>),
    /// Anything else (headers, cost centre lines, damage): the consumer reads the text.
    Text,
}

impl Prepared {
    /// The tokens of a stack line again, for a cost section that spans lines.
    fn stack_tokens(id: u64, cc: u64, parent: u64) -> ([u64; 5], usize) {
        match parent {
            NO_PARENT => ([2, id, 1, cc, 0], 4),
            _ => ([2, id, 2, cc, parent], 5),
        }
    }
}

/// The tokens of a long line: plain numbers (no sign, no leading zero, at most 19 digits, so that
/// the number gives back the text), and where the others are, which are read from the text.
struct ManyTokens {
    numbers: Vec<u64>,
    /// The other tokens in order: their index among the tokens (where `numbers` holds 0), start and end.
    odd: Vec<OddToken>,
}

struct OddToken {
    index: usize,
    start: usize,
    end: usize,
}

/// What the reader thread makes of `text`: see [`Prepared`].
// Inlined into the loop that collects what it returns, so that the value is written where it is
// kept: returned from a call, its fields were stored one by one and copied on in wide loads, which
// stalled (perf put 38% of the collecting loop on one).
#[inline(always)]
fn prepare(text: &str) -> Prepared {
    let bytes = text.as_bytes();
    let mut few = [0u64; 5];
    let mut n = 0;
    for (_, number) in (NumberTokens { bytes, pos: 0 }) {
        match number {
            Some(value) if n < few.len() => few[n] = value,
            _ => return prepare_tokens(bytes),
        }
        n += 1;
    }
    match stack_fields(&few[..n]) {
        Some((id, cc, parent)) if bytes.starts_with(b"2 ") => Prepared::Stack { id, cc, parent },
        _ => prepare_tokens(bytes),
    }
}

/// A line that is not a stack line: the cost line (or a piece of it) unless it holds a quote.
#[inline(never)]
fn prepare_tokens(bytes: &[u8]) -> Prepared {
    if memchr::memchr(b'"', bytes).is_some() {
        return Prepared::Text;
    }
    // A cost line is 5 numbers of at least 2 bytes each, per record.
    let mut numbers = Vec::with_capacity(bytes.len() / 2);
    let mut odd = Vec::new();
    for (index, (start, number)) in (NumberTokens { bytes, pos: 0 }).enumerate() {
        if number.is_none() {
            let end = bytes[start..].iter().position(|&b| is_space(b)).map_or(bytes.len(), |i| start + i);
            odd.push(OddToken { index, start, end });
        }
        numbers.push(number.unwrap_or(0));
    }
    Prepared::Tokens(Box::new(ManyTokens { numbers, odd }))
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The space- or tab-separated tokens of a line as start offsets and plain numbers (`None` for
/// another token): one pass over the bytes, as most of a file is numbers.
struct NumberTokens<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Iterator for NumberTokens<'_> {
    type Item = (usize, Option<u64>);

    // Inlined into its two loops, which then keep its state in registers.
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, Option<u64>)> {
        let (bytes, n) = (self.bytes, self.bytes.len());
        let mut i = self.pos;
        while i < n && is_space(bytes[i]) {
            i += 1;
        }
        if i == n {
            self.pos = n;
            return None;
        }
        let start = i;
        // The commonest token (a cost record's flag, entries and ticks): one digit, then a space.
        let first = bytes[i].wrapping_sub(b'0');
        if first <= 9 && bytes.get(i + 1).is_some_and(|&b| is_space(b)) {
            self.pos = i + 2;
            return Some((start, Some(u64::from(first))));
        }
        let (digits, mut value) = match bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            Some(eight) => crate::text::digits8(eight),
            None => (0, 0),
        };
        // The usual token: a short number without a leading zero, then a space or tab (skipped too).
        if (1..8).contains(&digits) && is_space(bytes[i + digits]) && (digits == 1 || bytes[i] != b'0') {
            self.pos = i + digits + 1;
            return Some((start, Some(value)));
        }
        i += digits;
        if digits == 0 || digits == 8 {
            // Near the end of the line, or a long number: a byte at a time.
            while i < n {
                let digit = bytes[i].wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                // Wrapping: past 19 digits the token is not plain anyway.
                value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
                i += 1;
            }
        }
        let digits = i - start;
        let plain =
            (1..=19).contains(&digits) && (digits == 1 || bytes[start] != b'0') && (i == n || is_space(bytes[i]));
        if !plain {
            while i < n && !is_space(bytes[i]) {
                i += 1;
            }
        }
        self.pos = i;
        Some((start, plain.then_some(value)))
    }
}

/// A stack whose parent was not declared before it (rare: GHC declares a stack when it creates it,
/// after its parent), with what an error about it needs.
struct PendingParent {
    index: u32,
    id: u64,
    parent: u64,
    position: Position,
}

/// Markers in [`PxReader::parents`]: a root, and a parent looked up when the tree is built.
const ROOT: u32 = u32::MAX;
const PENDING: u32 = u32::MAX - 1;
/// Marker in [`PxReader::frames`]: a cost centre not declared (yet), in `pending_ccs`.
const UNRESOLVED: u32 = u32::MAX;

struct PxReader {
    profile: Profile,
    word_size: u64,
    /// The most words of allocation whose bytes the model holds (`i64::MAX` / `word_size`).
    max_words: u64,
    /// Cost centre id → frame id.
    cost_centres: IdIndex,
    /// Stack id → index in declaration order; once the tree is built, → node.
    stack_index: IdIndex,
    /// Per stack in declaration order: the parent's index (or [`ROOT`], [`PENDING`]) and the frame
    /// (or [`UNRESOLVED`]). 8 bytes a stack; ids and positions are kept only for the few pending.
    parents: Vec<u32>,
    frames: Vec<u32>,
    pending_parents: Vec<PendingParent>,
    /// Stack index and cost centre id of the stacks with an [`UNRESOLVED`] frame, by index.
    pending_ccs: Vec<(u32, u64)>,
    /// Whether every stack so far had its parent and cost centre declared before it, as GHC writes
    /// them: then each stack became a node as it was declared, in declaration order (node = index),
    /// and `parents` and `frames` are empty.
    direct: bool,
    /// Whether the tree was built: then costs go straight into it. Otherwise the error that stopped
    /// it, returned once the cost line was read (whose errors come first).
    built: bool,
    tree_error: Option<ParseError>,
    /// Cost centres named `<cc N>` while building, in the order met.
    undeclared: Vec<u64>,
    /// Whether each stack (by `stack_index`) had its cost record.
    has_costs: Vec<bool>,
    total_ticks: u64,
    sum_ticks: u64,
}

impl PxReader {
    fn new(word_size: u64) -> PxReader {
        PxReader {
            // The metrics are declared when the tree is complete (`build_tree`): columns of zeros
            // made then cost nothing until costs are stored, while zeros pushed node by node do.
            profile: profile_with(Vec::new()),
            word_size,
            max_words: MAX_COUNT / word_size.max(1),
            cost_centres: IdIndex::default(),
            stack_index: IdIndex::default(),
            parents: Vec::new(),
            frames: Vec::new(),
            pending_parents: Vec::new(),
            pending_ccs: Vec::new(),
            direct: true,
            built: false,
            tree_error: None,
            undeclared: Vec::new(),
            has_costs: Vec::new(),
            total_ticks: 0,
            sum_ticks: 0,
        }
    }

    /// A line between the headers and the cost line: `1`, `2`, or the start of the cost line.
    fn declaration(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        costs: &mut CostSection,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let text = line.text;
        match text.as_bytes().first() {
            Some(b'1') => self.cost_centre(line, diag),
            Some(b'2') => self.stack(line, prepared, diag),
            Some(b'5') => {
                costs.started = true;
                self.build_tree();
                costs.feed(line, prepared, 1, self, diag)
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
    fn stack(&mut self, line: &Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let bad = || {
            line.error(ParseErrorKind::Unexpected {
                expected: "a stack line: 2 id 1 cc (a root) or 2 id 2 cc parent".into(),
                found: excerpt(line.text.as_bytes()),
            })
        };
        let fields = match prepared {
            &Prepared::Stack { id, cc, parent } => Some((id, cc, parent)),
            _ => parse_stack_fields(line.text),
        };
        let Some((id, cc, parent)) = fields else {
            return Err(bad());
        };
        let index = u32::try_from(self.declared()).ok().filter(|&i| i < PENDING).ok_or_else(bad)?;
        if self.stack_index.get(id).is_some() {
            diag.warn("back-edge", Some(line.position), || {
                format!("stack {id} declared again: a back edge (recursion through another cost centre), not part of the tree")
            });
            return Ok(());
        }
        // The parent is looked up before the stack is indexed: a stack that is its own parent is
        // a cycle, found when the tree is built.
        let parent_index = match parent {
            NO_PARENT => ROOT,
            _ => self.stack_index.get(parent).unwrap_or_else(|| {
                self.pending_parents.push(PendingParent { index, id, parent, position: line.position });
                PENDING
            }),
        };
        let frame = self.cost_centres.get(cc).unwrap_or_else(|| {
            self.pending_ccs.push((index, cc));
            UNRESOLVED
        });
        self.stack_index.insert(id, index);
        if self.direct {
            if parent_index != PENDING && frame != UNRESOLVED {
                self.profile.tree.push((parent_index != ROOT).then_some(NodeId(parent_index)), FrameId(frame));
                return Ok(());
            }
            self.stop_direct();
        }
        self.parents.push(parent_index);
        self.frames.push(frame);
        Ok(())
    }

    /// How many stacks are declared so far (their indices are `0..`).
    fn declared(&self) -> usize {
        if self.direct {
            self.profile.tree.len()
        } else {
            self.parents.len()
        }
    }

    /// Stops making nodes as stacks are declared: the nodes so far go back to `parents` and `frames`,
    /// and the tree is built when the cost line starts.
    fn stop_direct(&mut self) {
        self.direct = false;
        let empty = CallTree::new(self.profile.metrics());
        let tree = std::mem::replace(&mut self.profile.tree, empty);
        self.parents = tree.nodes().map(|n| tree.parent(n).map_or(ROOT, |p| p.0)).collect();
        self.frames = tree.nodes().map(|n| tree.frame(n).0).collect();
    }

    /// Builds the tree from the stacks when the cost line starts (no declaration can follow): every
    /// stack under its parent, in declaration order, depth first. An error is kept for the end.
    fn build_tree(&mut self) {
        self.has_costs = vec![false; self.declared()];
        let built = if self.direct {
            Ok(())
        } else {
            self.tree_order().map(|node_of| self.stack_index.remap(|i| node_of[i as usize]))
        };
        self.parents = Vec::new();
        self.frames = Vec::new();
        self.pending_parents = Vec::new();
        self.pending_ccs = Vec::new();
        if let Err(e) = built {
            self.tree_error = Some(e);
            return;
        }
        let n = self.profile.tree.len();
        for metric in super::metrics() {
            let values = Values::zeros(metric.repr, n);
            self.profile.add_metric(metric, values);
        }
        self.built = true;
    }

    /// Pushes the stacks into the tree depth first; returns the node of each stack.
    fn tree_order(&mut self) -> Result<Vec<u32>, ParseError> {
        self.resolve_parents()?;
        let (offsets, children, roots) = child_lists(&self.parents);
        self.profile.tree.reserve(self.parents.len());
        // The parents are not needed any more: their vector becomes the node of each stack.
        let mut node_of = std::mem::take(&mut self.parents);
        node_of.fill(ABSENT);
        let mut todo: Vec<(u32, Option<NodeId>)> = roots.iter().rev().map(|&r| (r, None)).collect();
        while let Some((i, parent)) = todo.pop() {
            let frame = self.frame_of(i);
            let node = self.profile.tree.push(parent, frame);
            let i = i as usize;
            node_of[i] = node.0;
            let mine = &children[offsets[i] as usize..offsets[i + 1] as usize];
            todo.extend(mine.iter().rev().map(|&c| (c, Some(node))));
        }
        // A stack never reached is in a cycle of parents or below one. The first of them has a
        // pending parent: one declared before it would be unreached too, and come first.
        if let Some(lost) = self.pending_parents.iter().find(|p| node_of[p.index as usize] == ABSENT) {
            return Err(ParseError {
                format: FORMAT.into(),
                position: lost.position,
                kind: ParseErrorKind::Unexpected {
                    expected: format!("stack {} to lead up to a root stack", lost.id),
                    found: "a cycle of parent stacks".into(),
                },
            });
        }
        Ok(node_of)
    }

    /// Looks up the parents that were declared after their children, or fails at the first stack
    /// whose parent was never declared.
    fn resolve_parents(&mut self) -> Result<(), ParseError> {
        for pending in &self.pending_parents {
            let Some(p) = self.stack_index.get(pending.parent) else {
                return Err(ParseError {
                    format: FORMAT.into(),
                    position: pending.position,
                    kind: ParseErrorKind::Unexpected {
                        expected: format!("stack {}'s parent to be a declared stack", pending.id),
                        found: format!("stack {}, never declared", pending.parent),
                    },
                });
            };
            self.parents[pending.index as usize] = p;
        }
        Ok(())
    }

    /// The frame of stack `i`: a cost centre undeclared when the stack was becomes `<cc N>` now.
    fn frame_of(&mut self, i: u32) -> FrameId {
        let frame = self.frames[i as usize];
        if frame != UNRESOLVED {
            return FrameId(frame);
        }
        let Ok(k) = self.pending_ccs.binary_search_by_key(&i, |&(index, _)| index) else {
            return FrameId(frame);
        };
        let cc = self.pending_ccs[k].1;
        if let Some(frame) = self.cost_centres.get(cc) {
            return FrameId(frame);
        }
        self.undeclared.push(cc);
        let frame = self.profile.frames.intern(FrameRef::function(&format!("<cc {cc}>")));
        self.cost_centres.insert(cc, frame.0);
        frame
    }

    /// Stores the costs of stack `id`, or says why not. Whether the model can hold them is checked
    /// by the caller ([`Self::check_field`]).
    fn record(&mut self, id: u64, values: [u64; 3]) -> Result<(), ParseErrorKind> {
        let i = self.stack_for_costs(id)?;
        self.set_costs(i, values);
        Ok(())
    }

    /// The first field of the records `1 id entries ticks alloc` at the start of `numbers` that
    /// the model cannot hold, as an error kind with its token's index in `numbers`.
    #[cold]
    fn out_of_range(&self, numbers: &[u64]) -> Option<(usize, ParseErrorKind)> {
        numbers
            .chunks_exact(5)
            .enumerate()
            .find_map(|(r, record)| (2..5).find_map(|f| self.check_field(f, record[f]).err().map(|e| (r * 5 + f, e))))
    }

    /// Whether field `field` of a record (2 entries, 3 ticks, 4 alloc in words) can hold `value`.
    fn check_field(&self, field: usize, value: u64) -> Result<(), ParseErrorKind> {
        match field {
            2 if value > MAX_COUNT => Err(super::too_large("entries", MAX_COUNT, value)),
            3 if value > MAX_COUNT => Err(super::too_large("ticks", MAX_COUNT, value)),
            4 if value > self.max_words => {
                let what = format!("alloc in {}-byte words", self.word_size);
                Err(super::too_large(&what, self.max_words, value))
            }
            _ => Ok(()),
        }
    }

    /// The index of stack `id`, which is about to get its cost record.
    fn stack_for_costs(&self, id: u64) -> Result<usize, ParseErrorKind> {
        let Some(i) = self.stack_index.get(id).map(|i| i as usize) else {
            return Err(ParseErrorKind::Unexpected {
                expected: "costs of a declared stack".into(),
                found: format!("costs of stack {id}, never declared"),
            });
        };
        if self.has_costs.get(i).copied().unwrap_or(true) {
            return Err(ParseErrorKind::Unexpected {
                expected: "one cost record per stack".into(),
                found: format!("a second record for stack {id}"),
            });
        }
        Ok(i)
    }

    /// Stores the costs of stack `i` (a node once the tree is built).
    fn set_costs(&mut self, i: usize, [entries, ticks, words]: [u64; 3]) {
        self.has_costs[i] = true;
        self.sum_ticks = self.sum_ticks.saturating_add(ticks);
        if self.built {
            let (tree, node) = (&mut self.profile.tree, NodeId(i as u32));
            tree.set_self(ENTRIES, node, Value::Int(to_i64(entries)));
            tree.set_self(TICKS, node, Value::Int(to_i64(ticks)));
            tree.set_self(ALLOC, node, Value::Int(to_i64(words.saturating_mul(self.word_size))));
        }
    }

    /// After the cost line: the tree's error if it had one, else the profile, with warnings.
    fn finish(self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        if let Some(e) = self.tree_error {
            return Err(e);
        }
        if !self.undeclared.is_empty() {
            let ids: Vec<String> = self.undeclared.iter().map(u64::to_string).collect();
            diag.warn("undeclared-cc", None, || {
                format!(
                    "cost centres used by stacks but never declared (GHC 7.2 did not declare its built-ins) are named <cc N>: {}",
                    ids.join(", ")
                )
            });
        }
        if self.sum_ticks != self.total_ticks {
            let (total, sum) = (self.total_ticks, self.sum_ticks);
            diag.warn("total-ticks", None, || {
                format!("the cost line's total of {total} ticks differs from the sum of its stacks, {sum}")
            });
        }
        Ok(self.profile)
    }
}

/// Id, cost centre and parent (or [`NO_PARENT`]) from the numbers of a stack line.
fn stack_fields(numbers: &[u64]) -> Option<(u64, u64, u64)> {
    match *numbers {
        [_, id, 1, cc] => Some((id, cc, NO_PARENT)),
        [_, id, 2, cc, parent] if parent != NO_PARENT => Some((id, cc, parent)),
        _ => None,
    }
}

/// [`stack_fields`] of a line that is not all plain numbers (leading zeros, say) or not separated by
/// single spaces (tabs); its first token is `2`.
fn parse_stack_fields(text: &str) -> Option<(u64, u64, u64)> {
    let mut numbers = [0u64; 5];
    let mut n = 0;
    let mut tokens = tokens(text);
    tokens.next().filter(|&(_, first)| first == "2")?;
    numbers[0] = 2;
    n += 1;
    for (_, token) in tokens {
        *numbers.get_mut(n)? = parse_u64(token.as_bytes())?;
        n += 1;
    }
    stack_fields(&numbers[..n])
}

/// The children of every stack in declaration order, as one array with offsets per stack
/// (compressed: 8 bytes a stack), and the roots. `parents` are all resolved.
fn child_lists(parents: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = parents.len();
    let mut offsets = vec![0u32; n + 1];
    let mut roots = Vec::new();
    for (i, &p) in parents.iter().enumerate() {
        match p {
            ROOT => roots.push(i as u32),
            _ => offsets[p as usize + 1] += 1,
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut children = vec![0u32; offsets[n] as usize];
    for (i, &p) in parents.iter().enumerate().filter(|(_, &p)| p != ROOT) {
        children[next[p as usize] as usize] = i as u32;
        next[p as usize] += 1;
    }
    (offsets, children, roots)
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

/// A token of the cost section: a plain number (see [`ManyTokens`]), or text.
#[derive(Clone, Copy)]
enum Token<'a> {
    Number(u64),
    Text(&'a str),
}

impl CostSection {
    /// Reads the tokens of `line` after the first `skip` of them.
    fn feed(
        &mut self,
        line: &Line<'_>,
        prepared: &Prepared,
        skip: usize,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        match prepared {
            &Prepared::Stack { id, cc, parent } => {
                let (numbers, n) = Prepared::stack_tokens(id, cc, parent);
                self.feed_numbers(line, &numbers[..n], &[], skip, reader, diag)
            }
            Prepared::Tokens(many) => self.feed_numbers(line, &many.numbers, &many.odd, skip, reader, diag),
            Prepared::Text => {
                for (offset, token) in tokens(line.text).skip(skip) {
                    let at = || line.position_at(offset);
                    if !self.token(Token::Text(token), at, reader, diag)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// [`Self::feed`] from the numbers the reader thread parsed: whole records at a time between
    /// the odd tokens, which are read from the text.
    fn feed_numbers(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        odd: &[OddToken],
        skip: usize,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<(), ParseError> {
        let mut odd = odd.iter().skip_while(|t| t.index < skip).peekable();
        let mut k = skip;
        while k < numbers.len() {
            let next_odd = odd.peek().map_or(numbers.len(), |t| t.index);
            if k < next_odd {
                k = self.records(line, &numbers[k..next_odd], k, reader)?;
                if k == next_odd {
                    continue;
                }
            }
            let token = match odd.next_if(|t| t.index == k) {
                Some(t) => Token::Text(&line.text[t.start..t.end]),
                None => Token::Number(numbers[k]),
            };
            if !self.token(token, || token_position(line, k), reader, diag)? {
                break;
            }
            k += 1;
        }
        Ok(())
    }

    /// Reads the whole records at the start of `numbers` (tokens from the `first` of `line`) if a
    /// record is due; returns the index of the first token left.
    fn records(
        &mut self,
        line: &Line<'_>,
        numbers: &[u64],
        first: usize,
        reader: &mut PxReader,
    ) -> Result<usize, ParseError> {
        if self.done || !self.have_total || self.filled != 0 {
            return Ok(first);
        }
        let mut k = 0;
        // Whether a count is too large for the model is checked once for all the records here
        // (their bits ORed together), and record by record only when one may be.
        let (mut counts, mut words) = (0u64, 0u64);
        let range_error = |reader: &PxReader, k: usize| {
            reader.out_of_range(&numbers[..k]).map(|(at, kind)| ParseError {
                format: FORMAT.into(),
                position: token_position(line, first + at),
                kind,
            })
        };
        while let Some(&[1, id, entries, ticks, alloc]) = numbers.get(k..k + 5) {
            if let Err(kind) = reader.record(id, [entries, ticks, alloc]) {
                let stack_error =
                    ParseError { format: FORMAT.into(), position: token_position(line, first + k + 1), kind };
                return Err(range_error(reader, k).unwrap_or(stack_error));
            }
            counts |= entries | ticks;
            words |= alloc;
            k += 5;
        }
        if counts > MAX_COUNT || words > reader.max_words {
            if let Some(e) = range_error(reader, k) {
                return Err(e);
            }
        }
        Ok(first + k)
    }

    /// Reads one token; false after the final `0` (the rest of the line is ignored).
    fn token(
        &mut self,
        token: Token<'_>,
        at: impl Fn() -> Position,
        reader: &mut PxReader,
        diag: &mut Diagnostics,
    ) -> Result<bool, ParseError> {
        if self.done {
            if !self.trailing_reported {
                self.trailing_reported = true;
                diag.warn("trailing-text", Some(at()), || "text after the cost line's final 0 is ignored".into());
            }
            return Ok(false);
        }
        let number = |what: &'static str| match token {
            Token::Number(value) => Ok(value),
            Token::Text(text) => parse_u64(text.as_bytes()).ok_or_else(|| ParseError {
                format: FORMAT.into(),
                position: at(),
                kind: ParseErrorKind::InvalidNumber { field: what, text: text.to_string() },
            }),
        };
        if !self.have_total {
            reader.total_ticks = number("the total ticks after 5")?;
            self.have_total = true;
            return Ok(true);
        }
        if self.filled == 0 {
            match token {
                Token::Number(1) | Token::Text("1") => self.filled = 1,
                Token::Number(0) | Token::Text("0") => self.done = true,
                _ => {
                    let found = match token {
                        Token::Number(value) => excerpt(value.to_string().as_bytes()),
                        Token::Text(text) => excerpt(text.as_bytes()),
                    };
                    return Err(ParseError {
                        format: FORMAT.into(),
                        position: at(),
                        kind: ParseErrorKind::Unexpected {
                            expected: "1 (a stack's costs) or the terminating 0".into(),
                            found,
                        },
                    });
                }
            }
            return Ok(true);
        }
        const FIELDS: [&str; 5] = ["", "a stack id", "entries", "ticks", "alloc"];
        self.record[self.filled] = number(FIELDS[self.filled])?;
        reader.check_field(self.filled, self.record[self.filled]).map_err(|kind| ParseError {
            format: FORMAT.into(),
            position: at(),
            kind,
        })?;
        if self.filled == 1 {
            let stack = reader.stack_for_costs(self.record[1]);
            self.stack = Some(stack.map_err(|kind| ParseError { format: FORMAT.into(), position: at(), kind })?);
        }
        self.filled += 1;
        if self.filled == 5 {
            self.filled = 0;
            let [_, _, entries, ticks, alloc] = self.record;
            if let Some(i) = self.stack.take() {
                reader.set_costs(i, [entries, ticks, alloc]);
            }
        }
        Ok(true)
    }
}

/// The position of the `k`-th token of `line` (for errors: it reads the line again).
fn token_position(line: &Line<'_>, k: usize) -> Position {
    let offset = tokens(line.text).nth(k).map_or(line.text.len(), |(offset, _)| offset);
    line.position_at(offset)
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

const NO_PARENT: u64 = u64::MAX;

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
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get(&id).copied(),
        }
    }

    /// Maps every id to `f` of its value.
    fn remap(&mut self, f: impl Fn(u32) -> u32) {
        self.dense.iter_mut().filter(|v| **v != ABSENT).for_each(|v| *v = f(*v));
        self.sparse.values_mut().for_each(|v| *v = f(*v));
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

/// Decimal digits as a number (no sign, no spaces), or `None`.
fn parse_u64(digits: &[u8]) -> Option<u64> {
    let (value, n) = text::leading_digits(digits).filter(|_| digits.len() <= 20)?;
    (n > 0 && n == digits.len()).then_some(value)
}

/// `v`, checked by [`PxReader::check_field`] to fit.
fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Splits a cost centre line: id, label, module, and the third string if there is one. The module
/// is the last quoted string (a module cannot hold `"` or a space); the label is everything between
/// the first `"` and the `"` before the module's, so it may hold spaces and quotes.
/// Fields are separated by one whitespace character (a space as GHC wrote them, or any other, as
/// the seed's parser reads them).
fn parse_cost_centre(line: &str) -> Option<(u64, &str, &str, Option<&str>)> {
    let rest = line.strip_prefix('1')?.strip_prefix(char::is_whitespace)?;
    let (id, strings) = rest.split_once(char::is_whitespace)?;
    let id: u64 = id.parse().ok()?;
    let inner = quoted(strings)?;
    let (label, last) = rsplit_strings(inner)?;
    if last.contains('"') {
        return None;
    }
    // A third string: the part before it ends with `" "Module"`, a module name.
    if let Some((label3, module)) = rsplit_strings(label) {
        if looks_like_module(module) {
            return Some((id, label3, module, Some(last)));
        }
    }
    Some((id, label, last, None))
}

/// Splits `a" "b` at its last `"`, whitespace character, `"`: into `a` and `b`.
fn rsplit_strings(inner: &str) -> Option<(&str, &str)> {
    let mut end = inner.len();
    while let Some(quote) = inner[..end].rfind('"') {
        let mut after = inner[quote + 1..].chars();
        if let (Some(space), Some('"')) = (after.next(), after.next()) {
            if space.is_whitespace() {
                return Some((&inner[..quote], after.as_str()));
            }
        }
        end = quote;
    }
    None
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
    writeln!(w, "\"{} ms\"", interval_ms(profile.meta.interval, diag))?;
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
    let word = super::word_size(options.formats.ghc.word_size);
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
        assert_eq!(parse_cost_centre("1\t3\u{a0}\"a b\"\t\"M\"\u{c}\"g\""), Some((3, "a b", "M", Some("g"))));
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

    fn read_as(format: Format, text: &str) -> Profile {
        let mut diag = Diagnostics::default();
        format.read(&mut text.as_bytes(), &crate::formats::ReadOptions::default(), &mut diag).unwrap()
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
    fn plain_numbers_are_the_tokens_that_give_back_their_text() {
        let line = "0 00 01 7\t12345678 123456789 9999999999999999999 18446744073709551615 1x x 42";
        let got: Vec<(usize, Option<u64>)> = NumberTokens { bytes: line.as_bytes(), pos: 0 }.collect();
        let want = [
            Some(0),
            None,
            None,
            Some(7),
            Some(12_345_678),
            Some(123_456_789),
            Some(9_999_999_999_999_999_999),
            None,
            None,
            None,
            Some(42),
        ];
        assert_eq!(got.iter().map(|t| t.1).collect::<Vec<_>>(), want);
        assert_eq!(got.iter().map(|t| t.0).collect::<Vec<_>>(), tokens(line).map(|t| t.0).collect::<Vec<_>>());
    }

    proptest::proptest! {
        /// The tokens are those `split` finds, and a plain number is what `str::parse` reads from a
        /// token of 1 to 19 digits without a leading zero.
        #[test]
        fn number_tokens_are_split_and_parse(line in "([0-9]{0,21}|x)([ \t]{1,2}([0-9]{0,21}|0x|1x))*[ \t]?") {
            let got: Vec<(usize, Option<u64>)> = NumberTokens { bytes: line.as_bytes(), pos: 0 }.collect();
            let expected: Vec<(usize, Option<u64>)> = line
                .split([' ', '\t'])
                .scan(0, |start, token| {
                    let at = *start;
                    *start += token.len() + 1;
                    Some((at, token))
                })
                .filter(|(_, token)| !token.is_empty())
                .map(|(at, token)| {
                    let plain = (1..=19).contains(&token.len()) && (token.len() == 1 || !token.starts_with('0'));
                    (at, token.parse::<u64>().ok().filter(|_| plain))
                })
                .collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }

    /// A file whose cost line is longer than a read block: `n` stacks in a chain of roots.
    fn long_px(n: u64, label: &str) -> String {
        let mut text = format!("\"t\"\n\"1 ms\"\n1 1 \"{label}\" \"M\"\n");
        for id in 1..=n {
            text.push_str(&format!("2 {id} 1 1\n"));
        }
        text.push_str(&format!("5 {n}"));
        for id in 1..=n {
            text.push_str(&format!(" 1 {id} 1 1 1"));
        }
        text.push_str(" 0\n");
        text
    }

    fn read_px(text: &str) -> Result<Profile, String> {
        let mut diag = Diagnostics::default();
        let options = crate::formats::ReadOptions::default();
        Format::GhcPx.read(&mut text.as_bytes(), &options, &mut diag).map_err(|e| e.to_string())
    }

    /// The tree part of a profile's dump (its warnings name lines, which differ between variants).
    fn tree_dump(profile: &Profile) -> String {
        let dump = crate::model::dump::dump(profile);
        dump[..dump.find("warnings:").unwrap_or(dump.len())].to_string()
    }

    /// Stacks become nodes as they are declared while every parent and cost centre is declared
    /// before them; otherwise the tree is built at the cost line. Both make the same tree.
    #[test]
    fn stacks_make_the_same_tree_as_declared_or_at_the_cost_line() {
        let notes = include_str!("../../../fixtures/ghc-px/notes-example.px");
        let declared_first = read_px(notes).unwrap();
        assert!(declared_first.tree.len() == 10 && tree_dump(&declared_first).contains("\"isOdd\""));
        // isOdd's cost centre declared after the stack that uses it.
        let late_cc = notes.replace("1 10 \"isOdd\" \"Main\"\n", "").replace("5 50", "1 10 \"isOdd\" \"Main\"\n5 50");
        // Stack 15 declared before its parent 14.
        let late_parent = notes.replace("2 14 2 8 8\n2 15 2 9 14\n", "2 15 2 9 14\n2 14 2 8 8\n");
        // Nodes in declaration order (stack 14 comes after its parent's siblings) are not in pre-order;
        // the tree built at the cost line is: that tells which way each was read.
        assert!(!declared_first.tree.is_preorder());
        for variant in [late_cc, late_parent] {
            assert_ne!(variant, notes);
            let built_late = read_px(&variant).unwrap();
            assert!(built_late.tree.is_preorder());
            assert_eq!(tree_dump(&built_late), tree_dump(&declared_first), "{variant}");
        }
    }

    #[test]
    fn a_cost_line_longer_than_a_block_reads_in_pieces() {
        let n = 40_000;
        let text = long_px(n, "f");
        assert!(text.lines().last().unwrap().len() > 4 * 128 * 1024);
        let profile = read_px(&text).unwrap();
        assert_eq!(profile.tree.len(), n as usize);
        assert_eq!(profile.total(TICKS), Value::Int(n as i64));
        // An error late in the line is placed by its column across the pieces.
        let at = text.rfind(" 1 39999 ").unwrap() + 3;
        let bad = format!("{}x{}", &text[..at], &text[at + 1..]);
        let line_start = bad.rfind('\n').map_or(0, |i| bad[..i].rfind('\n').unwrap() + 1);
        let column = at - line_start + 1;
        let want = format!(
            "ghc-px: line {}, column {column} (byte {at}): a stack id must be an integer, found \"x9999\"",
            n + 4
        );
        assert_eq!(read_px(&bad).unwrap_err(), want);
    }

    #[test]
    fn a_count_too_large_is_reported_before_later_errors_in_its_piece() {
        let head = "\"t\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n2 1 1 1\n5 3 ";
        let text = format!("{head}1 1 1 9999999999999999999 1 1 2 1 1 1 0\n");
        let want = "ghc-px: line 5, column 11 (byte 48): expected ticks from 0 to 9223372036854775807, found 9999999999999999999, which is too large";
        assert_eq!(read_px(&text).unwrap_err(), want);
        // The limit on words depends on the word size: 2^61 - 1 words fit in 4-byte words, not in 8.
        let mut diag = Diagnostics::default();
        let mut options = crate::formats::ReadOptions::default();
        options.formats.ghc.word_size = 4;
        let words = format!("{head}1 1 1 1 2305843009213693951 0\n");
        assert!(Format::GhcPx.read(&mut words.as_bytes(), &options, &mut diag).is_ok());
        let error = read_px(&words).unwrap_err();
        assert!(
            error.contains("alloc in 8-byte words from 0 to 1152921504606846975, found 2305843009213693951"),
            "{error}"
        );
    }

    #[test]
    fn a_cost_centre_line_longer_than_a_block_is_read_whole() {
        let label = "a b ".repeat(100_000);
        let profile = read_px(&long_px(3, &label)).unwrap();
        assert_eq!(profile.frames.iter().next().map(|(_, f)| f.name.len()), Some(label.len()));
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
