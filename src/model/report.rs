//! What a profiler's own report says about itself and about the timer of the run it reports
//! ([`ReportFacts`], [`super::Meta::report`]): which report it is, the cost of one timer
//! inspection its times were adjusted with, its own percentages and the total they are of, and
//! the columns it derives from its rows. Dyalog's `]PROFILE` reports state them (docs/formats.md,
//! "Dyalog reports"); its readers set them, its writers write them, the reports read them and
//! `convert --dyalog-report` makes them.

/// The kind of report a source is, or a flat profile is to be written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// A call tree: each function's row under the row of the line that calls it, with exclusive and
    /// inclusive times adjusted for the timer's cost ([`ReportFacts::timer_cost`]).
    Tree,
    /// Per function, its inclusive time (adjusted for the timer's cost) and its calls, heaviest
    /// first: the rows overlap, each holding the functions it calls ([`super::Meta::self_unknown`]).
    Summary,
    /// Per function and per line, calls, exclusive and inclusive times and timer inspections, the
    /// times as measured: the timer's cost is not taken off them.
    Data,
}

impl ReportKind {
    /// Its name as the reports' command names it (`tree`, `summary`, `data`).
    pub fn name(self) -> &'static str {
        match self {
            ReportKind::Tree => "tree",
            ReportKind::Summary => "summary",
            ReportKind::Data => "data",
        }
    }

    /// The kind `name` ([`ReportKind::name`]) names, if any.
    pub fn from_name(name: &str) -> Option<ReportKind> {
        [ReportKind::Tree, ReportKind::Summary, ReportKind::Data].into_iter().find(|kind| kind.name() == name)
    }
}

/// The columns a report derives from its rows, written again (recomputed) where it is written in
/// its own format: Dyalog's PctOfTot, CumPct and AvgTime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DerivedColumns {
    /// Each row's time as a percentage of the total ([`ReportFacts::percentages_of`]).
    pub percent_of_total: bool,
    /// The percentages of the rows so far, added up.
    pub cumulative_percent: bool,
    /// Each row's time over its calls.
    pub time_per_call: bool,
}

impl DerivedColumns {
    /// Whether it names any column.
    pub fn any(self) -> bool {
        self != DerivedColumns::default()
    }

    /// The columns it names, as a phrase (`percent of total, time per call`).
    pub fn describe(self) -> String {
        let names = [
            (self.percent_of_total, "percent of total"),
            (self.cumulative_percent, "cumulative percent"),
            (self.time_per_call, "time per call"),
        ];
        names.iter().filter(|(set, _)| *set).map(|(_, name)| *name).collect::<Vec<_>>().join(", ")
    }
}

/// One of the [`ReportFacts`], as a conversion or a merge names it where it drops it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFact {
    /// [`ReportFacts::kind`].
    Kind,
    /// [`ReportFacts::timer_cost`].
    TimerCost,
    /// [`ReportFacts::percentages_of`].
    PercentagesOf,
    /// [`ReportFacts::derived`].
    DerivedColumns,
    /// [`ReportFacts::row_percentages`].
    RowPercentages,
}

impl ReportFact {
    /// Every fact, in the order they are named.
    pub const ALL: [ReportFact; 5] = [
        ReportFact::Kind,
        ReportFact::TimerCost,
        ReportFact::PercentagesOf,
        ReportFact::DerivedColumns,
        ReportFact::RowPercentages,
    ];

    /// What messages call it.
    pub fn label(self) -> &'static str {
        match self {
            ReportFact::Kind => "report kind",
            ReportFact::TimerCost => "timer cost",
            ReportFact::PercentagesOf => "total of the percentages",
            ReportFact::DerivedColumns => "derived columns",
            ReportFact::RowPercentages => "row percentages",
        }
    }
}

/// What a profiler's own report says about itself and the run's timer (the module documentation
/// above). Each is `None` (or no column) where the source does not say it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReportFacts {
    /// The kind of report the source is, or a flat profile is to be written as: stated by Dyalog's
    /// XML reports (their Command), told from the columns of a CSV report (or an XML one without a
    /// Command), set by `convert --dyalog-report`. A data report's times are as measured
    /// ([`ReportFacts::times_as_measured`]); a tree's and a summary's have the timer's cost taken
    /// off.
    pub kind: Option<ReportKind>,
    /// The cost of one timer inspection, in milliseconds, that the profiler takes off the times it
    /// reports, once per inspection (Dyalog's TimerBias, stated by its XML reports; a CSV report
    /// has no settings): with the timer inspections it makes other adjustments possible (`--bias`).
    pub timer_cost: Option<f64>,
    /// The total time the report's own percentages are of, where the source gives percentages but
    /// no such total (a Dyalog CSV report: its first row's time over its PctOfTot), or where a
    /// report is made of a profile (`--dyalog-report summary`: the profile's total). An XML report
    /// states its own (its TotalTime setting, a fact of that format).
    pub percentages_of: Option<f64>,
    /// The columns the report derives from its rows, to be written again (recomputed).
    pub derived: DerivedColumns,
    /// The report's own percentage of the total for each node, in node order (empty where a row has
    /// none): a Dyalog summary's PctOfTot as printed, which `summary` shows and a Dyalog output
    /// writes while the rows are unchanged ([`super::Profile::row_percentages`]), since a file typed
    /// from a printed report has its times rounded (23.0 of 68.4 ms is 33.6 %, where it printed 33.7).
    pub row_percentages: Option<Vec<Option<f64>>>,
}

