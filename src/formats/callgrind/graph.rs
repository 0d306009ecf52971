//! A callgrind file's call graphs, and the tree they are apportioned into: each function's
//! inclusive cost shared among its callers as speedscope's importer shares it (its
//! `src/import/callgrind.ts`), then each function's own costs per line and each call's count made
//! whole numbers that add up to the file's exactly.

use crate::diag::Diagnostics;
use crate::formats::kit::call_graph::{components, grouped, whole_shares, DepthFirst, Unexpanded};
use crate::formats::kit::string_table::StringTable;
use crate::model::Sampling;
use crate::model::{
    FrameId, FrameKind, FrameRef, FrameTable, Metric, MetricKind, NodeId, Profile, Repr, Unit, Value, Values,
};
use rustc_hash::FxHashMap;

/// Interned strings, numbered as the call graph keeps them.
#[derive(Default)]
pub(super) struct Strings(StringTable);

impl Strings {
    pub(super) fn intern(&mut self, text: &str) -> u32 {
        self.0.number(text) as u32
    }

    fn get(&self, id: u32) -> &str {
        self.0.get(id as usize).unwrap_or_default()
    }
}

/// The names of a file: function names, file names, object names, and the functions (a file and
/// a name, as `callgrind_annotate` totals them), numbered in order of first appearance.
#[derive(Default)]
pub(super) struct Names {
    pub(super) strings: Strings,
    pub(super) files: Strings,
    pub(super) objects: Strings,
    function_ids: FxHashMap<(u32, u32), u32>,
    functions: Vec<(u32, u32)>,
}

impl Names {
    /// The function `name` of `file`.
    pub(super) fn function(&mut self, file: u32, name: u32) -> u32 {
        let next = self.functions.len() as u32;
        let id = *self.function_ids.entry((file, name)).or_insert(next);
        if id == next {
            self.functions.push((file, name));
        }
        id
    }
}

/// The call graph of one thread: each function's own cost per line and each call's count and
/// inclusive cost, added up over the file.
pub(super) struct Graph {
    pub(super) thread: Option<String>,
    /// (function, line, file of the line) of each cost slot, and its slot: a function's inlined
    /// lines (`fi=`) are in another file than its own.
    slot_ids: FxHashMap<(u32, u32, u32), u32>,
    slots: Vec<(u32, u32, u32)>,
    slot_costs: Vec<i64>,
    /// (caller, line, file of the line, callee) of each call edge, and its edge.
    edge_ids: FxHashMap<(u32, u32, u32, u32), u32>,
    edges: Vec<(u32, u32, u32, u32)>,
    edge_calls: Vec<i64>,
    edge_costs: Vec<i64>,
}

impl Graph {
    pub(super) fn new(thread: Option<String>) -> Graph {
        Graph {
            thread,
            slot_ids: FxHashMap::default(),
            slots: Vec::new(),
            slot_costs: Vec::new(),
            edge_ids: FxHashMap::default(),
            edges: Vec::new(),
            edge_calls: Vec::new(),
            edge_costs: Vec::new(),
        }
    }

    /// The costs of `function` at `line` of `file`, to add a cost line's counts to.
    pub(super) fn cost(&mut self, function: u32, line: u32, file: u32, n_events: usize) -> &mut [i64] {
        let next = self.slots.len() as u32;
        let slot = *self.slot_ids.entry((function, line, file)).or_insert(next) as usize;
        if slot == next as usize {
            self.slots.push((function, line, file));
            self.slot_costs.resize(self.slot_costs.len() + n_events, 0);
        }
        &mut self.slot_costs[slot * n_events..(slot + 1) * n_events]
    }

    /// Forgets how slots and calls are found by their keys, which only reading needs: the tree is
    /// built from their numbers.
    pub(super) fn done_reading(&mut self) {
        self.slot_ids = FxHashMap::default();
        self.edge_ids = FxHashMap::default();
    }

    /// The inclusive costs of the calls of `caller` at `line` of `file` to `callee`, counting
    /// `calls` more.
    pub(super) fn call(
        &mut self,
        caller: u32,
        (line, file): (u32, u32),
        callee: u32,
        calls: i64,
        n_events: usize,
    ) -> &mut [i64] {
        let next = self.edges.len() as u32;
        let edge = *self.edge_ids.entry((caller, line, file, callee)).or_insert(next) as usize;
        if edge == next as usize {
            self.edges.push((caller, line, file, callee));
            self.edge_calls.push(0);
            self.edge_costs.resize(self.edge_costs.len() + n_events, 0);
        }
        self.edge_calls[edge] = self.edge_calls[edge].saturating_add(calls);
        &mut self.edge_costs[edge * n_events..(edge + 1) * n_events]
    }
}

