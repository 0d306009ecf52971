//! Metrics: what a profile measures, and the columns of values that hold the measurements.
//!
//! A profile declares its metrics up front (pprof's `sample_type`); every node of its call tree has one
//! value per metric. A metric says what it measures ([`MetricKind`]), in which [`Unit`], and whether its
//! values roll up the tree ([`Aggregation`]). Values are stored column-wise in [`Values`], either as
//! integers (counts, ticks, bytes, nanoseconds) or as floating-point numbers (the milliseconds Dyalog
//! prints with sixteen significant digits), so that a value read from a file is written back digit for
//! digit: integers exactly, floats as the shortest text that reads back to the same `f64`.

use std::fmt;

/// What a metric measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetricKind {
    /// Stack samples (one per sampling event).
    Samples,
    /// Elapsed or CPU time.
    Time,
    /// Profiler ticks (GHC): samples taken at a fixed interval, one tick being one interval of CPU
    /// time, so that they turn into time (and time into them) at the profile's interval.
    Ticks,
    /// Timer inspections (Dyalog's `ExclusiveTicks`/`InclusiveTicks`: "counters for the number of
    /// clock inspections", the `]PROFILE` guide (docs/sources.md)): how often the profiler read the
    /// clock, an overhead count that is neither samples nor time. Only Dyalog reads and writes
    /// them.
    Inspections,
    /// How often a function or node was entered.
    Calls,
    /// Memory allocated.
    Alloc,
    /// A count of objects (pprof's `alloc_objects`, `inuse_objects`): how many things were
    /// allocated or live, neither samples nor time, so that no conversion takes them for either.
    Objects,
    /// A count of events of some other kind (pprof's `contentions`, `goroutine`, a sample type of a
    /// unit proftool does not know): the metric's name says what is counted.
    Events,
}

impl MetricKind {
    /// The lowercase word used in dumps and messages.
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::Samples => "samples",
            MetricKind::Time => "time",
            MetricKind::Ticks => "ticks",
            MetricKind::Inspections => "inspections",
            MetricKind::Calls => "calls",
            MetricKind::Alloc => "alloc",
            MetricKind::Objects => "objects",
            MetricKind::Events => "events",
        }
    }

    /// The kinds in the order a profile is weighed by them when its source does not say
    /// ([`crate::model::Profile::primary_metric`]): what it measures first (samples, time, ticks), then
    /// allocation, other counts, calls, and timer inspections last, as they count the profiler's own
    /// work, not the program's.
    pub const PREFERENCE: [MetricKind; 8] = [
        MetricKind::Samples,
        MetricKind::Time,
        MetricKind::Ticks,
        MetricKind::Alloc,
        MetricKind::Objects,
        MetricKind::Events,
        MetricKind::Calls,
        MetricKind::Inspections,
    ];

    /// Whether it measures time: samples, ticks and time, which turn into one another at a
    /// sampling interval. No other kind converts into these.
    pub fn measures_time(self) -> bool {
        matches!(self, MetricKind::Samples | MetricKind::Time | MetricKind::Ticks)
    }

    /// The kind of a count named `name` in a format that gives counts only a name (pprof's
    /// `count` unit, speedscope's `none` in proftool's own files): the sample count of a sampling
    /// profiler (`samples`, or no name) is samples, GHC's `ticks` ticks, a name ending in
    /// `objects` objects, anything else events of that name.
    pub fn of_count(name: &str) -> MetricKind {
        match name {
            "" | "samples" => MetricKind::Samples,
            "ticks" => MetricKind::Ticks,
            _ if name.ends_with("objects") => MetricKind::Objects,
            _ => MetricKind::Events,
        }
    }
}

/// The unit of a metric's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// A plain count (samples, ticks, calls).
    Count,
    /// Nanoseconds.
    Nanoseconds,
    /// Microseconds.
    Microseconds,
    /// Milliseconds.
    Milliseconds,
    /// Bytes.
    Bytes,
    /// Machine words (size given by the source, e.g. GHC's word size).
    Words,
}

impl Unit {
    /// The short name used in dumps and messages.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Nanoseconds => "ns",
            Unit::Microseconds => "us",
            Unit::Milliseconds => "ms",
            Unit::Bytes => "bytes",
            Unit::Words => "words",
        }
    }

    /// Nanoseconds per unit, for the time units.
    pub fn nanos(self) -> Option<f64> {
        match self {
            Unit::Nanoseconds => Some(1.0),
            Unit::Microseconds => Some(1e3),
            Unit::Milliseconds => Some(1e6),
            _ => None,
        }
    }

    /// The factor that turns values in this unit into values in `to`, if the two measure the same
    /// thing (milliseconds and nanoseconds both time).
    pub fn factor_to(self, to: Unit) -> Option<f64> {
        match (self.nanos(), to.nanos()) {
            (Some(from), Some(to)) => Some(from / to),
            _ => (self == to).then_some(1.0),
        }
    }
}

