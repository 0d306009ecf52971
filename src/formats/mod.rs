//! The format registry: every format proftool knows, in one closed enum.
//!
//! Each [`Format`] variant has its command-line name, its file extensions, whether it reads and
//! writes, what it carries ([`Carries`], the "carries" column of docs/formats.md), a content sniffer,
//! and its reader and writer. Every one of these is an exhaustive `match`, and [`Format::ALL`] is
//! derived from the enum itself, so a new variant does not compile until it is wired in everywhere.
//! Detection policy (which of `--from`, content and extension wins) lives in [`detect`].
//!
//! Adding a format: add the variant, then follow the compiler; add `src/formats/<name>.rs` with its
//! spec header, `sniff`, `read`, `write`; add fixtures under `fixtures/<name>/`. The golden,
//! round-trip, property and CLI tests pick it up from [`Format::ALL`].

pub mod br;
pub mod chrome_trace;
pub mod cpuprofile;
pub mod detect;
pub mod dyalog;
pub mod folded;
pub mod ghc;
mod json;
pub mod lispworks;
pub mod perf;
pub mod pprof;
pub mod sampler;
pub mod speedscope;
mod stacks;
pub mod svg;

use crate::diag::Diagnostics;
use crate::error::{Error, FormatName};
use crate::model::{MetricKind, Profile, Unit, DEFINED_AT};
use std::fmt;
use std::io::{Read, Write};
use std::time::Duration;
use strum::VariantArray;

/// A profile format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, VariantArray)]
pub enum Format {
    /// LispWorks profiler tree (`save-current-profiler-tree`).
    Lispworks,
    /// Folded stacks, the FlameGraph/inferno interchange text.
    Folded,
    /// Apple Sampler "supersampler" stack samples (mixed text and binary).
    Sampler,
    /// Dyalog APL `]PROFILE` XML report.
    DyalogXml,
    /// Dyalog APL `]PROFILE` CSV report.
    DyalogCsv,
    /// Business Rules! (BR) profiler records (binary).
    Br,
    /// GHC `+RTS -px` cost-centre stack log (GHC 4.08–7.2).
    GhcPx,
    /// GHC `+RTS -p`/`-P` text `.prof` report (GHC 7.x–9.x).
    GhcProf,
    /// GHC `+RTS -pj` JSON profile (GHC 8.2 and later).
    GhcJson,
    /// An interactive flame graph as SVG (inferno's, as `flamegraph.pl` draws it); written only.
    Svg,
    /// speedscope's JSON file format, for the speedscope viewer (and py-spy's output).
    Speedscope,
    /// pprof's gzipped protocol buffers, of `go tool pprof`, Go's `runtime/pprof` and the tools that
    /// read and write them.
    Pprof,
    /// Linux `perf script` text of a `perf record -g` recording (read only).
    Perf,
    /// V8's `.cpuprofile` JSON (`node --cpu-prof`, Chrome DevTools), for DevTools and VS Code.
    Cpuprofile,
    /// Chrome's trace events JSON (`chrome://tracing`, Perfetto; py-spy's and Clang's traces).
    ChromeTrace,
}

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
    /// What a JSON format's check of an input's first bytes says: `Yes` when it passed, `No` when it
    /// found why not (which [`detect`] gives when no JSON format takes an input).
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
    /// Whether the number it weighs stacks by is time: samples, ticks or time
    /// ([`MetricKind::measures_time`]), as in a Sampler, LispWorks, Dyalog, BR or GHC file, rather
    /// than any count (folded stacks of bytes, pprof's sample types). A count of other things is
    /// written there only when `--metric` names it, with a warning.
    pub weight_is_time: bool,
}

