//! The reports: `summary`, `calls`, `tree` and `data` (`]PROFILE`'s reports, for every format).

use super::args::{non_negative, InputArg, RankArgs, ReportCommon, SelectArgs};
use super::error::Usage;
use super::io::{read, InputSpec};
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::formats::Format;
use proftool::model::filter;
use proftool::report::{
    self, CallsOptions, DataOptions, Functions, Printer, Report, ReportOptions, SummaryOptions, TreeOptions, View,
};

pub const SUMMARY_EXAMPLES: &str = "\
Examples:
  proftool summary --lines run.br                        the listing BR's profiler.exe gives
  proftool summary run.tree                              a LispWorks tree, per function
  proftool summary --exclusive --decimal 3 --cumpct --pct 65 tree.xml
  proftool summary --avg --bias 0 --first 3 tree.xml     Dyalog times without the timer bias
  proftool summary --fn '#.ch.Step' tree.xml             what one function calls
  proftool summary --focus fib --format csv prog.prof    for a script";

pub const CALLS_EXAMPLES: &str = "\
Examples:
  proftool calls --fn '#.ch.Set' tree.xml                who calls it, and for how much
  proftool calls --fn CL-USER::FIB --callees run.tree    what it spends in what it calls
  proftool calls --regex --fn '^Main\\.' prog.prof        one block per matching function";

pub const DATA_EXAMPLES: &str = "\
Examples:
  proftool data --fn '#.ch.CH∆Q' tree.xml                one function and its lines, as measured
  proftool data --regex --fn '^#\\.ch\\.' tree.xml        the functions a regex matches
  proftool data --format csv tree.xml > data.csv         every function, for a spreadsheet";

pub const TREE_EXAMPLES: &str = "\
Examples:
  proftool tree run.tree                                 the whole tree
  proftool tree --depth 5 --min-pct 1 prog.prof          the top of it, without small branches
  proftool tree --fn '#.ch.Step' tree.xml                the subtrees of one function";

#[derive(clap::Args)]
pub struct SummaryArgs {
    #[command(flatten)]
    input: InputArg,
    #[command(flatten)]
    rank: RankArgs,
    /// Only what the named function calls, its own row included; NAME,NAME… drills down: what
    /// the second calls under the first, and so on.
    #[arg(long = "fn", value_name = "NAME", value_delimiter = ',')]
    fn_path: Vec<String>,
    #[command(flatten)]
    common: ReportCommon,
}

impl SummaryArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let options = SummaryOptions { ranking: self.rank.ranking(), functions: self.fn_path };
        run_report(&self.input, &self.common, self.common.options()?, diag, |view| report::summary(view, &options))
    }
}

/// The function of `calls` and `data`: by name, or with `--regex` every one a regex matches.
#[derive(clap::Args)]
pub struct FunctionArgs {
    /// The function, by a report's name for it (`#.ch.Set`, `Main.fib`, `CL-USER::FIB`, quoted as
    /// it is: no character is special), or with --regex a regex.
    #[arg(long = "fn", value_name = "NAME")]
    function: Option<String>,
    /// Take --fn as a regex: every function it matches (calls: one block each).
    #[arg(long, requires = "function")]
    regex: bool,
}

impl FunctionArgs {
    /// The functions these name, if any; an invalid regex is a usage error.
    fn functions(self) -> Result<Option<Functions>, Usage> {
        let Some(function) = self.function else { return Ok(None) };
        match self.regex {
            true => Ok(Some(Functions::Matching(filter::parse_regex("--fn", &function).map_err(Usage)?))),
            false => Ok(Some(Functions::Named(function))),
        }
    }
}

#[derive(clap::Args)]
#[command(mut_arg("function", |fn_arg| fn_arg.required(true)))]
pub struct CallsArgs {
    #[command(flatten)]
    input: InputArg,
    #[command(flatten)]
    function: FunctionArgs,
    /// What the function spends in each function it calls, instead of its callers.
    #[arg(long)]
    callees: bool,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    common: ReportCommon,
}

impl CallsArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        // Clap requires --fn here.
        let functions = self.function.functions()?.ok_or_else(|| Usage("--fn is required".into()))?;
        let options = CallsOptions { functions, callees: self.callees, ranking: self.rank.ranking() };
        run_report(&self.input, &self.common, self.common.options()?, diag, |view| report::calls(view, &options))
    }
}

#[derive(clap::Args)]
pub struct TreeArgs {
    #[command(flatten)]
    input: InputArg,
    /// Show N levels (roots are level 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Leave out branches under P % of the total, saying how much was left out.
    #[arg(long, value_name = "P", value_parser = non_negative, allow_negative_numbers = true)]
    min_pct: Option<f64>,
    /// The subtrees rooted at the named function; NAME,NAME… drills down.
    #[arg(long = "fn", value_name = "NAME", value_delimiter = ',')]
    fn_path: Vec<String>,
    #[command(flatten)]
    common: ReportCommon,
}

impl TreeArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let options = TreeOptions { depth: self.depth, min_pct: self.min_pct, functions: self.fn_path };
        run_report(&self.input, &self.common, self.common.options()?, diag, |view| report::tree(view, &options))
    }
}

#[derive(clap::Args)]
pub struct DataArgs {
    #[command(flatten)]
    input: InputArg,
    #[command(flatten)]
    function: FunctionArgs,
    #[command(flatten)]
    common: ReportCommon,
}

impl DataArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let functions = self.function.functions()?;
        // Lines always, as `]PROFILE data` gives them.
        let select = SelectArgs { lines: true, functions: false, ..self.common.select };
        let common = ReportCommon { select, ..self.common };
        let options = DataOptions { functions };
        let measured = ReportOptions { measured_times: true, ..common.options()? };
        run_report(&self.input, &common, measured, diag, |view| report::data(view, &options))
    }
}

/// Reads the input of a report, prepares it as `options` ask, and prints what `make` makes of it.
fn run_report<P: Printer>(
    input: &InputArg,
    common: &ReportCommon,
    options: ReportOptions,
    diag: &mut Diagnostics,
    make: impl FnOnce(View) -> Result<Report<P>, proftool::Error>,
) -> Result<()> {
    if common.report.format.is_diff_s() {
        return Err(Usage(format!(
            "--format {}: only diff writes it (a CI verdict); reports print text, csv or json",
            common.report.format
        ))
        .into());
    }
    let input = InputSpec { path: &input.input, from: input.from, max_size: common.read.max_input_size };
    let read = read(input, &options.reading(common.read.options()), diag)?;
    if common.read.dyalog_separators.is_some() && read.format != Format::DyalogCsv {
        // Reports print plain CSV (`--format csv`), whose separators are `.,`: the switch would be
        // silently ignored.
        return Err(Usage(format!(
            "--dyalog-separators: the input is {}, not a Dyalog CSV report: a report's --format csv is plain CSV; write a Dyalog CSV report with `proftool convert --to dyalog-csv --dyalog-separators DF`",
            read.format
        ))
        .into());
    }
    let mut profile = read.profile;
    common.select.choose_metric(&mut profile)?;
    let view = View::new(profile, &options)?;
    view.check_unit(common.report.unit())?;
    for note in view.notes() {
        diag.warn("report-times", None, || format!("{}: {note}", input.path.display()));
    }
    let report = make(view)?;
    common.report.print(&report)?;
    Ok(())
}
