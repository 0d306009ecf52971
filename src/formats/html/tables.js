// The table of functions (a row per name, as `summary`), a function's sandwich (as `calls`), the
// crumbs, a diff's verdict, the controls and the keyboard.
let fnOrder = { key: 'total', desc: true };
// The function table's head: a button per column [key, text] that sorts by it (`sorted(key)`: the
// order it is sorted in, true descending, or null), focus kept on it after `sortBy(key)` redraws.
function sortHeader(cols, sorted, sortBy, title = () => '') {
  const head = $('functions').tHead;
  head.innerHTML = '';
  const hr = head.insertRow();
  for (const [key, text] of cols) {
    const th = document.createElement('th');
    if (key === 'name') th.className = 'name';
    th.title = title(key);
    const order = sorted(key);
    const button = Object.assign(document.createElement('button'), { className: 'sort', textContent: text + (order === null ? '' : order ? ' ▾' : ' ▴') });
    button.dataset.key = key;
    button.onclick = () => { sortBy(key); head.querySelector(`button[data-key="${key}"]`)?.focus(); };
    th.appendChild(button);
    hr.appendChild(th);
  }
}
function renderFunctions() {
  if (D) { renderDiffTable(); return; }
  // Choosing a function only moves the highlight: the table is rebuilt for what changes its rows.
  const key = `${state.search}|${state.metric}|${fnOrder.key}|${fnOrder.desc}|${state.lines}|${state.merged}|${transformKey()}`;
  if (madeFor.table === key) {
    for (const tr of $('functions').tBodies[0].rows) tr.classList.toggle('chosen', Number(tr.dataset.row) === state.fn);
    return;
  }
  madeFor.table = key;
  const cols = [['name', 'name'], ['self', 'self'], ['selfPct', 'self %'], ['total', 'total'], ['totalPct', 'total %']];
  if (callsMetric >= 0) cols.push(['calls', 'calls']);
  // A column of shares sorts as its values do.
  sortHeader(cols, (key) => fnOrder.key === key || `${fnOrder.key}Pct` === key ? fnOrder.desc : null, (key) => {
    const k = key.replace('Pct', '');
    fnOrder = { key: k, desc: fnOrder.key === k ? !fnOrder.desc : k !== 'name' };
    renderFunctions();
  });
  const t = fnTable;
  const value = { self: (r) => t.self[r], total: (r) => t.total[r], calls: (r) => t.calls[r] };
  let list = [];
  for (let r = 0; r < ROWS; r++) if (t.seen[r] && (t.total[r] > 0 || t.self[r] > 0 || t.calls[r] > 0)) list.push(r);
  if (matchRow) list = list.filter((r) => matchRow[r]);
  // With lines apart, a function some rows of its lines are of is left out, as `summary --lines`.
  if (state.lines) list = list.filter((r) => !functionsWithLines[r]);
  const sign = fnOrder.desc ? -1 : 1;
  list.sort(fnOrder.key === 'name'
    ? (a, b) => sign * (S[a] < S[b] ? -1 : S[a] > S[b] ? 1 : 0)
    : (a, b) => sign * (value[fnOrder.key](a) - value[fnOrder.key](b)) || a - b);
  const shown = list.slice(0, 500);
  const body = $('functions').tBodies[0];
  body.innerHTML = '';
  for (const r of shown) {
    const tr = body.insertRow();
    tr.className = 'fn' + (r === state.fn ? ' chosen' : '');
    tr.tabIndex = 0;
    tr.dataset.row = r;
    const cells = [S[r], format(t.self[r]), pct(t.self[r], grand), format(t.total[r]), pct(t.total[r], grand)];
    if (callsMetric >= 0) cells.push(t.calls[r].toLocaleString('en-US'));
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      if (i === 0) {
        td.className = 'name';
        const places = [...(placesOfRow.get(r) ?? [])].filter(Boolean);
        td.title = [S[r], ...places].join('\n');
        // Several functions of one name (seven `get`s): one row, as the reports, saying so.
        if (places.length > 1) td.append(Object.assign(document.createElement('span'), { className: 'note', textContent: ` (${places.length} places)` }));
      }
    });
    tr.onclick = () => choose(r);
    tr.onkeydown = (event) => { if (event.key === 'Enter') choose(r); };
  }
  $('more').textContent = list.length > shown.length ? `${list.length - shown.length} more functions (search to find them)` : '';
}
function choose(r) {
  state.fn = r;
  update();
}

