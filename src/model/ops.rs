//! Operations over whole profiles.
//!
//! - [`normalize`]: the canonical form two profiles are compared in: duplicate siblings merged,
//!   children sorted by frame, frames interned in walk order.
//! - [`map_frames`]: frames replaced (fitted to a target), merging those that become equal;
//!   `qualify_names`: GHC modules written into names (`Module.label`).
//! - [`merge_siblings`]: one node per distinct stack, for formats whose identity is the stack.
//! - `adopt_roots`: roots gathered under a new root (a thread for formats that need one).
//! - `threads_to_roots`: threads below a pseudo-frame root made roots (LispWorks' processes, for
//!   formats whose threads are roots).
//! - `interpose`: nodes put between some nodes and their parents (Dyalog's line rows).
//! - [`merge_lines`]: source-line frames merged into their functions, for function-level targets.
//! - `make_functions`: frames that are no code made functions of their names, for formats that
//!   know threads only as roots (or not at all).

use super::{
    Aggregation, ChildIndex, Frame, FrameId, FrameKind, FrameRef, FrameTable, NodeId, Profile, Value, Values, Visit,
};
use rustc_hash::FxHashMap;

/// The canonical form of `profile`: siblings with the same frame merged (values added), children
/// sorted by frame, frames renumbered in pre-order. Two profiles that describe the same call tree
/// normalise to equal dumps.
pub fn normalize(profile: &Profile) -> Profile {
    let merged = merge_siblings(profile);
    let mut children = merged.tree.children();
    children.sort_by_key(|node| merged.frames.get(merged.tree.frame(node)));
    rebuild(&merged, merged.tree.walk_with(children), &LinesIntoFunctions::none(&merged))
}

/// Replaces frames through `replace` (which returns `None` to keep a frame as it is). Frames that
/// become equal are interned once; their per-function facts keep the first frame's.
pub fn map_frames(profile: &mut Profile, mut replace: impl FnMut(&Frame) -> Option<Frame>) {
    let mut frames = FrameTable::default();
    let map: Vec<FrameId> = profile
        .frames
        .iter()
        .map(|(_, frame)| match replace(frame) {
            Some(new) => frames.intern(new.as_ref()),
            None => frames.intern(frame.as_ref()),
        })
        .collect();
    profile.tree.remap_frames(&map);
    let facts = std::mem::take(&mut profile.function_facts);
    for (frame, f) in facts {
        profile.function_facts.entry(map[frame.index()]).or_insert(f);
    }
    let attrs = std::mem::take(&mut profile.frame_attrs);
    for (frame, a) in attrs {
        profile.frame_attrs.entry(map[frame.index()]).or_insert(a);
    }
    profile.frames = frames;
}

/// Moves the module of every frame into its name (`Module.label`), for a profile whose modules are
/// namespaces (GHC) going where one name is written: nothing is lost. The profile's modules are no
/// namespaces from then on.
pub(crate) fn qualify_names(profile: &mut Profile) {
    profile.meta.module_namespaces = false;
    map_frames(profile, |frame| {
        let module = frame.module.as_ref()?;
        Some(Frame { name: format!("{module}.{}", frame.name), module: None, ..frame.clone() })
    });
}

/// Turns the frame of every node `which` picks (by whether it is a root, and its frame's kind)
/// into a function of the same name and module.
pub(crate) fn make_functions(profile: &mut Profile, which: impl Fn(bool, FrameKind) -> bool) {
    let tree = &profile.tree;
    let picked: Vec<NodeId> =
        tree.nodes().filter(|&n| which(tree.parent(n).is_none(), profile.frames.get(tree.frame(n)).kind)).collect();
    for node in picked {
        let frame = profile.frames.get(profile.tree.frame(node)).clone();
        let function = profile.frames.intern(FrameRef { kind: FrameKind::Function, ..frame.as_ref() });
        profile.tree.set_frame(node, function);
    }
}

/// For [`make_functions`]: a thread or pseudo-frame below the roots, which formats that know
/// threads only as roots hold as a function.
pub(crate) fn is_nested_non_code(is_root: bool, kind: FrameKind) -> bool {
    !is_root && matches!(kind, FrameKind::Thread | FrameKind::Pseudo)
}

