//! A caller graph made a call tree: functions with their own figures and an inclusive figure,
//! calls with the figures of the callee that are due to the caller (as a profiler that records
//! callers keeps them: Python's pstats, gprof's call graph). The tree is the graph's paths from its
//! roots, each function's figures shared out along them: below a node that stands for a fraction
//! `r` of its function (`r` of its inclusive figure), a callee gets `r` of the call's figures, and
//! stands for the part of the callee's inclusive figure that is. That is an assumption, the one
//! speedscope's importer of callgrind makes (a function's calls from one caller are alike whatever
//! called that caller): the stacks are shares, not measured. Each function's own figures are
//! exact all the same: its nodes' shares are scaled so that they add up to its figures (whole
//! figures, such as calls, as whole numbers that add up exactly, [`whole_shares`]).
//!
//! A call back into a function already on the path (recursion) is not expanded, nor, after a
//! function's first visit, a call whose share is below a millionth of the total: their figures
//! are in the function's other nodes (scaled up). A function no path reaches is a root of its
//! own. Roots are the functions no one calls (but one of no figures that calls none either: it has
//! no node), and those whose inclusive figure is above what their callers give them (a function
//! called before the profiler started), for the rest.
//!
//! A function's inclusive figure can leave out callees that are its children in the tree: gprof
//! counts the calls between the members of a cycle (mutual recursion) to the cycle as a whole, not
//! to the calling member's children. Below the member a path enters the cycle by, the members it
//! calls are its children all the same: [`hold_children`] grows its node to hold them, as
//! gprof2dot gives an entered member the cycle's time.

use crate::model::{FrameId, NodeId, Profile, Value};

/// A call below a node is not expanded into a function visited before when its share of both
/// the inclusive and the first own figure is at most this part of the total.
const LEAST_PART: f64 = 1e-6;

/// Where a root's part of a function counts as none (what its callers give it but for the
/// rounding of floats).
const ROUNDING: f64 = 1e-9;

/// A caller graph of `K` own figures per function (and per call).
pub(crate) struct CallGraph<const K: usize> {
    own: Vec<[f64; K]>,
    inclusive: Vec<f64>,
    calls: Vec<Call<K>>,
}

/// A call: its caller, its callee, and the callee's figures due to the caller.
struct Call<const K: usize> {
    caller: u32,
    callee: u32,
    own: [f64; K],
    inclusive: f64,
}

/// Which metrics of the profile the figures go to.
pub(crate) struct Layout<const K: usize> {
    /// The metric of each own figure, as self values.
    pub(crate) metrics: [usize; K],
    /// Whether each own figure is a whole number (calls).
    pub(crate) whole: [bool; K],
    /// The metric whose measured inclusive values the inclusive figure is, shared out as the
    /// nodes' parts of their functions: so that a function's total is its inclusive figure.
    pub(crate) inclusive: Option<usize>,
}

/// The nodes an expansion made, in order: each one's function, the part of it it stands for, and
/// its raw shares of its function's own figures.
struct Expanded<const K: usize> {
    functions: Vec<u32>,
    ratios: Vec<f64>,
    raw: Vec<[f64; K]>,
}

/// A tree that would pass the most nodes allowed.
pub(crate) struct TooManyNodes;

/// What the apportioning did not expand, and the nodes it grew, for the warning that says it.
#[derive(Default, Debug, PartialEq)]
pub(crate) struct Unexpanded {
    /// Calls back into a function on the path.
    pub(crate) recursive: u64,
    /// Calls of a small share into a function expanded elsewhere.
    pub(crate) small: u64,
    /// Functions no path reaches, made roots of their own.
    pub(crate) unreached: u64,
    /// Nodes whose inclusive share was less than their own figure and their children's, grown to
    /// hold them.
    pub(crate) grown: u64,
}