function renderSandwich() {
  const key = `${state.fn}|${state.metric}|${state.lines}|${state.merged}|${state.order}|${transformKey()}`;
  if (madeFor.sandwich === key) return;
  madeFor.sandwich = key;
  const box = $('sandwich');
  if (state.fn < 0 || !fnTable.seen[state.fn]) { box.hidden = true; return; }
  box.hidden = false;
  const f = state.fn, { callers, callees, own } = M.sandwich(P, F, FK, Fself, Ftotal, f), fnTotalF = fnTable.total[f];
  $('sandwich-title').textContent = `${S[f]}: total ${format(fnTotalF)} (${pct(fnTotalF, grand)} of all)`;
  renderTransformButtons(f);
  const fill = (table, rows, what) => {
    table.innerHTML = '';
    const hr = table.createTHead().insertRow();
    for (const text of [what, metric().name, '% of all', '% of fn']) {
      const th = document.createElement('th');
      th.textContent = text;
      if (text === what) th.className = 'name';
      hr.appendChild(th);
    }
    const body = table.createTBody();
    for (const [key, v] of rows) {
      const tr = body.insertRow();
      const text = key === -1 ? '(root)' : key === -2 ? '(self)' : S[key];
      [text, format(v), pct(v, grand), pct(v, fnTotalF)].forEach((t, i) => {
        const td = tr.insertCell();
        td.textContent = t;
        if (i === 0) td.className = 'name';
      });
      if (key >= 0) { tr.className = 'fn'; tr.tabIndex = 0; tr.onclick = () => choose(key); tr.onkeydown = (e) => { if (e.key === 'Enter') choose(key); }; }
    }
  };
  const sorted = (map) => [...map.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  fill($('callers'), sorted(callers), 'caller');
  fill($('callees'), [...(own > 0 ? [[-2, own]] : []), ...sorted(callees)].sort((a, b) => b[1] - a[1]), 'callee');
}

function renderCrumbs() {
  const nav = $('crumbs');
  nav.innerHTML = '';
  const path = [-1, ...(state.zoom >= 0 ? ancestors(state.zoom) : [])];
  // A deep zoom names its first callers and its last, not twelve thousand.
  const shown = path.length > 12 ? [...path.slice(0, 4), null, ...path.slice(-7)] : path;
  shown.forEach((n, i) => {
    if (i > 0) nav.append(' › ');
    if (n === null) { nav.append(`… ${path.length - 11} more …`); return; }
    const a = document.createElement('button');
    a.className = 'crumb';
    a.textContent = n < 0 ? 'all' : frameLabel(T.frame[n]);
    a.onclick = () => zoomTo(n);
    nav.appendChild(a);
  });
}

// The transforms of function `row` (and of its module), as buttons under its sandwich's title.
function renderTransformButtons(row) {
  const box = $('transform-buttons');
  box.innerHTML = '';
  const add = (op, arg, text, key) => {
    const b = document.createElement('button');
    b.textContent = text;
    b.title = `key ${key} on a frame of the graph${TRANSFORMS[op].cli ? `; the CLI's ${cliOf({ op, arg })}` : ''}`;
    b.onclick = () => addTransform(op, arg);
    box.appendChild(b);
  };
  add('f', row, 'focus on it', 'f');
  add('m', row, 'merge into callers', 'm');
  add('d', row, 'drop its samples', 'd');
  add('r', row, 'collapse its recursion', 'r');
  const module = moduleOfRow(row);
  if (module >= 0) add('c', module, `collapse ${S[module]}`, 'l');
}
// The module of a row's frames, where they have one module (else −1).
function moduleOfRow(row) {
  let module = -1;
  for (let f = 0; f < FRAMES; f++) {
    if (rowOf(f) !== row) continue;
    const m = P.frames[4 * f + 1];
    if (m < 0 || (module >= 0 && m !== module)) return -1;
    module = m;
  }
  return module;
}
const regexOf = (name) => `'^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "'\\''")}$'`;
const cliOf = (t) => `${TRANSFORMS[t.op].cli} ${regexOf(S[t.arg])}`;
function addTransform(op, arg) {
  state.transforms = [...state.transforms, { op, arg }];
  rebuild();
}
// The transforms as crumbs: each says what it did, and ✕ takes it back.
function renderTransforms() {
  const box = $('transforms');
  box.innerHTML = '';
  state.transforms.forEach((t, i) => {
    const what = TRANSFORMS[t.op];
    const span = document.createElement('span');
    span.className = 'transform';
    span.textContent = t.op === 'f' ? `${what.text} ${S[t.arg]}` : `${S[t.arg]} ${what.text}`;
    if (what.cli) span.title = `as ${cliOf(t)}`;
    const undo = document.createElement('button');
    undo.className = 'crumb';
    undo.textContent = '✕';
    undo.setAttribute('aria-label', `undo: ${span.textContent}`);
    undo.onclick = () => { state.transforms = state.transforms.filter((_, j) => j !== i); rebuild(); };
    span.appendChild(undo);
    box.appendChild(span);
  });
}

function update({ totals = false } = {}) {
  if (totals) { computeTotals(); computeDiff(); }
  computeSearch();
  renderCrumbs();
  renderTransforms();
  draw();
  drawChart();
  renderFunctions();
  renderCallTree();
  renderSandwich();
  const every = P.intervalNs ? `, a sample every ${+(P.intervalNs / 1e6).toPrecision(4)} ms` : '';
  const kept = selected === grand ? '' : `; selected ${format(selected)} (${pct(selected, grand)})`;
  $('total').textContent = `total ${format(grand)}${kept}${every}`;
  writeFragment();
}

// A differential page's verdict: the gate's, with the functions it failed on and their figures,
// each a link to its callers and callees.
const shareText = (i) => {
  const b = D.rows.base[i], n = D.rows.new[i], p = D.rows.p[i];
  return `${b.toFixed(1)} % → ${n.toFixed(1)} % (${n - b >= 0 ? '+' : ''}${(n - b).toFixed(1)} points${p === null ? '' : `, p = ${p.toExponential(1)}`})`;
};
function renderVerdict() {
  const box = $('verdict');
  if (!D) return;
  box.hidden = false;
  box.className = D.regression ? 'fail' : 'pass';
  const count = (outcome) => D.rows.outcome.filter((o) => o === outcome).length;
  const [unclear, inconclusive] = [count('not clear'), count('inconclusive')];
  box.textContent = D.regression
    ? `${D.newLabel} against ${D.baseLabel}: the gate fails on ${flagged.length} function${flagged.length === 1 ? '' : 's'}:`
    : inconclusive
      ? `${D.newLabel} against ${D.baseLabel}: inconclusive: ${inconclusive} function${inconclusive === 1 ? '' : 's'} grew past the limits, which one run a side cannot tell from noise (record several runs a side)`
      : `${D.newLabel} against ${D.baseLabel}: the gate passes (no function grew beyond the noise and the limits)`;
  D.rows.name.forEach((name, i) => {
    if (D.rows.outcome[i] !== 'failed') return;
    const item = document.createElement('div');
    item.className = 'failed';
    const a = document.createElement('a');
    a.textContent = name;
    const r = diffRowOf.get(name);
    if (r !== undefined) a.onclick = () => choose(r);
    item.append(a, ` ${shareText(i)}`);
    box.appendChild(item);
  });
  const legend = document.createElement('div');
  legend.className = 'legend';
  legend.innerHTML = '<span class="swatch" style="background:rgb(255,0,0)"></span> the gate fails on it '
    + '<span class="swatch" style="background:rgb(255,170,90)"></span> grew, not clearly past the noise and the limits '
    + '<span class="swatch" style="background:rgb(40,90,255)"></span> shrank; '
    + `the deeper, the larger the change of its share, full at ${100 * DIFF_FULL} points`
    + (unclear ? `; ${unclear} grew past the limits but not clearly past the noise` : '');
  box.appendChild(legend);
}

// A differential page's table: each function as the gate judged it (BASE's and NEW's shares, the
// change in points, the test's p, what the gate made of it), those gone from NEW too.
let diffOrder = { key: 'change', desc: true };
function renderDiffTable() {
  const key = `diff|${diffOrder.key}|${diffOrder.desc}|${state.search}`;
  if (madeFor.table === key) {
    for (const tr of $('functions').tBodies[0].rows) tr.classList.toggle('chosen', Number(tr.dataset.row) === state.fn);
    return;
  }
  madeFor.table = key;
  const R = D.rows;
  const value = { name: (i) => R.name[i], base: (i) => R.base[i], new: (i) => R.new[i], change: (i) => R.new[i] - R.base[i], p: (i) => R.p[i] ?? 2, outcome: (i) => R.outcome[i] };
  const cols = [['name', 'function'], ['outcome', 'gate'], ['base', 'base %'], ['new', 'new %'], ['change', '± points'], ['p', 'p']];
  sortHeader(cols, (k) => (diffOrder.key === k ? diffOrder.desc : null), (k) => {
    diffOrder = { key: k, desc: diffOrder.key === k ? !diffOrder.desc : !['name', 'outcome', 'p'].includes(k) };
    renderDiffTable();
  }, (k) => (k === 'base' || k === 'new' ? `share of ${k === 'base' ? D.baseLabel : D.newLabel}` : ''));
  let list = R.name.map((_, i) => i);
  if (matchRow) list = list.filter((i) => matchRow[diffRowOf.get(R.name[i])]);
  const sign = diffOrder.desc ? -1 : 1, by = value[diffOrder.key];
  list.sort((a, b) => { const x = by(a), y = by(b); return sign * (x < y ? -1 : x > y ? 1 : 0) || a - b; });
  const body = $('functions').tBodies[0];
  body.innerHTML = '';
  for (const i of list.slice(0, 500)) {
    const tr = body.insertRow(), r = diffRowOf.get(R.name[i]);
    tr.className = `fn outcome-${R.outcome[i].replace(' ', '-')}` + (r === state.fn ? ' chosen' : '');
    tr.tabIndex = 0;
    tr.dataset.row = r ?? -1;
    const change = R.new[i] - R.base[i];
    const outcome = R.status[i] ? `${R.outcome[i]} (${R.status[i]})` : R.outcome[i];
    const cells = [R.name[i], outcome, R.base[i].toFixed(2), R.new[i].toFixed(2), `${change >= 0 ? '+' : ''}${change.toFixed(2)}`, R.p[i] === null ? '–' : R.p[i].toExponential(2)];
    cells.forEach((text, c) => { const td = tr.insertCell(); td.textContent = text; if (c === 0) { td.className = 'name'; td.title = R.name[i]; } });
    if (r !== undefined) { tr.onclick = () => choose(r); tr.onkeydown = (event) => { if (event.key === 'Enter') choose(r); }; }
  }
  $('more').textContent = list.length > 500 ? `${list.length - 500} more functions (search to find them)` : '';
}

// Another tree (lines, threads): node ids differ, so the zoom goes.
function rebuild() {
  state.zoom = -1; state.x0 = 0; state.x1 = 1; state.top = 0; state.cursor = -3;
  buildTree();
  update({ totals: true });
}

// Controls.
$('title').textContent = P.title || 'profile';
for (const i of additive) {
  const o = document.createElement('option');
  o.value = i;
  o.textContent = `${P.metrics[i].name} (${P.metrics[i].unit})`;
  $('metric').appendChild(o);
}
$('metric').onchange = () => { state.metric = parseInt($('metric').value, 10); update({ totals: true }); };
$('icicle').onchange = () => { state.icicle = $('icicle').checked; update(); };
$('palette').onchange = () => { state.palette = $('palette').value; update(); };
$('order').onchange = () => { state.order = $('order').value; update({ totals: true }); };
$('lines').onchange = () => { state.lines = $('lines').checked; rebuild(); };
// The thread chooser: every thread with its share of the whole (tick some to see only them), and
// whether those shown are merged into one tree.
function fillThreads() {
  const whole = SOURCE, t = M.totals(whole, state.metric), list = $('thread-list');
  list.innerHTML = '';
  const seen = new Map();
  for (let r = 0; r < whole.parent.length; r++) if (whole.parent[r] < 0 && kindOf(whole.frame[r]) === 2) seen.set(whole.frame[r], (seen.get(whole.frame[r]) ?? 0) + t[r]);
  for (const [f, v] of [...seen].sort((a, b) => b[1] - a[1])) {
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: f });
    box.onchange = () => {
      state.threads = [...list.querySelectorAll('input:checked')].map((b) => Number(b.value));
      threadsSummary();
      rebuild();
    };
    const row = document.createElement('label');
    row.append(box, ` ${frameLabel(f)} (${pct(v, P.totals?.[state.metric] ?? 0)})`);
    list.appendChild(row);
  }
}
$('threads-merged').onchange = () => { state.merged = $('threads-merged').checked; threadsSummary(); rebuild(); };
// What the chooser's heading says: all threads or how many, side by side or merged.
function threadsSummary() {
  const which = state.threads.length ? `${state.threads.length} of ${$('thread-list').children.length} threads` : 'all threads';
  $('threads-summary').textContent = `${which}, ${state.merged ? 'merged' : 'side by side'}`;
}
$('inverted').onchange = () => { state.inverted = $('inverted').checked; rebuild(); };
// Search waits for a pause in typing: a keystroke does not walk a million nodes.
let searchTimer = 0;
$('search').oninput = () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { state.search = $('search').value; update(); }, 150);
};
const searchNow = () => { clearTimeout(searchTimer); if (state.search !== $('search').value) { state.search = $('search').value; update(); } };
$('reset').onclick = () => zoomTo(-1);
// A step through the matches asked for while the search runs is taken when it is done.
let stepWanted = 0;
const step = (by) => {
  searchNow();
  if (madeFor.search !== `${state.search}|${state.metric}`) { stepWanted = by; return; }
  if (!matches.length) return;
  matchAt = (matchAt + by + matches.length) % matches.length;
  zoomTo(matches[matchAt]);
};
function afterSearch() {
  const by = stepWanted;
  stepWanted = 0;
  if (by) step(by);
}
$('next').onclick = () => step(1);
$('prev').onclick = () => step(-1);
$('search').onkeydown = (event) => {
  if (event.key === 'Enter') { event.preventDefault(); step(event.shiftKey ? -1 : 1); }
  if (event.key === 'Escape') { event.preventDefault(); $('search').value = ''; searchNow(); }
};
// `/` finds, Esc clears the search or zooms out a level (as speedscope and the Firefox Profiler).
document.addEventListener('keydown', (event) => {
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement?.tagName ?? '');
  if (event.key === '/' && !typing) { event.preventDefault(); $('search').focus(); $('search').select(); return; }
  if (event.key === 'Escape' && !typing) {
    if (state.search) { $('search').value = ''; searchNow(); return; }
    if (state.zoom >= 0) zoomTo(T.parent[state.zoom]);
    else if (state.x0 > 0 || state.x1 < 1) zoomTo(-1);
  }
});
window.onresize = () => draw();
window.onhashchange = () => {
  const shape = () => `${state.lines}|${state.merged}|${state.threads.join('.')}|${state.inverted}|${transformKey()}`;
  const before = shape();
  readFragment();
  syncControls();
  if (shape() !== before) buildTree();
  else { state.zoom = Math.min(Math.max(state.zoomWanted, -1), N - 1); state.zoomWanted = undefined; }
  update({ totals: true });
};
function syncControls() {
  $('metric').value = state.metric;
  $('icicle').checked = state.icicle;
  $('palette').value = state.palette;
  $('threads-merged').checked = state.merged;
  for (const box of $('thread-list').querySelectorAll('input')) box.checked = state.threads.includes(Number(box.value));
  threadsSummary();
  $('lines').checked = state.lines;
  $('inverted').checked = state.inverted;
  $('order').value = state.order;
  $('search').value = state.search;
}

readFragment();
buildTree();
$('threads').hidden = threadRoots < 2;
if (threadRoots > 1) fillThreads();
$('lines-label').hidden = !hasLines;
syncControls();
renderVerdict();
update({ totals: true });
// When the page is first drawn, for bench/html.sh's time to first paint.
performance.mark('proftool-drawn');
