//! Python's pstats files (`.prof`, `.pstats`), as `cProfile.Profile.dump_stats`, `python -m
//! cProfile -o FILE` and the pure-Python `profile` module write them and `pstats.Stats` reads them
//! (CPython's `Lib/cProfile.py`, `Lib/profile.py`, `Lib/pstats.py`; read only).
//!
//! ```text
//! marshal.dumps({
//!     ('work.py', 6, 'fib'): (1, 57313, 0.015, 0.015,          cc, nc, tottime, cumtime,
//!         {('work.py', 30, 'main'): (1, 1, 1e-06, 0.015),      callers: cProfile's figures
//!          ('work.py', 6, 'fib'): (57312, 2, 0.0149, 0.0149)}), of the calls from each:
//!                                                              nc, cc, tottime, cumtime
//!     ('~', 0, '<built-in method builtins.sorted>'): (5000, 5000, 0.032, 0.032, {...}),
//! })
//! ```
//!
//! **Schema**: one value of Python's `marshal` format (`Python/marshal.c`, any of its versions,
//! [`marshal`]): a dict keyed by function, `(file, line, name)`, of `(cc, nc, tt, ct, callers)`:
//! its primitive calls (not recursive), its calls, its own time (tottime) and its cumulative time
//! (cumtime, counting only its outermost calls), in seconds, and its callers, a dict keyed by the
//! same triples. cProfile gives each caller the figures of the function due to the calls from it,
//! `(nc, cc, tt, ct)` (calls first, as `Lib/cProfile.py` writes them and `pstats` prints them:
//! the other order than an entry's); the `profile` module only how often it called, `nc`. Built-ins are
//! `('~', 0, '<built-in method builtins.exec>')` in cProfile, `('', 0, 'exec')` in `profile`,
//! whose own entries are `('profile', 0, 'profiler')` and `('profile', 0, CMD)`, CMD the code
//! object of the script `python -m profile` runs.
//!
//! **Model**: a caller graph made a tree ([`super::kit::call_graph`]): roots are the functions
//! nothing calls (and those called from outside the profile for the rest); below a node standing
//! for a fraction `r` of its function's cumulative time, each callee gets `r` of the figures the
//! callee's entry records for that caller, and stands for that part of its own cumulative time.
//! Where `profile` records only counts, a caller's figures are the function's in proportion to
//! its calls (each call alike), and its cumulative time in proportion to its calls from other
//! functions: that time counts only outermost calls, which a call from the function itself never
//! is ([`counted_call`]). A call back into a function on the path is not expanded: what it
//! recorded is in the function's other nodes. Each function's own figures are exact, shared out
//! among its nodes: `time` (tottime, µs, floats), `calls` (ncalls) and `primitive-calls` (its
//! primitive count), the last two per node; so `proftool summary` gives each function pstats'
//! tottime, ncalls and (for a function that does not recurse) cumtime. Frames are named as
//! `pstats` prints them (`work.py:6(fib)`, `{built-in method builtins.exec}`, `:0(exec)`), with
//! their file and line ([`super::kit::source_frame`]); a code object as its `repr` without its
//! address. The profile is weighed by time. A caller of no figures ran no call in the profile:
//! its calls are from outside it, and it has no node (`profile:0(profiler)`, all zeros, which
//! `profile` names as the caller of the script's code: as a root above the rest, of no time, it
//! made the profile's total 0).
//!
//! **Errors**: marshal data cut short, of an unknown type, nested past CPython's limit, or a ref
//! to nothing, at its byte; a value other than the stats' dict, a key not a `(file, line, name)`,
//! an entry not `(cc, nc, tt, ct, callers)`, at the byte of the value. A graph that would expand
//! into more than `--max-graph-nodes` nodes.
//!
//! **Lost**: the order of the entries, which caller's figures were stated (cProfile) or assumed
//! (`profile`): stacks are shares.

mod marshal;

