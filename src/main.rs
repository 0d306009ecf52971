//! The `proftool` command: parses arguments, runs the library, reports warnings and errors.
//!
//! Exit codes: 0 success (also when stdout is a pipe that closed early, as `| head` does), 1 a failed
//! run, 2 a usage error (clap's own).

use anyhow::{Context, Result};
use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand};
use proftool::convert::ConvertOptions;
use proftool::diag::Diagnostics;
use proftool::files::{Input, Output};
use proftool::formats::br;
use proftool::formats::detect;
use proftool::formats::dyalog::Separators;
use proftool::formats::sampler::FrameOrder;
use proftool::info::Info;
use proftool::{Format, ReadOptions};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

const EXAMPLES: &str = "\
Examples:
  proftool convert run.tree run.folded
  proftool convert --from lispworks --to folded - - < run.tree | inferno-flamegraph > run.svg
  proftool convert run.tree run.sampler
  proftool convert --sampler-order root-first trace.sampler trace.folded
  proftool convert --lines --interval 10us tree.xml tree.folded
  proftool convert --dyalog-separators ',;' tree.xml tree.csv
  proftool convert --br-backtrace outermost-first run.br run.folded
  proftool convert --br-mode sampled run.br copy.br
  proftool convert prog.prof prog.folded
  proftool convert run.tree flame.svg
  proftool convert prog.prof prog.speedscope.json
  proftool convert tree.xml tree.pb.gz && go tool pprof -http=: tree.pb.gz
  proftool info run.tree
  proftool info --json run.tree | jq '.metrics'
  proftool formats

Exit codes: 0 success, 1 failed run, 2 usage error.";