impl Unexpanded {
    /// What was not expanded, as the end of a warning: `small_share` says how small a share is
    /// left unexpanded (`below a millionth of the total`), `kept` where their figures are instead.
    pub(crate) fn said(&self, small_share: &str, kept: &str) -> String {
        let calls = |n: u64| if n == 1 { "1 call".to_string() } else { format!("{n} calls") };
        let mut left = Vec::new();
        if self.recursive > 0 {
            left.push(format!("{} back into a function already on the stack", calls(self.recursive)));
        }
        if self.small > 0 {
            left.push(format!("{} of a share {small_share} into a function expanded elsewhere", calls(self.small)));
        }
        let mut text = String::new();
        if !left.is_empty() {
            text += &format!("; not expanded, {kept}: {}", left.join(", "));
        }
        if self.unreached > 0 {
            text += &format!("; {} functions no stack reaches are roots of their own", self.unreached);
        }
        if self.grown > 0 {
            let nodes = if self.grown == 1 { "1 node holds".to_string() } else { format!("{} nodes hold", self.grown) };
            text += &format!(
                "; {nodes} callees their function's total leaves out (the members of a cycle of recursion it calls, counted to the cycle as a whole): grown to hold them, as gprof2dot grows an entered member"
            );
        }
        text
    }
}

/// A visit to make: a function entered below a node (or at the roots), standing for `ratio` of
/// it, with its raw share of the function's own figures.
struct Visit<const K: usize> {
    function: u32,
    parent: Option<NodeId>,
    ratio: f64,
    own: [f64; K],
}

/// A depth-first walk of a call graph from its roots, a visit per node made: a visit's function is
/// on the path until its callees' visits are done (a call back into it is recursion), and visited
/// from then on. Without recursion, however deep the graph.
pub(crate) struct DepthFirst<V> {
    stack: Vec<Step<V>>,
    on_path: Vec<bool>,
    visited: Vec<bool>,
}

enum Step<V> {
    Enter(V),
    Leave(u32),
}

impl<V> DepthFirst<V> {
    /// A walk over `functions` functions that starts from `roots`, in their order.
    pub(crate) fn new(functions: usize, roots: impl DoubleEndedIterator<Item = V>) -> DepthFirst<V> {
        let stack = roots.rev().map(Step::Enter).collect();
        DepthFirst { stack, on_path: vec![false; functions], visited: vec![false; functions] }
    }

    /// The next visit, its function (`function_of` it) on the path and visited from now on.
    pub(crate) fn next(&mut self, function_of: impl Fn(&V) -> u32) -> Option<V> {
        while let Some(step) = self.stack.pop() {
            match step {
                Step::Leave(function) => self.on_path[function as usize] = false,
                Step::Enter(visit) => {
                    let function = function_of(&visit);
                    self.on_path[function as usize] = true;
                    self.visited[function as usize] = true;
                    self.stack.push(Step::Leave(function));
                    return Some(visit);
                }
            }
        }
        None
    }

    /// The visits of the last visit's callees, made next in their order.
    pub(crate) fn enter(&mut self, callees: impl IntoIterator<Item = V>) {
        let before = self.stack.len();
        self.stack.extend(callees.into_iter().map(Step::Enter));
        self.stack[before..].reverse();
    }

    /// Whether `function` is on the path to the visit being made.
    pub(crate) fn on_path(&self, function: u32) -> bool {
        self.on_path[function as usize]
    }

    /// Whether `function` has been visited.
    pub(crate) fn visited(&self, function: u32) -> bool {
        self.visited[function as usize]
    }
}

impl<const K: usize> CallGraph<K> {
    pub(crate) fn new() -> CallGraph<K> {
        CallGraph { own: Vec::new(), inclusive: Vec::new(), calls: Vec::new() }
    }

    /// Adds a function of its own figures and its inclusive figure: its number.
    pub(crate) fn function(&mut self, own: [f64; K], inclusive: f64) -> u32 {
        self.own.push(own);
        self.inclusive.push(inclusive);
        (self.own.len() - 1) as u32
    }

    /// Adds a call of `caller` to `callee`, with the figures of the callee it accounts for.
    pub(crate) fn call(&mut self, caller: u32, callee: u32, own: [f64; K], inclusive: f64) {
        self.calls.push(Call { caller, callee, own, inclusive });
    }

