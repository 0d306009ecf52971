//! The command line: the arguments of each command (one file per command), what each runs, and
//! the exit code of what happened. What a command computes is the library's; a command here maps its
//! arguments to it and prints what it returns.

mod args;
mod calls;
mod completions;
mod convert;
mod data;
mod diff;
mod error;
mod formats;
mod help;
mod info;
mod io;
mod man;
mod merge;
mod reports;
mod summary;
mod tree;
mod view;

pub use error::{clean_up_on_signals, exit_code, is_option_error, say, with_one_dash_hint};

use anyhow::Result;
use clap::{Parser, Subcommand};
use proftool::diag::Diagnostics;

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
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Do not print warnings.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Name each thing the output has no place for in a line of its own (by default they share one
    /// line per output format; losses of numbers always have their own).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Convert a profile from one format to another.
    ///
    /// The input format is named by --from, else recognised by content, else by extension. The output
    /// format is named by --to, else by OUT's extension. Everything the output format cannot hold is
    /// named on stderr, one line each. The output file appears only when the conversion succeeded.
    #[command(after_help = convert::EXAMPLES)]
    Convert(convert::ConvertArgs),
    /// Compare two profiles: what changed per function, a gate for CI, differential outputs.
    ///
    /// Each function's self and total share of its profile's total in BASE and NEW, and the change in
    /// points, largest first; functions in one profile only are new or gone. With --threshold, a
    /// function whose share grew by more than that fails the run with exit code 3 (1: a failed run,
    /// 2: a usage error). Each profile is compared by its own default metric (samples, ticks and
    /// time convert at an interval); threads and processes are matched as if merged.
    #[command(after_help = diff::EXAMPLES)]
    Diff(diff::DiffArgs),
    /// Add profiles together: the runs of a fleet, the samples of many machines, as one profile.
    ///
    /// Equal stacks add up; metrics must be of the same kinds (ms and ns add as time). Each input's
    /// threads stay apart (named after their input) unless --merge-threads. Inputs are read one at a
    /// time, so memory grows with the merged profile, not with the number of inputs.
    #[command(after_help = merge::EXAMPLES)]
    Merge(merge::MergeArgs),
    /// Consumption per function (or per source line): self and total, their %, calls.
    ///
    /// `]PROFILE summary` for every readable format. Sorted by total, or by self with --exclusive. A
    /// recursive function's total counts each sample once, however often it is on the stack.
    #[command(after_help = summary::EXAMPLES)]
    Summary(summary::SummaryArgs),
    /// How a function's consumption breaks down by caller, or by callee with --callees.
    #[command(after_help = calls::EXAMPLES)]
    Calls(calls::CallsArgs),
    /// The call tree, indented, with total, self and % per node, heaviest first.
    #[command(after_help = tree::EXAMPLES)]
    Tree(tree::TreeArgs),
    /// The figures of each function and of each of its lines: calls, inclusive and exclusive values.
    ///
    /// `]PROFILE data`: every metric that adds up (for a Dyalog report its times, as measured, without
    /// the timer bias unless --bias is given, and its timer inspections), a function's row, then its
    /// lines'.
    #[command(after_help = data::EXAMPLES)]
    Data(data::DataArgs),
    /// Show what a profile holds: format, header, metrics and totals, tree size, heaviest functions.
    #[command(after_help = info::EXAMPLES)]
    Info(info::InfoArgs),
    /// Open a profile in the browser: its HTML page (flame graph, search, functions, callers and
    /// callees), written to a temporary file.
    #[command(after_help = view::EXAMPLES)]
    View(view::ViewArgs),
    /// List every format: name, extensions, read, write, and what it carries.
    Formats,
    /// Print a completion script for a shell, to install where the shell looks for them.
    #[command(after_help = completions::EXAMPLES)]
    Completions(completions::CompletionsArgs),
    /// Write proftool's manual pages (roff), made from this help: proftool.1 and one per subcommand.
    #[command(after_help = man::EXAMPLES)]
    Man(man::ManArgs),
    /// Print the help of proftool, or of one of its commands (what --help prints).
    #[command(after_help = help::EXAMPLES)]
    Help(help::HelpArgs),
}

impl Command {
    /// Runs the command, its warnings gathered in `diag`.
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        match self {
            Command::Convert(args) => args.run(diag),
            Command::Diff(args) => args.run(diag),
            Command::Merge(args) => args.run(diag),
            Command::Summary(args) => args.run(diag),
            Command::Calls(args) => args.run(diag),
            Command::Tree(args) => args.run(diag),
            Command::Data(args) => args.run(diag),
            Command::Info(args) => args.run(diag),
            Command::View(args) => args.run(diag),
            Command::Formats => formats::formats(),
            Command::Completions(args) => args.run(),
            Command::Man(args) => args.run(),
            Command::Help(args) => args.run(),
        }
    }
}
