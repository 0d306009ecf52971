//! LispWorks profiler tree files.
//!
//! **Producer**: LispWorks 5.x–8.1, `(hcl:save-current-profiler-tree filename name)` or the IDE's
//! *Profiler ▸ Save Profiler tree…* (LispWorks User Guide, "Profiler tree file format"). The IDE loads
//! such files back, and third-party writers are explicitly sanctioned. UTF-8 text.
//!
//! ```text
//! LispWorks Profiler Tree: compile run
//! ; lines starting with a semicolon are comments
//! 0|100|0|100|0|"Profile root"
//! 1|100|0|100|0|"CAPI Execution Listener 1"
//! 2|60|12|60|25|CL-USER::FIB
//! 3|35|12|60|25|CL-USER::FIB
//! 2|40|0|40|40|(METHOD PRINT-OBJECT (WIDGET T))
//! ```
//!
//! **Grammar**: the first line contains `LispWorks Profiler Tree`; the tree's name is the text after
//! its *first* `:`, trimmed. Every other line is a comment (`;…`) or a data line
//! `Depth|Count|Call-Count|Seen-Count|Top-Count|Name`: five integers without spaces, then the name,
//! which is everything after the fifth `|` (it may contain `|` itself). A node's parent is the
//! previous node one level up; each node is followed by its children, depth first.
//!
//! **Values**: Count is *inclusive* and per node: samples in which the node's chain of callers was on
//! the stack. Self samples are Count − Σ children's Count; a negative result (an inconsistent file) is
//! clamped to 0 with a warning, as is a negative Count itself (before its parent's self is
//! worked out). A number past `i64` is an error that names the range. Call-Count, Seen-Count and Top-Count are per *function*, repeated on
//! every node of that function; they are kept as the profile's per-function facts (first occurrence
//! wins, a disagreeing repeat is a warning). On write they are written back as read, or computed by
//! the rules of docs/conversions.md: Seen = samples with the function on the stack at least once, Top = its self
//! samples, Call = the calls metric if the source had one, else 0.
//!
//! **Roots and processes**: "the node with depth 0 is the root" (LispWorks' documentation,
//! docs/sources.md), and a tree of processes has a string there (`"Profile root"`) with the
//! processes one level below it, as the `profile` macro's printed tree shows one (`1: "CAPI
//! Execution Listener 1"`). So the strings right below a string root are processes, read as threads
//! (`--thread` keeps one; Sampler writes each as a thread block, formats without threads drop
//! them); the root and any other string are pseudo-frames. Several depth-0 lines are accepted as
//! several roots. On write, a tree has one root: several roots, or one that is a thread (Sampler's
//! threads, a flat report's rows), go under a `"Profile root"` added for them, with a warning
//! ([`fit`]); a file of several depth-0 lines so comes back under one root, the only file whose
//! round trip is not byte for byte.
//!
//! **Quirks**: names are printed Lisp objects and kept opaque, except double-quoted strings
//! (`"CAPI Execution Listener 1"`), the manual's non-function nodes, named by the string's contents
//! (`\"` and `\\` unescaped; threads and pseudo-frames are quoted again on write). CRLF is
//! accepted; LF is written. Blank lines are skipped with a warning. Every line ends with a line
//! break (as LispWorks writes one): a last line without one is read, with a warning that the file looks cut
//! short there (a name cut in the middle, `PKG` of `PKG::MERGE-LISTS`, is a name all the same).
//!
//! **Lost on write**: everything but one count per node: other metrics, modules, line numbers (line
//! frames merge into their functions) and header facts other than the tree name. Comments in a file
//! read are not kept. A newline in a name is replaced by a space, with a warning.

use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes, Writing};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::{ConvertOptions, ReadOptions};
use crate::model::{ops, FrameId, FrameKind, FrameTable, FunctionFacts, Metric, NodeId, Profile, Value};
use crate::text;
use std::io::{Read, Write};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "lispworks",
    description: "LispWorks profiler tree (`save-current-profiler-tree`)",
    extensions: &["tree"],
    carries: Carries {
        name_replacements: &[('\n', ' '), ('\r', ' ')],
        weight_is_time: true,
        ..Carries::TREE_OF_SAMPLES.with_threads().with_frame_kinds().with_function_facts().with_title()
    },
    reads: Some(Reads::text(sniff, read)),
    writes: Some(Writes::new(
        write,
        Rules { fit, no_stack_file: Some("a LispWorks tree of none has no data line"), ..spec::STACKS_ONLY },
    )),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

