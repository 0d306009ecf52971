//! The commands about proftool itself: `formats`, `completions`, `man`, `help`.

use super::error::Usage;
use super::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;

pub const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool completions zsh > ~/.zfunc/_proftool      (with fpath+=~/.zfunc in ~/.zshrc)
  proftool completions fish > ~/.config/fish/completions/proftool.fish";

pub const MAN_EXAMPLES: &str =
    "Examples:\n  proftool man ~/.local/share/man/man1 && man proftool-convert\n  proftool man | man -l -";

pub const HELP_EXAMPLES: &str = "Examples:\n  proftool help convert\n  proftool help";

/// `proftool formats`: the registry's table.
pub fn formats() -> Result<()> {
    std::io::stdout().write_all(proftool::formats_table().as_bytes()).context("stdout")?;
    Ok(())
}

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_name = "SHELL")]
    shell: clap_complete::Shell,
}

impl CompletionsArgs {
    pub fn run(self) -> Result<()> {
        // Made in memory: clap_complete panics when its output cannot be written (a closed pipe).
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut Cli::command(), "proftool", &mut script);
        std::io::stdout().write_all(&script).context("stdout")?;
        Ok(())
    }
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// Folder to write proftool.1, proftool-convert.1 and the other pages in; without it, only
    /// proftool.1 is written, to standard output.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl ManArgs {
    pub fn run(self) -> Result<()> {
        match self.dir {
            Some(dir) => clap_mangen::generate_to(Cli::command(), &dir)
                .with_context(|| format!("{}: cannot write the manual pages", dir.to_string_lossy())),
            None => {
                let mut page = Vec::new();
                clap_mangen::Man::new(Cli::command()).render(&mut page)?;
                std::io::stdout().write_all(&page).context("stdout")?;
                Ok(())
            }
        }
    }
}

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
