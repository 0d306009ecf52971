//! Stacks into a profile, for readers of formats made of stacks with weights: a reader gives each
//! stack as it reads it, root first or leaf first (as inferno's collapsers, speedscope's
//! `appendSampleWithWeight` and samply's `add_sample` take them from every reader), says what it
//! leaves out and why, and gets its profile back with the errors and warnings every such reader
//! gives: the input that ends inside a stack, the input without one, one warning per reason for
//! what was left out.

use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::stacks::StackTree;
use crate::model::{FrameId, FrameRef, Metric, NodeId, Profile, Value, Values};

/// The order a stack's frames are given in.
#[derive(Clone, Copy)]
pub(crate) enum Order {
    /// The outermost frame first (a folded line).
    RootFirst,
    /// The frame sampled first, its callers after it (a DTrace aggregation, a backtrace).
    LeafFirst,
}

/// Why a reader leaves things out (stacks, lines), and how its one warning says so: `says` is given
/// how many were left out and the weight they held.
pub(crate) struct Reason {
    /// The warning's key.
    pub(crate) key: &'static str,
    /// The warning, of the count left out and their weight.
    pub(crate) says: fn(u64, i128) -> String,
}

impl Reason {
    pub(crate) const fn new(key: &'static str, says: fn(u64, i128) -> String) -> Reason {
        Reason { key, says }
    }
}

/// What the input should have held where it holds no stack: the error of an input read to its end
/// without one.
pub(crate) struct Missing {
    pub(crate) expected: &'static str,
    pub(crate) found: &'static str,
}

impl Missing {
    /// The input should have held `expected`, and holds none of it anywhere.
    pub(crate) const fn anywhere(expected: &'static str) -> Missing {
        Missing { expected, found: "none in the whole input" }
    }
}

/// What was left out for one reason.
struct Left {
    reason: &'static Reason,
    count: u64,
    weight: i128,
    first: Option<Position>,
}

/// What a reader left out, by reason in the order first met: how many for each, of what weight,
/// and where the first was; said in one warning per reason.
#[derive(Default)]
pub(crate) struct LeftOut(Vec<Left>);

impl LeftOut {
    /// Counts one thing left out for `reason`, of `weight`, at `at` where the warning names the
    /// first one's place.
    pub(crate) fn add(&mut self, reason: &'static Reason, at: Option<Position>, weight: impl Into<i128>) {
        let index = match self.0.iter().position(|left| left.reason.key == reason.key) {
            Some(index) => index,
            None => {
                self.0.push(Left { reason, count: 0, weight: 0, first: at });
                self.0.len() - 1
            }
        };
        let left = &mut self.0[index];
        left.count += 1;
        left.weight += weight.into();
        left.first = left.first.or(at);
    }

    /// How many things were left out, for every reason.
    pub(crate) fn count(&self) -> u64 {
        self.0.iter().map(|left| left.count).sum()
    }

    /// Says what was left out, a warning per reason.
    pub(crate) fn warn(&self, diag: &mut Diagnostics) {
        for left in &self.0 {
            diag.warn(left.reason.key, left.first, || (left.reason.says)(left.count, left.weight));
        }
    }
}

/// A profile being made of stacks (see the module documentation).
pub(crate) struct StackSink {
    format: FormatName,
    profile: Profile,
    stacks: StackTree,
    /// Whether a stack of at least one frame was added.
    any_stack: bool,
    /// What was left out, by reason.
    left: LeftOut,
    /// The events whose samples the stacks are, each once, in the order met, where the input names
    /// them ([`StackSink::start_event`]).
    events: Vec<String>,
    /// The index in `events` of the event being read (its metric's).
    event: usize,
}

impl StackSink {
    /// A sink for stacks of `format` weighing `metrics`.
    pub(crate) fn new(format: FormatName, metrics: Vec<Metric>) -> StackSink {
        let profile = Profile::new(metrics);
        let (stacks, left, events) = (StackTree::default(), LeftOut::default(), Vec::new());
        StackSink { format, profile, stacks, any_stack: false, left, events, event: 0 }
    }

    /// The profile being made, for its header facts and metrics.
    pub(crate) fn profile(&mut self) -> &mut Profile {
        &mut self.profile
    }

