// The time chart, where the profile has a timeline (the Firefox Profiler's stack chart, speedscope's
// time order): time on the x axis, a lane per thread, each sample's stack or each slice at the time
// it ran. Wheel zooms around the pointer, drag pans, shift-drag selects a range, whose samples the
// graph and the tables then show (`--from-time`/`--to-time`); hover names a box and its times.
const TL = P.timeline;
const chartCanvas = $('chart'), chartCtx = chartCanvas.getContext('2d');
// The boxes (Model.timeRuns) and the lanes: each thread root's first row and its rows (a row for
// its name, then one per depth, down to CHART_DEPTH: a canvas holds some 30,000 pixels' height, and
// a stack chart deeper than a screen is read by zooming the graph), in the order the roots come.
const CHART_DEPTH = 64;
const chart = { boxes: null, lanes: new Map(), rows: 0, t0: 0, t1: 1, drag: null, cut: false };
if (TL) {
  chart.boxes = M.timeRuns(TL, SOURCE);
  chart.t1 = Math.max(TL.end, 1);
  const deepest = new Map();
  chart.boxes.root.forEach((r, i) => deepest.set(r, Math.max(deepest.get(r) ?? 0, Math.min(chart.boxes.depth[i] + 1, CHART_DEPTH))));
  chart.cut = chart.boxes.depth.some((d) => d >= CHART_DEPTH);
  for (const r of [...deepest.keys()].sort((a, b) => a - b)) {
    chart.lanes.set(r, chart.rows);
    chart.rows += 1 + deepest.get(r);
  }
  $('chart-section').hidden = false;
}
// Time in ms, as the chart's tip and range name it.
const ms = (ns) => `${+(ns / 1e6).toPrecision(6)} ms`;
// The x of time `t` (ns) on a chart `width` pixels wide.
const chartX = (t, width) => ((t - chart.t0) / (chart.t1 - chart.t0)) * width;
// Box i's place on the canvas: its x, width, y.
function chartRect(i, width) {
  const b = chart.boxes, x = chartX(b.start[i], width);
  return { x, w: chartX(b.end[i], width) - x, y: (chart.lanes.get(b.root[i]) + 1 + b.depth[i]) * ROW };
}
function drawChart() {
  if (!TL) return;
  const width = chartCanvas.clientWidth || 1200, ratio = window.devicePixelRatio || 1, height = chart.rows * ROW;
  chartCanvas.style.height = `${height}px`;
  chartCanvas.width = Math.round(width * ratio);
  chartCanvas.height = Math.round(height * ratio);
  chartCtx.setTransform(ratio, 0, 0, ratio, 0, 0);
  chartCtx.clearRect(0, 0, width, height);
  chartCtx.font = '12px system-ui, sans-serif';
  chartCtx.textBaseline = 'middle';
  const charWidth = chartCtx.measureText('abcdefghijklmnopqrstuvwxyz').width / 26;
  if (state.range) {
    chartCtx.fillStyle = '#dde9ff';
    const x = chartX(state.range[0], width);
    chartCtx.fillRect(x, 0, Math.max(chartX(state.range[1], width) - x, 1), height);
  }
  for (const [root, row] of chart.lanes) {
    chartCtx.fillStyle = '#333';
    chartCtx.fillText(label(SOURCE.frame[root]) + (chart.cut ? ` (frames below depth ${CHART_DEPTH} not drawn)` : ''), 4, row * ROW + ROW / 2);
  }
  const b = chart.boxes;
  for (let i = 0; i < b.node.length; i++) {
    if (b.depth[i] >= CHART_DEPTH) continue;
    const { x, w, y } = chartRect(i, width);
    if (x > width || x + w < 0 || w < 0.3) continue;
    const f = SOURCE.frame[b.node[i]], fill = frameColour(f);
    chartCtx.globalAlpha = matchRow && !matchRow[rowOf(f)] ? 0.3 : 1;
    chartCtx.fillStyle = fill;
    const left = Math.max(x, 0), shown = Math.min(x + w, width) - left;
    chartCtx.fillRect(left, y, Math.max(shown - 0.5, 0.5), ROW - 1);
    if (shown > 24) {
      chartCtx.fillStyle = ink(fill);
      chartCtx.fillText(M.cutMiddle(frameLabel(f), Math.floor((shown - 6) / charWidth)), left + 3, y + ROW / 2);
    }
  }
  chartCtx.globalAlpha = 1;
  $('range').textContent = state.range ? `range ${ms(state.range[0])} – ${ms(state.range[1])}` : '';
  $('clear-range').hidden = !state.range;
}
// The box under the pointer, or -1.
function chartBoxAt(event) {
  const box = chartCanvas.getBoundingClientRect(), px = event.clientX - box.left, py = event.clientY - box.top;
  for (let i = chart.boxes.node.length - 1; i >= 0; i--) {
    if (chart.boxes.depth[i] >= CHART_DEPTH) continue;
    const { x, w, y } = chartRect(i, box.width);
    if (py >= y && py < y + ROW && px >= x && px < x + Math.max(w, 1)) return i;
  }
  return -1;
}
// The time (ns) under the pointer.
function chartTimeAt(event) {
  const box = chartCanvas.getBoundingClientRect();
  return chart.t0 + ((event.clientX - box.left) / box.width) * (chart.t1 - chart.t0);
}
if (TL) {
  chartCanvas.onwheel = (event) => {
    event.preventDefault();
    const at = chartTimeAt(event), span = chart.t1 - chart.t0;
    const next = Math.min(Math.max(span * Math.exp(event.deltaY * 0.002), 1), Math.max(TL.end, 1));
    chart.t0 = Math.min(Math.max(at - ((at - chart.t0) / span) * next, 0), Math.max(TL.end, 1) - next);
    chart.t1 = chart.t0 + next;
    drawChart();
  };
  chartCanvas.onmousedown = (event) => {
    chart.drag = { x: event.clientX, t0: chart.t0, t1: chart.t1, from: chartTimeAt(event), select: event.shiftKey };
  };
  chartCanvas.onmousemove = (event) => {
    const tip = $('chart-tip'), drag = chart.drag;
    if (drag && event.buttons & 1) {
      tip.hidden = true;
      if (drag.select) {
        const to = chartTimeAt(event);
        state.range = [Math.max(Math.min(drag.from, to), 0), Math.min(Math.max(drag.from, to), TL.end)];
      } else {
        const shift = ((event.clientX - drag.x) / (chartCanvas.clientWidth || 1)) * (drag.t1 - drag.t0);
        const span = drag.t1 - drag.t0;
        chart.t0 = Math.min(Math.max(drag.t0 - shift, 0), Math.max(TL.end - span, 0));
        chart.t1 = chart.t0 + span;
      }
      drawChart();
      return;
    }
    const i = chartBoxAt(event);
    if (i < 0) { tip.hidden = true; return; }
    const b = chart.boxes;
    const time = `${ms(b.start[i])} – ${ms(b.end[i])} (${ms(b.end[i] - b.start[i])})`;
    showTip(tip, chartCanvas, event, `${frameLabel(SOURCE.frame[b.node[i]])}\n${time}`);
  };
  chartCanvas.onmouseleave = () => { $('chart-tip').hidden = true; };
  chartCanvas.onmouseup = () => {
    const selected = chart.drag && chart.drag.select && state.range;
    chart.drag = null;
    if (selected) rebuild();
  };
  $('clear-range').onclick = () => { state.range = null; rebuild(); };
}
