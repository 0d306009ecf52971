//! `proftool man`: the manual pages, made from the help.

use super::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;

pub const EXAMPLES: &str =
    "Examples:\n  proftool man ~/.local/share/man/man1 && man proftool-convert\n  proftool man | man -l -";

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
