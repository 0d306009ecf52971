//! `proftool diff BASE NEW`: the table, the CI gate, the differential outputs.

use super::args::{format_parser, fraction, non_negative, OutputLimitArg, ReportCommon};
use super::error::{Regression, Usage};
use super::io::{open, read_opened, refuse_overwriting, stream_name, InputSpec};
use anyhow::{Context, Result};
use proftool::convert::ConvertOptions;
use proftool::diag::Diagnostics;
use proftool::files::Output;
use proftool::merge::Merger;
use proftool::model::filter::Filters;
use proftool::report::diff::{self, DiffOptions, Matching, MinAbs, Side};
use proftool::report::{ReportOptions, View};
use proftool::{Format, ReadOptions};
use std::path::{Path, PathBuf};

pub const EXAMPLES: &str = "\
Examples:
  proftool diff main.prof pr.prof || echo \"exit $?: 3 is a regression\"
  proftool diff --base main-*.prof --new pr-*.prof          several runs a side
  proftool diff --format markdown main.prof pr.prof > comment.md
  proftool diff --format junit main.prof pr.prof > gate.xml
  proftool diff --no-stats --threshold 2 main.prof pr.prof  the plain threshold, no test
  proftool diff --exclusive --format json base.pb.gz new.pb.gz > diff.json
  proftool diff --to svg diff.svg before.folded after.folded
  proftool diff --to folded - before.tree after.tree | inferno-flamegraph > diff.svg