/// Everything read of a file.
pub(super) struct Read {
    pub(super) names: Names,
    pub(super) events: Vec<String>,
    pub(super) graphs: Vec<Graph>,
    pub(super) title: Option<String>,
    pub(super) attrs: Vec<(String, String)>,
    /// What the file states its totals are (`summary:`, `totals:`, added up over its dumps).
    pub(super) stated: [(&'static str, Option<Vec<i64>>); 2],
}

/// A call into a function visited before is not expanded below a node unless one of its shares is
/// at least this many events, and this part of the total: so that a graph of many paths does not
/// become a tree of billions.
const LEAST_SHARE: f64 = 0.5;
const LEAST_PART: f64 = 1e-6;

/// A graph whose tree would pass the most nodes allowed: how big the graph is.
pub(super) struct TooManyNodes {
    pub(super) functions: usize,
    pub(super) calls: usize,
}

impl Read {
    /// The profile of the graphs, unless their tree would pass `max_nodes` nodes.
    pub(super) fn into_profile(self, max_nodes: u64, diag: &mut Diagnostics) -> Result<Profile, TooManyNodes> {
        let n_events = self.events.len();
        let mut metrics: Vec<Metric> = Vec::new();
        let mut scales: Vec<i64> = Vec::new();
        for event in &self.events {
            let (name, kind, unit, scale) = match event_quantity(event) {
                (name, MetricKind::Events, _, _) => match long_name_unit(&self.attrs, event) {
                    Some((kind, unit)) => (name, kind, unit, 1),
                    None => (name, MetricKind::Events, Unit::Count, 1),
                },
                quantity => quantity,
            };
            let name = super::super::shared::unique_name(name.to_string(), |n| metrics.iter().any(|m| m.name == n));
            // Callgrind simulates every instruction: its counts have no sampling noise.
            metrics.push(Metric::new(name, kind, unit, Repr::Int).sampled(Sampling::Measured));
            scales.push(scale);
        }
        let has_calls = self.graphs.iter().any(|g| !g.edges.is_empty());
        if has_calls {
            let name = super::super::shared::unique_name("calls".into(), |n| metrics.iter().any(|m| m.name == n));
            metrics.push(Metric { name, ..Metric::entries("calls") });
        }
        // Weighed by its first event, as callgrind_annotate and KCachegrind sort by it (and as
        // proftool writes the profile's own first).
        let weighed_by = metrics.first().map(|m| m.kind);
        let mut profile = Profile::new(metrics);
        profile.meta.weighed_by = weighed_by;
        profile.meta.title = self.title;
        profile.meta.attrs = self.attrs;
        let mut frames = Frames { names: &self.names, places: FxHashMap::default() };
        let mut left = Unexpanded::default();
        let threads = self.graphs.iter().filter(|g| g.thread.is_some()).count() > 1;
        let calls = self.graphs.iter().map(|g| g.edges.len()).sum::<usize>();
        let too_many = TooManyNodes { functions: self.names.functions.len(), calls };
        for graph in &self.graphs {
            let root = match (&graph.thread, threads) {
                (Some(thread), true) => {
                    let frame = profile.frames.intern(FrameRef::named(&format!("thread {thread}"), FrameKind::Thread));
                    Some(profile.tree.push(None, frame))
                }
                _ => None,
            };
            let apportioning = Apportioning::new(graph, n_events, has_calls, self.names.functions.len());
            if !apportioning.build(&mut profile, &mut frames, (root, max_nodes), &mut left) {
                return Err(too_many);
            }
        }
        if calls > 0 {
            diag.warn("callgrind-graph", None, || {
                let mut text = "callgrind holds a call graph, not a tree: each function's inclusive cost is apportioned among its callers, as speedscope's importer does (its stacks are shares, not measured; each function's own costs per line, and each call's count, are the file's exactly)".to_string();
                text += &left.said(
                    "below half an event or a millionth of the total",
                    "their functions' costs being in their other stacks",
                );
                text
            });
        }
        say_expansion(&profile, self.names.functions.len(), calls, diag);
        let lines: Vec<i64> = (0..n_events)
            .map(|e| {
                self.graphs
                    .iter()
                    .flat_map(|g| g.slot_costs.iter().skip(e).step_by(n_events))
                    .fold(0i64, |a, &c| a.saturating_add(c))
            })
            .collect();
        stated_totals(&self.stated, &self.events, &mut profile, &lines, diag);
        // An event counted in steps of its unit (Xdebug's `Time_(10ns)`) in that unit's ones.
        for (m, &scale) in scales.iter().enumerate().filter(|&(_, &scale)| scale != 1) {
            if let Values::Int(counts) = profile.tree.self_values(m) {
                let scaled = counts.iter().map(|c| c.saturating_mul(scale)).collect();
                profile.tree.replace_metric(m, Values::Int(scaled));
            }
        }
        Ok(profile)
    }
}

/// Says how much a call graph expanded into its tree where it grew past ten nodes per function and
/// call (nested diamonds: a 21 KB file became 365 MB of folded stacks), before anything is written:
/// each output writes the tree, and those that write stacks whole grow with its depth too.
fn say_expansion(profile: &Profile, functions: usize, calls: usize, diag: &mut Diagnostics) {
    let (nodes, graph) = (profile.tree.len(), functions + calls);
    if nodes <= 10 * graph.max(1) {
        return;
    }
    let depth = profile.max_depth().unwrap_or(0) + 1;
    diag.warn("callgrind-expansion", None, || {
        format!(
            "the call graph of {functions} functions and {calls} calls expands into a tree of {nodes} nodes, {depth} frames deep ({} times the graph): every output holds the tree, those of whole stacks (folded, SVG, Sampler, speedscope, pprof, BR) its depth times its leaves, each held to --max-output-size",
            nodes / graph.max(1)
        )
    });
}

/// Checks the totals the file states against its cost lines. A `summary:` above the lines in
/// every event (callgrind counts a few instructions of a `--cache-sim=yes --dump-instr=yes` run
/// that no cost line lists: 2 Ir of 129,104) puts the difference under a root of its own, so that
/// the profile's totals are callgrind_annotate's PROGRAM TOTALS (its `summary:`), said on stderr;
/// any other difference is said, the totals being the lines'.
fn stated_totals(
    stated: &[(&'static str, Option<Vec<i64>>)],
    events: &[String],
    profile: &mut Profile,
    lines: &[i64],
    diag: &mut Diagnostics,
) {
    for (what, stated) in stated {
        let Some(stated) = stated.as_deref().filter(|stated| *stated != lines) else { continue };
        let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
        let (stated_text, lines_text, events) = (join(stated), join(lines), events.join(" "));
        let above = stated.len() == lines.len() && stated.iter().zip(lines).all(|(s, l)| s >= l);
        if *what == "summary:" && above {
            let frame = profile.frames.intern(FrameRef::named(UNLISTED, FrameKind::Pseudo));
            let node = profile.tree.push(None, frame);
            for (e, (s, l)) in stated.iter().zip(lines).enumerate() {
                profile.tree.add_self(e, node, Value::Int(s - l));
            }
            diag.warn("callgrind-unlisted", None, || {
                    format!("the file's {what} {stated_text} ({events}) is above what its cost lines add up to, {lines_text}: the difference, counted by callgrind in no function it lists, is under `{UNLISTED}`, so the totals are the summary's (callgrind_annotate's PROGRAM TOTALS)")
                });
        } else {
            diag.warn("callgrind-totals", None, || {
                    format!("the file's {what} {stated_text} ({events}) is not what its cost lines add up to, {lines_text}: the totals are the lines' (a file cut short, or a dump that counts what it lists no line for)")
                });
        }
    }
}

/// The root of what a file's `summary:` counts beyond its cost lines.
const UNLISTED: &str = "(not in a listed function)";

/// What an event of a name of no unit counts by the unit its long name (`event: t : Wall time
/// (elapsed ns)`) ends with in parentheses: time (`ns`, `us`, `µs`, `ms`) or bytes.
fn long_name_unit(attrs: &[(String, String)], event: &str) -> Option<(MetricKind, Unit)> {
    let long = attrs.iter().filter(|(key, _)| key == "callgrind.event").find_map(|(_, value)| {
        let (name, long) = value.split_once(':')?;
        (name.trim() == event).then_some(long.trim())
    })?;
    let inside = long.strip_suffix(')')?.rsplit_once('(')?.1;
    quantity_of_unit(inside.split_whitespace().last()?).filter(|&(_, _, scale)| scale == 1).map(|(k, u, _)| (k, u))
}

/// What an event whose unit is `word` counts, in which of the model's units, and how many of those
/// one of `word` is: time (`ns`, `us` or `µs`, `ms`, `s`) or bytes (`bytes`, and pprof's `B`, `kB`,
/// `MB`, `GB`, `TB`, each 1024 of the one before, as pprof's units are).
fn quantity_of_unit(word: &str) -> Option<(MetricKind, Unit, i64)> {
    let bytes = |scale| Some((MetricKind::Alloc, Unit::Bytes, scale));
    match word {
        "ns" => Some((MetricKind::Time, Unit::Nanoseconds, 1)),
        "us" | "µs" => Some((MetricKind::Time, Unit::Microseconds, 1)),
        "ms" => Some((MetricKind::Time, Unit::Milliseconds, 1)),
        "s" => Some((MetricKind::Time, Unit::Milliseconds, 1000)),
        "bytes" | "B" => bytes(1),
        "kB" => bytes(1 << 10),
        "MB" => bytes(1 << 20),
        "GB" => bytes(1 << 30),
        "TB" => bytes(1 << 40),
        _ => None,
    }
}

/// What an event counts, by the unit its name ends with: Xdebug's `Time_(10ns)` and
/// `Memory_(bytes)`, pprof's `cpu(ms)` and `inuse_space(MB)` (`go tool pprof -callgrind`), and the
/// `name_ns` proftool writes for a time (as `event_name` in write.rs names it), are time and bytes,
/// named without the unit, with how many of the model's unit one count is; any other event counts
/// events of its name (`Ir`, `Dr`, `cycles`).
fn event_quantity(event: &str) -> (&str, MetricKind, Unit, i64) {
    let in_parentheses = event.strip_suffix(')').and_then(|e| e.rsplit_once('('));
    let (name, unit) = match in_parentheses.or_else(|| event.rsplit_once('_')) {
        Some((name, unit)) if !name.is_empty() => (name.strip_suffix('_').unwrap_or(name), unit),
        _ => return (event, MetricKind::Events, Unit::Count, 1),
    };
    let (steps, unit) = match unit.find(|c: char| !c.is_ascii_digit()) {
        Some(0) => (1, unit),
        Some(at) => (unit[..at].parse().unwrap_or(1), &unit[at..]),
        None => return (event, MetricKind::Events, Unit::Count, 1),
    };
    match quantity_of_unit(unit) {
        Some((kind, unit, scale)) if !name.is_empty() => (name, kind, unit, steps * scale),
        _ => (event, MetricKind::Events, Unit::Count, 1),
    }
}

/// The frames of functions and of their lines, interned once.
struct Frames<'n> {
    names: &'n Names,
    places: FxHashMap<(u32, u32, u32), FrameId>,
}

impl Frames<'_> {
    /// The frame of `function` itself.
    fn function(&mut self, table: &mut FrameTable, function: u32) -> FrameId {
        let (file, _) = self.names.functions[function as usize];
        self.get(table, function, 0, file)
    }

    /// The frame of `function` at `line` of `file` (line 0: the function itself, or its code in
    /// another file than its own).
    fn get(&mut self, table: &mut FrameTable, function: u32, line: u32, file: u32) -> FrameId {
        let names = self.names;
        *self.places.entry((function, line, file)).or_insert_with(|| {
            let name = names.strings.get(names.functions[function as usize].1);
            let (kind, line) = if line == 0 { (FrameKind::Function, None) } else { (FrameKind::Line, Some(line)) };
            // Callgrind's `???` is no file: code without debug information.
            let module = Some(names.files.get(file)).filter(|f| *f != super::UNKNOWN_FILE);
            table.intern(FrameRef { name, module, line, clause: None, kind })
        })
    }
}

/// One graph's functions with their costs and calls, and the visits that make its tree.
///
/// A cycle of recursion (functions that call one another, callgrind's `f'2` and `g'2` of
/// `--separate-recs`) is apportioned as a whole: the inclusive cost of a call inside it counts the
/// deeper calls of the cycle again, once per level, so a function's total made of such calls would
/// be many times its cost, and its callees' shares below the cycle would shrink, their costs going
/// to their other callers (a leaf called once by `plain` got 14 times that call's cost). So a
/// cycle's content is its members' own costs and their calls out of it, which callgrind counts
/// exactly; a call into it from outside stands for a part of that content, and each member is
/// expanded once below it, along the first of the cycle's calls that reaches it, standing for the
/// same part of its own content.
struct Apportioning<'g> {
    graph: &'g Graph,
    n_events: usize,
    has_calls: bool,
    /// Per function (by its number in the file): its slots and its calls, as ranges of `slot_order`
    /// and `edge_order`.
    slot_order: Vec<u32>,
    slot_start: Vec<(usize, usize)>,
    edge_order: Vec<u32>,
    edge_start: Vec<(usize, usize)>,
    /// Per function, `n_events` each: its own costs and its calls' to functions outside its cycle
    /// (to any other function where it is in none), added up (speedscope's total weight).
    content: Vec<f64>,
    /// Per function, `n_events` each: its content, or its cycle's where it is in one: what a call
    /// into it stands for a part of.
    totals: Vec<f64>,
    /// Per function: its cycle of recursion (its strongly connected component), and whether that
    /// holds other functions too.
    component: Vec<u32>,
    in_cycle: Vec<bool>,
    /// The functions in order of first appearance.
    order: Vec<u32>,
}

/// Where the expansion put each slot's and each call's costs.
#[derive(Default)]
struct Shares {
    /// Each slot's nodes: (slot, node, where its raw share per event starts in `raw`).
    slots: Vec<(u32, NodeId, usize)>,
    /// Each call's nodes: (edge, node, its share of the call's count).
    calls: Vec<(u32, NodeId, f64)>,
    raw: Vec<f64>,
}

/// A visit to make: a function entered from a node with these shares of its total.
struct Visit {
    function: u32,
    parent: Option<NodeId>,
    weights: Vec<f64>,
    /// The call it comes by, and its share of that call's count.
    call: Option<(u32, f64)>,
    /// The entry into its cycle this visit is below (numbered from 1), 0 where it is in none.
    cycle_entry: u32,
}

impl<'g> Apportioning<'g> {
    fn new(graph: &'g Graph, n_events: usize, has_calls: bool, n_functions: usize) -> Apportioning<'g> {
        let mut order = Vec::new();
        let mut seen = vec![false; n_functions];
        let functions = graph.slots.iter().map(|s| s.0).chain(graph.edges.iter().flat_map(|e| [e.0, e.3]));
        for function in functions {
            if !std::mem::replace(&mut seen[function as usize], true) {
                order.push(function);
            }
        }
        let (slot_order, slot_start) = grouped(graph.slots.iter().map(|s| s.0), n_functions);
        let (edge_order, edge_start) = grouped(graph.edges.iter().map(|e| e.0), n_functions);
        let calls: Vec<(u32, u32)> = graph.edges.iter().filter(|e| e.0 != e.3).map(|e| (e.0, e.3)).collect();
        let component = components(n_functions, &calls);
        let mut sizes = vec![0u32; n_functions];
        component.iter().for_each(|&c| sizes[c as usize] += 1);
        let in_cycle = component.iter().map(|&c| sizes[c as usize] > 1).collect();
        let mut content = vec![0.0; n_functions * n_events];
        let mut add = |function: u32, costs: &[i64]| {
            content[events(function, n_events)].iter_mut().zip(costs).for_each(|(t, &c)| *t += c as f64);
        };
        for (slot, &(function, _, _)) in graph.slots.iter().enumerate() {
            add(function, &graph.slot_costs[events(slot as u32, n_events)]);
        }
        for (edge, &(caller, _, _, callee)) in graph.edges.iter().enumerate() {
            if component[caller as usize] != component[callee as usize] {
                add(caller, &graph.edge_costs[events(edge as u32, n_events)]);
            }
        }
        let mut cycle_totals = vec![0.0; n_functions * n_events];
        for (function, &c) in component.iter().enumerate() {
            let own = &content[events(function as u32, n_events)];
            cycle_totals[events(c, n_events)].iter_mut().zip(own).for_each(|(t, &c)| *t += c);
        }
        let totals = component.iter().flat_map(|&c| cycle_totals[events(c, n_events)].iter().copied()).collect();
        Apportioning {
            graph,
            n_events,
            has_calls,
            slot_order,
            slot_start,
            edge_order,
            edge_start,
            content,
            totals,
            component,
            in_cycle,
            order,
        }
    }

    /// Function `function`'s content, or its cycle's, per event: what a call into it is a part of.
    fn total(&self, function: u32) -> &[f64] {
        let n = self.n_events;
        &self.totals[function as usize * n..(function as usize + 1) * n]
    }

    /// Adds the graph's tree to `profile`, below `root` (a thread) or at the roots, unless the tree
    /// would pass `max_nodes` nodes: whether it did.
    fn build(
        &self,
        profile: &mut Profile,
        frames: &mut Frames<'_>,
        (root, max_nodes): (Option<NodeId>, u64),
        left: &mut Unexpanded,
    ) -> bool {
        let Some(shares) = self.expand(profile, frames, (root, max_nodes), left) else { return false };
        self.share_out_slots(profile, frames, root, &shares, left);
        self.share_out_calls(profile, &shares);
        profile.tree.len() as u64 <= max_nodes
    }

    /// What each function has beyond what its callers give it, per event: it is a root that much.
    /// A cycle is one by what its content has beyond the calls into it from outside, at its first
    /// function.
    fn root_weights(&self) -> Vec<f64> {
        let (graph, n) = (self.graph, self.n_events);
        let mut first = vec![u32::MAX; self.component.len()];
        for &function in self.order.iter().rev() {
            first[self.component[function as usize] as usize] = function;
        }
        let mut roots = vec![0.0; self.totals.len()];
        for &function in &self.order {
            if first[self.component[function as usize] as usize] == function {
                roots[events(function, n)].copy_from_slice(self.total(function));
            }
        }
        for (edge, &(caller, _, _, callee)) in graph.edges.iter().enumerate() {
            let component = self.component[callee as usize];
            if self.component[caller as usize] != component {
                let weights = &mut roots[events(first[component as usize], n)];
                let costs = &graph.edge_costs[events(edge as u32, n)];
                weights.iter_mut().zip(costs).for_each(|(w, &c)| *w -= c as f64);
            }
        }
        roots
    }

    /// Expands the graph into nodes below `root`, depth first from each function with a weight of
    /// its own, each call's share of its callee carried down: the nodes each slot's and each call's
    /// costs go to, with their raw shares; `None` once the tree would pass `max_nodes` nodes.
    fn expand(
        &self,
        profile: &mut Profile,
        frames: &mut Frames<'_>,
        (root, max_nodes): (Option<NodeId>, u64),
        left: &mut Unexpanded,
    ) -> Option<Shares> {
        let (graph, n) = (self.graph, self.n_events);
        let root_weights = self.root_weights();
        let mut callees = Callees {
            least: (0..n)
                .map(|e| {
                    let total: f64 = graph.slot_costs.iter().skip(e).step_by(n).map(|&c| c as f64).sum();
                    LEAST_SHARE.max(total * LEAST_PART)
                })
                .collect(),
            placed: vec![0; self.component.len()],
            entries: 0,
        };
        let mut shares = Shares::default();
        let roots: Vec<Visit> = self
            .order
            .iter()
            .filter_map(|&function| {
                let weights = &root_weights[events(function, n)];
                let weights = weights.iter().any(|&w| w > 0.0).then(|| weights.iter().map(|&w| w.max(0.0)).collect())?;
                Some(Visit { function, parent: root, weights, call: None, cycle_entry: 0 })
            })
            .map(|visit| callees.entering(self, visit))
            .collect();
        let mut walk = DepthFirst::new(self.component.len(), roots.into_iter());
        let mut line_nodes: Vec<((u32, u32), NodeId)> = Vec::new();
        let mut calls = Vec::new();
        while let Some(visit) = walk.next(|visit| visit.function) {
            if profile.tree.len() as u64 > max_nodes {
                return None;
            }
            let function = visit.function;
            let node = profile.tree.push(visit.parent, frames.function(&mut profile.frames, function));
            let own_file = frames.names.functions[function as usize].0;
            if let Some((edge, share)) = visit.call {
                shares.calls.push((edge, node, share));
            }
            let ratios: Vec<f64> =
                visit.weights.iter().zip(self.total(function)).map(|(&w, &t)| if t > 0.0 { w / t } else { 0.0 }).collect();
            line_nodes.clear();
            let mut line_node = |profile: &mut Profile, frames: &mut Frames<'_>, line: u32, file: u32| {
                if line == 0 && file == own_file {
                    return node;
                }
                if let Some(&(_, n)) = line_nodes.iter().find(|(place, _)| *place == (line, file)) {
                    return n;
                }
                let n = profile.tree.push(Some(node), frames.get(&mut profile.frames, function, line, file));
                line_nodes.push(((line, file), n));
                n
            };
            let (start, end) = self.slot_start[function as usize];
            for &slot in &self.slot_order[start..end] {
                let (_, line, file) = graph.slots[slot as usize];
                let target = line_node(profile, frames, line, file);
                let costs = &graph.slot_costs[events(slot, n)];
                shares.slots.push((slot, target, shares.raw.len()));
                shares.raw.extend(costs.iter().zip(&ratios).map(|(&c, &r)| c as f64 * r));
            }
            let (start, end) = self.edge_start[function as usize];
            for &edge in &self.edge_order[start..end] {
                let (_, line, file, _) = graph.edges[edge as usize];
                let Some(mut call) = callees.call(self, (&visit, &ratios), edge, &walk, left) else { continue };
                call.parent = Some(line_node(profile, frames, line, file));
                calls.push(call);
            }
            walk.enter(calls.drain(..));
        }
        Some(shares)
    }

