//! The command line's own failures, and the exit code of every outcome.

use std::io::Write;
use std::process::ExitCode;

/// A usage error found after the arguments were parsed (an invalid regex): exit 2, as clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// A diff found a function past its limits: exit code 3, a regression rather than a failure.
#[derive(Debug, thiserror::Error)]
#[error("regression: a function grew past the limits (the rows marked *)")]
pub struct Regression;

/// The exit code of a run, its error printed: 0 success (also when stdout is a pipe that closed
/// early), 1 a failed run, 2 a usage error, 3 a regression.
pub fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<Regression>().is_some() => {
            say(format_args!("proftool: {err}"));
            ExitCode::from(3)
        }
        Err(err) if err.downcast_ref::<Usage>().is_some() => {
            say(format_args!("proftool: error: {err:#}"));
            ExitCode::from(2)
        }
        Err(err) => {
            say(format_args!("proftool: error: {err:#}"));
            ExitCode::from(1)
        }
    }
}

/// clap's error `err` about the command line `args`, where it is an unexpected argument that is a
/// long switch given one dash (`-exclusive`, `]PROFILE`'s way; clap reads `-e` and more) with the
/// switch suggested instead of clap's tip: `did you mean --exclusive?`. The exit code stays clap's.
pub fn with_one_dash_hint(mut err: clap::Error, args: &[String]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::UnknownArgument {
        return err;
    }
    let root = <super::Cli as clap::CommandFactory>::command();
    let command = args.iter().skip(1).find_map(|word| root.find_subcommand(word)).unwrap_or(&root);
    let is_long = |name: &str| {
        let arguments = || command.get_arguments().chain(root.get_arguments());
        arguments().any(|a| a.get_long() == Some(name) || a.get_all_aliases().unwrap_or_default().contains(&name))
    };
    let one_dash = args.iter().skip(1).take_while(|word| *word != "--").find(|word| {
        let name = word.strip_prefix('-').filter(|rest| !rest.starts_with('-')).map(|rest| rest.split('=').next());
        name.flatten().is_some_and(|name| name.len() > 1 && is_long(name))
    });
    let other_tools = || args.iter().skip(1).take_while(|word| *word != "--").find_map(|word| other_tools_switch(word));
    let hint = match one_dash {
        Some(word) => Some(format!("did you mean -{word}? proftool's long switches take two dashes")),
        None => other_tools().map(|(switch, hint)| {
            // clap's own tip names the switch spelt closest (`--sort`: `--format`), not the one meant.
            if err.get(ContextKind::SuggestedArg).is_some() {
                err.insert(ContextKind::SuggestedArg, ContextValue::String(switch.into()));
            }
            hint
        }),
    };
    if let Some(hint) = hint {
        err.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![hint.into()]));
    }
    err
}

/// proftool's switch for one other profilers' reports take (`go tool pprof -top`, `perf report
/// --sort`, a `--limit` of rows) and the answer naming it; `None` for any other word.
fn other_tools_switch(word: &str) -> Option<(&'static str, String)> {
    let word = word.split('=').next().filter(|w| w.starts_with('-'))?;
    match word.trim_start_matches('-') {
        "top" | "limit" | "head" | "n" | "nodecount" => Some((
            "--first",
            format!("did you mean --first N? proftool's reports show their first N rows with --first, not {word}"),
        )),
        "sort" | "sort-by" | "order" => Some((
            "--exclusive",
            format!("did you mean --exclusive? proftool's reports sort by total, or by self value with --exclusive, not {word}"),
        )),
        _ => None,
    }
}

/// Writes `line` to stderr. A stderr that cannot be written (a pipe closed early, as in
/// `proftool … 2>&1 | head`) loses the line but not the run: its outcome stays in the exit code,
/// as it does for a closed stdout, where `eprintln!` would panic (exit 101).
pub fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// On SIGINT, SIGTERM or SIGHUP (Ctrl-C, `timeout`, a CI job cancelled, a closed terminal), removes
/// the temporary files of the outputs being written, then ends as the signal would have (its exit
/// status 128 + the signal's number), so that a stopped conversion leaves its output as it was.
pub fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            proftool::files::remove_pending_outputs();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

/// Rust ignores SIGPIPE, so a reader that stops early (`| head`) shows up as a write error; that is
/// not a failure of the conversion.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Whether `err` is an option that does not fit the profile (an unknown `--metric`): then nothing
/// was converted, and the warnings about what a conversion would have lost are left out.
pub fn is_option_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| matches!(cause.downcast_ref::<proftool::Error>(), Some(proftool::Error::BadOption(_))))
}
