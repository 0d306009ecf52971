// The HTML viewer in a real browser (headless Chromium through puppeteer-core): every fixture's
// `convert … out.html` opens from disk with no console error and no request, shows the numbers the
// reports show (its total and every row of its function table equal `summary --format json`, and
// with lines on, `summary --lines`), opens on its roots (the canvas no taller than the window, the
// roots drawn on the first screen), zooms on a click, finds the heaviest function by search with
// its share of the total, and gives that function's callers the numbers `proftool calls --format
// json` gives. Then a 12,000-level profile (made here) draws its top and its deepest frame, a
// trace's time chart draws its slices at their times and a range of perf's gives what the CLI's
// `--from-time`/`--to-time` give, the
// keyboard reaches every control, and `diff --to html`'s verdict and colours. Keeps screenshots.
//
//   node .ci/html-viewer.mjs PROFTOOL NODE_DIR CHROMIUM WORK_DIR SHOTS_DIR FIXTURE...
//
// NODE_DIR is where puppeteer-core is installed (its node_modules' folder).
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'

const [bin, nodeDir, chromium, work, shots, ...fixtures] = process.argv.slice(2)
const puppeteer = createRequire(path.join(path.resolve(nodeDir), 'package.json'))('puppeteer-core')
// proftool's output, run without blocking: the other fixture's page goes on meanwhile.
const execFileAsync = promisify(execFile)
const run = async (args) => (await execFileAsync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30 })).stdout
const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const url = (file, fragment = '') => 'file://' + path.resolve(file) + fragment

// Two browsers, one for each of the two fixtures checked at a time (CI has two cores): each page is
// its browser's front tab, so neither is throttled as a tab in the background would be.
const launch = () => puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] })
const browsers = [await launch(), await launch()]
const failures = []
const counts = { opened: 0, tables: 0, lines: 0, searched: 0, sandwiches: 0, merged: 0, transforms: 0 }

