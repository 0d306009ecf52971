//! The arguments the commands share: the input, how rows are ranked, how an output is written,
//! what is selected, how a report is shown, the formats' own options; and their value parsers.

use super::error::Usage;
use clap::builder::TypedValueParser;
use proftool::convert::ConvertOptions;
use proftool::files::{DEFAULT_MAX_GRAPH_NODES, DEFAULT_MAX_INPUT_SIZE, DEFAULT_MAX_LINE_LENGTH};
use proftool::formats::dyalog::Separators;
use proftool::formats::sampler::FrameOrder;
use proftool::formats::valgrind::massif;
use proftool::formats::{br, dyalog, folded, ghc, perf, pprof, sampler, FormatOptions};
use proftool::model::filter::{self, Filters};
use proftool::model::Unit;
use proftool::report::{self, Printer, Ranking, Report, ReportOptions, TextStyle};
use proftool::{Format, ReadOptions};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// The input of a report.
#[derive(clap::Args)]
pub struct InputArg {
    /// Input file, or - for standard input (gzip-compressed or not).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Input format (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
    pub from: Option<Format>,
}

/// `]PROFILE`'s switches that pick and add to the rows of `summary` and `calls`.
#[derive(clap::Args)]
pub struct RankArgs {
    /// Sort by self value (consumption excluding the functions called) instead of total.
    #[arg(long, aliases = profile_abbreviations("exclusive"))]
    pub exclusive: bool,
    /// Only the first N rows (of each function, in calls).
    #[arg(long, value_name = "N", aliases = profile_abbreviations("first"))]
    pub first: Option<usize>,
    /// Only the rows while the cumulative % of the profile's total (of the sorted column) stays at
    /// most P.
    #[arg(long, value_name = "P", value_parser = non_negative, allow_negative_numbers = true)]
    pub pct: Option<f64>,
    /// Show the cumulative % of the sorted column.
    #[arg(long, aliases = profile_abbreviations("cumpct"))]
    pub cumpct: bool,
    /// Show the value per call (where the profile counts calls).
    #[arg(long)]
    pub avg: bool,
}

impl RankArgs {
    pub fn ranking(self) -> Ranking {
        let RankArgs { exclusive, first, pct, cumpct, avg } = self;
        Ranking { exclusive, first, pct, cumpct, avg }
    }
}

/// How an output is written, shared by convert and merge.
#[derive(clap::Args)]
pub struct WriteArgs {
    /// Length of one sample or tick, for turning time into samples (and, in merge, samples or
    /// ticks into the time of another input) (default: the input's own interval, else 1ms).
    /// Examples: 10ms, 250us, 1s.
    #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
    pub interval: Option<Duration>,
    /// The most sample records to write to a format with one record per sample (Sampler, BR, the
    /// samples of a .cpuprofile); a conversion that would write more stops with an error instead of
    /// filling the disk or the memory.
    #[arg(long, value_name = "N", default_value_t = proftool::convert::DEFAULT_MAX_SAMPLES)]
    pub max_samples: u64,
    #[command(flatten)]
    pub output_limit: OutputLimitArg,
    /// Whether BR output gets a TIME SPENT IN LINE record per group: `timed`, `sampled`, or `auto`
    /// (timed when the profile has a time metric).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = named::<br::Mode>(), help_heading = "Format options")]
    pub br_mode: br::Mode,
    /// The ]PROFILE version whose layout a Dyalog XML report is written in: 1.37 (the current one)
    /// or 0.9.0 (the `]PROFILE` guide's: `<Function>`, empty `<Line></Line>`, tree and data columns
    /// under 0.9.0's swapped labels, which readers undo by the version).
    #[arg(long, value_name = "VERSION", help_heading = "Format options")]
    pub dyalog_version: Option<dyalog::Layout>,
    /// The title of a Dyalog XML report written (]PROFILE -title=), instead of the input's.
    #[arg(long, value_name = "TITLE", help_heading = "Format options")]
    pub dyalog_title: Option<String>,
    /// Write a Dyalog report of this kind instead of the input's (a tree, for a source with calls):
    /// `summary` (each function's inclusive time, bias-adjusted, PctOfTot, calls) or `data` (each
    /// function and its lines: calls, exclusive and inclusive times as measured, ticks), as
    /// ]PROFILE summary and ]PROFILE data write them.
    #[arg(long, value_name = "KIND", help_heading = "Format options")]
    pub dyalog_report: Option<report::FlatReport>,
}

