//! The lines of a gprof report read into its parts: the flat profile's rows, the call graph's
//! entries (each function's primary line and its callers' lines) and its cycles as wholes, with
//! the sampling interval the report states. [`super`] makes them a profile.

use super::FORMAT;
use crate::error::{ParseError, Position};
use crate::text::Line;
use rustc_hash::FxHashMap;
use std::io::Read;

/// A row of the flat profile.
pub(super) struct FlatRow {
    pub(super) name: String,
    pub(super) percent: f64,
    /// Self seconds (or thousands of cycles, [`Report::cycles`]).
    pub(super) own: f64,
    /// Its calls, blank for a function gprof has no call count of.
    pub(super) calls: Option<u64>,
}

/// A caller's line of an entry: the caller's index, the callee's self and children time due to
/// its calls (none for a call inside a cycle or a recursive one), and how often it called.
pub(super) struct Caller {
    pub(super) index: u32,
    pub(super) cycle: Option<u32>,
    pub(super) times: Option<(f64, f64)>,
    pub(super) count: u64,
}

/// A function's entry of the call graph: its primary line's figures and its callers.
pub(super) struct Entry {
    pub(super) index: u32,
    pub(super) own: f64,
    pub(super) children: f64,
    /// Calls from other functions (`n` of `n+m`), 0 where blank.
    pub(super) called: u64,
    /// Calls of itself (`m` of `n+m`).
    pub(super) recursive: u64,
    pub(super) cycle: Option<u32>,
    pub(super) callers: Vec<Caller>,
}

/// A cycle as a whole (`<cycle 1 as a whole>`): its self and children time.
#[derive(Clone, Copy)]
pub(super) struct Cycle {
    pub(super) own: f64,
    pub(super) children: f64,
}

/// What a report holds.
#[derive(Default)]
pub(super) struct Report {
    /// Seconds a sample counts as (`Each sample counts as 0.01 seconds.`).
    pub(super) interval: Option<f64>,
    /// Whether its figures are thousands of cycles (`cycles (K)`, gprof of a simulator), not seconds.
    pub(super) cycles: bool,
    pub(super) flat: Vec<FlatRow>,
    pub(super) entries: Vec<Entry>,
    pub(super) wholes: FxHashMap<u32, Cycle>,
    /// Every index's name, as first met, without its `<cycle N>`.
    pub(super) names: FxHashMap<u32, String>,
    pub(super) has_graph: bool,
    /// Where the flat profile's table starts, for its warning.
    pub(super) flat_at: Option<Position>,
}

/// Where the reading is.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    /// Explanations, headers, the index by name: skipped.
    Outside,
    /// The flat profile's header lines, before its first row.
    FlatHeader,
    /// The flat profile's rows.
    Flat,
    /// The call graph, inside an entry where `open` (a line since the last line of dashes).
    Graph { open: bool },
}

/// The primary line of the entry being read.
enum Open {
    Function(Entry),
    /// A cycle as a whole, its members' lines following.
    Whole,
}

/// The reading of a report, line by line.
struct Reader {
    report: Report,
    section: Section,
    /// The entry being read: its callers so far, and its primary line once read.
    callers: Vec<Caller>,
    primary: Option<Open>,
    /// Where the call graph was taken to end at a line that is none of its (explanations follow
    /// it); a line of an entry after it is an error there.
    graph_ended_at: Option<(Position, String)>,
    last: Position,
}

/// What a row of the flat profile is, for its errors.
const FLAT_ROW: &str =
    "a row of the flat profile: %time, cumulative seconds, self seconds, [calls, self and total per call,] name";

/// Reads a report's lines.
pub(super) fn read(input: &mut (dyn Read + Send)) -> Result<Report, ParseError> {
    let mut reader = Reader {
        report: Report::default(),
        section: Section::Outside,
        callers: Vec::new(),
        primary: None,
        graph_ended_at: None,
        last: Position::line(1, 0),
    };
    crate::text::pipeline(
        input,
        FORMAT,
        |_| (),
        |line, ()| {
            reader.last = line.position;
            reader.line(&line)
        },
    )?;
    reader.end()
}

