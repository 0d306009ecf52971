//! What several format modules share: the name a frame is written with, the words of units, unique
//! metric names, which metric a profile is weighed by, and names as XML can carry them.

use crate::diag::Diagnostics;
use crate::error::FormatName;
use crate::model::{Profile, Unit};
use std::borrow::Cow;

/// The name a frame is written with in a format that names every frame (pprof, speedscope): its own,
/// or for a line of no named function (a BR main routine's) its place, `orders.br:100.0`.
pub(crate) fn written_name(frame: &crate::model::Frame) -> Cow<'_, str> {
    match frame.is_anonymous_line() {
        true => Cow::Owned(frame.to_string()),
        false => Cow::Borrowed(&frame.name),
    }
}

/// Says that `profile` is weighed by its metric `metric` (pprof's default sample type, speedscope's
/// profile shown first), where the usual preference ([`Profile::primary_metric`]) would not pick it.
pub(crate) fn weigh_by(profile: &mut Profile, metric: usize) {
    if profile.primary_metric() != Some(metric) {
        profile.meta.weighed_by = profile.metrics().get(metric).map(|m| m.kind);
    }
}

/// A time unit as pprof and speedscope name it (`nanoseconds` … `seconds`): the model's unit, and
/// what a value is multiplied by to be in it (seconds are read as milliseconds, as the model has no
/// unit of seconds).
pub(crate) fn time_unit(name: &str) -> Option<(Unit, i64)> {
    match name {
        "nanoseconds" => Some((Unit::Nanoseconds, 1)),
        "microseconds" => Some((Unit::Microseconds, 1)),
        "milliseconds" => Some((Unit::Milliseconds, 1)),
        "seconds" => Some((Unit::Milliseconds, 1000)),
        _ => None,
    }
}

/// The word pprof and speedscope write for a unit of time or size (what [`time_unit`] reads back),
/// or `None` for a count, which each of them names its own way.
pub(crate) fn unit_word(unit: Unit) -> Option<&'static str> {
    match unit {
        Unit::Nanoseconds => Some("nanoseconds"),
        Unit::Microseconds => Some("microseconds"),
        Unit::Milliseconds => Some("milliseconds"),
        Unit::Bytes => Some("bytes"),
        Unit::Count | Unit::Words => None,
    }
}

/// `name`, or `name (2)`, `name (3)`, … where `taken` says a metric has it already: metric names
/// are unique in a profile.
pub(crate) fn unique_name(name: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&name) {
        return name;
    }
    (2..).map(|n| format!("{name} ({n})")).find(|c| !taken(c)).unwrap_or(name)
}

/// Whether a spreadsheet opening a CSV file would run `cell` as a formula: a cell that begins with
/// `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's rule on CSV injection), which the CSV
/// outputs (the reports' `--format csv`, Dyalog's CSV) write with a `'` in front so that it opens
/// as the text it is.
pub(crate) fn runs_as_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// Whether XML 1.0 can carry `c` (its `Char` production): the C0 control characters but tab, line
/// feed and carriage return, and U+FFFE and U+FFFF, make a document ill-formed even written as
/// character references (`&#1;`).
fn xml_can_carry(c: char) -> bool {
    !matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// Text as the XML outputs (SVG, Dyalog XML, diff's JUnit) write it: each character XML 1.0 cannot
/// carry written as a visible escape, `\u{1b}`, as the text reports write control characters (the
/// one way proftool writes them: docs/formats.md, "Names in XML"); the text as it is when it has
/// none. Each text replaced is counted in `replaced`, for [`warn_xml_replaced`].
pub(crate) fn xml_text<'t>(text: &'t str, replaced: &mut usize) -> Cow<'t, str> {
    let written = crate::text::escape_chars(text, |c| !xml_can_carry(c));
    *replaced += usize::from(matches!(written, Cow::Owned(_)));
    written
}

/// Says once that `replaced` names or values of `format`'s output held characters XML cannot carry,
/// written as escapes ([`xml_text`]).
pub(crate) fn warn_xml_replaced(format: FormatName, replaced: usize, diag: &mut Diagnostics) {
    if replaced > 0 {
        diag.warn("xml-control-characters", None, || {
            format!(
                "{format}: {replaced} name(s) hold control characters that XML 1.0 cannot carry, even escaped: written as escapes of their code (\\u{{1}}, \\u{{1b}} for ESC)"
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every C0 character but tab, line feed and carriage return, and U+FFFE and U+FFFF, becomes a
    /// visible escape; the rest (DEL, C1, CJK) stays; each text replaced counts once.
    #[test]
    fn what_xml_cannot_carry_is_escaped() {
        let mut replaced = 0;
        assert_eq!(xml_text("a\u{1}b\u{1b}[2J\u{1f}", &mut replaced), "a\\u{1}b\\u{1b}[2J\\u{1f}");
        assert_eq!(xml_text("\t\n\r\u{7f}\u{85}你好", &mut replaced), "\t\n\r\u{7f}\u{85}你好");
        assert_eq!(xml_text("\u{0}\u{fffe}\u{ffff}\u{fffd}", &mut replaced), "\\u{0}\\u{fffe}\\u{ffff}\u{fffd}");
        assert_eq!(replaced, 2);
    }
}
