//! GHC's text profiling report, `<prog>.prof`, from `+RTS -p` or `-P` (GHC 7.x to 9.x).
//!
//! **Producer**: GHC's `rts/ProfilerReport.c`.
//!
//! ```text
//! (lines start with a TAB where four spaces show here)
//!     Sun Aug  6 14:52 2023 Time and Allocation Profiling Report  (Final)
//!
//!        prog +RTS -P -RTS
//!
//!     total time  =        0.02 secs   (23 ticks @ 1000 us, 1 processor)
//!     total alloc =  59,542,424 bytes  (excludes profiling overheads)
//!
//! COST CENTRE MODULE SRC            %time %alloc  ticks     bytes
//! (per-cost-centre summary rows)
//!
//!                                              individual      inherited
//! COST CENTRE MODULE SRC      no. entries  %time %alloc   %time %alloc  ticks     bytes
//!
//! MAIN        MAIN   <built-in> 337     0    0.0    0.0   100.0  100.0      0       728
//!  main       Main   Main.hs:3:1 338    1   30.4    9.4    30.4    9.4      7   5617272
//! ```
//!
//! **Grammar**: a title line (`… Time and Allocation Profiling Report`), the command line, the
//! `total time` line (`(N ticks @ I us, P processors)`; before GHC 7.4 `(N ticks @ I ms)`), the
//! `total alloc` line (comma-grouped bytes), the per-cost-centre table (label, module, SRC,
//! `%time %alloc` and with `-P` `ticks bytes`; only cost centres with 1 % or more of either, unless
//! `-pa`; read only without `-P`), then the tree: a header naming the columns, and one row per cost-centre stack, indented
//! one space per level: label, module, source span (absent before GHC 8), stack number, entries,
//! individual and inherited `%time %alloc`, and with `-P` the `ticks` and `bytes` columns.
//!
//! **Reading**: rows are parsed from the right (a SRC such as `<no location info>` holds spaces);
//! label, module and SRC are split at the header's column starts, counted in characters (labels can
//! be CJK), and by whitespace when a row does not fit the columns. CRLF is accepted. Metrics:
//! `entries` (per node); `ticks` and `alloc` (bytes) from the `-P` columns, or else `time` (ms) and
//! `alloc` from the individual percentages times the header totals, with a warning that the
//! percentages are rounded to 0.1. With `-P` the header's total ticks and total alloc are checked
//! against the tree's sums, with a warning when they differ. The tick length is the profile's
//! interval; the command line is its title.
//!
//! **What a `-p` tree cannot place**: a row under 0.05 % prints as 0.0, so a report of many small
//! stacks places much less than the header's totals (a 28,679-row report placed 70 % of its time
//! and 58 % of its allocation). The header's totals and the per-cost-centre table are the better
//! numbers: what the tree's rows leave of the header's total goes to one frame,
//! [`BELOW_ROUNDING`], under the root. Its children are the cost centres of the per-cost-centre
//! table, each with its table share less what the tree placed for it (scaled down to fit, should
//! those add up to more than is left), so that a cost centre's self total agrees with GHC's table;
//! what is still left (cost centres under 1 %, not in the table) is the frame's own. The profile's
//! totals then are the header's (alloc to the byte). Each metric the tree leaves short is said on
//! stderr, with how much and the advice to profile with `+RTS -P`, or, where it leaves more than
//! the rounding of its rows can (0.05 % a row), that the report looks cut short; a tree whose rounded
//! percentages add up to more than 100 % is said to, and kept as it is. A header total of nothing
//! (`0 ticks`, a run too short for a tick, as most of GHC's own test reports are) leaves nothing.
//!
//! SRC is kept as the frame attr [`DEFINED_AT`] (first seen per cost centre; a file and line
//! for speedscope and pprof); the stack numbers are not kept. Errors in a row give the column of
//! the bad field. Not written: proftool reads this format only.