// A page that records its console errors, failed scripts and requests other than its own file.
async function open(file, fragment, problems, { height = 900, browser = browsers[0] } = {}) {
  const page = await browser.newPage()
  await page.setViewport({ width: 1200, height })
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`) })
  page.on('pageerror', (e) => problems.push(`error: ${e}`))
  // The page's own search worker is a blob: of its own script, no request leaves the machine.
  page.on('request', (r) => { if (r.url().split('#')[0] !== url(file) && !r.url().startsWith('blob:null/')) problems.push(`request: ${r.url()}`) })
  await page.goto(url(file, fragment))
  return page
}

// The page's function table against a summary's rows: every row of each with the same self (where
// the summary knows it) and total, and the same total.
async function sameAsSummary(page, summary, what, problems) {
  const seen = await page.evaluate(() => {
    const rows = []
    for (let r = 0; r < ROWS; r++) {
      if (fnTable.seen[r] && (fnTable.total[r] > 0 || fnTable.self[r] > 0) && !(state.lines && functionsWithLines[r])) rows.push([S[r], fnTable.self[r], fnTable.total[r]])
    }
    return { grand, metric: P.metrics[state.metric].name, rows }
  })
  if (!near(seen.grand, summary.total) || seen.metric !== summary.metric) {
    problems.push(`${what}: total ${seen.grand} of ${seen.metric}, summary says ${summary.total} of ${summary.metric}`)
  }
  const mine = new Map(seen.rows.map(([name, self, total]) => [name, { self, total }]))
  for (const row of summary.rows) {
    const m = mine.get(row.name)
    if (!m && !(row.total > 0) && !(row.self > 0)) continue
    if (!m) { problems.push(`${what}: no row ${row.name}`); continue }
    if ((row.self !== null && row.self !== undefined && !near(m.self, row.self)) || !near(m.total, row.total)) {
      problems.push(`${what}: ${row.name} self ${m.self} total ${m.total}, summary says ${row.self} and ${row.total}`)
    }
    mine.delete(row.name)
  }
  for (const name of mine.keys()) problems.push(`${what}: row ${name} is not in summary`)
}

// Every fixture, two at a time, one in each browser.
const queue = [...fixtures]
await Promise.all(browsers.map(async (browser) => {
  for (let fixture; (fixture = queue.shift()) !== undefined;) await checkFixture(fixture, browser)
}))

async function checkFixture(fixture, browser) {
  const out = path.join(work, fixture.replaceAll('/', '_') + '.html')
  try {
    await run(['convert', '-q', fixture, out])
  } catch (e) {
    return // a profile no page is made of (no call tree, counts of 0), said by proftool
  }
  const summary = JSON.parse(await run(['summary', '-q', '--format', 'json', fixture]))
  const problems = []
  const page = await open(out, '', problems, { browser })
  await sameAsSummary(page, summary, 'functions', problems)
  counts.tables++
  const seen = await page.evaluate(() => {
    const box = canvas.getBoundingClientRect()
    const roots = lay.rects.node.filter((n, i) => n >= 0 && T.parent[n] < 0 && lay.rects.w[i] >= 1 && lay.rects.depth[i] === 1)
    const rootY = box.top + rowY(1)
    return { grand, rects: lay.rects.node.length, bottom: box.bottom, height: innerHeight, roots: roots.length, rootY, lines: hasLines, threads: threadRoots }
  })
  // The first screen: the canvas fits the window and the roots are drawn in it.
  if (seen.grand > 0 && (seen.bottom > seen.height || seen.roots < 1 || seen.rootY < 0 || seen.rootY > seen.height)) {
    problems.push(`first screen: canvas bottom ${seen.bottom} of ${seen.height}, ${seen.roots} roots drawn at y ${seen.rootY}`)
  }
  if (seen.rects < 2 && seen.grand > 0) problems.push(`${seen.rects} rectangles drawn`)
  // Lines on request, as `summary --lines` shows them.
  if (seen.lines) {
    const lines = JSON.parse(await run(['summary', '-q', '--lines', '--format', 'json', fixture]))
    const linesPage = await open(out, '#l=1', problems, { browser })
    await sameAsSummary(linesPage, lines, 'lines', problems)
    await linesPage.close()
    counts.lines++
  }
  if (seen.threads > 1) await threadsAsChosen(page, out, summary, problems, browser)
  // Upside down, each function's roots add up to its self value in the table.
  const inverted = await page.evaluate(() => {
    state.inverted = true
    rebuild()
    const byRow = new Map()
    for (const r of K.roots) byRow.set(rowOf(T.frame[r]), (byRow.get(rowOf(T.frame[r])) ?? 0) + total[r])
    const wrong = [...byRow].filter(([r, v]) => Math.abs(v - fnTable.self[r]) > 1e-9 * Math.max(1, Math.abs(v))).map(([r, v]) => `${S[r]} ${v} not ${fnTable.self[r]}`)
    state.inverted = false
    rebuild()
    return wrong
  })
  for (const wrong of inverted) problems.push(`inverted: ${wrong}`)
  // A click on the widest frame zooms into it.
  const clicked = await page.evaluate(() => {
    const r = lay.rects
    let best = -1
    for (let i = 0; i < r.node.length; i++) if (r.node[i] >= 0 && (best < 0 || r.w[i] > r.w[best])) best = i
    if (best < 0) return null
    const box = canvas.getBoundingClientRect()
    return { x: box.left + r.x[best] + r.w[best] / 2, y: box.top + rowY(r.depth[best]) + ROW / 2, node: r.node[best] }
  })
  if (clicked) {
    await page.mouse.click(clicked.x, clicked.y)
    const zoom = await page.evaluate(() => state.zoom)
    if (zoom !== clicked.node) problems.push(`a click on node ${clicked.node} zoomed to ${zoom}`)
  }
  await searchAndSandwich(page, fixture, summary, problems)
  await transformsAsCli(page, fixture, summary, problems)
  if (fixture.endsWith('perf/work.perf')) await screenshots(out)
  await page.close()
  counts.opened++
  for (const problem of problems) failures.push(`${fixture}: ${problem}`)
}

// A page of several threads: with them merged, the same total, and no thread at the root but
// where a thread has values of its own; each one alone, and two together, as the chooser gives them.
async function threadsAsChosen(page, out, summary, problems, browser) {
  const merged = await open(out, '#t=merged', problems, { browser })
  const one = await merged.evaluate(() => ({ grand, threads: K.roots.filter((r) => kindOf(T.frame[r]) === 2 && total[r] !== selfv[r]).length }))
  if (!near(one.grand, summary.total) || one.threads > 0) problems.push(`threads merged: total ${one.grand} and ${one.threads} thread roots with calls`)
  await merged.close()
  // Each thread on its own (ticked in the chooser): its total that of its root side by side;
  // two together, side by side and merged: the two totals added.
  const each = await page.evaluate(() => {
    const wrong = []
    const boxes = [...$('thread-list').querySelectorAll('input')]
    const sideBySide = (fs) => { let v = 0; for (const r of K.roots) if (fs.includes(T.frame[r])) v += total[r]; return v }
    const tick = (fs) => { for (const b of boxes) b.checked = fs.includes(Number(b.value)); boxes[0].onchange() }
    const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))
    for (const box of boxes) {
      const f = Number(box.value), want = sideBySide([f])
      tick([f])
      if (!near(grand, want) || K.roots.some((r) => T.frame[r] !== f)) wrong.push(`${box.parentNode.textContent}: ${grand}, side by side ${want}`)
      tick([])
    }
    if (boxes.length >= 2) {
      const two = boxes.slice(0, 2).map((b) => Number(b.value)), want = sideBySide(two)
      tick(two)
      if (!near(grand, want) || K.roots.length !== 2) wrong.push(`two threads: ${grand} in ${K.roots.length} roots, side by side ${want}`)
      $('threads-merged').checked = true
      $('threads-merged').onchange()
      if (!near(grand, want) || !location.hash.includes(`t=${two.join('.')}.merged`)) wrong.push(`two threads merged: ${grand}, ${location.hash}`)
      $('threads-merged').checked = false
      $('threads-merged').onchange()
      tick([])
    }
    return wrong
  })
  for (const wrong of each) problems.push(`one thread: ${wrong}`)
  counts.merged++
}

// The heaviest function found by search (typed, then debounced) with its share of the total, and
// its callers as `proftool calls` gives them.
async function searchAndSandwich(page, fixture, summary, problems) {
  const flat = summary.rows.some((row) => row.self === null || row.self === undefined)
  const row = flat ? undefined : summary.rows.find((r) => r.total > 0)
  if (!row) return
  await page.type('#search', `^${escape(row.name)}$`)
  await page.waitForFunction((q) => madeFor.search === `${q}|${state.metric}`, {}, `^${escape(row.name)}$`)
  const shown = await page.$eval('#matched', (e) => e.textContent)
  if (!shown.startsWith(`matched ${row.total_pct.toFixed(2)} %`)) problems.push(`search of ${row.name}: ${shown}, summary says ${row.total_pct} %`)
  counts.searched++
  if (/(^|\/)callgrind\//.test(fixture)) return // a call graph's exact edges, which a tree apportions
  const calls = JSON.parse(await run(['calls', '-q', '--format', 'json', '--fn', row.name, fixture]))
  const callers = await page.evaluate((name) => {
    const s = M.sandwich(P, T, K, selfv, total, S.indexOf(name))
    return [...s.callers.entries()].map(([c, v]) => [c < 0 ? '(root)' : S[c], v])
  }, row.name)
  for (const r of calls.rows) {
    const mine = callers.find(([n]) => n === r.name)
    if (!mine || !near(mine[1], r.value)) problems.push(`caller ${r.name} of ${row.name}: ${mine?.[1]}, calls says ${r.value}`)
  }
  counts.sandwiches++
}

// Each transform of the page on a function (the heaviest that is not a root's, else the heaviest)
// gives the totals and the function table its CLI filter gives: `summary --focus '^name$'`, and
// --merge-fn, --ignore, --collapse-recursion.
async function transformsAsCli(page, fixture, summary, problems) {
  if (summary.rows.some((row) => row.self === null || row.self === undefined)) return
  const rows = summary.rows.filter((r) => r.total > 0)
  const row = rows[1] ?? rows[0]
  if (!row) return
  for (const [op, flag] of [['f', '--focus'], ['m', '--merge-fn'], ['d', '--ignore'], ['r', '--collapse-recursion']]) {
    let cli
    try {
      cli = JSON.parse(await run(['summary', '-q', '--format', 'json', flag, `^${escape(row.name)}$`, fixture]))
    } catch (e) {
      continue // the filter leaves nothing (a function in every stack, dropped): an error, said
    }
    const seen = await page.evaluate((name, op) => {
      location.hash = `x=${op}${S.indexOf(name)}`
      window.onhashchange()
      return selected
    }, row.name, op)
    const want = cli.selected ?? cli.total
    if (!near(seen, want)) problems.push(`${flag} ${row.name}: the page keeps ${seen}, the CLI ${want}`)
    await sameAsSummary(page, cli, `${flag} ${row.name}`, problems)
    counts.transforms++
  }
  await page.evaluate(() => { location.hash = ''; window.onhashchange() })
}

async function screenshots(out) {
  const problems = []
  const page = await open(out, '', problems)
  await page.screenshot({ path: path.join(shots, 'flamegraph.png') })
  const leaf = await page.evaluate(() => S.indexOf('leaf'))
  await page.goto(url(out, '#f=' + leaf))
  await page.screenshot({ path: path.join(shots, 'sandwich.png'), fullPage: true })
  await page.close()
}

await deepProfile()
await timeChart()
await searchBounded()
await keyboard()
await diffPage()
await Promise.all(browsers.map((browser) => browser.close()))
for (const failure of failures) console.error(`html viewer: ${failure}`)
console.log(`the HTML of ${counts.opened} fixtures opens in Chromium with the total and the function table summary gives (${counts.lines} with lines as summary --lines, ${counts.merged} with their threads merged too); ${counts.searched} searched, ${counts.sandwiches} sandwiches as proftool calls gives them; ${counts.transforms} transforms as the CLI's filters; ${counts.timeCharts ?? 0} time charts; ${failures.length} fail`)
process.exit(failures.length === 0 && counts.opened > 0 ? 0 : 1)

// The time chart of a timeline: a Chrome trace's slices each drawn from its begin to its end
// (py-spy's work.json, its `B`/`E` events read here: x and width are the slice's time span over
// the timeline's), and a range chosen in it gives the table `summary --from-time --to-time` gives
// (perf's threads, each sample at its `perf script` time); and samply's two threads (below).
async function timeChart() {
  const problems = []
  const trace = path.join(work, 'fixtures_chrome-trace_work.json.html')
  const perf = path.join(work, 'fixtures_perf_threads.perf.html')
  if (!fs.existsSync(trace) || !fs.existsSync(perf)) return
  const events = JSON.parse(fs.readFileSync('fixtures/chrome-trace/work.json', 'utf8'))
  const begins = events.filter((e) => e.ph === 'B').map((e) => e.ts).sort((a, b) => a - b)
  const ends = events.filter((e) => e.ph === 'E').map((e) => e.ts).sort((a, b) => a - b)
  const [first, last] = [begins[0], ends[ends.length - 1]]
  let page = await open(trace, '', problems)
  const drawn = await page.evaluate(() => {
    const width = chartCanvas.clientWidth, out = []
    for (let i = 0; i < chart.boxes.node.length; i++) {
      const { x, w } = chartRect(i, width)
      out.push([x, x + w])
    }
    return { width, edges: out, hidden: $('chart-section').hidden }
  })
  // Each drawn box's ends, as µs: the trace's begins and ends, one for one.
  const us = (x) => first + (x / drawn.width) * (last - first)
  const starts = drawn.edges.map(([x]) => us(x)).sort((a, b) => a - b)
  const stops = drawn.edges.map(([, x]) => us(x)).sort((a, b) => a - b)
  const close = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) < 1e-6 * (last - first))
  if (drawn.hidden || !close(starts, begins) || !close(stops, ends)) problems.push(`the chart's ${starts.length} boxes are not the trace's ${begins.length} slices at their times`)
  await (await page.$('#chart-section')).screenshot({ path: path.join(shots, 'timechart.png') })
  await page.close()
  page = await open(perf, '#r=20000000-40000000', problems)
  const summary = JSON.parse(await run(['summary', '--format', 'json', '--from-time', '20ms', '--to-time', '40ms', 'fixtures/perf/threads.perf']))
  // Shares stay of the whole, as the CLI's: its `total` is the whole profile's, the rows the range's.
  await sameAsSummary(page, summary, 'time range', problems)
  await page.close()
  counts.timeCharts = 2 + (await threadsChart(problems))
  for (const problem of problems) failures.push(`time chart: ${problem}`)
}

