//! The format contract: what every format module states about itself, in one [`Spec`].
//!
//! A format is its module; the module names itself, says what it is (name, description, file
//! extensions, what it [`Carries`], from a preset and what differs from it), and states two halves:
//! what proftool reads of it ([`Reads`]: how an input is told to be of it, its [`Encoding`] and its
//! sniffer, and its [`Reader`]) and what it writes ([`Writes`]: its [`Writer`], the [`Rules`] of
//! a conversion to it, those that differ from [`STACKS_ONLY`]'s, and its [`Differential`] writer of
//! a comparison where its tools read one). Each half is `None` where
//! proftool does not read or write the format, so a format read only states no rules and a format
//! written only no sniffer. Reader and writer have one signature for every format: a module adapts
//! its own to them. The registry (`Format`, in `formats/mod.rs`) forwards to a format's `SPEC` with one line
//! per format; detection ([`super::detect`]) asks the contract, not a list of formats. This module
//! sits below the format modules: it names none of them, and none of them imports the registry.

use super::options::{ConvertOptions, ReadOptions};
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError};
use crate::model::{FrameRef, MetricKind, Profile, Unit};
use std::io;

/// Everything a format states about itself (its module's `SPEC`): what it is, then its two halves,
/// what proftool reads of it and what it writes, each `None` where proftool does not do that.
pub struct Spec {
    /// The kebab-case name used by `--from`/`--to`, fixture folders and messages.
    pub name: &'static str,
    /// What the format is, in a line of Markdown: the README's formats table is made from it
    /// (tests/doc_tables.rs).
    pub description: &'static str,
    /// File extensions, without the dot, longest first where one ends another.
    pub extensions: &'static [&'static str],
    /// What a file of the format can hold: the formats table's column, and for a format proftool
    /// writes, what a conversion to it projects onto. Built from a preset ([`Carries::STACKS_OF_SAMPLES`],
    /// [`Carries::TREE_OF_SAMPLES`]) and what differs from it; a format proftool only reads takes the
    /// facts only a conversion asks (`name_replacements`, `time_unit`, …) from its preset unread.
    pub carries: Carries,
    /// The read half: how an input is told to be of it and read; `None` for a format proftool only
    /// writes.
    pub reads: Option<Reads>,
    /// The write half: its writer and the rules of a conversion to it; `None` for a format proftool
    /// only reads.
    pub writes: Option<Writes>,
}

impl Spec {
    /// The format's name as errors carry it.
    pub const fn format_name(&self) -> FormatName {
        FormatName(self.name)
    }
}

/// What a format proftool reads states: how its files are read and told apart, and its reader.
pub struct Reads {
    /// How its files are read (as text, as bytes, or as JSON of its own kind) and told apart.
    pub encoding: Encoding,
    /// Its reader, adapted to the one signature every format has.
    pub read: Reader,
}

impl Reads {
    /// A text format's read half.
    pub const fn text(sniff: Sniffer, read: Reader) -> Reads {
        Reads { encoding: Encoding::Text(sniff), read }
    }

    /// A binary format's read half.
    pub const fn binary(sniff: Sniffer, read: Reader) -> Reads {
        Reads { encoding: Encoding::Binary(sniff), read }
    }

    /// A JSON format's read half.
    pub const fn json(kind: JsonKind, read: Reader) -> Reads {
        Reads { encoding: Encoding::Json(kind), read }
    }
}

/// What a format proftool writes states: its writer and what a conversion to it does besides
/// fitting a profile to what it carries.
pub struct Writes {
    /// Its writer, adapted to the one signature every format has.
    pub write: Writer,
    /// What a conversion to it does besides fitting a profile to what it carries.
    pub rules: Rules,
    /// How it writes a comparison of two profiles (`diff --to`), where its tools read one.
    pub differential: Option<Differential>,
}

impl Writes {
    /// A write half with no writer of a comparison: `diff --to` does not write the format.
    pub const fn new(write: Writer, rules: Rules) -> Writes {
        Writes { write, rules, differential: None }
    }
}

