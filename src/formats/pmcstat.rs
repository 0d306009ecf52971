//! FreeBSD `pmcstat` call graphs: what `pmcstat -R samples.out -G graph.txt` writes of a
//! `pmcstat -S EVENT -O samples.out` recording (hwpmc), the input of FlameGraph's
//! `stackcollapse-pmc.pl` and speedscope's pmcstat importer (read only).
//!
//! ```text
//! @ inst_retired.any [35705 samples]
//!
//! 20.86%  [7447]     zfs_lz4_compress @ /boot/kernel/zfs.ko
//!  100.0%  [7447]      zio_compress_data
//!   100.0%  [7447]       taskqueue_run_locked @ /boot/kernel/kernel
//!    100.0%  [7447]        fork_exit
//! ```
//!
//! **Grammar**: `@ EVENT [N samples]` opens an event's section; then a line per node of an
//! inverted call graph, a space of indentation per level: the share, the samples in brackets,
//! the function and, where it differs from the line above it, ` @ ` and its binary. A line at the
//! left is a function samples were taken in; the lines below it, its callers, outermost last.
//! Other lines (blank lines, comments) are skipped.
//!
//! **Model**, as `stackcollapse-pmc.pl` and speedscope collapse the same file: each line with no
//! line below it one level deeper is a stack, its callers outermost first and the sampled function
//! last, weighing that line's samples; a function's binary (the nearest line above at a lower level
//! that names one) is its module. The samples are the event's: `samples`, or `EVENT samples` each
//! where the file has several events. The event and its stated total are header facts.
//!
//! **Errors**: a line that skips a level, and a count too large, at their line; an input without
//! a line of the graph is refused. Skipped lines that are neither blank nor comments (`#`, `//`)
//! are counted in a warning.
//!
//! **Lost**: the shares (derived from the samples).

use super::spec::{Carries, Reads, Sniff, Spec};
use super::stacks::StackTree;
use crate::diag::Diagnostics;
use crate::error::{Error, FormatName, ParseError, ParseErrorKind, Position};
use crate::model::{FrameId, FrameRef, Metric, Profile, Value};
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "pmcstat",
    description: "FreeBSD `pmcstat -G` call graph, the stacks `stackcollapse-pmc.pl` and speedscope make",
    extensions: &["pmcstat", "pmcstat.txt"],
    carries: Carries { one_metric: false, modules: true, ..Carries::STACKS_OF_SAMPLES },
    reads: Some(Reads::text(sniff, |input, _, diag| read(input, diag).map_err(Error::from))),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// A line of the graph: its level, samples, function and binary (where it names one).
struct Node<'a> {
    level: usize,
    samples: &'a str,
    function: &'a str,
    binary: Option<&'a str>,
}

/// The line of the graph `line` is (`  66.02%  [1723]       arc_buf_thaw @ /boot/kernel/zfs.ko`),
/// as speedscope's pattern takes it: spaces, a share with `%`, two spaces, `[samples]`, the
/// function (no space in it), and ` @ binary`.
fn node(line: &str) -> Option<Node<'_>> {
    let rest = line.trim_start_matches(' ');
    let level = line.len() - rest.len();
    let (share, rest) = rest.split_once("%  [")?;
    if share.is_empty() || !share.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let (samples, rest) = rest.split_once(']')?;
    if samples.is_empty() || !samples.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start();
    let (function, binary) = match rest.split_once(" @ ") {
        Some((function, binary)) => (function, Some(binary)),
        None => (rest, None),
    };
    if function.is_empty() || function.contains(char::is_whitespace) {
        return None;
    }
    Some(Node { level, samples, function, binary })
}

/// `Yes` when the first line that is not blank is an event's section, `@ EVENT [N samples]`, or a
/// line of the graph.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    match text.lines().find(|line| !line.trim().is_empty()) {
        Some(line) if section(line).is_some() || node(line).is_some_and(|n| n.level == 0) => Sniff::Yes,
        _ => Sniff::No,
    }
}

/// The event and stated samples of a section's line, `@ inst_retired.any [35705 samples]`.
fn section(line: &str) -> Option<(&str, &str)> {
    let (event, samples) = line.strip_prefix("@ ")?.split_once(" [")?;
    Some((event, samples.strip_suffix(" samples]")?))
}

