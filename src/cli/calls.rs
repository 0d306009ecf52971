//! `proftool calls`: how a function's consumption breaks down by caller, or by callee.

use super::args::{InputArg, RankArgs, ReportCommon};
use super::error::Usage;
use super::reports::{run_report, FunctionArgs};
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::report::{self, CallsOptions};

pub const EXAMPLES: &str = "\
Examples:
  proftool calls --fn '#.ch.Set' tree.xml                who calls it, and for how much
  proftool calls --fn CL-USER::FIB --callees run.tree    what it spends in what it calls
  proftool calls --regex --fn '^Main\\.' prog.prof        one block per matching function";

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
