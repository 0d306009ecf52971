//! The `proftool` command: parses arguments, runs the command, reports warnings and errors.
//!
//! Exit codes: 0 success (also when stdout is a pipe that closed early, as `| head` does), 1 a failed
//! run, 2 a usage error (clap's own), 3 a regression found by `diff` (a limit crossed).

mod cli;

use clap::Parser;
use proftool::diag::Diagnostics;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::clean_up_on_signals();
    let cli = cli::Cli::try_parse().unwrap_or_else(|err| {
        // Arguments as text to look for a switch in: a file name that is not UTF-8 is none.
        let args: Vec<String> = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned()).collect();
        cli::with_one_dash_hint(err, &args).exit()
    });
    let mut diag = Diagnostics::default();
    let result = cli.command.run(&mut diag);
    // An option that does not fit the profile (an unknown --metric) can only be checked once the
    // profile is read, and then nothing is converted: the warnings about what the conversion
    // would have lost are left out, so that the error is what the run says.
    let option_refused = result.as_ref().is_err_and(cli::is_option_error);
    if !cli.quiet && !option_refused {
        for line in diag.lines(cli.verbose) {
            cli::say(format_args!("proftool: warning: {line}"));
        }
    }
    cli::exit_code(result)
}
