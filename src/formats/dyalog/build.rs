//! How a report's rows become a call tree, in one pass and in file order: shared by the XML and CSV
//! readers, which hand it one parsed row at a time.
//!
//! **Parents**: a tree row's parent is the open row one level up (a function row may also sit two
//! levels below the function that calls it, as function-level reports are written); a flat row is a
//! root, or a line of the function row just before it.
//!
//! **Values**: a row's own value needs the rows below it (a function's exclusive time less its
//! lines'), so it is worked out when the row closes, from sums kept on the stack of open rows: no
//! row is kept once it is closed. Which of the two time (and ticks) columns is the exclusive one is
//! only known at the end, so every value is worked out both ways, [`READINGS`], and
//! [`ReportBuilder::finish`] keeps one:
//!
//! 1. the version: `]PROFILE` 0.x labelled the two columns of tree and data reports the other way
//!    round (docs/formats.md, "Dyalog reports"), so such a file is read relabelled (the reader says so);
//! 2. the rows, on the values so labelled: the file is read swapped (with a warning) only when some
//!    rows have an "inclusive" value below their "exclusive" one beyond rounding *and* strictly fewer
//!    rows do when swapped. The notes say one such row anywhere; but bias adjustment takes a few
//!    timer ticks' cost off each value, and a row of tiny times can come out inverted by it (say
//!    0.005 exclusive against 0.004 inclusive): one such row would flip a whole consistent file, or
//!    undo the version's relabelling, and have every other row read with inclusive < exclusive;
//! 3. rows still inverted beyond rounding are never read so: their inclusive value is raised to the
//!    exclusive one, with one warning that counts them and names the first. Within rounding (sums
//!    printed in full that differ in the last digits) the digits are kept as read.
//!
//! **Merging lines while reading** (for a target without line numbers, or `--functions`): a line
//! row under its own function row adds into the function's node instead of making one (its time and
//! ticks; its Calls is dropped, the function row's own standing, and the function's time is made
//! whole again as the very ExclusiveTime read, [`with_parts`]), siblings that share a function merge,
//! and no line frame is made. The profile is the one [`crate::model::ops::merge_lines`] makes from
//! the whole tree, values added in the same order, at a third of the nodes; one exception: where values were clamped to 0 (a malformed file), measured
//! inclusive values too low for what is left are raised on the merged nodes, not before merging.

use super::{report_of_columns, unattributed, Column, Report, Row};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseErrorKind};
use crate::model::ops::{shortened, with_parts};
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, FrameTable, Metric, NodeId, Profile, Repr, Unit, Value, Values,
};
use rustc_hash::FxHashMap;

/// The two readings of a report's exclusive and inclusive columns: as labelled, and swapped.
const READINGS: [usize; 2] = [0, 1];

/// A number type of a report's value columns: times (`f64`) or ticks (`i64`).
pub(crate) trait Summable: Copy + Default {
    fn plus(self, other: Self) -> Self;
    fn is_negative(self) -> bool;
    /// The part of `total` that `parts` do not account for, `None` when they exceed it.
    fn fit(total: Self, parts: Self) -> Option<Self>;
    /// Whether `inclusive` is below `exclusive` (times: by more than binary rounding, since sums
    /// printed in full may differ in the last digits).
    fn below(inclusive: Self, exclusive: Self) -> bool;
}

impl Summable for f64 {
    fn plus(self, other: f64) -> f64 {
        self + other
    }
    fn is_negative(self) -> bool {
        self < 0.0
    }
    fn fit(total: f64, parts: f64) -> Option<f64> {
        unattributed(total, parts)
    }
    fn below(inclusive: f64, exclusive: f64) -> bool {
        exclusive - inclusive > 1e-9 * exclusive.abs()
    }
}

impl Summable for i64 {
    fn plus(self, other: i64) -> i64 {
        self.saturating_add(other)
    }
    fn is_negative(self) -> bool {
        self < 0
    }
    fn fit(total: i64, parts: i64) -> Option<i64> {
        total.checked_sub(parts).filter(|rest| *rest >= 0)
    }
    fn below(inclusive: i64, exclusive: i64) -> bool {
        inclusive < exclusive
    }
}