/// `profile` with siblings that share a frame merged into one node (values added), in source order.
pub fn merge_siblings(profile: &Profile) -> Profile {
    rebuild(profile, profile.tree.walk(), &LinesIntoFunctions::none(profile))
}

/// `profile` with siblings that share a frame merged ([`merge_siblings`]) where it has any; as it
/// came, without a copy, where it has none.
pub(crate) fn merged_siblings(profile: Profile) -> Profile {
    match profile.tree.has_duplicate_siblings(profile.frames.len()) {
        true => merge_siblings(&profile),
        false => profile,
    }
}

/// `profile` with every line frame replaced by its function (same name and module, no line). A line
/// node directly under a node of its own function (Dyalog: function row, then its line rows; a
/// function's name, whatever the line's file: callgrind's code inlined from another file) is
/// spliced into that node: its children move up, and so do its additive self values, while its
/// per-node ones (calls) are dropped, as the function's own count already counts the function. A
/// function's time so made whole is the number its own part was taken from (`with_parts`: no
/// drift from adding the parts back). Elsewhere (BR: a stack of lines) the line node becomes a
/// function node, merged with any sibling of the same function, every value added. A line of no
/// named function ([`Frame::is_anonymous_line`]) becomes a function named by its place
/// (`orders.br:690.1`), so that different routines stay apart.
pub fn merge_lines(profile: &Profile) -> Profile {
    rebuild(profile, profile.tree.walk(), &LinesIntoFunctions::all(profile))
}

/// `profile` with a new first root of frame `parent` that adopts every root `adopt` accepts; the
/// other roots and all nodes keep their order and values.
pub(crate) fn adopt_roots(profile: &Profile, parent: FrameId, adopt: impl Fn(&Frame) -> bool) -> Profile {
    let top = NodeId(0);
    copy_reparented(profile, Some(parent), |node, new_node| match profile.tree.parent(node) {
        Some(p) => Some(new_node[p.index()]),
        None if adopt(profile.frames.get(profile.tree.frame(node))) => Some(top),
        None => None,
    })
}

/// `profile` with every thread right below a pseudo-frame root (LispWorks' processes below its
/// `"Profile root"`) made a root, for formats whose threads are roots of their own. The pseudo-frame
/// root stays where it keeps a value of its own or a child that is no thread, and goes otherwise;
/// `None` when there is no such thread.
pub(crate) fn threads_to_roots(profile: &Profile) -> Option<Profile> {
    let src = &profile.tree;
    let kind = |node: NodeId| profile.frames.get(src.frame(node)).kind;
    let lifted: Vec<bool> = (src.nodes())
        .map(|n| {
            kind(n) == FrameKind::Thread
                && src.parent(n).is_some_and(|p| src.parent(p).is_none() && kind(p) == FrameKind::Pseudo)
        })
        .collect();
    if !lifted.contains(&true) {
        return None;
    }
    // Per node, whether it keeps a value or a child that stays below it; a root that keeps neither
    // once its threads are lifted goes.
    let mut keeps = vec![false; src.len()];
    let mut heads_threads = vec![false; src.len()];
    for node in src.nodes() {
        keeps[node.index()] |= (0..profile.metrics().len()).any(|m| src.self_value(m, node).as_f64() != 0.0);
        if let Some(p) = src.parent(node) {
            keeps[p.index()] |= !lifted[node.index()];
            heads_threads[p.index()] |= lifted[node.index()];
        }
    }
    let mut out = without_nodes(profile);
    let mut new_node: Vec<Option<NodeId>> = vec![None; src.len()];
    for node in src.walk().map(|visit| visit.node) {
        if heads_threads[node.index()] && !keeps[node.index()] {
            continue;
        }
        let parent = src.parent(node).filter(|_| !lifted[node.index()]).and_then(|p| new_node[p.index()]);
        let id = out.tree.push(parent, src.frame(node));
        new_node[node.index()] = Some(id);
        copy_values(src, node, &mut out.tree, id);
    }
    out.timeline = profile.timeline.as_ref().and_then(|t| t.remapped(|n| new_node[n.index()]));
    Some(out)
}

