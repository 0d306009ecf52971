// The call tree (the Firefox Profiler's): the tree shown (upside down where inverted) as rows that
// open and close, with total and self and their shares, the heaviest path open at first. Arrow keys
// move, open and close; Enter zooms the graph on the row; c shows its function's callers and callees.
const TREE_LIMIT = 2000;
const callTree = { open: new Set(), madeFor: null, at: -1 };
function renderCallTree() {
  const showTree = state.tab === 'tree';
  $('calltree').hidden = !showTree;
  $('functions').hidden = showTree;
  $('tab-functions').setAttribute('aria-pressed', String(!showTree));
  $('tab-tree').setAttribute('aria-pressed', String(showTree));
  if (!showTree) return;
  // Another tree or other totals: open its heaviest path again.
  if (callTree.madeFor !== layouts.tree) {
    callTree.madeFor = layouts.tree;
    callTree.open = new Set(M.heaviestPath(K, total, selected, 0.05));
    callTree.at = -1;
  }
  const rows = M.treeRows(K, callTree.open, TREE_LIMIT);
  if (callTree.at < 0 || !rows.node.includes(callTree.at)) callTree.at = rows.node[0] ?? -1;
  const table = $('calltree');
  table.innerHTML = '';
  const hr = table.createTHead().insertRow();
  for (const text of ['total', 'total %', 'self', 'self %', 'function']) {
    const th = document.createElement('th');
    th.textContent = text;
    if (text === 'function') th.className = 'name';
    hr.appendChild(th);
  }
  const body = table.createTBody();
  rows.node.forEach((n, i) => {
    const tr = body.insertRow();
    tr.className = 'fn' + (n === callTree.at ? ' chosen' : '');
    tr.dataset.node = n;
    tr.tabIndex = n === callTree.at ? 0 : -1;
    tr.setAttribute('aria-level', rows.depth[i] + 1);
    const kids = K.kids(n).length;
    if (kids) tr.setAttribute('aria-expanded', String(callTree.open.has(n)));
    for (const text of [format(total[n]), pct(total[n], grand), format(selfv[n]), pct(selfv[n], grand)]) tr.insertCell().textContent = text;
    const name = tr.insertCell();
    name.className = 'name';
    name.style.paddingLeft = `${8 + 14 * Math.min(rows.depth[i], 60)}px`;
    const toggle = document.createElement('span');
    toggle.className = 'toggle';
    toggle.textContent = kids ? (callTree.open.has(n) ? '▾ ' : '▸ ') : '  ';
    toggle.onclick = (event) => { event.stopPropagation(); openOrClose(n); };
    name.append(toggle, frameLabel(T.frame[n]));
    name.title = label(T.frame[n]);
    tr.onclick = () => moveTreeTo(n);
    tr.ondblclick = () => zoomTo(n);
  });
  $('more').textContent = rows.more ? `the first ${TREE_LIMIT} rows: close some to see the rest` : '';
}
function openOrClose(n) {
  if (callTree.open.has(n)) callTree.open.delete(n); else callTree.open.add(n);
  renderCallTree();
  focusTreeRow();
}
function moveTreeTo(n) {
  callTree.at = n;
  renderCallTree();
  focusTreeRow();
}
const focusTreeRow = () => $('calltree').querySelector(`tr[data-node="${callTree.at}"]`)?.focus();
// Opens the path to node n (a zoom in the graph shows it in the tree too).
function revealInTree(n) {
  for (let p = T.parent[n]; p >= 0; p = T.parent[p]) callTree.open.add(p);
  callTree.at = n;
}
$('calltree').onkeydown = (event) => {
  const n = callTree.at;
  if (n < 0) return;
  const rows = M.treeRows(K, callTree.open, TREE_LIMIT), at = rows.node.indexOf(n);
  const kids = K.kids(n);
  if (event.key === 'ArrowDown' && at + 1 < rows.node.length) moveTreeTo(rows.node[at + 1]);
  else if (event.key === 'ArrowUp' && at > 0) moveTreeTo(rows.node[at - 1]);
  else if (event.key === 'ArrowRight' && kids.length) { if (callTree.open.has(n)) moveTreeTo(kids[0]); else openOrClose(n); }
  else if (event.key === 'ArrowLeft') { if (callTree.open.has(n)) openOrClose(n); else if (T.parent[n] >= 0) moveTreeTo(T.parent[n]); }
  else if (event.key === '*') { openBelow(n); renderCallTree(); focusTreeRow(); }
  else if (event.key === 'Enter') zoomTo(n);
  else if (event.key === 'c') choose(rowOf(T.frame[n]));
  else return;
  event.preventDefault();
};
// `*` opens everything below a row, as far as the rows shown allow.
function openBelow(n) {
  const stack = [n];
  let opened = 0;
  while (stack.length && opened < TREE_LIMIT) {
    const x = stack.pop(), kids = K.kids(x);
    if (!kids.length) continue;
    callTree.open.add(x);
    opened += kids.length;
    for (const c of kids) stack.push(c);
  }
}
$('tab-functions').onclick = () => { state.tab = 'functions'; update(); };
$('tab-tree').onclick = () => { state.tab = 'tree'; update(); };
