// proftool's page beside speedscope's app on the same folded stacks, in headless Chromium: the
// time from navigation to the first flame graph drawn, and the renderer's memory then, after a
// garbage collection (the proportional set size of Chromium's renderer processes from /proc, less
// theirs with the tab blank, one browser at a time). proftool's
// page is drawn at its mark `proftool-drawn`; speedscope's when it has named its window after the
// file (`NAME - speedscope`, set as its flame graph is shown) and two frames have been painted.
// Both are served from 127.0.0.1, speedscope's profile by its `#profileURL=`, as its docs load one.
// Not a test; bench/html.sh runs it where SPEEDSCOPE names speedscope's dist/release folder.
//
//   node bench/html-speedscope.mjs NODE_DIR CHROMIUM SPEEDSCOPE_RELEASE_DIR FOLDED PAGE
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { createRequire } from 'node:module'

const [nodeDir, chromium, speedscope, folded, page] = process.argv.slice(2)
const puppeteer = createRequire(path.join(path.resolve(nodeDir), 'package.json'))('puppeteer-core')

/** The proportional set size (resident memory, what is shared split among its sharers), in MB, of
 * the renderer processes of the browser whose process is `pid`. */
function rendererMegabytes(pid) {
  let kb = 0
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (!command.includes('--type=renderer')) continue
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8')
      const parent = Number(/PPid:\s+(\d+)/.exec(status)[1])
      const ancestry = fs.readFileSync(`/proc/${parent}/cmdline`, 'utf8')
      if (parent !== pid && !ancestry.includes('--type=zygote')) continue
      kb += Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/smaps_rollup`, 'utf8'))[1])
    } catch {
      // A process that ended while read.
    }
  }
  return kb / 1024
}

/** Opens `url` in a fresh browser, waits for `drawn(...args)`, and returns the time and memory then. */
async function measure(url, drawn, ...args) {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    args: ['--no-sandbox', '--headless=new', '--allow-file-access-from-files'],
    protocolTimeout: 1200000,
  })
  const tab = await browser.newPage()
  await tab.setViewport({ width: 1400, height: 900 })
  // What the renderers hold with the tab blank, taken from what they hold once it has drawn.
  const blank = rendererMegabytes(browser.process().pid)
  await tab.goto(url, { timeout: 1200000, waitUntil: 'domcontentloaded' })
  await tab.waitForFunction(drawn, { timeout: 1200000, polling: 50 }, ...args)
  const ms = await tab.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())))),
  )
  // What the page holds, not the garbage of reading it: a collection first, for both.
  const session = await tab.createCDPSession()
  await session.send('HeapProfiler.collectGarbage')
  const mb = rendererMegabytes(browser.process().pid) - blank
  await browser.close()
  return { ms, mb }
}

// /speedscope/… from its release folder, /profile its input, /page proftool's page.
const files = { '/profile': path.resolve(folded), '/page': path.resolve(page) }
const server = http.createServer((request, response) => {
  const url = decodeURIComponent(request.url.split(/[?#]/)[0])
  const file = files[url] ?? (url.startsWith('/speedscope/') && path.join(path.resolve(speedscope), url.slice(12)))
  if (!file || !fs.existsSync(file)) return response.writeHead(404).end()
  const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' }
  response.writeHead(200, { 'content-type': type[path.extname(file)] ?? 'application/octet-stream' })
  fs.createReadStream(file).pipe(response)
})
await new Promise((listening) => server.listen(0, '127.0.0.1', listening))
const origin = `http://127.0.0.1:${server.address().port}`
const ours = await measure(`${origin}/page`, () => performance.getEntriesByName('proftool-drawn').length > 0)
const name = 'profile'
const theirs = await measure(
  `${origin}/speedscope/index.html#profileURL=` + encodeURIComponent(`${origin}/profile`),
  (title) => document.title.startsWith(title + ' - speedscope') && document.querySelector('canvas') !== null,
  name,
)
server.close()
const ratio = (a, b) => (a / b).toFixed(1)
console.log(
  `${path.basename(folded)}: proftool first drawn after ${ours.ms.toFixed(0)} ms, renderer ${ours.mb.toFixed(0)} MB; ` +
    `speedscope after ${theirs.ms.toFixed(0)} ms, ${theirs.mb.toFixed(0)} MB: ` +
    `${ratio(theirs.ms, ours.ms)}× sooner, ${ratio(theirs.mb, ours.mb)}× less memory`,
)