    /// Shares each slot's costs out among its nodes as whole numbers; a slot no visit reached goes
    /// under a root of its function's own (below `root`).
    fn share_out_slots(
        &self,
        profile: &mut Profile,
        frames: &mut Frames<'_>,
        root: Option<NodeId>,
        expanded: &Shares,
        left: &mut Unexpanded,
    ) {
        let (graph, n) = (self.graph, self.n_events);
        let mut unreached: FxHashMap<u32, NodeId> = FxHashMap::default();
        let (order, starts) = grouped(expanded.slots.iter().map(|s| s.0), graph.slots.len());
        let mut shares = Vec::new();
        for (slot, &(function, line, file)) in graph.slots.iter().enumerate() {
            let costs = &graph.slot_costs[slot * n..(slot + 1) * n];
            let (start, end) = starts[slot];
            if start == end {
                if costs.iter().all(|&c| c == 0) {
                    continue;
                }
                let function_node = *unreached.entry(function).or_insert_with(|| {
                    left.unreached += 1;
                    profile.tree.push(root, frames.function(&mut profile.frames, function))
                });
                let node = match line == 0 && file == frames.names.functions[function as usize].0 {
                    true => function_node,
                    false => {
                        profile.tree.push(Some(function_node), frames.get(&mut profile.frames, function, line, file))
                    }
                };
                for (e, &c) in costs.iter().enumerate() {
                    profile.tree.add_self(e, node, Value::Int(c));
                }
                continue;
            };
            let entries = &order[start..end];
            for (e, &cost) in costs.iter().enumerate() {
                let weights = entries.iter().map(|&i| expanded.raw[expanded.slots[i as usize].2 + e]);
                whole_shares(cost, weights, &mut shares);
                for (&i, &share) in entries.iter().zip(&shares) {
                    profile.tree.add_self(e, expanded.slots[i as usize].1, Value::Int(share));
                }
            }
        }
    }