impl Reader {
    fn line(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        let text = line.text;
        let trimmed = text.trim();
        if line.unterminated && matches!(self.section, Section::Flat | Section::Graph { .. }) && !trimmed.is_empty() {
            return Err(line.unexpected(
                "a line break at the end of the line (gprof ends every line of its tables with one)",
                "the end of the input: the file looks cut short",
            ));
        }
        if text.starts_with('\u{c}') || trimmed.starts_with("Index by function name") {
            return self.leave_graph(line);
        }
        if let Some(rest) = trimmed.strip_prefix("Each sample counts as ") {
            let seconds = rest.split_whitespace().next().and_then(|s| s.parse::<f64>().ok());
            match seconds {
                Some(s) if s.is_finite() && s > 0.0 => self.report.interval = Some(s),
                _ => return Err(line.unexpected("a sampling interval in seconds", rest.to_string())),
            }
            return Ok(());
        }
        match self.section {
            Section::Graph { open } => self.graph_line(line, open),
            Section::FlatHeader => {
                if trimmed.contains("cycles") {
                    self.report.cycles = true;
                }
                match flat_row(trimmed) {
                    Some(row) => {
                        self.section = Section::Flat;
                        self.report.flat.push(row);
                    }
                    None if trimmed.is_empty() => self.section = Section::Outside,
                    // A header line has no figures: a line that starts with one is a bad row.
                    None if next_word(trimmed).0.parse::<f64>().is_ok() => {
                        return Err(line.unexpected(FLAT_ROW, excerpt(trimmed)));
                    }
                    None => {}
                }
                Ok(())
            }
            Section::Flat => {
                if trimmed.is_empty() {
                    self.section = Section::Outside;
                    return Ok(());
                }
                let row = flat_row(trimmed).ok_or_else(|| line.unexpected(FLAT_ROW, excerpt(trimmed)))?;
                self.report.flat.push(row);
                Ok(())
            }
            Section::Outside => self.outside(line, trimmed),
        }
    }

    /// A line outside the tables: a table's header starts it.
    fn outside(&mut self, line: &Line<'_>, trimmed: &str) -> Result<(), ParseError> {
        let words: Vec<&str> = trimmed.split_whitespace().take(8).collect();
        if matches!(words.first(), Some(&"%" | &"cumulative")) && words.contains(&"self") {
            self.section = Section::FlatHeader;
            self.report.flat_at = Some(line.position);
            if trimmed.contains("cycles") {
                self.report.cycles = true;
            }
            return Ok(());
        }
        let graph_header = is_graph_header(&words) && words.iter().any(|w| w.starts_with("called"));
        if graph_header {
            if self.report.has_graph {
                return Err(line.unexpected("one call graph", "the header of a second one"));
            }
            self.report.has_graph = true;
            self.section = Section::Graph { open: false };
            return Ok(());
        }
        if let Some((at, text)) = &self.graph_ended_at {
            if trimmed.starts_with('[') && primary(trimmed).is_some() {
                return Err(ParseError {
                    format: FORMAT,
                    position: *at,
                    kind: crate::error::ParseErrorKind::Unexpected {
                        expected: "a line of a call graph entry: [self children] called[/total] name [index] (more entries follow it)".into(),
                        found: text.clone(),
                    },
                });
            }
        }
        Ok(())
    }

    /// A line of the call graph.
    fn graph_line(&mut self, line: &Line<'_>, open: bool) -> Result<(), ParseError> {
        let trimmed = line.text.trim();
        if trimmed.is_empty() || trimmed.starts_with("called/total") || trimmed.starts_with("(K)") {
            return Ok(());
        }
        if trimmed.len() >= 2 && trimmed.bytes().all(|b| b == b'-') {
            return self.close_entry(line);
        }
        if trimmed.starts_with('#') {
            return self.leave_graph(line);
        }
        if trimmed.starts_with('[') {
            let Some(parsed) = primary(trimmed) else {
                return Err(line.unexpected(
                    "an entry's primary line: [index] %time self children [called] name [index]",
                    excerpt(trimmed),
                ));
            };
            if self.primary.is_some() {
                return Err(
                    line.unexpected("a line of dashes ending the entry before the next primary line", excerpt(trimmed))
                );
            }
            self.section = Section::Graph { open: true };
            return self.primary_line(parsed);
        }
        if trimmed == "<spontaneous>" || ends_with_index_in_parentheses(trimmed) {
            self.section = Section::Graph { open: true };
            return Ok(());
        }
        let Some(parsed) = other_line(trimmed) else {
            if !open {
                // The explanations after the last entry (gprof without -b).
                self.section = Section::Outside;
                self.graph_ended_at = Some((line.position, excerpt(trimmed)));
                return Ok(());
            }
            return Err(line.unexpected(
                "a line of a call graph entry: [self children] called[/total or +self] name [index]",
                excerpt(trimmed),
            ));
        };
        self.section = Section::Graph { open: true };
        self.name(parsed.index, parsed.name);
        if self.primary.is_none() {
            let count = parsed.count;
            self.callers.push(Caller { index: parsed.index, cycle: parsed.cycle, times: parsed.times, count });
        }
        Ok(())
    }

