//! The [`Profile`]: header facts, declared metrics, interned frames, the call tree and per-function
//! facts, together.

use super::frame::{FrameId, FrameTable};
use super::metric::{Metric, MetricKind, Unit, Value};
use super::report::ReportFacts;
use super::timeline::Timeline;
use super::tree::{CallTree, NodeId};
use std::collections::BTreeMap;
use std::time::Duration;

/// Facts about the whole profile.
///
/// The typed fields mean the same in every format; `attrs` keeps format-specific header fields
/// (Dyalog's `Version`, …) in the order they were read, so that writing back to the same format loses
/// nothing. Their keys are prefixed with the format name (`dyalog-xml.Version`), but those of facts
/// several formats state alike, named for none ([`DURATION`]; pprof's and OTLP's period).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// The profile's title or name (LispWorks tree name, Dyalog Title).
    pub title: Option<String>,
    /// When the profile was taken, as the source wrote it.
    pub timestamp: Option<String>,
    /// The sampling interval: the length of one sample or tick.
    pub interval: Option<Duration>,
    /// Format-specific header facts, in source order.
    pub attrs: Vec<(String, String)>,
    /// What a profiler's own report says about itself and the run's timer (Dyalog's `]PROFILE`
    /// reports): its kind, the timer's cost per inspection, its percentages and the columns it
    /// derives.
    pub report: ReportFacts,
    /// Whether the source was a flat report (Dyalog summary and data reports): rows without call
    /// structure, each a root with at most its own source lines below it.
    pub flat: bool,
    /// The total the source states for one metric where its rows do not add up to it: a Dyalog
    /// summary's rows are each a function's inclusive time, so they overlap, and its TotalTime is
    /// the run's time ([`Profile::reported_total`]).
    pub stated_total: Option<StatedTotal>,
    /// Whether the rows' own values of the time metric are unknown: each row holds its measured
    /// inclusive time as its self value too, so that a flat profile adds up (a Dyalog summary
    /// report's rows are functions' inclusive times only). [`Profile::self_unknown`] gives the
    /// metric while the measured inclusive values that say so are kept.
    pub self_unknown: bool,
    /// Whether line frames of the source were merged into their functions while it was read
    /// ([`crate::ReadOptions::merge_lines`]), as conversion merges them for targets without lines.
    pub lines_merged: bool,
    /// Whether frame modules are namespaces that belong to the code's name (GHC modules): where one
    /// name is written, a frame with a module reads `module.name`.
    pub module_namespaces: bool,
    /// The metric kind the source's own tool weighs stacks by, where that is not the first of the
    /// usual preference ([`Profile::primary_metric`]): a BR timed file counts its groups, but its
    /// weight is the time spent in each line (docs/formats.md, "Business Rules! profiler files").
    pub weighed_by: Option<MetricKind>,
    /// The metric a user chose (`--metric`), as an index of [`Profile::metrics`]: resolved once from
    /// its name by [`Profile::choose_metric`], kept in step as metrics are dropped, and what a
    /// one-number target writes, a report shows and `diff` compares instead of the default
    /// ([`Profile::primary_metric`]). Not a fact of the source: no format writes it.
    pub chosen_metric: Option<usize>,
}

impl Meta {
    /// The header fact `key`, if the profile has one.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, text)| text.as_str())
    }
}

/// A total the source states for a metric, apart from its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct StatedTotal {
    /// The metric it is a total of: its name and unit (a metric converted into another unit no
    /// longer has this total, as it stands).
    pub metric: String,
    /// The unit of `value`, the metric's.
    pub unit: Unit,
    /// The total.
    pub value: f64,
    /// Where the source states it, as a phrase for messages (`the report's TotalTime`).
    pub source: String,
    /// Whether the rows overlap, each holding the rows it calls (a summary of inclusive times), so
    /// that they add up to more than the total; else they are parts of it (`-exclusive`).
    pub rows_overlap: bool,
}

/// A profile's total of one metric, as every report and `info` states it, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Total<'p> {
    /// The total, in the metric's unit.
    pub value: f64,
    /// Where it comes from.
    pub source: TotalSource<'p>,
}

/// Where a profile's total comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TotalSource<'p> {
    /// The self values added up.
    Rows,
    /// The measured inclusive values of the roots (Dyalog's InclusiveTime): added up in a tree, the
    /// largest in a flat report, whose rows overlap. A report cut short measured more than its rows hold.
    Measured,
    /// The source's own figure ([`Meta::stated_total`]), and where it states it.
    Stated(&'p str),
}