/// One kind of value (times or ticks) of an open row: the row's two columns as labelled, and per
/// reading what the rows below it have added up to so far (`None`: no row added to it).
#[derive(Clone, Copy, Debug, Default)]
struct OpenValues<T> {
    file: [T; 2],
    parts: [Option<T>; 2],
}

/// One kind of value (times or ticks) of the whole report, per reading.
#[derive(Debug, Default)]
struct ValueColumns<T> {
    /// Whether the file has the exclusive and the inclusive column, as labelled.
    has: [bool; 2],
    /// Each node's self value and measured inclusive value.
    selves: [Vec<T>; 2],
    measured: [Vec<T>; 2],
    /// Whether some value was raised to 0.
    clamped: [bool; 2],
}

impl<T: Summable> ValueColumns<T> {
    fn new(has: [bool; 2]) -> ValueColumns<T> {
        ValueColumns { has, ..ValueColumns::default() }
    }

    fn present(&self) -> bool {
        self.has.contains(&true)
    }

    /// The value reading `r` takes a row's own value from: its exclusive value, or its inclusive one
    /// when, read so, the file has no exclusive column.
    fn base(&self, r: usize, file: [T; 2]) -> T {
        if self.has[r] {
            file[r]
        } else {
            file[1 - r]
        }
    }

    /// Whether reading `r` has measured inclusive values (the other column).
    fn has_measured(&self, r: usize) -> bool {
        self.has[1 - r]
    }

    /// Per reading, whether a row's inclusive value is below its exclusive one beyond rounding.
    fn inverted(&self, file: [T; 2]) -> [bool; 2] {
        if self.has == [true, true] {
            [T::below(file[1], file[0]), T::below(file[0], file[1])]
        } else {
            [false; 2]
        }
    }

    /// Grows the columns to a new node (nothing to do for a row merged into its function's).
    fn grow(&mut self, len: usize) {
        if self.present() && self.selves[0].len() != len {
            for r in READINGS {
                self.selves[r].resize(len, T::default());
                if self.has_measured(r) {
                    self.measured[r].resize(len, T::default());
                }
            }
        }
    }

    /// Adds (or sets, `fresh`) a row's measured inclusive value to its node: where, read so, it is
    /// below the exclusive value beyond rounding (`inverted`), the exclusive value instead.
    fn add_measured(&mut self, node: NodeId, file: [T; 2], inverted: [bool; 2], fresh: bool) {
        if !self.present() {
            return;
        }
        for r in READINGS {
            if !self.has_measured(r) {
                continue;
            }
            let value = if inverted[r] { file[r] } else { file[1 - r] };
            let slot = &mut self.measured[r][node.index()];
            *slot = if fresh { value } else { slot.plus(value) };
        }
    }

    /// Adds a closing row's base value to its parent's parts, as reading `r` makes them: with an
    /// exclusive column only a line row's under its function row (a function's exclusive value holds
    /// its lines'), else every row's (an inclusive value holds the rows below).
    fn add_to_parent(&self, row: &OpenValues<T>, parent: &mut OpenValues<T>, line_under_function: bool) {
        if !self.present() {
            return;
        }
        for r in READINGS {
            if !self.has[r] || line_under_function {
                let base = self.base(r, row.file);
                parent.parts[r] = Some(parent.parts[r].map_or(base, |sum| sum.plus(base)));
            }
        }
    }

