//! `proftool summary`: consumption per function (or per source line), `]PROFILE summary` for every
//! format.

use super::args::{InputArg, RankArgs, ReportCommon};
use super::reports::run_report;
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::report::{self, SummaryOptions};

pub const EXAMPLES: &str = "\
Examples:
  proftool summary --lines run.br                        the listing BR's profiler.exe gives
  proftool summary run.tree                              a LispWorks tree, per function
  proftool summary --exclusive --decimal 3 --cumpct --pct 65 tree.xml
  proftool summary --avg --bias 0 --first 3 tree.xml     Dyalog times without the timer bias
  proftool summary --fn '#.ch.Step' tree.xml             what one function calls
  proftool summary --focus fib --format csv prog.prof    for a script";

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