/// Per-function counts that no single node owns (LispWorks function-info). Identical for every node
/// of a function; kept so that a same-format round trip is exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionFacts {
    /// How often the function was called (LispWorks Call-Count; 0 when not recorded).
    pub calls: Option<i64>,
    /// Samples in which the function was on the stack at least once (LispWorks Seen-Count).
    pub seen: Option<i64>,
    /// Samples in which the function was at the top of the stack (LispWorks Top-Count).
    pub top: Option<i64>,
}

/// The frame-attr key of the routine (`main`, `gosub`) a line of no named function is in: BR's
/// MAIN ROUTINE and GOSUB records. Its row's name starts with it ([`Profile::row_name`]).
pub const ROUTINE: &str = "br.routine";

/// The header fact of how long the profiled run lasted, in nanoseconds, named for no format
/// (pprof's `duration_nanos`, OTLP's `duration_nano`): `merge` adds the runs' durations up, as
/// pprof's merge does.
pub const DURATION: &str = "duration-ns";

/// A profile in the canonical model.
///
/// Invariant: the tree has exactly one value column per declared metric, in the same order; the
/// constructor establishes it and nothing outside the model can break it.
#[derive(Clone, Debug)]
pub struct Profile {
    /// Header facts.
    pub meta: Meta,
    metrics: Vec<Metric>,
    /// The interned frames the tree refers to.
    pub frames: FrameTable,
    /// The call tree with self values.
    pub tree: CallTree,
    /// Per-function facts, keyed by the function's frame.
    pub function_facts: BTreeMap<FrameId, FunctionFacts>,
    /// Format-specific facts about a frame (a Sampler symbol's `unknown` field and second library
    /// path), keyed `format.field` as header attrs are, kept so that a same-format round trip is exact.
    pub frame_attrs: BTreeMap<FrameId, Vec<(String, String)>>,
    /// When each sample was taken, where the source says ([`Timeline`]); its nodes are the tree's.
    pub timeline: Option<Timeline>,
}

impl Profile {
    /// An empty profile that measures `metrics`.
    pub fn new(metrics: Vec<Metric>) -> Profile {
        let tree = CallTree::new(&metrics);
        Profile {
            meta: Meta::default(),
            metrics,
            frames: FrameTable::default(),
            tree,
            function_facts: BTreeMap::new(),
            frame_attrs: BTreeMap::new(),
            timeline: None,
        }
    }