use super::{alloc_metric, cost_centre, new_profile, ALLOC, ENTRIES, TICKS};
use crate::diag::Diagnostics;
use crate::error::{excerpt, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::spec::{first_line_contains, Carries, Reads, Sniff, Spec};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, DEFINED_AT};
use crate::text::{self, Line};
use std::io::Read;
use std::time::Duration;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "ghc-prof",
    description: "GHC `+RTS -p`/`-P` text report",
    extensions: &["prof"],
    carries: CARRIES,
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a text report carries.
pub(crate) const CARRIES: Carries =
    Carries { metrics: &[MetricKind::Ticks, MetricKind::Time, MetricKind::Calls, MetricKind::Alloc], ..super::CARRIES };

const MARKER: &str = "Time and Allocation Profiling Report";

/// `Yes` when the first line has the report's title.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    first_line_contains(head, MARKER)
}

/// At most this many numbers end a tree row (`no. entries %time %alloc %time %alloc ticks bytes`).
const MAX_NUMBERS: usize = 8;

/// The numbers at the end of a line, parsed on the reader thread: from the right, each number's
/// value (digits with the decimal point left out), its count of decimals and where it starts.
#[derive(Clone, Copy, Default)]
struct Numbers {
    count: usize,
    value: [u64; MAX_NUMBERS],
    decimals: [u8; MAX_NUMBERS],
    start: [u32; MAX_NUMBERS],
}

fn trailing_numbers(line: &str) -> Numbers {
    let bytes = line.as_bytes();
    let mut numbers = Numbers::default();
    let mut end = bytes.len();
    while numbers.count < MAX_NUMBERS {
        while end > 0 && bytes[end - 1] == b' ' {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && bytes[start - 1] != b' ' {
            start -= 1;
        }
        let Some((value, decimals)) = parse_number(&bytes[start..end]) else { break };
        let i = numbers.count;
        numbers.value[i] = value;
        numbers.decimals[i] = decimals;
        numbers.start[i] = u32::try_from(start).unwrap_or(u32::MAX);
        numbers.count += 1;
        end = start;
    }
    numbers
}

/// Decimal digits with at most one `.`: the digits as one integer and the count after the point.
fn parse_number(token: &[u8]) -> Option<(u64, u8)> {
    if token.is_empty() {
        return None;
    }
    let mut value: u64 = 0;
    let mut decimals: Option<u8> = None;
    for &b in token {
        match b {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                if let Some(d) = &mut decimals {
                    *d = d.checked_add(1)?;
                }
            }
            b'.' if decimals.is_none() => decimals = Some(0),
            _ => return None,
        }
    }
    Some((value, decimals.unwrap_or(0)))
}

/// A percentage in tenths (`30.4` → 304).
fn tenths(value: u64, decimals: u8) -> u64 {
    match decimals {
        0 => value.saturating_mul(10),
        1 => value,
        d => value / 10u64.saturating_pow(u32::from(d) - 1),
    }
}

/// Reads a text report: rows are split into numbers on a second thread while this one builds the tree.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    _: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut reader = ProfReader::default();
    let mut end = Position::line(1, 0);
    text::pipeline(input, FORMAT, trailing_numbers, |line, numbers| {
        // GHC ends every line of its report: a last line without its break was cut short.
        line.warn_if_cut_short("its numbers may have lost digits", diag);
        end = Position::line(line.position.line.map_or(1, |n| n + 1), line.position.byte + line.text.len() as u64 + 1);
        reader.line(&line, &numbers, diag)
    })?;
    reader.finish(end, diag)
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Section {
    #[default]
    Title,
    Preamble,
    Summary,
    Tree,
}

/// The tree header's columns: where MODULE and SRC start (in characters), and whether the
/// `ticks bytes` columns are there.
#[derive(Default, Clone, Copy)]
struct Columns {
    module: usize,
    src: Option<usize>,
    ticks: bool,
}

#[derive(Default)]
struct ProfReader {
    section: Section,
    profile: Option<Profile>,
    timestamp: Option<String>,
    title: Option<String>,
    total_ticks: Option<u64>,
    interval: Option<Duration>,
    total_alloc: Option<u64>,
    columns: Columns,
    /// The open nodes from the root down.
    path: Vec<NodeId>,
    /// The per-cost-centre table's columns, when it has percentages only (`-p`).
    summary_columns: Option<Columns>,
    /// The per-cost-centre table of a `-p` report.
    summary: Vec<SummaryRow>,
    /// What the rows of a `-p` tree place, in all and per frame.
    placed: Placed,
}

