//! Folded stacks: the interchange text of Brendan Gregg's FlameGraph (`stackcollapse-*.pl`,
//! `flamegraph.pl`) and of inferno (`inferno-collapse-*`, `inferno-flamegraph`).
//!
//! ```text
//! main;parse;read_line 12
//! main;parse 3
//! main;render;draw_text 40
//! worker-1;poll 7
//! ```
//!
//! **Grammar**: one stack per line: frames from the root to the leaf joined by `;`, a space, and a
//! non-negative integer count after the *last* space (frame names may contain spaces). UTF-8. CRLF is
//! accepted. Blank lines and lines with an empty stack are skipped with one warning. The same stack may
//! appear on several lines; the counts add up.
//!
//! **Model**: each line adds its count to the self samples of the node at the end of its path, so the
//! tree grows with distinct stacks, not with lines. Threads are root frames by convention, but a
//! folded file cannot say which frames are threads: all frames read as functions.
//!
//! **Lost on write**: everything but one count per node and the frame names: other metrics, modules,
//! line numbers (line frames merge into their functions), per-function counts, header facts. An inner
//! node with a self count of 0 writes no line of its own (its children's lines imply it); a leaf does. A `;` inside a frame name would split the frame, so it is
//! written as `,`, and a newline as a space, each with a warning.

use super::{Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::error::{excerpt, Error, ParseError, ParseErrorKind};
use crate::model::{ChildIndex, FrameRef, Metric, MetricKind, Profile, Value, Values};
use crate::text::Lines;
use std::io::{Read, Write};

/// What folded stacks carry.
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: true,
    thread_roots: false,
    frame_kinds: false,
    metrics: &[MetricKind::Samples],
    one_metric: true,
    function_facts: false,
    source_lines: false,
    modules: false,
    title: false,
    timestamp: false,
    interval: false,
    name_replacements: &[(';', ','), ('\n', ' '), ('\r', ' ')],
    lines_nest: false,
    time_unit: None,
    flat_reports: false,
    needs_samples: false,
};

/// `Maybe` when the first complete lines all look like `stack count`: folded stacks have no signature.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let Ok(text) = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])) else {
        return Sniff::No;
    };
    let complete = match text.rfind('\n') {
        Some(end) if end + 1 < text.len() => &text[..end],
        _ => text,
    };
    let mut seen = 0;
    for line in complete.lines().take(20) {
        match split_line(line) {
            Some((stack, Ok(_))) if !stack.is_empty() => seen += 1,
            // Lines the reader skips: blank, or a count with an empty stack.
            _ if line.trim().is_empty() || line.trim().parse::<i64>().is_ok() => {}
            Some((_, Ok(_))) => {}
            _ => return Sniff::No,
        }
    }
    if seen > 0 {
        Sniff::Maybe
    } else {
        Sniff::No
    }
}

/// Splits `stack count` at the last space (a frame name keeps any spaces it has).
fn split_line(line: &str) -> Option<(&str, Result<i64, std::num::ParseIntError>)> {
    let (stack, count) = line.rsplit_once(' ')?;
    Some((stack, count.parse::<i64>()))
}

/// Reads folded stacks, aggregating equal stacks as it goes.
pub(crate) fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let mut lines = Lines::new(input, Format::Folded);
    let mut profile = Profile::new(vec![Metric::samples()]);
    let mut index = ChildIndex::default();
    while let Some(line) = lines.next_line()? {
        let text = line.text;
        let (stack, count) = match split_line(text) {
            Some((stack, Ok(count))) => (stack, count),
            Some((_, Err(_))) | None if text.trim().is_empty() || text.trim().parse::<i64>().is_ok() => ("", 0),
            Some((_, Err(_))) => {
                let count = text.rsplit_once(' ').map_or("", |(_, c)| c).to_string();
                let field = "the count after the last space";
                return Err(line.error(ParseErrorKind::InvalidNumber { field, text: count }));
            }
            None => {
                return Err(line.error(ParseErrorKind::Unexpected {
                    expected: "a stack, a space and a count (a;b;c 12)".into(),
                    found: excerpt(text.as_bytes()),
                }))
            }
        };
        if stack.is_empty() {
            diag.warn("skipped-line", Some(line.position), || "blank or empty-stack line skipped".into());
            continue;
        }
        if count < 0 {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "a count of 0 or more".into(),
                found: count.to_string(),
            }));
        }
        let mut node = None;
        for name in stack.split(';') {
            let frame = profile.frames.intern(FrameRef::function(name));
            node = Some(index.child_or_insert(&mut profile.tree, node, frame));
        }
        if let Some(leaf) = node {
            profile.tree.add_self(0, leaf, Value::Int(count));
        }
    }
    Ok(profile)
}

/// Writes `profile` (already projected to one count metric) as folded stacks, in tree pre-order.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write) -> Result<(), Error> {
    let names: Vec<_> = profile.frames.iter().map(|(_, frame)| frame.display_name()).collect();
    let tree = &profile.tree;
    let Values::Int(counts) = tree.self_values(0) else {
        return Err(Error::Unrepresentable { format: Format::Folded, what: "counts must be whole numbers".into() });
    };
    // `line` holds the path of the current node; `ends[d]` is where the frame at depth d ends.
    let mut line: Vec<u8> = Vec::with_capacity(1024);
    let mut ends: Vec<usize> = Vec::new();
    let mut digits = itoa::Buffer::new();
    for visit in tree.walk() {
        let depth = visit.depth as usize;
        ends.truncate(depth);
        line.truncate(ends.last().copied().unwrap_or(0));
        if depth > 0 {
            line.push(b';');
        }
        line.extend_from_slice(names[tree.frame(visit.node).index()].as_bytes());
        ends.push(line.len());
        let count = counts[visit.node.index()];
        // A zero count is written only for a leaf: an inner node is implied by its children's lines.
        if count != 0 || visit.is_leaf {
            let path_end = line.len();
            line.push(b' ');
            line.extend_from_slice(digits.format(count).as_bytes());
            line.push(b'\n');
            out.write_all(&line)?;
            line.truncate(path_end);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_wants_every_line_to_be_a_stack() {
        assert_eq!(sniff(b"a;b 1\nc 2\n"), Sniff::Maybe);
        assert_eq!(sniff(b"a;b 1\nno count here\n"), Sniff::No);
        assert_eq!(sniff(b"a;b 1\na;b 2 partial"), Sniff::Maybe);
        assert_eq!(sniff(b""), Sniff::No);
    }

    #[test]
    fn the_count_is_after_the_last_space() {
        let (stack, count) = split_line("main;do work 12").unwrap();
        assert_eq!((stack, count.unwrap()), ("main;do work", 12));
    }
}