/// `profile` with every line node that sits below a node of its own function (Dyalog: a function
/// row, then its line rows) moved into that node's place, below the function's caller: for formats
/// whose stacks are lines (BR), where "line 7 of F" is one frame, not a call from F. The function
/// node keeps its own values: the time of F on no line.
pub(crate) fn unnest_lines(profile: &Profile) -> Profile {
    let (tree, frames) = (&profile.tree, &profile.frames);
    copy_reparented(profile, None, |node, new_node| {
        let parent = tree.parent(node)?;
        let (f, p) = (frames.get(tree.frame(node)), frames.get(tree.frame(parent)));
        let own_function =
            f.kind == FrameKind::Line && p.kind != FrameKind::Line && f.name == p.name && f.module == p.module;
        match own_function {
            true => tree.parent(parent).map(|g| new_node[g.index()]),
            false => Some(new_node[parent.index()]),
        }
    })
}

/// `profile` with a node of frame `between(node)` put between each node for which it gives one and
/// the node's parent: one such node per parent and frame, taking the place of the first sibling that
/// goes under it, with no value of its own (its measured inclusive values, where the profile has
/// some, are its children's added up). Roots are left as they are.
pub(crate) fn interpose(profile: &Profile, between: impl Fn(NodeId) -> Option<FrameId>) -> Profile {
    let src = &profile.tree;
    let mut out = without_nodes(profile);
    let mut new_node: Vec<NodeId> = vec![NodeId(0); src.len()];
    let mut inserted: FxHashMap<(NodeId, FrameId), NodeId> = FxHashMap::default();
    let n_metrics = profile.metrics().len();
    for visit in src.walk() {
        let node = visit.node;
        let mut parent = src.parent(node).map(|p| new_node[p.index()]);
        if let (Some(p), Some(frame)) = (parent, between(node)) {
            let middle = *inserted.entry((p, frame)).or_insert_with(|| out.tree.push(Some(p), frame));
            for m in (0..n_metrics).filter(|&m| src.measured_inclusive(m).is_some()) {
                let sum = out.tree.measured_inclusive(m).map_or(Value::Int(0), |v| v.get(middle.index()));
                let child = src.measured_inclusive(m).map_or(Value::Int(0), |v| v.get(node.index()));
                out.tree.set_measured_inclusive(m, middle, Value::Float(sum.as_f64() + child.as_f64()));
            }
            parent = Some(middle);
        }
        let id = out.tree.push(parent, src.frame(node));
        new_node[node.index()] = id;
        copy_values(src, node, &mut out.tree, id);
    }
    out.timeline = profile.timeline.as_ref().and_then(|t| t.remapped(|n| Some(new_node[n.index()])));
    out
}

/// `profile` without its nodes: its header, metrics, frames and facts (not its timeline, whose nodes
/// are the tree's: what builds the new tree maps it).
pub(crate) fn without_nodes(profile: &Profile) -> Profile {
    let mut out = Profile::new(profile.metrics().to_vec());
    out.meta = profile.meta.clone();
    out.frames = profile.frames.clone();
    out.function_facts = profile.function_facts.clone();
    out.frame_attrs = profile.frame_attrs.clone();
    out
}

/// Sets the values of node `to` of `out` to those of node `from` of `src`.
pub(crate) fn copy_values(src: &super::CallTree, from: NodeId, out: &mut super::CallTree, to: NodeId) {
    for m in 0..src.n_metrics() {
        out.set_self(m, to, src.self_value(m, from));
        if let Some(measured) = src.measured_inclusive(m) {
            out.set_measured_inclusive(m, to, measured.get(from.index()));
        }
    }
}

/// Copies `profile` node by node in pre-order (after a new first root of frame `top`, when given),
/// each under the parent `parent_of` picks from the copies made so far.
fn copy_reparented(
    profile: &Profile,
    top: Option<FrameId>,
    mut parent_of: impl FnMut(NodeId, &[NodeId]) -> Option<NodeId>,
) -> Profile {
    let src = &profile.tree;
    let mut out = without_nodes(profile);
    if let Some(top) = top {
        out.tree.push(None, top);
    }
    let mut new_node: Vec<NodeId> = vec![NodeId(0); src.len()];
    for visit in src.walk() {
        let node = visit.node;
        let parent = parent_of(node, &new_node);
        let id = out.tree.push(parent, src.frame(node));
        new_node[node.index()] = id;
        copy_values(src, node, &mut out.tree, id);
    }
    out.timeline = profile.timeline.as_ref().and_then(|t| t.remapped(|n| Some(new_node[n.index()])));
    out
}