/// A row of a `-p` report's per-cost-centre table: a cost centre and its shares.
struct SummaryRow {
    label: String,
    module: String,
    src: String,
    shares: Shares,
}

/// Shares of the header's total time and total alloc (in this order), in tenths of a percent
/// (1000 is the whole), as a `-p` report prints them: rounded to 0.1 %.
type Shares = [u64; 2];

/// What [`Shares`] are shares of: a total of the header, and the key of the warning about it.
struct Shared {
    what: &'static str,
    key: &'static str,
}

const SHARED: [Shared; 2] = [Shared { what: "time", key: "total-time" }, Shared { what: "alloc", key: "total-alloc" }];

/// The frame under the root that holds what a `-p` tree's rows do not place (see the module
/// comment).
pub const BELOW_ROUNDING: &str = "<below 0.05 %>";

/// What the rows of a `-p` tree place: shares in all and per frame, and bytes in all.
#[derive(Default)]
struct Placed {
    shares: Shares,
    by_frame: Vec<Shares>,
    bytes: i64,
}

/// The header's totals of a `-p` report, to turn shares into time and bytes.
#[derive(Clone, Copy)]
struct Totals {
    ms: f64,
    bytes: u64,
}

impl Totals {
    fn time(self, share: u64) -> f64 {
        share as f64 / 1000.0 * self.ms
    }

    fn bytes(self, share: u64) -> i64 {
        (share as f64 / 1000.0 * self.bytes as f64).round() as i64
    }

    /// Whether the `k`th total of [`Shares`] is nothing (`0 ticks`, `0 bytes`).
    fn is_nothing(self, k: usize) -> bool {
        match k {
            0 => self.ms == 0.0,
            _ => self.bytes == 0,
        }
    }

    /// `share` of the `k`th total of [`Shares`] in its unit, for a message.
    fn amount(self, k: usize, share: u64) -> String {
        match k {
            0 => format!("{} ms", crate::model::significant(self.time(share), 12)),
            _ => format!("{} bytes", self.bytes(share)),
        }
    }
}

impl ProfReader {
    fn line(&mut self, line: &Line<'_>, numbers: &Numbers, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let text = line.text;
        match self.section {
            Section::Tree => self.row(line, numbers),
            Section::Title => {
                let Some(at) = text.find(MARKER) else {
                    return Err(line.error(ParseErrorKind::MissingMarker {
                        format: FORMAT,
                        expected: "a first line with \"Time and Allocation Profiling Report\"",
                    }));
                };
                self.timestamp = Some(text[..at].trim().to_string()).filter(|t| !t.is_empty());
                self.section = Section::Preamble;
                Ok(())
            }
            Section::Preamble => self.preamble(line),
            Section::Summary => {
                if text.starts_with("COST CENTRE") && (text.contains(" entries ") || text.ends_with(" entries")) {
                    self.tree_header(line, diag)
                } else {
                    self.summary_row(line, numbers)
                }
            }
        }
    }

    /// The lines between the title and the summary table.
    fn preamble(&mut self, line: &Line<'_>) -> Result<(), ParseError> {
        let text = line.text.trim();
        if text.is_empty() {
            return Ok(());
        }
        if let Some(rest) = text.strip_prefix("total time") {
            let (ticks, interval) = parse_total_time(rest).ok_or_else(|| {
                line.error(ParseErrorKind::Unexpected {
                    expected: "total time = S secs (N ticks @ I us, P processors)".into(),
                    found: excerpt(line.text.as_bytes()),
                })
            })?;
            self.total_ticks = Some(ticks);
            self.interval = Some(interval);
        } else if let Some(rest) = text.strip_prefix("total alloc") {
            let bytes = parse_total_alloc(rest).ok_or_else(|| {
                line.error(ParseErrorKind::Unexpected {
                    expected: "total alloc = N bytes".into(),
                    found: excerpt(line.text.as_bytes()),
                })
            })?;
            self.total_alloc = Some(bytes);
        } else if text.starts_with("COST CENTRE") {
            if self.total_ticks.is_none() || self.total_alloc.is_none() {
                let missing = if self.total_ticks.is_none() { "total time" } else { "total alloc" };
                return Err(line.error(ParseErrorKind::Unexpected {
                    expected: format!("the {missing} line before the tables"),
                    found: excerpt(line.text.as_bytes()),
                }));
            }
            // With ticks and bytes the tree's rows are exact: the table is not needed.
            self.summary_columns = header_columns(line.text).filter(|columns| !columns.ticks);
            self.section = Section::Summary;
        } else if self.title.is_none() {
            self.title = Some(text.to_string());
        }
        Ok(())
    }