/// A format's writer of a comparison (`diff --to FORMAT`), by what it is written from: `diff`
/// matches and judges the two sides and hands them over in that form.
pub enum Differential {
    /// From every stack of either side with its count in each, the lines `inferno-diff-folded`
    /// writes from their folded stacks (`stack base new`), sorted.
    TwoCountLines(fn(&str, &Compared<'_>, &mut dyn io::Write) -> Result<(), Error>),
    /// From the two profiles, BASE's and NEW's, each with the compared metric alone (metric 0),
    /// BASE's in NEW's unit, and projected onto the format where `projected`.
    Sides { projected: bool, write: SidesWriter },
}

/// A differential writer from the two sides ([`Differential::Sides`]).
pub type SidesWriter =
    fn((&Profile, &Profile), &Compared<'_>, &mut dyn io::Write, &ConvertOptions, &mut Diagnostics) -> Result<(), Error>;

/// What a differential writer is told of a comparison besides the sides.
pub struct Compared<'a> {
    /// The sides' names (their files).
    pub labels: (&'a str, &'a str),
    /// Widths drawn from BASE rather than NEW (`--negate`), for a graph of widths.
    pub negate: bool,
    /// Whether the gate found a function past the limits.
    pub regression: bool,
    /// Every function as the gate judged it, largest change first.
    pub judged: &'a [Judged<'a>],
}

/// A function as the gate judged it.
pub struct Judged<'a> {
    /// The function (or line), as the reports name it.
    pub name: &'a str,
    /// `new`, `gone`, `root`, `pseudo`, or empty.
    pub status: &'a str,
    /// Its share of BASE and of NEW, in percent.
    pub shares: (f64, f64),
    /// The p-value of the test that judged it, where one did.
    pub p: Option<f64>,
    /// `failed`, `inconclusive`, `not clear`, `not gated` or `passed`.
    pub outcome: &'a str,
}

/// How a format reads a whole input into a profile, given every reading option.
pub type Reader = fn(&mut (dyn io::Read + Send), &ReadOptions, &mut Diagnostics) -> Result<Profile, ParseError>;

/// A format's last step of fitting a projected profile ([`Rules::fit`]).
pub type Fit = fn(Profile, &ConvertOptions, &mut Diagnostics) -> Profile;

/// How a format writes a profile already fitted to it.
pub type Writer = fn(&Profile, Writing<'_>) -> Result<(), Error>;

/// What a writer writes with: where to, every conversion option, and where its warnings go.
pub struct Writing<'a> {
    /// The output.
    pub out: &'a mut dyn io::Write,
    /// The conversion's options (a format's own in `options.formats`).
    pub options: &'a ConvertOptions,
    /// Where warnings go.
    pub diag: &'a mut Diagnostics,
}

impl<'a> Writing<'a> {
    /// Writing to `out` with `options`, warnings to `diag`.
    pub fn new(out: &'a mut dyn io::Write, options: &'a ConvertOptions, diag: &'a mut Diagnostics) -> Writing<'a> {
        Writing { out, options, diag }
    }
}

/// What a text or binary format makes of an input's first bytes (a text format gets them as its
/// reader does: UTF-8 without a byte-order mark, LF line endings).
pub type Sniffer = fn(&[u8]) -> Sniff;

/// How a format's files are read, so that detection treats them as such, and how an input is told
/// to be of it.
#[derive(Clone, Copy)]
pub enum Encoding {
    /// Text: a leading UTF-8 byte-order mark (which Windows editors and Excel write) is not part of
    /// its content and is dropped before it is sniffed and read, and UTF-16 with a mark
    /// (PowerShell's `>`) is decoded.
    Text(Sniffer),
    /// Bytes, read as they are, so that one that happens to start with a byte-order mark's bytes
    /// keeps them (a Sampler file's header is text, its records are not).
    Binary(Sniffer),
    /// JSON, read as text and told apart from other JSON by its keys: its check is its sniffer.
    Json(JsonKind),
}

impl Encoding {
    /// Whether a file is read as text ([`Encoding::Text`] or [`Encoding::Json`]).
    pub fn is_text(self) -> bool {
        !matches!(self, Encoding::Binary(_))
    }