    /// A closing row's own value per reading: its base less its parts, 0 (with a warning) where the
    /// parts exceed it or it is negative. `name` names the row in warnings (looked up only for one).
    fn own<'n>(
        &mut self,
        row: &OpenValues<T>,
        name: impl Fn() -> &'n str,
        format: FormatName,
        diags: &mut [Diagnostics; 2],
    ) -> [T; 2] {
        if !self.present() {
            return [T::default(); 2];
        }
        READINGS.map(|r| {
            let diag = &mut diags[r];
            let base = self.base(r, row.file);
            let own = match row.parts[r] {
                None => base,
                Some(parts) => T::fit(base, parts).unwrap_or_else(|| {
                    self.clamped[r] = true;
                    let what = if self.has[r] { "its line rows" } else { "the rows below it" };
                    diag.warn("dyalog-parts-exceed", None, || {
                        let name = name();
                        format!("{format}: {name:?} has less time than {what} together: its own part is read as 0")
                    });
                    T::default()
                }),
            };
            if own.is_negative() {
                // Bias adjustment can take a tiny time below zero; self values cannot be.
                self.clamped[r] = true;
                diag.warn("dyalog-negative", None, || {
                    let name = name();
                    format!("{format}: {name:?} has a negative exclusive value: read as 0")
                });
                return T::default();
            }
            own
        })
    }

    /// Adds (or sets, `fresh`) own values to a node.
    fn add_own(&mut self, node: NodeId, own: [T; 2], fresh: bool) {
        if !self.present() {
            return;
        }
        for r in READINGS {
            let slot = &mut self.selves[r][node.index()];
            *slot = if fresh { own[r] } else { slot.plus(own[r]) };
        }
    }

    /// The self and measured inclusive columns of reading `r`.
    fn take(&mut self, r: usize) -> (Vec<T>, Option<Vec<T>>) {
        let measured = std::mem::take(&mut self.measured[r]);
        (std::mem::take(&mut self.selves[r]), self.has_measured(r).then_some(measured))
    }
}

/// An open row: a possible parent of the rows that follow, with what its value needs from them.
#[derive(Clone, Copy, Debug)]
struct Open {
    /// The node its values go to: its own, or (merging lines) its function's.
    node: NodeId,
    /// Where a function row's name starts in [`ReportBuilder::open_names`]: it runs to the end
    /// while the row is the last open one, the only time it is needed.
    name: usize,
    depth: i64,
    function: bool,
    /// A line row merged into its function row's node.
    spliced: bool,
    /// Whether the row has a parent (then the open row before it): a flat line row that does not
    /// follow its function row is a root.
    has_parent: bool,
    time: OpenValues<f64>,
    ticks: OpenValues<i64>,
    /// Where its merged lines' own values start in [`ReportBuilder::pending`].
    pending: usize,
}

impl Open {
    /// A row with nothing added to it yet, to be filled in.
    const EMPTY: Open = Open {
        node: NodeId(0),
        name: 0,
        depth: 0,
        function: false,
        spliced: false,
        has_parent: false,
        time: OpenValues { file: [0.0; 2], parts: [None; 2] },
        ticks: OpenValues { file: [0; 2], parts: [None; 2] },
        pending: 0,
    };
}

/// Builds a profile from a report's rows, in file order.
pub(crate) struct ReportBuilder {
    format: FormatName,
    profile: Profile,
    /// The calls metric, the only one kept in the tree while reading: times and ticks are added as
    /// metrics by [`Self::finish`], after it.
    calls: Option<usize>,
    time: ValueColumns<f64>,
    ticks: ValueColumns<i64>,
    tree: bool,
    /// The report kind its columns make it.
    report: Report,
    /// Its columns ([`Column::bit`]).
    column_bits: u16,
    /// Whether line rows merge into their functions.
    merge_lines: bool,
    merged_a_line: bool,
    /// Merging lines: the nodes by parent and frame, so that siblings of one function are one node.
    children: ChildIndex,
    /// Tree reports: the open rows, root first. Flat reports: the last function row.
    open: Vec<Open>,
    /// The names of the open function rows, one after the other: a line row is compared with its
    /// function row's name here, at hand, rather than in the frame table.
    open_names: String,
    last_depth: Option<i64>,
    /// Merging lines: the own values of line rows whose function row is still open, in file order.
    pending: Vec<([f64; 2], [i64; 2])>,
    /// Line frames by their function's frame and line number.
    line_frames: FxHashMap<(u32, u32), FrameId>,
    /// The warnings of each reading, until one is kept.
    diags: [Diagnostics; 2],
    /// Per reading, how many rows have an inclusive value (time or ticks) below their exclusive one
    /// beyond rounding, and the first of them (its node and line).
    inverted_rows: [u64; 2],
    first_inverted: [Option<(NodeId, Option<u32>)>; 2],
    /// A summary's PctOfTot per node (its rows), while every row is a node of its own; `None` for
    /// another report, or once two rows share a node.
    percentages: Option<Vec<Option<f64>>>,
}

