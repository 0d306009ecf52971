//! `proftool help`: the help of proftool or of one of its commands, as `--help` prints it.

use super::error::Usage;
use super::Cli;
use anyhow::Result;
use clap::CommandFactory;

pub const EXAMPLES: &str = "Examples:\n  proftool help convert\n  proftool help";

#[derive(clap::Args)]
pub struct HelpArgs {
    /// The command to describe; without it, proftool itself.
    #[arg(value_name = "COMMAND")]
    command: Option<String>,
}

impl HelpArgs {
    /// What `proftool [COMMAND] --help` prints, by asking clap for exactly that.
    pub fn run(self) -> Result<()> {
        let args = ["proftool"].into_iter().chain(self.command.as_deref()).chain(["--help"]);
        match Cli::command().try_get_matches_from(args) {
            Err(help) if help.kind() == clap::error::ErrorKind::DisplayHelp => Ok(help.print()?),
            Err(unknown) => unknown.exit(),
            Ok(_) => Err(Usage(format!("help: {:?} is no command", self.command.unwrap_or_default())).into()),
        }
    }
}