impl WriteArgs {
    /// The options of a conversion as these, `select` and `read` give them.
    pub fn options(&self, select: &SelectArgs, read: &ReadArgs) -> ConvertOptions {
        let mut options = ConvertOptions::new(self.interval);
        (options.max_samples, options.functions, options.lines) = (self.max_samples, select.functions, select.lines);
        options.max_output_size = self.output_limit.max_output_size;
        options.formats = read.formats();
        options.formats.update(|br: &mut br::Options| br.mode = self.br_mode);
        options.formats.update(|dyalog: &mut dyalog::Options| {
            dyalog.layout = self.dyalog_version.unwrap_or_default();
            dyalog.title.clone_from(&self.dyalog_title);
        });
        options
    }

    /// Refuses the switches of an output format other than `target`'s, which would be ignored.
    pub fn check_target(&self, target: Format) -> Result<(), Usage> {
        let given =
            [("--dyalog-version", self.dyalog_version.is_some()), ("--dyalog-title", self.dyalog_title.is_some())];
        if self.dyalog_report.is_some() && !matches!(target, Format::DyalogXml | Format::DyalogCsv) {
            return Err(Usage(format!(
                "--dyalog-report: the output is {target}; it applies to dyalog-xml and dyalog-csv"
            )));
        }
        match given.into_iter().find(|&(_, given)| given) {
            Some((switch, _)) if target != Format::DyalogXml => Err(Usage(format!(
                "{switch}: the output is {target}; it applies to dyalog-xml (a CSV report has no settings)"
            ))),
            _ => Ok(()),
        }
    }
}

/// The bound on an output that writes every stack whole, shared by convert, merge and diff's
/// differential outputs.
#[derive(clap::Args)]
pub struct OutputLimitArg {
    /// The most bytes to write to a format that holds every stack whole (folded stacks, also as
    /// diff's differential outputs; Sampler's records; speedscope's samples), whose size grows with a
    /// tree's depth times its leaves (K, M, G or T for KiB, MiB, GiB, TiB); default: 100 times the
    /// input's size, at least 1G. A conversion that would write more stops before writing anything.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_output_size: Option<u64>,
}

/// What `convert` and `merge` take beside their own arguments, last in their help: how the output
/// is written, what is selected, the formats' own options.
#[derive(clap::Args)]
pub struct WriteCommon {
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

impl WriteCommon {
    /// The options of the conversion these flags ask for.
    pub fn options(&self) -> ConvertOptions {
        self.write.options(&self.select, &self.read)
    }
}

/// What is written or reported: metric, granularity and filters, shared by convert and the reports.
#[derive(clap::Args)]
pub struct SelectArgs {
    /// The metric to report, compare, or write when the output holds one number per node (default:
    /// the one the source is weighed by: pprof's default sample type, else its last; else samples,
    /// else time, else ticks, else allocation, objects, events, calls; a time that a samples metric
    /// counts exactly at the interval, a Go CPU profile's cpu, is written to such an output as
    /// those samples).
    #[arg(long, value_name = "NAME", help_heading = "Options")]
    pub metric: Option<String>,
    /// Merge source-line frames (Dyalog line rows, BR lines) into their functions, whatever the
    /// output format: reports and formats without line numbers always get functions.
    #[arg(long, help_heading = "Options")]
    pub functions: bool,
    /// Keep source-line frames: reports show rows `name[line]` (`#.Rain[6]`), and output formats
    /// without line numbers get functions named so, instead of merging them into their functions.
    #[arg(long, conflicts_with = "functions", aliases = profile_abbreviations("lines"), help_heading = "Options")]
    pub lines: bool,
    /// Keep only the stacks that pass through a frame whose name matches the regex RE.
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    pub focus: Option<String>,
    /// Drop the stacks that pass through a frame whose name matches RE.
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    pub ignore: Option<String>,
    /// Remove the frames whose name matches RE from every stack, keeping the rest of the stack (their
    /// own value goes to their caller): the Firefox Profiler's and the page's "merge function",
    /// hence its other name.
    #[arg(long, value_name = "RE", visible_alias = "merge-fn", help_heading = "Filters")]
    pub hide: Option<String>,
    /// Fold the calls a function whose name matches RE makes of itself, directly or through other
    /// functions, into its outermost call: `a;b;a;c` becomes `a;c` (the Firefox Profiler's
    /// "collapse recursion").
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    pub collapse_recursion: Option<String>,
    /// Keep only the stacks of one thread or process (a thread frame or a root named NAME).
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    pub thread: Option<String>,
    /// Keep only the samples taken from TIME after the start of the profile's timeline (`1.5s`,
    /// `250ms`): each function keeps the part of its samples taken in the range (of a trace, of its
    /// slices' time). For profiles that say when their samples were taken or their slices ran (perf
    /// script, .cpuprofile, the Firefox Profiler's, Chrome traces, speedscope's).
    #[arg(long, value_name = "TIME", value_parser = proftool::parse_time, help_heading = "Filters")]
    pub from_time: Option<Duration>,
    /// Keep only the samples taken (the slices' time) before TIME after the start of the profile's
    /// timeline: a sample at TIME is the next range's, so that ranges end to end split a profile
    /// exactly (as the Firefox Profiler's selections do).
    #[arg(long, value_name = "TIME", value_parser = proftool::parse_time, help_heading = "Filters")]
    pub to_time: Option<Duration>,
}

impl SelectArgs {
    /// Chooses `--metric` in `profile`, as read: the one lookup of its name, after which the
    /// conversion, the reports and `diff` know it by its place ([`proftool::model::Meta::chosen_metric`]).
    pub fn choose_metric(&self, profile: &mut proftool::Profile) -> Result<(), proftool::Error> {
        match &self.metric {
            Some(name) => profile.choose_metric(name).map(drop),
            None => Ok(()),
        }
    }