const MARKER: &str = "LispWorks Profiler Tree";
const FIELDS: [&str; 5] = ["Depth", "Count", "Call-Count", "Seen-Count", "Top-Count"];

/// `Yes` when the first line has the marker the LispWorks reader itself checks for.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    spec::first_line_contains(head, MARKER)
}

/// Reads a LispWorks profiler tree: lines are split and their numbers parsed on a second thread
/// while this one interns names and builds the tree.
pub(crate) fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let missing_marker = || ParseErrorKind::MissingMarker {
        format: FORMAT,
        expected: "a first line containing \"LispWorks Profiler Tree\"",
    };
    let mut reader: Option<TreeReader> = None;
    let mut last_line = Position::line(1, 0);
    text::pipeline(input, FORMAT, classify, |line, parsed| {
        last_line = line.position;
        // The format has no end marker: a tree cut short ends in a line without its line break.
        line.warn_if_cut_short("the name on it may be cut", diag);
        let Some(reader) = &mut reader else {
            if !line.text.contains(MARKER) {
                return Err(line.error(missing_marker()));
            }
            let mut profile = Profile::new(vec![Metric::samples()]);
            profile.meta.title = line.text.split_once(':').map(|(_, name)| name.trim().to_string());
            reader = Some(TreeReader { profile, path: Vec::new(), facts: Vec::new(), has_facts: Vec::new() });
            return Ok(());
        };
        match parsed {
            Parsed::Comment => Ok(()),
            Parsed::Blank => {
                diag.warn("blank-line", Some(line.position), || "blank line skipped".into());
                Ok(())
            }
            Parsed::Row(row) => {
                reader.add(&row, &line.text[row.name_start..], line.position, diag).map_err(|kind| line.error(kind))
            }
            Parsed::Bad(kind) => Err(line.error(kind)),
        }
    })?;
    match reader {
        // A marker and no node: a file cut right after its first line, or written by a run that
        // profiled nothing; either way no profile to convert.
        Some(reader) if reader.profile.tree.is_empty() => Err(ParseError {
            format: FORMAT,
            position: last_line,
            kind: ParseErrorKind::Unexpected {
                expected: "a data line (Depth|Count|Call-Count|Seen-Count|Top-Count|Name) after the marker".into(),
                found: "the end of the input: the file holds no tree (it looks cut short)".into(),
            },
        }),
        Some(reader) => Ok(reader.finish(diag)),
        None => Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind: missing_marker() }),
    }
}

/// What a line is, worked out without the tree (on the reader thread).
enum Parsed {
    Comment,
    Blank,
    Row(Row),
    Bad(ParseErrorKind),
}

fn classify(line: &str) -> Parsed {
    // A data line starts with its depth; only other lines need a closer look.
    match line.as_bytes().first() {
        Some(b';') => Parsed::Comment,
        Some(b) if !b.is_ascii_digit() && line.trim().is_empty() => Parsed::Blank,
        None => Parsed::Blank,
        Some(_) => match parse_row(line) {
            Ok(row) => Parsed::Row(row),
            Err(kind) => Parsed::Bad(kind),
        },
    }
}

/// One data line: its numbers, and where its name starts.
#[derive(Debug)]
struct Row {
    depth: i64,
    counts: [i64; 4],
    name_start: usize,
    /// The name's hash for the frame table, for a name that is not a string literal (worked out
    /// here, on the reader thread).
    name_hash: Option<u64>,
}

fn parse_row(line: &str) -> Result<Row, ParseErrorKind> {
    let bytes = line.as_bytes();
    let mut numbers = [0i64; 5];
    let mut pos = 0;
    for number in &mut numbers {
        let (value, next) = field_int(bytes, pos).ok_or_else(|| row_error(line))?;
        *number = value;
        pos = next;
    }
    if numbers[0] < 0 {
        return Err(ParseErrorKind::Unexpected {
            expected: "a Depth of 0 or more".into(),
            found: numbers[0].to_string(),
        });
    }
    // `pos` follows an ASCII `|`, so it is a character boundary.
    let name = &line[pos..];
    let name_hash = (!name.starts_with('"')).then(|| FrameTable::name_hash(name, FrameKind::Function));
    Ok(Row { depth: numbers[0], counts: [numbers[1], numbers[2], numbers[3], numbers[4]], name_start: pos, name_hash })
}

