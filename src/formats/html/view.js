// The page: the state in the URL's fragment, the graph on a canvas no taller than the window (a
// viewport over the tree: any depth draws), the table of functions and a function's sandwich. The
// numbers come from Model (model.js), which node tests on its own.
'use strict';
const P = JSON.parse(document.getElementById('profile').textContent);
// The profile's text, as large as the page, is not kept once read.
document.getElementById('profile').remove();
// The call tree as read, once, as typed columns; the profile's own arrays of its numbers (as many
// as the tree has nodes, and twice the columns' size) are let go. Every view starts from it.
const SOURCE = Model.fromProfile(P);
delete P.parentOffset; delete P.frame; delete P.values; delete P.measured;
const S = P.strings, FRAMES = P.frames.length / 4, ROWS = S.length;
const ROW = 18;
const $ = (id) => document.getElementById(id);
// Shows `tip` saying `text` beside the pointer over `canvas`, within the canvas's width.
function showTip(tip, canvas, event, text) {
  tip.textContent = text;
  tip.hidden = false;
  const box = canvas.getBoundingClientRect();
  tip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 300)}px`;
  tip.style.top = `${event.clientY - box.top + 14}px`;
}
const M = Model;
const kindOf = (f) => M.kindOf(P, f);
const rowOf = (f) => M.rowOf(P, f);
const moduleOf = (f) => (P.frames[4 * f + 1] < 0 ? '' : S[P.frames[4 * f + 1]]);
const definedAt = (f) => (P.defined[f] < 0 ? '' : S[P.defined[f]]);
// A row's name, as the reports give it (a line frame's with its line).
const rowName = (r) => S[r];
const label = (f) => S[rowOf(f)];
// Frames of one name that differ by module or place, told apart in the graph by what differs.
const placesOfRow = new Map();
for (let f = 0; f < FRAMES; f++) {
  const where = moduleOf(f) || definedAt(f);
  const r = rowOf(f);
  if (!placesOfRow.has(r)) placesOfRow.set(r, new Set());
  placesOfRow.get(r).add(where);
}
// The rows that are functions of line rows (`#.Rain` of `#.Rain[6]`).
const functionsWithLines = new Uint8Array(ROWS);
for (let f = 0; f < FRAMES; f++) if (kindOf(f) === 1 && rowOf(P.function[f]) !== rowOf(f)) functionsWithLines[rowOf(P.function[f])] = 1;
const frameLabel = (f) => {
  const where = moduleOf(f) || definedAt(f);
  return where && placesOfRow.get(rowOf(f)).size > 1 ? `${label(f)} · ${where}` : label(f);
};