// The time chart of samply's recording of work.c's two threads (a Firefox processed profile): a
// lane per thread with samples, each box starting at one of its thread's sample times (read here:
// `meta.startTime` plus `samples.time`, over the span from the first sampled thread's
// `registerTime` to the last `unregisterTime`), the outermost box from its first sample on.
async function threadsChart(problems) {
  const html = path.join(work, 'fixtures_firefox_symbolicated.firefox.json.html')
  if (!fs.existsSync(html)) return 0
  const profile = JSON.parse(fs.readFileSync('fixtures/firefox/symbolicated.firefox.json', 'utf8'))
  const start = profile.meta.startTime
  const sampled = profile.threads.filter((t) => t.samples.length > 0)
  const times = sampled.map((t) => t.samples.time.map((ms) => start + ms))
  const first = Math.min(...sampled.map((t) => start + t.registerTime))
  const last = Math.max(...profile.threads.map((t) => start + t.unregisterTime))
  const page = await open(html, '', problems)
  const drawn = await page.evaluate(() => {
    const width = chartCanvas.clientWidth, lanes = [...chart.lanes.keys()].sort((a, b) => a - b)
    const boxes = chart.boxes.node.map((_, i) => ({ lane: lanes.indexOf(chart.boxes.root[i]), depth: chart.boxes.depth[i], x: chartRect(i, width).x }))
    return { width, lanes: lanes.length, boxes, hidden: $('chart-section').hidden }
  })
  const ms = (x) => first + (x / drawn.width) * (last - first)
  const onTime = (a, b) => Math.abs(a - b) < 1e-6 * (last - first)
  if (drawn.hidden || drawn.lanes !== sampled.length) problems.push(`${drawn.lanes} lanes drawn for ${sampled.length} threads with samples`)
  const astray = drawn.boxes.filter((b) => !(times[b.lane] ?? []).some((t) => onTime(ms(b.x), t)))
  if (astray.length > 0) problems.push(`${astray.length} of ${drawn.boxes.length} boxes start at no sample time of their thread`)
  for (const [lane, thread] of times.entries()) {
    const outermost = drawn.boxes.filter((b) => b.lane === lane && b.depth === 0).map((b) => ms(b.x))
    if (!onTime(Math.min(...outermost), thread[0])) problems.push(`thread ${lane + 1}'s outermost box starts at ${Math.min(...outermost)} ms, not at its first sample, ${thread[0]} ms`)
  }
  await (await page.$('#chart-section')).screenshot({ path: path.join(shots, 'timechart-threads.png') })
  await page.close()
  return 1
}