/// The integer that starts at `pos` and ends at a `|`, and the position after the `|`: an optional
/// `-` and decimal digits, nothing else (no spaces, no `+`).
#[inline]
fn field_int(bytes: &[u8], pos: usize) -> Option<(i64, usize)> {
    let negative = bytes.get(pos) == Some(&b'-');
    let start = pos + usize::from(negative);
    let (magnitude, n) = text::leading_digits(bytes.get(start..)?)?;
    let end = start + n;
    if n == 0 || bytes.get(end) != Some(&b'|') {
        return None;
    }
    let value = if negative { 0i64.checked_sub_unsigned(magnitude)? } else { i64::try_from(magnitude).ok()? };
    Some((value, end + 1))
}

/// What is wrong with a data line that does not parse (only reached on bad input).
fn row_error(line: &str) -> ParseErrorKind {
    let fields: Vec<&str> = line.splitn(6, '|').collect();
    if fields.len() < 6 {
        let n = fields.len();
        return ParseErrorKind::Unexpected {
            expected: "six |-separated fields: Depth|Count|Call-Count|Seen-Count|Top-Count|Name".into(),
            found: format!("{n} field{} in {}", if n == 1 { "" } else { "s" }, excerpt(line.as_bytes())),
        };
    }
    let bad = FIELDS.iter().zip(&fields).find(|(_, text)| field_int(format!("{text}|").as_bytes(), 0).is_none());
    let digits = |text: &str| {
        let magnitude = text.strip_prefix('-').unwrap_or(text);
        !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit())
    };
    match bad {
        // An integer all the same, past what the model holds.
        Some((field, text)) if digits(text) => ParseErrorKind::Unexpected {
            expected: format!("a {field} from {} to {}", i64::MIN, i64::MAX),
            found: format!("{text}, out of that range"),
        },
        Some((field, text)) => ParseErrorKind::InvalidNumber { field, text: text.to_string() },
        None => ParseErrorKind::Unexpected { expected: "a data line".into(), found: excerpt(line.as_bytes()) },
    }
}

/// Builds the tree from rows in file order.
struct TreeReader {
    profile: Profile,
    /// The open nodes from the current root down, with the line each was read from.
    path: Vec<(NodeId, Position)>,
    /// Per-function facts by frame id while reading (dense ids make this a vector).
    /// Call/Seen/Top by frame id while reading, and whether the frame has been seen: dense and
    /// small (24 bytes a function) because every line compares against it.
    facts: Vec<[i64; 3]>,
    has_facts: Vec<bool>,
}

impl TreeReader {
    fn add(&mut self, row: &Row, name: &str, line: Position, diag: &mut Diagnostics) -> Result<(), ParseErrorKind> {
        let depth = usize::try_from(row.depth).unwrap_or(usize::MAX);
        if depth > self.path.len() {
            return Err(match self.path.len() {
                0 => ParseErrorKind::Unexpected {
                    expected: "depth 0 on the first data line".into(),
                    found: format!("depth {}", row.depth),
                },
                n => ParseErrorKind::DepthJump { previous: n as i64 - 1, found: row.depth },
            });
        }
        while self.path.len() > depth {
            self.close(diag);
        }
        let parent = self.path.last().map(|&(node, _)| node);
        let frame = match row.name_hash {
            Some(hash) => self.profile.frames.intern_name_hashed(name, FrameKind::Function, hash),
            None => self.intern_string(name, parent),
        };
        let node = self.profile.tree.push(parent, frame);
        let [count, calls, seen, top] = row.counts;
        // A node's Count is samples: one below 0 is none, not samples given back to its parent.
        if count < 0 {
            diag.warn("negative-count", Some(line), || format!("Count is negative ({count}): read as 0"));
        }
        let count = count.max(0);
        self.profile.tree.set_self(0, node, Value::Int(count));
        if let Some(parent) = parent {
            self.profile.tree.add_self(0, parent, Value::Int(count.saturating_neg()));
        }
        self.path.push((node, line));
        self.record_facts(frame, [calls, seen, top], line, diag);
        Ok(())
    }