    /// The declared metrics; index `i` is column `i` of the tree.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The index of the metric named `name`.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        self.metrics.iter().position(|m| m.name == name)
    }

    /// The index of the first metric of `kind`.
    pub fn metric_of_kind(&self, kind: MetricKind) -> Option<usize> {
        self.metrics.iter().position(|m| m.kind == kind)
    }

    /// Chooses the metric named `name` (`--metric`) as the one the profile is written, reported
    /// and compared by ([`Meta::chosen_metric`]); an error lists the profile's metrics when it has
    /// none of that name.
    pub fn choose_metric(&mut self, name: &str) -> Result<usize, crate::error::Error> {
        let index = self.metric_index(name).ok_or_else(|| {
            let all: Vec<&str> = self.metrics.iter().map(|m| m.name.as_str()).collect();
            crate::error::Error::BadOption(format!(
                "--metric {name}: the profile has no such metric (it has: {})",
                all.join(", ")
            ))
        })?;
        self.meta.chosen_metric = Some(index);
        Ok(index)
    }

    /// The metric a one-number-per-node target shows by default: the kind the source weighs its
    /// stacks by ([`Meta::weighed_by`]) where it says so, else samples if the profile has them, else
    /// time, else ticks, else allocation, else other counts (objects, events), else calls (model.md §3: samples, else time, else calls).
    pub fn primary_metric(&self) -> Option<usize> {
        let declared = self.meta.weighed_by.and_then(|kind| self.metric_of_kind(kind));
        declared.or_else(|| MetricKind::PREFERENCE.iter().find_map(|&kind| self.metric_of_kind(kind)))
    }

    /// `frame` as one name, the way folded stacks and reports name it: `Module.label` for a frame
    /// with a module in a profile whose modules are namespaces (GHC), else [`super::Frame::display_name`]
    /// (`name`, or `name[line]` for a line frame).
    pub fn frame_name(&self, frame: FrameId) -> std::borrow::Cow<'_, str> {
        self.name_of(self.frames.get(frame))
    }

    /// The name of `frame`'s row in the reports and the page: [`Profile::frame_name`], after the
    /// routine a line of no named function is in where the file says it ([`ROUTINE`]: BR's
    /// `GOSUB orders.br:100.0`), so that it is not taken for a line of neither.
    pub fn row_name(&self, frame: FrameId) -> std::borrow::Cow<'_, str> {
        self.after_routine(frame, self.frame_name(frame))
    }

    /// [`Profile::function_name`] as a row names it ([`Profile::row_name`]): a line's function.
    pub fn function_row_name(&self, frame: FrameId) -> std::borrow::Cow<'_, str> {
        self.after_routine(frame, self.function_name(frame))
    }

    /// `name` after the routine `frame` is in, where the file says it.
    fn after_routine<'a>(&'a self, frame: FrameId, name: std::borrow::Cow<'a, str>) -> std::borrow::Cow<'a, str> {
        match self.frame_attr(frame, ROUTINE) {
            Some(routine) => std::borrow::Cow::Owned(format!("{} {name}", routine.to_ascii_uppercase())),
            None => name,
        }
    }

    /// The name of the function `frame` is a place in ([`super::Frame::function`]), as
    /// [`Profile::frame_name`] names it: a line frame's function, so that a function-level view
    /// (`info`'s heaviest functions) adds up a function's lines.
    pub fn function_name(&self, frame: FrameId) -> std::borrow::Cow<'_, str> {
        match self.frames.get(frame).function() {
            std::borrow::Cow::Borrowed(frame) => self.name_of(frame),
            std::borrow::Cow::Owned(function) => std::borrow::Cow::Owned(self.name_of(&function).into_owned()),
        }
    }

    /// [`Profile::frame_name`] of a frame of this profile, or of the function of one.
    fn name_of<'a>(&self, frame: &'a super::Frame) -> std::borrow::Cow<'a, str> {
        match &frame.module {
            Some(module) if self.meta.module_namespaces && frame.kind != super::FrameKind::Line => {
                std::borrow::Cow::Owned(format!("{module}.{}", frame.display_name()))
            }
            _ => frame.display_name(),
        }
    }

    /// The sum of the self values of `metric` over the whole tree.
    pub fn total(&self, metric: usize) -> Value {
        self.tree.self_values(metric).sum()
    }

    /// The time metric whose rows' own values are unknown ([`Meta::self_unknown`]), while its
    /// measured inclusive values are kept.
    pub fn self_unknown(&self) -> Option<usize> {
        let time = self.metric_of_kind(MetricKind::Time)?;
        (self.meta.self_unknown && self.tree.measured_inclusive(time).is_some()).then_some(time)
    }

    /// The report's own percentage of the total for each node ([`ReportFacts::row_percentages`]),
    /// while the tree still has the nodes they were given for.
    pub fn row_percentages(&self) -> Option<&[Option<f64>]> {
        let percentages = self.meta.report.row_percentages.as_deref()?;
        (percentages.len() == self.tree.len()).then_some(percentages)
    }

    /// The total of `metric` that every report and `info` state: the source's own figure where it
    /// states one ([`Meta::stated_total`]), else its roots' measured inclusive values where it
    /// measured them (a tree report cut short holds less than its roots measured), else the self
    /// values added up. A flat report's roots overlap: its total is the larger of its largest
    /// root's measured value and its self values added up (each function's exclusive time, in a
    /// data report).
    pub fn reported_total(&self, metric: usize) -> Total<'_> {
        let declared = &self.metrics[metric];
        let stated = self.meta.stated_total.as_ref().filter(|s| s.metric == declared.name && s.unit == declared.unit);
        if let Some(stated) = stated {
            return Total { value: stated.value, source: TotalSource::Stated(&stated.source) };
        }
        let rows = Total { value: self.total(metric).as_f64(), source: TotalSource::Rows };
        let Some(measured) = self.tree.measured_inclusive(metric) else { return rows };
        let roots = self.tree.roots().map(|root| measured.get(root.index()).as_f64());
        // Folds from +0.0: `sum` starts at -0.0, which an empty profile would show as `-0`.
        match self.meta.flat {
            false => Total { value: roots.fold(0.0, |total, v| total + v), source: TotalSource::Measured },
            true => match roots.fold(0.0, f64::max) {
                largest if largest > rows.value => Total { value: largest, source: TotalSource::Measured },
                _ => rows,
            },
        }
    }

    /// Where the rows of a report overlap ([`StatedTotal::rows_overlap`]): the metric of the stated
    /// total, its self values added up, which exceed the total beyond rounding, and the total.
    pub fn overlapping_rows(&self) -> Option<(usize, f64, &StatedTotal)> {
        let stated = self.meta.stated_total.as_ref().filter(|stated| stated.rows_overlap)?;
        let metric = self.metric_index(&stated.metric).filter(|&m| self.metrics[m].unit == stated.unit)?;
        let rows = self.total(metric).as_f64();
        (rows - stated.value > 1e-9 * stated.value.abs()).then_some((metric, rows, stated))
    }

    /// Where `frame`'s code is defined, when the frame attr [`super::DEFINED_AT`] holds a location
    /// (not a non-location such as GHC's `<built-in>`).
    pub fn defined_at(&self, frame: FrameId) -> Option<super::SourceLocation<'_>> {
        super::SourceLocation::parse(self.frame_attr(frame, super::DEFINED_AT)?)
    }

    /// The frame fact `key` of `frame`, if it has one.
    pub fn frame_attr(&self, frame: FrameId, key: &str) -> Option<&str> {
        let attrs = self.frame_attrs.get(&frame)?;
        attrs.iter().find(|(k, _)| k == key).map(|(_, text)| text.as_str())
    }

    /// The deepest depth in the tree (roots at 0), or `None` for an empty tree.
    pub fn max_depth(&self) -> Option<u32> {
        self.tree.depths().into_iter().max()
    }

    /// Checks the model's invariants; readers' output must pass it. Returns the first violation.
    pub fn validate(&self) -> Result<(), String> {
        let tree = &self.tree;
        if tree.n_metrics() != self.metrics.len() {
            return Err(format!("{} metrics declared, {} value columns", self.metrics.len(), tree.n_metrics()));
        }
        for (i, metric) in self.metrics.iter().enumerate() {
            if tree.self_values(i).len() != tree.len() {
                return Err(format!(
                    "metric {} has {} values for {} nodes",
                    metric.name,
                    tree.self_values(i).len(),
                    tree.len()
                ));
            }
            if tree.self_values(i).repr() != metric.repr {
                return Err(format!("metric {} is stored in the wrong representation", metric.name));
            }
            if metric.is_additive() {
                if let Some(node) = tree.nodes().find(|&n| tree.self_value(i, n).as_f64() < 0.0) {
                    return Err(format!("node {} has a negative self value for {}", node.0, metric.name));
                }
            }
        }
        for node in tree.nodes() {
            if tree.frame(node).index() >= self.frames.len() {
                return Err(format!("node {} refers to frame {} of {}", node.0, tree.frame(node).0, self.frames.len()));
            }
            if let Some(NodeId(p)) = tree.parent(node) {
                if p >= node.0 {
                    return Err(format!("node {} comes before its parent {p}", node.0));
                }
            }
        }
        let keyed = self.function_facts.keys().chain(self.frame_attrs.keys());
        if let Some(id) = keyed.into_iter().find(|id| id.index() >= self.frames.len()) {
            return Err(format!("facts for unknown frame {}", id.0));
        }
        let mut names = std::collections::HashSet::new();
        if let Some(m) = self.metrics.iter().find(|m| !names.insert(&m.name)) {
            return Err(format!("metric name {} declared twice", m.name));
        }
        self.timeline.as_ref().map_or(Ok(()), |t| t.validate(tree.len()))
    }

    /// Says how metric `metric`'s values came to be, where a reader learns it only from them.
    pub(crate) fn set_sampling(&mut self, metric: usize, sampling: super::metric::Sampling) {
        if let Some(metric) = self.metrics.get_mut(metric) {
            metric.sampling = sampling;
        }
    }

    /// Drops every metric whose index `keep` rejects, with its column.
    pub(crate) fn retain_metrics(&mut self, keep: &[bool]) {
        // The chosen metric keeps its place among those kept, or is no longer chosen.
        self.meta.chosen_metric = self
            .meta
            .chosen_metric
            .filter(|&m| keep.get(m) == Some(&true))
            .map(|m| keep[..m].iter().filter(|&&kept| kept).count());
        super::retain_by_mask(&mut self.metrics, keep);
        self.tree.retain_metrics(keep);
    }

    /// Declares one more metric with its self values — for conversions that derive one.
    pub(crate) fn add_metric(&mut self, metric: Metric, values: super::metric::Values) {
        debug_assert_eq!(metric.repr, values.repr());
        self.metrics.push(metric);
        self.tree.add_column(values);
    }

    /// Replaces metric `index` (declaration and values) — for unit conversions.
    pub(crate) fn replace_metric(&mut self, index: usize, metric: Metric, values: super::metric::Values) {
        debug_assert_eq!(metric.repr, values.repr());
        self.metrics[index] = metric;
        self.tree.replace_metric(index, values);
    }
}
