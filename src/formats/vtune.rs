//! Intel VTune's top-down call stacks as CSV: what `vtune -report top-down -call-stack-mode all
//! -column="CPU Time:Self","Module" -format csv -csv-delimiter comma` (`amplxe-cl` in older
//! releases) writes, the input of inferno's `collapse-vtune` (read only).
//!
//! ```text
//! Function Stack,CPU Time:Self,Module
//! Total,0.0,[Unknown]
//!  main,0.0,app
//!   "parse<std::string, int>",0.012000,app
//!    memcpy,0.004000,libc.so.6
//! ```
//!
//! **Grammar**: lines before the header, `Function Stack,…`, are skipped; then a line per node of
//! the call tree, a space of indentation per level below the first: the function (in quotes where
//! it holds a comma or a space, as VTune writes it), then the header's other columns. The
//! function's own time is the `CPU Time:Self` column (seconds), its binary the `Module` column,
//! wherever the header puts them. Blank lines are skipped.
//!
//! **Model**, as `inferno-collapse-vtune` collapses the same file: each line with own time is a
//! stack, the frames of the lines it is below and its own, weighing that time (`time`, in
//! microseconds, the file's precision); the module is each frame's. VTune's root, `Total`, is kept
//! as inferno keeps it.
//!
//! **Errors**: a line more than one level deeper than the line before it, a time that is no
//! number, a line that ends before its time or module, at their line; an input without the header
//! or without a line below it is refused.
//!
//! **Lost**: nothing the file holds but the columns other than the function, its own time and its
//! module.

use super::kit::lines::{self, StackLines};
use super::kit::sink::{Missing, Order, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameRef, Metric, MetricKind, Profile, Repr, Unit};
use crate::text::Line;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "vtune",
    description: "Intel VTune's top-down call stacks as CSV (`vtune -report top-down … -format csv`), the stacks `inferno-collapse-vtune` makes",
    extensions: &["vtune.csv"],
    carries: Carries { metrics: &[MetricKind::Time], modules: true, ..Carries::STACKS_OF_SAMPLES },
    reads: Some(Reads::text(sniff, read)),
    writes: None,
};

/// The first column of the header.
const HEADER: &str = "Function Stack,";
/// The columns read, by their names in the header.
const SELF_TIME: &str = "CPU Time:Self";
const MODULE: &str = "Module";

/// `Yes` when a line of the head is the header with its self time column.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    Sniff::yes_if(text.lines().any(|line| line.starts_with(HEADER) && line.contains(SELF_TIME)))
}

/// Reads a VTune CSV into stacks weighing their own time, in microseconds.
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let sink = StackSink::new(SPEC.format_name(), vec![Metric::time(Unit::Microseconds, Repr::Int)]);
    lines::read_into(input, Stacks::default(), sink, diag)
}

/// Where the header puts the columns read: the self time's and the module's index among the
/// columns after the function.
struct Columns {
    time: usize,
    module: Option<usize>,
}

/// The grammar of a VTune CSV: the header's columns once read, and the frames of the last line's
/// stack.
#[derive(Default)]
struct Stacks {
    columns: Option<Columns>,
    stack: Vec<FrameId>,
}

impl StackLines for Stacks {
    const FORMAT: FormatName = SPEC.format_name();
    const MISSING: Option<Missing> = Some(Missing::anywhere("a `Function Stack,CPU Time:Self,Module` header and the lines of the call tree below it"));

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        let Some(columns) = &self.columns else {
            self.columns = header(line)?;
            return Ok(());
        };
        let text = line.text.trim_end();
        let depth = text.len() - text.trim_start_matches(' ').len();
        if depth == text.len() {
            return Ok(());
        }
        if depth > self.stack.len() {
            let expected = format!("a line at most one level deeper than the line before it ({})", self.stack.len());
            return Err(line.unexpected_at(depth, expected, format!("{depth} spaces of indentation")));
        }
        let (function, rest) = function(&text[depth..]).ok_or_else(|| {
            line.unexpected_at(depth, "a function, then its columns after a comma", crate::error::excerpt(text.as_bytes()))
        })?;
        let field = |index: usize, what: &str| {
            rest.split(',').nth(index).ok_or_else(|| line.unexpected(what, "the end of the line"))
        };
        let time = field(columns.time, "the function's CPU Time:Self")?;
        let module = columns.module.map(|index| field(index, "the function's Module")).transpose()?;
        let seconds: f64 = time.trim().parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0).ok_or_else(|| {
            line.unexpected("a CPU Time:Self, seconds", format!("`{time}`"))
        })?;
        self.stack.truncate(depth);
        let module = module.filter(|module| !module.is_empty());
        self.stack.push(sink.frame(FrameRef { module, ..FrameRef::function(function) }));
        let microseconds = (seconds * 1e6).round() as i64;
        if microseconds > 0 {
            sink.add(Order::RootFirst, self.stack.iter().copied(), 0, microseconds);
        }
        Ok(())
    }

    fn end(&mut self, _: &mut StackSink, _: Position) -> Result<(), ParseError> {
        Ok(())
    }
}

/// The columns of the header line `line`, where it is the header: the self time's is required.
fn header(line: &Line<'_>) -> Result<Option<Columns>, ParseError> {
    let Some(rest) = line.text.trim_end().strip_prefix(HEADER) else { return Ok(None) };
    let names: Vec<&str> = rest.split(',').map(str::trim).collect();
    let time = names.iter().position(|&name| name == SELF_TIME).ok_or_else(|| {
        line.unexpected(format!("a header with a `{SELF_TIME}` column"), crate::error::excerpt(line.text.as_bytes()))
    })?;
    Ok(Some(Columns { time, module: names.iter().position(|&name| name == MODULE) }))
}

/// The function a line starts with and the rest of the line after its comma: in quotes up to the
/// quote and comma that close it, else up to the first comma.
fn function(text: &str) -> Option<(&str, &str)> {
    match text.strip_prefix('"') {
        Some(quoted) => quoted.split_once("\","),
        None => text.split_once(','),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_in_quotes_hold_commas() {
        assert_eq!(function("\"parse<a, b>\",0.1,app"), Some(("parse<a, b>", "0.1,app")));
        assert_eq!(function("main,0.0,app"), Some(("main", "0.0,app")));
        assert_eq!(function("main"), None);
        assert_eq!(sniff(b"Function Stack,CPU Time:Self,Module\nTotal,0.0,[Unknown]\n"), Sniff::Yes);
        assert_eq!(sniff(b"Function,Calls\n"), Sniff::No);
    }
}