impl Carries {
    /// A short description for `proftool formats` and the README.
    pub fn describe(&self) -> String {
        let mut parts: Vec<&str> = vec![match self.structure {
            Structure::Tree => "call tree",
            Structure::Stacks => "stacks",
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
        ];
        parts.extend(flags.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
        parts.join(", ")
    }
}

/// Every format's own options, each the `Options` of the format's module, gathered by the
/// registry: a format's new option is a field of its own `Options` (and its command-line flag).
#[derive(Clone, Debug, Default)]
pub struct FormatOptions {
    /// Sampler's.
    pub sampler: sampler::Options,
    /// Dyalog's (XML and CSV).
    pub dyalog: dyalog::Options,
    /// BR's.
    pub br: br::Options,
    /// GHC's.
    pub ghc: ghc::Options,
    /// Folded stacks'.
    pub folded: folded::Options,
    /// pprof's.
    pub pprof: pprof::Options,
    /// `perf script`'s.
    pub perf: perf::Options,
}

/// Options for readers. Every field has a default; new options do not break callers.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Each format's own options.
    pub formats: FormatOptions,
    /// Merge line frames into their functions while reading, where the reader can (Dyalog): what
    /// conversion does for a target without line numbers, without building the lines first. Set by
    /// [`ReadOptions::for_target`].
    pub merge_lines: bool,
    /// The input's size in bytes, where it is known before reading (a file), so that a reader can
    /// size its tree once instead of growing it (folded stacks).
    pub size_hint: Option<u64>,
    /// The most bytes a gzip-compressed input given to a reader as it is (a pprof profile not read
    /// through [`crate::files::Input`]) may decompress to; 0 means
    /// [`crate::files::DEFAULT_MAX_INPUT_SIZE`].
    pub max_input_size: u64,
}

impl ReadOptions {
    /// Options with each format's own as given, the rest by default.
    pub fn of(formats: FormatOptions) -> ReadOptions {
        ReadOptions { formats, ..ReadOptions::default() }
    }

    /// These options set for a conversion to `target`: line frames merged while reading when the
    /// conversion would merge them and the target keeps whole stacks (merging while reading also
    /// merges siblings of one function, which such a target merges anyway, even in a report
    /// without lines).
    pub fn for_target(self, target: Format, options: &ConvertOptions) -> ReadOptions {
        let stacks = target.carries().structure == Structure::Stacks;
        ReadOptions { merge_lines: stacks && options.merges_lines(target), ..self }
    }
}

/// Options that steer a conversion. Every field has a default.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The metric to write to a one-number-per-node target (by name).
    pub metric: Option<String>,
    /// The length of one sample, for turning time into samples and back.
    pub interval: Option<Duration>,
    /// The most sample records a sample-per-record target (Sampler, BR) may get.
    pub max_samples: u64,
    /// The most bytes a writer that writes every stack whole (folded stacks, Sampler, speedscope)
    /// may write (`--max-output-size`); `None`: [`ConvertOptions::output_limit`]'s default.
    pub max_output_size: Option<u64>,
    /// The size in bytes of what was read to make the profile (the inputs added up), where known:
    /// the default output limit grows with it.
    pub input_size: Option<u64>,
    /// Merge line frames into their functions whatever the target (`--functions`).
    pub functions: bool,
    /// Keep line frames as functions named `name[line]` in targets without line numbers (`--lines`).
    pub lines: bool,
    /// Each format's own options.
    pub formats: FormatOptions,
}

/// The default of `--max-samples`.
pub const DEFAULT_MAX_SAMPLES: u64 = 10_000_000;

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            metric: None,
            interval: None,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_output_size: None,
            input_size: None,
            functions: false,
            lines: false,
            formats: FormatOptions::default(),
        }
    }
}

impl ConvertOptions {
    /// Options with `--metric` and `--interval` as given, the rest by default.
    pub fn new(metric: Option<String>, interval: Option<Duration>) -> ConvertOptions {
        ConvertOptions { metric, interval, ..ConvertOptions::default() }
    }
}

/// How many times its input's size an output may be by default (see [`ConvertOptions::output_limit`]).
pub const OUTPUT_PER_INPUT_BYTE: u64 = 100;

/// The size any output may reach by default, however small its input (1 GiB).
pub const DEFAULT_MIN_OUTPUT_LIMIT: u64 = 1 << 30;

/// The interval used when neither `--interval` nor the profile gives one.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(1);

/// `interval` as a format that states intervals in steps of `step` can state it: the nearest whole
/// number of steps, at least one.
pub(crate) fn stated_interval(interval: Duration, step: Duration) -> Duration {
    let step_ns = step.as_nanos().max(1);
    let steps = ((interval.as_nanos() + step_ns / 2) / step_ns).max(1);
    step * u32::try_from(steps).unwrap_or(u32::MAX)
}