    /// The part of `callee` a call stands for: of its inclusive figure, else of the first own
    /// figure it has.
    fn part(&self, call: &Call<K>) -> f64 {
        let callee = call.callee as usize;
        if self.inclusive[callee] > 0.0 {
            return call.inclusive / self.inclusive[callee];
        }
        (0..K).find(|&k| self.own[callee][k] > 0.0).map_or(0.0, |k| call.own[k] / self.own[callee][k])
    }

    /// The roots' visits: each function of no caller whole, and each whose inclusive figure is
    /// above its callers' for that part, with its figures beyond theirs. A function of no caller,
    /// no callee and no figures is none: it has no node (Python's `profile` lists its
    /// `profile:0(profiler)`, all zeros, which stands for the outside).
    fn roots(&self) -> Vec<Visit<K>> {
        let n = self.own.len();
        let mut calls_out = vec![false; n];
        let mut called = vec![false; n];
        let mut given = vec![0.0; n];
        let mut given_own = vec![[0.0; K]; n];
        for call in &self.calls {
            let callee = call.callee as usize;
            calls_out[call.caller as usize] = true;
            given_own[callee].iter_mut().zip(call.own).for_each(|(g, o)| *g += o);
            if call.caller != call.callee {
                called[callee] = true;
                given[callee] += call.inclusive;
            }
        }
        let mut roots = Vec::new();
        for function in 0..n {
            let (own, inclusive) = (self.own[function], self.inclusive[function]);
            let visit = |ratio: f64, own: [f64; K]| Visit { function: function as u32, parent: None, ratio, own };
            if !called[function] {
                let has_figures = inclusive != 0.0 || own.iter().any(|&o| o != 0.0);
                if has_figures || calls_out[function] {
                    roots.push(visit(1.0, own));
                }
                continue;
            }
            let beyond = inclusive - given[function];
            if beyond > ROUNDING * inclusive.abs() && inclusive > 0.0 {
                let mut left = own;
                left.iter_mut().zip(given_own[function]).for_each(|(l, g)| *l = (*l - g).max(0.0));
                roots.push(visit(beyond / inclusive, left));
            }
        }
        roots
    }

    /// Adds the graph's tree to `profile`, its figure `k` the self values of metric
    /// `layout.metrics[k]` (whole numbers where `layout.whole[k]`), its inclusive figure the
    /// measured inclusive values of `layout.inclusive` where given, function `f` of frame
    /// `frames[f]`; unless the tree would pass `max_nodes` nodes. What it did not expand, to be
    /// said.
    pub(crate) fn build(
        &self,
        profile: &mut Profile,
        frames: &[FrameId],
        layout: Layout<K>,
        max_nodes: u64,
    ) -> Result<Unexpanded, TooManyNodes> {
        let mut unexpanded = Unexpanded::default();
        let expanded = self.expand(profile, frames, max_nodes, &mut unexpanded)?;
        self.share_out(profile, frames, &expanded, layout, &mut unexpanded);
        Ok(unexpanded)
    }

    /// Expands the graph depth first from its roots: each node's function and raw shares.
    fn expand(
        &self,
        profile: &mut Profile,
        frames: &[FrameId],
        max_nodes: u64,
        unexpanded: &mut Unexpanded,
    ) -> Result<Expanded<K>, TooManyNodes> {
        let n = self.own.len();
        let (order, starts) = grouped(self.calls.iter().map(|c| c.caller), n);
        let total: f64 = self.own.iter().map(|own| own.first().copied().unwrap_or(0.0).max(0.0)).sum();
        let least = total * LEAST_PART;
        let mut walk = DepthFirst::new(n, self.roots().into_iter());
        let mut expanded = Expanded { functions: Vec::new(), ratios: Vec::new(), raw: Vec::new() };
        let start = profile.tree.len() as u64;
        let mut callees = Vec::new();
        while let Some(visit) = walk.next(|visit| visit.function) {
            if profile.tree.len() as u64 - start >= max_nodes {
                return Err(TooManyNodes);
            }
            let function = visit.function as usize;
            let node = profile.tree.push(visit.parent, frames[function]);
            expanded.functions.push(visit.function);
            expanded.ratios.push(visit.ratio);
            expanded.raw.push(visit.own);
            let (from, to) = starts[function];
            for &c in &order[from..to] {
                let call = &self.calls[c as usize];
                if walk.on_path(call.callee) {
                    unexpanded.recursive += 1;
                    continue;
                }
                let own = call.own.map(|o| o * visit.ratio);
                let inclusive = call.inclusive * visit.ratio;
                if walk.visited(call.callee) && inclusive <= least && own.first().is_none_or(|&o| o <= least) {
                    unexpanded.small += 1;
                    continue;
                }
                let ratio = visit.ratio * self.part(call);
                callees.push(Visit { function: call.callee, parent: Some(node), ratio, own });
            }
            walk.enter(callees.drain(..));
        }
        Ok(expanded)
    }