    /// An entry's primary line: a function's, or a cycle's as a whole.
    fn primary_line(&mut self, parsed: Primary<'_>) -> Result<(), ParseError> {
        if let Some(cycle) = whole_cycle(parsed.name) {
            self.report.wholes.insert(cycle, Cycle { own: parsed.own, children: parsed.children });
            self.report.names.entry(parsed.index).or_insert_with(|| format!("<cycle {cycle} as a whole>"));
            self.callers.clear();
            // Its member lines follow; they hold nothing the members' own entries do not.
            self.primary = Some(Open::Whole);
            return Ok(());
        }
        let (name, cycle) = split_cycle(parsed.name);
        self.name(parsed.index, name);
        let (called, recursive) = parsed.called.unwrap_or((0, 0));
        let callers = std::mem::take(&mut self.callers);
        self.primary = Some(Open::Function(Entry {
            index: parsed.index,
            own: parsed.own,
            children: parsed.children,
            called,
            recursive,
            cycle,
            callers,
        }));
        Ok(())
    }

    fn name(&mut self, index: u32, name: &str) {
        let (name, _) = split_cycle(name);
        self.report.names.entry(index).or_insert_with(|| name.to_string());
    }

    /// The line of dashes after an entry.
    fn close_entry(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        if let Section::Graph { open: true } = self.section {
            let Some(entry) = self.primary.take() else {
                return Err(line.unexpected("an entry's primary line ([index] …) before the line of dashes", "none"));
            };
            if let Open::Function(entry) = entry {
                self.report.entries.push(entry);
            }
            self.callers.clear();
        }
        self.section = Section::Graph { open: false };
        Ok(())
    }

    /// The end of the call graph (a form feed, its index by name): an entry left open is cut short.
    fn leave_graph(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        if let Section::Graph { open: true } = self.section {
            return Err(
                line.unexpected("a line of dashes ending the call graph's last entry", excerpt(line.text.trim()))
            );
        }
        if matches!(self.section, Section::Graph { .. } | Section::Flat | Section::FlatHeader) {
            self.section = Section::Outside;
        }
        Ok(())
    }

    /// At the end of the input: a call graph must have ended before it.
    fn end(self) -> Result<Report, ParseError> {
        let last = self.last;
        let cut = |expected: &str| ParseError {
            format: FORMAT,
            position: last,
            kind: crate::error::ParseErrorKind::Unexpected {
                expected: expected.to_string(),
                found: "the end of the input: the file looks cut short".to_string(),
            },
        };
        match self.section {
            Section::Graph { .. } => {
                return Err(cut("the end of the call graph (gprof follows it by its explanations, a form feed or its index by function name)"))
            }
            Section::FlatHeader => return Err(cut("the rows of the flat profile after its header")),
            _ => {}
        }
        if self.report.flat.is_empty() && !self.report.has_graph {
            return Err(ParseError {
                format: FORMAT,
                position: Position::line(1, 0),
                kind: crate::error::ParseErrorKind::Unexpected {
                    expected: "a gprof report: a flat profile (`Flat profile:`) or a call graph (`index % time self children called name`)".into(),
                    found: "neither".into(),
                },
            });
        }
        Ok(self.report)
    }
}

/// Whether a line's first words are a call graph's header: `index % time self children called
/// name`, or `descendents` (BSD's) or `descendants` (GNU's `-T`, the traditional BSD layout) for
/// `children`.
pub(super) fn is_graph_header(words: &[&str]) -> bool {
    words.first() == Some(&"index")
        && words.contains(&"self")
        && words.iter().any(|w| matches!(*w, "children" | "descendents" | "descendants"))
}

/// The start of `text`, for an error.
fn excerpt(text: &str) -> String {
    crate::error::excerpt(text.as_bytes())
}

