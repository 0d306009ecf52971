//! gprof's line-by-line reports (`gprof -l`): each row of the flat profile is a source line of a
//! function, `leaf (work.c:12 @ 11ec)`, its self time and, on the line of the function's entry,
//! its calls. Their call graph is one of lines whose callers' lines are call sites, and whose
//! cycles have no entry as a whole: it is left out, said on stderr, and each function is a root
//! with its lines below it.

use super::report::{FlatRow, Report};
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::model::{ChildIndex, FrameKind, FrameRef, NodeId, Profile, Value};

/// A flat profile row's name as `-l` writes it, `name (file:line @ address)`: the function, its
/// file and the line; `None` for a name of no such place.
pub(super) fn place_of(name: &str) -> Option<(&str, &str, u32)> {
    let (function, place) = name.strip_suffix(')')?.rsplit_once(" (")?;
    let (place, address) = place.rsplit_once(" @ ")?;
    let (file, line) = place.rsplit_once(':')?;
    let hex = !address.is_empty() && address.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !function.is_empty()).then_some((function, file, line.parse().ok()?))
}

/// Whether `report` is line by line: its flat profile's first row (or, without one, a name of its
/// call graph) is a line's.
pub(super) fn is_line_by_line(report: &Report) -> bool {
    match report.flat.first() {
        Some(row) => place_of(&row.name).is_some(),
        None => report.names.values().any(|name| place_of(name).is_some()),
    }
}

/// Adds the flat profile's lines to `profile`, whose metrics are time (or cycles) and calls, each
/// row's figures in the report's unit times `scale`; a report of the call graph alone is refused.
pub(super) fn read(
    report: &Report,
    profile: &mut Profile,
    scale: f64,
    diag: &mut Diagnostics,
) -> Result<(), ParseError> {
    if report.flat.is_empty() {
        return Err(ParseError {
            format: FORMAT,
            position: Position::line(1, 0),
            kind: ParseErrorKind::Unexpected {
                expected: "the flat profile of a line-by-line report (gprof -l): its call graph, between lines, is not read (gprof without -l gives one of functions)".into(),
                found: "its call graph alone".into(),
            },
        });
    }
    let mut index = ChildIndex::default();
    for row in &report.flat {
        add_row(profile, &mut index, row, scale);
    }
    if report.has_graph {
        diag.warn("gprof-line-graph", None, || {
            "gprof -l's call graph is left out: its callers are call sites' lines and its cycles have no entry as a whole, so it makes no tree; each function is a root, its lines below it with their self time (gprof without -l gives the call graph)".to_string()
        });
    }
    Ok(())
}

/// Adds a row: its time to its line's node below its function's, its calls to the function's.
fn add_row(profile: &mut Profile, index: &mut ChildIndex, row: &FlatRow, scale: f64) {
    let (function, line) = match place_of(&row.name) {
        Some((name, file, line)) => {
            let function = FrameRef { module: Some(file), ..FrameRef::function(name) };
            (function, Some(FrameRef { line: Some(line), kind: FrameKind::Line, ..function }))
        }
        None => (FrameRef::function(&row.name), None),
    };
    let frame = profile.frames.intern(function);
    let function_node = index.child_or_insert(&mut profile.tree, None, frame);
    let node: NodeId = match line {
        Some(line) => {
            let frame = profile.frames.intern(line);
            index.child_or_insert(&mut profile.tree, Some(function_node), frame)
        }
        None => function_node,
    };
    profile.tree.add_self(0, node, Value::Float(row.own * scale));
    if let Some(calls) = row.calls {
        profile.tree.add_self(1, function_node, Value::Int(calls as i64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_rows_name_holds_its_function_file_and_line() {
        assert_eq!(place_of("leaf (work.c:12 @ 11ec)"), Some(("leaf", "work.c", 12)));
        assert_eq!(place_of("f(int) (a b.cc:3 @ 1a)"), Some(("f(int)", "a b.cc", 3)));
        assert_eq!(place_of("leaf"), None);
        assert_eq!(place_of("operator()(int)"), None);
        assert_eq!(place_of("f (work.c:x @ 11ec)"), None);
        assert_eq!(place_of("f (work.c:1 @ zz)"), None);
    }
}