/// Convert profiler output between formats through one call-tree model.
#[derive(Parser)]
#[command(name = "proftool", version, after_help = EXAMPLES, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Do not print warnings.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a profile from one format to another.
    ///
    /// The input format is named by --from, else recognised by content, else by extension. The output
    /// format is named by --to, else by OUT's extension. Everything the output format cannot hold is
    /// named on stderr, one line each. The output file appears only when the conversion succeeded.
    #[command(
        after_help = "Examples:\n  proftool convert run.tree run.folded\n  cat run.tree | proftool convert --from lispworks --to folded - -"
    )]
    Convert {
        /// Input file, or - for standard input.
        #[arg(value_name = "IN")]
        input: String,
        /// Output file, or - for standard output.
        #[arg(value_name = "OUT")]
        output: String,
        /// Input format (default: detected).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Output format (default: from OUT's extension).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_write))]
        to: Option<Format>,
        /// The metric to write when the output holds one number per node (default: samples, else
        /// time, else ticks, else allocation, else calls).
        #[arg(long, value_name = "NAME")]
        metric: Option<String>,
        /// Length of one sample, for turning time into samples (default: the input's own interval,
        /// else 1ms). Examples: 10ms, 250us, 1s.
        #[arg(long, value_name = "DURATION", value_parser = proftool::parse_interval)]
        interval: Option<Duration>,
        /// The most sample records to write to a format with one record per sample (Sampler, BR); a
        /// conversion that would write more stops with an error instead of filling the disk.
        #[arg(long, value_name = "N", default_value_t = proftool::convert::DEFAULT_MAX_SAMPLES)]
        max_samples: u64,
        /// Merge source-line frames (Dyalog line rows) into their functions, whatever the output
        /// format; formats without line numbers always get functions.
        #[arg(long)]
        functions: bool,
        /// Keep source-line frames in output formats without line numbers, as functions named
        /// `name[line]` (`#.Rain[6]`), instead of merging them into their functions.
        #[arg(long, conflicts_with = "functions")]
        lines: bool,
        /// Whether BR output gets a TIME SPENT IN LINE record per group: `timed`, `sampled`, or `auto`
        /// (timed when the profile has a time metric).
        #[arg(long, value_name = "MODE", default_value = "auto", value_parser = br_mode_parser(), help_heading = "Format options")]
        br_mode: br::Mode,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Show what a profile holds: format, header, metrics and totals, tree size, heaviest functions.
    Info {
        /// Input file, or - for standard input.
        #[arg(value_name = "IN")]
        input: String,
        /// Input format (default: detected).
        #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
        from: Option<Format>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List every format: name, extensions, read, write, and what it carries.
    Formats,
}

/// Options of particular formats.
#[derive(clap::Args)]
#[command(next_help_heading = "Format options")]
struct ReadArgs {
    /// Order of the frames in Sampler stacks: `auto` decides from the data when reading (and says so
    /// when the evidence is weak); writing is leaf-first unless root-first is given. The file format
    /// does not record it.
    #[arg(long, value_name = "ORDER", default_value = "auto", value_parser = order_parser())]
    sampler_order: FrameOrder,
    /// Decimal mark and field separator of Dyalog CSV reports, as `]PROFILE -separators=` takes them
    /// (".," or ",;"). When the output is Dyalog CSV, those it is written with (default: those read,
    /// else ".,"), while the input's are detected: one run changes a report's separators. Otherwise
    /// they force those of a Dyalog CSV input (default: detected).
    #[arg(long, value_name = "DF")]
    dyalog_separators: Option<Separators>,
    /// Order of the backtrace entries in BR groups: `innermost-first` (the first entry is the caller
    /// of the current line) or `outermost-first`. The file format does not record it; proftool writes
    /// the order given here.
    #[arg(long, value_name = "ORDER", default_value = "innermost-first", value_parser = backtrace_parser())]
    br_backtrace: br::BacktraceOrder,
    /// Machine word size in bytes of the program a GHC -px profile comes from: -px counts
    /// allocation in words, read and written as bytes (8 for 64-bit builds, 4 for 32-bit ones).
    #[arg(long, value_name = "BYTES", default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    ghc_word_size: u8,
}

impl ReadArgs {
    fn options(&self) -> ReadOptions {
        ReadOptions::with_sampler_order(self.sampler_order)
            .with_dyalog_separators(self.dyalog_separators)
            .with_br_backtrace(self.br_backtrace)
            .with_ghc_word_size(self.ghc_word_size)
    }
}

fn backtrace_parser() -> impl clap::builder::TypedValueParser<Value = br::BacktraceOrder> {
    clap::builder::PossibleValuesParser::new(br::BacktraceOrder::NAMES)
        .try_map(|name| br::BacktraceOrder::from_name(&name).ok_or_else(|| format!("unknown order {name}")))
}

fn br_mode_parser() -> impl clap::builder::TypedValueParser<Value = br::Mode> {
    clap::builder::PossibleValuesParser::new(br::Mode::NAMES)
        .try_map(|name| br::Mode::from_name(&name).ok_or_else(|| format!("unknown mode {name}")))
}

fn order_parser() -> impl clap::builder::TypedValueParser<Value = FrameOrder> {
    clap::builder::PossibleValuesParser::new(FrameOrder::NAMES)
        .try_map(|name| FrameOrder::from_name(&name).ok_or_else(|| format!("unknown order {name}")))
}

/// A clap parser accepting the names of the formats `keep` accepts.
fn format_parser(keep: fn(Format) -> bool) -> impl clap::builder::TypedValueParser<Value = Format> {
    let names: Vec<&'static str> = Format::ALL.iter().copied().filter(|&f| keep(f)).map(Format::name).collect();
    // The possible values are the formats' own names, so every accepted name maps back to one.
    clap::builder::PossibleValuesParser::new(names)
        .try_map(|name| Format::from_name(&name).ok_or_else(|| format!("unknown format {name}")))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut diag = Diagnostics::default();
    let result = run(cli.command, &mut diag);
    if !cli.quiet {
        for warning in diag.warnings() {
            eprintln!("proftool: warning: {warning}");
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("proftool: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// Rust ignores SIGPIPE, so a reader that stops early (`| head`) shows up as a write error; that is
/// not a failure of the conversion.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(command: Command, diag: &mut Diagnostics) -> Result<()> {
    match command {
        Command::Convert {
            input,
            output,
            from,
            to,
            metric,
            interval,
            max_samples,
            functions,
            lines,
            br_mode,
            read,
        } => {
            let options = ConvertOptions::new(metric, interval)
                .with_samples(max_samples, read.sampler_order)
                .with_granularity(functions, lines, read.dyalog_separators)
                .with_br(br_mode, read.br_backtrace)
                .with_ghc_word_size(read.ghc_word_size);
            let read_options = read.options();
            convert(&input, &output, from, to, &read_options, &options, diag)
        }
        Command::Info { input, from, json, read } => {
            let read_options = read.options();
            let (profile, format, reason) = self::read(&input, from, &read_options, diag)?;
            let info = Info::of(&profile, format, reason);
            let text = if json { serde_json::to_string_pretty(&info)? + "\n" } else { info.to_text() };
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(())
        }
        Command::Formats => {
            std::io::stdout().write_all(proftool::formats_table().as_bytes())?;
            Ok(())
        }
    }
}

fn convert(
    input: &str,
    output: &str,
    from: Option<Format>,
    to: Option<Format>,
    read_options: &ReadOptions,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<()> {
    let out_path = (output != "-").then(|| std::path::Path::new(output));
    let target = detect::detect_output(to, out_path)?;
    // --dyalog-separators sets those of the CSV written when there is one, else of the CSV read.
    let read_options = match target {
        Format::DyalogCsv => read_options.clone().with_dyalog_separators(None),
        _ => read_options.clone(),
    }
    .for_target(target, options);
    let (profile, _, _) = read(input, from, &read_options, diag)?;
    let mut out = Output::create(output, (input != "-").then(|| std::path::Path::new(input)))
        .with_context(|| format!("{output}: cannot create"))?;
    target.write(profile, out.writer(), options, diag).with_context(|| format!("{output}: writing {target}"))?;
    out.commit().with_context(|| format!("{output}: writing {target}"))
}

fn read(
    path: &str,
    from: Option<Format>,
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<(proftool::Profile, Format, detect::Reason)> {
    let name = if path == "-" { "<stdin>" } else { path };
    let input = Input::open(path).with_context(|| format!("{name}: cannot open"))?;
    let input = with_progress(input);
    let mut read_diag = Diagnostics::default();
    let result = proftool::read_input_with(input, from, options, &mut read_diag).with_context(|| name.to_string());
    for warning in read_diag.take() {
        diag.push(proftool::diag::Warning {
            position: None,
            message: format!("{name}: {warning}"),
            repeats: 0,
            ..warning
        });
    }
    result
}

/// Shows a progress bar on stderr while a large file is read, when stderr is a terminal.
fn with_progress(input: Input) -> Input {
    const LARGE: u64 = 32 << 20;
    match input.len() {
        Some(len) if len >= LARGE && std::io::stderr().is_terminal() => {
            let bar = indicatif::ProgressBar::new(len).with_finish(indicatif::ProgressFinish::AndClear).with_style(
                indicatif::ProgressStyle::with_template("reading {bar:40} {bytes}/{total_bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_position(input.head().len() as u64);
            input.map_rest(|rest| Box::new(bar.wrap_read(rest)))
        }
        _ => input,
    }
}