    /// The frame of a name that starts with `"`: a string literal is a node that is no function (the
    /// manual), a process where it is a child of the string root (`"Profile root"` above
    /// `"CAPI Execution Listener 1"`), another pseudo-frame elsewhere (the root itself); anything else
    /// that starts with a quote is a function's name.
    fn intern_string(&mut self, name: &str, parent: Option<NodeId>) -> FrameId {
        let Some(text) = unquote(name) else { return self.profile.frames.intern_name(name, FrameKind::Function) };
        let under_string_root = parent.is_some_and(|p| {
            let tree = &self.profile.tree;
            tree.parent(p).is_none() && self.profile.frames.get(tree.frame(p)).kind == FrameKind::Pseudo
        });
        let kind = if under_string_root { FrameKind::Thread } else { FrameKind::Pseudo };
        self.profile.frames.intern_name(&text, kind)
    }

    fn record_facts(&mut self, frame: FrameId, facts: [i64; 3], line: Position, diag: &mut Diagnostics) {
        let i = frame.index();
        if self.facts.len() <= i {
            self.facts.resize(i + 1, [0; 3]);
            self.has_facts.resize(i + 1, false);
        }
        if !self.has_facts[i] {
            self.facts[i] = facts;
            self.has_facts[i] = true;
        } else if self.facts[i] != facts {
            let name = self.profile.frames.get(frame).name.clone();
            diag.warn("facts-differ", Some(line), || {
                format!("Call/Seen/Top counts of {name} differ from its first node; keeping the first")
            });
        }
    }

    /// Closes the deepest open node: all its children are known, so its self count is final.
    fn close(&mut self, diag: &mut Diagnostics) {
        let Some((node, line)) = self.path.pop() else {
            return;
        };
        if let Value::Int(own) = self.profile.tree.self_value(0, node) {
            if own < 0 {
                self.profile.tree.set_self(0, node, Value::Int(0));
                diag.warn("negative-self", Some(line), || {
                    format!("Count is {} less than the sum of the children's Counts; self samples set to 0", -own)
                });
            }
        }
    }

    fn finish(mut self, diag: &mut Diagnostics) -> Profile {
        while !self.path.is_empty() {
            self.close(diag);
        }
        // Collected, not inserted one by one: a map built from sorted keys has full nodes, where
        // ascending inserts leave them half empty (a megabyte or two for 40 k functions).
        let has_facts = &self.has_facts;
        self.profile.function_facts = (self.facts.into_iter().enumerate())
            .filter(|&(i, _)| has_facts[i])
            .map(|(i, [calls, seen, top])| {
                (FrameId(i as u32), FunctionFacts { calls: Some(calls), seen: Some(seen), top: Some(top) })
            })
            .collect();
        self.profile
    }
}