use super::kit::call_graph::{CallGraph, Layout, TooManyNodes, Unexpanded};
use super::kit::source_frame::{Anonymous, SourceFrame};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use marshal::{Value, Values};
use rustc_hash::FxHashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "pstats",
    description: "Python pstats (`cProfile`/`profile` `-o FILE`, `dump_stats`), as `pstats.Stats` reads it",
    extensions: &["pstats"],
    carries: Carries::STACKS_OF_SAMPLES
        .as_graph()
        .weighing(&[MetricKind::Time, MetricKind::Calls])
        .with_source_lines()
        .with_modules(),
    reads: Some(Reads::binary(sniff, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// Whether `head` is a marshalled dict whose first key is a tuple of three, the first a string.
fn sniff(head: &[u8]) -> Sniff {
    let kind = |i: usize| head.get(i).map(|&b| b & 0x7f);
    let key = match (kind(0), kind(1)) {
        (Some(b'{'), Some(b')')) if head.get(2) == Some(&3) => 3,
        (Some(b'{'), Some(b'(')) if head.get(2..6) == Some(&[3, 0, 0, 0]) => 6,
        _ => return Sniff::No,
    };
    Sniff::yes_if(matches!(kind(key), Some(b's' | b't' | b'u' | b'a' | b'A' | b'z' | b'Z' | b'R' | b'r')))
}

/// Seconds in the profile's unit of time.
const MICROS: f64 = 1e6;

/// The figures of a function or a call, in the order of [`metrics`]: time (µs), calls, primitive
/// calls.
type Figures = [f64; 3];

fn metrics() -> Vec<Metric> {
    // Deterministic profilers: every call is timed, no sample is drawn.
    let time = Metric::time(Unit::Microseconds, Repr::Float).sampled(Sampling::Measured);
    vec![time, Metric::entries("calls"), Metric::entries("primitive-calls")]
}

/// The error of `kind` at byte `at`.
fn error(at: usize, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
    ParseError {
        format: FORMAT,
        position: Position::byte(at as u64),
        kind: ParseErrorKind::Unexpected { expected: expected.into(), found: found.into() },
    }
}

fn read(input: &mut (dyn Read + Send), options: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = super::json::read_all(input, FORMAT)?;
    if bytes.is_empty() {
        return Err(error(0, "a marshalled dict of functions (pstats)", "nothing: the input is empty"));
    }
    let (values, root) = marshal::decode(&bytes).map_err(|e| error(e.at, e.expected, e.found))?;
    let mut stats = Stats::new(&values);
    stats.read(root)?;
    let Stats { names, graph, calls, counts_only, .. } = stats;
    // The decoded values are done with (names point into the input): their memory is given back
    // before the tree takes its own.
    drop(values);
    let mut profile = Profile::new(metrics());
    profile.meta.weighed_by = Some(MetricKind::Time);
    let frames: Vec<FrameId> = names.iter().map(|name| name.intern(&mut profile)).collect();
    let max_nodes = match options.max_graph_nodes {
        0 => crate::files::DEFAULT_MAX_GRAPH_NODES,
        given => given,
    };
    let layout = Layout { metrics: [0, 1, 2], whole: [false, true, true], inclusive: Some(0) };
    let built = graph.build(&mut profile, &frames, layout, max_nodes);
    let unexpanded = built.map_err(|TooManyNodes| {
        error(
            bytes.len(),
            format!("a call graph that expands into a tree of at most {max_nodes} nodes (--max-graph-nodes N raises the limit)"),
            format!("a graph of {} functions and {calls} calls that expands into more", names.len()),
        )
    })?;
    say_apportioned(&unexpanded, counts_only, calls, diag);
    Ok(profile)
}

/// Says once that the tree is apportioned from a caller graph, and what was not expanded.
fn say_apportioned(unexpanded: &Unexpanded, counts_only: bool, calls: usize, diag: &mut Diagnostics) {
    if calls == 0 {
        return;
    }
    diag.warn("pstats-graph", None, || {
        let mut text = "pstats holds a caller graph, not a tree: each function's figures are shared among its paths by what each caller's calls account for".to_string();
        if counts_only {
            text += " (the profile module records only how often each caller called: its figures are shared by those counts, each call alike)";
        }
        text += "; the stacks are shares, not measured; each function's own time and calls are the file's exactly";
        text += &unexpanded.said("below a millionth of the total", "their figures being in their functions' other stacks");
        text
    });
}

/// A function as pstats names it: `(file, line, name)`, as bytes of the input.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Name<'v> {
    file: &'v [u8],
    line: i64,
    name: FunctionName<'v>,
}

/// The name of a key: a string, or (`python -m profile`'s) a code object's name, file and line.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FunctionName<'v> {
    Text(&'v [u8]),
    Code { name: &'v [u8], file: &'v [u8], line: i32 },
}

impl Name<'_> {
    /// Its frame: named as `pstats.func_std_string` prints it (a code object as its `repr`
    /// without its address), with its file and line where it has them (a built-in has neither).
    fn intern(&self, profile: &mut Profile) -> FrameId {
        use std::borrow::Cow;
        // Borrowed where the bytes are UTF-8, as they are but in a Python 2 file of Latin-1
        // names: most frames cost the one string of their printed name.
        let text = |bytes| String::from_utf8_lossy(bytes);
        let name = match self.name {
            FunctionName::Text(name) => text(name),
            FunctionName::Code { name, file, line } => {
                Cow::Owned(format!("<code object {}, file \"{}\", line {line}>", text(name), text(file)))
            }
        };
        let file = text(self.file);
        let printed = match (&*file, self.line) {
            ("~", 0) => match name.strip_prefix('<').and_then(|n| n.strip_suffix('>')) {
                Some(inner) => format!("{{{inner}}}"),
                None => name.into_owned(),
            },
            (file, line) => format!("{file}:{line}({name})"),
        };
        let known = !matches!(&*file, "~" | "");
        let source = SourceFrame {
            name: &printed,
            file: known.then_some(&*file),
            line: u64::try_from(self.line).ok().filter(|&line| known && line > 0),
            column: None,
        };
        source.intern(profile, Anonymous::AsWritten)
    }
}