impl ReportBuilder {
    /// A builder for a report with `columns` (`Element` must be one of them); `merge_lines` merges
    /// line rows into their functions.
    pub(crate) fn new(format: FormatName, columns: &[Column], merge_lines: bool) -> ReportBuilder {
        let has = |c: Column| columns.contains(&c);
        let time = ValueColumns::new([has(Column::ExclusiveTime), has(Column::InclusiveTime) || has(Column::Time)]);
        let ticks = ValueColumns::new([has(Column::ExclusiveTicks), has(Column::InclusiveTicks)]);
        let calls = has(Column::Calls);
        // A flat report with percentages: a summary (XML names its time as a data report does).
        let percentages = (!has(Column::Depth) && has(Column::PctOfTot)).then(Vec::new);
        let mut profile = Profile::new(if calls { vec![Metric::entries("calls")] } else { Vec::new() });
        profile.meta.flat = !has(Column::Depth);
        ReportBuilder {
            format,
            profile,
            calls: calls.then_some(0),
            time,
            ticks,
            tree: has(Column::Depth),
            report: report_of_columns(columns),
            column_bits: columns.iter().fold(0, |bits, c| bits | c.bit()),
            merge_lines,
            merged_a_line: false,
            children: ChildIndex::default(),
            open: Vec::new(),
            open_names: String::new(),
            last_depth: None,
            pending: Vec::new(),
            line_frames: FxHashMap::default(),
            diags: [Diagnostics::default(), Diagnostics::default()],
            inverted_rows: [0; 2],
            first_inverted: [None; 2],
            percentages,
        }
    }

    /// The report kind its columns make it.
    pub(crate) fn report(&self) -> Report {
        self.report
    }

    /// The header facts of the profile being built.
    pub(crate) fn meta_mut(&mut self) -> &mut crate::model::Meta {
        &mut self.profile.meta
    }

