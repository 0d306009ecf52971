//! V8's sampling heap profile (`.heapprofile`): the `HeapProfiler.SamplingHeapProfile` of the
//! Chrome DevTools protocol, as `node --heap-prof`, Chrome DevTools (Memory, "Allocation
//! sampling", "Save profile") and Deno write it, and DevTools, VS Code and speedscope open it
//! (read only).
//!
//! ```text
//! {"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,
//!   "columnNumber":-1},"selfSize":0,"id":1,"children":[
//!   {"callFrame":{"functionName":"grow","scriptId":"81","url":"file:///work.js","lineNumber":3,
//!    "columnNumber":13},"selfSize":1048640,"id":2,"children":[]}]},
//!  "samples":[{"size":65600,"nodeId":2,"ordinal":1},{"size":983040,"nodeId":2,"ordinal":7}]}
//! ```
//!
//! **Schema**: `head`, the root node, each node a `callFrame` (`functionName`, `url`, 0-based
//! `lineNumber` and `columnNumber`, −1 where unknown), its `selfSize` (the bytes of the sampled
//! allocations it made that were still live when the profile was taken: V8 drops a sample when
//! its object is collected), its `id` (not in older files: node 10, Chrome 69) and its
//! `children`, nested; `samples` (with the ids), one
//! per sampled allocation: its `size`, the `nodeId` that made it and its `ordinal` (the order of
//! allocation). The sampling interval (`--heap-prof-interval`, 512 KiB by default) is not in the
//! file.
//!
//! **Model**: the tree of nodes without V8's `(root)` (its children are the roots); frames named
//! as a `.cpuprofile`'s are (by `functionName`, an anonymous function by where it is defined, the
//! url as its module, where it is defined as the frame fact [`crate::model::DEFINED_AT`]), so a
//! heap profile and a CPU profile of one program name their functions alike. `(V8 API)`, `(GC)`,
//! `(BYTECODE_COMPILER)` and V8's other pseudo-functions stay where V8 puts them. Metrics: `size`,
//! bytes (the `selfSize`s, the metric the profile is weighed by; speedscope's total), and, where
//! the file has `samples`, `sampled objects`, the sampled allocations of each node (a count of
//! objects, not of samples in time).
//!
//! **Errors**: JSON errors at their line and column; a tree nested deeper than the stack allows
//! is read all the same (the parser's stack grows on the heap); a sample that names no node is
//! counted in a warning and left out.
//!
//! **Lost**: the order of the samples (`ordinal`) and each one's size (their sum per node is its
//! `selfSize`), `scriptId`s; named functions of one name in one script are one frame.

use super::json;
use super::kit::source_frame::CallFrame;
use super::spec::{Carries, JsonKind, Reads, Spec};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError};
use crate::formats::ReadOptions;
use crate::model::{Metric, MetricKind, NodeId, Profile, Repr, Sampling, Unit, Value};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "heapprofile",
    description: "V8 sampling heap profile (`node --heap-prof`, DevTools allocation sampling): bytes",
    extensions: &["heapprofile"],
    carries: Carries::TREE_OF_SAMPLES.weighing(&[MetricKind::Alloc, MetricKind::Objects]).with_modules(),
    reads: Some(Reads::json(
        JsonKind { what: "a V8 heap profile (.heapprofile)", aside: " (V8's)", check },
        read,
    )),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a `.heapprofile` should be, for serde's errors.
const EXPECTED: &str = "a V8 heap profile (head: nodes with callFrame, selfSize, id, children; samples)";

/// Whether the input is a JSON object whose first key is `head` and whose nodes have call frames
/// and `selfSize`s (a CPU profile of the old format has a `head` too, with `hitCount`s); if not,
/// what is missing first.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let members = head.object()?;
    if !members.starts_with(b"\"head\"") {
        return Err("its first key is not \"head\"");
    }
    match (head.mentions(b"\"callFrame\""), head.mentions(b"\"selfSize\"")) {
        (true, true) => Ok(()),
        (false, _) => Err("a \"head\" tree without a \"callFrame\""),
        (true, false) => Err("a \"head\" tree without a \"selfSize\""),
    }
}