// The state, kept in the URL's fragment so that a link reopens the same view.
const additive = P.metrics.map((m, i) => (m.additive ? i : -1)).filter((i) => i >= 0);
const callsMetric = P.metrics.findIndex((m) => m.kind === 'calls' && !m.additive);
const state = {
  metric: additive.includes(P.weighedBy) ? P.weighedBy : additive[0] ?? 0,
  zoom: -1, search: '', fn: -1, icicle: false, merged: false, threads: [], palette: 'module', lines: false, order: 'heavy', inverted: false,
  x0: 0, x1: 1, top: 0, cursor: -3, transforms: [], tab: 'functions',
  // A range of the timeline chosen in the time chart (ns from its start), or null: the graph and
  // the tables are of the samples taken in it.
  range: null,
};
// Transforms, in the order given, each the CLI's filter of a function (or a module's frames):
// `x=f12.m40` in the fragment (op, then the row's or the module's string).
const TRANSFORMS = {
  f: { text: 'focus on', cli: '--focus', apply: (t, a) => M.focusRow(P, t, a) },
  m: { text: 'merged', cli: '--merge-fn', apply: (t, a) => M.mergeRow(P, t, a) },
  d: { text: 'dropped', cli: '--ignore', apply: (t, a) => M.dropRow(P, t, a) },
  r: { text: 'recursion collapsed', cli: '--collapse-recursion', apply: (t, a) => M.collapseRecursion(P, t, a) },
  c: { text: 'module collapsed', cli: null, apply: (t, a) => M.collapseModule(P, t, a, moduleFrame(a)) },
};
const modules = new Set();
for (let f = 0; f < FRAMES; f++) if (P.frames[4 * f + 1] >= 0) modules.add(P.frames[4 * f + 1]);
// The frame a collapsed module is drawn as, named by the module: made once, after the file's frames.
const moduleFrames = new Map();
function moduleFrame(s) {
  if (!moduleFrames.has(s)) {
    moduleFrames.set(s, P.frames.length / 4);
    P.frames.push(s, s, -1, 0);
    P.function.push(P.frames.length / 4 - 1);
    P.defined.push(-1);
    if (!placesOfRow.has(s)) placesOfRow.set(s, new Set([S[s]]));
  }
  return moduleFrames.get(s);
}
function readTransforms(text) {
  const out = [];
  for (const part of (text ?? '').split('.')) {
    const m = /^([fmdrc])(\d+)$/.exec(part);
    if (!m) continue;
    const arg = parseInt(m[2], 10);
    if (m[1] === 'c' ? modules.has(arg) : arg < ROWS) out.push({ op: m[1], arg });
  }
  return out;
}
const transformKey = () => state.transforms.map((t) => t.op + t.arg).join('.');
function readFragment() {
  const h = new URLSearchParams(location.hash.slice(1));
  const int = (k, d) => (h.has(k) && /^-?\d+$/.test(h.get(k)) ? parseInt(h.get(k), 10) : d);
  const m = int('m', state.metric);
  if (additive.includes(m)) state.metric = m;
  state.search = h.get('q') ?? '';
  state.icicle = h.get('v') === 'icicle';
  // Threads side by side or merged, all or some.
  // `t=merged`, `t=5` (one thread), `t=5.7` (two side by side), `t=5.7.merged` (two merged).
  const threadParts = (h.get('t') ?? '').split('.');
  state.merged = threadParts.includes('merged');
  state.threads = threadParts.filter((x) => /^\d+$/.test(x) && kindOf(parseInt(x, 10)) === 2).map(Number);
  state.lines = h.get('l') === '1';
  state.tab = h.get('w') === 'tree' ? 'tree' : 'functions';
  state.transforms = readTransforms(h.get('x'));
  const range = /^(\d+)-(\d+)$/.exec(h.get('r') ?? '');
  state.range = P.timeline && range && +range[1] <= +range[2] ? [+range[1], +range[2]] : null;
  state.inverted = h.get('i') === '1';
  state.order = h.get('o') === 'alpha' ? 'alpha' : 'heavy';
  state.palette = ['name', 'kind'].includes(h.get('c')) ? h.get('c') : 'module';
  // Node ids are of the tree as shown (lines, threads): read after it is built.
  state.zoomWanted = int('z', -1);
  state.fn = Math.min(Math.max(int('f', -1), -1), ROWS - 1);
}
function writeFragment() {
  const h = new URLSearchParams();
  h.set('m', state.metric);
  if (state.zoom >= 0) h.set('z', state.zoom);
  if (state.fn >= 0) h.set('f', state.fn);
  if (state.search) h.set('q', state.search);
  if (state.icicle) h.set('v', 'icicle');
  if (state.merged || state.threads.length) h.set('t', [...state.threads, ...(state.merged ? ['merged'] : [])].join('.'));
  if (state.lines) h.set('l', '1');
  if (state.tab === 'tree') h.set('w', 'tree');
  if (state.transforms.length) h.set('x', transformKey());
  if (state.range) h.set('r', state.range.map(Math.round).join('-'));
  if (state.inverted) h.set('i', '1');
  if (state.order === 'alpha') h.set('o', 'alpha');
  if (state.palette !== 'module') h.set('c', state.palette);
  history.replaceState(null, '', '#' + h.toString());
}

// The tree shown: lines merged into their functions unless asked (as the reports), threads
// merged where asked. Its node ids are its own.
// T is the tree drawn: F, the call tree, or F upside down; the tables are F's.
let T, N, threadRoots, K, selfv, total, grand, selected, fnTable, heightOf;
let F, FK, Fself, Ftotal;
const hasLines = M.hasLines(P);
function buildTree() {
  F = state.range ? M.withinTime(P.timeline, SOURCE, state.range[0], state.range[1]) : SOURCE;
  threadRoots = M.threadRootCount(P, F);
  if (hasLines && !state.lines) F = M.mergeLines(P, F);
  if (state.threads.length) { const keep = new Set(state.threads); F = M.keepRoots(F, (r) => keep.has(F.frame[r])); }
  if (state.merged && threadRoots > 1) F = M.mergeThreads(P, F);
  for (const t of state.transforms) F = TRANSFORMS[t.op].apply(F, t.arg);
  T = state.inverted ? M.invert(P, F) : F;
  N = T.parent.length;
  heightOf = M.heights(T);
  state.zoom = Math.min(Math.max(state.zoomWanted ?? state.zoom, -1), N - 1);
  state.zoomWanted = undefined;
}
const nodeLabel = (n) => label(T.frame[n]);
function computeTotals() {
  selfv = T.self[state.metric] ?? new Float64Array(N);
  total = M.totals(T, state.metric);
  K = M.childIndex(T, state.order, total, nodeLabel);
  let roots = 0;
  for (const r of K.roots) roots += total[r];
  // The total the reports state (a measured or stated one), which a flat report's rows exceed.
  // The threads chosen: shares of their own total.
  grand = state.threads.length ? roots : P.totals?.[state.metric] ?? roots;
  // What the transforms kept, which the graph's width stands for; shares stay of the whole, as
  // the CLI's filters keep them (`Total: …; selected: …`).
  selected = state.transforms.length || state.range ? roots : grand;
  [Fself, Ftotal, FK] = T === F ? [selfv, total, K] : [F.self[state.metric], M.totals(F, state.metric), null];
  FK ??= M.childIndex(F, state.order, Ftotal, (n) => label(F.frame[n]));
  fnTable = M.functions(P, F, FK, Fself, Ftotal, callsMetric >= 0 ? F.self[callsMetric] : null);
  madeFor.search = madeFor.table = madeFor.sandwich = null;
  if (typeof layouts !== 'undefined') { layouts.tree++; layouts.made.clear(); }
}
const metric = () => P.metrics[state.metric] ?? { name: 'value', kind: 'samples', unit: 'count' };
const format = (v) => M.format(v, metric());
const pct = M.pct;

