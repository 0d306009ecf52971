//! `proftool data`: the figures of each function and of each of its lines, `]PROFILE data` for
//! every format.

use super::args::{InputArg, ReportCommon, SelectArgs};
use super::reports::{run_report, FunctionArgs};
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::report::{self, DataOptions, ReportOptions};

pub const EXAMPLES: &str = "\
Examples:
  proftool data --fn '#.ch.CH∆Q' tree.xml                one function and its lines, as measured
  proftool data --regex --fn '^#\\.ch\\.' tree.xml        the functions a regex matches
  proftool data --format csv tree.xml > data.csv         every function, for a spreadsheet";

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