/// A number of seconds as gprof prints them: digits, a point, digits.
fn seconds(word: &str) -> Option<f64> {
    let (whole, fraction) = word.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && digits(fraction)).then(|| word.parse().ok()).flatten()
}

/// A count: digits.
fn count(word: &str) -> Option<u64> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

/// The first word of `text` and what follows it, without its leading blanks.
fn next_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.find(char::is_whitespace) {
        Some(at) => (&text[..at], text[at..].trim_start()),
        None => (text, ""),
    }
}

/// A row of the flat profile: `%time cumulative self [calls self/call total/call] name`.
fn flat_row(text: &str) -> Option<FlatRow> {
    let (percent, rest) = next_word(text);
    let percent = seconds(percent)?;
    let (cumulative, rest) = next_word(rest);
    seconds(cumulative)?;
    let (own, rest) = next_word(rest);
    let own = seconds(own)?;
    let (calls_word, after_calls) = next_word(rest);
    let (calls, name) = match count(calls_word) {
        Some(calls) => {
            let (per_self, rest) = next_word(after_calls);
            let (per_total, rest) = next_word(rest);
            seconds(per_self)?;
            seconds(per_total)?;
            (Some(calls), rest)
        }
        // A name does not start with a digit: a calls column that is no count is a bad row.
        None if calls_word.starts_with(|c: char| c.is_ascii_digit()) => return None,
        None => (None, rest),
    };
    // BSD's flat profile (and GNU's `-T`) names each function's index, `[index]`, or `(index)` for
    // one it does not list, and a cycle's member's cycle, as the call graph does.
    let name = split_cycle(strip_index(name.trim()).0).0;
    let name = match name.strip_suffix(')').and_then(|n| n.rsplit_once(" (")) {
        Some((bare, index)) if count(index).is_some() => bare.trim_end(),
        _ => name,
    };
    if name.is_empty() {
        return None;
    }
    Some(FlatRow { name: name.to_string(), percent, own, calls })
}

/// `name [index]` as its name and index; the text itself where it has none.
fn strip_index(text: &str) -> (&str, Option<u32>) {
    if let Some(open) = text.strip_suffix(']').and_then(|t| t.rfind('[').map(|at| (t, at))) {
        let (t, at) = open;
        if let Some(index) = count(&t[at + 1..]) {
            if at == 0 || t[..at].ends_with(char::is_whitespace) {
                return (t[..at].trim_end(), u32::try_from(index).ok());
            }
        }
    }
    (text, None)
}

/// Whether a line ends in `(index)`: a function gprof does not list (gprof2dot skips these).
fn ends_with_index_in_parentheses(text: &str) -> bool {
    text.strip_suffix(')').and_then(|t| t.rfind('(').map(|at| &t[at + 1..])).is_some_and(|d| count(d).is_some())
        && !text.contains(" [")
}

/// A name's `<cycle N>` suffix taken off: the name and the cycle.
fn split_cycle(name: &str) -> (&str, Option<u32>) {
    if let Some(rest) = name.strip_suffix('>') {
        if let Some(at) = rest.rfind(" <cycle ") {
            if let Some(n) = count(&rest[at + " <cycle ".len()..]) {
                return (rest[..at].trim_end(), u32::try_from(n).ok());
            }
        }
    }
    (name, None)
}

/// The cycle of a `<cycle N as a whole>` name.
fn whole_cycle(name: &str) -> Option<u32> {
    let n = name.strip_prefix("<cycle ")?.strip_suffix(" as a whole>")?;
    count(n).and_then(|n| u32::try_from(n).ok())
}

/// A primary line: `[index] %time self children [called[+self]] name [index]`.
struct Primary<'t> {
    index: u32,
    own: f64,
    children: f64,
    called: Option<(u64, u64)>,
    name: &'t str,
}

fn primary(text: &str) -> Option<Primary<'_>> {
    let rest = text.strip_prefix('[')?;
    let close = rest.find(']')?;
    let index = u32::try_from(count(&rest[..close])?).ok()?;
    let rest = &rest[close + 1..];
    let (percent, rest) = next_word(rest);
    seconds(percent)?;
    let (own, rest) = next_word(rest);
    let own = seconds(own)?;
    let (children, rest) = next_word(rest);
    let children = seconds(children)?;
    let (word, after) = next_word(rest);
    let (called, rest) = match called(word) {
        Some((n, m, false)) => (Some((n, m)), after),
        _ => (None, rest),
    };
    let (name, last) = strip_index(rest.trim());
    if last != Some(index) || name.is_empty() {
        return None;
    }
    Some(Primary { index, own, children, called, name })
}