// A stack of 12,000 frames (past Chromium's 65,535-pixel canvas at 18 px a row, 3,700 rows):
// the first screen draws its root, and its deepest frame, found by search, is drawn too.
async function deepProfile() {
  const folded = path.join(work, 'deep.folded'), out = path.join(work, 'deep.html')
  const frames = Array.from({ length: 12000 }, (_, i) => `f${i}`)
  fs.writeFileSync(folded, `${frames.join(';')} 3\nother 1\n`)
  await run(['convert', '-q', folded, out])
  const problems = []
  const page = await open(out, '', problems)
  const first = await page.evaluate(() => ({ height: canvas.height, window: innerHeight * devicePixelRatio, root: lay.rects.node.some((n, i) => n >= 0 && S[rowOf(T.frame[n])] === 'f0' && lay.rects.depth[i] === 1), depth: lay.depth }))
  if (first.height > first.window || !first.root || first.depth !== 12001) problems.push(`first screen: canvas ${first.height} px high in ${first.window}, root drawn ${first.root}, ${first.depth} rows`)
  await page.focus('#search')
  await page.keyboard.type('^f11999$')
  await page.keyboard.press('Enter')
  await page.waitForFunction(() => state.zoom >= 0, { timeout: 5000 }).catch(() => problems.push('Enter found no match in 5 s'))
  const deepest = await page.evaluate(() => {
    const i = lay.rects.node.findIndex((n) => n >= 0 && S[rowOf(T.frame[n])] === 'f11999')
    if (i < 0) return null
    const box = canvas.getBoundingClientRect()
    const y = rowY(lay.rects.depth[i]) + ROW / 2, x = lay.rects.x[i] + lay.rects.w[i] / 2
    const [r, g, b] = ctx.getImageData(x * devicePixelRatio, y * devicePixelRatio, 1, 1).data
    return { painted: r + g + b < 3 * 250, inView: y > 0 && y < box.height, height: canvas.height }
  })
  if (!deepest || !deepest.painted || !deepest.inView) problems.push(`the deepest frame: ${JSON.stringify(deepest)}`)
  await page.screenshot({ path: path.join(shots, 'deep.png') })
  await page.close()
  for (const problem of problems) failures.push(`12,000 levels: ${problem}`)
}