    /// Shares each call's count out among the nodes it was expanded into, as whole numbers.
    fn share_out_calls(&self, profile: &mut Profile, expanded: &Shares) {
        if !self.has_calls {
            return;
        }
        let graph = self.graph;
        let (order, starts) = grouped(expanded.calls.iter().map(|s| s.0), graph.edges.len());
        let mut shares = Vec::new();
        for (edge, &(start, end)) in starts.iter().enumerate() {
            let entries = &order[start..end];
            whole_shares(graph.edge_calls[edge], entries.iter().map(|&i| expanded.calls[i as usize].2), &mut shares);
            for (&i, &share) in entries.iter().zip(&shares) {
                profile.tree.add_self(self.n_events, expanded.calls[i as usize].1, Value::Int(share));
            }
        }
    }
}

/// The range of a function's (or a slot's, or a call's) figures among those of every one, `n`
/// each.
fn events(i: u32, n: usize) -> std::ops::Range<usize> {
    i as usize * n..(i as usize + 1) * n
}

/// How the calls of a visit become visits of their callees.
struct Callees {
    /// Per event, the least share of a call that is expanded into a function visited before.
    least: Vec<f64>,
    /// Per function, the entry into its cycle below which it was last placed.
    placed: Vec<u32>,
    /// The entries into cycles made so far.
    entries: u32,
}

impl Callees {
    /// `visit`, a visit from outside its function's cycle (or from no call), numbered as an entry
    /// into that cycle where it is in one.
    fn entering(&mut self, apportioning: &Apportioning<'_>, mut visit: Visit) -> Visit {
        if apportioning.in_cycle[visit.function as usize] {
            self.entries += 1;
            visit.cycle_entry = self.entries;
            self.placed[visit.function as usize] = self.entries;
        }
        visit
    }