    /// The id of `frame`, interned.
    pub(crate) fn frame(&mut self, frame: FrameRef<'_>) -> FrameId {
        self.profile.frames.intern(frame)
    }

    /// Starts the stacks of the event `event` (`inst_retired.any`), for an input of several events'
    /// samples: from the second event on, each event's samples are a metric of their own, like the
    /// sink's first; where there are several, each is named after its event (`EVENT samples`), as
    /// perf's and pmcstat's collapsers name them. An event met again goes on adding to its metric.
    pub(crate) fn start_event(&mut self, event: &str) {
        if let Some(known) = self.events.iter().position(|e| e == event) {
            self.event = known;
            return;
        }
        self.events.push(event.to_string());
        self.event = self.events.len() - 1;
        if self.events.len() > 1 {
            let metric = self.profile.metrics()[0].clone();
            let values = Values::zeros(metric.repr, self.profile.tree.len());
            self.profile.add_metric(metric, values);
        }
    }

    /// The metric of the event being read: the last one started's, or the first metric where none was.
    pub(crate) fn event_metric(&self) -> usize {
        self.event
    }

    /// Adds `weight` to metric `metric` of the stack of `frames`, given in `order`; a stack of no
    /// frame adds nothing.
    pub(crate) fn add<I>(&mut self, order: Order, frames: I, metric: usize, weight: i64)
    where
        I: IntoIterator<Item = FrameId>,
        I::IntoIter: DoubleEndedIterator,
    {
        self.add_weights(order, frames, &[(metric, weight)]);
    }

    /// [`StackSink::add_weights`], and the stack's node (none for a stack of no frame): where a
    /// reader places when the stack was sampled.
    pub(crate) fn add_weights_at<I>(&mut self, order: Order, frames: I, weights: &[(usize, i64)]) -> Option<NodeId>
    where
        I: IntoIterator<Item = FrameId>,
        I::IntoIter: DoubleEndedIterator,
    {
        let path = self.stacks.next();
        match order {
            Order::RootFirst => path.extend(frames),
            Order::LeafFirst => path.extend(frames.into_iter().rev()),
        }
        let leaf = self.stacks.add(&mut self.profile.tree)?;
        for &(metric, weight) in weights {
            self.profile.tree.add_self(metric, leaf, Value::Int(weight));
        }
        self.any_stack = true;
        Some(leaf)
    }

    /// Adds each `(metric, weight)` of `weights` to the stack of `frames`, given in `order`, found
    /// once for all of them (a heap profile's line weighs four metrics); a stack of no frame adds
    /// nothing.
    pub(crate) fn add_weights<I>(&mut self, order: Order, frames: I, weights: &[(usize, i64)])
    where
        I: IntoIterator<Item = FrameId>,
        I::IntoIter: DoubleEndedIterator,
    {
        self.add_weights_at(order, frames, weights);
    }

    /// The node of the stack of `frames` (root first), made where the tree has none yet, with no
    /// value added: where a reader places what the stack did when (a slice of a trace). None for a
    /// stack of no frame.
    pub(crate) fn node_of(&mut self, frames: impl IntoIterator<Item = FrameId>) -> Option<NodeId> {
        self.stacks.next().extend(frames);
        self.stacks.add(&mut self.profile.tree)
    }

    /// Counts one thing left out for `reason`, of `weight`, at `at` where the warning names the
    /// first one's place.
    pub(crate) fn leave_out(&mut self, reason: &'static Reason, at: Option<Position>, weight: impl Into<i128>) {
        self.left.add(reason, at, weight);
    }

    /// The error of an input that ends, after its line or byte `at`, where `expected` should have
    /// come: the file looks cut short.
    pub(crate) fn cut_short(&self, at: Position, expected: String) -> ParseError {
        self.ends_where(at, expected, "the end of the input: the file looks cut short")
    }

    /// The error of an input that ends, after its line `at`, before `expected`, which a whole file
    /// has and one cut short may have too (the line a report's body starts after).
    pub(crate) fn ends_before(&self, at: Position, expected: String) -> ParseError {
        self.ends_where(at, expected, "the end of the input")
    }

    /// The error of an input that ends after `at` where `expected` should have come, the end
    /// said as `found`.
    pub(crate) fn ends_where(&self, at: Position, expected: String, found: &str) -> ParseError {
        let kind = ParseErrorKind::Unexpected { expected, found: found.to_string() };
        ParseError { format: self.format, position: at, kind }
    }