/// Copies `profile` in the order of `walk` (a pre-order walk of its tree), merging siblings with
/// equal frames, line frames turned into their functions as `lines` says.
fn rebuild(profile: &Profile, walk: impl Iterator<Item = Visit>, lines: &LinesIntoFunctions) -> Profile {
    let src = &profile.tree;
    let mut out = Profile::new(profile.metrics().to_vec());
    out.meta = profile.meta.clone();
    let mut new_frame: Vec<Option<FrameId>> = vec![None; profile.frames.len()];
    let mut frame_of = |old_frame: FrameId, out: &mut Profile| {
        *new_frame[old_frame.index()].get_or_insert_with(|| {
            let frame = profile.frames.get(old_frame);
            match lines.turns_into_function(old_frame) {
                true => out.frames.intern(Frame::as_ref(&frame.function())),
                false => out.frames.intern(frame.as_ref()),
            }
        })
    };
    let metrics = profile.metrics();
    let mut new_node: Vec<NodeId> = vec![NodeId(0); src.len()];
    let mut index = ChildIndex::default();
    for visit in walk {
        let node = visit.node;
        let frame = frame_of(src.frame(node), &mut out);
        let parent = src.parent(node).map(|p| new_node[p.index()]);
        let splice = lines.splices(node);
        let id = match (splice, parent) {
            (true, Some(p)) => p,
            _ => index.child_or_insert(&mut out.tree, parent, frame),
        };
        new_node[node.index()] = id;
        let own_parts = lines.parts.get(&node);
        for (m, metric) in metrics.iter().enumerate() {
            let value = src.self_value(m, node);
            let float = lines.floats.iter().position(|&f| f == m);
            match (splice, own_parts.zip(float)) {
                // Its value is in its function's already, or (calls) the function's own stands.
                (true, _) if float.is_some() || metric.aggregation == Aggregation::PerNode => {}
                (false, Some((sums, i))) => {
                    let (of_lines, short) = sums[i];
                    out.tree.add_self(m, id, Value::Float(with_parts(value.as_f64(), of_lines, short)));
                }
                _ => out.tree.add_self(m, id, value),
            }
            // A spliced line's inclusive value is already inside its function's.
            if let (Some(measured), false) = (src.measured_inclusive(m), splice) {
                let previous = out.tree.measured_inclusive(m).map_or(Value::Int(0), |v| v.get(id.index()));
                let sum = Value::Float(previous.as_f64() + measured.get(node.index()).as_f64());
                out.tree.set_measured_inclusive(m, id, sum);
            }
        }
    }
    out.timeline = profile.timeline.as_ref().and_then(|t| t.remapped(|n| Some(new_node[n.index()])));
    for (&frame, facts) in &profile.function_facts {
        if let Some(id) = new_frame[frame.index()] {
            out.function_facts.insert(id, *facts);
        }
    }
    for (&frame, attrs) in &profile.frame_attrs {
        if let Some(id) = new_frame[frame.index()] {
            out.frame_attrs.entry(id).or_insert_with(|| attrs.clone());
        }
    }
    out
}

/// Which line frames of a profile [`rebuild`] turns into their functions, which of its nodes it
/// splices into their parents, and what their values add to those parents.
struct LinesIntoFunctions<'p> {
    profile: &'p Profile,
    /// Per frame, whether it is a line that becomes its function.
    line_frames: Vec<bool>,
    /// The metrics of float self values.
    floats: Vec<usize>,
    /// Per function node, the float self values (of `floats`) of the lines spliced into it, added
    /// up in order, and whether each had at most 15 digits: what its own part was taken from is
    /// worked out of them.
    parts: FxHashMap<NodeId, Vec<(f64, bool)>>,
}

impl<'p> LinesIntoFunctions<'p> {
    /// Line frames kept as they are.
    fn none(profile: &'p Profile) -> Self {
        let line_frames = vec![false; profile.frames.len()];
        LinesIntoFunctions { profile, line_frames, floats: Vec::new(), parts: FxHashMap::default() }
    }