    /// What the format makes of an input's first bytes: its sniffer's answer, or for JSON `Yes`
    /// when its check passes and `No` when it finds why not.
    pub fn sniff(&self, head: &[u8]) -> Sniff {
        match self {
            Encoding::Text(sniff) | Encoding::Binary(sniff) => sniff(head),
            Encoding::Json(kind) => Sniff::of_check((kind.check)(head)),
        }
    }
}

/// How a JSON format is told apart from other JSON.
#[derive(Clone, Copy)]
pub struct JsonKind {
    /// What its files are, in a sentence ("speedscope JSON").
    pub what: &'static str,
    /// What is said after its name where the JSON formats are listed (" (V8's)"), or nothing.
    pub aside: &'static str,
    /// Its check of an input's first bytes, which says why not when they are not of it.
    pub check: fn(&[u8]) -> Result<(), &'static str>,
}

/// The rules a conversion to a format follows besides fitting a profile to what it carries. A format
/// it writes states those in which it differs from [`STACKS_ONLY`] (`Rules { fit, ..STACKS_ONLY }`):
/// a new format reads this list to decide each.
pub struct Rules {
    /// The format's own last step of fitting a profile projected onto what it carries (Dyalog: a
    /// tree report's alternating rows; BR: time records as `--br-mode` says; pprof: no line 0;
    /// LispWorks: one root); [`as_projected`] where it has none.
    pub fit: Fit,
    /// The format's own fitting of a profile's roots once frames are fitted (Sampler: every stack
    /// in a thread); [`roots_as_they_are`] where it has none.
    pub fit_roots: fn(&mut Profile),
    /// Whether a file can say which of its metrics a profile is weighed by (pprof's default sample
    /// type, speedscope's profile shown first, BR's timed files). A format holding one metric only
    /// says so by holding it; a file of any other (GHC's -px, Dyalog's reports) is weighed as its
    /// own tool weighs it, and the source's choice is lost.
    pub says_which_metric_comes_first: bool,
    /// The facts named for no format (or for another) that it writes beside its own (`format.…`):
    /// where a function is defined ([`crate::model::DEFINED_AT`]) for the formats with a file and
    /// line per function, the facts pprof and OTLP state alike
    /// ([`super::kit::sample_types::PROFILE_FACTS`]).
    pub keeps_facts: &'static [&'static str],
    /// Whether it writes what a profiler's own report says about itself
    /// ([`crate::model::ReportFacts`]: its kind, percentages and derived columns), as Dyalog's
    /// reports do.
    pub keeps_report: bool,
    /// Whether it writes the timer's cost per inspection ([`crate::model::ReportFacts::timer_cost`]),
    /// as Dyalog's XML settings do.
    pub keeps_timer_cost: bool,
    /// Whether its frame module is a namespace that is part of the code's name (a GHC module), so
    /// that a frame of such a profile reads `Module.label` wherever one name is written.
    pub module_is_namespace: bool,
    /// Whether it stores inclusive values as measured (Dyalog's InclusiveTime and InclusiveTicks);
    /// other formats derive them from self values.
    pub keeps_measured_inclusive: bool,
    /// The frame it puts above several roots (GHC's `MAIN`), if it has one root of its own.
    pub single_root: Option<fn() -> FrameRef<'static>>,
    /// Whether a node of it is one chain of callers, a node per frame under each caller (as its
    /// reader builds them: V8's `.cpuprofile`, Firefox's stack table): the conversion step merges
    /// siblings of one frame before the format's own [`Rules::fit`].
    pub merges_siblings: bool,
    /// The name its header and frame facts are named under where that is not its own: the facts
    /// of OTLP/JSON are OTLP's (`otlp.resource.…`), read and written alike by either encoding.
    pub facts_named_as: Option<&'static str>,
    /// What its file of no stack would be, where its readers take none (`folded stacks of none are
    /// an empty file`): the conversion refuses a profile of no stack (a recording of no sample),
    /// saying so; `None` where an empty profile has a file of its own.
    pub no_stack_file: Option<&'static str>,
}

