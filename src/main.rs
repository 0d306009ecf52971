//! The `proftool` command: parses arguments, runs the library, reports warnings and errors.
//!
//! Exit codes: 0 success (also when stdout is a pipe that closed early, as `| head` does), 1 a failed
//! run, 2 a usage error (clap's own).

use anyhow::{Context, Result};
use clap::builder::TypedValueParser;
use clap::{CommandFactory, Parser, Subcommand};
use proftool::convert::{Convert, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::files::{Input, Output, DEFAULT_MAX_INPUT_SIZE};
use proftool::formats::br;
use proftool::formats::detect;
use proftool::formats::dyalog::Separators;
use proftool::formats::sampler::FrameOrder;
use proftool::info::Info;
use proftool::{Format, ReadOptions};
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
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
  proftool convert prog.prof.gz prog.folded
  proftool info run.tree
  proftool info --json run.tree | jq '.metrics'
  proftool formats
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool man ~/.local/share/man/man1

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
    /// Name each thing the output has no place for in a line of its own (by default they share one
    /// line per output format; losses of numbers always have their own).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a profile from one format to another.
    ///
    /// The input format is named by --from, else recognised by content, else by extension. The output
    /// format is named by --to, else by OUT's extension. Everything the output format cannot hold is
    /// named on stderr, one line each. The output file appears only when the conversion succeeded.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert {
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
    #[command(after_help = INFO_EXAMPLES)]
    Info {
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
    },
    /// List every format: name, extensions, read, write, and what it carries.
    Formats,
    /// Print a completion script for a shell, to install where the shell looks for them.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Write proftool's manual pages (roff), made from this help: proftool.1 and one per subcommand.
    #[command(
        after_help = "Examples:\n  proftool man ~/.local/share/man/man1 && man proftool-convert\n  proftool man | man -l -"
    )]
    Man {
        /// Folder to write proftool.1, proftool-convert.1 and the other pages in; without it, only
        /// proftool.1 is written, to standard output.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

const CONVERT_EXAMPLES: &str = "\
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

const INFO_EXAMPLES: &str = "\
Examples:
  proftool info run.tree                                 what a profile holds
  proftool info prog.prof.gz                             a gzip-compressed input
  proftool info --json prog.prof | jq '.metrics'         as JSON
  perf script | inferno-collapse-perf | proftool info -  folded stacks from standard input
  proftool info --from ghc-px - < prog.prof              a format named";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool completions zsh > ~/.zfunc/_proftool      (with fpath+=~/.zfunc in ~/.zshrc)
  proftool completions fish > ~/.config/fish/completions/proftool.fish";

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
    /// The most bytes a gzip-compressed input may decompress to (K, M, G or T for KiB, MiB, GiB,
    /// TiB), so that a small file cannot fill the memory.
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_MAX_INPUT_SIZE, value_parser = parse_size, help_heading = "Options")]
    max_input_size: u64,
    /// A pprof sample label whose values become root frames `KEY:value` above the stacks (pprof's
    /// -tagroot); repeat it for several, outermost first. Other labels are dropped, with a warning.
    #[arg(long = "tag", value_name = "KEY")]
    tags: Vec<String>,
}

impl ReadArgs {
    fn options(&self) -> ReadOptions {
        ReadOptions::with_sampler_order(self.sampler_order)
            .with_dyalog_separators(self.dyalog_separators)
            .with_br_backtrace(self.br_backtrace)
            .with_ghc_word_size(self.ghc_word_size)
            .with_max_input_size(self.max_input_size)
            .with_tags(self.tags.clone())
    }
}