// A differential page (diff --to html): each node's share of BASE and of NEW, and the change.
const D = P.diff;
let baseTotal, newTotal, baseGrand = 0, newGrand = 0, change, largestChange = 0;
// The change in points drawn deepest, and the rows the gate failed on.
const DIFF_FULL = 0.05;
const failed = new Uint8Array(ROWS);
// The gate's rows by name's row, and the functions it failed on, largest change first.
const diffRowOf = new Map();
if (D) S.forEach((name, r) => diffRowOf.set(name, r));
const flagged = D ? D.rows.name.filter((_, i) => D.rows.outcome[i] === 'failed') : [];
for (const name of flagged) { const r = diffRowOf.get(name); if (r !== undefined) failed[r] = 1; }
function computeDiff() {
  if (!D) return;
  baseTotal = M.totals(T, D.base); newTotal = M.totals(T, D.new);
  baseGrand = 0; newGrand = 0;
  for (const r of K.roots) { baseGrand += baseTotal[r]; newGrand += newTotal[r]; }
  change = new Float64Array(N);
  largestChange = 0;
  for (let i = 0; i < N; i++) {
    change[i] = (newGrand > 0 ? newTotal[i] / newGrand : 0) - (baseGrand > 0 ? baseTotal[i] / baseGrand : 0);
    largestChange = Math.max(largestChange, Math.abs(change[i]));
  }
}

// Search: rows whose name the regex matches, the share of the total under them, and their
// outermost nodes, heaviest first, to step through.
let matchRow = null, matches = [], matchAt = -1;
// What the search, the table and the sandwich were last made for: a zoom changes none of them.
const madeFor = { search: null, table: null, sandwich: null };
function computeSearch() {
  const key = `${state.search}|${state.metric}`;
  if (madeFor.search === key) return;
  const out = $('matched');
  out.classList.remove('bad');
  matchRow = null; matches = []; matchAt = -1;
  if (!state.search) { madeFor.search = key; out.textContent = ''; return; }
  try { new RegExp(state.search); } catch (e) { madeFor.search = key; out.textContent = 'not a regex'; out.classList.add('bad'); return; }
  const rows = searcher.rows(state.search);
  if (rows === 'pending') { out.textContent = 'searching…'; return; }
  madeFor.search = key;
  if (rows === 'too slow') { out.textContent = `not searched: the regex ran over ${SEARCH_LIMIT_MS / 1000} s (simplify it)`; out.classList.add('bad'); return; }
  matchRow = rows;
  const found = M.matchShare(P, T, total, matchRow);
  matches = found.places.sort((a, b) => total[b] - total[a]);
  out.textContent = `matched ${pct(found.matched, grand)} (${matches.length} places)`;
}
// The regex runs over the names in a worker, stopped after SEARCH_LIMIT_MS: a regex can
// backtrack for ever (`(a+)+$` on a name of 34 a's), and a page must not hang on its own link.
// `rows(q)` gives the rows q matches, 'pending' (then the page updates when they come), or 'too
// slow'. Where no worker can start, names are searched as plain text, which cannot hang.
const SEARCH_LIMIT_MS = 1000;
const searcher = (() => {
  // Every string is tested (a row is a string's number; a collapsed module's too): a few more than
  // the names of rows, and no table of which are.
  const names = S;
  const code = 'let names = [];\n'
    + 'onmessage = (e) => {\n'
    + '  if (e.data.names) { names = e.data.names; return; }\n'
    + '  const re = new RegExp(e.data.q), hit = new Uint8Array(names.length);\n'
    + '  for (let i = 0; i < names.length; i++) if (re.test(names[i])) hit[i] = 1;\n'
    + '  postMessage({ q: e.data.q, hit }, [hit.buffer]);\n'
    + '};\n';
  let worker = null, asked = null, timer = 0, known = { q: null, rows: null };
  const start = () => {
    try {
      worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
    } catch (e) {
      worker = null;
      return;
    }
    worker.postMessage({ names });
    worker.onmessage = (e) => {
      if (e.data.q !== asked) return;
      clearTimeout(timer);
      asked = null;
      known = { q: e.data.q, rows: e.data.hit };
      update();
      afterSearch();
    };
  };
  start();
  return {
    rows(q) {
      if (known.q === q) return known.rows;
      if (!worker) {
        known = { q, rows: Uint8Array.from(names, (name) => (name.includes(q) ? 1 : 0)) };
        return known.rows;
      }
      if (asked === q) return 'pending';
      if (asked !== null) { worker.terminate(); start(); }
      asked = q;
      worker.postMessage({ q });
      clearTimeout(timer);
      timer = setTimeout(() => {
        worker.terminate();
        start();
        asked = null;
        known = { q, rows: 'too slow' };
        update();
        afterSearch();
      }, SEARCH_LIMIT_MS);
      return 'pending';
    },
  };
})();
