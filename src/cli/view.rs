//! `proftool view IN`: the HTML page of a profile, written to a temporary file (or `--out`) and
//! opened in the default browser where one is found, else its path printed.

use super::args::{format_parser, WriteCommon};
use super::convert::ConvertArgs;
use anyhow::{Context, Result};
use proftool::diag::Diagnostics;
use proftool::Format;
use std::path::{Path, PathBuf};

pub const EXAMPLES: &str = "\
Examples:
  proftool view perf.script                               open the page in the browser
  proftool view --out prof.html prog.prof                 keep the page where you want it
  proftool view --no-open run.tree                        only write it; its path is printed";

#[derive(clap::Args)]
pub struct ViewArgs {
    /// Input file, or - for standard input (gzip-compressed or not).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Where to write the page (default: a file named after the input in a new private folder
    /// proftool-view-XXXXXX of the system's temporary folder).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the page and print its path, but open no browser.
    #[arg(long)]
    no_open: bool,
    /// Input format (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = format_parser(Format::can_read))]
    from: Option<Format>,
    #[command(flatten)]
    common: WriteCommon,
}

impl ViewArgs {
    pub fn run(self, diag: &mut Diagnostics) -> Result<()> {
        let page = match self.out {
            Some(out) => out,
            None => temporary_page(&self.input)?,
        };
        ConvertArgs::new(self.input, page.clone(), self.from, Some(Format::Html), self.common).run(diag)?;
        println!("{}", page.display());
        if !self.no_open && !open_in_browser(&page) {
            diag.warn("no-browser", None, || {
                format!("no browser to open it was found (xdg-open, open, start): open {} in one", page.display())
            });
        }
        Ok(())
    }
}

/// `STEM.html` in a new folder of the system's temporary folder, `proftool-view-XXXXXX`: made with
/// a random name that must not exist yet and that only the user can open (mode 700, as `mktemp -d`
/// makes it), so that no other user of a shared temporary folder can plant a link there that the
/// page would be written through. It stays after the run, for the browser to open.
fn temporary_page(input: &Path) -> Result<PathBuf> {
    let temp = std::env::temp_dir();
    let mut folder = tempfile::Builder::new();
    folder.prefix("proftool-view-");
    #[cfg(unix)]
    folder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    let folder = folder
        .tempdir_in(&temp)
        .with_context(|| format!("{}: cannot create a folder for the page", temp.display()))?
        .keep();
    let stem = match input.file_name().and_then(|n| n.to_str()) {
        Some(name) if input != Path::new("-") => name.to_string(),
        _ => "stdin".to_string(),
    };
    Ok(folder.join(format!("{stem}.html")))
}

/// Opens `page` with the system's opener of files (xdg-open, macOS's open, Windows' start);
/// whether one started.
fn open_in_browser(page: &Path) -> bool {
    let (program, first): (&str, &[&str]) = match std::env::consts::OS {
        "macos" => ("open", &[]),
        "windows" => ("cmd", &["/C", "start", ""]),
        _ => ("xdg-open", &[]),
    };
    std::process::Command::new(program)
        .args(first)
        .arg(page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