    /// The filters, with the regexes compiled; an invalid one is a usage error.
    pub fn filters(&self) -> Result<Filters, Usage> {
        let regex = |option: &str, text: &Option<String>| {
            text.as_deref().map(|text| filter::parse_regex(option, text)).transpose().map_err(Usage)
        };
        Ok(Filters {
            focus: regex("--focus", &self.focus)?,
            ignore: regex("--ignore", &self.ignore)?,
            hide: regex("--hide", &self.hide)?,
            collapse_recursion: regex("--collapse-recursion", &self.collapse_recursion)?,
            thread: self.thread.clone(),
            time: self.time_range()?,
        })
    }

    /// `--from-time` and `--to-time`; a range that ends before it starts is a usage error.
    fn time_range(&self) -> Result<filter::TimeRange, Usage> {
        if let (Some(from), Some(to)) = (self.from_time, self.to_time) {
            if to < from {
                return Err(Usage(format!("--to-time {to:?} is before --from-time {from:?}")));
            }
        }
        Ok(filter::TimeRange { from: self.from_time, to: self.to_time })
    }

    /// The options every report shares.
    pub fn report_options(&self, shown: &ReportArgs) -> Result<ReportOptions, Usage> {
        Ok(ReportOptions {
            lines: self.lines,
            bias: shown.bias,
            filters: self.filters()?,
            relative: shown.relative_percentages,
            measured_times: false,
            interval: shown.interval,
        })
    }
}

/// What every report (and `diff`) takes beside its own switches, last in its help: how it is
/// shown, what is selected, the formats' own options.
#[derive(clap::Args)]
pub struct ReportCommon {
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

impl ReportCommon {
    /// The options of a report as the selection and display flags give them.
    pub fn options(&self) -> Result<ReportOptions, Usage> {
        self.select.report_options(&self.report)
    }
}

/// How a report is shown.
#[derive(clap::Args)]
#[command(next_help_heading = "Report options")]
pub struct ReportArgs {
    /// Output: aligned `text`, or `csv` or `json` for scripts (docs/reports.md); diff also writes
    /// `markdown` (a pull request's comment) and `junit` (a test per function, for CI).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = named::<report::Format>())]
    pub format: report::Format,
    /// Decimals of the numbers that are not whole, in text (default 1; times and bytes shown in a
    /// unit other than the metric's own get three significant digits of their quantity's largest).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=MAX_DECIMALS), allow_negative_numbers = true, aliases = profile_abbreviations("decimal"))]
    pub decimal: Option<u8>,
    /// The unit text shows times or bytes in (ns, us, ms, s; B, KiB, MiB, GiB, TiB): by default
    /// each quantity's own, the one in which its largest value is at least 1; samples and ticks show
    /// as time at the profile's interval (refused where it states none). CSV and JSON keep the
    /// metric's own unit (JSON's `unit`).
    #[arg(long, value_name = "UNIT", value_parser = clap::builder::PossibleValuesParser::new(proftool::report::units::WORDS))]
    pub unit: Option<String>,
    /// Recompute Dyalog times with this timer bias in ms, as ]PROFILE -bias= does (0: none): the
    /// report must have timer inspections (ticks) and say its TimerBias.
    #[arg(long, value_name = "MS", value_parser = non_negative, allow_negative_numbers = true, aliases = profile_abbreviations("bias"))]
    pub bias: Option<f64>,
    /// Percentages of what the filters keep, not of the whole profile (pprof's
    /// -relative_percentages); diff always compares shares of what the filters keep.
    #[arg(long)]
    pub relative_percentages: bool,
    /// Keep names whole in text: by default a long name is cut in the middle with … so that a line
    /// fits the terminal's width, or COLUMNS (else 100) when stdout is a pipe or a file.
    #[arg(long)]
    pub wide: bool,
    /// Length of one sample or tick, for a profile that states none (10ms, 250us, 1s; a profile's
    /// own interval comes first): --unit shows its samples and ticks as time at it, and diff takes
    /// a floor of time (--min-abs) at it and compares counts with time at it (there, else 1ms).
    #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
    pub interval: Option<Duration>,
}

impl ReportArgs {
    /// The unit `--unit` names, one of [`proftool::report::units::WORDS`].
    pub fn unit(&self) -> Option<&'static str> {
        self.unit.as_deref().and_then(|word| proftool::report::units::WORDS.into_iter().find(|w| *w == word))
    }

