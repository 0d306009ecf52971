//! `proftool tree`: the call tree, indented, heaviest first.

use super::args::{non_negative, InputArg, ReportCommon};
use super::reports::run_report;
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::report::{self, TreeOptions};

pub const EXAMPLES: &str = "\
Examples:
  proftool tree run.tree                                 the whole tree
  proftool tree --depth 5 --min-pct 1 prog.prof          the top of it, without small branches
  proftool tree --fn '#.ch.Step' tree.xml                the subtrees of one function";

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