    /// Shares each function's own figures out among its nodes in proportion to their raw
    /// shares; a function of no node is a root of its own.
    fn share_out(
        &self,
        profile: &mut Profile,
        frames: &[FrameId],
        expanded: &Expanded<K>,
        layout: Layout<K>,
        unexpanded: &mut Unexpanded,
    ) {
        let first = profile.tree.len() - expanded.functions.len();
        let n = self.own.len();
        let (order, starts) = grouped(expanded.functions.iter().copied(), n);
        let raw = &expanded.raw;
        let mut shares = Vec::new();
        let mut weights = Vec::new();
        for function in 0..n {
            let (from, to) = starts[function];
            let own = self.own[function];
            let mut nodes: Vec<NodeId> = order[from..to].iter().map(|&i| NodeId((first + i as usize) as u32)).collect();
            if nodes.is_empty() {
                if own.iter().all(|&o| o == 0.0) {
                    continue;
                }
                unexpanded.unreached += 1;
                nodes.push(profile.tree.push(None, frames[function]));
            }
            if let Some(m) = layout.inclusive {
                weights.clear();
                weights.extend(order[from..to].iter().map(|&i| expanded.ratios[i as usize]));
                weights.resize(nodes.len(), 0.0);
                for (&node, share) in nodes.iter().zip(float_shares(self.inclusive[function], &weights)) {
                    profile.tree.set_measured_inclusive(m, node, Value::Float(share));
                }
            }
            for k in 0..K {
                weights.clear();
                weights.extend(order[from..to].iter().map(|&i| raw[i as usize][k]));
                weights.resize(nodes.len(), 0.0);
                if layout.whole[k] {
                    whole_shares(own[k].round() as i64, weights.iter().copied(), &mut shares);
                    for (&node, &share) in nodes.iter().zip(&shares) {
                        profile.tree.add_self(layout.metrics[k], node, Value::Int(share));
                    }
                } else {
                    for (&node, share) in nodes.iter().zip(float_shares(own[k], &weights)) {
                        profile.tree.add_self(layout.metrics[k], node, Value::Float(share));
                    }
                }
            }
        }
    }
}

/// Grows the measured inclusive value of metric `m` of each node from `first` on (a tree of its
/// own, parents before their children, as [`CallGraph::build`] adds one) whose frame `grows`, and
/// that is less than its self value and its children's inclusive ones, to their sum: the number of
/// nodes grown. A sum above by float rounding alone is no growth; the other nodes keep their
/// figures (a report that rounds its figures can give a function's callees a little more than its
/// children).
pub(crate) fn hold_children(profile: &mut Profile, first: usize, m: usize, grows: impl Fn(FrameId) -> bool) -> u64 {
    let tree = &mut profile.tree;
    if tree.measured_inclusive(m).is_none() {
        return 0;
    }
    let mut below = vec![0.0f64; tree.len() - first];
    let mut grown = 0;
    for node in tree.nodes().skip(first).rev() {
        let measured = tree.measured_inclusive(m).map_or(0.0, |values| values.get(node.index()).as_f64());
        let held = tree.self_value(m, node).as_f64() + below[node.index() - first];
        let inclusive = if held - measured > ROUNDING * held.abs() && grows(tree.frame(node)) {
            tree.set_measured_inclusive(m, node, Value::Float(held));
            grown += 1;
            held
        } else {
            measured
        };
        if let Some(below_parent) = tree.parent(node).and_then(|p| below.get_mut(p.index().checked_sub(first)?)) {
            *below_parent += inclusive;
        }
    }
    grown
}