The gate: a function fails where its share grew clearly (a one-sided test against the noise of its
metric, sampling and a floor of how much runs vary, over the functions that could pass the limits
at a 5 % false discovery rate) and largely (--threshold 1 point, --relative 10 %, --min-abs).
Record several runs a side: one run a side fails only a function that appears or grows by 15
points or more (less is \"inconclusive\": single runs of one program differ that much); five runs
catch a function doing twice its work and tell a function that swings between runs from one that
regressed. Measured metrics (calls, callgrind's events, traced time) get the limits alone; a metric
not known to be sampled, and delays (Go's block and mutex profiles), need several runs a side (one
is \"inconclusive\"). docs/gate.md has the method and its false alarms and power on real recordings.

Exit codes: 0 no regression (or inconclusive), 3 a function failed the gate, 1 a failed run, 2 a
usage error.";

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The profile compared against (the main branch's, yesterday's).
    #[arg(value_name = "BASE", required_unless_present = "base_runs", conflicts_with = "base_runs")]
    base: Option<PathBuf>,
    /// The profile compared (the pull request's, today's).
    #[arg(value_name = "NEW", required_unless_present = "new_runs", conflicts_with = "new_runs")]
    new: Option<PathBuf>,
    /// Several runs of BASE (`--base main-*.prof`): the gate tests the spread between runs.
    #[arg(long = "base", value_name = "RUN", num_args = 1.., requires = "new_runs")]
    base_runs: Vec<PathBuf>,
    /// Several runs of NEW (`--new pr-*.prof`).
    #[arg(long = "new", value_name = "RUN", num_args = 1.., requires = "base_runs")]
    new_runs: Vec<PathBuf>,
    /// Input format of both (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
    from: Option<Format>,
    /// Sort and gate by self values (excluding the functions called) instead of totals.
    #[arg(long, aliases = super::args::profile_abbreviations("exclusive"))]
    exclusive: bool,
    /// Compare the values themselves (NEW's in BASE's unit) instead of shares of each total.
    #[arg(long)]
    absolute: bool,
    /// Fail (exit 3) when a function's share grew by more than P points [default: 1 with the
    /// sampling test; none with --no-stats].
    #[arg(long, value_name = "P", value_parser = non_negative, allow_negative_numbers = true, help_heading = "Gate")]
    threshold: Option<f64>,
    /// And by at least R % of its share in BASE [default: 10 with the sampling test].
    #[arg(long, value_name = "R", value_parser = non_negative, allow_negative_numbers = true, help_heading = "Gate")]
    relative: Option<f64>,
    /// And by at least V, so that noise in tiny functions does not fail a build: a number in the
    /// metric's unit (BASE's), or time or bytes (`50ms`, `4KiB`), put in it.
    #[arg(long, value_name = "V", value_parser = MinAbs::parse, allow_negative_numbers = true, help_heading = "Gate")]
    min_abs: Option<MinAbs>,
    /// The false discovery rate of the sampling test over all functions: the share of flagged
    /// functions expected to be noise, and the chance that two runs of one program fail.
    #[arg(long, value_name = "Q", default_value_t = diff::DEFAULT_FALSE_DISCOVERY_RATE, value_parser = fraction, help_heading = "Gate")]
    fdr: f64,
    /// No sampling test: the limits alone, as --threshold (and --min-abs) gated before.
    #[arg(long, help_heading = "Gate")]
    no_stats: bool,
    /// How much a share varies between runs of one unchanged program beyond sampling, in percent
    /// of the share: the test's floor, which one run a side cannot measure (docs/gate.md).
    #[arg(long, value_name = "PCT", default_value_t = diff::DEFAULT_RUN_FLOOR * 100.0, value_parser = non_negative, help_heading = "Gate")]
    run_floor: f64,
    /// Gate a producer's pseudo-frames too: (idle), (program), (garbage collector), Go's
    /// runtime._GC; by default they are reported, not gated.
    #[arg(long, help_heading = "Gate")]
    gate_pseudo: bool,
    /// Keep names as they are: by default the parts of a name that differ between runs or builds
    /// (addresses, Rust build hashes, GCC clone numbers, Java lambda numbers, JIT pids) are taken
    /// out, so that one function of two runs is one row (docs/gate.md).
    #[arg(long)]
    exact_names: bool,
    /// List each name made comparable across runs and what it became, on stderr, to see what was
    /// matched to what.
    #[arg(long, conflicts_with = "exact_names")]
    explain_names: bool,
    /// Compare threads and processes by name, as functions; by default they are matched as if
    /// merged, since two runs name theirs apart (a thread id, a pid).
    #[arg(long)]
    by_thread: bool,
    /// Also write a differential output: `folded` (stack base new, as inferno-diff-folded writes),
    /// `svg` (the differential flame graph) or `pprof` (NEW minus BASE, BASE's samples negated and
    /// labelled pprof::base=true, as go tool pprof -diff_base writes) or `html` (a page to look at:
    /// NEW's flame graph coloured by change, BASE on hover, the gate's verdict); OUT may be - for
    /// stdout, and then the table is not printed.
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
        let to = self.differential_output()?;
        let runs = |one: &Option<PathBuf>, several: &[PathBuf]| one.iter().chain(several).cloned().collect::<Vec<_>>();
        let (base_runs, new_runs) = (runs(&self.base, &self.base_runs), runs(&self.new, &self.new_runs));
        let every: Vec<&Path> = base_runs.iter().chain(&new_runs).map(PathBuf::as_path).collect();
        if every.iter().filter(|path| **path == Path::new("-")).count() > 1 {
            return Err(Usage("diff: standard input (-) can be read once: name files for the others".into()).into());
        }
        if let Some((_, out)) = &to {
            refuse_overwriting(out, &every)?;
        }
        let options = self.diff_options();
        let matching = Matching { interval: self.common.report.interval, by_thread: self.by_thread };
        let filters = self.common.select.filters()?;
        // How each side is shown; matching adds the filter that hides threads.
        let mut view_options = ReportOptions {
            lines: self.common.select.lines,
            bias: self.common.report.bias,
            filters: Default::default(),
            relative: false,
            measured_times: false,
            // Where a profile states none, its counts show (`--unit`) and are floored (`--min-abs`)
            // as time at it, as matching turns them.
            interval: self.common.report.interval,
        };
        let read_options = view_options.reading(self.common.read.options());
        let (mut read, input_size) = self.read_runs(&every, &read_options, &filters, diag)?;
        let new_read = read.split_off(base_runs.len());
        let names = [&base_runs, &new_runs].map(|runs| side_label(runs));
        let (mut base, base_runs) = merge_runs(read, &names[0], diag)?;
        let (mut new, new_runs) = merge_runs(new_read, &names[1], diag)?;
        if let Some(name) = &self.common.select.metric {
            diff::choose_metric(&mut base, &mut new, name)?;
        }
        let matched = diff::match_profiles(base, new, &matching, diag)?;
        // The profiles are kept beside their views only for a differential output.
        let kept = to.as_ref().map(|_| matched.clone());
        // Each profile is shown by the metric it is compared by, which matching chose in it.
        let diff::Matched { base, new, threads, .. } = matched;
        view_options.filters = threads;
        let side = |profile: proftool::Profile, runs: Option<Vec<proftool::Profile>>| {
            let view = View::new(profile, &view_options)?;
            anyhow::Ok(match runs {
                None => Side::of_one_run(view),
                Some(runs) => Side::of_runs(view, runs, &view_options)?,
            })
        };
        // The profiles move into their views: a copy of each is kept only for a differential output.
        let (base_side, new_side) = (side(base, base_runs)?, side(new, new_runs)?);
        // Values are shown in BASE's unit.
        base_side.view.check_unit(self.common.report.unit())?;
        let comparison = diff::compare(&base_side, &new_side, (&names[0], &names[1]), &options)?;
        let to_stdout = to.as_ref().is_some_and(|(_, out)| out == Path::new("-"));
        if let (Some((kind, out)), Some(matched)) = (to, kept) {
            let mut convert = ConvertOptions::default();
            (convert.functions, convert.lines) = (self.common.select.functions, self.common.select.lines);
            (convert.input_size, convert.max_output_size) = (Some(input_size), self.output_limit.max_output_size);
            let out_name = stream_name(&out);
            let mut output = Output::create(&out, &every).with_context(|| format!("{out_name}: cannot create"))?;
            let labels = (names[0].as_str(), names[1].as_str());
            diff::write_differential(
                kind,
                matched,
                labels,
                (&convert, self.negate),
                (comparison.regression, comparison.judged()),
                output.writer(),
                diag,
            )?;
            output.commit().with_context(|| format!("{out_name}: writing the differential output"))?;
        }
        if !to_stdout {
            if self.common.report.format == proftool::report::Format::Junit {
                comparison.report.printer().warn_names_junit_escapes(diag);
            }
            self.common.report.print(&comparison.report)?;
        }
        match comparison.regression {
            true => Err(Regression.into()),
            false => Ok(()),
        }
    }
}

impl DiffArgs {
    /// The differential output `--to FORMAT OUT` asks for, if any: a format that writes a
    /// comparison.
    fn differential_output(&self) -> Result<Option<(Format, PathBuf)>> {
        Ok(match &self.to[..] {
            [name, out] => {
                let format = (Format::from_name(name).filter(|f| f.differential().is_some()))
                    .ok_or_else(|| Usage(diff::no_differential(name)))?;
                Some((format, PathBuf::from(out)))
            }
            _ => None,
        })
    }

    /// What the comparison and its gate are asked, from the flags.
    fn diff_options(&self) -> DiffOptions {
        DiffOptions {
            exclusive: self.exclusive,
            absolute: self.absolute,
            threshold: self.threshold,
            relative: self.relative.map(|percent| percent / 100.0),
            min_abs: self.min_abs,
            false_discovery_rate: (!self.no_stats).then_some(self.fdr),
            run_floor: self.run_floor / 100.0,
            gate_pseudo: self.gate_pseudo,
        }
    }

    /// Every run of both sides read and filtered, in order, their names made comparable across
    /// runs (unless `--exact-names`), and the bytes read.
    fn read_runs(
        &self,
        every: &[&Path],
        read_options: &ReadOptions,
        filters: &Filters,
        diag: &mut Diagnostics,
    ) -> Result<(Vec<proftool::Profile>, u64)> {
        let spec = |path| InputSpec { path, from: self.from, max_size: self.common.read.max_input_size };
        // Every input opened before any is read, so that a missing one stops the run before the
        // others say anything.
        let opened = every.iter().map(|path| open(spec(path))).collect::<Result<Vec<_>>>()?;
        let mut input_size = 0;
        let mut read = Vec::with_capacity(every.len());
        let mut renamed = std::collections::BTreeSet::new();
        for (path, file) in every.iter().zip(opened) {
            let input = read_opened(spec(path), file, read_options, diag)?;
            input_size += input.size;
            let filtered = filters.apply(input.profile)?;
            for note in filtered.notes {
                diag.warn("filtered-metrics", None, || format!("{}: {note}", path.display()));
            }
            let mut profile = filtered.profile;
            if !self.exact_names {
                renamed.extend(diff::names_across_runs(&mut profile));
            }
            read.push(profile);
        }
        if !renamed.is_empty() {
            let (count, hint) = (renamed.len(), if self.explain_names { "" } else { ", --explain-names lists them" });
            diag.warn("diff-names", None, || {
                format!("{count} frame name(s) made comparable across runs: addresses, build hashes, clone, lambda and JIT numbers and py-spy's lines taken out (--exact-names keeps them{hint})")
            });
        }
        if self.explain_names {
            for (name, comparable) in &renamed {
                super::error::say(format_args!(
                    "proftool: name: {} -> {}",
                    name.escape_debug(),
                    comparable.escape_debug()
                ));
            }
        }
        Ok((read, input_size))
    }
}

/// How the heading names a side of `runs`: its file (`<stdin>` for `-`), or its first file and how
/// many runs.
fn side_label(runs: &[PathBuf]) -> String {
    let first = match runs[0] == Path::new("-") {
        true => "<stdin>".to_string(),
        false => runs[0].to_string_lossy().into_owned(),
    };
    match runs.len() {
        1 => first,
        n => format!("{first} and {} more ({n} runs)", n - 1),
    }
}

/// One side's runs as one profile: a single run as it is; several merged (their threads of one name
/// added up, as diff compares threads merged anyway), and kept apart too for the gate's test.
fn merge_runs(
    mut runs: Vec<proftool::Profile>,
    label: &str,
    diag: &mut Diagnostics,
) -> Result<(proftool::Profile, Option<Vec<proftool::Profile>>)> {
    if runs.len() == 1 {
        return Ok((runs.remove(0), None));
    }
    let mut merger = Merger::new(true);
    for (i, run) in runs.iter().enumerate() {
        merger.add(run.clone(), &format!("{label} run {}", i + 1), diag)?;
    }
    let merged = merger.finish().context("diff: a side has no run")?;
    Ok((merged, Some(runs)))
}