/// The rules of a format that holds stacks and their weights and nothing more of a profile (folded
/// stacks, `perf script`, a flame graph): nothing to fit, roots as they are, no header facts shared
/// by name, no namespaces, no measured inclusive values, any number of roots: the preset a format's
/// rules state their differences from. It is also what the registry answers for a format proftool
/// does not write, which no conversion goes to.
pub const STACKS_ONLY: Rules = Rules {
    fit: as_projected,
    fit_roots: roots_as_they_are,
    says_which_metric_comes_first: false,
    keeps_facts: &[],
    keeps_report: false,
    keeps_timer_cost: false,
    module_is_namespace: false,
    keeps_measured_inclusive: false,
    single_root: None,
    merges_siblings: false,
    facts_named_as: None,
    no_stack_file: None,
};

/// The [`Rules::fit`] of a format with no last step of its own.
pub fn as_projected(profile: Profile, _: &ConvertOptions, _: &mut Diagnostics) -> Profile {
    profile
}

/// The [`Rules::fit_roots`] of a format with no rule for roots.
pub fn roots_as_they_are(_: &mut Profile) {}

/// How sure a sniffer is that an input's first bytes are its format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniff {
    /// The format's signature is there.
    Yes,
    /// Nothing contradicts the format, but it has no signature to find.
    Maybe,
    /// It is not this format.
    No,
}

impl Sniff {
    /// `Yes` where a format's signature is found (`found`), else `No`.
    pub(crate) fn yes_if(found: bool) -> Sniff {
        match found {
            true => Sniff::Yes,
            false => Sniff::No,
        }
    }

    /// What a JSON format's check of an input's first bytes says: `Yes` when it passed, `No` when it
    /// found why not (which [`super::detect`] gives when no JSON format takes an input).
    pub(crate) fn of_check(check: Result<(), &str>) -> Sniff {
        match check {
            Ok(()) => Sniff::Yes,
            Err(_) => Sniff::No,
        }
    }
}

/// The shape of the call structure a format stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// A tree of nodes with values.
    Tree,
    /// Whole stacks with a weight each.
    Stacks,
    /// A call graph: each function once, with its own costs and its calls' inclusive costs
    /// (callgrind). A tree written so comes back as the tree its graph apportions to: each
    /// function's own total is kept, not which stacks it was in.
    Graph,
}