    /// The tree's column header: where the columns start, and which metrics there are.
    fn tree_header(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let text = line.text;
        let Some(columns) = header_columns(text) else {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "a tree header: COST CENTRE MODULE [SRC] no. entries %time %alloc %time %alloc [ticks bytes]"
                    .into(),
                found: excerpt(text.as_bytes()),
            }));
        };
        self.columns = columns;
        let mut profile = new_profile();
        if !columns.ticks {
            let time = Metric::time(Unit::Milliseconds, Repr::Float);
            profile = Profile::new(vec![time, Metric::entries("entries"), alloc_metric()]);
            profile.meta.module_namespaces = true;
            diag.warn("percentages", Some(line.position), || {
                "no ticks and bytes columns (+RTS -p): time and alloc are the individual %time and %alloc times the totals, and those percentages are rounded to 0.1".into()
            });
        }
        profile.meta.timestamp = self.timestamp.take();
        profile.meta.title = self.title.take();
        profile.meta.interval = self.interval;
        self.profile = Some(profile);
        self.section = Section::Tree;
        Ok(())
    }

    /// One line between the per-cost-centre table's header and the tree's: a row of the table
    /// when it has numbers (and the table is wanted), else a blank or the tree's first header line.
    fn summary_row(&mut self, line: &Line<'_>, numbers: &Numbers) -> Result<(), ParseError> {
        let Some(columns) = self.summary_columns else { return Ok(()) };
        if numbers.count == 0 {
            return Ok(());
        }
        let names = (numbers.count >= 2).then(|| split_names(line.text, 0, numbers.start[1] as usize, columns));
        let Some(Some((label, module, src))) = names else {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "a per-cost-centre row: cost centre, module, [SRC,] %time %alloc".into(),
                found: excerpt(line.text.as_bytes()),
            }));
        };
        let share = |i: usize| tenths(numbers.value[i], numbers.decimals[i]);
        let shares = [share(1), share(0)];
        self.summary.push(SummaryRow { label: label.into(), module: module.into(), src: src.into(), shares });
        Ok(())
    }

    /// One row of the tree.
    fn row(&mut self, line: &Line<'_>, numbers: &Numbers) -> Result<(), ParseError> {
        let text = line.text;
        if text.trim().is_empty() {
            return Ok(());
        }
        let columns = self.columns;
        let wanted = if columns.ticks { 8 } else { 6 };
        let bad = |what: &str| {
            line.error(ParseErrorKind::Unexpected {
                expected: format!(
                    "a tree row: an indented cost centre, its module{}, then {wanted} numbers{what}",
                    if columns.src.is_some() { " and SRC" } else { "" }
                ),
                found: excerpt(text.as_bytes()),
            })
        };
        if numbers.count < wanted {
            // At the field that should have been a number: the one left of the numbers found.
            let end = numbers.count.checked_sub(1).map_or(text.len(), |i| numbers.start[i] as usize);
            let before = text[..end].trim_end_matches(' ');
            let field = before.rfind(' ').map_or(0, |i| i + 1);
            return Err(ParseError { position: line.position_at(field), ..bad("") });
        }
        let depth = text.len() - text.trim_start_matches(' ').len();
        let names_end = numbers.start[wanted - 1] as usize;
        let Some((label, module, src)) = split_names(text, depth, names_end, columns) else {
            return Err(bad(""));
        };
        if depth > self.path.len() {
            let previous = self.path.len() as i64 - 1;
            let kind = ParseErrorKind::DepthJump { previous, found: depth as i64 };
            return Err(ParseError { format: FORMAT, position: line.position_at(depth), kind });
        }
        self.path.truncate(depth);
        let totals = self.totals();
        let Some(profile) = &mut self.profile else { return Err(bad("")) };
        let frame = intern_cost_centre(profile, label, module, src);
        let node = profile.tree.push(self.path.last().copied(), frame);
        self.path.push(node);
        // From the right: [bytes ticks] inherited %alloc %time, individual %alloc %time, entries, no.
        let at = |i: usize| numbers.value[wanted - 1 - i];
        let pct = |i: usize| tenths(numbers.value[wanted - 1 - i], numbers.decimals[wanted - 1 - i]);
        // A count the model holds, else an error at its column.
        let count = |field: &str, i: usize| {
            super::count(field, at(i)).map_err(|kind| ParseError {
                format: FORMAT,
                position: line.position_at(numbers.start[wanted - 1 - i] as usize),
                kind,
            })
        };
        let entries = count("entries", 1)?;
        let tree = &mut profile.tree;
        tree.set_self(ENTRIES, node, Value::Int(entries));
        if columns.ticks {
            tree.set_self(TICKS, node, Value::Int(count("ticks", 6)?));
            tree.set_self(ALLOC, node, Value::Int(count("bytes", 7)?));
        } else {
            let shares = [pct(2), pct(3)];
            let bytes = totals.bytes(shares[1]);
            tree.set_self(TICKS, node, Value::Float(totals.time(shares[0])));
            tree.set_self(ALLOC, node, Value::Int(bytes));
            self.placed.add(frame, shares, bytes);
        }
        Ok(())
    }

    fn totals(&self) -> Totals {
        let ms = self.total_ticks.unwrap_or(0) as f64 * self.interval.unwrap_or_default().as_secs_f64() * 1e3;
        Totals { ms, bytes: self.total_alloc.unwrap_or(0) }
    }

    fn finish(self, end: Position, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let expected = match self.section {
            Section::Tree => None,
            Section::Title => Some("a first line with \"Time and Allocation Profiling Report\""),
            Section::Preamble => Some("the total time and total alloc lines and the tables"),
            Section::Summary => Some("the cost-centre tree (COST CENTRE … no. entries …)"),
        };
        if let Some(expected) = expected {
            return Err(ParseError {
                format: FORMAT,
                position: end,
                kind: ParseErrorKind::Unexpected { expected: expected.into(), found: "the end of the input".into() },
            });
        }
        let totals = self.totals();
        let mut profile = self.profile.unwrap_or_else(new_profile);
        if self.columns.ticks {
            check_totals(&profile, self.total_ticks.unwrap_or(0), self.total_alloc.unwrap_or(0), diag);
        } else {
            place_the_rest(&mut profile, &self.summary, &self.placed, totals, diag);
        }
        Ok(profile)
    }
}