    /// Writes `report` to stdout as asked: names are cut to [`text_width`].
    pub fn print<P: Printer>(&self, report: &Report<P>) -> anyhow::Result<()> {
        let stdout = std::io::stdout();
        let (width, whole_names) = text_width(&stdout, self.wide);
        let style = TextStyle {
            decimals: self.decimal.map_or(1, usize::from),
            decimals_given: self.decimal.is_some(),
            width,
            unit: self.unit(),
            whole_names,
        };
        anyhow::Context::context(report.write(&mut stdout.lock(), self.format, style), "stdout")
    }
}

/// The width text is fitted to on `stdout`, and whether names too long for it go whole on lines of
/// their own: none with `--wide`; the terminal's where stdout is one; else (a pipe, a file)
/// `COLUMNS`, as a shell exports it; else (a CI log) [`PIPED_WIDTH`] with names whole on their own
/// lines, so that one long name (a V8 regex frame of 1,000 characters) does not pad every line of
/// `summary | less` and no name is cut to a few characters that read like another's.
fn text_width(stdout: &std::io::Stdout, wide: bool) -> (Option<usize>, bool) {
    if wide {
        return (None, false);
    }
    let terminal = stdout.is_terminal().then(terminal_size::terminal_size).flatten();
    let columns = || std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse().ok()).filter(|&c: &usize| c > 0);
    match terminal.map(|(width, _)| usize::from(width.0)).or_else(columns) {
        Some(width) => (Some(width), false),
        None => (Some(PIPED_WIDTH), true),
    }
}

/// The width text is fitted to in a pipe or a file when `COLUMNS` does not say one.
const PIPED_WIDTH: usize = 100;

