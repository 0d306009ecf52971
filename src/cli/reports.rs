//! What the reports (`summary`, `calls`, `tree` and `data`, `]PROFILE`'s reports for every format)
//! share: the function they are asked about, and how one is read, prepared and printed.

use super::args::{InputArg, ReportCommon};
use super::error::Usage;
use super::io::{read, InputSpec};
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::formats::Format;
use proftool::model::filter;
use proftool::report::{Functions, Printer, Report, ReportOptions, View};

/// The function of `calls` and `data`: by name, or with `--regex` every one a regex matches.
#[derive(clap::Args)]
pub(super) struct FunctionArgs {
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
    pub(super) fn functions(self) -> Result<Option<Functions>, Usage> {
        let Some(function) = self.function else { return Ok(None) };
        match self.regex {
            true => Ok(Some(Functions::Matching(filter::parse_regex("--fn", &function).map_err(Usage)?))),
            false => Ok(Some(Functions::Named(function))),
        }
    }
}

/// Reads the input of a report, prepares it as `options` ask, and prints what `make` makes of it.
pub(super) fn run_report<P: Printer>(
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