/// Parses a size such as `1000`, `64K`, `512M`, `2G` or `1TiB` (for `--max-input-size`).
fn parse_size(text: &str) -> Result<u64, String> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: u64 = number.parse().map_err(|_| format!("{text:?} does not start with a whole number"))?;
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return Err(format!("unknown unit {unit:?} in {text:?}: use K, M, G or T")),
    };
    value.checked_mul(1 << shift).ok_or_else(|| format!("{text:?} is too large"))
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
    // An option that does not fit the profile (an unknown --metric) can only be checked once the
    // profile is read, and then nothing is converted: the warnings about what the conversion
    // would have lost are left out, so that the error is what the run says.
    let option_refused = result.as_ref().is_err_and(is_option_error);
    if !cli.quiet && !option_refused {
        for line in diag.lines(cli.verbose) {
            eprintln!("proftool: warning: {line}");
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

/// Whether `err` is an option that does not fit the profile.
fn is_option_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::BadOption(_))))
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
            let input = InputArgs { path: &input, from, max_size: read.max_input_size };
            convert(input, &output, to, &read_options, &options, diag)
        }
        Command::Info { input, from, json, read } => {
            let read_options = read.options();
            let input = InputArgs { path: &input, from, max_size: read.max_input_size };
            let (profile, format, reason) = self::read(input, &read_options, diag)?;
            let info = Info::of(&profile, format, reason);
            let text = if json { serde_json::to_string_pretty(&info)? + "\n" } else { info.to_text() };
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(())
        }
        Command::Formats => {
            std::io::stdout().write_all(proftool::formats_table().as_bytes())?;
            Ok(())
        }
        Command::Completions { shell } => {
            // Made in memory: clap_complete panics when its output cannot be written (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "proftool", &mut script);
            std::io::stdout().write_all(&script)?;
            Ok(())
        }
        Command::Man { dir: Some(dir) } => clap_mangen::generate_to(Cli::command(), &dir)
            .with_context(|| format!("{}: cannot write the manual pages", dir.to_string_lossy())),
        Command::Man { dir: None } => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command()).render(&mut page)?;
            std::io::stdout().write_all(&page)?;
            Ok(())
        }
    }
}

/// The input of a run, as the command line gives it.
#[derive(Clone, Copy)]
struct InputArgs<'a> {
    /// The path, `-` for stdin.
    path: &'a Path,
    /// `--from`.
    from: Option<Format>,
    /// `--max-input-size`.
    max_size: u64,
}

impl InputArgs<'_> {
    /// The input's path, or None for stdin.
    fn file(&self) -> Option<&Path> {
        (self.path != Path::new("-")).then_some(self.path)
    }

    /// The name messages give the input: its path (a name that is not UTF-8 printed lossily), or `<stdin>`.
    fn name(&self) -> Cow<'_, str> {
        self.file().map_or(Cow::Borrowed("<stdin>"), |path| path.to_string_lossy())
    }
}

fn convert(
    input: InputArgs<'_>,
    output: &Path,
    to: Option<Format>,
    read_options: &ReadOptions,
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<()> {
    let out_path = (output != Path::new("-")).then_some(output);
    let out_name = output.to_string_lossy();
    if out_path.is_some_and(Path::is_dir) {
        anyhow::bail!("{out_name}: is a directory; name the file to write in it");
    }
    let target = detect::detect_output(to, out_path)?;
    // --dyalog-separators sets those of the CSV written when there is one, else of the CSV read.
    let read_options = match target {
        Format::DyalogCsv => read_options.clone().with_dyalog_separators(None),
        _ => read_options.clone(),
    }
    .for_target(target, options);
    let (profile, _, _) = read(input, &read_options, diag)?;
    let mut out = Output::create(output, input.file()).with_context(|| format!("{out_name}: cannot create"))?;
    target.write(profile, out.writer(), options, diag).with_context(|| format!("{out_name}: writing {target}"))?;
    out.commit().with_context(|| format!("{out_name}: writing {target}"))
}

fn read(
    input: InputArgs<'_>,
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<(proftool::Profile, Format, detect::Reason)> {
    let name = input.name();
    let opened = Input::open_with_limit(input.path, input.max_size).with_context(|| format!("{name}: cannot open"))?;
    let opened = with_progress(opened);
    let mut read_diag = Diagnostics::default();
    let result =
        proftool::read_input_with(opened, input.from, options, &mut read_diag).with_context(|| name.to_string());
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