impl Placed {
    fn add(&mut self, frame: FrameId, shares: Shares, bytes: i64) {
        if self.by_frame.len() <= frame.index() {
            self.by_frame.resize(frame.index() + 1, [0, 0]);
        }
        // Saturating: a damaged report's percentages can be any size.
        for (k, share) in shares.into_iter().enumerate() {
            self.shares[k] = self.shares[k].saturating_add(share);
            let of_frame = &mut self.by_frame[frame.index()][k];
            *of_frame = of_frame.saturating_add(share);
        }
        self.bytes = self.bytes.saturating_add(bytes);
    }

    fn of(&self, frame: FrameId) -> Shares {
        self.by_frame.get(frame.index()).copied().unwrap_or_default()
    }
}

/// The frame of a cost centre, with where it is defined (`src`) as its attr when first seen.
fn intern_cost_centre(profile: &mut Profile, label: &str, module: &str, src: &str) -> FrameId {
    let frames_before = profile.frames.len();
    let frame = profile.frames.intern(cost_centre(label, module));
    if profile.frames.len() > frames_before && !src.is_empty() {
        profile.frame_attrs.insert(frame, vec![(DEFINED_AT.to_string(), src.to_string())]);
    }
    frame
}

/// With `-P`: warns where the tree's ticks or bytes do not add up to the header's totals.
fn check_totals(profile: &Profile, total_ticks: u64, total_alloc: u64, diag: &mut Diagnostics) {
    let ticks = profile.total(TICKS).as_count();
    if ticks != to_i64(total_ticks) {
        diag.warn("total-ticks", None, || {
            format!("the header's total of {total_ticks} ticks differs from the sum of the tree's ticks, {ticks}")
        });
    }
    let bytes = profile.total(ALLOC).as_count();
    if bytes != to_i64(total_alloc) {
        diag.warn("total-alloc", None, || {
            format!("the header's total alloc of {total_alloc} bytes differs from the sum of the tree's alloc, {bytes}")
        });
    }
}

