//! How a diff prints: its text, Markdown and JUnit verdicts.

use super::super::table::{Layout, Table, TextStyle};
use super::super::{Header, Printer};
use crate::formats::shared::{warn_xml_replaced, xml_text};
use serde_json::{Map, Value as Json};
use std::io::{self, Write};

/// The printer of `diff`: its table is a row per function of either profile.
#[derive(Debug)]
pub struct DiffPrinter {
    /// The lines above the table: each profile, and what is compared.
    pub(super) title: String,
    /// The gate's rule, in words.
    pub(super) rule_line: String,
    /// The JSON fields of each profile, the limits, the gate and the verdict.
    pub(super) fields: Map<String, Json>,
    /// The verdict, the line below the table.
    pub(super) verdict_line: String,
    /// Why: the functions that failed, the test's figures, the functions new and gone.
    pub(super) explanation: String,
    /// What the Markdown and JUnit verdicts show.
    pub(super) ci: CiVerdict,
}

/// The verdict as CI shows it: each function the gate judged.
#[derive(Debug)]
pub(super) struct CiVerdict {
    /// `❌ regression`, `✅ pass` or `no gate`.
    pub(super) verdict: &'static str,
    /// `total` or `self`: the share gated.
    pub(super) on: &'static str,
    /// BASE's and NEW's names.
    pub(super) labels: (String, String),
    pub(super) gated: Vec<Gated>,
}

/// A function as the gate judged it: a row of the Markdown and JUnit verdicts and of the page's
/// table.
#[derive(Clone, Debug)]
pub struct Gated {
    /// The function (or line), as the table names it.
    pub name: String,
    /// `new`, `gone`, `root`, `pseudo`, or empty.
    pub status: &'static str,
    /// Its share in BASE and NEW, in percent.
    pub shares: (f64, f64),
    /// The test's p-value, where the metric is sampled.
    pub p: Option<f64>,
    /// Whether it failed the gate.
    pub failed: bool,
    /// What the gate made of it: `failed`; `inconclusive` (one run a side cannot tell); `not
    /// clear` (grew past the limits, not clear of the noise); `not gated` (a pseudo-frame or a
    /// synthetic root); else `passed`.
    pub outcome: &'static str,
}

impl Gated {
    /// What it did, in one line: `total 0.0 % → 10.3 % (+10.3 points), p = 3.4e-4`.
    fn change(&self, on: &str) -> String {
        let (b, n) = self.shares;
        let p = self.p.map_or(String::new(), |p| format!(", p = {p:.2e}"));
        format!("{on} {b:.1} % → {n:.1} % ({:+.1} points){p}", n - b)
    }
}

impl Printer for DiffPrinter {
    /// The title, then the table, then the rule, the verdict and its explanation.
    fn write_text(&self, _: &Header, table: &Table, out: &mut dyn Write, style: TextStyle) -> io::Result<()> {
        out.write_all(format!("{}\n\n", self.title).as_bytes())?;
        Layout::new(table, style, &[], None).write(out)?;
        writeln!(out, "{}\n{}\n{}", self.rule_line, self.verdict_line, self.explanation.trim_end()).map(|_| ())
    }

    /// `base` and `new` (each profile's file, metric, total and runs), `limits`, `gate` and `verdict`.
    fn json_fields(&self) -> Map<String, Json> {
        self.fields.clone()
    }

