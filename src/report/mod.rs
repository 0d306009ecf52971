//! Reports in the terminal: `summary` (consumption per function or line), `calls` (a function's
//! consumption by caller or callee), `tree` (the call tree indented) and `data` (each function's and
//! line's figures), `]PROFILE`'s reports for every readable format.
//!
//! Every report starts from a [`View`]: the profile at the granularity asked for (line frames merged
//! into their functions unless `--lines`), narrowed by the filters, with one metric chosen, and per
//! node its inclusive value and whether it is the outermost node of its function on its stack.
//!
//! **Totals.** A function's total is the sum of the inclusive values of its outermost nodes: a
//! recursive function's time is counted once however often it is on the stack, as pprof's `cum`. A
//! node's inclusive value is the measured one where the source measured it (Dyalog's InclusiveTime,
//! so that `#.Rain` is 68.4 ms as `]PROFILE` says, even in a report that kept only some rows), else
//! the sum of the self values below it. The profile's total is the sum of its roots' inclusive values.
//! Self values are summed over every node of the function.
//!
//! Rows are named as folded stacks name frames ([`Profile::frame_name`]): frames of one name are one
//! row.

mod bias;
mod calls;
mod data;
pub mod diff;
mod flat;
pub(crate) mod gate;
mod header;
mod rank;
pub mod safe_text;
mod summary;
pub(crate) mod table;
mod tree;
pub mod units;

pub use bias::take_off_timer_bias;
pub use calls::{calls, CallsOptions, CallsPrinter, Functions};
pub use data::{data, DataOptions};
pub use flat::{flat_report, FlatReport};
pub use header::Header;
pub use rank::Ranking;
pub use summary::{summary, SummaryOptions};
pub(crate) use table::Table;
pub use table::{Format, Rows, TextStyle};
pub use tree::{tree, TreeOptions, TreePrinter};

use crate::error::Error;
use crate::formats::ReadOptions;
use crate::model::filter::{self, Filters};
use crate::model::{ops, FrameKind, Metric, MetricKind, NodeId, Profile, Repr, Unit, Values};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value as Json};
use std::io::{self, Write};
use std::time::Duration;
use table::{Column, Digits, Layout};
use units::Quantity;

/// A report: what it says of the whole profile, its table, and how its kind prints them.
#[derive(Debug)]
pub struct Report<P> {
    /// What it says of the whole profile.
    pub header: Header,
    /// Its table.
    pub table: Table,
    printer: P,
}

impl<P> Report<P> {
    /// What prints it, with what it says around its table.
    pub fn printer(&self) -> &P {
        &self.printer
    }
}

impl<P: Printer> Report<P> {
    /// Writes the report in `format` to `out`: text as its printer lays it out, CSV its table, JSON
    /// its header's fields, its printer's and its table's rows.
    pub fn write(&self, out: &mut dyn Write, format: Format, style: TextStyle) -> io::Result<()> {
        match format {
            Format::Text => {
                self.printer.write_text(&self.header, &self.table, &mut safe_text::SafeText::new(out), style)
            }
            Format::Csv => out.write_all(self.table.csv().as_bytes()),
            Format::Json => self.header.write_json(out, self.printer.json_fields(), &self.table),
            Format::Markdown => self.printer.write_markdown(out),
            Format::Junit => self.printer.write_junit(out),
        }
    }
}

/// How a kind of report prints what only it has: in text around its table (blocks, an indent,
/// notes), and in JSON beside it.
pub trait Printer {
    /// Writes `header` and `table` as aligned text.
    fn write_text(&self, header: &Header, table: &Table, out: &mut dyn Write, style: TextStyle) -> io::Result<()>;

    /// The JSON fields beyond the header's and the rows.
    fn json_fields(&self) -> Map<String, Json> {
        Map::new()
    }

    /// Writes a verdict for a pull request's comment (`diff`'s alone: the command line refuses
    /// `--format markdown` elsewhere).
    fn write_markdown(&self, _: &mut dyn Write) -> io::Result<()> {
        Err(io::Error::other("--format markdown is diff's"))
    }

    /// Writes a verdict as JUnit XML (`diff`'s alone, as Markdown).
    fn write_junit(&self, _: &mut dyn Write) -> io::Result<()> {
        Err(io::Error::other("--format junit is diff's"))
    }
}