/// `total` shared out in proportion to `weights`: all of it to the first where they are all 0.
fn float_shares(total: f64, weights: &[f64]) -> impl Iterator<Item = f64> + '_ {
    let sum: f64 = weights.iter().map(|&w| if w.is_finite() && w > 0.0 { w } else { 0.0 }).sum();
    weights.iter().enumerate().map(move |(i, &w)| match sum > 0.0 {
        true if w.is_finite() && w > 0.0 => total * (w / sum),
        true => 0.0,
        false if i == 0 => total,
        false => 0.0,
    })
}

/// Each function's strongly connected component in the calls between functions (`(caller,
/// callee)` pairs, numbers below `functions`), numbered from 0: functions that call one another,
/// directly or through others, share one (a cycle of recursion); any other function is alone in
/// its own. Tarjan's algorithm, its walk on a stack of its own, so that a deep graph cannot
/// overflow the thread's.
pub(crate) fn components(functions: usize, calls: &[(u32, u32)]) -> Vec<u32> {
    let (order, starts) = grouped(calls.iter().map(|call| call.0), functions);
    let mut tarjan = Tarjan {
        index: vec![Tarjan::UNSEEN; functions],
        low: vec![0; functions],
        component: vec![Tarjan::UNSEEN; functions],
        open: Vec::new(),
        on_open: vec![false; functions],
        next_index: 0,
        next_component: 0,
        path: Vec::new(),
    };
    for root in 0..functions {
        if tarjan.index[root] != Tarjan::UNSEEN {
            continue;
        }
        tarjan.enter(root, starts[root].0);
        while let Some(&mut (f, ref mut at)) = tarjan.path.last_mut() {
            if *at == starts[f].1 {
                tarjan.leave(f);
                continue;
            }
            let callee = calls[order[*at] as usize].1 as usize;
            *at += 1;
            if tarjan.index[callee] == Tarjan::UNSEEN {
                tarjan.enter(callee, starts[callee].0);
            } else if tarjan.on_open[callee] {
                tarjan.low[f] = tarjan.low[f].min(tarjan.index[callee]);
            }
        }
    }
    tarjan.component
}

/// The state of Tarjan's walk: each function's order of discovery and the lowest one it reaches,
/// the functions not yet in a component, and the path with each function's next call to follow.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    component: Vec<u32>,
    open: Vec<usize>,
    on_open: Vec<bool>,
    next_index: u32,
    next_component: u32,
    path: Vec<(usize, usize)>,
}

impl Tarjan {
    const UNSEEN: u32 = u32::MAX;

    /// Discovers `f`, its calls to follow from `first_call` on.
    fn enter(&mut self, f: usize, first_call: usize) {
        (self.index[f], self.low[f]) = (self.next_index, self.next_index);
        self.next_index += 1;
        self.open.push(f);
        self.on_open[f] = true;
        self.path.push((f, first_call));
    }

    /// Leaves `f`, its calls all followed: the root of a component closes it.
    fn leave(&mut self, f: usize) {
        self.path.pop();
        if let Some(&(caller, _)) = self.path.last() {
            self.low[caller] = self.low[caller].min(self.low[f]);
        }
        if self.low[f] == self.index[f] {
            while let Some(member) = self.open.pop() {
                self.on_open[member] = false;
                self.component[member] = self.next_component;
                if member == f {
                    break;
                }
            }
            self.next_component += 1;
        }
    }
}

/// The indices of `keys` (each below `n_keys`) grouped by key, in order within each group: the
/// indices, and where each key's are among them (a counting sort).
pub(crate) fn grouped(keys: impl Iterator<Item = u32>, n_keys: usize) -> (Vec<u32>, Vec<(usize, usize)>) {
    let keys: Vec<u32> = keys.collect();
    let mut starts = vec![(0usize, 0usize); n_keys];
    for &key in &keys {
        starts[key as usize].1 += 1;
    }
    let mut next = 0;
    for range in &mut starts {
        let count = range.1;
        *range = (next, next);
        next += count;
    }
    let mut order = vec![0u32; keys.len()];
    for (i, &key) in keys.iter().enumerate() {
        let range = &mut starts[key as usize];
        order[range.1] = i as u32;
        range.1 += 1;
    }
    (order, starts)
}