/// Options of particular formats.
#[derive(clap::Args)]
#[command(next_help_heading = "Format options")]
pub struct ReadArgs {
    /// Order of the frames in Sampler stacks: `auto` decides from the data when reading (and says so
    /// when the evidence is weak); writing is leaf-first unless root-first is given. The file format
    /// does not record it.
    #[arg(long, value_name = "ORDER", default_value = "auto", value_parser = named::<FrameOrder>())]
    pub sampler_order: FrameOrder,
    /// Decimal mark and field separator of Dyalog CSV reports, as `]PROFILE -separators=` takes them
    /// (".," or ",;"). When the output is Dyalog CSV, those it is written with (default: those read,
    /// else ".,"), while the input's are detected: one run changes a report's separators. Otherwise
    /// they force those of a Dyalog CSV input (default: detected).
    #[arg(long, value_name = "DF")]
    pub dyalog_separators: Option<Separators>,
    /// Order of the backtrace entries in BR groups: `innermost-first` (the first entry is the caller
    /// of the current line) or `outermost-first`. The file format does not record it; proftool writes
    /// the order given here.
    #[arg(long, value_name = "ORDER", default_value = "innermost-first", value_parser = named::<br::BacktraceOrder>())]
    pub br_backtrace: br::BacktraceOrder,
    /// Machine word size in bytes of the program a GHC -px profile comes from: -px counts
    /// allocation in words, read and written as bytes (8 for 64-bit builds, 4 for 32-bit ones).
    #[arg(long, value_name = "BYTES", default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub ghc_word_size: u8,
    /// The most bytes a gzip-compressed input may decompress to (K, M, G or T for KiB, MiB, GiB,
    /// TiB), so that a small file cannot fill the memory.
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_MAX_INPUT_SIZE, value_parser = parse_size, help_heading = "Options")]
    pub max_input_size: u64,
    /// The most bytes a line of a text input read line by line may hold (K, M, G or T), so that one
    /// huge line (a file of zeros, an endless stream) stops with an error, not out of memory.
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_MAX_LINE_LENGTH, value_parser = parse_size, help_heading = "Options")]
    pub max_line_length: u64,
    /// The most nodes a call graph (callgrind) may expand into as a tree, each function's cost
    /// apportioned among its callers: a small graph of many paths can expand into billions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GRAPH_NODES, help_heading = "Options")]
    pub max_graph_nodes: u64,
    /// A pprof sample label whose values become root frames `KEY:value` above the stacks (pprof's
    /// -tagroot); repeat it for several, outermost first. Other labels are dropped, with a warning.
    #[arg(long = "tag", value_name = "KEY")]
    pub tags: Vec<String>,
    /// The unit of a folded input's counts when they are time, as proftool writes time into folded
    /// stacks (`ns`, `us` or `ms`): they read as time instead of samples.
    #[arg(long, value_name = "UNIT", value_parser = folded_unit_parser())]
    pub folded_unit: Option<Unit>,
    /// Name the root of each `perf script` stack `comm-PID` (inferno-collapse-perf's --pid).
    #[arg(long)]
    pub perf_pid: bool,
    /// Name the root of each `perf script` stack `comm-PID/TID` (inferno-collapse-perf's --tid).
    #[arg(long)]
    pub perf_tid: bool,
    /// Suffix kernel frames `_[k]` and JIT frames `_[j]` in `perf script` stacks
    /// (inferno-collapse-perf's --all), which flame graphs colour apart.
    #[arg(long)]
    pub perf_annotate: bool,
    /// The detailed snapshot of a massif file to read (its number, as ms_print lists them);
    /// default: the peak.
    #[arg(long, value_name = "N")]
    pub massif_snapshot: Option<u64>,
}

impl ReadArgs {
    /// The reading options these flags give.
    pub fn options(&self) -> ReadOptions {
        let mut options = ReadOptions::of(self.formats());
        options.max_input_size = self.max_input_size;
        options.max_line_length = self.max_line_length;
        options.max_graph_nodes = self.max_graph_nodes;
        options
    }

    /// The reading options of a run whose output is `target`: `--dyalog-separators` are those a
    /// Dyalog CSV output is written with, and then not the input's (which are detected).
    pub fn options_writing(&self, target: Format) -> ReadOptions {
        let mut options = self.options();
        if target == Format::DyalogCsv {
            options.formats.update(|dyalog: &mut dyalog::Options| dyalog.separators = None);
        }
        options
    }

