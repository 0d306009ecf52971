// The HTML viewer in a real browser (headless Chromium through puppeteer-core): every fixture's
// `convert … out.html` opens from disk with no console error and no request, shows the source's
// total (`summary --format json`), draws its graph, zooms on a click, finds the heaviest function
// by search with its share of the total, and gives that function's callers the numbers
// `proftool calls --format json` gives. Keeps screenshots of a flame graph and a sandwich.
//
//   node .ci/html-viewer.mjs PROFTOOL NODE_DIR CHROMIUM WORK_DIR SHOTS_DIR FIXTURE...
//
// NODE_DIR is where puppeteer-core is installed (its node_modules' folder).
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'

const [bin, nodeDir, chromium, work, shots, ...fixtures] = process.argv.slice(2)
const puppeteer = createRequire(path.join(path.resolve(nodeDir), 'package.json'))('puppeteer-core')
const run = (args) => execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] })
const failures = []
let [opened, searched, sandwiches, mergedPages] = [0, 0, 0, 0]
for (const fixture of fixtures) {
  const out = path.join(work, fixture.replaceAll('/', '_') + '.html')
  try {
    run(['convert', '-q', fixture, out])
  } catch (e) {
    continue // a profile no page is made of (no call tree, counts of 0), said by proftool
  }
  const summary = JSON.parse(run(['summary', '-q', '--format', 'json', fixture]))
  const page = await browser.newPage()
  await page.setViewport({ width: 1200, height: 900 })
  const problems = []
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`) })
  page.on('pageerror', (e) => problems.push(`error: ${e}`))
  page.on('request', (r) => { if (r.url() !== 'file://' + path.resolve(out)) problems.push(`request: ${r.url()}`) })
  await page.goto('file://' + path.resolve(out))
  const seen = await page.evaluate(() => ({ grand, rects: rects.node.length, metric: P.metrics[state.metric].name }))
  // What the rows add up to (a source's measured inclusive total, Dyalog's, may differ: the page
  // draws the rows). A flat report's row (a ]PROFILE summary) has no self value: it is a stack.
  const flat = summary.rows.some((row) => row.self === null || row.self === undefined)
  const rowsTotal = summary.rows.reduce((sum, row) => sum + (row.self ?? row.total), 0)
  if (!near(seen.grand, rowsTotal) || seen.metric !== summary.metric) {
    problems.push(`total ${seen.grand} of ${seen.metric}, summary's rows add up to ${rowsTotal} of ${summary.metric}`)
  }
  if (seen.rects < 2 && seen.grand > 0) problems.push(`${seen.rects} rectangles drawn`)
  // With its threads merged (a page of their own), the same total, and no thread at the root but
  // where a thread has values of its own.
  if (await page.evaluate(() => threadRoots > 1)) {
    await page.goto('file://' + path.resolve(out) + '#t=merged')
    await page.waitForFunction(() => merged)
    const one = await page.evaluate(() => ({ grand, threads: roots.filter((r) => kindOf(P.frame[r]) === 2 && total[r] !== selfv[r]).length }))
    if (!near(one.grand, rowsTotal) || one.threads > 0) problems.push(`threads merged: total ${one.grand} and ${one.threads} thread roots with calls`)
    mergedPages++
    await page.goto('file://' + path.resolve(out))
    await page.waitForFunction(() => !merged)
  }
  // A click on the widest frame zooms into it.
  const clicked = await page.evaluate(() => {
    let best = -1
    for (let i = 0; i < rects.node.length; i++) if (rects.node[i] >= 0 && (best < 0 || rects.w[i] > rects.w[best])) best = i
    if (best < 0) return null
    // Scrolled to, so that the click lands on it.
    window.scrollTo(0, canvas.getBoundingClientRect().top + window.scrollY + rowY(rects.depth[best], rowsOf.length) - 200)
    const box = canvas.getBoundingClientRect()
    const rows = rowsOf.length
    return { x: box.left + rects.x[best] + rects.w[best] / 2, y: box.top + rowY(rects.depth[best], rows) + ROW / 2, node: rects.node[best] }
  })
  if (clicked) {
    await page.mouse.click(clicked.x, clicked.y)
    const zoom = await page.evaluate(() => state.zoom)
    if (zoom !== clicked.node) problems.push(`a click on node ${clicked.node} zoomed to ${zoom}`)
  }
  // The heaviest function by total that one frame of the page names.
  const row = flat ? undefined : summary.rows.find((r) => r.total > 0)
  const frames = row ? await page.evaluate((n) => { const f = []; for (let i = 0; i < FRAMES; i++) if (label(i) === n) f.push(i); return f }, row.name) : []
  if (row && frames.length === 1) {
    await page.type('#search', `^${escape(row.name)}$`)
    const share = await page.evaluate(() => { let m = 0, inside = 0; walk((n) => { if (matchFrame[P.frame[n]]) { if (!inside) m += total[n]; inside++ } }, (n) => { if (matchFrame[P.frame[n]]) inside-- }); return m / grand })
    const shown = await page.$eval('#matched', (e) => e.textContent)
    if (!near(share * 100, row.total_pct) || !shown.startsWith(`matched ${(row.total_pct).toFixed(2)} %`)) problems.push(`search of ${row.name}: ${shown}, summary says ${row.total_pct} %`)
    searched++
    if (!callersBeyondTheTree(fixture, summary, rowsTotal)) {
      const calls = JSON.parse(run(['calls', '-q', '--format', 'json', '--fn', row.name, fixture]))
      const callers = await page.evaluate((f) => { const s = sandwich(f); return [...s.callers.entries()].map(([c, v]) => [c < 0 ? '(root)' : label(c), v]) }, frames[0])
      for (const r of calls.rows) {
        const mine = callers.find(([n]) => n === r.name)
        if (!mine || !near(mine[1], r.value)) problems.push(`caller ${r.name} of ${row.name}: ${mine?.[1]}, calls says ${r.value}`)
      }
      sandwiches++
    }
  }
  if (fixture.endsWith('perf/work.perf')) {
    await page.goto('file://' + path.resolve(out))
    await page.screenshot({ path: path.join(shots, 'flamegraph.png') })
    const leaf = await page.evaluate(() => { for (let i = 0; i < FRAMES; i++) if (label(i) === 'leaf') return i; return -1 })
    await page.goto('file://' + path.resolve(out) + '#f=' + leaf)
    await page.screenshot({ path: path.join(shots, 'sandwich.png'), fullPage: true })
  }
  await page.close()
  opened++
  for (const problem of problems) failures.push(`${fixture}: ${problem}`)
}
// The differential page of two real runs, one with render's work doubled: the gate's verdict names
// render, which grew (red), and the page opens as cleanly.
{
  const out = path.join(work, 'diff.html')
  try {
    execFileSync(bin, ['diff', '-q', '--to', 'html', out, 'fixtures/gate/perf-1.perf.gz', 'fixtures/gate/perf-slow-1.perf.gz'], { stdio: 'ignore' })
  } catch (e) {
    if (e.status !== 3) failures.push(`diff --to html: exit ${e.status}, not 3 (a regression)`)
  }
  const page = await browser.newPage()
  await page.setViewport({ width: 1200, height: 700 })
  const problems = []
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`) })
  page.on('pageerror', (e) => problems.push(`error: ${e}`))
  await page.goto('file://' + path.resolve(out))
  const verdict = await page.$eval('#verdict', (e) => e.textContent)
  if (!/the gate fails on 1 function:render$/.test(verdict)) problems.push(`verdict: ${verdict}`)
  const render = await page.evaluate(() => { for (let n = 0; n < N; n++) if (label(P.frame[n]) === 'render') return colour(n); return null })
  if (!/^rgb\(255,/.test(render ?? '')) problems.push(`render is drawn ${render}, not red`)
  await page.screenshot({ path: path.join(shots, 'diff.png') })
  await page.close()
  for (const problem of problems) failures.push(`diff page: ${problem}`)
}
await browser.close()
for (const failure of failures) console.error(`html viewer: ${failure}`)
console.log(`the HTML of ${opened} fixtures opens in Chromium with its total (${mergedPages} with their threads merged too); ${searched} searched, ${sandwiches} sandwiches as proftool calls gives them; ${failures.length} fail`)
process.exit(failures.length === 0 && opened > 0 ? 0 : 1)

// Whether `proftool calls` reads the fixture's callers from elsewhere than its tree: a call graph's
// exact edges (callgrind: the page's tree apportions them, as every tree conversion does), or
// measured inclusive values the rows do not add up to (Dyalog's, which the page cannot draw).
function callersBeyondTheTree(fixture, summary, rowsTotal) {
  return /(^|\/)callgrind\//.test(fixture) || !near(summary.total, rowsTotal)
}