// A regex that backtracks for ever on a name ((a+)+$ on 34 a's and a b), from the link itself: the
// page says it was not searched within its bound, and stays responsive (it answers, and a
// plain search after it matches).
async function searchBounded() {
  const folded = path.join(work, 'backtrack.folded'), out = path.join(work, 'backtrack.html')
  fs.writeFileSync(folded, `${'a'.repeat(34)}b;x 3\nother 1\n`)
  await run(['convert', '-q', folded, out])
  const problems = []
  const page = await open(out, '#q=(a%2B)%2B%24', problems)
  const said = await page.waitForFunction(() => /not searched/.test($('matched').textContent), { timeout: 5000 }).then(() => true, () => false)
  if (!said) problems.push(`#q=(a+)+$: ${await page.$eval('#matched', (e) => e.textContent)}`)
  await page.evaluate(() => { $('search').value = '^other$'; searchNow() })
  const after = await page.waitForFunction(() => /^matched 25\.00 %/.test($('matched').textContent), { timeout: 5000 }).then(() => true, () => false)
  if (!after) problems.push(`a search after it: ${await page.$eval('#matched', (e) => e.textContent)}`)
  await page.close()
  for (const problem of problems) failures.push(`bounded search: ${problem}`)
}

// Tab reaches the crumbs, the graph, the sort headers and the rows; `/` focuses search, Enter
// steps to a match, Esc clears it and then zooms out; arrows move between frames.
async function keyboard() {
  const out = path.join(work, 'fixtures_perf_work.perf.html')
  if (!fs.existsSync(out)) return
  const problems = []
  const page = await open(out, '', problems)
  const reached = new Set()
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab')
    reached.add(await page.evaluate(() => { const e = document.activeElement; return e.id || e.className || e.tagName }))
  }
  for (const want of ['crumb', 'canvas', 'sort', 'fn', 'search', 'metric', 'tab-tree']) if (![...reached].some((r) => r.split(' ').includes(want))) problems.push(`Tab does not reach ${want}: ${[...reached].join(', ')}`)
  await page.evaluate(() => document.activeElement.blur())
  await page.keyboard.press('/')
  if (await page.evaluate(() => document.activeElement.id) !== 'search') problems.push('/ does not focus search')
  await page.keyboard.type('^leaf$')
  await page.keyboard.press('Enter')
  await page.waitForFunction(() => state.zoom >= 0, { timeout: 5000 }).catch(() => {})
  const zoomed = await page.evaluate(() => state.zoom >= 0 && S[rowOf(T.frame[state.zoom])] === 'leaf')
  if (!zoomed) problems.push('Enter in search does not zoom to the match')
  await page.keyboard.press('Escape')
  if (await page.evaluate(() => state.search) !== '') problems.push('Esc does not clear the search')
  await page.focus('#canvas')
  const before = await page.evaluate(() => state.cursor)
  await page.keyboard.press('ArrowDown')
  const after = await page.evaluate(() => state.cursor)
  if (after === before || after !== (await page.evaluate((b) => T.parent[b], before))) problems.push(`ArrowDown moves from ${before} to ${after}, not its parent`)
  await page.evaluate(() => document.activeElement.blur())
  const [z0, up] = await page.evaluate(() => [state.zoom, T.parent[state.zoom]])
  await page.keyboard.press('Escape')
  const z1 = await page.evaluate(() => state.zoom)
  if (z0 < 0 || z1 !== up) problems.push(`Esc zooms from ${z0} to ${z1}, not out to ${up}`)
  // Choosing a function shows its sandwich without rebuilding the table; a zoom rebuilds neither.
  const kept = await page.evaluate(() => {
    const first = document.querySelector('#functions tbody tr')
    first.click()
    const chosen = document.querySelector('#functions tbody tr') === first && state.fn === Number(first.dataset.row) && first.classList.contains('chosen') && !$('sandwich').hidden
    const callers = $('callers').tBodies[0]
    zoomTo(K.roots[0])
    return { chosen, zoomKeeps: document.querySelector('#functions tbody tr') === first && $('callers').tBodies[0] === callers }
  })
  if (!kept.chosen || !kept.zoomKeeps) problems.push(`choosing a function or zooming rebuilt a table: ${JSON.stringify(kept)}`)
  // The call tree: its roots' totals the graph's, the heaviest path open, arrow keys open, close
  // and move, Enter zooms the graph on the row.
  await page.click('#tab-tree')
  const tree = await page.evaluate(() => {
    zoomTo(-1)
    const rows = [...$('calltree').tBodies[0].rows]
    const roots = rows.filter((tr) => tr.getAttribute('aria-level') === '1').map((tr) => Number(tr.dataset.node))
    return { roots, want: [...K.roots], open: rows.filter((tr) => tr.getAttribute('aria-expanded') === 'true').length, hash: location.hash }
  })
  if (JSON.stringify(tree.roots) !== JSON.stringify(tree.want) || tree.open < 1 || !tree.hash.includes('w=tree')) problems.push(`call tree: ${JSON.stringify(tree)}`)
  await page.evaluate(() => { callTree.open.clear(); callTree.at = K.roots[0]; renderCallTree(); focusTreeRow() })
  await page.keyboard.press('ArrowRight')
  const opened = await page.evaluate(() => callTree.open.has(K.roots[0]) && $('calltree').tBodies[0].rows.length > K.roots.length)
  await page.keyboard.press('ArrowRight')
  const child = await page.evaluate(() => callTree.at === K.kids(K.roots[0])[0] && document.activeElement.dataset.node === String(callTree.at))
  await page.keyboard.press('ArrowLeft')
  await page.keyboard.press('ArrowLeft')
  const closed = await page.evaluate(() => callTree.at === K.roots[0] && !callTree.open.has(K.roots[0]))
  await page.keyboard.press('Enter')
  const treeZoomed = await page.evaluate(() => state.zoom === K.roots[0])
  if (!opened || !child || !closed || !treeZoomed) problems.push(`call tree keys: open ${opened}, to child ${child}, back and closed ${closed}, Enter zooms ${treeZoomed}`)
  await page.close()
  for (const problem of problems) failures.push(`keyboard: ${problem}`)
}

