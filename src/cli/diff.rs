//! `proftool diff BASE NEW`: the table, the CI gate, the differential outputs.

use super::args::{format_parser, non_negative, OutputLimitArg, ReportCommon};
use super::error::{Regression, Usage};
use super::io::{open, read_opened, refuse_overwriting, stream_name, InputSpec};
use anyhow::{Context, Result};
use proftool::convert::ConvertOptions;
use proftool::diag::Diagnostics;
use proftool::files::Output;
use proftool::report::diff::{self, DiffOptions, Differential, Matching, MinAbs};
use proftool::report::{ReportOptions, View};
use proftool::Format;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const EXAMPLES: &str = "\
Examples:
  proftool diff main.prof pr.prof
  proftool diff --threshold 2 --min-abs 5 main.prof pr.prof || echo \"exit $?: 3 is a regression\"
  proftool diff --exclusive --format json base.pb.gz new.pb.gz > diff.json
  proftool diff --to svg diff.svg before.folded after.folded
  proftool diff --to folded - before.tree after.tree | inferno-flamegraph > diff.svg
  proftool diff --lines --metric time run1.br run2.br

Exit codes: 0 no regression, 3 a function crossed the limits, 1 a failed run, 2 a usage error.";

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The profile compared against (the main branch's, yesterday's).
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The profile compared (the pull request's, today's).
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Input format of both (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
    from: Option<Format>,
    /// Sort and gate by self values (excluding the functions called) instead of totals.
    #[arg(long, aliases = super::args::profile_abbreviations("exclusive"))]
    exclusive: bool,
    /// Compare the values themselves (NEW's in BASE's unit) instead of shares of each total.
    #[arg(long)]
    absolute: bool,
    /// Fail (exit 3) when a function's share grew by more than P points.
    #[arg(long, value_name = "P", value_parser = non_negative, allow_negative_numbers = true, help_heading = "Gate")]
    threshold: Option<f64>,
    /// Only fail for a growth of at least V, so that noise in tiny functions does not fail a
    /// build: a number in the metric's unit (BASE's), or time or bytes (`50ms`, `4KiB`), put in it.
    #[arg(long, value_name = "V", requires = "threshold", value_parser = MinAbs::parse, allow_negative_numbers = true, help_heading = "Gate")]
    min_abs: Option<MinAbs>,
    /// Compare threads and processes by name, as functions; by default they are matched as if
    /// merged, since two runs name theirs apart (a thread id, a pid).
    #[arg(long)]
    by_thread: bool,
    /// Length of one sample or tick, for comparing counts with time (default: the profile's own
    /// interval, else 1ms).
    #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
    interval: Option<Duration>,
    /// Also write a differential output: `folded` (stack base new, as inferno-diff-folded writes),
    /// `svg` (the differential flame graph) or `pprof` (NEW minus BASE, BASE's samples negated and
    /// labelled pprof::base=true, as go tool pprof -diff_base writes); OUT may be - for stdout, and
    /// then the table is not printed.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "OUT"], help_heading = "Differential output")]
    to: Vec<String>,
    /// With --to svg: box widths from BASE instead of NEW.
    #[arg(long, help_heading = "Differential output")]
    negate: bool,
    #[command(flatten, next_help_heading = "Differential output")]
    output_limit: OutputLimitArg,
    #[command(flatten)]
    common: ReportCommon,
}

impl DiffArgs {
    /// The table (unless the differential output goes to stdout), the differential output asked
    /// for, and [`Regression`] when a function crossed the limits.
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let to = match &self.to[..] {
            [kind, out] => {
                let kind = kind
                    .parse::<Differential>()
                    .map_err(|_| Usage(format!("--to {kind}: a differential output is folded, svg or pprof")))?;
                Some((kind, PathBuf::from(out)))
            }
            _ => None,
        };
        if self.base == Path::new("-") && self.new == Path::new("-") {
            return Err(Usage("diff: standard input (-) can be read once: name a file for BASE or NEW".into()).into());
        }
        if let Some((_, out)) = &to {
            refuse_overwriting(out, &[&self.base, &self.new])?;
        }
        let options = DiffOptions {
            exclusive: self.exclusive,
            absolute: self.absolute,
            threshold: self.threshold,
            min_abs: self.min_abs,
        };
        let matching =
            Matching { metric: self.common.select.metric.clone(), interval: self.interval, by_thread: self.by_thread };
        let filters = self.common.select.filters()?;
        let mut read_options = self.common.read.options();
        read_options.merge_lines = !self.common.select.lines;
        let inputs = [&self.base, &self.new].map(|path| InputSpec {
            path,
            from: self.from,
            max_size: self.common.read.max_input_size,
        });
        // Both opened before either is read, so that a missing NEW stops the run before BASE says anything.
        let [base_input, new_input] = inputs;
        let (base_file, new_file) = (open(base_input)?, open(new_input)?);
        let mut input_size = 0;
        let mut read_one = |input, opened| {
            let read = read_opened(input, opened, &read_options, diag)?;
            input_size += read.size;
            anyhow::Ok(filters.apply(read.profile)?)
        };
        let base = read_one(base_input, base_file)?;
        let new = read_one(new_input, new_file)?;
        let matched = diff::match_profiles(base, new, &matching, diag)?;
        let names = inputs.map(|input| input.name().into_owned());
        // The profiles are kept beside their views only for a differential output.
        let kept = to.as_ref().map(|_| matched.clone());
        let diff::Matched { base, new, metrics, threads } = matched;
        let view = |profile: proftool::Profile, metric: usize| {
            let options = ReportOptions {
                lines: self.common.select.lines,
                metric: Some(profile.metrics()[metric].name.clone()),
                bias: self.common.report.bias,
                filters: threads.clone(),
                relative: false,
                measured_times: false,
            };
            View::new(profile, &options)
        };
        // The profiles move into their views: a copy of each is kept only for a differential output.
        let (base_view, new_view) = (view(base, metrics.0)?, view(new, metrics.1)?);
        // Values are shown in BASE's unit.
        base_view.check_unit(self.common.report.unit())?;
        let comparison = diff::compare(&base_view, &new_view, (&names[0], &names[1]), &options)?;
        let to_stdout = to.as_ref().is_some_and(|(_, out)| out == Path::new("-"));
        if let (Some((kind, out)), Some(matched)) = (to, kept) {
            let mut convert = ConvertOptions::default();
            (convert.functions, convert.lines) = (self.common.select.functions, self.common.select.lines);
            (convert.input_size, convert.max_output_size) = (Some(input_size), self.output_limit.max_output_size);
            let out_name = stream_name(&out);
            let mut output =
                Output::create(&out, &[&self.base, &self.new]).with_context(|| format!("{out_name}: cannot create"))?;
            let labels = (names[0].as_str(), names[1].as_str());
            diff::write_differential(kind, matched, labels, (&convert, self.negate), output.writer(), diag)?;
            output.commit().with_context(|| format!("{out_name}: writing the differential output"))?;
        }
        if !to_stdout {
            self.common.report.print(&comparison.report)?;
        }
        match comparison.regression {
            true => Err(Regression.into()),
            false => Ok(()),
        }
    }
}