/// The stats dict read into a graph.
struct Stats<'s, 'v> {
    values: &'s Values<'v>,
    names: Vec<Name<'v>>,
    /// Functions by the value of their key, and by its content (a key written twice)
    /// (`u32::MAX` for a value that is no key read yet), a dense table: a lookup a call.
    by_value: Vec<u32>,
    by_name: FxHashMap<Name<'v>, u32>,
    /// Each function's figures, cumulative time and entry (its callers), as read.
    entries: Vec<Option<(Figures, f64, u32)>>,
    graph: CallGraph<3>,
    calls: usize,
    counts_only: bool,
}

impl<'s, 'v> Stats<'s, 'v> {
    fn new(values: &'s Values<'v>) -> Stats<'s, 'v> {
        Stats {
            values,
            names: Vec::new(),
            by_value: vec![u32::MAX; values.len()],
            by_name: FxHashMap::default(),
            entries: Vec::new(),
            graph: CallGraph::new(),
            calls: 0,
            counts_only: false,
        }
    }

    /// Where a value starts in the input, for errors.
    fn at(&self, value: u32) -> usize {
        self.values.offset(value)
    }

    /// Reads the stats dict: every function, then every call.
    fn read(&mut self, root: u32) -> Result<(), ParseError> {
        let Value::Dict(start, len) = self.values.get(root) else {
            return Err(error(0, "a dict of functions (pstats' stats)", describe(self.values.get(root))));
        };
        let pairs = self.values.items(start, len);
        let functions = pairs.len() / 2;
        self.names.reserve(functions);
        self.entries.reserve(functions);
        self.by_name.reserve(functions);
        for pair in pairs.chunks_exact(2) {
            let function = self.function(pair[0])?;
            let entry = self.entry(pair[1])?;
            self.entries[function as usize] = Some(entry);
        }
        // Every caller named, before the graph is made of the functions: a caller need not have
        // an entry of its own.
        let entries: Vec<(u32, (Figures, f64, u32))> =
            self.entries.iter().enumerate().filter_map(|(f, e)| Some((f as u32, (*e)?))).collect();
        for &(_, (_, _, callers)) in &entries {
            if let Value::Dict(start, len) = self.values.get(callers) {
                for pair in self.values.items(start, len).chunks_exact(2) {
                    self.function(pair[0])?;
                }
            }
        }
        for entry in &self.entries {
            let (own, inclusive) = entry.map_or(([0.0; 3], 0.0), |(own, inclusive, _)| (own, inclusive));
            self.graph.function(own, inclusive);
        }
        for &(callee, (own, inclusive, callers)) in &entries {
            self.callers(callee, (own, inclusive), callers)?;
        }
        Ok(())
    }

