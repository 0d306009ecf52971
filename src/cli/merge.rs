//! `proftool merge IN… -o OUT`: profiles added up.

use super::args::{format_parser, WriteCommon};
use super::error::Usage;
use super::io::{output_format, read, refuse_overwriting, write_output, InputSpec};
use anyhow::{Context, Result};
use proftool::diag::Diagnostics;
use proftool::merge::Merger;
use proftool::Format;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

pub const EXAMPLES: &str = "\
Examples:
  proftool merge runs/*.prof -o all.pb.gz
  proftool merge --merge-threads a.sampler b.sampler -o both.sampler
  cat today.folded | proftool merge - yesterday.folded -o two-days.folded";

#[derive(clap::Args)]
pub struct MergeArgs {
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
    common: WriteCommon,
}

impl MergeArgs {
    /// Every input read in turn and added up, then written as one.
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        if self.inputs.iter().filter(|path| path.as_path() == Path::new("-")).count() > 1 {
            return Err(Usage("merge: standard input (-) can be read once".into()).into());
        }
        let (mut options, filters) = (self.common.options(), self.common.select.filters()?);
        let target = output_format(&self.output, self.to, diag)?;
        self.common.write.check_target(target)?;
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        refuse_overwriting(&self.output, &inputs)?;
        let read_options = proftool::convert::reading_for(target, self.common.read.options_writing(target), &options);
        let progress = match std::io::stderr().is_terminal() && self.inputs.len() > 1 {
            true => {
                indicatif::ProgressBar::new(self.inputs.len() as u64).with_finish(indicatif::ProgressFinish::AndClear)
            }
            false => indicatif::ProgressBar::hidden(),
        };
        let mut input_size = 0;
        let mut merger = Merger::new(self.merge_threads).with_interval(options.interval);
        for path in &self.inputs {
            let input = InputSpec { path, from: self.from, max_size: self.common.read.max_input_size };
            let read = read(input, &read_options, diag)?;
            input_size += read.size;
            merger.add(read.profile, &input.name(), diag)?;
            progress.inc(1);
        }
        progress.finish_and_clear();
        let mut merged = merger.finish().context("merge: no input")?;
        self.common.select.choose_metric(&mut merged)?;
        let merged = filters.apply_to_write(merged, diag)?;
        options.input_size = Some(input_size);
        write_output(merged, &self.output, target, &inputs, &options, diag)
    }
}