    /// The visit of call `edge` of `visit` (its ratios to its function's total), below no node
    /// yet; none for a call back into a function on the path or into one its cycle's entry has
    /// placed (recursion), or of a small share into a function visited before.
    fn call(
        &mut self,
        apportioning: &Apportioning<'_>,
        (visit, ratios): (&Visit, &[f64]),
        edge: u32,
        walk: &DepthFirst<Visit>,
        left: &mut Unexpanded,
    ) -> Option<Visit> {
        let (graph, n) = (apportioning.graph, apportioning.n_events);
        let callee = graph.edges[edge as usize].3;
        let within_cycle = apportioning.in_cycle[callee as usize]
            && apportioning.component[callee as usize] == apportioning.component[visit.function as usize];
        if walk.on_path(callee) || (within_cycle && self.placed[callee as usize] == visit.cycle_entry) {
            left.recursive += 1;
            return None;
        }
        // Within a cycle the callee stands for the same part of its content as its caller does
        // of its own; a call into a function elsewhere, for the call's part.
        let shares: Vec<f64> = match within_cycle {
            true => apportioning.content[events(callee, n)].iter().zip(ratios).map(|(&c, &r)| c * r).collect(),
            false => graph.edge_costs[events(edge, n)].iter().zip(ratios).map(|(&c, &r)| c as f64 * r).collect(),
        };
        if walk.visited(callee) && !shares.iter().zip(&self.least).any(|(w, l)| w >= l) {
            left.small += 1;
            return None;
        }
        let share = graph.edge_calls[edge as usize] as f64 * ratios.first().copied().unwrap_or(0.0);
        let call = Some((edge, share));
        if within_cycle {
            self.placed[callee as usize] = visit.cycle_entry;
            let weights = visit.weights.clone();
            return Some(Visit { function: callee, parent: None, weights, call, cycle_entry: visit.cycle_entry });
        }
        Some(self.entering(apportioning, Visit { function: callee, parent: None, weights: shares, call, cycle_entry: 0 }))
    }
}

#[cfg(test)]
mod event_tests {
    use super::*;