/// The nanoseconds in one of the unit of time `name` names, as profilers and people write it: `ns`,
/// `us` or `µs`, `ms`, `s`, `m` or `min`, `h`, `d` (JFR's set, and the command line's), or the word,
/// one or several (`millisecond`, `seconds`); `None` for any other name. The one table of them:
/// each reader keeps its own grammar around it (`10 ms`, `1 millisecond`, `0.5ms`).
pub fn nanoseconds_per(name: &str) -> Option<u64> {
    let word = name.strip_suffix('s').filter(|word| word.len() >= 3).unwrap_or(name);
    Some(match word {
        "ns" | "nanosecond" => 1,
        "us" | "µs" | "microsecond" => 1_000,
        "ms" | "millisecond" => 1_000_000,
        "s" | "second" => 1_000_000_000,
        "m" | "min" | "minute" => 60_000_000_000,
        "h" | "hour" => 3_600_000_000_000,
        "d" | "day" => 86_400_000_000_000,
        _ => return None,
    })
}

/// How a metric's values combine along the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aggregation {
    /// Self values that roll up: a node's inclusive value is its self value plus its children's
    /// inclusive values (samples, time, allocation).
    Additive,
    /// A fact about the node itself that does not roll up (call counts, GHC entries).
    PerNode,
}

/// Whether a metric's values are integers or floating-point numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repr {
    /// Exact 64-bit integers.
    Int,
    /// `f64`, printed as the shortest text that reads back to the same value.
    Float,
}

/// How a metric's values came to be, which is what noise two runs of one unchanged program see in
/// them: stated by the reader, which knows its producer, so that `diff`'s gate tests each metric as
/// its noise behaves (docs/gate.md, "What each format's metrics are").
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Sampling {
    /// The reader does not say (time, bytes or counts of things from a producer that may sample or
    /// measure): the gate names the metric in its verdict and tests the spread between runs where a
    /// side has several, the limits alone where not.
    #[default]
    Unstated,
    /// Measured exactly, by instrumentation or simulation (calls, a trace's durations, Dyalog's
    /// timer, callgrind's events, GHC's allocation): no sampling noise, the limits alone.
    Measured,
    /// Sums of the weights of samples: each value is the weight of the samples taken there. The
    /// samples behind a node's value are the value of the metric named `of` (this metric where
    /// `None`) at that node over `per`: 1 for counts of samples or events; a period in nanoseconds
    /// for time that is samples times a period (py-spy's seconds at 100 Hz); the mean bytes between
    /// samples for Go's heap profiles (its `alloc_objects` counting the samples of `alloc_space`).
    Sampled {
        /// The metric that counts the samples, where it is not this one.
        of: Option<String>,
        /// The amount of `of` (in nanoseconds for time, bytes for bytes) that one sample is.
        per: u64,
    },
}

impl Sampling {
    /// Counts of samples (or events), each weighing 1.
    pub fn counts() -> Sampling {
        Sampling::Sampled { of: None, per: 1 }
    }

    /// A weight per sample whose samples the metric `name` counts (a `.cpuprofile`'s time beside
    /// its samples, JFR's allocated bytes beside its allocation samples).
    pub fn weights_of(name: &str) -> Sampling {
        Sampling::Sampled { of: Some(name.into()), per: 1 }
    }

    /// What a reader that does not say means by a metric of `kind`: samples and ticks are counts of
    /// samples, calls and timer inspections are counted exactly, anything else is unstated.
    pub fn of_kind(kind: MetricKind) -> Sampling {
        match kind {
            MetricKind::Samples | MetricKind::Ticks => Sampling::counts(),
            MetricKind::Calls | MetricKind::Inspections => Sampling::Measured,
            _ => Sampling::Unstated,
        }
    }

    /// The word `info` and the gate's verdict use.
    pub fn describe(&self) -> String {
        match self {
            Sampling::Unstated => "not known whether sampled".into(),
            Sampling::Measured => "measured".into(),
            Sampling::Sampled { of: None, per: 1 } => "sampled".into(),
            Sampling::Sampled { of: None, per } => format!("sampled, {per} a sample"),
            Sampling::Sampled { of: Some(of), per: 1 } => format!("sampled, weights of the samples counted in {of}"),
            Sampling::Sampled { of: Some(of), per } => format!("sampled, a sample per {per} of {of}"),
        }
    }
}

