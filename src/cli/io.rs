//! Inputs and outputs as the command line names them: reading a named input (with a progress bar
//! on a terminal), and writing an output that appears only when all went well.

use anyhow::{Context, Result};
use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::files::{self, Input, Output};
use proftool::formats::detect;
use proftool::{Format, ReadOptions};
use std::borrow::Cow;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The input of a run, as the command line gives it.
#[derive(Clone, Copy)]
pub struct InputSpec<'a> {
    /// The path, `-` for stdin.
    pub path: &'a Path,
    /// `--from`.
    pub from: Option<Format>,
    /// `--max-input-size`.
    pub max_size: u64,
}

impl InputSpec<'_> {
    /// The input's path, or None for stdin.
    pub fn file(&self) -> Option<&Path> {
        (self.path != Path::new("-")).then_some(self.path)
    }

    /// The name messages give the input: its path (a name that is not UTF-8 printed lossily), or `<stdin>`.
    pub fn name(&self) -> Cow<'_, str> {
        self.file().map_or(Cow::Borrowed("<stdin>"), |path| path.to_string_lossy())
    }
}

/// The format of `output`: `to`, else its extension (a directory is refused as one).
pub fn output_format(output: &Path, to: Option<Format>, diag: &mut Diagnostics) -> Result<Format> {
    let out_path = (output != Path::new("-")).then_some(output);
    if out_path.is_some_and(Path::is_dir) {
        anyhow::bail!("{}: is a directory; name the file to write in it", output.to_string_lossy());
    }
    Ok(detect::detect_output(to, out_path, diag)?)
}

/// How messages name `output`: `stdout` for `-`.
pub fn stream_name(output: &Path) -> std::borrow::Cow<'_, str> {
    match output == Path::new("-") {
        true => "stdout".into(),
        false => output.to_string_lossy(),
    }
}

/// Refuses, before anything is read, an `output` that is one of the `inputs` (`-` is none).
pub fn refuse_overwriting(output: &Path, inputs: &[&Path]) -> Result<()> {
    if output == Path::new("-") {
        return Ok(());
    }
    files::refuse_an_input(output, inputs).with_context(|| format!("{}: cannot create", output.to_string_lossy()))
}

/// Converts `profile` to `target` and writes it to `output`, which appears only when all went well
/// (and must not be one of `inputs`).
pub fn write_output(
    profile: proftool::Profile,
    output: &Path,
    target: Format,
    inputs: &[&Path],
    options: &ConvertOptions,
    diag: &mut Diagnostics,
) -> Result<()> {
    let out_name = stream_name(output);
    let mut out = Output::create(output, inputs).with_context(|| format!("{out_name}: cannot create"))?;
    convert::write(profile, target, out.writer(), options, diag)
        .with_context(|| format!("{out_name}: writing {target}"))?;
    out.commit().with_context(|| format!("{out_name}: writing {target}"))
}

/// A profile read from an input.
pub struct Read {
    pub profile: proftool::Profile,
    pub format: Format,
    pub reason: detect::Reason,
    /// The input's size in bytes: the file's, else (stdin, a decompressed input) the bytes read.
    pub size: u64,
}

/// Reads `input` (its warnings named after it).
pub fn read(input: InputSpec<'_>, options: &ReadOptions, diag: &mut Diagnostics) -> Result<Read> {
    let opened = open(input)?;
    read_opened(input, opened, options, diag)
}

/// `input` opened, its first bytes read.
pub fn open(input: InputSpec<'_>) -> Result<Input> {
    let name = input.name();
    Input::open_with_limit(input.path, input.max_size).with_context(|| format!("{name}: cannot open"))
}

/// Reads `opened`, the input `input` names, with its warnings named after it.
pub fn read_opened(input: InputSpec<'_>, opened: Input, options: &ReadOptions, diag: &mut Diagnostics) -> Result<Read> {
    let name = input.name();
    let file_size = opened.len();
    let read_bytes = Arc::new(AtomicU64::new(opened.head().len() as u64));
    let counter = Arc::clone(&read_bytes);
    let opened = with_progress(opened).map_rest(|rest| Box::new(Counted { inner: rest, bytes: counter }));
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
    let (profile, format, reason) = result?;
    let size = file_size.unwrap_or_else(|| read_bytes.load(Ordering::Relaxed));
    Ok(Read { profile, format, reason, size })
}

/// A stream that counts the bytes read from it, for the size of an input whose size is not known
/// before it is read (stdin, a decompressed input).
struct Counted {
    inner: Box<dyn std::io::Read + Send>,
    bytes: Arc<AtomicU64>,
}

impl std::io::Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
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
