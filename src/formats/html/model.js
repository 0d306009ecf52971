// The page's model: pure functions over the profile's arrays, no DOM, so that node tests them
// (.ci/html-model.mjs loads this file on its own). The page's script (view.js) draws what they give.
//
// A tree is { parent, frame, self, measured }: parents before children (node ids grow with depth
// along every path), `self` a Float64Array per metric, `measured` per metric the inclusive values
// the source measured (Dyalog) or null.
const Model = (() => {
  'use strict';
  const kindOf = (P, f) => P.frames[4 * f + 3];
  // Reports name a row by the frame's name: frames of one name are one row (report/mod.rs).
  const rowOf = (P, f) => P.frames[4 * f];

  // The profile's tree as the writer gave it.
  function fromProfile(P) {
    const n = P.parentOffset.length;
    // The columns as read are kept for the page's life: each in the narrowest type that holds it
    // exactly (counts are whole numbers, exact in 32-bit floats below 2^24; most profiles have
    // fewer than 65,536 frames), a third less memory for a large profile.
    const exactIn32 = (values) => values.every((v) => !v || (Number.isInteger(v) && Math.abs(v) < 16777216));
    const toColumn = (values) => (values ? (exactIn32(values) ? Float32Array : Float64Array).from(values, (v) => v || 0) : null);
    return {
      parent: Int32Array.from(P.parentOffset, (offset, i) => (offset > 0 ? i - offset : -1)),
      frame: (P.frames.length / 4 <= 65536 ? Uint16Array : Int32Array).from(P.frame),
      self: P.metrics.map((_, m) => toColumn(P.values[m] ?? new Array(n).fill(0))),
      measured: P.metrics.map((_, m) => toColumn(P.measured?.[m])),
    };
  }

  // A tree rebuilt node by node: `place(i, newParent)` gives node i's new frame, or -1 to put its
  // values into its new parent (splice); nodes of one parent and frame are one node. Self values
  // add up (a per-node count, `perNode[m]`, only where not spliced); measured inclusive values add
  // up where not spliced (a spliced node's is inside its parent's already), as ops::merge_lines.
  function rebuild(tree, place, perNode) {
    const n = tree.parent.length;
    const map = new Int32Array(n);
    const byPath = new Map();
    const parent = [], frame = [];
    const self = tree.self.map(() => []), measured = tree.measured.map((c) => (c ? [] : null));
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i] < 0 ? -1 : map[tree.parent[i]];
      const f = place(i, p);
      let id;
      if (f < 0 && p >= 0) {
        id = p;
      } else {
        const key = p * 4294967296 + (f < 0 ? tree.frame[i] : f);
        id = byPath.get(key);
        if (id === undefined) {
          id = parent.length;
          byPath.set(key, id);
          parent.push(p);
          frame.push(f < 0 ? tree.frame[i] : f);
          for (const c of self) c.push(0);
          for (const c of measured) if (c) c.push(0);
        }
      }
      map[i] = id;
      const spliced = f < 0 && p >= 0;
      tree.self.forEach((c, m) => { if (!(spliced && perNode[m])) self[m][id] += c[i]; });
      if (!spliced) tree.measured.forEach((c, m) => { if (c) measured[m][id] += c[i]; });
    }
    return {
      parent: Int32Array.from(parent),
      frame: Int32Array.from(frame),
      self: self.map((c) => Float64Array.from(c)),
      measured: measured.map((c) => (c ? Float64Array.from(c) : null)),
    };
  }

  // Line frames merged into their functions, as the reports show a profile unless `--lines`: a
  // line under a node of its own function is that node (Dyalog's `#.Rain[6]` under `#.Rain`),
  // any other line becomes its function's frame.
  function mergeLines(P, tree) {
    const perNode = P.metrics.map((m) => !m.additive);
    const oldParent = tree.parent, oldFrame = tree.frame;
    return rebuild(tree, (i) => {
      const f = oldFrame[i];
      if (kindOf(P, f) !== 1) return f;
      const fn = P.function[f], p = oldParent[i];
      if (p >= 0 && kindOf(P, oldFrame[p]) !== 1 && rowOf(P, oldFrame[p]) === rowOf(P, fn) && P.frames[4 * oldFrame[p] + 1] === P.frames[4 * fn + 1]) return -1;
      return fn;
    }, perNode);
  }
  const hasLines = (P) => { for (let f = 0; f < P.frames.length / 4; f++) if (kindOf(P, f) === 1) return true; return false; };

  // The threads as one: a thread root's calls become roots, the nodes of one path merged (a
  // thread's own values stay under its thread, as a root of no calls).
  function mergeThreads(P, tree) {
    const n = tree.parent.length;
    const isThreadRoot = (i) => tree.parent[i] < 0 && kindOf(P, tree.frame[i]) === 2;
    // Threads' children become roots: give each node its nearest ancestor that is not a thread root.
    const parent = new Int32Array(n);
    for (let i = 0; i < n; i++) parent[i] = tree.parent[i] >= 0 && isThreadRoot(tree.parent[i]) ? -1 : tree.parent[i];
    return rebuild({ ...tree, parent }, (i) => tree.frame[i], P.metrics.map(() => false));
  }
  // Only the subtrees of the roots `keep` accepts (one thread), their node ids renumbered.
  function keepRoots(tree, keep) {
    const n = tree.parent.length, map = new Int32Array(n).fill(-1), nodes = [];
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i];
      if (p < 0 ? keep(i) : map[p] >= 0) { map[i] = nodes.length; nodes.push(i); }
    }
    const pick = (c) => Float64Array.from(nodes, (i) => c[i]);
    return {
      parent: Int32Array.from(nodes, (i) => (tree.parent[i] < 0 ? -1 : map[tree.parent[i]])),
      frame: Int32Array.from(nodes, (i) => tree.frame[i]),
      self: tree.self.map(pick),
      measured: tree.measured.map((c) => (c ? pick(c) : null)),
    };
  }
  // The time chart's boxes (the Firefox Profiler's stack chart, speedscope's time order) of a
  // timeline `tl` (times in ns from its start) over `tree`, the tree as read: per thread root, each
  // sample's stack from its time to the thread's next sample (the last as long as the gap before
  // it), a frame of one node over consecutive samples one box; each slice a box of its node. A box:
  // its root (its lane), its depth below the root (0: the root's callees), node, start and end.
  function timeRuns(tl, tree) {
    const n = tree.parent.length, rootOf = new Int32Array(n), depth = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i];
      rootOf[i] = p < 0 ? i : rootOf[p];
      depth[i] = p < 0 ? -1 : depth[p] + 1;
    }
    const box = { root: [], depth: [], node: [], start: [], end: [] };
    const push = (r, d, node, s, e) => { box.root.push(r); box.depth.push(d); box.node.push(node); box.start.push(s); box.end.push(e); };
    const byRoot = new Map();
    tl.sampleNodes.forEach((node, i) => {
      const r = rootOf[node];
      if (!byRoot.has(r)) byRoot.set(r, []);
      byRoot.get(r).push(i);
    });
    for (const [r, samples] of byRoot) {
      const open = [];
      let end = 0;
      samples.forEach((i, k) => {
        const t = tl.sampleTimes[i], next = samples[k + 1];
        const gap = next === undefined ? (k > 0 ? t - tl.sampleTimes[samples[k - 1]] : 0) : tl.sampleTimes[next] - t;
        end = t + gap;
        const path = [];
        for (let x = tl.sampleNodes[i]; x >= 0 && tree.parent[x] >= 0; x = tree.parent[x]) path.push(x);
        path.reverse();
        let d = 0;
        while (d < open.length && d < path.length && open[d].node === path[d]) d++;
        for (let j = open.length - 1; j >= d; j--) push(r, j, open[j].node, open[j].start, t);
        open.length = d;
        for (let j = d; j < path.length; j++) open.push({ node: path[j], start: t });
      });
      for (let j = open.length - 1; j >= 0; j--) push(r, j, open[j].node, open[j].start, end);
    }
    tl.sliceNodes.forEach((node, i) => push(rootOf[node], depth[node], node, tl.sliceStarts[i], tl.sliceEnds[i]));
    return box;
  }

  // `tree` (as read) with each node's self values cut to the part of its samples, or of its slices'
  // own time, taken in [t0, t1] (ns from the timeline's start), as `--from-time`/`--to-time` cut
  // them; a node the timeline has nothing of keeps none. Measured inclusive values go.
  function withinTime(tl, tree, t0, t1) {
    const n = tree.parent.length, all = new Float64Array(n), kept = new Float64Array(n);
    tl.sampleNodes.forEach((node, i) => {
      const w = tl.sampleWeights[i], t = tl.sampleTimes[i];
      all[node] += w;
      if (t >= t0 && t <= t1) kept[node] += w;
    });
    // A slice's own time: its length, less its callees' (in the range: clipped to it).
    const inside = new Float64Array(n), whole = new Float64Array(n);
    tl.sliceNodes.forEach((node, i) => {
      const s = tl.sliceStarts[i], e = tl.sliceEnds[i];
      whole[node] += e - s;
      inside[node] += Math.max(0, Math.min(e, t1) - Math.max(s, t0));
    });
    const ownInside = Float64Array.from(inside), ownWhole = Float64Array.from(whole);
    for (let i = n - 1; i >= 0; i--) {
      const p = tree.parent[i];
      if (p >= 0 && whole[i] > 0) { ownInside[p] -= inside[i]; ownWhole[p] -= whole[i]; }
    }
    const share = Float64Array.from(all, (a, i) => (a > 0 ? kept[i] / a : ownWhole[i] > 0 ? Math.max(ownInside[i], 0) / ownWhole[i] : 0));
    return {
      parent: tree.parent,
      frame: tree.frame,
      self: tree.self.map((c) => Float64Array.from(c, (v, i) => v * share[i])),
      measured: tree.measured.map(() => null),
    };
  }

  const threadRootCount = (P, tree) => { let c = 0; for (let i = 0; i < tree.parent.length; i++) if (tree.parent[i] < 0 && kindOf(P, tree.frame[i]) === 2) c++; return c; };

  // The tree upside down (bottom-up, the Firefox Profiler's "inverted"): a root per function where
  // samples end, its children its callers, each stack once, reversed. A stack's self values go to
  // its last node (its outermost caller), so that a node's total is the self value of the stacks
  // through it: a root's total is its function's self. Counts per node (calls) and measured
  // inclusive values mean nothing upside down: left out.
  function invert(P, tree) {
    const n = tree.parent.length, byPath = new Map();
    const parent = [], frame = [], self = tree.self.map(() => []);
    const perNode = P.metrics.map((m) => !m.additive);
    for (let i = 0; i < n; i++) {
      if (!tree.self.some((c, m) => !perNode[m] && c[i])) continue;
      let at = -1;
      for (let x = i; x >= 0; x = tree.parent[x]) {
        const key = at * 4294967296 + tree.frame[x];
        let id = byPath.get(key);
        if (id === undefined) {
          id = parent.length;
          byPath.set(key, id);
          parent.push(at);
          frame.push(tree.frame[x]);
          for (const c of self) c.push(0);
        }
        at = id;
      }
      tree.self.forEach((c, m) => { if (!perNode[m]) self[m][at] += c[i]; });
    }
    return { parent: Int32Array.from(parent), frame: Int32Array.from(frame), self: self.map((c) => Float64Array.from(c)), measured: tree.measured.map(() => null) };
  }

  // Transforms, the CLI's filters on the tree shown (model/filter.rs, with the same totals): per
  // node a fate, then the tree rebuilt with the nodes of one parent and frame merged. KEEP; BARE,
  // kept without its own additive values (a caller kept for the stacks below it); HIDE, into its
  // nearest kept caller (at a root its values go); CUT, with its values; INTO, into node into[i],
  // a kept caller. `frameOf` may give a kept node another frame (a module's).
  const KEEP = 0, BARE = 1, HIDE = 2, CUT = 3, INTO = 4;
  function reshape(P, tree, fate, into, frameOf) {
    const n = tree.parent.length, anchor = new Int32Array(n), byPath = new Map();
    const additive = P.metrics.map((m) => m.additive);
    const parent = [], frame = [], self = tree.self.map(() => []);
    const read = tree.measured.map((c) => (c ? remeasured(tree, c, fate) : null));
    const measured = tree.measured.map((c) => (c ? [] : null));
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i] < 0 ? -1 : anchor[tree.parent[i]], f = fate[i];
      if (f === KEEP || f === BARE) {
        const fr = frameOf ? frameOf[i] : tree.frame[i], key = p * 4294967296 + fr;
        let id = byPath.get(key);
        if (id === undefined) {
          id = parent.length;
          byPath.set(key, id);
          parent.push(p);
          frame.push(fr);
          for (const c of self) c.push(0);
          for (const c of measured) if (c) c.push(0);
        }
        anchor[i] = id;
        tree.self.forEach((c, m) => { if (f === KEEP || !additive[m]) self[m][id] += c[i]; });
        read.forEach((c, m) => { if (c) measured[m][id] += c[i]; });
      } else {
        const to = f === INTO ? anchor[into[i]] : p;
        anchor[i] = to;
        if (f !== CUT && to >= 0) tree.self.forEach((c, m) => { if (additive[m]) self[m][to] += c[i]; });
      }
    }
    return {
      parent: Int32Array.from(parent),
      frame: Int32Array.from(frame),
      self: self.map((c) => Float64Array.from(c)),
      measured: measured.map((c) => (c ? Float64Array.from(c) : null)),
    };
  }
  // A measured inclusive value after the fates: the value read less what its subtree lost (what
  // goes into a caller stays inside that caller's value), as filter.rs's `remeasured`.
  function remeasured(tree, read, fate) {
    const n = tree.parent.length, childrenRead = new Float64Array(n), childrenLost = new Float64Array(n), out = new Float64Array(n);
    for (let i = n - 1; i >= 0; i--) {
      const f = fate[i];
      const lost = f === KEEP || f === HIDE || f === INTO ? childrenLost[i] : read[i] - (childrenRead[i] - childrenLost[i]);
      out[i] = read[i] - lost;
      const p = tree.parent[i];
      if (p >= 0) { childrenRead[p] += read[i]; childrenLost[p] += lost; }
    }
    return out;
  }
  const marks = (P, tree, row) => Uint8Array.from(tree.frame, (f) => (rowOf(P, f) === row ? 1 : 0));
  // Per node, whether it or a caller is marked (parents come first).
  function atOrBelow(tree, marked) {
    const under = Uint8Array.from(marked);
    for (let i = 0; i < under.length; i++) if (tree.parent[i] >= 0 && under[tree.parent[i]]) under[i] = 1;
    return under;
  }
  // `--focus`: the stacks through the row, its callers kept bare.
  function focusRow(P, tree, row) {
    const marked = marks(P, tree, row), under = atOrBelow(tree, marked), above = new Uint8Array(marked.length);
    for (let i = marked.length - 1; i >= 0; i--) { const p = tree.parent[i]; if (p >= 0 && (above[i] || marked[i])) above[p] = 1; }
    return reshape(P, tree, Uint8Array.from(under, (u, i) => (u ? KEEP : above[i] ? BARE : CUT)));
  }
  // `--hide` (`--merge-fn`): the row's frames merged into their callers.
  const mergeRow = (P, tree, row) => reshape(P, tree, Uint8Array.from(marks(P, tree, row), (m) => (m ? HIDE : KEEP)));
  // `--ignore`: the stacks through the row dropped.
  const dropRow = (P, tree, row) => reshape(P, tree, Uint8Array.from(atOrBelow(tree, marks(P, tree, row)), (u) => (u ? CUT : KEEP)));
  // `--collapse-recursion`: a call of the row under another goes into the outermost.
  function collapseRecursion(P, tree, row) {
    const marked = marks(P, tree, row), n = marked.length, outer = new Int32Array(n), fate = new Uint8Array(n), into = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const above = tree.parent[i] < 0 ? -1 : outer[tree.parent[i]];
      outer[i] = above >= 0 ? above : marked[i] ? i : -1;
      if (marked[i] && above >= 0) { fate[i] = INTO; into[i] = above; }
    }
    cutEmptied(tree, fate, into);
    return reshape(P, tree, fate, into);
  }
  // Cuts the kept nodes a collapse left with nothing (`b` of `a;b;a;c` once `a` is collapsed), and
  // their callees of no weight, as filter.rs's `cut_emptied`.
  function cutEmptied(tree, fate, into) {
    const n = fate.length, weighs = new Uint8Array(n), emptied = new Uint8Array(n);
    for (let i = n - 1; i >= 0; i--) {
      if (tree.self.some((c) => c[i] !== 0)) weighs[i] = 1;
      const p = tree.parent[i];
      if (p < 0) continue;
      // A call that goes into a caller takes its weight there, and empties its own caller.
      if (fate[i] === INTO) { if (weighs[i]) weighs[into[i]] = 1; emptied[p] = 1; }
      else { if (weighs[i]) weighs[p] = 1; if (emptied[i]) emptied[p] = 1; }
    }
    for (let i = 0; i < n; i++) {
      const underCut = tree.parent[i] >= 0 && fate[tree.parent[i]] === CUT;
      if (fate[i] === KEEP && !weighs[i] && (emptied[i] || underCut)) fate[i] = CUT;
    }
  }
  // A module's frames as one frame named by the module (the Firefox Profiler's "collapse
  // library"): a run of them on a stack is one node. `moduleFrame` is that frame.
  function collapseModule(P, tree, module, moduleFrame) {
    const n = tree.parent.length, fate = new Uint8Array(n), frameOf = Int32Array.from(tree.frame);
    const inModule = (f) => P.frames[4 * f + 1] === module;
    for (let i = 0; i < n; i++) {
      if (!inModule(tree.frame[i])) continue;
      const p = tree.parent[i];
      if (p >= 0 && inModule(tree.frame[p])) fate[i] = HIDE;
      else frameOf[i] = moduleFrame;
    }
    return reshape(P, tree, fate, null, frameOf);
  }

  // Per node, the inclusive value of metric m: measured where the source measured it, else the
  // self values below it added up.
  function totals(tree, m) {
    const n = tree.parent.length, t = new Float64Array(n);
    if (tree.measured[m]) { t.set(tree.measured[m]); return t; }
    t.set(tree.self[m]);
    for (let i = n - 1; i >= 0; i--) if (tree.parent[i] >= 0) t[tree.parent[i]] += t[i];
    return t;
  }

  // Each node's children in one array, heaviest first (speedscope's "left heavy") or by label.
  function childIndex(tree, order, total, label) {
    const n = tree.parent.length;
    const start = new Int32Array(n + 1), roots = [];
    for (let i = 0; i < n; i++) { if (tree.parent[i] < 0) roots.push(i); else start[tree.parent[i] + 1]++; }
    for (let i = 0; i < n; i++) start[i + 1] += start[i];
    const list = new Int32Array(start[n]), filled = new Int32Array(n);
    for (let i = 0; i < n; i++) { const p = tree.parent[i]; if (p >= 0) list[start[p] + filled[p]++] = i; }
    const cmp = order === 'alpha'
      ? (a, b) => { const la = label(a), lb = label(b); return la < lb ? -1 : la > lb ? 1 : a - b; }
      : (a, b) => total[b] - total[a] || a - b;
    for (let i = 0; i < n; i++) if (start[i + 1] - start[i] > 1) list.subarray(start[i], start[i + 1]).sort(cmp);
    roots.sort(cmp);
    return { start, list, roots: Int32Array.from(roots), kids(x) { return x < 0 ? this.roots : list.subarray(start[x], start[x + 1]); } };
  }

  // Per row (a name, as reports group frames): self over all its nodes, total over its outermost
  // nodes (a recursive call counted once), calls where counted per node. Parents come first, so
  // "an ancestor of the row" is carried down in one pass.
  function functions(P, tree, k, selfv, total, callsColumn) {
    const n = tree.parent.length, rows = P.strings.length;
    const fnSelf = new Float64Array(rows), fnTotal = new Float64Array(rows), fnCalls = new Float64Array(rows), seen = new Uint8Array(rows);
    const outer = outermost(P, tree, k);
    for (let i = 0; i < n; i++) {
      const r = rowOf(P, tree.frame[i]);
      seen[r] = 1;
      fnSelf[r] += selfv[i];
      if (callsColumn) fnCalls[r] += callsColumn[i];
      if (outer[i]) fnTotal[r] += total[i];
    }
    return { self: fnSelf, total: fnTotal, calls: fnCalls, seen };
  }

  // Per node, whether no ancestor is of its row: a depth-first walk keeping a count per row.
  function outermost(P, tree, kidsIndex) {
    const n = tree.parent.length, out = new Uint8Array(n);
    const onStack = new Int32Array(P.strings.length);
    walk(kidsIndex, (i) => { const r = rowOf(P, tree.frame[i]); if (onStack[r]++ === 0) out[i] = 1; }, (i) => { onStack[rowOf(P, tree.frame[i])]--; });
    return out;
  }

  // Depth first with no recursion: enter(node) before its children, leave(node) after.
  function walk(k, enter, leave) {
    const stack = [];
    for (let r = k.roots.length - 1; r >= 0; r--) stack.push(k.roots[r]);
    while (stack.length) {
      const x = stack.pop();
      if (x < 0) { leave(~x); continue; }
      enter(x);
      stack.push(~x);
      const c = k.kids(x);
      for (let j = c.length - 1; j >= 0; j--) stack.push(c[j]);
    }
  }

  // Search: the share of the total under the nodes of matched rows, each counted once (not again
  // under a matched ancestor), and those outermost nodes. Parents come first: one pass, no walk.
  function matchShare(P, tree, total, matchRow) {
    const n = tree.parent.length, inside = new Uint8Array(n), places = [];
    let matched = 0;
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i], up = p >= 0 && inside[p];
      const hit = matchRow[rowOf(P, tree.frame[i])];
      if (hit && !up) { matched += total[i]; places.push(i); }
      inside[i] = up || hit ? 1 : 0;
    }
    return { matched, places };
  }

  // A row's sandwich, as `proftool calls` and `calls --callees` give it: a caller's value is what
  // passes through its calls of the row, each sample once however often the call is on its stack;
  // a callee's the same for the row's calls of it.
  function sandwich(P, tree, k, selfv, total, row) {
    const callers = new Map(), callees = new Map(), inCaller = new Map(), inCallee = new Map();
    let own = 0;
    const bump = (map, key, by) => map.set(key, (map.get(key) ?? 0) + by);
    const rowAt = (i) => rowOf(P, tree.frame[i]);
    walk(k, (i) => {
      const p = tree.parent[i];
      if (rowAt(i) === row) {
        own += selfv[i];
        const c = p < 0 ? -1 : rowAt(p);
        if (!inCaller.get(c)) bump(callers, c, total[i]);
        bump(inCaller, c, 1);
      } else if (p >= 0 && rowAt(p) === row) {
        const d = rowAt(i);
        if (!inCallee.get(d)) bump(callees, d, total[i]);
        bump(inCallee, d, 1);
      }
    }, (i) => {
      const p = tree.parent[i];
      if (rowAt(i) === row) bump(inCaller, p < 0 ? -1 : rowAt(p), -1);
      else if (p >= 0 && rowAt(p) === row) bump(inCallee, rowAt(i), -1);
    });
    return { callers, callees, own };
  }

  // The rows of an expandable call tree (the Firefox Profiler's): each node in view with its
  // depth, depth first in the children's order, below a node only where it is expanded; at most
  // `limit` rows (then `more` says so). No recursion: a deep expanded path is a loop.
  function treeRows(k, expanded, limit) {
    const node = [], depth = [], stack = [];
    for (let r = k.roots.length - 1; r >= 0; r--) stack.push(k.roots[r], 0);
    while (stack.length && node.length < limit) {
      const d = stack.pop(), x = stack.pop();
      node.push(x); depth.push(d);
      if (!expanded.has(x)) continue;
      const c = k.kids(x);
      for (let j = c.length - 1; j >= 0; j--) stack.push(c[j], d + 1);
    }
    return { node, depth, more: stack.length > 0 };
  }
  // The nodes to expand so that the heaviest path shows: from the heaviest root, its heaviest
  // child while it holds at least `share` of the whole (the Firefox Profiler opens so).
  function heaviestPath(k, total, whole, share) {
    const path = [];
    let at = k.roots[0];
    while (at !== undefined && total[at] >= share * whole && path.length < 10000) {
      path.push(at);
      at = k.kids(at)[0];
    }
    return path;
  }

  // Per node, how many levels its subtree has below it (0 for a leaf): the graph's depth without
  // walking it, so that a layout stops at the last row in view.
  // Each node's height (levels below it), in 16 bits but for a tree deeper than 65,534 levels.
  function heights(tree, Column = Uint16Array) {
    const n = tree.parent.length, h = new Column(n);
    for (let i = n - 1; i >= 0; i--) {
      const p = tree.parent[i];
      if (p >= 0 && h[i] + 1 > h[p]) h[p] = h[i] + 1;
      if (h[i] === 65535 && Column === Uint16Array) return heights(tree, Int32Array);
    }
    return h;
  }

  // The rectangles on screen. The zoomed node's ancestors fill rows 1.. under "all" (row 0); below
  // the zoomed node, widths are its share of [x0, x1) of its width. Only rows first..last are kept
  // (the viewport), but every row is walked to reach deeper ones; a node off screen is skipped with
  // its subtree, and nothing below the last row is walked (`v.heights` gives the depth). Neighbours
  // under `min` pixels are merged into one sliver (`slivers`: its value, and its nodes, but for
  // leaves below the first row of a sliver), whose children form
  // one sliver below it, while it is half a pixel wide and the slivers' nodes walked stay within a
  // budget (a wide tree's slivers would otherwise walk every node of it at every zoom).
  function layout(tree, k, total, v) {
    const rects = { node: [], x: [], w: [], depth: [], sliver: [] };
    const slivers = [];
    const add = (node, x, w, depth, group) => {
      if (depth < v.first || depth > v.last) return;
      rects.node.push(node); rects.x.push(x); rects.w.push(w); rects.depth.push(depth);
      rects.sliver.push(group ? slivers.push({ nodes: group, value: w / scale }) - 1 : -1);
    };
    const path = [];
    for (let p = v.zoom; p >= 0; p = tree.parent[p]) path.push(p);
    path.reverse();
    add(-1, 0, v.width, 0, null);
    path.forEach((x, i) => add(x, 0, v.width, i + 1, null));
    if (!(v.base > 0)) return { rects, slivers, depth: path.length + 1 };
    const span = v.x1 - v.x0, scale = v.width / (v.base * span), min = v.min ?? 1;
    let deepest = path.length, budget = v.sliverBudget ?? 500000;
    if (v.heights) for (const c of k.kids(v.zoom)) deepest = Math.max(deepest, path.length + 1 + v.heights[c]);
    // Nodes depth first; slivers after them, a row at a time, so that every sliver's tower grows
    // as deep as the others while the budget lasts.
    const stack = [], queue = [];
    // Children of `x` (or of a sliver's nodes) placed from `left`, scaled down if they overflow
    // their parent (measured inclusive values need not add up).
    const place = (kids, left, width, depth) => {
      let sum = 0;
      for (const c of kids) sum += total[c];
      const fit = sum * scale > width + 1e-6 ? width / (sum * scale) : 1;
      let x = left, small = [], sx = 0, sw = 0;
      const flush = () => { if (small.length && sw >= 0.5 && sx + sw > 0 && sx < v.width) queue.push([small, sx, sw, depth]); small = []; sw = 0; };
      for (const c of kids) {
        const w = total[c] * scale * fit;
        if (w >= min) { flush(); if (x + w > 0 && x < v.width) stack.push([c, x, w, depth]); }
        else if (w > 0) { if (!small.length) sx = x; small.push(c); sw += w; }
        x += w;
      }
      flush();
    };
    place(k.kids(v.zoom), -v.x0 * v.width / span, v.width / span, path.length + 1);
    while (stack.length) {
      const [x, left, w, depth] = stack.pop();
      deepest = Math.max(deepest, depth);
      add(x, left, w, depth, null);
      if (depth < v.last || !v.heights) place(k.kids(x), left, w, depth + 1);
    }
    queue.sort((a, b) => a[3] - b[3]);
    for (let q = 0; q < queue.length; q++) {
      const [x, left, w, depth] = queue[q];
      deepest = Math.max(deepest, depth);
      add(-2, left, w, depth, x);
      budget -= x.length;
      if (budget < 0 || (v.heights && depth >= v.last)) continue;
      // The row below weighs what the sliver's nodes do less their own (no walk of their
      // children for it); only children with children of their own are kept to walk further.
      // (Indices into the child arrays, not subarrays: this loop sees the most nodes.)
      const below = [], self = v.self, start = k.start, list = k.list;
      let bw = 0;
      for (const s of x) {
        const from = start[s], to = start[s + 1];
        if (from === to) continue;
        if (self) bw += (total[s] - self[s]) * scale;
        for (let j = from; j < to; j++) {
          const y = list[j];
          if (!self) bw += total[y] * scale;
          if (!self || start[y + 1] > start[y]) below.push(y);
        }
      }
      if (Math.min(bw, w) >= 0.5) queue.push([below, left, Math.min(bw, w), depth + 1]);
    }
    return { rects, slivers, depth: deepest + 1 };
  }

  // Numbers in a metric's unit, as the reports write them.
  function format(v, m) {
    if (m.kind === 'time') {
      const seconds = v * ({ ns: 1e-9, us: 1e-6, ms: 1e-3 }[m.unit] ?? 1);
      const a = Math.abs(seconds);
      const [div, unit] = a >= 1 ? [1, 's'] : a >= 1e-3 ? [1e-3, 'ms'] : a >= 1e-6 ? [1e-6, 'µs'] : [1e-9, 'ns'];
      return `${+(seconds / div).toPrecision(4)} ${unit}`;
    }
    if (m.unit === 'bytes') {
      const [div, unit] = v >= 2 ** 30 ? [2 ** 30, 'GiB'] : v >= 2 ** 20 ? [2 ** 20, 'MiB'] : v >= 2 ** 10 ? [2 ** 10, 'KiB'] : [1, 'B'];
      return `${+(v / div).toPrecision(4)} ${unit}`;
    }
    return Number.isInteger(v) ? v.toLocaleString('en-US') : (+v.toPrecision(6)).toLocaleString('en-US');
  }
  const pct = (v, of) => (of > 0 ? `${(100 * v / of).toFixed(2)} %` : '–');

  // A label cut to `fit` characters in its middle, so that both a C++ class and its method stay.
  function cutMiddle(text, fit) {
    if (text.length <= fit) return text;
    if (fit < 3) return fit < 1 ? '' : text.slice(0, fit);
    const head = Math.ceil((fit - 1) / 2), tail = fit - 1 - head;
    return text.slice(0, head) + '…' + (tail > 0 ? text.slice(-tail) : '');
  }

  return { kindOf, rowOf, fromProfile, rebuild, reshape, focusRow, mergeRow, dropRow, collapseRecursion, collapseModule, mergeLines, invert, heights, keepRoots, timeRuns, withinTime, hasLines, mergeThreads, threadRootCount, totals, childIndex, treeRows, heaviestPath, functions, outermost, walk, matchShare, sandwich, layout, format, pct, cutMiddle };
})();