impl ConvertOptions {
    /// Whether a conversion to `target` merges line frames into their functions: with
    /// `--functions`, or for a target without line numbers unless `--lines` keeps them as names.
    pub fn merges_lines(&self, target: Format) -> bool {
        self.functions || (!target.carries().source_lines && !self.lines)
    }

    /// The most bytes a writer that writes every stack whole may write: `--max-output-size`, else
    /// [`OUTPUT_PER_INPUT_BYTE`] times the input or [`DEFAULT_MIN_OUTPUT_LIMIT`], whichever is more
    /// (the latter alone where the input's size is not known). A deep tree written so grows with
    /// its depth times its leaves: an 8 MB input made 10 GB of folded stacks.
    pub fn output_limit(&self) -> u64 {
        self.max_output_size.unwrap_or_else(|| {
            let per_input = self.input_size.unwrap_or(0).saturating_mul(OUTPUT_PER_INPUT_BYTE);
            per_input.max(DEFAULT_MIN_OUTPUT_LIMIT)
        })
    }
}

impl Format {
    /// Every format, in registry order.
    pub const ALL: &'static [Format] = Format::VARIANTS;

    /// The kebab-case name used by `--from`/`--to`, fixture folders and messages.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Lispworks => "lispworks",
            Format::Folded => "folded",
            Format::Sampler => "sampler",
            Format::DyalogXml => "dyalog-xml",
            Format::DyalogCsv => "dyalog-csv",
            Format::Br => "br",
            Format::GhcPx => "ghc-px",
            Format::GhcProf => "ghc-prof",
            Format::GhcJson => "ghc-json",
            Format::Svg => "svg",
            Format::Speedscope => "speedscope",
            Format::Pprof => "pprof",
            Format::Perf => "perf",
            Format::Cpuprofile => "cpuprofile",
            Format::ChromeTrace => "chrome-trace",
        }
    }

    /// The format with command-line name `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// A one-line description for `proftool formats`.
    pub fn description(self) -> &'static str {
        match self {
            Format::Lispworks => "LispWorks profiler tree (Depth|Count|Call|Seen|Top|Name lines)",
            Format::Folded => "folded stacks for flame graphs (FlameGraph, inferno)",
            Format::Sampler => "Apple Sampler supersampler stack samples",
            Format::DyalogXml => "Dyalog APL ]PROFILE report as XML (tree, summary, data)",
            Format::DyalogCsv => "Dyalog APL ]PROFILE report as CSV (tree, summary, data)",
            Format::Br => "Business Rules! (BR) profiler file (DEBUG PROFILE SAMPLED/TIMED)",
            Format::GhcPx => "GHC +RTS -px cost-centre stack log (GHC 4.08-7.2)",
            Format::GhcProf => "GHC +RTS -p/-P text profiling report",
            Format::GhcJson => "GHC +RTS -pj JSON profile",
            Format::Svg => "flame graph as interactive SVG (inferno), to open in a browser",
            Format::Speedscope => "speedscope JSON, for the speedscope viewer (speedscope.app)",
            Format::Pprof => "pprof profile (protocol buffers, gzipped or not), of go tool pprof and Go",
            Format::Perf => "Linux perf script text of a perf record -g recording",
            Format::Cpuprofile => "V8 .cpuprofile JSON (node --cpu-prof, Chrome DevTools), opens in VS Code",
            Format::ChromeTrace => "Chrome trace events JSON (py-spy, clang -ftime-trace), opens in Perfetto",
        }
    }

    /// File extensions, without the dot, longest first where one ends another.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Lispworks => &["tree"],
            Format::Folded => &["folded", "collapsed"],
            Format::Sampler => &["sampler"],
            Format::DyalogXml => &["xml"],
            Format::DyalogCsv => &["csv"],
            Format::Br => &["br"],
            // GHC names both the -px log and the text report `<prog>.prof`: content decides.
            Format::GhcPx => &["px", "prof"],
            Format::GhcProf => &["prof"],
            // GHC writes -pj output to `<prog>.prof` too.
            Format::GhcJson => &["prof.json", "json", "prof"],
            Format::Svg => &["svg"],
            Format::Speedscope => &["speedscope.json"],
            Format::Pprof => &["pb.gz", "pprof", "pb"],
            Format::Perf => &["perf-script", "perf"],
            Format::Cpuprofile => &["cpuprofile"],
            // py-spy and Clang write `.json`: content decides.
            Format::ChromeTrace => &["trace.json", "json"],
        }
    }

    /// Whether proftool reads the format.
    pub fn can_read(self) -> bool {
        match self {
            Format::Lispworks
            | Format::Folded
            | Format::Sampler
            | Format::DyalogXml
            | Format::DyalogCsv
            | Format::Br
            | Format::GhcPx
            | Format::GhcProf
            | Format::GhcJson
            | Format::Speedscope
            | Format::Pprof
            | Format::Perf
            | Format::Cpuprofile
            | Format::ChromeTrace => true,
            Format::Svg => false,
        }
    }

    /// Whether proftool writes the format.
    pub fn can_write(self) -> bool {
        match self {
            Format::Lispworks
            | Format::Folded
            | Format::Sampler
            | Format::DyalogXml
            | Format::DyalogCsv
            | Format::Br
            | Format::GhcPx
            | Format::Svg
            | Format::Speedscope
            | Format::Pprof
            | Format::Cpuprofile
            | Format::ChromeTrace => true,
            Format::GhcProf | Format::GhcJson | Format::Perf => false,
        }
    }

    /// What the format carries.
    pub fn carries(self) -> Carries {
        match self {
            Format::Lispworks => lispworks::CARRIES,
            Format::Folded => folded::CARRIES,
            Format::Sampler => sampler::CARRIES,
            Format::DyalogXml => dyalog::carries(false),
            Format::DyalogCsv => dyalog::carries(true),
            Format::Br => br::CARRIES,
            Format::GhcPx => ghc::px::CARRIES,
            Format::GhcProf => ghc::prof::CARRIES,
            Format::GhcJson => ghc::json::CARRIES,
            Format::Svg => svg::CARRIES,
            Format::Speedscope => speedscope::CARRIES,
            Format::Pprof => pprof::CARRIES,
            Format::Perf => perf::CARRIES,
            Format::Cpuprofile => cpuprofile::CARRIES,
            Format::ChromeTrace => chrome_trace::CARRIES,
        }
    }

    /// What the format's sniffer makes of the first bytes of an input.
    pub fn sniff(self, head: &[u8]) -> Sniff {
        match self {
            Format::Lispworks => lispworks::sniff(head),
            Format::Folded => folded::sniff(head),
            Format::Sampler => sampler::sniff(head),
            Format::DyalogXml => dyalog::xml::sniff(head),
            Format::DyalogCsv => dyalog::csv::sniff(head),
            Format::Br => br::sniff(head),
            Format::GhcPx => ghc::px::sniff(head),
            Format::GhcProf => ghc::prof::sniff(head),
            Format::GhcJson => ghc::json::sniff(head),
            Format::Svg => svg::sniff(head),
            Format::Speedscope => speedscope::sniff(head),
            Format::Pprof => pprof::sniff(head),
            Format::Perf => perf::sniff(head),
            Format::Cpuprofile => cpuprofile::sniff(head),
            Format::ChromeTrace => chrome_trace::sniff(head),
        }
    }

    /// Reads a whole input of this format into a profile.
    pub fn read(
        self,
        input: &mut (dyn Read + Send),
        options: &ReadOptions,
        diag: &mut Diagnostics,
    ) -> Result<Profile, Error> {
        let mut profile = match self {
            Format::Lispworks => lispworks::read(input, diag)?,
            Format::Folded => folded::read(input, options.size_hint, &options.formats.folded, diag)?,
            Format::Sampler => sampler::read(input, &options.formats.sampler, diag)?,
            Format::DyalogXml => dyalog::xml::read(input, options.merge_lines, diag)?,
            Format::DyalogCsv => dyalog::csv::read(input, &options.formats.dyalog, options.merge_lines, diag)?,
            Format::Br => br::read(input, &options.formats.br, diag)?,
            Format::GhcPx => ghc::px::read(input, &options.formats.ghc, diag)?,
            Format::GhcProf => ghc::prof::read(input, diag)?,
            Format::GhcJson => ghc::json::read(input, diag)?,
            Format::Speedscope => speedscope::read(input, diag)?,
            Format::Pprof => pprof::read(input, options, diag)?,
            Format::Perf => perf::read(input, &options.formats.perf, diag)?,
            Format::Cpuprofile => cpuprofile::read(input, diag)?,
            Format::ChromeTrace => chrome_trace::read(input, diag)?,
            Format::Svg => return Err(Error::Unsupported { format: self.into(), action: "read" }),
        };
        debug_assert_eq!(profile.validate(), Ok(()), "{self} reader broke a model invariant");
        profile.frames.drop_name_cache();
        Ok(profile)
    }

    /// Writes `profile`, already fitted to this format (by the conversion step,
    /// `convert::project`, which ends with [`Format::fit`]): writers only write.
    pub fn write_fitted(
        self,
        profile: &Profile,
        out: &mut dyn Write,
        options: &ConvertOptions,
        diag: &mut Diagnostics,
    ) -> Result<(), Error> {
        match self {
            Format::Lispworks => lispworks::write(profile, out, diag)?,
            Format::Folded => folded::write(profile, out, options, diag)?,
            Format::Sampler => sampler::write(profile, out, options)?,
            Format::DyalogXml => dyalog::xml::write(profile, out, &options.formats.dyalog, diag)?,
            Format::DyalogCsv => dyalog::csv::write(profile, out, options.formats.dyalog.separators)?,
            Format::Br => br::write(profile, out, options, diag)?,
            Format::GhcPx => ghc::px::write(profile, out, options, diag)?,
            Format::Svg => svg::write(profile, out, diag)?,
            Format::Speedscope => speedscope::write(profile, out, options)?,
            Format::Pprof => pprof::write(profile, out, diag)?,
            Format::Cpuprofile => cpuprofile::write(profile, out, options)?,
            Format::ChromeTrace => chrome_trace::write(profile, out)?,
            Format::GhcProf | Format::GhcJson | Format::Perf => {
                return Err(Error::Unsupported { format: self.into(), action: "written" })
            }
        }
        Ok(())
    }

    /// Whether the header fact `key` is one this format writes: keyed by its name
    /// (`dyalog-xml.TimerBias`), or shared by its family (the Dyalog formats' report kind).
    pub fn keeps_attr(self, key: &str) -> bool {
        owns_key(self, key) || dyalog::shared_attr(self, key)
    }

    /// Whether the per-frame fact `key` is one this format writes: keyed by its name
    /// (`sampler.id`), or where a function is defined ([`DEFINED_AT`]) for the formats that have a
    /// file and line per function.
    pub fn keeps_frame_attr(self, key: &str) -> bool {
        owns_key(self, key)
            || (matches!(self, Format::Speedscope | Format::Pprof | Format::Cpuprofile) && key == DEFINED_AT)
    }

    /// A one-name frame (`Module.label`, as folded stacks name GHC cost centres) as module and name,
    /// for a format whose modules are namespaces (GHC); `None` for other formats and other names.
    pub fn split_qualified(self, name: &str) -> Option<(&str, &str)> {
        self.module_is_namespace().then(|| ghc::split_qualified(name)).flatten()
    }

    /// The format's own fitting of a profile's roots, called by the conversion step once frames are
    /// fitted (Sampler: every stack in a thread).
    pub fn fit_roots(self, profile: &mut Profile) {
        match self {
            Format::Sampler => sampler::fit_roots(profile),
            Format::Speedscope => speedscope::fit_roots(profile),
            _ => {}
        }
    }

    /// The format's own last step of fitting a profile that the conversion step has projected onto
    /// what it carries (Dyalog: a tree report's alternating rows and the columns of a 1.37 tree; BR:
    /// time records as `--br-mode` says; pprof: no line 0; LispWorks: one root). A format that
    /// cannot say which metric comes first loses the source's choice.
    pub fn fit(self, mut profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
        if !self.says_which_metric_comes_first() {
            profile.meta.weighed_by = None;
        }
        match self {
            Format::DyalogXml | Format::DyalogCsv => dyalog::fit(profile, self, diag),
            Format::Br => br::fit(profile, options, diag),
            Format::Pprof => pprof::fit(profile, diag),
            Format::Cpuprofile => cpuprofile::fit(profile, options, diag),
            Format::ChromeTrace => chrome_trace::fit(profile, diag),
            Format::Lispworks => lispworks::fit(profile, diag),
            _ => profile,
        }
    }

    /// Whether a file of the format can say which of its metrics a profile is weighed by (pprof's
    /// default sample type, speedscope's profile shown first, BR's timed files), or holds one metric
    /// only: a file of another format (GHC's -px, Dyalog's reports) is weighed as its own tool weighs it.
    fn says_which_metric_comes_first(self) -> bool {
        matches!(self, Format::Pprof | Format::Speedscope | Format::Br) || self.carries().one_metric
    }

    /// Whether the format's frame module is a namespace that is part of the code's name (a GHC
    /// module), so that a frame of such a profile reads `Module.label` wherever one name is written.
    pub fn module_is_namespace(self) -> bool {
        matches!(self, Format::GhcPx | Format::GhcProf | Format::GhcJson)
    }

    /// Whether the format stores inclusive values as measured (Dyalog's InclusiveTime and
    /// InclusiveTicks); every other format derives them from self values.
    pub fn keeps_measured_inclusive(self) -> bool {
        matches!(self, Format::DyalogXml | Format::DyalogCsv)
    }

    /// The frame a format with a single root puts above several roots (GHC's `MAIN`), if it has one.
    pub fn single_root(self) -> Option<crate::model::FrameRef<'static>> {
        match self {
            Format::GhcPx => Some(ghc::main_frame()),
            _ => None,
        }
    }

    /// The names of the formats that can be read, comma-separated.
    pub fn reader_names() -> String {
        Format::names_where(Format::can_read)
    }

    /// The names of the formats that can be written, comma-separated.
    pub fn writer_names() -> String {
        Format::names_where(Format::can_write)
    }

    fn names_where(keep: fn(Format) -> bool) -> String {
        Format::ALL.iter().copied().filter(|&f| keep(f)).map(Format::name).collect::<Vec<_>>().join(", ")
    }
}