/// A called column: `n`, `n+m` (recursive calls), or `n/total` (a caller's or callee's line):
/// `n`, `m` and whether it was a fraction.
fn called(word: &str) -> Option<(u64, u64, bool)> {
    if let Some((n, m)) = word.split_once('+') {
        return Some((count(n)?, count(m)?, false));
    }
    if let Some((n, total)) = word.split_once('/') {
        count(total)?;
        return Some((count(n)?, 0, true));
    }
    Some((count(word)?, 0, false))
}

/// A caller's, callee's or cycle member's line: `[self children] called name [index]`.
struct Other<'t> {
    index: u32,
    times: Option<(f64, f64)>,
    count: u64,
    name: &'t str,
    cycle: Option<u32>,
}

fn other_line(text: &str) -> Option<Other<'_>> {
    let (first, rest) = next_word(text);
    let (times, word, rest) = match seconds(first) {
        Some(own) => {
            let (children, rest) = next_word(rest);
            let children = seconds(children)?;
            let (word, rest) = next_word(rest);
            (Some((own, children)), word, rest)
        }
        None => (None, first, rest),
    };
    let (count, _, _) = called(word)?;
    let (name, index) = strip_index(rest.trim());
    let index = index?;
    if name.is_empty() {
        return None;
    }
    let (bare, cycle) = split_cycle(name);
    Some(Other { index, times, count, name: bare, cycle })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_kind_are_read() {
        let p = primary("[8]      2.5    0.01    0.00      60+38137200 fib [8]").unwrap();
        assert_eq!((p.index, p.own, p.called, p.name), (8, 0.01, Some((60, 38137200)), "fib"));
        let p = primary("[1]    100.0    0.00    0.40                 main [1]").unwrap();
        assert_eq!((p.called, p.name), (None, "main"));
        let p = primary("[4]     27.5    0.11    0.00      60+181770  <cycle 1 as a whole> [4]").unwrap();
        assert_eq!(whole_cycle(p.name), Some(1));
        let o = other_line("0.09    0.00  120000/300000      sum_cubes [5]").unwrap();
        assert_eq!((o.index, o.times, o.count, o.name), (5, Some((0.09, 0.0)), 120000, "sum_cubes"));
        let o = other_line("90870             is_odd <cycle 1> [6]").unwrap();
        assert_eq!((o.index, o.times, o.cycle, o.name), (6, None, Some(1), "is_odd"));
        let o = other_line("0.00 0.00 1/1 std::vector<int, std::allocator<int> >::push_back(int const&) [14]").unwrap();
        assert_eq!(o.name, "std::vector<int, std::allocator<int> >::push_back(int const&)");
        assert!(other_line("This table describes the call tree of the program, and was sorted by").is_none());
        let row = flat_row("14.61      0.46     0.07       60     1.17     2.87  sum_squares").unwrap();
        assert_eq!((row.own, row.calls, row.name.as_str()), (0.07, Some(60), "sum_squares"));
        let row = flat_row("  0.00      0.46     0.00                             frame_dummy").unwrap();
        assert_eq!((row.calls, row.name.as_str()), (None, "frame_dummy"));
        assert!(ends_with_index_in_parentheses("0.00 0.00 1/1 mcount (12)"));
        let row = flat_row(" 31.4       0.38     0.38                             _moncount (5191)").unwrap();
        assert_eq!((row.own, row.calls, row.name.as_str()), (0.38, None, "_moncount"));
        let row = flat_row("  0.0       1.21     0.00        1     0.00     0.00  __ZN3c3d10StructInfoC4ERKSs [114]")
            .unwrap();
        assert_eq!(row.name, "__ZN3c3d10StructInfoC4ERKSs");
        // GNU's `-T` names a cycle's member's cycle in the flat profile too.
        let row = flat_row(" 37.4       0.43     0.43    90930     0.00     0.00  is_even <cycle 1> [3]").unwrap();
        assert_eq!((row.own, row.calls, row.name.as_str()), (0.43, Some(90930), "is_even"));
        assert!(is_graph_header(&"index  %time    self descendants  called+self    name    \tindex".split_whitespace().collect::<Vec<_>>()));
    }
}