/// One declared metric of a profile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Metric {
    /// The name a user gives to `--metric` (`samples`, `time`, `calls`, …); unique within a profile.
    pub name: String,
    /// What it measures.
    pub kind: MetricKind,
    /// The unit of its values.
    pub unit: Unit,
    /// Whether it rolls up the tree.
    pub aggregation: Aggregation,
    /// How its values are stored.
    pub repr: Repr,
    /// What noise its values have: how they came to be.
    pub sampling: Sampling,
}

impl Metric {
    /// A metric of `name` and `kind` in `unit`, additive, stored as `repr`, whose sampling is what
    /// its kind means where a reader does not say ([`Sampling::of_kind`]).
    pub fn new(name: impl Into<String>, kind: MetricKind, unit: Unit, repr: Repr) -> Metric {
        Metric {
            name: name.into(),
            kind,
            unit,
            aggregation: Aggregation::Additive,
            repr,
            sampling: Sampling::of_kind(kind),
        }
    }

    /// A sample count: additive integer samples.
    pub fn samples() -> Metric {
        Metric::new("samples", MetricKind::Samples, Unit::Count, Repr::Int)
    }

    /// Profiler ticks (GHC): additive integer counts of sampling intervals.
    pub fn ticks() -> Metric {
        Metric::new("ticks", MetricKind::Ticks, Unit::Count, Repr::Int)
    }

    /// Dyalog's timer inspections (its `ExclusiveTicks`/`InclusiveTicks` columns), named
    /// `timer-ticks` so that `--metric ticks` keeps meaning GHC's: additive integer counts of clock reads.
    pub fn inspections() -> Metric {
        Metric::new("timer-ticks", MetricKind::Inspections, Unit::Count, Repr::Int)
    }

    /// Time in `unit`, stored as `repr`: additive.
    pub fn time(unit: Unit, repr: Repr) -> Metric {
        Metric::new("time", MetricKind::Time, unit, repr)
    }

    /// How often a node was entered, named `name` (Dyalog Calls, GHC entries): a per-node count that
    /// does not roll up, counted exactly.
    pub fn entries(name: &str) -> Metric {
        Metric { aggregation: Aggregation::PerNode, ..Metric::new(name, MetricKind::Calls, Unit::Count, Repr::Int) }
    }

    /// This metric with its sampling stated.
    pub fn sampled(self, sampling: Sampling) -> Metric {
        Metric { sampling, ..self }
    }

    /// Whether the values are additive.
    pub fn is_additive(&self) -> bool {
        self.aggregation == Aggregation::Additive
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let agg = match self.aggregation {
            Aggregation::Additive => "additive",
            Aggregation::PerNode => "per-node",
        };
        write!(f, "{} ({}, {}, {})", self.name, self.kind.name(), self.unit.name(), agg)
    }
}

/// One value of a metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer value.
    Int(i64),
    /// A floating-point value.
    Float(f64),
}

impl Value {
    /// The value as `f64` (integers beyond 2^53 lose their low bits).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Float(v) => v,
        }
    }

    /// The value as a whole number: floats are rounded (`as` saturates at the i64 range and maps
    /// NaN to 0).
    pub fn as_count(self) -> i64 {
        match self {
            Value::Int(v) => v,
            Value::Float(v) => v.round() as i64,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            // Rust prints the shortest decimal that reads back to the same f64.
            Value::Float(v) => write!(f, "{v}"),
        }
    }
}

/// `sum`, a sum of `terms` floats whose magnitudes add up to `magnitude`, as the shortest decimal
/// within the rounding error of adding them (`51`, not `51.000000000000014`): each float is off by
/// up to half an ulp from the decimal it was read as, and each addition rounds by up to half an ulp
/// of the running sum, under `terms` ulps of `magnitude` in all. One float is exact.
pub fn decimal_sum(sum: f64, terms: u64, magnitude: f64) -> f64 {
    match terms {
        0 | 1 => sum,
        _ => shortest_within(sum, terms as f64 * f64::EPSILON * magnitude),
    }
}

/// The decimal with the fewest significant digits within `error` of `v` (at 17 digits, `v` itself).
fn shortest_within(v: f64, error: f64) -> f64 {
    (1..=17)
        .filter_map(|digits| format!("{v:.*e}", digits - 1).parse::<f64>().ok())
        .find(|candidate| (candidate - v).abs() <= error)
        .unwrap_or(v)
}

