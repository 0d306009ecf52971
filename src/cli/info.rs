//! `proftool info IN`: what a profile holds.

use super::args::{format_parser, ReadArgs};
use super::io::{read, InputSpec};
use anyhow::{Context, Result};
use proftool::diag::Diagnostics;
use proftool::info::Info;
use proftool::Format;
use std::io::Write;
use std::path::PathBuf;

pub const EXAMPLES: &str = "\
Examples:
  proftool info run.tree                                 what a profile holds
  proftool info prog.prof.gz                             a gzip-compressed input
  proftool info --json prog.prof | jq '.metrics'         as JSON
  perf script | proftool info -                          perf's text from standard input
  perf script | inferno-collapse-perf | proftool info --folded-unit ns -
                                                         folded stacks whose counts are
                                                         inferno's periods (cpu-clock: ns)
  proftool info --from ghc-px - < prog.prof              a format named";

#[derive(clap::Args)]
pub struct InfoArgs {
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
}

impl InfoArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let input = InputSpec { path: &self.input, from: self.from, max_size: self.read.max_input_size };
        let super::io::Read { profile, format, reason, .. } = read(input, &self.read.options(), diag)?;
        let info = Info::of(&profile, format, reason);
        let text = match self.json {
            true => serde_json::to_string_pretty(&info)? + "\n",
            false => proftool::report::safe_text::escaped(&info.to_text()),
        };
        std::io::stdout().write_all(text.as_bytes()).context("stdout")
    }
}
