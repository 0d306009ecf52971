//! `proftool convert IN OUT`.

use super::args::{format_parser, WriteCommon};
use super::io::{output_format, read, refuse_overwriting, write_output, InputSpec};
use anyhow::Result;
use proftool::diag::Diagnostics;
use proftool::Format;
use std::path::PathBuf;

pub const EXAMPLES: &str = "\
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

#[derive(clap::Args)]
pub struct ConvertArgs {
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
    common: WriteCommon,
}

impl ConvertArgs {
    /// The conversion of `input` to `output` in `to` (else as its extension says).
    pub(super) fn new(
        input: PathBuf,
        output: PathBuf,
        from: Option<Format>,
        to: Option<Format>,
        common: WriteCommon,
    ) -> ConvertArgs {
        ConvertArgs { input, output, from, to, common }
    }

    /// Reads the input, filters it, and writes it as the output's format.
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let filters = self.common.select.filters()?;
        let mut options = self.common.options();
        let input = InputSpec { path: &self.input, from: self.from, max_size: self.common.read.max_input_size };
        let target = output_format(&self.output, self.to, diag)?;
        self.common.write.check_target(target)?;
        refuse_overwriting(&self.output, &[&self.input])?;
        let reading = proftool::convert::reading_for(target, self.common.read.options_writing(target), &options);
        let mut read = read(input, &reading, diag)?;
        self.common.select.choose_metric(&mut read.profile)?;
        let mut profile = filters.apply_to_write(read.profile, diag)?;
        if let Some(kind) = self.common.write.dyalog_report {
            let (report, notes) = proftool::report::flat_report(profile, kind)?;
            for note in notes {
                diag.warn("report-times", None, || format!("{}: {note}", self.input.display()));
            }
            profile = report;
        } else if !matches!(target, Format::DyalogXml | Format::DyalogCsv) {
            if let Some(note) = proftool::report::take_off_timer_bias(&mut profile)? {
                diag.warn("report-times", None, || format!("{}: {note}", self.input.display()));
            }
        }
        // A page is titled by what it shows: the profile's title, else its file's name (perf, pprof,
        // V8 and JFR name no title).
        if target == Format::Html && profile.meta.title.is_none() {
            profile.meta.title = self.input.file_name().map(|name| name.to_string_lossy().into_owned());
        }
        options.input_size = Some(read.size);
        write_output(profile, &self.output, target, &[&self.input], &options, diag)
    }
}
