//! proftool: convert profiler output between formats through one canonical call-tree model.
//!
//! Every reader produces a [`Profile`]; every writer consumes one. A conversion is read →
//! [`convert::project`] (fit the profile to the target, naming each loss) → write
//! ([`Format::write_fitted`]); [`convert::write`] does the last two in one call:
//!
//! ```
//! use proftool::convert::{self, ConvertOptions};
//! use proftool::{diag::Diagnostics, files::Input, Format};
//!
//! let tree = b"LispWorks Profiler Tree: demo\n0|10|0|10|2|MAIN\n1|8|0|8|8|WORK\n".to_vec();
//! let mut diag = Diagnostics::default();
//! let (profile, format, _) = proftool::read_input(Input::from_bytes(tree), None, &mut diag)?;
//! assert_eq!(format, Format::Lispworks);
//!
//! // Projected onto what folded stacks hold (one number per node, no per-function counts)...
//! let options = ConvertOptions::default();
//! let projected = convert::project(profile.clone(), Format::Folded, &options, &mut diag)?;
//! let mut folded = Vec::new();
//! Format::Folded.write_fitted(&projected, &mut folded, &options, &mut diag)?;
//! assert_eq!(String::from_utf8(folded).unwrap(), "MAIN 2\nMAIN;WORK 8\n");
//! assert!(diag.has("facts-dropped"), "and what is lost is named");
//!
//! // ...or both steps at once.
//! let mut again = Vec::new();
//! convert::write(profile, Format::Folded, &mut again, &options, &mut diag)?;
//! assert_eq!(String::from_utf8(again).unwrap(), "MAIN 2\nMAIN;WORK 8\n");
//! # Ok::<(), proftool::Error>(())
//! ```
//!
//! **What a library user needs** is named at the top of the crate (the `pub use` list below):
//! reading ([`read_input`], [`Input`], [`Format`], [`ReadOptions`]), converting and writing
//! ([`project`], [`convert::write`], [`ConvertOptions`], [`Output`]), the model ([`Profile`], [`CallTree`],
//! [`Frame`], [`Metric`], [`Value`]), the reports ([`Info`], [`View`], [`Report`]), comparing and
//! adding profiles ([`compare`], [`Merger`]), and warnings and errors ([`Diagnostics`], [`Error`]).
//! The modules hold the rest of what the command line uses (each format's options, the filters,
//! the report printers); the crate's own helpers are not public.
//!
//! The code runs one way through four layers (`docs/architecture.md`), each importing only those
//! below it:
//!
//! 1. [`model`] (the canonical model) and the plumbing that knows no format: [`diag`], the errors,
//!    [`files`], and the text and piece readers;
//! 2. [`formats`]: the registry ([`Format`]), detection, the options of every format
//!    ([`FormatOptions`]), and one module per format with its reader, writer and fitting hooks;
//! 3. [`convert`] (projecting a profile onto a target, naming each loss), the reports ([`info`],
//!    [`report`]: `summary`, `calls`, `tree`), and comparing and adding profiles
//!    ([`report::diff`], [`merge`]);
//! 4. the `proftool` binary: arguments, messages, exit codes.

#![deny(missing_docs)]
#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod convert;
pub mod diag;
mod error;
pub mod files;
pub mod formats;
pub mod info;
pub mod merge;
pub mod model;
mod pieces;
pub mod report;
mod text;

// Reading.
pub use files::Input;
pub use formats::detect::Reason;
pub use formats::{Format, FormatOptions, ReadOptions};
// Converting and writing.
pub use convert::{project, ConvertOptions};
pub use files::Output;
// The model.
pub use model::{CallTree, Frame, FrameId, FrameKind, FrameRef, Metric, MetricKind, NodeId, Profile, Unit, Value};
// The reports, comparing and adding profiles.
pub use info::Info;
pub use merge::Merger;
pub use report::diff::{compare, DiffOptions};
pub use report::{Printer, Report, ReportOptions, TextStyle, View};
// Warnings and errors.
pub use diag::{Diagnostics, Warning};
pub use error::{Error, FormatName, ParseError, ParseErrorKind, Position};

