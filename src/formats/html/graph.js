// The graph: a canvas no taller than the window, drawing the rows state.top.. of the tree from the
// zoomed node, [x0, x1) of its width; wheel zooms, drag pans, arrow keys move between frames.
const canvas = $('canvas'), ctx = canvas.getContext('2d');
let lay = { rects: { node: [], x: [], w: [], depth: [], sliver: [] }, slivers: [], depth: 1 }, shownRows = 1;
const rects = () => lay.rects;
function ancestors(n) {
  const up = [];
  for (let p = n; p >= 0; p = T.parent[p]) up.push(p);
  return up.reverse();
}
// The rows the canvas may hold: the window's height less the header's, at least 8.
const maxRows = () => Math.max(8, Math.floor((window.innerHeight - 120) / ROW));
function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
// Black or white, whichever reads better on `rgb` (WCAG's relative luminance: black from 0.179).
function ink(rgb) {
  const [r, g, b] = rgb.match(/\d+/g).map((c) => { const v = c / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#000' : '#fff';
}
function colour(node) {
  if (node === -1) return 'rgb(200,200,200)';
  if (node === -2) return 'rgb(150,150,150)';
  const f = T.frame[node];
  if (matchRow && matchRow[rowOf(f)]) return 'rgb(230,0,230)';
  if (D) {
    // By the gate's verdict and the change of the share in points, not scaled to the page's
    // largest change (an unchanged rerun stays pale): red a function the gate fails on, orange
    // one that grew but not clearly past the noise and the limits, blue one that shrank; the
    // deepest at DIFF_FULL points or more.
    const d = Math.min(Math.abs(change[node]) / DIFF_FULL, 1);
    const pale = (from) => Math.round(from + (245 - from) * (1 - d));
    if (change[node] < 0) return `rgb(${pale(40)},${pale(90)},255)`;
    if (failed[rowOf(f)]) return `rgb(255,${pale(0)},${pale(0)})`;
    return `rgb(255,${pale(170)},${pale(90)})`;
  }
  return frameColour(f);
}
// A frame's colour in the graph and the time chart: a search's match, a thread, else as the
// palette says.
function frameColour(f) {
  if (matchRow && matchRow[rowOf(f)]) return 'rgb(230,0,230)';
  if (kindOf(f) === 2) return 'rgb(170,190,220)';
  if (state.palette === 'kind') {
    // As inferno's palettes tell code apart: a line, a frame that is not code, a function.
    return kindOf(f) === 1 ? 'rgb(120,200,120)' : kindOf(f) === 3 ? 'rgb(200,200,200)' : 'rgb(235,140,60)';
  }
  const h = hash(state.palette === 'module' ? moduleOf(f) || label(f) : label(f));
  return `rgb(${205 + (h % 50)},${(h >>> 8) % 180 + 40},${(h >>> 16) % 55})`;
}
// The y of a row of depth `depth` on the canvas: icicles hang from the top, flames stand on the
// bottom; the viewport starts at depth state.top.
const rowY = (depth) => (state.icicle ? (depth - state.top) * ROW : (shownRows - 1 - (depth - state.top)) * ROW);
// The last layouts, by what they were made of: going back out (Esc, a crumb, reset) or hovering
// lays nothing out again. `layouts.tree` is bumped whenever the tree or its totals change.
const layouts = { tree: 0, made: new Map() };
function layoutNow(width) {
  const base = state.zoom >= 0 ? total[state.zoom] : selected;
  const view = (first) => {
    const key = `${layouts.tree}|${state.zoom}|${state.x0}|${state.x1}|${width}|${first}|${maxRows()}`;
    let made = layouts.made.get(key);
    if (!made) {
      made = M.layout(T, K, total, { zoom: state.zoom, base, x0: state.x0, x1: state.x1, width, first, last: first + maxRows() - 1, heights: heightOf, self: selfv });
      if (layouts.made.size >= 8) layouts.made.delete(layouts.made.keys().next().value);
      layouts.made.set(key, made);
    }
    return made;
  };
  lay = view(state.top);
  // Scrolled past the deepest row (a zoom out, a narrower view): back to the last rows.
  const top = Math.max(0, Math.min(state.top, lay.depth - maxRows()));
  if (top !== state.top) { state.top = top; lay = view(top); }
  shownRows = Math.max(1, Math.min(lay.depth - state.top, maxRows()));
}
function draw() {
  const width = canvas.clientWidth || 1200;
  layoutNow(width);
  const rows = grand > 0 ? shownRows : Math.max(shownRows, 2);
  shownRows = rows;
  const ratio = window.devicePixelRatio || 1;
  canvas.style.height = `${rows * ROW}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(rows * ROW * ratio);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, rows * ROW);
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz').width / 26;
  // The zoomed node's callers are drawn under it, full width and faded; a search dims the rest.
  const faded = state.zoom >= 0 ? ancestors(state.zoom).length : -1;
  const r = lay.rects;
  // Slivers first, in one path of one colour: a wide tree has thousands.
  ctx.fillStyle = colour(-2);
  ctx.beginPath();
  for (let i = 0; i < r.node.length; i++) {
    if (r.node[i] !== -2) continue;
    const x = Math.max(r.x[i], 0), w = Math.min(r.x[i] + r.w[i], width) - x;
    ctx.rect(x, rowY(r.depth[i]), Math.max(w - 0.5, 0.5), ROW - 1);
  }
  ctx.fill();
  for (let i = 0; i < r.node.length; i++) {
    if (r.node[i] === -2 && r.w[i] <= 24) continue;
    const n = r.node[i], x = Math.max(r.x[i], 0), w = Math.min(r.x[i] + r.w[i], width) - x, y = rowY(r.depth[i]);
    const fill = colour(n);
    ctx.fillStyle = fill;
    const dim = matchRow && n >= 0 && !matchRow[rowOf(T.frame[n])];
    ctx.globalAlpha = dim ? 0.3 : r.depth[i] <= faded && r.depth[i] > 0 && n !== state.zoom ? 0.55 : 1;
    ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
    // The frames of the function whose callers and callees are shown, and the keyboard's frame.
    if ((n >= 0 && rowOf(T.frame[n]) === state.fn) || (n === state.cursor && document.activeElement === canvas)) {
      ctx.strokeStyle = n === state.cursor ? '#000' : '#036';
      ctx.lineWidth = n === state.cursor ? 2 : 1;
      ctx.strokeRect(x + 1, y + 1, Math.max(w - 2, 0.5), ROW - 3);
      ctx.lineWidth = 1;
    }
    if (w > 24) {
      const text = n === -1 ? 'all' : n === -2 ? 'small frames' : frameLabel(T.frame[n]);
      ctx.fillStyle = ink(fill);
      ctx.fillText(M.cutMiddle(text, Math.floor((w - 6) / charWidth)), x + 3, y + ROW / 2);
    }
  }
  ctx.globalAlpha = 1;
  if (!(grand > 0)) {
    ctx.fillStyle = '#666';
    ctx.fillText(`nothing to draw: the ${metric().name} of this profile add up to 0`, 4, ROW * 1.5);
  }
  $('depth').textContent = lay.depth > shownRows ? `rows ${state.top + 1}–${state.top + shownRows} of ${lay.depth} (drag, Page Up/Down)` : '';
}
function rectAt(event) {
  const box = canvas.getBoundingClientRect();
  const x = event.clientX - box.left, y = event.clientY - box.top;
  const row = Math.floor(y / ROW);
  const depth = state.icicle ? row + state.top : shownRows - 1 - row + state.top;
  const r = lay.rects;
  for (let i = 0; i < r.node.length; i++) if (r.depth[i] === depth && x >= r.x[i] && x < r.x[i] + r.w[i]) return i;
  return -1;
}
function describe(i) {
  const n = lay.rects.node[i];
  if (n === -1) return selected === grand ? `all\ntotal ${format(grand)} (100 %)` : `all the transforms keep\ntotal ${format(selected)} (${pct(selected, grand)})`;
  if (n === -2) {
    const { value } = lay.slivers[lay.rects.sliver[i]];
    return `frames too small to draw apart\ntogether ${format(value)} (${pct(value, grand)})`;
  }
  const f = T.frame[n];
  const lines = [label(f)];
  if (moduleOf(f)) lines.push(moduleOf(f));
  if (definedAt(f)) lines.push(`defined at ${definedAt(f)}`);
  lines.push(`self ${format(selfv[n])} (${pct(selfv[n], grand)})`);
  lines.push(`total ${format(total[n])} (${pct(total[n], grand)})`);
  if (callsMetric >= 0) lines.push(`calls ${T.self[callsMetric][n].toLocaleString('en-US')}`);
  if (D) {
    lines.push(`base ${format(baseTotal[n])} (${pct(baseTotal[n], baseGrand)}), new ${format(newTotal[n])} (${pct(newTotal[n], newGrand)})`);
    lines.push(`share ${change[n] >= 0 ? '+' : ''}${(100 * change[n]).toFixed(2)} points`);
  }
  lines.push('click: zoom · shift-click: callers and callees · keys f m d r l: transforms');
  return lines.join('\n');
}

// Zooms on `n` (-1: all): its width fills the graph and its row comes into view.
function zoomTo(n) {
  state.zoom = n;
  state.x0 = 0; state.x1 = 1;
  state.top = Math.max(0, (n >= 0 ? ancestors(n).length : 0) - 2);
  state.cursor = n;
  if (n >= 0 && state.tab === 'tree') revealInTree(n);
  update();
}
// Brings node n's row into view without zooming (the keyboard's moves).
function reveal(n) {
  const depth = ancestors(n).length;
  if (depth < state.top) state.top = depth;
  else if (depth >= state.top + shownRows) state.top = depth - shownRows + 1;
}

let drag = null;
canvas.onmousedown = (event) => { drag = { x: event.clientX, y: event.clientY, x0: state.x0, top: state.top, moved: false }; };
window.addEventListener('mousemove', (event) => {
  if (!drag || !(event.buttons & 1)) { drag = null; return; }
  const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
  if (!drag.moved) return;
  const span = state.x1 - state.x0;
  state.x0 = Math.min(Math.max(drag.x0 - (dx / (canvas.clientWidth || 1)) * span, 0), 1 - span);
  state.x1 = state.x0 + span;
  state.top = Math.max(0, drag.top + Math.round((state.icicle ? -dy : dy) / ROW));
  draw();
});
canvas.onwheel = (event) => {
  event.preventDefault();
  if (event.shiftKey) { state.top = Math.max(0, state.top + Math.sign(event.deltaY) * 3); draw(); return; }
  // Zooms around the pointer.
  const box = canvas.getBoundingClientRect(), at = (event.clientX - box.left) / box.width;
  const span = state.x1 - state.x0, point = state.x0 + at * span;
  const next = Math.min(Math.max(span * Math.exp(event.deltaY * 0.002), 1e-9), 1);
  state.x0 = Math.min(Math.max(point - at * next, 0), 1 - next);
  state.x1 = state.x0 + next;
  draw();
};
canvas.onmousemove = (event) => {
  const i = rectAt(event), tip = $('tip');
  if (i < 0 || (drag && drag.moved)) { tip.hidden = true; return; }
  showTip(tip, canvas, event, describe(i));
};
canvas.onmouseleave = () => { $('tip').hidden = true; };
canvas.onclick = (event) => {
  if (drag && drag.moved) { drag = null; return; }
  drag = null;
  const i = rectAt(event);
  if (i < 0) return;
  const n = lay.rects.node[i];
  if (n === -2) return;
  // Choosing a function for its callers and callees is an action of its own: a zoom rebuilds no table.
  if (event.shiftKey && n >= 0) { state.fn = rowOf(T.frame[n]); update(); return; }
  zoomTo(n);
};
// Arrow keys move the keyboard's frame: left and right along its row, up and down to its
// heaviest child or its parent (as drawn: up is deeper in a flame graph); Enter zooms on it.
canvas.onkeydown = (event) => {
  const r = lay.rects, n = state.cursor;
  const inRow = (depth) => r.node.map((x, i) => [x, i]).filter(([x, i]) => r.depth[i] === depth && x >= 0).sort((a, b) => r.x[a[1]] - r.x[b[1]]).map(([x]) => x);
  const depth = n >= 0 ? ancestors(n).length : 0;
  const deeper = state.icicle ? 'ArrowDown' : 'ArrowUp', shallower = state.icicle ? 'ArrowUp' : 'ArrowDown';
  let next = null;
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    const row = inRow(depth), at = row.indexOf(n);
    next = row[at + (event.key === 'ArrowLeft' ? -1 : 1)] ?? (at < 0 ? row[0] : null);
  } else if (event.key === deeper) {
    next = K.kids(n)[0] ?? null;
  } else if (event.key === shallower) {
    next = n >= 0 ? T.parent[n] : null;
  } else if (event.key === 'Enter') {
    zoomTo(n); event.preventDefault(); return;
  } else if (event.key === 'PageUp' || event.key === 'PageDown') {
    state.top = Math.max(0, state.top + (event.key === 'PageUp' ? 1 : -1) * (state.icicle ? -1 : 1) * (shownRows - 1));
    draw(); event.preventDefault(); return;
  } else if (event.key === 'c' && n >= 0) {
    state.fn = rowOf(T.frame[n]); update(); return;
  } else if ('fmdr'.includes(event.key) && event.key.length === 1 && n >= 0) {
    addTransform(event.key, rowOf(T.frame[n])); return;
  } else if (event.key === 'l' && n >= 0 && P.frames[4 * T.frame[n] + 1] >= 0) {
    addTransform('c', P.frames[4 * T.frame[n] + 1]); return;
  } else {
    return;
  }
  event.preventDefault();
  if (next === null || next === undefined) return;
  state.cursor = next;
  if (next >= 0) reveal(next);
  draw();
  if (next >= 0) { const i = lay.rects.node.indexOf(next); $('tip').hidden = i < 0; if (i >= 0) $('tip').textContent = describe(i); }
};
canvas.onfocus = () => { if (state.cursor < 0 && K.roots.length) state.cursor = state.zoom >= 0 ? state.zoom : K.roots[0]; draw(); };
canvas.onblur = () => draw();
