//! `proftool completions`: a completion script for a shell.

use super::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;

pub const EXAMPLES: &str = "\
Examples:
  proftool completions bash > ~/.local/share/bash-completion/completions/proftool
  proftool completions zsh > ~/.zfunc/_proftool      (with fpath+=~/.zfunc in ~/.zshrc)
  proftool completions fish > ~/.config/fish/completions/proftool.fish";

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