/// What a format can hold, as the "carries" column of docs/formats.md says it. The conversion step uses it to
/// project a profile onto a target and to name, on stderr, everything the target cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carries {
    /// Call structure.
    pub structure: Structure,
    /// Threads or processes as frames.
    pub threads: bool,
    /// Whether threads are roots of their own in the format (a Sampler thread block, a Chrome
    /// trace's thread, a speedscope profile). With `frame_kinds` false, roots keep their thread kind
    /// and only frames below them become functions; what becomes of roots that are not threads is
    /// the format's own rule (Sampler puts them under one thread).
    pub thread_roots: bool,
    /// Whether a frame says what kind it is (thread, pseudo-frame, function); without it every frame
    /// reads back as a function.
    pub frame_kinds: bool,
    /// The metric kinds a file of the format holds, in the order they are written.
    pub metrics: &'static [MetricKind],
    /// Whether it holds only one number per node (then only one metric is written).
    pub one_metric: bool,
    /// Per-function counts (calls, seen, top).
    pub function_facts: bool,
    /// Source line numbers of frames.
    pub source_lines: bool,
    /// A module, library or file per frame.
    pub modules: bool,
    /// Header facts: a title.
    pub title: bool,
    /// Header facts: a timestamp.
    pub timestamp: bool,
    /// Header facts: a sampling interval.
    pub interval: bool,
    /// The step it states its interval in, where that is coarser than a nanosecond (GHC's `-px`
    /// header: whole milliseconds): time is divided into counts at an interval it can state, so
    /// that its counts and its header agree.
    pub interval_step: Option<std::time::Duration>,
    /// Characters a frame name cannot hold in this format, each with what is written instead.
    pub name_replacements: &'static [(char, char)],
    /// Whether a line frame sits below a frame of its own function (Dyalog's line rows) rather than
    /// in its place (BR's stacks of lines).
    pub lines_nest: bool,
    /// The unit it writes times in, where it writes them as such (time metrics are converted to it).
    pub time_unit: Option<Unit>,
    /// Whether it holds flat reports (rows without call structure, [`crate::model::Meta::flat`]) as
    /// such; other formats get their rows as one-function stacks, and say so.
    pub flat_reports: bool,
    /// Whether it is made of one record per sample (BR's groups), so that a profile without a
    /// samples metric gets one from its time or ticks.
    pub needs_samples: bool,
    /// Whether each of its files holds time beside its counts (a `.cpuprofile`'s time deltas beside
    /// its samples), so that a profile without time gets its counts' time at the interval, and time
    /// that weighs other events than its samples is dropped.
    pub needs_time: bool,
    /// Whether the number it weighs stacks by is time: samples, ticks or time
    /// ([`MetricKind::measures_time`]), as in a Sampler, LispWorks, Dyalog, BR or GHC file, rather
    /// than any count (folded stacks of bytes, pprof's sample types). A count of other things is
    /// written there only when `--metric` names it, with a warning.
    pub weight_is_time: bool,
    /// Whether its writer keeps a profile's [`crate::model::Timeline`]: each sample at the time it
    /// was taken (a `.cpuprofile`'s samples and deltas, the Firefox Profiler's sample times); other
    /// targets get the samples laid out by the tree, and a conversion says the order is lost.
    pub timeline: bool,
    /// Whether its writer keeps the slices of a traced profile's timeline (Chrome's trace events,
    /// speedscope's evented profiles) at their times.
    pub slices: bool,
}

impl Carries {
    /// Stacks weighed by one count of samples and nothing more: no threads, frame kinds, source
    /// lines, modules or header facts, names written as they are (bpftrace's and DTrace's maps). The
    /// preset a format of stacks states its differences from.
    pub const STACKS_OF_SAMPLES: Carries = Carries {
        structure: Structure::Stacks,
        threads: false,
        thread_roots: false,
        frame_kinds: false,
        metrics: &[MetricKind::Samples],
        one_metric: true,
        function_facts: false,
        source_lines: false,
        modules: false,
        title: false,
        timestamp: false,
        interval: false,
        interval_step: None,
        name_replacements: &[],
        lines_nest: false,
        time_unit: None,
        flat_reports: false,
        needs_samples: false,
        needs_time: false,
        weight_is_time: false,
        timeline: false,
        slices: false,
    };

    /// Stacks of source frames (modules and lines) in threads, titled, weighed by any count a
    /// sampling profiler keeps (the kinds a profile is weighed by first, but calls and timer
    /// inspections): the preset of speedscope's and pprof's files.
    pub const STACKS_OF_ANY_COUNT: Carries = Carries {
        threads: true,
        metrics: MetricKind::PREFERENCE.split_at(6).0,
        one_metric: false,
        source_lines: true,
        modules: true,
        title: true,
        ..Carries::STACKS_OF_SAMPLES
    };

    /// [`Carries::STACKS_OF_SAMPLES`] as a call tree: the preset a format of trees states its
    /// differences from.
    pub const TREE_OF_SAMPLES: Carries = Carries::STACKS_OF_SAMPLES.as_tree();

    /// [`Carries::STACKS_OF_SAMPLES`] of each thread apart, each thread a root (a sampling
    /// profiler's recording: Sampler, JFR, simpleperf, Perfetto, Gecko): the preset they state
    /// their differences from.
    pub const SAMPLES_PER_THREAD: Carries = Carries::STACKS_OF_SAMPLES.per_thread();

    /// Lines of folded stacks (`thread;a;b 3`), whose names hold no `;` and no line break: folded
    /// stacks, and the flame graphs inferno draws from them.
    pub const FOLDED_LINES: Carries = Carries {
        threads: true,
        name_replacements: &[(';', ','), ('\n', ' '), ('\r', ' ')],
        ..Carries::STACKS_OF_SAMPLES
    };