#[derive(Deserialize)]
struct Document {
    head: Node,
    samples: Option<Vec<Sample>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Node {
    call_frame: CallFrame,
    #[serde(default)]
    self_size: u64,
    /// Older files (V8 before 7.x, node 10) have no ids, and no samples.
    id: Option<u64>,
    #[serde(default)]
    children: Vec<Node>,
}

/// A deep tree is dropped a level at a time, not by recursion.
impl Drop for Node {
    fn drop(&mut self) {
        let mut below = std::mem::take(&mut self.children);
        while let Some(mut node) = below.pop() {
            below.append(&mut node.children);
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sample {
    node_id: u64,
}

/// Reads a `.heapprofile` (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let mut parser = serde_json::Deserializer::from_str(text);
    parser.disable_recursion_limit();
    let document = Document::deserialize(serde_stacker::Deserializer::new(&mut parser))
        .and_then(|document| parser.end().map(|()| document))
        .map_err(|e| json::serde_error(FORMAT, text, &e, EXPECTED))?;
    Ok(profile(document, diag))
}

/// The profile of a parsed heap profile.
fn profile(document: Document, diag: &mut Diagnostics) -> Profile {
    // V8 samples allocations: with its samples, the sizes are weights of the samples counted.
    let objects =
        Metric::new("sampled objects", MetricKind::Objects, Unit::Count, Repr::Int).sampled(Sampling::counts());
    let size = Metric::new("size", MetricKind::Alloc, Unit::Bytes, Repr::Int);
    let size = match document.samples.is_some() {
        true => size.sampled(Sampling::weights_of(&objects.name)),
        false => size,
    };
    let mut metrics = vec![size];
    metrics.extend(document.samples.is_some().then_some(objects));
    let mut profile = Profile::new(metrics);
    profile.meta.weighed_by = Some(MetricKind::Alloc);
    let Document { mut head, samples } = document;
    // V8's (root) is no code: its children are the roots. Children go on the stack last first, so
    // that nodes are added in pre-order.
    let mut node_of_id: HashMap<u64, NodeId> = HashMap::new();
    let mut walk: Vec<(Node, Option<NodeId>)> =
        std::mem::take(&mut head.children).into_iter().rev().map(|node| (node, None)).collect();
    while let Some((mut node, parent)) = walk.pop() {
        let frame = node.call_frame.intern(&mut profile);
        let id = profile.tree.push(parent, frame);
        let size = i64::try_from(node.self_size).unwrap_or(i64::MAX);
        profile.tree.set_self(0, id, Value::Int(size));
        if let Some(key) = node.id {
            node_of_id.insert(key, id);
        }
        walk.extend(std::mem::take(&mut node.children).into_iter().rev().map(|child| (child, Some(id))));
    }
    let Some(samples) = samples else { return profile };
    let mut unknown = 0u64;
    for sample in samples {
        match node_of_id.get(&sample.node_id) {
            Some(&node) => profile.tree.add_self(1, node, Value::Int(1)),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        diag.warn("heapprofile-unknown-node", None, || {
            format!("{unknown} sample(s) name no node of the tree (the root's, or none): left out")
        });
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CPU profile of the old format has a `head` too: its nodes have hit counts, not sizes.
    #[test]
    fn a_heap_profile_is_told_from_an_old_cpu_profile() {
        assert_eq!(check(br#"{"head":{"callFrame":{},"selfSize":0,"id":1}}"#), Ok(()));
        assert!(check(br#"{"head":{"functionName":"(root)","hitCount":0}}"#).is_err());
        assert!(check(br#"{"nodes":[]}"#).is_err());
    }

    /// A tree far deeper than serde's recursion limit is read and dropped without overflowing the
    /// stack.
    #[test]
    fn a_deep_tree_is_read() {
        const DEPTH: usize = 100_000;
        let node = r#"{"callFrame":{"functionName":"f","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":1,"id":"#;
        let mut text = String::from(r#"{"head":"#);
        for id in 0..DEPTH {
            text.push_str(&format!("{node}{id},\"children\":["));
        }
        text.push_str(&"]}".repeat(DEPTH));
        text.push('}');
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        assert_eq!((profile.tree.len(), profile.total(0)), (DEPTH - 1, Value::Int(DEPTH as i64 - 1)));
    }
}