/// Reads a pmcstat call graph (see the module documentation).
fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    // Each event's stacks, root first, with their samples: the metrics are known at the end.
    let mut events: Vec<(String, Option<String>)> = Vec::new();
    let mut read_stacks: Vec<(usize, Vec<FrameId>, i64)> = Vec::new();
    let mut profile = Profile::new(vec![Metric::samples()]);
    // The current line's stack, sampled function first, with each level's binary; its samples.
    let (mut stack, mut binaries): (Vec<FrameId>, Vec<Option<String>>) = (Vec::new(), Vec::new());
    let mut samples = 0i64;
    let (mut skipped, mut first_skipped) = (0u64, None::<Position>);
    let mut end_stack = |stack: &[FrameId], samples: i64, events: &[(String, Option<String>)]| {
        if !stack.is_empty() {
            let path = stack.iter().rev().copied().collect();
            read_stacks.push((events.len().saturating_sub(1), path, samples));
        }
    };
    crate::text::pipeline(
        input,
        FORMAT,
        |_| (),
        |line, ()| {
            if let Some((event, stated)) = section(line.text) {
                end_stack(&stack, samples, &events);
                stack.clear();
                binaries.clear();
                events.push((event.to_string(), Some(stated.to_string())));
                return Ok(());
            }
            let Some(node) = node(line.text) else {
                let text = line.text.trim();
                if !(text.is_empty() || text.starts_with('#') || text.starts_with("//")) {
                    skipped += 1;
                    first_skipped.get_or_insert(line.position);
                }
                return Ok(());
            };
            if node.level > stack.len() {
                let (previous, found) = (stack.len() as i64 - 1, node.level as i64);
                return Err(line.error_at(0, ParseErrorKind::DepthJump { previous, found }));
            }
            // The line before had no line below it: it ends a stack.
            if node.level < stack.len() {
                end_stack(&stack, samples, &events);
            }
            stack.truncate(node.level);
            binaries.truncate(node.level);
            let binary = node.binary.map(str::to_string).or_else(|| binaries.last().cloned().flatten());
            stack.push(
                profile.frames.intern(FrameRef { module: binary.as_deref(), ..FrameRef::function(node.function) }),
            );
            binaries.push(binary);
            samples = node.samples.parse::<i64>().map_err(|_| {
                let expected = format!("a line's samples, at most {}", i64::MAX);
                line.error(ParseErrorKind::Unexpected { expected, found: node.samples.into() })
            })?;
            Ok(())
        },
    )?;
    end_stack(&stack, samples, &events);
    if read_stacks.is_empty() {
        let expected = "a line of the call graph (`12.5%  [42]  function`)".to_string();
        let kind = ParseErrorKind::Unexpected { expected, found: "none in the whole input".into() };
        return Err(ParseError { format: FORMAT, position: Position::line(1, 0), kind });
    }
    if skipped > 0 {
        diag.warn("not-a-node", first_skipped, || {
            format!("{skipped} lines that are not of the call graph skipped, as speedscope and stackcollapse-pmc.pl skip them")
        });
    }
    Ok(build(profile.frames, events, read_stacks))
}

/// The profile of the stacks read: a metric per event, the events' facts.
fn build(
    frames: crate::model::FrameTable,
    events: Vec<(String, Option<String>)>,
    read_stacks: Vec<(usize, Vec<FrameId>, i64)>,
) -> Profile {
    let metrics = match events.len() {
        0 | 1 => vec![Metric::samples()],
        _ => events.iter().map(|(event, _)| Metric { name: format!("{event} samples"), ..Metric::samples() }).collect(),
    };
    let mut profile = Profile::new(metrics);
    profile.frames = frames;
    let mut stacks = StackTree::default();
    for (event, path, samples) in read_stacks {
        stacks.next().extend(path);
        if let Some(leaf) = stacks.add(&mut profile.tree) {
            profile.tree.add_self(event, leaf, Value::Int(samples));
        }
    }
    for (event, stated) in events {
        profile.meta.attrs.push(("pmcstat.event".into(), event));
        if let Some(stated) = stated {
            profile.meta.attrs.push(("pmcstat.samples".into(), stated));
        }
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_the_graph_are_told_as_speedscope_tells_them() {
        let line = node("  66.02%  [1723]       arc_buf_thaw @ /boot/kernel/zfs.ko").unwrap();
        assert_eq!(
            (line.level, line.samples, line.function, line.binary),
            (2, "1723", "arc_buf_thaw", Some("/boot/kernel/zfs.ko"))
        );
        assert!(node("invalid line").is_none());
        assert!(node("20.86%  [7447]     ").is_none());
        assert_eq!(section("@ inst_retired.any [35705 samples]"), Some(("inst_retired.any", "35705")));
        assert_eq!(sniff(b"@ inst_retired.any [35705 samples]\n\n20.86%  [7447]     f\n"), Sniff::Yes);
        assert_eq!(sniff(b"main;f 3\n"), Sniff::No);
    }
}