/// The printer of `summary` and `data`: the total line, then the table.
#[derive(Debug)]
pub struct PlainPrinter;

impl Printer for PlainPrinter {
    fn write_text(&self, header: &Header, table: &Table, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
        out.write_all(format!("{}\n\n", header.total_line(style)).as_bytes())?;
        Layout::new(table, style, &[], None).write(out)
    }
}

/// What every report shares: granularity, metric, timer bias and filters.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Keep line frames as rows `name[line]` (`--lines`) instead of merging them into functions.
    pub lines: bool,
    /// Dyalog's timer bias to recompute times with (`--bias`).
    pub bias: Option<f64>,
    /// `--focus`, `--ignore`, `--hide`, `--thread`.
    pub filters: Filters,
    /// Percentages of what the filters keep instead of the whole profile (`--relative-percentages`,
    /// pprof's `-relative_percentages`).
    pub relative: bool,
    /// Times as measured, the timer bias put back, where the profile says it and no `bias` is given
    /// (`data`, as `]PROFILE data` shows them).
    pub measured_times: bool,
    /// The length of one sample or tick for a profile that states none (`--interval`), so that
    /// `--unit` can show its counts as time; a profile's own comes first.
    pub interval: Option<Duration>,
}

impl ReportOptions {
    /// The reading options of a report: line frames merged while reading (where the reader can:
    /// Dyalog) unless `lines` keeps them, as [`View::new`] would merge them. The one place this is
    /// decided for a report (and for `diff`, whose sides are views).
    pub fn reading(&self, read: ReadOptions) -> ReadOptions {
        ReadOptions { merge_lines: !self.lines, ..read }
    }
}

/// A profile made ready for reporting: see the module documentation.
pub struct View {
    profile: Profile,
    metric: usize,
    /// The total of the profile before the filters (after them with `relative`) and before a
    /// selection (`--fn`): what every % is of.
    total: f64,
    /// Whether the total is of more than the view holds (filters, a selection), so that reports say
    /// what is left.
    narrowed: bool,
    /// Row names, and the row of each frame.
    names: Vec<String>,
    row_of_frame: Vec<u32>,
    /// Per node: its inclusive value, and (made when a report first asks, as `tree` does not)
    /// whether no caller of it is of its row.
    inclusive: Values,
    outermost: std::sync::OnceLock<Vec<bool>>,
    calls: Calls,
    /// See [`Self::notes`].
    notes: Vec<String>,
    /// The metric whose self values are unknown (a Dyalog summary report's inclusive times).
    self_unknown: Option<usize>,
    /// Per node, the report's own percentages (a Dyalog summary's PctOfTot,
    /// [`crate::model::ReportFacts::row_percentages`]), while the view holds its rows unchanged.
    file_percentages: Option<Vec<Option<f64>>>,
}

/// Where call counts come from.
enum Calls {
    /// A per-node metric (Dyalog Calls, GHC entries).
    PerNode(usize),
    /// Per-function counts (LispWorks Call-Count), per row.
    PerRow(Vec<i64>),
    /// The profile has none.
    Unknown,
}

impl View {
    /// `profile` prepared as `options` ask.
    pub fn new(mut profile: Profile, options: &ReportOptions) -> Result<View, Error> {
        let times = match (options.bias, options.measured_times) {
            (Some(bias), false) => bias::Times::Bias(bias),
            (Some(bias), true) => bias::Times::MeasuredBias(bias),
            (None, true) => bias::Times::Measured,
            (None, false) => bias::Times::Adjusted,
        };
        // The file's own percentages hold while the times are the file's.
        let mut file_percentages = (times == bias::Times::Adjusted && options.filters.is_empty())
            .then(|| profile.row_percentages().map(<[_]>::to_vec))
            .flatten();
        let mut notes: Vec<String> = bias::show_times(&mut profile, times)?.into_iter().collect();
        notes.extend(units::interval_of_counts(&mut profile, options.interval));
        let self_unknown = profile.self_unknown();
        let has_lines = profile.frames.iter().any(|(_, f)| f.kind == FrameKind::Line);
        if !options.lines && has_lines {
            file_percentages = None;
            profile = ops::merge_lines(&profile);
        }
        let metric = choose_metric(&profile)?;
        let mut view = if options.filters.is_empty() {
            View::of(profile, metric, None)
        } else {
            // pprof fixes the total before it filters, so that shares stay shares of the whole profile.
            let whole = (!options.relative).then(|| profile.reported_total(metric).value);
            let name = profile.metrics()[metric].name.clone();
            let filtered = options.filters.apply(profile)?;
            notes.extend(filtered.notes);
            // A time range leaves out the metrics its samples do not hold, but this one.
            let metric = filtered.profile.metric_index(&name).unwrap_or(metric);
            View::of(filtered.profile, metric, whole)
        };
        view.notes = notes;
        view.self_unknown = self_unknown;
        view.file_percentages = file_percentages;
        Ok(view)
    }