    /// The function a key names: `(file, line, name)`.
    fn function(&mut self, key: u32) -> Result<u32, ParseError> {
        if let Some(&function) = self.by_value.get(key as usize).filter(|&&f| f != u32::MAX) {
            return Ok(function);
        }
        let expected = "a function's key, (file, line, name)";
        let found = match self.values.get(key) {
            Value::Tuple(start, 3) => {
                let items = self.values.items(start, 3);
                match (self.values.get(items[0]), self.values.get(items[1]), self.name(items[2])) {
                    (Value::Str(at, len), Value::Int(line), Some(name)) => {
                        Some(Name { file: self.values.bytes(at, len), line, name })
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(name) = found else {
            return Err(error(self.at(key), expected, describe(self.values.get(key))));
        };
        let next = self.names.len() as u32;
        let function = *self.by_name.entry(name).or_insert(next);
        if function == next {
            self.names.push(name);
            self.entries.push(None);
        }
        self.by_value[key as usize] = function;
        Ok(function)
    }

    /// A function's name: a string, or a code object's.
    fn name(&self, value: u32) -> Option<FunctionName<'v>> {
        let text = |v: u32| match self.values.get(v) {
            Value::Str(start, len) => Some(self.values.bytes(start, len)),
            _ => None,
        };
        match self.values.get(value) {
            Value::Str(..) => text(value).map(FunctionName::Text),
            Value::Code { name, file, line } => Some(FunctionName::Code { name: text(name)?, file: text(file)?, line }),
            _ => None,
        }
    }

    /// An entry, `(cc, nc, tt, ct, callers)`: its figures, cumulative time and callers' dict.
    fn entry(&self, value: u32) -> Result<(Figures, f64, u32), ParseError> {
        let expected = "a function's figures, (cc, nc, tt, ct, callers)";
        let Value::Tuple(start, 5) = self.values.get(value) else {
            return Err(error(self.at(value), expected, describe(self.values.get(value))));
        };
        let items = self.values.items(start, 5);
        let numbers: [Option<f64>; 4] = std::array::from_fn(|i| number(self.values.get(items[i])));
        match (numbers, self.values.get(items[4])) {
            ([Some(cc), Some(nc), Some(tt), Some(ct)], Value::Dict(..)) => {
                Ok(([tt * MICROS, nc, cc], ct * MICROS, items[4]))
            }
            _ => Err(error(self.at(value), expected, "other values (or a figure that is negative or not finite)")),
        }
    }

    /// The calls of `callee` from each of its callers: cProfile's `(nc, cc, tt, ct)`, or the
    /// `profile` module's count ([`counted_call`]). A caller of no figures ran no call in the
    /// profile ([`Stats::has_figures`]): its calls are from outside it, the callee a root for them.
    fn callers(&mut self, callee: u32, (own, inclusive): (Figures, f64), callers: u32) -> Result<(), ParseError> {
        let Value::Dict(start, len) = self.values.get(callers) else { return Ok(()) };
        let pairs = self.values.items(start, len);
        let mut counted_from_others = 0.0;
        for pair in pairs.chunks_exact(2) {
            let caller = self.function(pair[0])?;
            if let Call::Counted(nc) = self.call(pair[1])? {
                if caller != callee && self.has_figures(caller) {
                    counted_from_others += nc;
                }
            }
        }
        for pair in pairs.chunks_exact(2) {
            let caller = self.function(pair[0])?;
            if !self.has_figures(caller) {
                continue;
            }
            let (figures, call_inclusive) = match self.call(pair[1])? {
                Call::Measured(figures, call_inclusive) => (figures, call_inclusive),
                Call::Counted(nc) => {
                    self.counts_only = true;
                    counted_call(nc, caller == callee, (own, inclusive), counted_from_others)
                }
            };
            self.graph.call(caller, callee, figures, call_inclusive);
            self.calls += 1;
        }
        Ok(())
    }

    /// What a caller's value says of its calls: cProfile's figures, or `profile`'s count.
    fn call(&self, value: u32) -> Result<Call, ParseError> {
        match self.values.get(value) {
            Value::Tuple(start, 4) => {
                let items = self.values.items(start, 4);
                let n: [Option<f64>; 4] = std::array::from_fn(|i| number(self.values.get(items[i])));
                match n {
                    [Some(nc), Some(cc), Some(tt), Some(ct)] => Ok(Call::Measured([tt * MICROS, nc, cc], ct * MICROS)),
                    _ => {
                        let found = "other values (or a figure that is negative or not finite)";
                        Err(error(self.at(value), "a caller's figures, (nc, cc, tt, ct)", found))
                    }
                }
            }
            Value::Int(nc) if nc >= 0 => Ok(Call::Counted(nc as f64)),
            other => Err(error(self.at(value), "a caller's figures, (nc, cc, tt, ct) or a count", describe(other))),
        }
    }

    /// Whether a function has figures: an entry of some calls or time. One of none ran no call in
    /// the profile: `profile`'s `profile:0(profiler)`, all zeros, which it names as the caller of
    /// the script's code, or a caller of no entry.
    fn has_figures(&self, function: u32) -> bool {
        self.entries[function as usize].is_some_and(|(own, inclusive, _)| inclusive > 0.0 || own.iter().any(|&f| f > 0.0))
    }
}

/// A caller's calls of a function, as its entry's callers' dict gives them.
enum Call {
    /// cProfile's: the callee's figures due to the caller, and its cumulative time.
    Measured(Figures, f64),
    /// The `profile` module's: how many calls.
    Counted(f64),
}

/// The figures of `nc` of the `profile` module's calls of a function of `own` figures and
/// `inclusive` (cumulative) time, `recursive` if from the function itself, `from_others` of its
/// calls from other functions: its own figures in proportion to its calls (each call alike); its
/// cumulative time to its calls from others alone, since that time counts only its outermost
/// calls, which a call from itself never is (cProfile's figures of a caller give it all the same
/// way). Shared by all its calls, that time made a function called from itself a root for the
/// part its calls from itself stood for.
fn counted_call(nc: f64, recursive: bool, (own, inclusive): (Figures, f64), from_others: f64) -> (Figures, f64) {
    let part = if own[1] > 0.0 { nc / own[1] } else { 0.0 };
    let inclusive_part = if recursive || from_others <= 0.0 { 0.0 } else { nc / from_others };
    ([own[0] * part, nc, own[2] * part], inclusive * inclusive_part)
}

/// A number of an entry: an int or a float, a count or a time, so finite and not negative.
fn number(value: Value) -> Option<f64> {
    let number = match value {
        Value::Int(int) => int as f64,
        Value::Float(float) => float,
        Value::Bool(b) => f64::from(u8::from(b)),
        _ => return None,
    };
    Some(number).filter(|n| n.is_finite() && *n >= 0.0)
}

/// What a value is, for errors.
fn describe(value: Value) -> String {
    match value {
        Value::None => "None".into(),
        Value::Bool(b) => if b { "True" } else { "False" }.into(),
        Value::Int(int) => format!("the int {int}"),
        Value::Float(float) => format!("the float {float}"),
        Value::Str(_, len) => format!("a string of {len} bytes"),
        Value::Tuple(_, len) => format!("a tuple of {len}"),
        Value::Dict(_, len) => format!("a dict of {}", len / 2),
        Value::Code { .. } => "a code object".into(),
        Value::Open => "a value".into(),
    }
}