// The differential page of real runs, three a side, one side's render doing twice the work: the
// gate's verdict names render, which grew (red), and the page opens as cleanly. (One run a side
// calls the doubling inconclusive: docs/gate.md.)
async function diffPage() {
  const out = path.join(work, 'diff.html')
  const runs = (name) => [1, 2, 3].map((i) => `fixtures/gate/${name}-${i}.perf.gz`)
  try {
    execFileSync(bin, ['diff', '-q', '--to', 'html', out, '--base', ...runs('perf'), '--new', ...runs('perf-slow')], { stdio: 'ignore' })
  } catch (e) {
    if (e.status !== 3) failures.push(`diff --to html: exit ${e.status}, not 3 (a regression)`)
  }
  const problems = []
  const page = await open(out, '', problems, { height: 700 })
  const verdict = await page.$eval('#verdict', (e) => e.textContent)
  if (!/the gate fails on 1 function:render/.test(verdict)) problems.push(`verdict: ${verdict}`)
  // render, failed, red; a function that grew without failing, orange, not red; colours by
  // points, not scaled to the page's largest change.
  const seen = await page.evaluate(() => {
    const of = (name) => { for (let n = 0; n < N; n++) if (nodeLabel(n) === name) return n; return -1 }
    const grewNotFailed = [...Array(N).keys()].find((n) => change[n] > 0.001 && !failed[rowOf(T.frame[n])])
    return { render: colour(of('render')), other: grewNotFailed === undefined ? null : [nodeLabel(grewNotFailed), colour(grewNotFailed)] }
  })
  if (!/^rgb\(255,(\d+),\1\)$/.test(seen.render ?? '')) problems.push(`render is drawn ${seen.render}, not red`)
  if (seen.other && /^rgb\(255,(\d+),\1\)$/.test(seen.other[1])) problems.push(`${seen.other[0]} grew without failing the gate and is drawn red (${seen.other[1]})`)
  // The table: every row of `diff --format json` (gone functions too) with its shares and p.
  let json
  try {
    json = JSON.parse(execFileSync(bin, ['diff', '-q', '--format', 'json', '--base', ...runs('perf'), '--new', ...runs('perf-slow')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  } catch (e) {
    json = JSON.parse(e.stdout || '{}') // exit 3: the regression it is made to show
  }
  const table = await page.evaluate(() => [...document.querySelectorAll('#functions tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)))
  const shown = new Map(table.map((cells) => [cells[0], cells]))
  for (const row of json.rows ?? []) {
    const cells = shown.get(row.name)
    const want = [row.base_total.toFixed(2), row.new_total.toFixed(2)]
    if (!cells || cells[2] !== want[0] || cells[3] !== want[1]) problems.push(`table: ${row.name} ${JSON.stringify(cells)}, diff says ${want}`)
  }
  if (table.length !== (json.rows ?? []).length) problems.push(`table: ${table.length} rows, diff has ${json.rows?.length}`)
  const named = await page.$$eval('#verdict .failed a', (as) => as.map((a) => a.textContent))
  if (JSON.stringify(named) !== JSON.stringify(json.gate?.flagged)) problems.push(`banner names ${named}, the gate failed ${json.gate?.flagged}`)
  await page.screenshot({ path: path.join(shots, 'diff.png') })
  await page.close()
  for (const problem of problems) failures.push(`diff page: ${problem}`)
}