    /// These carries with threads, each the root of its stacks (a sampling profiler's recording).
    pub const fn per_thread(self) -> Carries {
        Carries { threads: true, thread_roots: true, ..self }
    }

    /// These carries as a call tree.
    pub const fn as_tree(self) -> Carries {
        Carries { structure: Structure::Tree, ..self }
    }

    /// These carries as a call graph.
    pub const fn as_graph(self) -> Carries {
        Carries { structure: Structure::Graph, ..self }
    }

    /// These carries weighing metrics of `metrics` kinds, in the order a format prefers them; one
    /// number per node no longer where there are several.
    pub const fn weighing(self, metrics: &'static [MetricKind]) -> Carries {
        Carries { metrics, one_metric: self.one_metric && metrics.len() == 1, ..self }
    }

    /// A short description for `proftool formats` and the README.
    pub fn describe(&self) -> String {
        let mut parts: Vec<&str> = vec![match self.structure {
            Structure::Tree => "call tree",
            Structure::Stacks => "stacks",
            Structure::Graph => "call graph",
        }];
        parts.extend(self.metrics.iter().map(|m| m.name()));
        let flags = [
            (self.one_metric, "(one number per node)"),
            (self.threads, "threads"),
            (self.function_facts, "per-function calls/seen/top"),
            (self.source_lines, "line numbers"),
            (self.modules, "modules"),
            (self.title, "title"),
            (self.timestamp, "timestamp"),
            (self.interval, "interval"),
            (self.timeline || self.slices, "time order"),
        ];
        parts.extend(flags.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
        parts.join(", ")
    }
}

/// `Carries` setters that each turn one fact on (`with_modules()`: modules too), for building a
/// format's carries from a preset in a line.
macro_rules! fact_setters {
    ($($setter:ident => $fact:ident: $what:literal,)*) => {
        impl Carries {
            $(
                #[doc = concat!("These carries with ", $what, ".")]
                pub const fn $setter(self) -> Carries {
                    Carries { $fact: true, ..self }
                }
            )*
        }
    };
}

fact_setters! {
    with_threads => threads: "threads as frames, not always the roots",
    with_frame_kinds => frame_kinds: "frame kinds (threads, lines, pseudo-frames told apart)",
    with_function_facts => function_facts: "functions' facts",
    with_source_lines => source_lines: "frames' source lines",
    with_modules => modules: "frames' modules",
    with_title => title: "a title",
    with_timestamp => timestamp: "a timestamp",
    with_interval => interval: "a sampling interval",
}

/// The text of `head`'s whole lines ([`crate::text::utf8_start`]): all of it where the head is
/// the whole input (shorter than [`crate::files::HEAD_LEN`]), else what comes before its last line
/// break, as the head was cut inside its last line: for sniffers that judge lines whole.
pub(crate) fn whole_lines(head: &[u8]) -> &str {
    let text = crate::text::utf8_start(head);
    match head.len() < crate::files::HEAD_LEN {
        true => text,
        false => text.rsplit_once('\n').map_or("", |(whole, _)| whole),
    }
}

/// `Yes` when the first line of `head` contains `marker`, else `No`: for formats whose first line
/// carries a fixed phrase (LispWorks, GHC's text report).
pub(crate) fn first_line_contains(head: &[u8], marker: &str) -> Sniff {
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    if memchr::memmem::find(first, marker.as_bytes()).is_some() {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_cut_inside_a_line_is_judged_by_its_whole_lines() {
        assert_eq!(whole_lines(b"a\nb"), "a\nb");
        let mut head = vec![b'a'; crate::files::HEAD_LEN - 2];
        head.extend(b"\nb");
        assert_eq!(whole_lines(&head).len(), crate::files::HEAD_LEN - 2);
        assert_eq!(whole_lines(&vec![b'a'; crate::files::HEAD_LEN]), "");
        assert_eq!((Sniff::yes_if(true), Sniff::yes_if(false)), (Sniff::Yes, Sniff::No));
    }
}