    /// Each format's own options, as these flags give them.
    pub fn formats(&self) -> FormatOptions {
        FormatOptions::default()
            .with(sampler::Options { order: self.sampler_order })
            .with(dyalog::Options { separators: self.dyalog_separators, ..dyalog::Options::default() })
            .with(br::Options { backtrace: self.br_backtrace, ..br::Options::default() })
            .with(ghc::Options { word_size: self.ghc_word_size })
            .with(folded::Options { unit: self.folded_unit })
            .with(pprof::Options { tags: self.tags.clone() })
            .with(perf::Options {
                root: match (self.perf_tid, self.perf_pid) {
                    (true, _) => perf::Root::Tid,
                    (false, true) => perf::Root::Pid,
                    (false, false) => perf::Root::Comm,
                },
                annotate: self.perf_annotate,
            })
            .with(massif::Options { snapshot: self.massif_snapshot })
    }
}

/// The switches of `]PROFILE`'s reports (the `]PROFILE` guide, chapter 3: docs/sources.md), whose
/// abbreviations its users type (`-excl`, `-dec=3`).
const PROFILE_SWITCHES: [&str; 16] = [
    "lines",
    "exclusive",
    "first",
    "avg",
    "cumpct",
    "pct",
    "fn",
    "code",
    "outfile",
    "format",
    "separators",
    "infile",
    "decimal",
    "bias",
    "expr",
    "title",
];

/// The shortest abbreviation of a `]PROFILE` switch taken as an alias: three letters, as `-dec`.
const SHORTEST_ABBREVIATION: usize = 3;

/// The abbreviations of `]PROFILE`'s switch `name` that proftool's switch of that name takes as
/// aliases (`--excl` for `--exclusive`): every shorter start of it, of three letters or more, that
/// starts no other `]PROFILE` switch. proftool's switches of the same name and meaning take them;
/// clap refuses an alias that is another switch's name.
pub fn profile_abbreviations(name: &'static str) -> Vec<&'static str> {
    (SHORTEST_ABBREVIATION..name.len())
        .map(|end| &name[..end])
        .filter(|start| PROFILE_SWITCHES.iter().all(|&other| other == name || !other.starts_with(start)))
        .collect()
}

/// The most decimals `--decimal` gives: a double has 17 significant digits, the rest is noise.
const MAX_DECIMALS: i64 = 17;

/// Parses a limit of the gate, a percentage or a bias: a number, finite and not negative.
pub fn non_negative(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    match value.is_finite() && value >= 0.0 {
        true => Ok(value),
        false => Err(format!("{text} does not fit: give a finite number, 0 or more")),
    }
}

/// Parses a probability strictly between 0 and 1 (`--fdr 0.05`).
pub fn fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    match value > 0.0 && value < 1.0 {
        true => Ok(value),
        false => Err(format!("{text} does not fit: give a number above 0 and below 1 (0.05 is 5 %)")),
    }
}

/// Parses the time unit of `--folded-unit`.
pub fn folded_unit_parser() -> impl clap::builder::TypedValueParser<Value = Unit> {
    clap::builder::PossibleValuesParser::new(["ns", "us", "ms"]).map(|unit| match unit.as_str() {
        "ns" => Unit::Nanoseconds,
        "us" => Unit::Microseconds,
        _ => Unit::Milliseconds,
    })
}

/// Parses a size such as `1000`, `64K`, `512M`, `2G` or `1TiB` (for `--max-input-size`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: u64 = number.parse().map_err(|_| format!("{text:?} does not start with a whole number"))?;
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return Err(format!("unknown unit {unit:?} in {text:?}: use K, M, G or T")),
    };
    value.checked_mul(1 << shift).ok_or_else(|| format!("{text:?} is too large"))
}

/// A clap parser of a flag whose values are the kebab-case names of an enum's variants (strum's
/// `EnumString` and `VariantNames`, as the formats and reports name them).
pub fn named<T>() -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr + strum::VariantNames + Clone + Send + Sync + 'static,
{
    clap::builder::PossibleValuesParser::new(T::VARIANTS)
        .try_map(|name| name.parse::<T>().map_err(|_| format!("unknown value {name}")))
}

/// A clap parser accepting the names of the formats `keep` accepts.
pub fn format_parser(keep: fn(Format) -> bool) -> impl clap::builder::TypedValueParser<Value = Format> {
    let names: Vec<&'static str> = Format::ALL.iter().copied().filter(|&f| keep(f)).map(Format::name).collect();
    // The possible values are the formats' own names, so every accepted name maps back to one.
    clap::builder::PossibleValuesParser::new(names)
        .try_map(|name| Format::from_name(&name).ok_or_else(|| format!("unknown format {name}")))
}