    /// Adds one row named `name`. Only a function row's name is looked up in the frame table (a line
    /// row's frame is found from its function's): `name_hash` is its [`FrameTable::name_hash`] as a
    /// function when the caller worked it out (on its parsing thread), else it is worked out here.
    pub(crate) fn add(&mut self, name: &str, name_hash: Option<u64>, row: &Row) -> Result<(), ParseErrorKind> {
        let hash = || name_hash.unwrap_or_else(|| FrameTable::name_hash(name, FrameKind::Function));
        let function = row.line.is_none();
        let depth = row.depth;
        let has_parent =
            if self.tree { self.close_to_parent(depth, function)? } else { self.flat_parent(name, function) };
        let parent = self.open.last().filter(|_| has_parent);
        let parent_node = parent.map(|p| p.node);
        // The node of the function row this line row is a line of, when that is its parent.
        let own_function = parent.filter(|p| !function && p.function && self.open_names[p.name..] == *name);
        let own_function = own_function.map(|p| p.node);
        let (node, spliced) = match (self.merge_lines, own_function) {
            (true, Some(function_node)) => (function_node, true),
            (true, None) => {
                let frame = self.profile.frames.intern_name_hashed(name, FrameKind::Function, hash());
                (self.children.child_or_insert(&mut self.profile.tree, parent_node, frame), false)
            }
            (false, _) => {
                let frame = match row.line {
                    None => self.profile.frames.intern_name_hashed(name, FrameKind::Function, hash()),
                    Some(line) => self.line_frame(name, own_function, line),
                };
                (self.profile.tree.push(parent_node, frame), false)
            }
        };
        self.merged_a_line |= self.merge_lines && !function;
        let len = self.profile.tree.len();
        self.time.grow(len);
        self.ticks.grow(len);
        // A line merged into its function's node: the function's own count of calls stands.
        if let Some(m) = self.calls.filter(|_| !spliced) {
            self.profile.tree.add_self(m, node, Value::Int(row.calls));
        }
        let (time_inverted, ticks_inverted) = (self.time.inverted(row.time), self.ticks.inverted(row.ticks));
        if time_inverted != [false; 2] || ticks_inverted != [false; 2] {
            self.note_inverted(node, row.line, READINGS.map(|r| time_inverted[r] || ticks_inverted[r]));
        }
        if let Some(percentages) = &mut self.percentages {
            match spliced || node.index() != percentages.len() {
                true => self.percentages = None,
                false => percentages.push(row.pct),
            }
        }
        if !spliced {
            self.time.add_measured(node, row.time, time_inverted, self.fresh());
            self.ticks.add_measured(node, row.ticks, ticks_inverted, self.fresh());
        }
        let name_start = self.open_names.len();
        if function {
            self.open_names.push_str(name);
        }
        let pending = self.pending.len();
        // Written field by field where it stays: an `Open` built aside is a row of narrow stores,
        // which, copied whole, are read back in wide loads, and those stall (perf put two fifths of
        // this function on one).
        let fill = |open: &mut Open| {
            (open.node, open.name, open.depth, open.pending) = (node, name_start, depth, pending);
            (open.function, open.spliced, open.has_parent) = (function, spliced, has_parent);
            (open.time.file, open.ticks.file) = (row.time, row.ticks);
        };
        if self.tree || function {
            self.open.push(Open::EMPTY);
            if let Some(open) = self.open.last_mut() {
                fill(open);
            }
        } else {
            // A flat line row has no rows below it.
            let mut open = Open::EMPTY;
            fill(&mut open);
            self.close(open);
        }
        Ok(())
    }

    /// Counts a row (of `node`, line `line`) whose inclusive value is below its exclusive one in
    /// the readings `inverted` says.
    #[cold]
    fn note_inverted(&mut self, node: NodeId, line: Option<u32>, inverted: [bool; 2]) {
        for r in READINGS.into_iter().filter(|&r| inverted[r]) {
            self.inverted_rows[r] += 1;
            self.first_inverted[r].get_or_insert((node, line));
        }
    }

    /// The frame of line `line` of function `name`; `function` is the node of its function row when
    /// that is its parent: then the frame is found by the parent's frame and the line number, without
    /// hashing the name or looking it up in the frame table.
    fn line_frame(&mut self, name: &str, function: Option<NodeId>, line: u32) -> FrameId {
        let intern = |frames: &mut FrameTable| {
            frames.intern(FrameRef { line: Some(line), kind: FrameKind::Line, ..FrameRef::function(name) })
        };
        match function.map(|node| self.profile.tree.frame(node)) {
            Some(f) => *self.line_frames.entry((f.0, line)).or_insert_with(|| intern(&mut self.profile.frames)),
            None => intern(&mut self.profile.frames),
        }
    }

    /// Closes the open rows a tree row at `depth` ends; whether the row has a parent (then the last
    /// open row). A function row may also sit two levels below a function row, as function-level
    /// reports (no line rows) are written.
    fn close_to_parent(&mut self, depth: i64, function: bool) -> Result<bool, ParseErrorKind> {
        if depth < 0 {
            return Err(ParseErrorKind::Unexpected {
                expected: "a Depth of 0 or more".into(),
                found: depth.to_string(),
            });
        }
        if function != (depth % 2 == 0) {
            let (expected, found) = if function {
                ("a line row (a Line number) at odd depth", "a function row")
            } else {
                ("a function row (Line empty or ¯1) at even depth", "a line row")
            };
            return Err(ParseErrorKind::Unexpected { expected: format!("{expected} {depth}"), found: found.into() });
        }
        let previous = self.last_depth.replace(depth);
        while self.open.last().is_some_and(|top| top.depth >= depth) {
            self.close_last();
        }
        match (self.open.last(), previous) {
            (None, _) if depth == 0 => Ok(false),
            (Some(top), _) if top.depth == depth - 1 || (function && top.function && top.depth == depth - 2) => {
                Ok(true)
            }
            (_, Some(previous)) => Err(ParseErrorKind::DepthJump { previous, found: depth }),
            // The first row is a root.
            (_, None) => Err(ParseErrorKind::Unexpected {
                expected: "a function row (Line empty or ¯1) at depth 0 first".into(),
                found: format!("a {} row at depth {depth}", if function { "function" } else { "line" }),
            }),
        }
    }