    /// Whether the self values of `metric` are unknown (a Dyalog summary report's rows are inclusive
    /// times only): reports show them empty.
    fn self_unknown(&self, metric: usize) -> bool {
        self.self_unknown == Some(metric)
    }

    /// Per row, the percentage of the total the file itself gives it (a Dyalog summary report's
    /// PctOfTot), where the view shows the file's rows and times unchanged and reports time.
    fn file_percentages(&self) -> Vec<Option<f64>> {
        let mut by_row = vec![None; self.names.len()];
        let Some(percentages) = self.file_percentages.as_ref() else { return by_row };
        if self.metric().kind != MetricKind::Time {
            return by_row;
        }
        let mut nodes = vec![0u32; self.names.len()];
        for node in self.profile.tree.nodes() {
            let row = self.row(node) as usize;
            nodes[row] += 1;
            by_row[row] = if nodes[row] == 1 { percentages[node.index()] } else { None };
        }
        by_row
    }

    /// What the view could not do as asked, and what it shows instead: for stderr.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The view of `profile` (already prepared) reporting `metric`; `total`, when given, is the
    /// total of the profile it was selected from.
    fn of(profile: Profile, metric: usize, total: Option<f64>) -> View {
        let tree = &profile.tree;
        // Two passes of their own, over the frames and over the nodes, side by side.
        let inclusive_of = || inclusive_values(tree, metric);
        let ((names, row_of_frame), inclusive) = std::thread::scope(|scope| {
            let inclusive = scope.spawn(inclusive_of);
            (rows(&profile), inclusive.join().unwrap_or_else(|_| inclusive_of()))
        });
        let outermost = std::sync::OnceLock::new();
        let narrowed = total.is_some();
        let total = total.unwrap_or_else(|| profile.reported_total(metric).value);
        let calls = calls_of(&profile, &row_of_frame, names.len());
        View {
            total,
            narrowed,
            profile,
            metric,
            names,
            row_of_frame,
            inclusive,
            outermost,
            calls,
            notes: Vec::new(),
            self_unknown: None,
            file_percentages: None,
        }
    }

    /// The view narrowed to the subtrees rooted at the outermost nodes of the rows named `path[0]`,
    /// then within them of `path[1]`, and so on (`]PROFILE`'s drill-down `-fn=a,b`). The total stays
    /// the whole profile's.
    pub fn select(self, path: &[String]) -> Result<View, Error> {
        let mut view = self;
        for name in path {
            let mut of_name = vec![false; view.names.len()];
            view.rows_named(name)?.into_iter().for_each(|row| of_name[row as usize] = true);
            let marked: Vec<bool> = view.profile.tree.nodes().map(|n| of_name[view.row(n) as usize]).collect();
            if !marked.contains(&true) {
                return Err(Error::BadOption(format!("--fn {name}: no node of it is left after the filters")));
            }
            let selected = filter::subtrees(&view.profile, &marked);
            let self_unknown = view.self_unknown;
            view = View::of(selected, view.metric, Some(view.total));
            view.self_unknown = self_unknown;
        }
        Ok(view)
    }