/// Where the shares a `-p` tree's rows leave of a metric's whole go: to each cost centre of the
/// table, its table share less what the tree placed for it (`wanted`, scaled down to fit when they
/// add up to more than is left); the rest to no one in particular. `left` is what the rows leave.
fn share_out(left: u64, wanted: &[u64]) -> (Vec<u64>, u64) {
    let sum = wanted.iter().fold(0u128, |sum, &w| sum + u128::from(w));
    let given: Vec<u64> = if sum <= u128::from(left) {
        wanted.to_vec()
    } else {
        // Each below `left`, as w / sum < 1.
        wanted.iter().map(|&w| (u128::from(w) * u128::from(left) / sum) as u64).collect()
    };
    let rest = left - given.iter().sum::<u64>();
    (given, rest)
}

/// Puts what a `-p` tree's rows leave of the header's totals under [`BELOW_ROUNDING`] (see the
/// module comment), and says how much that is, or that the rows add up to more than the whole.
fn place_the_rest(
    profile: &mut Profile,
    summary: &[SummaryRow],
    placed: &Placed,
    totals: Totals,
    diag: &mut Diagnostics,
) {
    let table: Vec<(FrameId, Shares)> = summary
        .iter()
        .map(|row| (intern_cost_centre(profile, &row.label, &row.module, &row.src), row.shares))
        .collect();
    let mut given = vec![[0u64; 2]; table.len()];
    let mut rest = [0u64; 2];
    for (k, shared) in SHARED.iter().enumerate() {
        // A total of nothing (a run too short for a tick) leaves nothing to place: its rows' 0.0 %
        // are all of it.
        if totals.is_nothing(k) {
            continue;
        }
        let left = 1000u64.saturating_sub(placed.shares[k]);
        let wanted: Vec<u64> =
            table.iter().map(|&(frame, shares)| shares[k].saturating_sub(placed.of(frame)[k])).collect();
        let (to_each, to_none) = share_out(left, &wanted);
        to_each.iter().zip(&mut given).for_each(|(&share, shares)| shares[k] = share);
        rest[k] = to_none;
        warn_unplaced(shared, (placed.shares[k], left), profile.tree.len(), totals.amount(k, left), diag);
    }
    if rest == [0, 0] && given.iter().all(|&shares| shares == [0, 0]) {
        return;
    }
    let root = profile.tree.roots().next();
    let below = profile.tree.push(root, profile.frames.intern(FrameRef::named(BELOW_ROUNDING, FrameKind::Pseudo)));
    let mut bytes_given = 0i64;
    for (&(frame, _), &shares) in table.iter().zip(&given).filter(|(_, &shares)| shares != [0, 0]) {
        let node = profile.tree.push(Some(below), frame);
        let bytes = totals.bytes(shares[1]);
        profile.tree.set_self(TICKS, node, Value::Float(totals.time(shares[0])));
        profile.tree.set_self(ALLOC, node, Value::Int(bytes));
        bytes_given += bytes;
    }
    // The frame's own bytes are what is left to the byte, so that the total is the header's.
    let bytes_left = to_i64(totals.bytes).saturating_sub(placed.bytes).saturating_sub(bytes_given).max(0);
    profile.tree.set_self(TICKS, below, Value::Float(totals.time(rest[0])));
    profile.tree.set_self(ALLOC, below, Value::Int(bytes_left));
}