    /// Xdebug states units in its events' names, and proftool writes a time's unit after its name:
    /// those read as time and bytes; every other event is a count of its own kind.
    #[test]
    fn an_events_unit_says_what_it_counts() {
        assert_eq!(event_quantity("Time_(10ns)"), ("Time", MetricKind::Time, Unit::Nanoseconds, 10));
        assert_eq!(event_quantity("Memory_(bytes)"), ("Memory", MetricKind::Alloc, Unit::Bytes, 1));
        assert_eq!(event_quantity("cpu-clock_ns"), ("cpu-clock", MetricKind::Time, Unit::Nanoseconds, 1));
        assert_eq!(event_quantity("time_us"), ("time", MetricKind::Time, Unit::Microseconds, 1));
        // pprof's `events: TYPE(UNIT)`, its units 1024 apart for bytes (go tool pprof -callgrind).
        assert_eq!(event_quantity("cpu(ms)"), ("cpu", MetricKind::Time, Unit::Milliseconds, 1));
        assert_eq!(event_quantity("cpu(s)"), ("cpu", MetricKind::Time, Unit::Milliseconds, 1000));
        assert_eq!(event_quantity("inuse_space(MB)"), ("inuse_space", MetricKind::Alloc, Unit::Bytes, 1 << 20));
        assert_eq!(event_quantity("alloc_space(B)"), ("alloc_space", MetricKind::Alloc, Unit::Bytes, 1));
        let attrs = |long: &str| vec![("callgrind.event".to_string(), format!("t : {long}"))];
        assert_eq!(long_name_unit(&attrs("Wall time (elapsed ns)"), "t"), Some((MetricKind::Time, Unit::Nanoseconds)));
        assert_eq!(long_name_unit(&attrs("Heap (bytes)"), "t"), Some((MetricKind::Alloc, Unit::Bytes)));
        assert_eq!(long_name_unit(&attrs("Instruction Fetch"), "t"), None);
        assert_eq!(long_name_unit(&attrs("Wall time (elapsed ns)"), "Ir"), None);
        for event in ["Ir", "Dr", "I1mr", "sys_time", "_ns", "Time_(xns)", "Time_10", "cycles", "(ms)", "x(count)"] {
            assert_eq!(event_quantity(event), (event, MetricKind::Events, Unit::Count, 1), "{event}");
        }
    }
}