    /// The rows `name` names: the row so named, or with `--lines` the rows of the function's lines
    /// (`--fn main.insert` is `main.insert[main.go:23]`, `main.insert[main.go:25]`, …); an error
    /// naming the closest names when there is none.
    fn rows_named(&self, name: &str) -> Result<Vec<u32>, Error> {
        let profile = &self.profile;
        let mut rows: Vec<u32> = (profile.frames.iter())
            .filter(|(id, frame)| {
                self.names[self.row_of_frame[id.index()] as usize] == name
                    || profile.frame_name(*id) == name
                    || (frame.kind == FrameKind::Line && profile.function_name(*id) == name)
            })
            .map(|(id, _)| self.row_of_frame[id.index()])
            .collect();
        rows.sort_unstable();
        rows.dedup();
        match rows.is_empty() {
            true => Err(Error::BadOption(format!("--fn {name}: {}", self.nothing_named(name)))),
            false => Ok(rows),
        }
    }

    /// `no function is named so; the closest: a, b, c`, for a name that matches nothing.
    fn nothing_named(&self, name: &str) -> String {
        const CLOSEST: usize = 3;
        // A name that holds the one asked for (`fib` in `Main.fib`) comes before any that does not.
        let score = |n: &str| strsim::jaro_winkler(name, n) + if n.contains(name) { 1.0 } else { 0.0 };
        let mut scored: Vec<(f64, &str)> = self.names.iter().map(|n| (score(n), n.as_str())).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let closest: Vec<String> = scored.iter().take(CLOSEST).map(|&(_, n)| safe_text::escaped(n)).collect();
        match closest.is_empty() {
            true => "the profile has no functions".into(),
            false => format!("no function is named so; the closest: {}", closest.join(", ")),
        }
    }

    /// Per row, whether it is a function some rows of its lines are of (`#.Rain` where `--lines`
    /// kept `#.Rain[6]`): all false where the lines were merged into their functions.
    fn functions_with_lines(&self) -> Vec<bool> {
        let profile = &self.profile;
        let mut named = vec![false; self.names.len()];
        let lines = profile.frames.iter().filter(|(_, f)| f.kind == FrameKind::Line && !f.is_anonymous_line());
        let functions: rustc_hash::FxHashSet<_> = lines.map(|(id, _)| profile.function_name(id)).collect();
        if functions.is_empty() {
            return named;
        }
        for (row, name) in self.names.iter().enumerate() {
            named[row] = functions.contains(name.as_str());
        }
        named
    }

    /// Per node, whether no caller of it on its stack is of its row.
    fn outermost(&self) -> &[bool] {
        self.outermost.get_or_init(|| outermost(&self.profile, &self.row_of_frame, self.names.len()))
    }

    /// Per row, whether every frame of it is no code: a thread, a process or a pseudo-frame.
    fn rows_of_no_code(&self) -> Vec<bool> {
        let mut no_code = vec![true; self.names.len()];
        for (frame, f) in self.profile.frames.iter() {
            let code = !matches!(f.kind, FrameKind::Thread | FrameKind::Pseudo);
            no_code[self.row_of_frame[frame.index()] as usize] &= !code;
        }
        no_code
    }

    /// The inclusive value of `node`.
    fn inclusive(&self, node: NodeId) -> f64 {
        self.inclusive.get(node.index()).as_f64()
    }

    /// The row of `node`.
    fn row(&self, node: NodeId) -> u32 {
        self.row_of_frame[self.profile.tree.frame(node).index()]
    }

    /// Whether two siblings may be of one row (two frames of one name, or two siblings of one frame).
    fn siblings_may_share_rows(&self) -> bool {
        let frames = self.profile.frames.len();
        self.names.len() < frames || self.profile.tree.has_duplicate_siblings(frames)
    }

    /// The reported metric.
    pub fn metric(&self) -> &Metric {
        &self.profile.metrics()[self.metric]
    }

    /// The total of the profile (before a selection).
    pub fn total(&self) -> f64 {
        self.total
    }

    /// The total of what is selected: its roots' inclusive values.
    pub fn selected(&self) -> f64 {
        self.profile.tree.roots().fold(0.0, |total, r| total + self.inclusive(r))
    }

    /// What the filters and `--fn` kept, where they narrowed the profile (the heading's `selected:`).
    fn selected_if_narrowed(&self) -> Option<f64> {
        self.narrowed.then(|| self.selected())
    }

    /// Whether the profile has call counts.
    pub(crate) fn has_calls(&self) -> bool {
        !matches!(self.calls, Calls::Unknown)
    }