    /// Every line frame of `profile` turned into its function, the line nodes under a node of their
    /// own function spliced into it.
    fn all(profile: &'p Profile) -> Self {
        let src = &profile.tree;
        let line_frames = profile.frames.iter().map(|(_, f)| f.kind == FrameKind::Line).collect();
        let floats = (0..profile.metrics().len()).filter(|&m| matches!(src.self_values(m), Values::Float(_))).collect();
        let mut lines = LinesIntoFunctions { profile, line_frames, floats, parts: FxHashMap::default() };
        if lines.floats.is_empty() {
            return lines;
        }
        let mut parts: FxHashMap<NodeId, Vec<(f64, bool)>> = FxHashMap::default();
        for node in src.walk().map(|visit| visit.node) {
            if let Some(p) = src.parent(node).filter(|_| lines.splices(node)) {
                let sums = parts.entry(p).or_insert_with(|| vec![(0.0, true); lines.floats.len()]);
                for (sum, &m) in sums.iter_mut().zip(&lines.floats) {
                    let line = src.self_value(m, node).as_f64();
                    *sum = (sum.0 + line, sum.1 && shortened(line) == line);
                }
            }
        }
        lines.parts = parts;
        lines
    }

    /// Whether `frame` is a line that becomes its function.
    fn turns_into_function(&self, frame: FrameId) -> bool {
        self.line_frames[frame.index()]
    }

    /// Whether `node` is spliced into its parent. Only a line under a row of its own function
    /// splices (Dyalog; whatever kind the function row was read as; callgrind's lines of a
    /// function's code inlined from another file, `fi=`, whose module is that file, too); a line
    /// under a line of the same function is a recursive call (BR stacks of lines) and stays a node
    /// of its own.
    fn splices(&self, node: NodeId) -> bool {
        let (src, frames) = (&self.profile.tree, &self.profile.frames);
        let Some(p) = src
            .parent(node)
            .filter(|p| self.turns_into_function(src.frame(node)) && !self.turns_into_function(src.frame(*p)))
        else {
            return false;
        };
        let (line, function) = (frames.get(src.frame(node)), frames.get(src.frame(p)));
        !line.is_anonymous_line() && line.name == function.name
    }
}

/// The part of `total` that `parts` do not account for, or `None` when the parts exceed it. Parts
/// that exceed it by no more than binary rounding (0.1 + 0.2 against 0.3) leave 0.
pub(crate) fn unattributed(total: f64, parts: f64) -> Option<f64> {
    let own = total - parts;
    if own >= 0.0 {
        Some(own)
    } else if -own <= 1e-12 * total.abs().max(parts.abs()) {
        Some(0.0)
    } else {
        None
    }
}

/// The whole that [`unattributed`] turns back into `own` given `parts` (a Dyalog function's
/// exclusive time from its own part and its lines'), so that a value taken apart and put together
/// again keeps every digit. Where several do, parts with at most 15 digits (`short_parts`: 1.37
/// prints three decimals) came from a whole of at most 15 digits too (0.3 rather than
/// 0.30000000000000004); parts printed in full (0.9.0), from the one nearest to the sum.
pub(crate) fn with_parts(own: f64, parts: f64, short_parts: bool) -> f64 {
    let sum = own + parts;
    let reads_back = |t: f64| unattributed(t, parts) == Some(own);
    let short = short_parts.then(|| shortened(sum)).filter(|&short| reads_back(short));
    if let Some(short) = short {
        return short;
    }
    // Otherwise the nearest number that reads back, a few units in the last place away at most.
    let step = |t: f64, up: bool| {
        let bits = t.to_bits() as i64 + if up == (t >= 0.0) { 1 } else { -1 };
        f64::from_bits(bits as u64)
    };
    let (mut above, mut below) = (sum, sum);
    for _ in 0..64 {
        for t in [above, below] {
            if reads_back(t) {
                return t;
            }
        }
        (above, below) = (step(above, true), step(below, false));
    }
    sum
}