use formats::detect;

/// Detects the format of `input` (`from` wins) and reads it.
pub fn read_input(
    input: Input,
    from: Option<Format>,
    diag: &mut Diagnostics,
) -> Result<(Profile, Format, Reason), Error> {
    read_input_with(input, from, &ReadOptions::default(), diag)
}

/// [`read_input`] with reader options.
pub fn read_input_with(
    input: Input,
    from: Option<Format>,
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<(Profile, Format, Reason), Error> {
    let (format, reason) = detect::detect_input(from, input.path(), input.head(), diag)?;
    let options = &ReadOptions {
        size_hint: options.size_hint.or(input.len()),
        path: options.path.clone().or_else(|| input.path().map(std::path::Path::to_path_buf)),
        ..options.clone()
    };
    // A text format's reader never sees a leading byte-order mark; a binary one gets every byte.
    let mut reader = if detect::reads_text(format) { input.into_text_reader() } else { input.into_reader() };
    let profile = format.read(&mut reader, options, diag)?;
    Ok((profile, format, reason))
}

/// Parses a duration such as `1ms`, `250us`, `0.5ms`, `100ns` or `1s` (for `--interval`).
pub fn parse_interval(text: &str) -> Result<std::time::Duration, String> {
    let total = nanoseconds_of(text)?;
    if !(1.0..1e18).contains(&total) {
        return Err(format!("{:?} is not an interval between 1ns and 30 years", text.trim()));
    }
    Ok(std::time::Duration::from_nanos(total.round() as u64))
}

/// A time from the start of a profile's timeline, as `--from-time` and `--to-time` take it: a
/// duration as [`parse_interval`] reads one, or 0.
pub fn parse_time(text: &str) -> Result<std::time::Duration, String> {
    let total = if text.trim() == "0" { 0.0 } else { nanoseconds_of(text)? };
    if !(0.0..1e18).contains(&total) {
        return Err(format!("{:?} is not a time between 0 and 30 years", text.trim()));
    }
    Ok(std::time::Duration::from_nanos(total.round() as u64))
}

/// The nanoseconds of a number and its unit of time ([`model::nanoseconds_per`]: `ns`, `us` or
/// `µs`, `ms`, `s`, `m`, `h`, `d`), with or without a space between them.
fn nanoseconds_of(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("{text:?} does not start with a number"))?;
    let unit = unit.trim();
    let nanos = model::nanoseconds_per(unit)
        .ok_or_else(|| format!("unknown unit {unit:?} in {text:?}: use ns, us, ms, s, m, h or d"))?;
    Ok(value * nanos as f64)
}

/// The `proftool formats` table.
pub fn formats_table() -> String {
    let mut rows = vec![["NAME".to_string(), "EXTENSIONS".into(), "READ".into(), "WRITE".into(), "CARRIES".into()]];
    for &f in Format::ALL {
        let exts = f.extensions().iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" ");
        let yn = |b: bool| if b { "yes" } else { "no" }.to_string();
        rows.push([f.name().into(), exts, yn(f.can_read()), yn(f.can_write()), f.carries().describe()]);
    }
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let widths = [width(0), width(1), width(2), width(3)];
    let mut out = String::new();
    for row in &rows {
        for (c, w) in widths.iter().enumerate() {
            out.push_str(&format!("{:<w$}  ", row[c]));
        }
        out.push_str(&row[4]);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn intervals_parse_with_units() {
        assert_eq!(parse_interval("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_interval("0.5ms"), Ok(Duration::from_micros(500)));
        assert_eq!(parse_interval("250us"), Ok(Duration::from_micros(250)));
        assert!(parse_interval("10").is_err());
        assert!(parse_interval("0ms").is_err());
        assert!(parse_interval("ms").is_err());
    }
}
