// Time from navigation to the page's first drawing (its mark `proftool-drawn`) in headless
// Chromium, the median of RUNS fresh pages, for each page given; with the tree's nodes and the
// rectangles drawn. bench/html.sh runs it.
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
    seen = await page.evaluate(() => ({ drawn: performance.getEntriesByName('proftool-drawn')[0].startTime, nodes: N, rects: rects.node.length }))
    times.push(seen.drawn)
    await page.close()
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]
  console.log(`${path.basename(file)}: ${seen.nodes} nodes, ${seen.rects} rectangles drawn; first drawn after ${median.toFixed(0)} ms (median of ${times.length}: ${times.map((t) => t.toFixed(0)).join(', ')})`)
}
await browser.close()