/// `v` with at most `digits` significant digits, in plain notation without trailing zeros (`44.03092784`,
/// `100`): APL's `⎕PP` printing, and times for people to read without binary noise (`18.481`, not
/// `18.480999999999998`).
pub fn significant(v: f64, digits: usize) -> String {
    let scientific = format!("{v:.*e}", digits.saturating_sub(1));
    let Some((mantissa, exponent)) = scientific.split_once('e') else { return scientific };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent + 1; // digits before the decimal point
    let mut text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    };
    if text.contains('.') {
        text.truncate(text.trim_end_matches('0').trim_end_matches('.').len());
    }
    if v < 0.0 {
        text.insert(0, '-');
    }
    text
}

/// A column of values, one per node.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Integer values.
    Int(Vec<i64>),
    /// Floating-point values.
    Float(Vec<f64>),
}

impl Values {
    /// An empty column of the given representation.
    pub fn new(repr: Repr) -> Values {
        match repr {
            Repr::Int => Values::Int(Vec::new()),
            Repr::Float => Values::Float(Vec::new()),
        }
    }

    /// A column of `len` zeros.
    pub fn zeros(repr: Repr, len: usize) -> Values {
        match repr {
            Repr::Int => Values::Int(vec![0; len]),
            Repr::Float => Values::Float(vec![0.0; len]),
        }
    }

    /// How the values are stored.
    pub fn repr(&self) -> Repr {
        match self {
            Values::Int(_) => Repr::Int,
            Values::Float(_) => Repr::Float,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    /// Whether the column is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `additional` more values.
    pub(crate) fn reserve(&mut self, additional: usize) {
        match self {
            Values::Int(v) => v.reserve(additional),
            Values::Float(v) => v.reserve(additional),
        }
    }

    /// Appends a zero.
    pub(crate) fn push_zero(&mut self) {
        match self {
            Values::Int(v) => v.push(0),
            Values::Float(v) => v.push(0.0),
        }
    }

    /// The value at `index`.
    ///
    /// # Panics
    /// If `index` is out of range: node ids come from the tree that owns the column.
    pub fn get(&self, index: usize) -> Value {
        match self {
            Values::Int(v) => Value::Int(v[index]),
            Values::Float(v) => Value::Float(v[index]),
        }
    }

    /// Every value as a float, in one pass.
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Values::Float(v) => v.clone(),
        }
    }

    /// Overwrites the value at `index`, converting it to the column's representation
    /// (a float stored into an integer column is rounded).
    pub fn set(&mut self, index: usize, value: Value) {
        match self {
            Values::Int(v) => v[index] = value.as_count(),
            Values::Float(v) => v[index] = value.as_f64(),
        }
    }

    /// Adds `value` to the value at `index` (integers saturate rather than wrap).
    pub fn add(&mut self, index: usize, value: Value) {
        match self {
            Values::Int(v) => v[index] = v[index].saturating_add(value.as_count()),
            Values::Float(v) => v[index] += value.as_f64(),
        }
    }

    /// The sum of all values (0 for none: a fold from +0.0, where `sum` starts at -0.0, which
    /// would show as `-0`).
    pub fn sum(&self) -> Value {
        match self {
            Values::Int(v) => Value::Int(v.iter().fold(0i64, |a, &b| a.saturating_add(b))),
            Values::Float(v) => Value::Float(v.iter().fold(0.0, |a, &b| a + b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_of_time_are_named_short_and_in_words() {
        let names =
            ["ns", "us", "µs", "microseconds", "ms", "millisecond", "s", "seconds", "m", "minutes", "h", "days"];
        let (us, ms, s) = (1_000, 1_000_000, 1_000_000_000);
        let nanos = [1, us, us, us, ms, ms, s, s, 60 * s, 60 * s, 3600 * s, 86_400 * s];
        assert_eq!(names.map(nanoseconds_per), nanos.map(Some));
        for other in ["", "sec", "msec", "mss", "parsecs", "S", "bytes"] {
            assert_eq!(nanoseconds_per(other), None, "{other:?}");
        }
    }

    #[test]
    fn float_values_print_shortest_round_trip() {
        let v: f64 = "0.8205615629464091".parse().unwrap();
        assert_eq!(Value::Float(v).to_string(), "0.8205615629464091");
    }

    #[test]
    fn integer_sums_saturate() {
        let v = Values::Int(vec![i64::MAX, 5]);
        assert_eq!(v.sum(), Value::Int(i64::MAX));
    }
}
