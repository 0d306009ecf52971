//! The `proftool` command: parses arguments, runs the library, reports warnings and errors.
//!
//! Exit codes: 0 success (also when stdout is a pipe that closed early, as `| head` does), 1 a failed
//! run, 2 a usage error (clap's own), 3 a regression found by `diff` (a limit crossed).

use anyhow::{Context, Result};
use clap::builder::TypedValueParser;
use clap::{CommandFactory, Parser, Subcommand};
use proftool::convert::{Convert, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::files::{Input, Output, DEFAULT_MAX_INPUT_SIZE};
use proftool::formats::br;
use proftool::formats::detect;
use proftool::formats::dyalog::Separators;
use proftool::formats::perf;
use proftool::formats::sampler::FrameOrder;
use proftool::info::Info;
use proftool::model::filter::{self, Filters};
use proftool::model::Unit;
use proftool::report::diff::{DiffOptions, Matching};
use proftool::report::output::TextStyle;
use proftool::report::{self, CallsOptions, Functions, Report, ReportOptions, SummaryOptions, TreeOptions, View};
use proftool::{Format, ReadOptions};
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const EXAMPLES: &str = "\
Examples:
  proftool convert run.tree run.folded
  proftool convert --from lispworks --to folded - - < run.tree | inferno-flamegraph > run.svg
  proftool convert run.tree run.sampler
  proftool convert --sampler-order root-first trace.sampler trace.folded
  proftool convert --lines --interval 10us tree.xml tree.folded
  proftool convert --dyalog-separators ',;' tree.xml tree.csv
  proftool convert --br-backtrace outermost-first run.br run.folded
  proftool convert --br-mode sampled run.br copy.br
  proftool convert prog.prof prog.folded
  proftool convert run.tree flame.svg
  proftool convert prog.prof prog.speedscope.json
  proftool convert tree.xml tree.pb.gz && go tool pprof -http=: tree.pb.gz
  proftool convert prog.prof.gz prog.folded
  proftool info run.tree
  proftool info --json run.tree | jq '.metrics'
  proftool summary --lines run.br
  proftool calls --fn CL-USER::FIB run.tree
  proftool tree --depth 5 --min-pct 1 prog.prof
  proftool convert --focus fib --hide '^GHC\\.' prog.prof prog.folded
  proftool formats
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool man ~/.local/share/man/man1

Exit codes: 0 success, 1 failed run, 2 usage error, 3 regression (diff: a function crossed the limits).";

/// Convert profiler output between formats through one call-tree model.
#[derive(Parser)]
// clap's own `help` subcommand takes no options (`proftool help --help` was an error): ours is a
// subcommand like the others.
#[command(name = "proftool", version, after_help = EXAMPLES, propagate_version = true, disable_help_subcommand = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Do not print warnings.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Name each thing the output has no place for in a line of its own (by default they share one
    /// line per output format; losses of numbers always have their own).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a profile from one format to another.
    ///
    /// The input format is named by --from, else recognised by content, else by extension. The output
    /// format is named by --to, else by OUT's extension. Everything the output format cannot hold is
    /// named on stderr, one line each. The output file appears only when the conversion succeeded.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert {
        /// Input file, or - for standard input (gzip-compressed or not).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// Output file, or - for standard output.
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// Input format (default: detected).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Output format (default: from OUT's extension).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_write))]
        to: Option<Format>,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Compare two profiles: what changed per function, a gate for CI, differential outputs.
    ///
    /// Each function's self and total share of its profile's total in BASE and NEW, and the change in
    /// points, largest first; functions in one profile only are new or gone. With --threshold, a
    /// function whose share grew by more than that fails the run with exit code 3 (1: a failed run,
    /// 2: a usage error). Profiles of different formats compare on a metric kind both have.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff {
        /// The profile compared against (the main branch's, yesterday's).
        #[arg(value_name = "BASE")]
        base: PathBuf,
        /// The profile compared (the pull request's, today's).
        #[arg(value_name = "NEW")]
        new: PathBuf,
        /// Input format of both (default: detected).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Sort and gate by self values (excluding the functions called) instead of totals.
        #[arg(long)]
        exclusive: bool,
        /// Compare the values themselves (NEW's in BASE's unit) instead of shares of each total.
        #[arg(long)]
        absolute: bool,
        /// Fail (exit 3) when a function's share grew by more than P points.
        #[arg(long, value_name = "P", value_parser = non_negative, help_heading = "Gate")]
        threshold: Option<f64>,
        /// Only fail for a growth of at least V in the metric's unit (BASE's), so that noise in tiny
        /// functions does not fail a build.
        #[arg(long, value_name = "V", requires = "threshold", value_parser = non_negative, help_heading = "Gate")]
        min_abs: Option<f64>,
        /// Compare threads and processes by name, as functions; by default they are matched as if
        /// merged, since two runs name theirs apart (a thread id, a pid).
        #[arg(long)]
        by_thread: bool,
        /// Length of one sample or tick, for comparing counts with time (default: the profile's own
        /// interval, else 1ms).
        #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
        interval: Option<Duration>,
        /// Also write a differential output: `folded` (stack base new, as inferno-diff-folded writes),
        /// `svg` (the differential flame graph) or `pprof` (NEW minus BASE, BASE's samples negated and
        /// labelled pprof::base=true, as go tool pprof -diff_base writes); OUT may be - for stdout, and
        /// then the table is not printed.
        #[arg(long, num_args = 2, value_names = ["FORMAT", "OUT"], help_heading = "Differential output")]
        to: Vec<String>,
        /// With --to svg: box widths from BASE instead of NEW.
        #[arg(long, help_heading = "Differential output")]
        negate: bool,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Add profiles together: the runs of a fleet, the samples of many machines, as one profile.
    ///
    /// Equal stacks add up; metrics must be of the same kinds (ms and ns add as time). Each input's
    /// threads stay apart (named after their input) unless --merge-threads. Inputs are read one at a
    /// time, so memory grows with the merged profile, not with the number of inputs.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge {
        /// Input files (any readable formats), - once for standard input.
        #[arg(value_name = "IN", required = true)]
        inputs: Vec<PathBuf>,
        /// Output file, or - for standard output.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
        /// Input format of every input (default: detected, each on its own).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Output format (default: from OUT's extension).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_write))]
        to: Option<Format>,
        /// Add up threads of the same name across inputs instead of keeping each input's apart.
        #[arg(long)]
        merge_threads: bool,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Consumption per function (or per source line): self and total, their %, calls.
    ///
    /// `]PROFILE summary` for every readable format. Sorted by total, or by self with --exclusive. A
    /// recursive function's total counts each sample once, however often it is on the stack.
    #[command(after_help = SUMMARY_EXAMPLES)]
    Summary {
        #[command(flatten)]
        input: InputArg,
        /// Sort by self value (consumption excluding the functions called) instead of total.
        #[arg(long)]
        exclusive: bool,
        /// Only the first N rows.
        #[arg(long, value_name = "N")]
        first: Option<usize>,
        /// Only the rows while the cumulative % (of the sorted column) stays at most P.
        #[arg(long, value_name = "P")]
        pct: Option<f64>,
        /// Show the cumulative % of the sorted column.
        #[arg(long)]
        cumpct: bool,
        /// Show the value per call (where the profile counts calls).
        #[arg(long)]
        avg: bool,
        /// Only what the named function calls, its own row included; NAME,NAME… drills down: what
        /// the second calls under the first, and so on.
        #[arg(long = "fn", value_name = "NAME", value_delimiter = ',')]
        fn_path: Vec<String>,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// How a function's consumption breaks down by caller, or by callee with --callees.
    #[command(after_help = CALLS_EXAMPLES)]
    Calls {
        #[command(flatten)]
        input: InputArg,
        /// The function (a report's name for it: `#.ch.Set`, `Main.fib`, `CL-USER::FIB`).
        #[arg(long = "fn", value_name = "NAME", required = true)]
        function: String,
        /// Take --fn as a regex: one block per function it matches.
        #[arg(long)]
        regex: bool,
        /// What the function spends in each function it calls, instead of its callers.
        #[arg(long)]
        callees: bool,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// The call tree, indented, with total, self and % per node, heaviest first.
    #[command(after_help = TREE_EXAMPLES)]
    Tree {
        #[command(flatten)]
        input: InputArg,
        /// Show N levels (roots are level 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// Leave out branches under P % of the total, saying how much was left out.
        #[arg(long, value_name = "P")]
        min_pct: Option<f64>,
        /// The subtrees rooted at the named function; NAME,NAME… drills down.
        #[arg(long = "fn", value_name = "NAME", value_delimiter = ',')]
        fn_path: Vec<String>,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Show what a profile holds: format, header, metrics and totals, tree size, heaviest functions.
    #[command(after_help = INFO_EXAMPLES)]
    Info {
        /// Input file, or - for standard input (gzip-compressed or not).
        #[arg(value_name = "IN")]
        input: PathBuf,
        /// Input format (default: detected).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List every format: name, extensions, read, write, and what it carries.
    Formats,
    /// Print a completion script for a shell, to install where the shell looks for them.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Write proftool's manual pages (roff), made from this help: proftool.1 and one per subcommand.
    #[command(
        after_help = "Examples:\n  proftool man ~/.local/share/man/man1 && man proftool-convert\n  proftool man | man -l -"
    )]
    Man {
        /// Folder to write proftool.1, proftool-convert.1 and the other pages in; without it, only
        /// proftool.1 is written, to standard output.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print the help of proftool, or of one of its commands (what --help prints).
    #[command(after_help = "Examples:\n  proftool help convert\n  proftool help")]
    Help {
        /// The command to describe; without it, proftool itself.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

const CONVERT_EXAMPLES: &str = "\
Examples:
  proftool convert run.tree run.folded                   folded stacks, for flame graph tools
  proftool convert run.tree flame.svg                    a flame graph to open in a browser
  proftool convert prog.prof prog.speedscope.json        for speedscope.app
  proftool convert tree.xml tree.pb.gz                   for go tool pprof -http=: tree.pb.gz
  proftool convert prog.folded prog.tree                 a LispWorks tree
  proftool convert run.br run.sampler                    BR samples as Sampler stacks
  proftool convert tree.xml tree.csv                     a Dyalog report as CSV
  proftool convert prog.prof.gz prog.folded              a gzip-compressed input
  proftool convert --metric alloc prog.prof alloc.folded one metric of several
  cat run.tree | proftool convert --from lispworks --to folded - - | inferno-flamegraph > run.svg";

const SUMMARY_EXAMPLES: &str = "\
Examples:
  proftool summary --lines run.br                        the listing BR's profiler.exe gives
  proftool summary run.tree                              a LispWorks tree, per function
  proftool summary --exclusive --decimal 3 --cumpct --pct 65 tree.xml
  proftool summary --avg --bias 0 --first 3 tree.xml     Dyalog times without the timer bias
  proftool summary --fn '#.ch.Step' tree.xml             what one function calls
  proftool summary --focus fib --format csv prog.prof    for a script";

const CALLS_EXAMPLES: &str = "\
Examples:
  proftool calls --fn '#.ch.Set' tree.xml                who calls it, and for how much
  proftool calls --fn CL-USER::FIB --callees run.tree    what it spends in what it calls
  proftool calls --regex --fn '^Main\\.' prog.prof        one block per matching function";

const TREE_EXAMPLES: &str = "\
Examples:
  proftool tree run.tree                                 the whole tree
  proftool tree --depth 5 --min-pct 1 prog.prof          the top of it, without small branches
  proftool tree --fn '#.ch.Step' tree.xml                the subtrees of one function";

const DIFF_EXAMPLES: &str = "\
Examples:
  proftool diff main.prof pr.prof
  proftool diff --threshold 2 --min-abs 5 main.prof pr.prof || echo \"exit $?: 3 is a regression\"
  proftool diff --exclusive --format json base.pb.gz new.pb.gz > diff.json
  proftool diff --to svg diff.svg before.folded after.folded
  proftool diff --to folded - before.tree after.tree | inferno-flamegraph > diff.svg
  proftool diff --lines --metric time run1.br run2.br

Exit codes: 0 no regression, 3 a function crossed the limits, 1 a failed run, 2 a usage error.";

const MERGE_EXAMPLES: &str = "\
Examples:
  proftool merge runs/*.prof -o all.pb.gz
  proftool merge --merge-threads a.sampler b.sampler -o both.sampler
  cat today.folded | proftool merge - yesterday.folded -o two-days.folded";

const INFO_EXAMPLES: &str = "\
Examples:
  proftool info run.tree                                 what a profile holds
  proftool info prog.prof.gz                             a gzip-compressed input
  proftool info --json prog.prof | jq '.metrics'         as JSON
  perf script | inferno-collapse-perf | proftool info -  folded stacks from standard input
  proftool info --from ghc-px - < prog.prof              a format named";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool completions zsh > ~/.zfunc/_proftool      (with fpath+=~/.zfunc in ~/.zshrc)
  proftool completions fish > ~/.config/fish/completions/proftool.fish";

/// The input of a report.
#[derive(clap::Args)]
struct InputArg {
    /// Input file, or - for standard input (gzip-compressed or not).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Input format (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
    from: Option<Format>,
}

/// How an output is written, shared by convert and merge.
#[derive(clap::Args)]
struct WriteArgs {
    /// Length of one sample, for turning time into samples (default: the input's own interval,
    /// else 1ms). Examples: 10ms, 250us, 1s.
    #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
    interval: Option<Duration>,
    /// The most sample records to write to a format with one record per sample (Sampler, BR); a
    /// conversion that would write more stops with an error instead of filling the disk.
    #[arg(long, value_name = "N", default_value_t = proftool::convert::DEFAULT_MAX_SAMPLES)]
    max_samples: u64,
    /// Whether BR output gets a TIME SPENT IN LINE record per group: `timed`, `sampled`, or `auto`
    /// (timed when the profile has a time metric).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = br_mode_parser(), help_heading = "Format options")]
    br_mode: br::Mode,
}

impl WriteArgs {
    /// The options of a conversion as these, `select` and `read` give them.
    fn options(&self, select: &SelectArgs, read: &ReadArgs) -> ConvertOptions {
        ConvertOptions::new(select.metric.clone(), self.interval)
            .with_samples(self.max_samples, read.sampler_order)
            .with_granularity(select.functions, select.lines, read.dyalog_separators)
            .with_br(self.br_mode, read.br_backtrace)
            .with_ghc_word_size(read.ghc_word_size)
    }
}

/// What is written or reported: metric, granularity and filters, shared by convert and the reports.
#[derive(clap::Args)]
struct SelectArgs {
    /// The metric to report, or to write when the output holds one number per node (default:
    /// samples, else time, else ticks, else allocation, else calls).
    #[arg(long, value_name = "NAME", help_heading = "Options")]
    metric: Option<String>,
    /// Merge source-line frames (Dyalog line rows, BR lines) into their functions, whatever the
    /// output format: reports and formats without line numbers always get functions.
    #[arg(long, help_heading = "Options")]
    functions: bool,
    /// Keep source-line frames: reports show rows `name[line]` (`#.Rain[6]`), and output formats
    /// without line numbers get functions named so, instead of merging them into their functions.
    #[arg(long, conflicts_with = "functions", help_heading = "Options")]
    lines: bool,
    /// Keep only the stacks that pass through a frame whose name matches the regex RE.
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    focus: Option<String>,
    /// Drop the stacks that pass through a frame whose name matches RE.
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    ignore: Option<String>,
    /// Remove the frames whose name matches RE from every stack, keeping the rest of the stack (their
    /// own value goes to their caller).
    #[arg(long, value_name = "RE", help_heading = "Filters")]
    hide: Option<String>,
    /// Keep only the stacks of one thread or process (a thread frame or a root named NAME).
    #[arg(long, value_name = "NAME", help_heading = "Filters")]
    thread: Option<String>,
}

impl SelectArgs {
    /// The filters, with the regexes compiled; an invalid one is a usage error.
    fn filters(&self) -> Result<Filters, Usage> {
        let regex = |option: &str, text: &Option<String>| {
            text.as_deref().map(|text| filter::parse_regex(option, text)).transpose().map_err(Usage)
        };
        Ok(Filters {
            focus: regex("--focus", &self.focus)?,
            ignore: regex("--ignore", &self.ignore)?,
            hide: regex("--hide", &self.hide)?,
            thread: self.thread.clone(),
        })
    }

    /// The options every report shares.
    fn report_options(&self, shown: &ReportArgs) -> Result<ReportOptions, Usage> {
        Ok(ReportOptions {
            lines: self.lines,
            metric: self.metric.clone(),
            bias: shown.bias,
            filters: self.filters()?,
            relative: shown.relative_percentages,
        })
    }
}

/// How a report is shown.
#[derive(clap::Args)]
#[command(next_help_heading = "Report options")]
struct ReportArgs {
    /// Output: aligned `text`, or `csv` or `json` for scripts (docs/reports.md).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = report_format_parser())]
    format: report::Format,
    /// Decimals of the numbers that are not whole, in text (default 1; times and bytes shown in a
    /// unit other than the metric's own get three significant digits of their column's largest).
    #[arg(long, value_name = "N")]
    decimal: Option<usize>,
    /// The unit text shows times or bytes in (ns, us, ms, s; B, KiB, MiB, GiB, TiB): by default
    /// each column's own, the one in which its largest value is at least 1. CSV and JSON keep the
    /// metric's own unit (JSON's `unit`).
    #[arg(long, value_name = "UNIT", value_parser = clap::builder::PossibleValuesParser::new(proftool::report::units::WORDS))]
    unit: Option<String>,
    /// Recompute Dyalog times with this timer bias in ms, as ]PROFILE -bias= does (0: none): the
    /// report must have timer inspections (ticks) and say its TimerBias.
    #[arg(long, value_name = "MS")]
    bias: Option<f64>,
    /// Percentages of what the filters keep, not of the whole profile (pprof's
    /// -relative_percentages); diff always compares shares of what the filters keep.
    #[arg(long)]
    relative_percentages: bool,
}

impl ReportArgs {
    /// Writes `report` to stdout as asked: names are cut to the terminal's width when it is one.
    fn print(&self, report: &Report) -> std::io::Result<()> {
        let stdout = std::io::stdout();
        let width =
            stdout.is_terminal().then(terminal_size::terminal_size).flatten().map(|(width, _)| usize::from(width.0));
        let unit =
            self.unit.as_deref().and_then(|word| proftool::report::units::WORDS.into_iter().find(|w| *w == word));
        let style =
            TextStyle { decimals: self.decimal.unwrap_or(1), decimals_given: self.decimal.is_some(), width, unit };
        report.write(&mut stdout.lock(), self.format, style)
    }
}

/// A usage error found after the arguments were parsed (an invalid regex): exit 2, as clap's own.
#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Options of particular formats.
#[derive(clap::Args)]
#[command(next_help_heading = "Format options")]
struct ReadArgs {
    /// Order of the frames in Sampler stacks: `auto` decides from the data when reading (and says so
    /// when the evidence is weak); writing is leaf-first unless root-first is given. The file format
    /// does not record it.
    #[arg(long, value_name = "ORDER", default_value = "auto", value_parser = order_parser())]
    sampler_order: FrameOrder,
    /// Decimal mark and field separator of Dyalog CSV reports, as `]PROFILE -separators=` takes them
    /// (".," or ",;"). When the output is Dyalog CSV, those it is written with (default: those read,
    /// else ".,"), while the input's are detected: one run changes a report's separators. Otherwise
    /// they force those of a Dyalog CSV input (default: detected).
    #[arg(long, value_name = "DF")]
    dyalog_separators: Option<Separators>,
    /// Order of the backtrace entries in BR groups: `innermost-first` (the first entry is the caller
    /// of the current line) or `outermost-first`. The file format does not record it; proftool writes
    /// the order given here.
    #[arg(long, value_name = "ORDER", default_value = "innermost-first", value_parser = backtrace_parser())]
    br_backtrace: br::BacktraceOrder,
    /// Machine word size in bytes of the program a GHC -px profile comes from: -px counts
    /// allocation in words, read and written as bytes (8 for 64-bit builds, 4 for 32-bit ones).
    #[arg(long, value_name = "BYTES", default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    ghc_word_size: u8,
    /// The most bytes a gzip-compressed input may decompress to (K, M, G or T for KiB, MiB, GiB,
    /// TiB), so that a small file cannot fill the memory.
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_MAX_INPUT_SIZE, value_parser = parse_size, help_heading = "Options")]
    max_input_size: u64,
    /// A pprof sample label whose values become root frames `KEY:value` above the stacks (pprof's
    /// -tagroot); repeat it for several, outermost first. Other labels are dropped, with a warning.
    #[arg(long = "tag", value_name = "KEY")]
    tags: Vec<String>,
    /// The unit of a folded input's counts when they are time, as proftool writes time into folded
    /// stacks (`ns`, `us` or `ms`): they read as time instead of samples.
    #[arg(long, value_name = "UNIT", value_parser = folded_unit_parser())]
    folded_unit: Option<Unit>,
    /// Name the root of each `perf script` stack `comm-PID` (inferno-collapse-perf's --pid).
    #[arg(long)]
    perf_pid: bool,
    /// Name the root of each `perf script` stack `comm-PID/TID` (inferno-collapse-perf's --tid).
    #[arg(long)]
    perf_tid: bool,
}

impl ReadArgs {
    fn options(&self) -> ReadOptions {
        ReadOptions::with_sampler_order(self.sampler_order)
            .with_dyalog_separators(self.dyalog_separators)
            .with_br_backtrace(self.br_backtrace)
            .with_ghc_word_size(self.ghc_word_size)
            .with_max_input_size(self.max_input_size)
            .with_tags(self.tags.clone())
            .with_folded_unit(self.folded_unit)
            .with_perf_root(match (self.perf_tid, self.perf_pid) {
                (true, _) => perf::Root::Tid,
                (false, true) => perf::Root::Pid,
                (false, false) => perf::Root::Comm,
            })
    }
}

/// Parses a limit of the gate: a number, finite and not negative.
fn non_negative(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    match value.is_finite() && value >= 0.0 {
        true => Ok(value),
        false => Err(format!("{text} is no limit: give a finite number, 0 or more")),
    }
}

/// Parses the time unit of `--folded-unit`.
fn folded_unit_parser() -> impl clap::builder::TypedValueParser<Value = Unit> {
    clap::builder::PossibleValuesParser::new(["ns", "us", "ms"]).map(|unit| match unit.as_str() {
        "ns" => Unit::Nanoseconds,
        "us" => Unit::Microseconds,
        _ => Unit::Milliseconds,
    })
}

/// Parses a size such as `1000`, `64K`, `512M`, `2G` or `1TiB` (for `--max-input-size`).
fn parse_size(text: &str) -> Result<u64, String> {
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

fn backtrace_parser() -> impl clap::builder::TypedValueParser<Value = br::BacktraceOrder> {
    clap::builder::PossibleValuesParser::new(br::BacktraceOrder::NAMES)
        .try_map(|name| br::BacktraceOrder::from_name(&name).ok_or_else(|| format!("unknown order {name}")))
}

fn report_format_parser() -> impl clap::builder::TypedValueParser<Value = report::Format> {
    use strum::VariantNames;
    clap::builder::PossibleValuesParser::new(report::Format::VARIANTS)
        .try_map(|name| name.parse::<report::Format>().map_err(|_| format!("unknown format {name}")))
}

fn br_mode_parser() -> impl clap::builder::TypedValueParser<Value = br::Mode> {
    clap::builder::PossibleValuesParser::new(br::Mode::NAMES)
        .try_map(|name| br::Mode::from_name(&name).ok_or_else(|| format!("unknown mode {name}")))
}

fn order_parser() -> impl clap::builder::TypedValueParser<Value = FrameOrder> {
    clap::builder::PossibleValuesParser::new(FrameOrder::NAMES)
        .try_map(|name| FrameOrder::from_name(&name).ok_or_else(|| format!("unknown order {name}")))
}

/// A clap parser accepting the names of the formats `keep` accepts.
fn format_parser(keep: fn(Format) -> bool) -> impl clap::builder::TypedValueParser<Value = Format> {
    let names: Vec<&'static str> = Format::ALL.iter().copied().filter(|&f| keep(f)).map(Format::name).collect();
    // The possible values are the formats' own names, so every accepted name maps back to one.
    clap::builder::PossibleValuesParser::new(names)
        .try_map(|name| Format::from_name(&name).ok_or_else(|| format!("unknown format {name}")))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut diag = Diagnostics::default();
    let result = run(cli.command, &mut diag);
    // An option that does not fit the profile (an unknown --metric) can only be checked once the
    // profile is read, and then nothing is converted: the warnings about what the conversion
    // would have lost are left out, so that the error is what the run says.
    let option_refused = result.as_ref().is_err_and(is_option_error);
    if !cli.quiet && !option_refused {
        for line in diag.lines(cli.verbose) {
            eprintln!("proftool: warning: {line}");
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<Regression>().is_some() => {
            eprintln!("proftool: {err}");
            ExitCode::from(3)
        }
        Err(err) if err.downcast_ref::<Usage>().is_some() => {
            eprintln!("proftool: error: {err:#}");
            ExitCode::from(2)
        }
        Err(err) => {
            eprintln!("proftool: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// Rust ignores SIGPIPE, so a reader that stops early (`| head`) shows up as a write error; that is
/// not a failure of the conversion.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Whether `err` is an option that does not fit the profile.
fn is_option_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::BadOption(_))))
}

fn run(command: Command, diag: &mut Diagnostics) -> Result<()> {
    match command {
        Command::Convert { input, output, from, to, write, select, read } => {
            let filters = select.filters()?;
            let options = write.options(&select, &read);
            let read_options = read.options();
            let input = InputArgs { path: &input, from, max_size: read.max_input_size };
            convert(input, &output, to, &read_options, (&filters, &options), diag)
        }
        Command::Summary { input, exclusive, first, pct, cumpct, avg, fn_path, report, select, read } => {
            let options = SummaryOptions { exclusive, first, pct, cumpct, avg, functions: fn_path };
            run_report(&input, &read, &select, &report, diag, |view| report::summary(view, &options))
        }
        Command::Calls { input, function, regex, callees, report, select, read } => {
            let functions = match regex {
                true => Functions::Matching(filter::parse_regex("--fn", &function).map_err(Usage)?),
                false => Functions::Named(function),
            };
            let options = CallsOptions { functions, callees };
            run_report(&input, &read, &select, &report, diag, |view| report::calls(view, &options))
        }
        Command::Tree { input, depth, min_pct, fn_path, report, select, read } => {
            let options = TreeOptions { depth, min_pct, functions: fn_path };
            run_report(&input, &read, &select, &report, diag, |view| report::tree(view, &options))
        }
        Command::Diff {
            base,
            new,
            from,
            exclusive,
            absolute,
            threshold,
            min_abs,
            by_thread,
            interval,
            to,
            negate,
            report,
            select,
            read,
        } => {
            let options = DiffOptions { exclusive, absolute, threshold, min_abs };
            let matching = Matching { metric: select.metric.clone(), interval, by_thread };
            let inputs = [&base, &new].map(|path| InputArgs { path, from, max_size: read.max_input_size });
            diff(inputs, (&options, &matching), (&to, negate), (&report, &select, &read), diag)
        }
        Command::Merge { inputs, output, from, to, merge_threads, write, select, read } => {
            let options = write.options(&select, &read);
            merge(&inputs, &output, (from, to), merge_threads, (&options, &select.filters()?, &read), diag)
        }
        Command::Info { input, from, json, read } => {
            let read_options = read.options();
            let input = InputArgs { path: &input, from, max_size: read.max_input_size };
            let (profile, format, reason) = self::read(input, &read_options, diag)?;
            let info = Info::of(&profile, format, reason);
            let text = if json { serde_json::to_string_pretty(&info)? + "\n" } else { info.to_text() };
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(())
        }
        Command::Formats => {
            std::io::stdout().write_all(proftool::formats_table().as_bytes())?;
            Ok(())
        }
        Command::Completions { shell } => {
            // Made in memory: clap_complete panics when its output cannot be written (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "proftool", &mut script);
            std::io::stdout().write_all(&script)?;
            Ok(())
        }
        Command::Man { dir: Some(dir) } => clap_mangen::generate_to(Cli::command(), &dir)
            .with_context(|| format!("{}: cannot write the manual pages", dir.to_string_lossy())),
        Command::Man { dir: None } => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command()).render(&mut page)?;
            std::io::stdout().write_all(&page)?;
            Ok(())
        }
        Command::Help { command } => {
            // What `proftool [COMMAND] --help` prints, by asking clap for exactly that.
            let args = ["proftool"].into_iter().chain(command.as_deref()).chain(["--help"]);
            match Cli::command().try_get_matches_from(args) {
                Err(help) if help.kind() == clap::error::ErrorKind::DisplayHelp => Ok(help.print()?),
                Err(unknown) => unknown.exit(),
                Ok(_) => Err(Usage(format!("help: {:?} is no command", command.unwrap_or_default())).into()),
            }
        }
    }
}

/// Reads the input of a report, prepares it as `select` asks, and prints what `make` makes of it.
fn run_report(
    input: &InputArg,
    read_args: &ReadArgs,
    select: &SelectArgs,
    shown: &ReportArgs,
    diag: &mut Diagnostics,
    make: impl FnOnce(View) -> Result<Report, proftool::Error>,
) -> Result<()> {
    let options = select.report_options(shown)?;
    let input = InputArgs { path: &input.input, from: input.from, max_size: read_args.max_input_size };
    // Line frames a report merges are merged as they are read where the reader can (Dyalog).
    let mut read_options = read_args.options();
    read_options.merge_lines = !select.lines;
    let (profile, _, _) = read(input, &read_options, diag)?;
    let report = make(View::new(profile, &options)?)?;
    shown.print(&report)?;
    Ok(())
}

/// The input of a run, as the command line gives it.
#[derive(Clone, Copy)]
struct InputArgs<'a> {
    /// The path, `-` for stdin.
    path: &'a Path,
    /// `--from`.
    from: Option<Format>,
    /// `--max-input-size`.
    max_size: u64,
}

impl InputArgs<'_> {
    /// The input's path, or None for stdin.
    fn file(&self) -> Option<&Path> {
        (self.path != Path::new("-")).then_some(self.path)
    }

    /// The name messages give the input: its path (a name that is not UTF-8 printed lossily), or `<stdin>`.
    fn name(&self) -> Cow<'_, str> {
        self.file().map_or(Cow::Borrowed("<stdin>"), |path| path.to_string_lossy())
    }
}

fn convert(
    input: InputArgs<'_>,
    output: &Path,
    to: Option<Format>,
    read_options: &ReadOptions,
    (filters, options): (&Filters, &ConvertOptions),
    diag: &mut Diagnostics,
) -> Result<()> {
    let target = output_format(output, to)?;
    let (profile, _, _) = read(input, &reading_for(target, read_options, options), diag)?;
    let profile = filters.apply_to_write(profile, diag)?;
    write_output(profile, output, target, input.file(), options, diag)
}

/// The format of `output`: `to`, else its extension (a directory is refused as one).
fn output_format(output: &Path, to: Option<Format>) -> Result<Format> {
    let out_path = (output != Path::new("-")).then_some(output);
    if out_path.is_some_and(Path::is_dir) {
        anyhow::bail!("{}: is a directory; name the file to write in it", output.to_string_lossy());
    }
    Ok(detect::detect_output(to, out_path)?)
}

/// The reader options for an output of `target`: `--dyalog-separators` sets those of the CSV written
/// when there is one, else of the CSV read; line frames merged while reading where the output would
/// merge them.
fn reading_for(target: Format, read_options: &ReadOptions, options: &ConvertOptions) -> ReadOptions {
    match target {
        Format::DyalogCsv => read_options.clone().with_dyalog_separators(None),
        _ => read_options.clone(),
    }
    .for_target(target, options)
}

/// Converts `profile` to `target` and writes it to `output`, which appears only when all went well
/// (and must not be `input`).
fn write_output(
    profile: proftool::Profile,
    output: &Path,
    target: Format,
    input: Option<&Path>,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<()> {
    let out_name = output.to_string_lossy();
    let mut out = Output::create(output, input).with_context(|| format!("{out_name}: cannot create"))?;
    target.write(profile, out.writer(), options, diag).with_context(|| format!("{out_name}: writing {target}"))?;
    out.commit().with_context(|| format!("{out_name}: writing {target}"))
}

/// A diff found a function past its limits: exit code 3, a regression rather than a failure.
#[derive(Debug)]
struct Regression;

impl std::fmt::Display for Regression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("regression: a function grew past the limits (the rows marked *)")
    }
}

impl std::error::Error for Regression {}

/// The differential outputs of `diff --to`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Differential {
    Folded,
    Svg,
    Pprof,
}

/// `proftool diff`: the table (unless the differential output goes to stdout), the differential
/// output asked for, and [`Regression`] when a function crossed the limits.
fn diff(
    inputs: [InputArgs<'_>; 2],
    (options, matching): (&DiffOptions, &Matching),
    (to, negate): (&[String], bool),
    (shown, select, read_args): (&ReportArgs, &SelectArgs, &ReadArgs),
    diag: &mut Diagnostics,
) -> Result<()> {
    let to = match to {
        [format, out] => {
            let format = match format.as_str() {
                "folded" => Differential::Folded,
                "svg" => Differential::Svg,
                "pprof" => Differential::Pprof,
                other => {
                    let why = format!("--to {other}: a differential output is folded, svg or pprof");
                    return Err(Usage(why).into());
                }
            };
            Some((format, PathBuf::from(out)))
        }
        _ => None,
    };
    let filters = select.filters()?;
    let mut read_options = read_args.options();
    read_options.merge_lines = !select.lines;
    // Both opened before either is read, so that a missing NEW stops the run before BASE says anything.
    let [base_input, new_input] = inputs;
    let (base_file, new_file) = (open(base_input)?, open(new_input)?);
    let mut read_one = |input, opened| {
        let (profile, _, _) = read_opened(input, opened, &read_options, diag)?;
        anyhow::Ok(filters.apply(profile)?)
    };
    let base = read_one(base_input, base_file)?;
    let new = read_one(new_input, new_file)?;
    let matched = report::diff::match_profiles(base, new, matching, diag)?;
    let (base, new, metrics, threads) = (matched.base, matched.new, matched.metrics, matched.threads);
    let view = |profile: proftool::Profile, metric: usize| {
        let options = ReportOptions {
            lines: select.lines,
            metric: Some(profile.metrics()[metric].name.clone()),
            bias: shown.bias,
            filters: threads.clone(),
            relative: false,
        };
        View::new(profile, &options)
    };
    let names = inputs.map(|input| input.name().into_owned());
    // The profiles are kept beside their views only for a differential output.
    let kept = match to {
        Some(_) => Some((threads.apply(base.clone())?, threads.apply(new.clone())?)),
        None => None,
    };
    let comparison =
        report::diff::compare(&view(base, metrics.0)?, &view(new, metrics.1)?, (&names[0], &names[1]), options)?;
    let to_stdout = to.as_ref().is_some_and(|(_, out)| out == Path::new("-"));
    if let (Some((format, out)), Some((base, new))) = (to, kept) {
        let convert = ConvertOptions::default().with_granularity(select.functions, select.lines, None);
        let mut output =
            Output::create(&out, None).with_context(|| format!("{}: cannot create", out.to_string_lossy()))?;
        match format {
            Differential::Folded | Differential::Svg => {
                let lines = report::diff::differential_folded(base, new, metrics, &convert, diag)?;
                match format {
                    Differential::Folded => output.writer().write_all(lines.as_bytes())?,
                    _ => {
                        let title = format!("Differential Flame Graph: {} against {}", names[1], names[0]);
                        report::diff::differential_svg(&lines, &title, negate, output.writer())?
                    }
                }
            }
            Differential::Pprof => {
                report::diff::differential_pprof(base, new, metrics, &convert, output.writer(), diag)?
            }
        }
        output.commit().with_context(|| format!("{}: writing the differential output", out.to_string_lossy()))?;
    }
    if !to_stdout {
        shown.print(&comparison.report)?;
    }
    match comparison.regression {
        true => Err(Regression.into()),
        false => Ok(()),
    }
}

/// `proftool merge`: every input read in turn and added up, then written as one.
fn merge(
    inputs: &[PathBuf],
    output: &Path,
    (from, to): (Option<Format>, Option<Format>),
    merge_threads: bool,
    (options, filters, read_args): (&ConvertOptions, &Filters, &ReadArgs),
    diag: &mut Diagnostics,
) -> Result<()> {
    if inputs.iter().filter(|path| path.as_path() == Path::new("-")).count() > 1 {
        return Err(Usage("merge: standard input (-) can be read once".into()).into());
    }
    let target = output_format(output, to)?;
    let read_options = reading_for(target, &read_args.options(), options);
    let progress = match std::io::stderr().is_terminal() && inputs.len() > 1 {
        true => indicatif::ProgressBar::new(inputs.len() as u64).with_finish(indicatif::ProgressFinish::AndClear),
        false => indicatif::ProgressBar::hidden(),
    };
    let mut merger = proftool::merge::Merger::new(merge_threads).with_interval(options.interval);
    for path in inputs {
        let input = InputArgs { path, from, max_size: read_args.max_input_size };
        let (profile, _, _) = read(input, &read_options, diag)?;
        merger.add(profile, &input.name(), diag)?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let merged = merger.finish().context("merge: no input")?;
    let merged = filters.apply_to_write(merged, diag)?;
    write_output(merged, output, target, None, options, diag)
}

fn read(
    input: InputArgs<'_>,
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<(proftool::Profile, Format, detect::Reason)> {
    let opened = open(input)?;
    read_opened(input, opened, options, diag)
}

/// `input` opened, its first bytes read.
fn open(input: InputArgs<'_>) -> Result<Input> {
    let name = input.name();
    Input::open_with_limit(input.path, input.max_size).with_context(|| format!("{name}: cannot open"))
}

/// Reads `opened`, the input `input` names, with its warnings named after it.
fn read_opened(
    input: InputArgs<'_>,
    opened: Input,
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<(proftool::Profile, Format, detect::Reason)> {
    let name = input.name();
    let opened = with_progress(opened);
    let mut read_diag = Diagnostics::default();
    let result =
        proftool::read_input_with(opened, input.from, options, &mut read_diag).with_context(|| name.to_string());
    for warning in read_diag.take() {
        diag.push(proftool::diag::Warning {
            position: None,
            message: format!("{name}: {warning}"),
            repeats: 0,
            ..warning
        });
    }
    result
}

/// Shows a progress bar on stderr while a large file is read, when stderr is a terminal.
fn with_progress(input: Input) -> Input {
    const LARGE: u64 = 32 << 20;
    match input.len() {
        Some(len) if len >= LARGE && std::io::stderr().is_terminal() => {
            let bar = indicatif::ProgressBar::new(len).with_finish(indicatif::ProgressFinish::AndClear).with_style(
                indicatif::ProgressStyle::with_template("reading {bar:40} {bytes}/{total_bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_position(input.head().len() as u64);
            input.map_rest(|rest| Box::new(bar.wrap_read(rest)))
        }
        _ => input,
    }
}