/// `value` to 15 significant digits.
pub(crate) fn shortened(value: f64) -> f64 {
    format!("{value:.14e}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{dump::dump, FrameRef, Metric};

    fn profile(stacks: &[(&[&str], i64)]) -> Profile {
        let mut p = Profile::new(vec![Metric::samples()]);
        for (stack, n) in stacks {
            let mut parent = None;
            for name in *stack {
                let frame = p.frames.intern(FrameRef::function(name));
                parent = Some(p.tree.push(parent, frame));
            }
            if let Some(leaf) = parent {
                p.tree.add_self(0, leaf, Value::Int(*n));
            }
        }
        p
    }

    #[test]
    fn normalize_merges_and_sorts() {
        let a = profile(&[(&["m", "b"], 1), (&["m", "a"], 2), (&["m", "b"], 3)]);
        let b = profile(&[(&["m", "a"], 2), (&["m", "b"], 4)]);
        assert_eq!(dump(&normalize(&a)), dump(&normalize(&b)));
        assert!(dump(&normalize(&a)).contains("  \"b\" [function] samples=4"));
    }

    #[test]
    fn merge_lines_splices_under_own_function_and_replaces_elsewhere() {
        let mut p = Profile::new(vec![Metric::samples()]);
        let f = p.frames.intern(FrameRef::function("f"));
        let f6 = p.frames.intern(FrameRef { line: Some(6), kind: FrameKind::Line, ..FrameRef::function("f") });
        let g7 = p.frames.intern(FrameRef { line: Some(7), kind: FrameKind::Line, ..FrameRef::function("g") });
        let g8 = p.frames.intern(FrameRef { line: Some(8), kind: FrameKind::Line, ..FrameRef::function("g") });
        let nf = p.tree.push(None, f);
        let n6 = p.tree.push(Some(nf), f6); // Dyalog shape: line row under its function
        let n7 = p.tree.push(Some(n6), g7); // BR shape: a line of another function
        let n8 = p.tree.push(Some(n6), g8);
        let n7_again = p.tree.push(Some(n7), g7); // BR recursion: a line under a line of its function
        for (n, v) in [(nf, 1), (n6, 2), (n7, 4), (n8, 8), (n7_again, 16)] {
            p.tree.add_self(0, n, Value::Int(v));
        }
        let merged = merge_lines(&p);
        let text = dump(&merged);
        assert!(text.contains("\"f\" [function] samples=3 (total 31)"), "{text}");
        assert!(text.contains("  \"g\" [function] samples=12 (total 28)"), "{text}");
        assert!(text.contains("    \"g\" [function] samples=16 (total 16)"), "{text}");
        assert_eq!(merged.tree.len(), 3);
    }

    /// A Dyalog function row with its line rows (1.37's #.Samples.Sample: 19.362 ms, lines of 3
    /// decimals, each called once or more): merged, the function's calls are its own (1, not 1 + the
    /// lines'), and its time the very 19.362 it was read as, not the sum of its parts (which drifts
    /// to 19.361999999999995). Two sibling calls of one function still add up.
    #[test]
    fn merged_lines_leave_calls_and_the_read_time_alone() {
        use crate::model::{Repr, Unit, Values};
        let mut p = Profile::new(vec![Metric::entries("calls")]);
        let f = p.frames.intern(FrameRef::function("f"));
        let g = p.frames.intern(FrameRef::function("g"));
        let line = |p: &mut Profile, n| {
            p.frames.intern(FrameRef { line: Some(n), kind: FrameKind::Line, ..FrameRef::function("f") })
        };
        let nf = p.tree.push(None, f);
        let lines = [0.002, 0.0, 0.0, 0.0, 0.005, 0.0, 0.874];
        let mut nodes = vec![nf];
        for (i, _) in lines.iter().enumerate() {
            let frame = line(&mut p, i as u32 + 1);
            nodes.push(p.tree.push(Some(nf), frame));
        }
        let g1 = p.tree.push(Some(nodes[7]), g);
        let g2 = p.tree.push(Some(nodes[7]), g);
        let parts = lines.iter().fold(0.0, |sum, l| sum + l);
        let own = unattributed(19.362, parts).unwrap();
        // Added back one by one, as merging once did, the parts drift.
        assert_ne!(lines.iter().fold(own, |sum, l| sum + l), 19.362);
        let mut times = vec![own];
        times.extend(lines);
        times.extend([0.25, 0.5]);
        for (i, n) in nodes.iter().chain([&g1, &g2]).enumerate() {
            p.tree.set_self(0, *n, Value::Int(if i == 0 { 1 } else { 3 }));
        }
        p.add_metric(Metric::time(Unit::Milliseconds, Repr::Float), Values::Float(times));
        let text = dump(&merge_lines(&p));
        assert!(text.contains("\"f\" [function] calls=1 time=19.362 "), "{text}");
        assert!(text.contains("  \"g\" [function] calls=6 time=0.75 "), "{text}");
        assert_eq!(merge_lines(&p).tree.len(), 2);
    }
}