    /// Nothing where no stack is open; else the error of an input that ends, after its line `last`,
    /// inside the stack that starts at `open`, where `closing` should have come (`the count that
    /// ends the stack`).
    pub(crate) fn unclosed(&self, open: Option<Position>, last: Position, closing: &str) -> Result<(), ParseError> {
        match open {
            Some(start) => Err(self.cut_short(last, format!("{closing} starting at line {}", start.line.unwrap_or(0)))),
            None => Ok(()),
        }
    }

    /// The profile made, or the error of an input without a stack where `missing` says one is
    /// needed; what was left out is said once per reason, and the metrics of several events are
    /// named after them.
    pub(crate) fn finish(self, missing: Option<Missing>, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        if let (Some(missing), false) = (missing, self.any_stack) {
            let (expected, found) = (missing.expected.to_string(), missing.found.to_string());
            let kind = ParseErrorKind::Unexpected { expected, found };
            return Err(ParseError { format: self.format, position: Position::line(1, 0), kind });
        }
        self.left.warn(diag);
        let mut profile = self.profile;
        if self.events.len() > 1 {
            for (index, event) in self.events.iter().enumerate() {
                let metric = &profile.metrics()[index];
                let named = Metric { name: format!("{event} {}", metric.name), ..metric.clone() };
                let values = profile.tree.self_values(index).clone();
                profile.replace_metric(index, named, values);
            }
        }
        Ok(profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SKIPPED: Reason = Reason::new("skipped", |count, weight| format!("{count} skipped: {weight}"));

    #[test]
    fn stacks_come_in_either_order_and_what_is_left_out_is_said_once() {
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let [a, b] = [sink.frame(FrameRef::function("a")), sink.frame(FrameRef::function("b"))];
        sink.add(Order::RootFirst, [a, b], 0, 2);
        sink.add(Order::LeafFirst, [b, a], 0, 3);
        sink.leave_out(&SKIPPED, None, 4i64);
        sink.leave_out(&SKIPPED, Some(Position::line(7, 70)), 5i64);
        let mut diag = Diagnostics::default();
        let profile = sink.finish(None, &mut diag).unwrap();
        assert_eq!(profile.tree.len(), 2);
        assert_eq!(profile.total(0), Value::Int(5));
        let warnings = diag.lines(false).join("\n");
        assert!(warnings.contains("2 skipped: 9"), "{warnings}");
    }

    #[test]
    fn the_samples_of_several_events_are_a_metric_each_named_after_its_event() {
        let names = |profile: &Profile| profile.metrics().iter().map(|m| m.name.clone()).collect::<Vec<_>>();
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let a = sink.frame(FrameRef::function("a"));
        sink.start_event("cycles");
        sink.add(Order::RootFirst, [a], sink.event_metric(), 2);
        sink.start_event("instructions");
        assert_eq!(sink.event_metric(), 1);
        sink.add(Order::RootFirst, [a], sink.event_metric(), 3);
        // An event met again adds to its own metric.
        sink.start_event("cycles");
        assert_eq!(sink.event_metric(), 0);
        sink.add(Order::RootFirst, [a], sink.event_metric(), 4);
        let profile = sink.finish(None, &mut Diagnostics::default()).unwrap();
        assert_eq!(names(&profile), ["cycles samples", "instructions samples"]);
        assert_eq!((profile.total(0), profile.total(1)), (Value::Int(6), Value::Int(3)));
        // One event's samples keep the sink's name.
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        sink.start_event("cycles");
        assert_eq!(sink.event_metric(), 0);
        assert_eq!(names(&sink.finish(None, &mut Diagnostics::default()).unwrap()), ["samples"]);
    }

    #[test]
    fn an_input_without_a_stack_is_refused_where_one_is_needed() {
        let missing = || Some(Missing { expected: "a stack", found: "none" });
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        sink.add(Order::RootFirst, [], 0, 1);
        let error = sink.finish(missing(), &mut Diagnostics::default()).unwrap_err().to_string();
        assert!(error.contains("a stack") && error.contains("none"), "{error}");
        let sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        assert!(sink.finish(None, &mut Diagnostics::default()).is_ok());
    }
}
