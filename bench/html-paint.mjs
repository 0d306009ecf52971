// Time from navigation to the page's first drawing (its mark `proftool-drawn`) in headless
// Chromium, the median of RUNS fresh pages, for each page given; with the tree's nodes and the
// rectangles drawn; then, on the last page, the time of a zoom (a click's work: the widest frame
// under the root, then back out) and of a search (what runs once typing pauses: the regex over
// the names, the matched share, the table and the graph), medians of 5. bench/html.sh runs it.
//
//   node bench/html-paint.mjs NODE_DIR CHROMIUM RUNS PAGE...
import path from 'node:path'
import { createRequire } from 'node:module'

const [nodeDir, chromium, runs, ...pages] = process.argv.slice(2)
const puppeteer = createRequire(path.join(path.resolve(nodeDir), 'package.json'))('puppeteer-core')
const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] })
for (const file of pages) {
  const times = []
  let seen
  for (let run = 0; run < Number(runs); run++) {
    const page = await browser.newPage()
    await page.setViewport({ width: 1400, height: 900 })
    await page.goto('file://' + path.resolve(file), { timeout: 600000 })
    await page.waitForFunction(() => performance.getEntriesByName('proftool-drawn').length > 0, { timeout: 600000 })
    seen = await page.evaluate(() => ({ drawn: performance.getEntriesByName('proftool-drawn')[0].startTime, nodes: N, rects: lay.rects.node.length }))
    times.push(seen.drawn)
    if (run === Number(runs) - 1) seen.actions = await page.evaluate(actions)
    await page.close()
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]
  console.log(`${path.basename(file)}: ${seen.nodes} nodes, ${seen.rects} rectangles drawn; first drawn after ${median.toFixed(0)} ms (median of ${times.length}: ${times.map((t) => t.toFixed(0)).join(', ')}); zoom ${seen.actions.zoom.toFixed(1)} ms, out ${seen.actions.out.toFixed(1)} ms, search ${seen.actions.search.toFixed(1)} ms`)
}
await browser.close()

// In the page: the medians of 5 zooms in and out, each on a frame not zoomed before (the page
// keeps its last layouts: going back to one costs less), and of 5 searches of other names, each
// from the moment typing pauses to the page drawn with its matches (the regex runs in a worker).
async function actions() {
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const time = (f) => { const t = performance.now(); f(); return performance.now() - t }
  const targets = [...K.kids(K.roots[0])].slice(0, 5)
  const zoom = [], out = [], search = []
  for (let i = 0; i < 5; i++) {
    const target = targets[i] ?? K.roots[0]
    zoom.push(time(() => zoomTo(target)))
    out.push(time(() => { layouts.made.clear(); zoomTo(-1) }))
    const started = performance.now()
    state.search = `f${i}1`
    update()
    while (madeFor.search !== `${state.search}|${state.metric}`) await new Promise((resolve) => setTimeout(resolve, 1))
    search.push(performance.now() - started)
  }
  state.search = ''
  update()
  return { zoom: median(zoom), out: median(out), search: median(search) }
}