impl ReportFacts {
    /// Whether the times are as measured, the timer's cost not taken off (a data report).
    pub fn times_as_measured(&self) -> bool {
        self.kind == Some(ReportKind::Data)
    }

    /// The facts it states, in [`ReportFact::ALL`]'s order.
    pub fn stated(&self) -> Vec<ReportFact> {
        ReportFact::ALL.into_iter().filter(|&fact| self.states(fact)).collect()
    }

    /// Whether it states `fact`.
    pub fn states(&self, fact: ReportFact) -> bool {
        match fact {
            ReportFact::Kind => self.kind.is_some(),
            ReportFact::TimerCost => self.timer_cost.is_some(),
            ReportFact::PercentagesOf => self.percentages_of.is_some(),
            ReportFact::DerivedColumns => self.derived.any(),
            ReportFact::RowPercentages => self.row_percentages.is_some(),
        }
    }

    /// `fact` as the text `info` and the dump show, where it is stated.
    pub fn describe(&self, fact: ReportFact) -> Option<String> {
        match fact {
            ReportFact::Kind => self.kind.map(|kind| kind.name().to_string()),
            ReportFact::TimerCost => self.timer_cost.map(|cost| format!("{cost} ms per timer inspection")),
            ReportFact::PercentagesOf => self.percentages_of.map(|total| total.to_string()),
            ReportFact::DerivedColumns => self.derived.any().then(|| self.derived.describe()),
            ReportFact::RowPercentages => self.row_percentages.as_ref().map(|percentages| {
                let texts: Vec<String> =
                    percentages.iter().map(|p| p.map(|p| p.to_string()).unwrap_or_default()).collect();
                texts.join(",")
            }),
        }
    }

    /// Keeps the facts that `other` states the same (profiles added together, `merge`); the facts
    /// dropped, stated here but not the same there.
    pub(crate) fn keep_shared(&mut self, other: &ReportFacts) -> Vec<ReportFact> {
        let dropped: Vec<ReportFact> = (self.stated().into_iter())
            .filter(|&fact| match fact {
                ReportFact::Kind => self.kind != other.kind,
                ReportFact::TimerCost => self.timer_cost != other.timer_cost,
                ReportFact::PercentagesOf => self.percentages_of != other.percentages_of,
                ReportFact::DerivedColumns => self.derived != other.derived,
                ReportFact::RowPercentages => self.row_percentages != other.row_percentages,
            })
            .collect();
        for &fact in &dropped {
            match fact {
                ReportFact::Kind => self.kind = None,
                ReportFact::TimerCost => self.timer_cost = None,
                ReportFact::PercentagesOf => self.percentages_of = None,
                ReportFact::DerivedColumns => self.derived = DerivedColumns::default(),
                ReportFact::RowPercentages => self.row_percentages = None,
            }
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_keeps_the_facts_both_state_the_same() {
        let mut one = ReportFacts {
            kind: Some(ReportKind::Tree),
            timer_cost: Some(0.0002),
            derived: DerivedColumns { percent_of_total: true, ..DerivedColumns::default() },
            ..ReportFacts::default()
        };
        let other = ReportFacts { kind: Some(ReportKind::Tree), timer_cost: Some(0.0001), ..ReportFacts::default() };
        assert_eq!(one.keep_shared(&other), [ReportFact::TimerCost, ReportFact::DerivedColumns]);
        assert_eq!(one, ReportFacts { kind: Some(ReportKind::Tree), ..ReportFacts::default() });
        assert_eq!(one.stated(), [ReportFact::Kind]);
    }

    #[test]
    fn kinds_are_named_as_the_reports_command_names_them() {
        for kind in [ReportKind::Tree, ReportKind::Summary, ReportKind::Data] {
            assert_eq!(ReportKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(ReportKind::from_name("calls"), None);
    }
}