/// The contents of a Lisp string literal `"…"` (with `\x` meaning `x`), or `None` if `name` is not
/// exactly one string literal.
fn unquote(name: &str) -> Option<String> {
    let inner = name.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

fn quote(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// The root LispWorks' own trees have (`processes.tree`), the one given to a profile of several.
const ROOT: &str = "Profile root";

/// LispWorks' fitting of a profile (called by the conversion step): a tree has one root, "the node
/// with depth 0" (LispWorks' documentation, docs/sources.md), and processes are strings one level
/// below it. A profile of several roots (threads, the rows of a flat report) or whose one root is a
/// thread is put under a `"Profile root"` pseudo-frame added for it, said on stderr; its Count is
/// the sum of theirs, and so is its Seen-Count (it is on every stack), its Top-Count 0 (it has no
/// sample of its own).
pub(crate) fn fit(profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    let tree = &profile.tree;
    let roots: Vec<NodeId> = tree.roots().collect();
    let is_thread = |&r: &NodeId| profile.frames.get(tree.frame(r)).kind == FrameKind::Thread;
    if roots.len() < 2 && !roots.iter().any(is_thread) {
        return profile;
    }
    let what = match roots.as_slice() {
        [thread] => {
            format!("thread {:?} is put under a {ROOT:?} added for it", profile.frames.get(tree.frame(*thread)).name)
        }
        _ => format!("{} roots are put under a {ROOT:?} added for them", roots.len()),
    };
    diag.warn("roots-adopted", None, || format!("{} has one root: the input's {what}", FORMAT));
    let mut profile = profile;
    let root = profile.frames.intern_name(ROOT, FrameKind::Pseudo);
    // Roots of one function (a tree of several roots, as this reader takes them) are one node once
    // they are siblings: a node is one chain of callers.
    ops::merged_siblings(ops::adopt_roots(&profile, root, |_| true))
}

/// Writes `profile` (already projected to one count metric) as a LispWorks profiler tree.
pub(crate) fn write(profile: &Profile, Writing { out, diag, .. }: Writing<'_>) -> Result<(), Error> {
    let tree = &profile.tree;
    let inclusive = tree.derived_inclusive(0);
    let facts = function_facts(profile, &inclusive);
    match profile.meta.title.as_deref().map(|t| t.replace(['\n', '\r'], " ")) {
        Some(title) if !title.trim().is_empty() => {
            if title != profile.meta.title.as_deref().unwrap_or_default() {
                diag.warn("newline-in-title", None, || {
                    "a lispworks tree name is one line: newlines written as spaces".into()
                });
            }
            writeln!(out, "{MARKER}: {}", title.trim())?
        }
        _ => writeln!(out, "{MARKER}")?,
    }
    let names: Vec<String> = profile.frames.iter().map(|(_, frame)| node_name(frame)).collect();
    let mut line = Vec::with_capacity(256);
    for visit in tree.walk() {
        let (node, depth) = (visit.node, visit.depth);
        let frame = tree.frame(node);
        let f = facts[frame.index()];
        line.clear();
        let count = inclusive.get(node.index());
        write!(line, "{depth}|{count}|{}|{}|{}|", f.calls.unwrap_or(0), f.seen.unwrap_or(0), f.top.unwrap_or(0))?;
        line.extend_from_slice(names[frame.index()].as_bytes());
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// The Name field for a frame: strings for threads and pseudo-frames, the name itself otherwise.
fn node_name(frame: &crate::model::Frame) -> String {
    let mut name = String::new();
    match frame.kind {
        FrameKind::Thread | FrameKind::Pseudo => quote(&frame.name, &mut name),
        FrameKind::Function | FrameKind::Line => name = frame.to_string(),
    }
    name
}

/// Call/Seen/Top per frame: as read where the profile has them, else computed from the tree.
fn function_facts(profile: &Profile, inclusive: &crate::model::Values) -> Vec<FunctionFacts> {
    let tree = &profile.tree;
    let n = profile.frames.len();
    let mut seen = vec![0i64; n];
    let mut top = vec![0i64; n];
    // Seen counts each sample once per function, however often recursion repeats it on the stack:
    // sum the inclusive counts of the nodes that have no ancestor of the same function.
    let mut on_path = vec![0u32; n];
    let mut path: Vec<FrameId> = Vec::new();
    for visit in tree.walk() {
        let (node, depth) = (visit.node, visit.depth);
        while path.len() > depth as usize {
            if let Some(f) = path.pop() {
                on_path[f.index()] -= 1;
            }
        }
        let f = tree.frame(node);
        if on_path[f.index()] == 0 {
            seen[f.index()] = seen[f.index()].saturating_add(inclusive.get(node.index()).as_count());
        }
        top[f.index()] = top[f.index()].saturating_add(tree.self_value(0, node).as_count());
        on_path[f.index()] += 1;
        path.push(f);
    }
    (0..n)
        .map(|i| {
            let known = profile.function_facts.get(&FrameId(i as u32)).copied().unwrap_or_default();
            FunctionFacts {
                calls: Some(known.calls.unwrap_or(0)),
                seen: Some(known.seen.unwrap_or(seen[i])),
                top: Some(known.top.unwrap_or(top[i])),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field as `str::parse` reads it, for numbers of every length, in lines short and long
    /// enough for the eight-byte path, followed by every kind of byte.
    #[test]
    fn fields_parse_as_str_parse_does() {
        let mut numbers: Vec<String> = vec!["0".into(), "-0".into(), "007".into(), "-".into(), "".into(), "1-2".into()];
        for digits in 1..=21 {
            numbers.push("9".repeat(digits));
            numbers.push(format!("-{}", "9".repeat(digits)));
            numbers.push("1234567890123456789012"[..digits].to_string());
        }
        numbers.extend([i64::MAX.to_string(), i64::MIN.to_string(), "9223372036854775808".into()]);
        numbers.extend(["-9223372036854775809".into(), "00000000000000000000042".into()]);
        for number in &numbers {
            for after in ["|", "|x", "|name of some length", " |", "a|", "/|", ":|", "|9"] {
                let line = format!("{number}{after}");
                let expected = after.starts_with('|').then(|| number.parse::<i64>().ok()).flatten();
                let got = field_int(line.as_bytes(), 0).map(|(v, end)| {
                    assert_eq!(end, number.len() + 1, "{line:?}");
                    v
                });
                assert_eq!(got, expected, "{line:?}");
            }
        }
    }

    #[test]
    fn name_is_everything_after_the_fifth_bar() {
        let line = "2|5|0|5|1||weird|symbol|";
        let row = parse_row(line).unwrap();
        assert_eq!(&line[row.name_start..], "|weird|symbol|");
        assert_eq!(row.depth, 2);
    }

    #[test]
    fn short_rows_and_bad_numbers_are_named() {
        let e = parse_row("1|2|3").unwrap_err().to_string();
        assert!(e.contains("3 fields"), "{e}");
        let e = parse_row("1|x|0|0|0|F").unwrap_err().to_string();
        assert_eq!(e, "Count must be an integer, found \"x\"");
        // An integer, past i64: its range is named (it was "must be an integer").
        let e = parse_row("0|18446744073709551615|0|0|0|A").unwrap_err().to_string();
        assert_eq!(
            e,
            "expected a Count from -9223372036854775808 to 9223372036854775807, found 18446744073709551615, out of that range"
        );
    }

    /// A negative Count is none, said at its line: its parent keeps its own samples (it was
    /// given 10 more), and the warning names the Count, not the children.
    #[test]
    fn a_negative_count_reads_as_0() {
        let text = "LispWorks Profiler Tree: t\n0|5|0|5|5|A\n1|-10|0|10|0|B\n";
        let mut diag = Diagnostics::default();
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut diag).unwrap();
        assert_eq!(profile.total(0), Value::Int(5));
        let warning = &diag.warnings()[0];
        assert_eq!((warning.key, warning.message.as_str()), ("negative-count", "Count is negative (-10): read as 0"));
    }

    #[test]
    fn integers_parse_strictly() {
        let int = |text: &str| field_int(format!("{text}|").as_bytes(), 0).map(|(v, _)| v);
        assert_eq!(int("0"), Some(0));
        assert_eq!(int("-12"), Some(-12));
        assert_eq!(int("9223372036854775807"), Some(i64::MAX));
        assert_eq!(int("-9223372036854775808"), Some(i64::MIN));
        for bad in ["", "-", "+1", " 1", "1 ", "9223372036854775808", "1.0", "x"] {
            assert_eq!(int(bad), None, "{bad:?}");
        }
    }

    /// LispWorks' documentation (docs/sources.md): "the node with depth 0 is the root"; string
    /// names are nodes that are no function. The strings right below a string root are processes
    /// (threads); the root and strings elsewhere are other pseudo-frames, and so is a string below
    /// a function root.
    #[test]
    fn strings_below_the_string_root_are_processes() {
        let text = "LispWorks Profiler Tree\n0|4|0|4|0|\"Profile root\"\n1|4|0|4|1|\"P\"\n2|3|0|3|3|\"GC\"\n\
                    0|2|0|2|1|F\n1|1|0|1|1|\"Q\"\n";
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let kinds: Vec<(&str, FrameKind)> = profile
            .tree
            .nodes()
            .map(|n| profile.frames.get(profile.tree.frame(n)))
            .map(|f| (f.name.as_str(), f.kind))
            .collect();
        use FrameKind::{Function, Pseudo, Thread};
        assert_eq!(kinds, [("Profile root", Pseudo), ("P", Thread), ("GC", Pseudo), ("F", Function), ("Q", Pseudo)]);
    }

    #[test]
    fn quoted_strings_unescape_and_requote() {
        assert_eq!(unquote(r#""a \"b\" \\c""#).as_deref(), Some(r#"a "b" \c"#));
        assert_eq!(unquote(r#""a" "b""#), None);
        assert_eq!(unquote("FOO"), None);
        let mut s = String::new();
        quote(r#"a "b" \c"#, &mut s);
        assert_eq!(s, r#""a \"b\" \\c""#);
    }
}