    /// The calls of `node` where the profile counts them per node.
    fn node_calls(&self, node: NodeId) -> Option<i64> {
        match self.calls {
            Calls::PerNode(m) => Some(self.profile.tree.self_value(m, node).as_count()),
            _ => None,
        }
    }

    /// `value` as a percentage of the profile's total (0 for an empty total).
    fn pct(&self, value: f64) -> f64 {
        pct(value, self.total)
    }

    /// A report of this view's metric and total, `kind`, of a table of `columns` and `rows` whose
    /// text cells are indices of the row names, printed by `printer`.
    fn report<P>(&self, kind: &'static str, columns: Vec<Column>, rows: Box<dyn Rows>, printer: P) -> Report<P> {
        let metric = self.metric();
        let header = Header {
            kind,
            metric: metric.name.clone(),
            unit: unit_label(metric).to_string(),
            total: self.total(),
            selected: self.selected_if_narrowed(),
            digits: digits_of(metric),
            // The total is of the view's metric, whatever other metrics the table shows (`data`).
            amount: Some(self.quantity(self.metric)),
        };
        Report { header, table: Table { columns, rows, texts: self.names.clone() }, printer }
    }

    /// What amounts of metric `metric` (an index) are, for text: its unit, name and word, and for
    /// samples or ticks of the reported metric the profile's interval, at which `--unit` shows them
    /// as time (another metric's, in `data`, stay counts: two columns would read `ms`).
    pub fn quantity(&self, metric: usize) -> Quantity {
        let of = &self.profile.metrics()[metric];
        let ticks = matches!(of.kind, MetricKind::Samples | MetricKind::Ticks) && of.unit == Unit::Count;
        Quantity {
            unit: of.unit,
            name: of.name.clone(),
            label: unit_label(of).to_string(),
            ticks: ticks && metric == self.metric,
            interval_nanos: self.profile.meta.interval.map(|interval| interval.as_nanos() as f64),
        }
    }

    /// The error for `--unit word` where text cannot show the reported metric in it: a unit of
    /// another family, or samples or ticks whose interval the profile does not state.
    pub fn check_unit(&self, word: Option<&str>) -> Result<(), Error> {
        match word.and_then(|word| units::refusal(&self.quantity(self.metric), word)) {
            Some(refusal) => Err(Error::BadOption(refusal)),
            None => Ok(()),
        }
    }

    /// The error for `--avg` on a profile without call counts.
    fn check_avg(&self, avg: bool) -> Result<(), Error> {
        match avg && !self.has_calls() {
            true => Err(Error::BadOption(
                "--avg: the profile has no call counts, so there is no time per call to show".into(),
            )),
            false => Ok(()),
        }
    }
}

/// The unit a metric's values are shown in: `ms`, `ns`, `bytes`, …, or for counts the metric's name.
fn unit_label(metric: &Metric) -> &str {
    match metric.unit {
        Unit::Count => &metric.name,
        unit => unit.name(),
    }
}

/// Per node of `tree`, its inclusive value of `metric`: the measured one where the source measured
/// it, else its self value plus its children's.
fn inclusive_values(tree: &crate::model::CallTree, metric: usize) -> Values {
    match tree.measured_inclusive(metric) {
        Some(measured) => measured.clone(),
        None => tree.derived_inclusive(metric),
    }
}

/// Whole numbers for integer metrics, `--decimal` decimals for measured times.
fn digits_of(metric: &Metric) -> Digits {
    match metric.repr {
        Repr::Int => Digits::Whole,
        Repr::Float => Digits::Decimals,
    }
}

