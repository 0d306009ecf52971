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

use super::kit::indented::{Indented, Tree, TreeLine};
use super::kit::lines::{self, StackLines};
use super::kit::sink::{Missing, Order, Reason, StackSink};
use super::spec::{Carries, Reads, Sniff, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, Position};
use crate::model::FrameRef;
use crate::text::Line;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "pmcstat",
    description: "FreeBSD `pmcstat -G` call graph, the stacks `stackcollapse-pmc.pl` and speedscope make",
    extensions: &["pmcstat", "pmcstat.txt"],
    carries: Carries { one_metric: false, modules: true, ..Carries::STACKS_OF_SAMPLES },
    reads: Some(Reads::text(sniff, lines::read::<Graph>)),
    writes: None,
};

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
    if !crate::text::is_digits(samples) {
        return None;
    }
    let rest = rest.trim_start();
    let (function, binary) = rest.split_once(" @ ").map_or((rest, None), |(function, binary)| (function, Some(binary)));
    if function.is_empty() || function.contains(char::is_whitespace) {
        return None;
    }
    Some(Node { level, samples, function, binary })
}

/// `Yes` when the first line that is not blank is an event's section, `@ EVENT [N samples]`, or a
/// line of the graph.
fn sniff(head: &[u8]) -> Sniff {
    let text = crate::text::utf8_start(head);
    let first = text.lines().find(|line| !line.trim().is_empty());
    Sniff::yes_if(first.is_some_and(|line| section(line).is_some() || node(line).is_some_and(|n| n.level == 0)))
}

/// The event and stated samples of a section's line, `@ inst_retired.any [35705 samples]`.
fn section(line: &str) -> Option<(&str, &str)> {
    let (event, samples) = line.strip_prefix("@ ")?.split_once(" [")?;
    Some((event, samples.strip_suffix(" samples]")?))
}

/// The graph is inverted: a line's callers are below it, the function sampled first.
const GRAPH: Tree = Tree { order: Order::LeafFirst, first_level: 0 };

/// The grammar of a pmcstat call graph: the lines of the graph read so far.
#[derive(Default)]
struct Graph(Indented);

/// Lines that are neither of the graph, blank nor comments.
static NOT_A_NODE: Reason = Reason::new("not-a-node", |lines, _| {
    format!(
        "{lines} lines that are not of the call graph skipped, as speedscope and stackcollapse-pmc.pl skip them"
    )
});

impl StackLines for Graph {
    const FORMAT: FormatName = SPEC.format_name();
    const MISSING: Option<Missing> = Some(Missing::anywhere("a line of the call graph (`12.5%  [42]  function`)"));

    fn line(&mut self, line: &Line<'_>, sink: &mut StackSink, _: &mut Diagnostics) -> Result<(), ParseError> {
        if let Some((event, stated)) = section(line.text) {
            self.0.end(GRAPH, sink);
            // Its samples are a metric of their own where the file has several events.
            sink.start_event(event);
            let attrs = &mut sink.profile().meta.attrs;
            attrs.extend([("pmcstat.event".into(), event.into()), ("pmcstat.samples".into(), stated.into())]);
            return Ok(());
        }
        let Some(node) = node(line.text) else {
            let text = line.text.trim();
            if !(text.is_empty() || text.starts_with('#') || text.starts_with("//")) {
                sink.leave_out(&NOT_A_NODE, Some(line.position), 0);
            }
            return Ok(());
        };
        let samples = lines::count(line, node.samples, "a line's samples");
        let tree_line = TreeLine { line, depth: node.level, at: 0, weight: samples };
        self.0.line(GRAPH, tree_line, sink, |above, sink| {
            // A function's binary is the nearest line's above it that names one: that line's module.
            let above = above.last().and_then(|level| sink.profile().frames.get(level.frame).module.clone());
            let binary = node.binary.map(str::to_string).or(above);
            sink.frame(FrameRef { module: binary.as_deref(), ..FrameRef::function(node.function) }).into()
        })
    }

    fn end(&mut self, sink: &mut StackSink, _: Position) -> Result<(), ParseError> {
        self.0.end(GRAPH, sink);
        Ok(())
    }
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