    /// Whether a flat row has a parent: a line row goes under the function row before it when that
    /// is its function. A function row closes the one before it.
    fn flat_parent(&mut self, name: &str, function: bool) -> bool {
        if function {
            while !self.open.is_empty() {
                self.close_last();
            }
            return false;
        }
        let Some(last) = self.open.last() else { return false };
        self.open_names[last.name..] == *name
    }

    /// Whether a row's values are set rather than added: every row has a node of its own unless
    /// lines merge (then they are added to zeros, as merge_lines adds them).
    fn fresh(&self) -> bool {
        !self.merge_lines
    }

    fn close_last(&mut self) {
        if let Some(row) = self.open.pop() {
            self.open_names.truncate(row.name);
            self.close(row);
        }
    }

    /// Works out the own values of a row whose rows below have all been read (its parent, if any,
    /// is the last open row) and adds them where they go.
    fn close(&mut self, row: Open) {
        let (frames, tree) = (&self.profile.frames, &self.profile.tree);
        let name = || frames.get(tree.frame(row.node)).name.as_str();
        let time = self.time.own(&row.time, name, self.format, &mut self.diags);
        let ticks = self.ticks.own(&row.ticks, name, self.format, &mut self.diags);
        if let Some(parent) = self.open.last_mut().filter(|_| row.has_parent) {
            let line_under_function = !row.function && parent.function;
            self.time.add_to_parent(&row.time, &mut parent.time, line_under_function);
            self.ticks.add_to_parent(&row.ticks, &mut parent.ticks, line_under_function);
        }
        if row.spliced {
            // Added to the function's node after the function's own part, as merge_lines adds them.
            self.pending.push((time, ticks));
            return;
        }
        let (mut time, mut ticks) = (time, ticks);
        if self.pending.len() > row.pending {
            // The function's time made whole again from its own part and its lines', as
            // merge_lines makes it: the very ExclusiveTime read, with no drift from adding.
            let mut lines = [0.0; 2];
            for (line_time, line_ticks) in &self.pending[row.pending..] {
                for r in READINGS {
                    lines[r] += line_time[r];
                    ticks[r] = ticks[r].plus(line_ticks[r]);
                }
            }
            time = READINGS.map(|r| {
                // Where nothing was clamped, that is the function row's value as read: taken as it
                // is, with no search for it (and no 15-digit test of every line).
                let whole = self.time.base(r, row.time.file);
                if row.time.parts[r] == Some(lines[r]) && unattributed(whole, lines[r]) == Some(time[r]) {
                    return whole;
                }
                let lines_short = self.pending[row.pending..].iter().all(|(t, _)| shortened(t[r]) == t[r]);
                with_parts(time[r], lines[r], lines_short)
            });
            self.pending.truncate(row.pending);
        }
        self.time.add_own(row.node, time, self.fresh());
        self.ticks.add_own(row.node, ticks, self.fresh());
    }