/// Says how much of the header's total a `-p` tree's rows leave to [`BELOW_ROUNDING`] (`left`, in
/// tenths of a percent; `amount` in the total's unit), or that they add up to more than the whole.
/// Each of the `rows` can leave out at most 0.05 % by its rounding: a tree that leaves more than
/// all of them can looks cut short, and is said to.
fn warn_unplaced(shared: &Shared, (placed, left): (u64, u64), rows: usize, amount: String, diag: &mut Diagnostics) {
    let Shared { what, key } = *shared;
    let percent = |share: u64| format!("{}.{} %", share / 10, share % 10);
    let rounding = rows as u64 / 2;
    if left > rounding {
        diag.warn(key, None, || {
            format!(
                "the report looks cut short: the tree's rows place {} of the header's total {what}, and the other {} ({amount}) is more than the rounding of its {rows} rows can leave out (0.05 % each, {} in all); it is put under {BELOW_ROUNDING}",
                percent(placed),
                percent(left),
                percent(rounding)
            )
        });
    } else if left > 0 {
        diag.warn(key, None, || {
            format!(
                "the tree's rows place {} of the header's total {what}; the other {} ({amount}), in rows under 0.05 %, is put under {BELOW_ROUNDING} (by cost centre where GHC's per-cost-centre table tells): profile with +RTS -P for exact ticks and bytes",
                percent(placed),
                percent(left)
            )
        });
    } else if placed > 1000 {
        diag.warn(key, None, || {
            format!(
                "the tree's %{what} add up to {}, more than the header's total by their rounding to 0.1 %: the profile's total {what} is the tree's",
                percent(placed)
            )
        });
    }
}

