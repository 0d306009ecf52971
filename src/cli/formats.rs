//! `proftool formats`: every format, what it reads and writes and what it carries.

use anyhow::{Context, Result};
use std::io::Write;

/// `proftool formats`: the registry's table.
pub fn formats() -> Result<()> {
    std::io::stdout().write_all(proftool::formats_table().as_bytes()).context("stdout")?;
    Ok(())
}