/// `part` as a percentage of `whole` (0 when the whole is 0).
fn pct(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

/// The metric chosen ([`crate::model::Meta::chosen_metric`]), else the profile's primary one; it
/// must add up along the tree.
fn choose_metric(profile: &Profile) -> Result<usize, Error> {
    let additive = || {
        let names: Vec<&str> = profile.metrics().iter().filter(|m| m.is_additive()).map(|m| m.name.as_str()).collect();
        names.join(", ")
    };
    let chosen = match profile.meta.chosen_metric {
        Some(chosen) => chosen,
        None => {
            profile.primary_metric().ok_or_else(|| Error::BadOption("the profile has no metric to report".into()))?
        }
    };
    let metric = &profile.metrics()[chosen];
    if !metric.is_additive() {
        return Err(Error::BadOption(format!(
            "--metric {}: {} are counted per node and do not add up along a tree; report one of: {}",
            metric.name,
            metric.name,
            additive()
        )));
    }
    Ok(chosen)
}

/// The row names (distinct frame names, in frame order) and each frame's row.
fn rows(profile: &Profile) -> (Vec<String>, Vec<u32>) {
    let mut names = Vec::new();
    let mut index: FxHashMap<String, u32> = FxHashMap::default();
    let row_of_frame = (profile.frames.iter())
        .map(|(id, _)| {
            let name = profile.row_name(id).into_owned();
            *index.entry(name).or_insert_with_key(|name| {
                names.push(name.clone());
                names.len() as u32 - 1
            })
        })
        .collect();
    (names, row_of_frame)
}

/// Per node, whether no caller of it on its stack is of its row: one walk, with a count per row of
/// the nodes of that row on the path (no walk up the stack per node, so deep trees stay linear).
fn outermost(profile: &Profile, row_of_frame: &[u32], n_rows: usize) -> Vec<bool> {
    let tree = &profile.tree;
    let mut open = vec![0u32; n_rows];
    let mut path: Vec<u32> = Vec::new();
    let mut outermost = vec![false; tree.len()];
    for visit in tree.walk() {
        while path.len() > visit.depth as usize {
            if let Some(row) = path.pop() {
                open[row as usize] -= 1;
            }
        }
        let row = row_of_frame[tree.frame(visit.node).index()];
        outermost[visit.node.index()] = open[row as usize] == 0;
        open[row as usize] += 1;
        path.push(row);
    }
    outermost
}

/// Where the profile's call counts come from: a per-node calls metric, else per-function counts
/// that are not all 0 (LispWorks writes 0 where it did not count).
fn calls_of(profile: &Profile, row_of_frame: &[u32], n_rows: usize) -> Calls {
    let per_node = profile.metrics().iter().position(|m| m.kind == MetricKind::Calls && !m.is_additive());
    if let Some(metric) = per_node {
        return Calls::PerNode(metric);
    }
    let mut per_row = vec![0i64; n_rows];
    for (frame, facts) in &profile.function_facts {
        per_row[row_of_frame[frame.index()] as usize] += facts.calls.unwrap_or(0);
    }
    match per_row.iter().any(|&c| c != 0) {
        true => Calls::PerRow(per_row),
        false => Calls::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FrameRef, Value};

    #[test]
    fn integer_totals_are_added_as_integers() {
        // 2^53 + 1 is no float: added as floats, the 1 would be lost.
        let mut p = Profile::new(vec![Metric::samples()]);
        let (a, b, c) = (
            p.frames.intern(FrameRef::function("a")),
            p.frames.intern(FrameRef::function("b")),
            p.frames.intern(FrameRef::function("c")),
        );
        let root = p.tree.push(None, a);
        let (left, right) = (p.tree.push(Some(root), b), p.tree.push(Some(root), c));
        p.tree.add_self(0, left, Value::Int(9_007_199_254_740_993));
        p.tree.add_self(0, right, Value::Int(1));
        let view = View::new(p, &ReportOptions::default()).unwrap();
        assert_eq!(view.total(), 9_007_199_254_740_994.0);
    }

    #[test]
    fn a_recursive_function_is_counted_once_on_a_deep_stack() {
        let mut p = Profile::new(vec![Metric::samples()]);
        let (f, g) = (p.frames.intern(FrameRef::function("f")), p.frames.intern(FrameRef::function("g")));
        p.tree.push_chain(1_000_000, |i| if i % 3 == 2 { g } else { f });
        for node in 0..1_000_000 {
            p.tree.add_self(0, NodeId(node), Value::Int(1));
        }
        let view = View::new(p, &ReportOptions::default()).unwrap();
        let outer: Vec<usize> = view.outermost().iter().enumerate().filter(|(_, &o)| o).map(|(i, _)| i).collect();
        assert_eq!(outer, [0, 2]);
        assert_eq!(view.total(), 1_000_000.0);
    }
}