/// `total` shared out in proportion to `weights` as whole numbers that add up to it exactly
/// (largest remainders, the first of equal remainders first): all of it to the first where the
/// weights are all 0.
pub(crate) fn whole_shares(total: i64, weights: impl Iterator<Item = f64>, shares: &mut Vec<i64>) {
    let weights: Vec<f64> = weights.map(|w| if w.is_finite() && w > 0.0 { w } else { 0.0 }).collect();
    shares.clear();
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 {
        shares.resize(weights.len(), 0);
        if let Some(first) = shares.first_mut() {
            *first = total;
        }
        return;
    }
    let exact: Vec<f64> = weights.iter().map(|w| total as f64 * (w / sum)).collect();
    shares.extend(exact.iter().map(|&x| (x.floor() as i64).clamp(0, total)));
    let mut left = total - shares.iter().fold(0i64, |a, &s| a.saturating_add(s));
    let mut by_remainder: Vec<usize> = (0..shares.len()).collect();
    by_remainder
        .sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let mut i = 0;
    while left > 0 {
        shares[by_remainder[i % by_remainder.len()]] += 1;
        left -= 1;
        i += 1;
    }
    // Floating point gave more than the total (counts beyond 2^53): taken from the smallest
    // remainders.
    let mut i = by_remainder.len();
    while left < 0 && i > 0 {
        i -= 1;
        let at = by_remainder[i];
        if shares[at] > 0 {
            shares[at] -= 1;
            left += 1;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FrameRef, Metric, Unit};

    #[test]
    fn shares_are_whole_and_add_up() {
        let mut shares = Vec::new();
        whole_shares(10, [1.0, 1.0, 1.0].into_iter(), &mut shares);
        assert_eq!(shares, [4, 3, 3]);
        whole_shares(7, [0.0, 0.0].into_iter(), &mut shares);
        assert_eq!(shares, [7, 0]);
        whole_shares(5, [3.0, 1.0].into_iter(), &mut shares);
        assert_eq!(shares, [4, 1]);
        whole_shares(i64::MAX, [1.0, 2.0, 3.0].into_iter(), &mut shares);
        assert_eq!(shares.iter().fold(0i128, |a, &s| a + s as i128), i64::MAX as i128);
    }

    /// main calls a and b, both call leaf (a for 3 of its 4 seconds), leaf recurses: leaf's
    /// nodes share its figures as the calls say, and every function's own figures are exact.
    #[test]
    fn a_diamond_shares_its_callee_by_the_calls() {
        let mut graph = CallGraph::<2>::new();
        let main = graph.function([1.0, 1.0], 10.0);
        let a = graph.function([1.0, 1.0], 4.0);
        let b = graph.function([1.0, 1.0], 5.0);
        let leaf = graph.function([7.0, 9.0], 7.0);
        graph.call(main, a, [1.0, 1.0], 4.0);
        graph.call(main, b, [1.0, 1.0], 5.0);
        graph.call(a, leaf, [3.0, 2.0], 3.0);
        graph.call(b, leaf, [4.0, 2.0], 4.0);
        graph.call(leaf, leaf, [0.0, 5.0], 2.0);
        let metrics = vec![Metric::time(Unit::Microseconds, crate::model::Repr::Float), Metric::entries("calls")];
        let mut profile = Profile::new(metrics);
        let frames: Vec<FrameId> =
            ["main", "a", "b", "leaf"].iter().map(|n| profile.frames.intern(FrameRef::function(n))).collect();
        let layout = Layout { metrics: [0, 1], whole: [false, true], inclusive: Some(0) };
        let unexpanded = graph.build(&mut profile, &frames, layout, 100).ok().unwrap();
        assert_eq!(unexpanded, Unexpanded { recursive: 2, small: 0, unreached: 0, grown: 0 });
        let dump = crate::model::dump::dump(&profile);
        let tree = dump.split_once("tree:\n").unwrap().1;
        let expected = [
            "\"main\" [function] time=1 (total 10, measured 10) calls=1",
            "  \"a\" [function] time=1 (total 4, measured 4) calls=1",
            "    \"leaf\" [function] time=3 (total 3, measured 3) calls=5",
            "  \"b\" [function] time=1 (total 5, measured 5) calls=1",
            "    \"leaf\" [function] time=4 (total 4, measured 4) calls=4",
        ];
        assert_eq!(tree.lines().collect::<Vec<_>>(), expected);
    }

    /// Two functions that only call each other: no path reaches them, each is a root of its own
    /// with its figures.
    #[test]
    fn a_cycle_no_root_reaches_is_roots_of_its_own() {
        let mut graph = CallGraph::<1>::new();
        let a = graph.function([2.0], 5.0);
        let b = graph.function([3.0], 5.0);
        graph.call(a, b, [3.0], 5.0);
        graph.call(b, a, [2.0], 5.0);
        let mut profile = Profile::new(vec![Metric::time(Unit::Microseconds, crate::model::Repr::Float)]);
        let frames: Vec<FrameId> = ["a", "b"].iter().map(|n| profile.frames.intern(FrameRef::function(n))).collect();
        let layout = Layout { metrics: [0], whole: [false], inclusive: None };
        let unexpanded = graph.build(&mut profile, &frames, layout, 100).ok().unwrap();
        assert_eq!(unexpanded, Unexpanded { recursive: 0, small: 0, unreached: 2, grown: 0 });
        assert_eq!(profile.total(0), Value::Float(5.0));
    }

    /// main enters a cycle at a, which calls b, as gprof reports them: each member's inclusive
    /// figure leaves out the other (3 and 2 of the cycle's 5). a's node grows to hold b's; b's, a
    /// leaf (its call back into a not expanded), and main's, which holds all, stay.
    #[test]
    fn a_node_grows_to_hold_the_members_of_its_cycle_it_calls() {
        let mut graph = CallGraph::<1>::new();
        let main = graph.function([0.0], 5.0);
        let a = graph.function([3.0], 3.0);
        let b = graph.function([2.0], 2.0);
        graph.call(main, a, [3.0], 3.0);
        graph.call(a, b, [2.0], 2.0);
        graph.call(b, a, [0.0], 0.0);
        let mut profile = Profile::new(vec![Metric::time(Unit::Microseconds, crate::model::Repr::Float)]);
        let frames: Vec<FrameId> =
            ["main", "a", "b"].iter().map(|n| profile.frames.intern(FrameRef::function(n))).collect();
        let layout = Layout { metrics: [0], whole: [false], inclusive: Some(0) };
        graph.build(&mut profile, &frames, layout, 100).ok().unwrap();
        assert_eq!(hold_children(&mut profile, 0, 0, |frame| frame != frames[0]), 1);
        let dump = crate::model::dump::dump(&profile);
        let expected = [
            "\"main\" [function] time=0 (total 5, measured 5)",
            "  \"a\" [function] time=3 (total 5, measured 5)",
            "    \"b\" [function] time=2 (total 2, measured 2)",
        ];
        assert_eq!(dump.split_once("tree:\n").unwrap().1.lines().collect::<Vec<_>>(), expected);
    }

    /// Functions that call one another share a component, however long the way round; a function
    /// that calls itself and no one back is alone, as is one that only calls into a cycle.
    #[test]
    fn a_cycle_of_calls_is_one_component() {
        let calls = [(0, 1), (1, 2), (2, 1), (2, 3), (3, 3), (4, 5), (5, 4), (5, 0), (6, 7), (7, 8), (8, 6)];
        let c = components(10, &calls);
        assert_eq!(c[1], c[2]);
        assert_eq!(c[4], c[5]);
        assert!(c[6] == c[7] && c[7] == c[8]);
        let alone = [c[0], c[1], c[3], c[4], c[6], c[9]];
        assert!(alone.iter().enumerate().all(|(i, a)| alone[..i].iter().all(|b| b != a)), "{c:?}");
        // A chain a million calls deep, closed at its end: one component, and no overflow.
        let n = 1_000_000u32;
        let chain: Vec<(u32, u32)> = (0..n).map(|f| (f, (f + 1) % n)).collect();
        assert!(components(n as usize, &chain).iter().all(|&c| c == 0));
    }
}
