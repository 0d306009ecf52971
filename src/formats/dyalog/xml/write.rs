//! Writing `]PROFILE` XML reports (the module documentation of [`super`] says how): the
//! 1.37 layout, or 0.9.0's with `--dyalog-version 0.9.0`.

use super::{FORMAT, SETTINGS};
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::dyalog::{self, report_rows, Column, Layout, OutRow, Report};
use crate::formats::shared::{warn_xml_replaced, xml_text};
use crate::model::{Profile, Value};
use std::io::Write;

/// Writes `profile` as a `]PROFILE` XML report.
pub(crate) fn write(
    profile: &Profile,
    out: &mut dyn Write,
    options: &dyalog::Options,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    let (report, columns, rows) = report_rows(profile, false);
    let mut settings = settings(profile, report, &rows);
    let layout = options.layout;
    for (name, value) in &mut settings {
        match name.as_str() {
            // The layout decides the Version: a 0.x Version on 1.37's labels would have a reader
            // swap them.
            "Version" if layout == Layout::V0_9_0 => *value = layout.version().to_string(),
            "Version" if value.starts_with("0.") => {
                let read = std::mem::replace(value, layout.version().to_string());
                diag.warn("dyalog-version-written", None, || {
                    format!("{FORMAT}: Version {read} written as 1.37: the file is in the 1.37 layout, its Inclusive/Exclusive columns labelled as measured (--dyalog-version 0.9.0 writes 0.9.0's)")
                });
            }
            "Title" => {
                if let Some(title) = &options.title {
                    value.clone_from(title);
                }
            }
            "TimerBias"
                if profile.meta.report.timer_cost.is_none() && profile.meta.attr("dyalog-xml.TimerBias").is_none() =>
            {
                diag.warn("dyalog-no-bias", None, || {
                    format!("{FORMAT}: the source states no TimerBias: written as 0, as for times not bias-adjusted")
                })
            }
            _ => {}
        }
    }
    let mut text = String::with_capacity(1 << 16);
    if layout == Layout::Current {
        text.push_str("<?xml version=\"1.0\"?>\n");
    }
    text.push_str("<ProfileData>\n    <ProfileSettings>\n");
    // Names and settings (a title) with characters XML cannot carry, written escaped.
    let mut replaced = 0;
    for (name, value) in settings {
        element(&mut text, 8, &name, &xml_text(&value, &mut replaced));
    }
    text.push_str("    </ProfileSettings>\n");
    let base = dyalog::percent_base(profile, report, &rows);
    let mut derived = dyalog::Derived { base, cumulative: 0.0 };
    let mut value = String::new();
    for row in &rows {
        text.push_str("    <ProfileEntry>\n");
        for &column in &columns {
            value.clear();
            dyalog::format_cell(row, column, report, &mut derived, '.', &mut value);
            let value = xml_text(&value, &mut replaced);
            match layout {
                Layout::Current => element(&mut text, 8, column.name(), &value),
                Layout::V0_9_0 => element_0_9_0(&mut text, label_0_9_0(column, report), &value),
            }
        }
        text.push_str("    </ProfileEntry>\n");
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    text.push_str("</ProfileData>\n");
    out.write_all(text.as_bytes())?;
    warn_xml_replaced(FORMAT, replaced, diag);
    Ok(())
}

/// The element 0.9.0 wrote `column` of `report` under: `Function` for the name, and in tree and
/// data reports each time and ticks column under the other's label (docs/formats.md, "Dyalog
/// reports"; the `]PROFILE` guide's tree: `<InclusiveTime>0.8205615629464091` for Rain's exclusive
/// time).
fn label_0_9_0(column: Column, report: Report) -> &'static str {
    let swapped = report != Report::Summary;
    match column {
        Column::Element => "Function",
        Column::ExclusiveTime if swapped => "InclusiveTime",
        Column::InclusiveTime if swapped => "ExclusiveTime",
        Column::ExclusiveTicks if swapped => "InclusiveTicks",
        Column::InclusiveTicks if swapped => "ExclusiveTicks",
        _ => column.name(),
    }
}

/// An entry's element as 0.9.0 wrote it: as [`element`], but empty as `<name></name>` (the
/// `]PROFILE` guide's `<Line></Line>`), a tree's function row's Line empty rather than `¯1`.
fn element_0_9_0(out: &mut String, name: &str, value: &str) {
    let function_row_line = name == "Line" && value == "¯1";
    match value.is_empty() || function_row_line {
        true => out.push_str(&format!("        <{name}></{name}>\n")),
        false => element(out, 8, name, value),
    }
}

/// `<name>value</name>` (or `<name/>`) on its own line, indented, `value` escaped.
fn element(out: &mut String, indent: usize, name: &str, value: &str) {
    out.extend(std::iter::repeat_n(' ', indent));
    if value.is_empty() {
        out.push('<');
        out.push_str(name);
        out.push_str("/>\n");
        return;
    }
    out.push('<');
    out.push_str(name);
    out.push('>');
    let escaped = quick_xml::escape::partial_escape(value);
    // A carriage return as a reference: a parser reads a raw one as a line feed (XML 1.0, 2.11).
    match escaped.contains('\r') {
        true => out.push_str(&escaped.replace('\r', "&#13;")),
        false => out.push_str(&escaped),
    }
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// The settings to write: the six `]PROFILE` writes, as read or else filled in from the profile,
/// then any others read.
fn settings(profile: &Profile, report: Report, rows: &[OutRow<'_>]) -> Vec<(String, String)> {
    let attr = |name: &str| profile.meta.attr(&format!("dyalog-xml.{name}")).map(str::to_string);
    let shared_total = profile.meta.report.percentages_of.map(|total| total.to_string());
    let total = || {
        let mut s = String::new();
        dyalog::format_number(Value::Float(dyalog::total_time(report, rows)), '.', &mut s);
        s
    };
    SETTINGS
        .iter()
        .map(|&name| {
            let value = match name {
                "Version" => attr(name).unwrap_or_else(|| "1.37".to_string()),
                "Title" => profile.meta.title.clone().unwrap_or_default(),
                // Its text where it would not be written back as read, else the timer's cost.
                "TimerBias" => (attr(name).or_else(|| profile.meta.report.timer_cost.map(|cost| cost.to_string())))
                    .unwrap_or_else(|| "0".into()),
                "Command" => report.name().to_string(),
                // A CSV's total (the time its percentages were of) stands for the settings it lacks.
                _ => attr(name).or_else(|| shared_total.clone()).unwrap_or_else(total),
            };
            (name.to_string(), value)
        })
        .chain(profile.meta.attrs.iter().filter_map(|(key, value)| {
            let name = key.strip_prefix("dyalog-xml.")?;
            (!SETTINGS.contains(&name)).then(|| (name.to_string(), value.clone()))
        }))
        .collect()
}