/// The name a frame is written with in a format that names every frame (pprof, speedscope): its own,
/// or for a line of no named function (a BR main routine's) its place, `orders.br:100.0`.
fn written_name(frame: &crate::model::Frame) -> std::borrow::Cow<'_, str> {
    match frame.is_anonymous_line() {
        true => std::borrow::Cow::Owned(frame.to_string()),
        false => std::borrow::Cow::Borrowed(&frame.name),
    }
}

/// Says that `profile` is weighed by its metric `metric` (pprof's default sample type, speedscope's
/// profile shown first), where the usual preference ([`Profile::primary_metric`]) would not pick it.
fn weigh_by(profile: &mut Profile, metric: usize) {
    if profile.primary_metric() != Some(metric) {
        profile.meta.weighed_by = profile.metrics().get(metric).map(|m| m.kind);
    }
}

/// A time unit as pprof and speedscope name it (`nanoseconds` … `seconds`): the model's unit, and
/// what a value is multiplied by to be in it (seconds are read as milliseconds, as the model has no
/// unit of seconds).
pub(crate) fn time_unit(name: &str) -> Option<(Unit, i64)> {
    match name {
        "nanoseconds" => Some((Unit::Nanoseconds, 1)),
        "microseconds" => Some((Unit::Microseconds, 1)),
        "milliseconds" => Some((Unit::Milliseconds, 1)),
        "seconds" => Some((Unit::Milliseconds, 1000)),
        _ => None,
    }
}

/// The word pprof and speedscope write for a unit of time or size (what [`time_unit`] reads back),
/// or `None` for a count, which each of them names its own way.
pub(crate) fn unit_word(unit: Unit) -> Option<&'static str> {
    match unit {
        Unit::Nanoseconds => Some("nanoseconds"),
        Unit::Microseconds => Some("microseconds"),
        Unit::Milliseconds => Some("milliseconds"),
        Unit::Bytes => Some("bytes"),
        Unit::Count | Unit::Words => None,
    }
}

/// `name`, or `name (2)`, `name (3)`, … where `taken` says a metric has it already: metric names
/// are unique in a profile.
pub(crate) fn unique_name(name: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&name) {
        return name;
    }
    (2..).map(|n| format!("{name} ({n})")).find(|c| !taken(c)).unwrap_or(name)
}

/// Whether `key` is named after `format` (`format.field`).
fn owns_key(format: Format, key: &str) -> bool {
    key.strip_prefix(format.name()).is_some_and(|rest| rest.starts_with('.'))
}

impl From<Format> for FormatName {
    fn from(format: Format) -> FormatName {
        FormatName(format.name())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_extensions_are_unique_per_format() {
        for &format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert!(format.name().chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        }
    }
}