    /// Settles the exclusive/inclusive labels (`labels_swapped`: the file's version is known to swap
    /// them), sets the values of the reading kept and returns the profile.
    pub(crate) fn finish(mut self, labels_swapped: Option<&str>, diag: &mut Diagnostics) -> Profile {
        while !self.open.is_empty() {
            self.close_last();
        }
        let format = self.format;
        // First the version, then the rows: see the module comment.
        let labelled = usize::from(labels_swapped.is_some());
        if let Some(version) = labels_swapped {
            diag.warn("dyalog-labels-0.9", None, || {
                format!("{format}: ]PROFILE {version} labelled the exclusive and inclusive columns the other way round: read as corrected")
            });
        }
        let counts = self.inverted_rows;
        let swap = counts[labelled] > 0 && counts[1 - labelled] < counts[labelled];
        if swap {
            diag.warn("dyalog-labels-swapped", None, || {
                let (as_labelled, swapped) = (counts[labelled], counts[1 - labelled]);
                format!("{format}: {as_labelled} rows have InclusiveTime (or ticks) below ExclusiveTime as the columns are labelled, {swapped} if the two are read the other way round: the columns are read swapped, as mislabelled")
            });
        }
        let r = if swap { 1 - labelled } else { labelled };
        self.profile.meta.report.derived = super::derived_columns(self.column_bits);
        self.profile.meta.report.row_percentages = self.percentages.take().filter(|p| p.iter().any(Option::is_some));
        diag.absorb(std::mem::take(&mut self.diags[r]));
        if let Some((node, line)) = self.first_inverted[r] {
            let count = counts[r];
            let name = &self.profile.frames.get(self.profile.tree.frame(node)).name;
            let first = match line {
                Some(line) => format!("{name:?} line {line}"),
                None => format!("{name:?}"),
            };
            diag.warn("dyalog-inclusive-below", None, || {
                let (rows, which, its) =
                    if count == 1 { ("row has", "", "its") } else { ("rows have", "the first ", "their") };
                format!("{format}: {count} {rows} InclusiveTime (or ticks) below ExclusiveTime beyond rounding ({which}{first}): {its} inclusive value is raised to the exclusive one")
            });
        }
        self.profile.meta.lines_merged |= self.merged_a_line;
        if self.time.present() {
            let (selves, measured) = self.time.take(r);
            let m = self.add_metric(
                Metric::time(Unit::Milliseconds, Repr::Float).sampled(crate::model::Sampling::Measured),
                Values::Float(selves),
                measured.map(Values::Float),
            );
            if self.time.clamped[r] {
                self.raise_inclusive(m, diag);
            }
        }
        if self.ticks.present() {
            let (selves, measured) = self.ticks.take(r);
            let m = self.add_metric(Metric::inspections(), Values::Int(selves), measured.map(Values::Int));
            if self.ticks.clamped[r] {
                self.raise_inclusive(m, diag);
            }
        }
        super::state_summary_total(&mut self.profile);
        // A summary's rows are functions' inclusive times only (docs/formats.md, "Dyalog
        // reports"): `#.Rain` 68.4 ms and `#.ch.Step` 47.1 ms, which Rain calls.
        self.profile.meta.self_unknown = super::report_of(&self.profile) == Report::Summary;
        self.profile
    }

    /// Adds a metric with its self and measured inclusive values; its index.
    fn add_metric(&mut self, metric: Metric, selves: Values, measured: Option<Values>) -> usize {
        self.profile.add_metric(metric, selves);
        let m = self.profile.metrics().len() - 1;
        if let Some(measured) = measured {
            self.profile.tree.set_measured_inclusive_column(m, measured);
        }
        m
    }

    /// Raises measured inclusive values below what the self values add up to (after values were
    /// clamped to 0), so that no row is written with less inclusive than exclusive time.
    fn raise_inclusive(&mut self, m: usize, diag: &mut Diagnostics) {
        let tree = &mut self.profile.tree;
        let Some(measured) = tree.measured_inclusive(m).cloned() else { return };
        let derived = tree.derived_inclusive(m);
        let format = self.format;
        for node in tree.nodes() {
            let (d, v) = (derived.get(node.index()), measured.get(node.index()));
            if d.as_f64() > v.as_f64() {
                tree.set_measured_inclusive(m, node, d);
                diag.warn("dyalog-inclusive-raised", None, || {
                    format!("{format}: inclusive values less than what their rows add up to once those read as 0 are raised to that sum")
                });
            }
        }
    }
}