/// The columns of a table header (`COST CENTRE MODULE [SRC] …`): where MODULE and SRC start, in
/// characters, and whether it ends with the `ticks bytes` columns; `None` without MODULE.
fn header_columns(text: &str) -> Option<Columns> {
    let char_column = |byte: usize| text[..byte].chars().count();
    let module = text.find(" MODULE").map(|b| char_column(b + 1))?;
    let src = text.find(" SRC").map(|b| char_column(b + 1));
    Some(Columns { module, src, ticks: text.trim_end().ends_with("bytes") })
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Label, module and SRC of a row whose names end at byte `end`: at the header's columns when the
/// row fits them, else split at whitespace (label, module, the rest).
fn split_names(text: &str, indent: usize, end: usize, columns: Columns) -> Option<(&str, &str, &str)> {
    let names = text.get(..end)?;
    if let Some(split) = split_at_columns(names, indent, columns) {
        return Some(split);
    }
    let rest = names.get(indent..)?;
    let (label, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start();
    let (module, src) = rest.split_once(' ').unwrap_or((rest, ""));
    (!label.is_empty() && !module.is_empty()).then_some((label, module.trim(), src.trim()))
}

fn split_at_columns(names: &str, indent: usize, columns: Columns) -> Option<(&str, &str, &str)> {
    let byte = |column: usize| -> Option<usize> {
        if names.is_ascii() {
            (column <= names.len()).then_some(column)
        } else {
            names.char_indices().map(|(b, _)| b).chain(std::iter::once(names.len())).nth(column)
        }
    };
    let module_at = byte(columns.module)?;
    let src_at = match columns.src {
        Some(src) => byte(src)?,
        None => names.len(),
    };
    if module_at <= indent || src_at < module_at {
        return None;
    }
    let starts_field = |at: usize| names[..at].ends_with(' ') && !names[at..].starts_with(' ');
    if !starts_field(module_at) || (columns.src.is_some() && !starts_field(src_at)) {
        return None;
    }
    let label = names[indent..module_at].trim_end();
    let module = names[module_at..src_at].trim_end();
    let src = names[src_at..].trim();
    (!label.is_empty() && !module.is_empty() && !module.contains(' ')).then_some((label, module, src))
}

/// `= 0.02 secs   (23 ticks @ 1000 us, 1 processor)` or `(N ticks @ 20 ms)`: ticks and tick length.
fn parse_total_time(rest: &str) -> Option<(u64, Duration)> {
    let inside = rest.split_once('(')?.1;
    let (ticks, rest) = inside.trim_start().split_once(" ticks @ ")?;
    let ticks = ticks.trim().parse().ok()?;
    let mut words = rest.split([' ', ',', ')']).filter(|w| !w.is_empty());
    let length: u64 = words.next()?.parse().ok()?;
    let interval = Duration::from_nanos(length.checked_mul(crate::model::nanoseconds_per(words.next()?)?)?);
    Some((ticks, interval))
}

/// `=  59,542,424 bytes  (…)`: the bytes.
fn parse_total_alloc(rest: &str) -> Option<u64> {
    let number = rest.trim_start().strip_prefix('=')?.split_whitespace().next()?;
    number.replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> (Profile, Diagnostics) {
        let mut diag = Diagnostics::default();
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut diag).unwrap();
        (profile, diag)
    }

    fn warning<'d>(diag: &'d Diagnostics, key: &str) -> Option<&'d str> {
        diag.warnings().iter().find(|w| w.key == key).map(|w| w.message.as_str())
    }

    #[test]
    fn total_alloc_is_checked_against_the_tree() {
        let exact = include_str!("../../../fixtures/ghc-prof/ghc70-no-src.prof");
        assert!(!read_text(exact).1.has("total-alloc"));
        let off = exact.replace("total alloc =      12,800 bytes", "total alloc =      12,801 bytes");
        let (_, diag) = read_text(&off);
        assert_eq!(
            warning(&diag, "total-alloc"),
            Some("the header's total alloc of 12801 bytes differs from the sum of the tree's alloc, 12800")
        );
        // With percentages, what the rows leave is said however many rows there are (below-rounding.prof
        // leaves 1.4 %, work-percent.prof 0.1 %), and so are rows that add up to more than the whole:
        // here one row's %alloc goes from 20.7 to 50.7, and the 999 tenths the rows had become 1,299
        // (its %time from 13.7 to 13.8, so that the rows place all the time and no frame is added).
        let below = include_str!("../../../fixtures/ghc-prof/below-rounding.prof");
        assert!(read_text(below).1.has("total-alloc"));
        let percent = include_str!("../../../fixtures/ghc-prof/work-percent.prof");
        let far = percent.replace("13.7   20.7    13.7   20.7", "13.8   50.7    13.8   50.7");
        assert_ne!(far, percent);
        let (profile, diag) = read_text(&far);
        assert_eq!(
            warning(&diag, "total-alloc"),
            Some("the tree's %alloc add up to 129.9 %, more than the header's total by their rounding to 0.1 %: the profile's total alloc is the tree's")
        );
        assert!(!profile.frames.iter().any(|(_, frame)| frame.name == BELOW_ROUNDING));
    }

    /// The cost centres of the table get what they want of what is left, or a share of it in
    /// proportion (rounded down) when they want more; the rest is no one's.
    #[test]
    fn what_is_left_is_shared_out() {
        assert_eq!(share_out(8, &[8, 0]), (vec![8, 0], 0));
        assert_eq!(share_out(14, &[8, 0]), (vec![8, 0], 6));
        assert_eq!(share_out(3, &[2, 2]), (vec![1, 1], 1));
        assert_eq!(share_out(0, &[5]), (vec![0], 0));
    }

    #[test]
    fn numbers_are_taken_from_the_right() {
        let n = trailing_numbers(" main   Main  <no location info>  338   1   30.4    9.4   30.4    9.4");
        assert_eq!(n.count, 6);
        assert_eq!((n.value[0], n.decimals[0]), (94, 1));
        assert_eq!(n.value[5], 338);
    }

    #[test]
    fn header_totals() {
        assert_eq!(
            parse_total_time("  =        0.02 secs   (23 ticks @ 1000 us, 1 processor)"),
            Some((23, Duration::from_millis(1)))
        );
        assert_eq!(parse_total_time(" =  1.00 secs   (50 ticks @ 20 ms)"), Some((50, Duration::from_millis(20))));
        // A run on several capabilities (`+RTS -N4`): the processors are no part of the interval.
        assert_eq!(
            parse_total_time("  =        0.41 secs   (412 ticks @ 1000 us, 4 processors)"),
            Some((412, Duration::from_millis(1)))
        );
        assert_eq!(parse_total_alloc(" =  59,542,424 bytes  (excludes profiling overheads)"), Some(59_542_424));
    }

    #[test]
    fn names_split_at_columns_or_whitespace() {
        let columns = Columns { module: 8, src: Some(15), ticks: false };
        assert_eq!(
            split_names(" a b    Main   <no location info> ", 1, 33, columns),
            Some(("a b", "Main", "<no location info>"))
        );
        assert_eq!(
            split_names(" averylonglabel Main x.hs:1", 1, 27, columns),
            Some(("averylonglabel", "Main", "x.hs:1"))
        );
    }
}