    /// The verdict, the profiles, the rule, a table (GitHub's Markdown) of the functions that failed,
    /// and the explanation: a pull request's comment.
    fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        let ci = &self.ci;
        writeln!(out, "### proftool diff: {}\n", ci.verdict)?;
        for line in self.title.lines() {
            writeln!(out, "{}  ", markdown_text(line))?;
        }
        writeln!(out, "\n{}\n", markdown_text(&self.rule_line))?;
        let failed: Vec<&Gated> = ci.gated.iter().filter(|g| g.failed).collect();
        if failed.is_empty() {
            writeln!(out, "{}", markdown_text(&self.verdict_line))?;
        } else {
            writeln!(out, "| function | status | base {0} % | new {0} % | ± points | p |", ci.on)?;
            writeln!(out, "|---|---|---:|---:|---:|---:|")?;
            for g in failed {
                let p = g.p.map_or(String::new(), |p| format!("{p:.2e}"));
                let (b, n) = g.shares;
                writeln!(out, "| {} | {} | {b:.1} | {n:.1} | {:+.1} | {p} |", markdown_code(&g.name), g.status, n - b)?;
            }
        }
        if !self.explanation.is_empty() {
            writeln!(out)?;
            for line in self.explanation.lines() {
                writeln!(out, "{}  ", markdown_text(line.trim_start()))?;
            }
        }
        Ok(())
    }

    /// One test suite, a test case per function judged, a failure per function that failed the
    /// gate, the rule and the profiles as its properties.
    fn write_junit(&self, out: &mut dyn Write) -> io::Result<()> {
        let ci = &self.ci;
        let attr = |text: &str| quick_xml::escape::escape(xml_text(text, &mut 0)).into_owned();
        let (tests, failures) = (ci.gated.len(), ci.gated.iter().filter(|g| g.failed).count());
        let suite = attr(&format!("proftool diff {} against {}", ci.labels.1, ci.labels.0));
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(out, r#"<testsuites name="proftool diff" tests="{tests}" failures="{failures}" errors="0">"#)?;
        writeln!(out, r#"  <testsuite name="{suite}" tests="{tests}" failures="{failures}" errors="0" skipped="0">"#)?;
        writeln!(out, "    <properties>")?;
        for (name, value) in [("base", &ci.labels.0), ("new", &ci.labels.1), ("rule", &self.rule_line)] {
            writeln!(out, r#"      <property name="{name}" value="{}"/>"#, attr(value))?;
        }
        writeln!(out, "    </properties>")?;
        for g in &ci.gated {
            let name = attr(&g.name);
            match g.failed {
                false => writeln!(out, r#"    <testcase classname="proftool.diff" name="{name}"/>"#)?,
                true => {
                    let message = attr(&format!("{} grew past the limits: {}", g.name, g.change(ci.on)));
                    writeln!(out, r#"    <testcase classname="proftool.diff" name="{name}">"#)?;
                    writeln!(out, r#"      <failure type="regression" message="{message}"/>"#)?;
                    writeln!(out, "    </testcase>")?;
                }
            }
        }
        writeln!(out, "  </testsuite>\n</testsuites>")
    }
}

impl DiffPrinter {
    /// Says how many of the names the JUnit verdict holds (the profiles' and the functions') have
    /// characters XML cannot carry, which it writes escaped (`\u{1b}`).
    pub fn warn_names_junit_escapes(&self, diag: &mut crate::diag::Diagnostics) {
        let mut replaced = 0;
        let ci = &self.ci;
        for name in [&ci.labels.0, &ci.labels.1].into_iter().chain(ci.gated.iter().map(|g| &g.name)) {
            xml_text(name, &mut replaced);
        }
        warn_xml_replaced(crate::error::FormatName("junit"), replaced, diag);
    }
}

/// `text` as Markdown shows it as written: its punctuation that Markdown reads escaped.
fn markdown_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in crate::report::safe_text::in_a_cell(text).chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// `name` as a code span in a table cell: fenced by more backticks than it holds in a row, its
/// pipes escaped (GitHub splits cells at them even in code), its line breaks and other control
/// characters as `\u{a}` (a line break would end the row and could begin a heading of its own).
fn markdown_code(name: &str) -> String {
    let name = &crate::report::safe_text::in_a_cell(name);
    let longest = name.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if name.starts_with('`') || name.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{}{pad}{fence}", name.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name is one cell of one row: its pipes escaped, its backticks fenced, its line breaks and
    /// control characters written as `\u{…}`, so that no line of it can begin a heading.
    #[test]
    fn a_name_stays_in_its_cell() {
        assert_eq!(markdown_code("a|b"), r"`a\|b`");
        assert_eq!(markdown_code("x`y"), "``x`y``");
        assert_eq!(markdown_code("evil\n## Forged\u{1b}[2J"), r"`evil\u{a}## Forged\u{1b}[2J`");
        assert_eq!(markdown_text("# a\nb"), r"\# a\\u{a}b");
    }
}
