// The Firefox Profiler conversion of every fixture: checked against the shape of the processed
// profile at the version proftool pins (meta.preprocessedProfileVersion 55, meta.version 24: the
// profiler's src/types/profile.js at that version, the commit before 786898d4f "Share stringTable
// between threads"): the fields its types require, every table's columns as long as its length,
// every index within the table it points into, a grey default category and a subcategory 0 for
// each; and read back by proftool with the source's total (the own values of `summary --format
// json` added up, time compared in ms, since the format holds time in ms). With PROFILER_CLI (the
// Firefox Profiler's own command line, @firefox-devtools/profiler-cli, which loads a profile with
// the profiler's code: upgraded to its version and processed), the conversions of the Firefox and
// Gecko fixtures and of the first fixture of every other format are loaded in it, and each
// thread's call tree must hold the source's total (`thread samples-top-down --include-idle`); so
// must those of the Firefox fixtures themselves, the profiler's reading of samply's files and the
// hand-written ones (old versions upgraded by the profiler on load). And perf's samples are at their
// `perf script` times there: the profiler's zoom to a range holds what `--from-time`/`--to-time` keep.
//
//   node .ci/firefox-check.mjs PROFTOOL WORK_DIR [--profiler-cli PROFILER_CLI] FIXTURE...
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'

const [bin, work, ...rest] = process.argv.slice(2)
const profilerCli = rest[0] === '--profiler-cli' ? rest[1] : null
const inputs = profilerCli ? rest.slice(2) : rest
const failures = []
let [checked, refused] = [0, 0]

function check(doc, fail) {
  const meta = doc.meta
  if (meta.preprocessedProfileVersion !== 55 || meta.version !== 24) fail(`version ${meta.preprocessedProfileVersion}/${meta.version}`)
  for (const [key, type] of Object.entries({ interval: 'number', startTime: 'number', processType: 'number', product: 'string', stackwalk: 'number' })) {
    if (typeof meta[key] !== type) fail(`meta.${key} is not a ${type}`)
  }
  if (!Array.isArray(meta.markerSchema)) fail('meta.markerSchema is not an array')
  const categories = meta.categories ?? []
  if (!categories.some((c) => c.color === 'grey')) fail('no grey (default) category')
  for (const c of categories) if (!(typeof c.name === 'string' && Array.isArray(c.subcategories) && c.subcategories.length > 0)) fail(`category ${JSON.stringify(c)}`)
  if (!Array.isArray(doc.libs) || !Array.isArray(doc.threads) || doc.threads.length === 0) fail('libs or threads missing')
  const threadFields = ['processType', 'processStartupTime', 'processShutdownTime', 'registerTime', 'unregisterTime', 'pausedRanges', 'name', 'isMainThread', 'pid', 'tid', 'samples', 'markers', 'stackTable', 'frameTable', 'stringArray', 'funcTable', 'resourceTable', 'nativeSymbols']
  const tables = {
    samples: ['stack', 'time', 'weight'],
    markers: ['data', 'name', 'startTime', 'endTime', 'phase', 'category'],
    stackTable: ['frame', 'prefix'],
    frameTable: ['address', 'inlineDepth', 'category', 'subcategory', 'func', 'nativeSymbol', 'innerWindowID', 'line', 'column'],
    funcTable: ['name', 'isJS', 'relevantForJS', 'resource', 'fileName', 'lineNumber', 'columnNumber'],
    resourceTable: ['lib', 'name', 'host', 'type'],
    nativeSymbols: ['libIndex', 'address', 'name', 'functionSize'],
  }
  for (const [t, thread] of doc.threads.entries()) {
    const at = (what) => `threads[${t}].${what}`
    for (const field of threadFields) if (!(field in thread)) fail(at(`${field} missing`))
    if (typeof thread.pid !== 'string') fail(at('pid is not a string'))
    for (const [table, columns] of Object.entries(tables)) {
      for (const column of columns) {
        if (thread[table][column]?.length !== thread[table].length) fail(at(`${table}.${column} is not ${thread[table].length} long`))
      }
    }
    const { samples, stackTable, frameTable, funcTable, stringArray } = thread
    const index = (value, length) => Number.isInteger(value) && value >= 0 && value < length
    if (!['samples', 'tracing-ms', 'bytes'].includes(samples.weightType)) fail(at(`weightType ${samples.weightType}`))
    samples.stack.forEach((s, i) => s === null || index(s, stackTable.length) || fail(at(`samples.stack[${i}]`)))
    samples.weight.forEach((w, i) => (typeof w === 'number' && w >= 0) || fail(at(`samples.weight[${i}]`)))
    samples.time.forEach((time, i) => (i === 0 || time >= samples.time[i - 1]) || fail(at(`samples.time[${i}] out of order`)))
    stackTable.prefix.forEach((p, i) => p === null || index(p, i) || fail(at(`stackTable.prefix[${i}]`)))
    stackTable.frame.forEach((f, i) => index(f, frameTable.length) || fail(at(`stackTable.frame[${i}]`)))
    frameTable.func.forEach((f, i) => index(f, funcTable.length) || fail(at(`frameTable.func[${i}]`)))
    frameTable.category.forEach((c, i) => {
      if (!index(c, categories.length) || !index(frameTable.subcategory[i], categories[c].subcategories.length)) fail(at(`frameTable.category[${i}]`))
    })
    funcTable.name.forEach((s, i) => index(s, stringArray.length) || fail(at(`funcTable.name[${i}]`)))
    funcTable.fileName.forEach((s, i) => s === null || index(s, stringArray.length) || fail(at(`funcTable.fileName[${i}]`)))
  }
}

const ms = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1e3 }
// The own values of every function added up (not the total a report states: a Dyalog report's
// measured total may differ from its rows'); none where a report's rows have no own values.
function total(file) {
  const summary = JSON.parse(execFileSync(bin, ['summary', '-q', '--format', 'json', file], { encoding: 'utf8' }))
  if (summary.rows.some((row) => typeof row.self !== 'number')) return { unit: 'none', total: NaN }
  const own = summary.rows.reduce((sum, row) => sum + row.self, 0)
  return summary.unit in ms ? { unit: 'ms', total: own * ms[summary.unit] } : { unit: summary.unit, total: own }
}

// The total of every thread's call tree as the profiler's own code builds it, in the weight's unit
// (samples, ms, bytes); with RANGE (`20ms,40ms`), of the samples the profiler's zoom to that range
// of the profile keeps.
function profilerTotal(file, range) {
  const cli = (...args) => JSON.parse(execFileSync('node', [profilerCli, ...args, '--json'], { encoding: 'utf8' }))
  loadInProfiler(file)
  try {
    if (range) execFileSync('node', [profilerCli, 'zoom', 'push', range], { stdio: 'ignore' })
    let sum = 0
    for (const thread of cli('thread', 'list').threads) {
      const tree = cli('thread', 'samples-top-down', '--include-idle', '--thread', thread.threadHandle)
      sum += tree.regularCallTree.totalSamples
    }
    return sum
  } finally {
    execFileSync('node', [profilerCli, 'stop'], { stdio: 'ignore' })
  }
}
// Loads FILE in a profiler-cli session. profiler-cli 0.10.0 gives its daemon 500 ms to start, which
// a busy machine may not meet ("did not become ready"): the late daemon is stopped and the load
// tried again, up to 7 times, waiting 1, 2, 4 … 32 s first, to outlast a slow spell.
function loadInProfiler(file) {
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync('node', [profilerCli, 'load', file], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
      return
    } catch (e) {
      const said = e.stderr?.trim() || e.message
      if (attempt < 7 && said.includes('did not become ready')) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000 * 2 ** (attempt - 1))
        execFileSync('node', [profilerCli, 'stop', '--all'], { stdio: 'ignore' })
        continue
      }
      // A session left running (another run's) is one reason: say what the profiler said.
      throw new Error(`profiler-cli cannot load ${file}: ${said}`)
    }
  }
}

// profilerTotal, or null with the profiler's failure to load the file counted as a failure.
function totalInProfiler(file, fail) {
  try {
    return profilerTotal(file)
  } catch (e) {
    fail(e.message)
    return null
  }
}
const firstOfFormat = new Set()
let loaded = 0

for (const input of inputs) {
  const out = path.join(work, input.replaceAll('/', '_') + '.firefox.json')
  try {
    execFileSync(bin, ['convert', '-q', input, out], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
  } catch (e) {
    // A profile of counts that are no samples, time or bytes (callgrind's instructions) is refused.
    if (/none of the weights a sample has/.test(e.stderr)) {
      refused++
      continue
    }
    failures.push(`${input}: the conversion fails: ${e.stderr.trim()}`)
    continue
  }
  const fail = (what) => {
    failures.push(`${input}: ${what}`)
    return false
  }
  const written = JSON.parse(fs.readFileSync(out, 'utf8'))
  check(written, fail)
  const [source, back] = [total(input), total(out)]
  // GHC's ticks are written as time at their interval: only time and counts of one unit compare.
  if (source.unit === back.unit && !Number.isNaN(source.total) && Math.abs(source.total - back.total) > 1e-6 * Math.max(1, Math.abs(source.total))) {
    fail(`read back with ${back.total} ${back.unit}, not the source's ${source.total}`)
  }
  const folder = input.split('/')[1]
  // A Firefox Profiler file itself (samples with no stack left out by both): the profiler's call
  // trees hold what proftool reads of it.
  if (profilerCli && folder === 'firefox') {
    const theirs = totalInProfiler(input, fail)
    if (theirs !== null && Math.abs(theirs - source.total) > 1e-6 * Math.max(1, Math.abs(source.total))) {
      fail(`the profiler's call trees of the original hold ${theirs}, proftool reads ${source.total} ${source.unit}`)
    }
  }
  if (profilerCli && (['firefox', 'gecko'].includes(folder) || !firstOfFormat.has(folder))) {
    firstOfFormat.add(folder)
    // Samples with no stack (a thread's own, said on stderr) are in no call tree.
    const weights = written.threads.flatMap((t) => t.samples.weight)
    const all = weights.reduce((sum, w) => sum + w, 0)
    const stackless = written.threads.flatMap((t) => t.samples.weight.filter((_, i) => t.samples.stack[i] === null))
    const inTrees = all - stackless.reduce((sum, w) => sum + w, 0)
    const theirs = totalInProfiler(out, fail)
    if (theirs !== null && Math.abs(theirs - inTrees) > 1e-6 * Math.max(1, Math.abs(inTrees))) {
      fail(`the profiler's call trees hold ${theirs}, not the ${inTrees} of the stacks written`)
    }
    loaded++
  }
  checked++
}
// perf's samples at their `perf script` times: the profiler's zoom to 20–40 ms of the profile keeps
// the samples `summary --from-time 20ms --to-time 40ms` keeps (its cpu-clock, in ms).
let timed = 0
if (profilerCli && inputs.includes('fixtures/perf/threads.perf')) {
  const out = path.join(work, 'fixtures_perf_threads.perf.firefox.json')
  const args = ['summary', '-q', '--format', 'json', '--from-time', '20ms', '--to-time', '40ms', 'fixtures/perf/threads.perf']
  const summary = JSON.parse(execFileSync(bin, args, { encoding: 'utf8' }))
  const want = summary.rows.reduce((sum, row) => sum + row.self, 0) * ms[summary.unit]
  try {
    const theirs = profilerTotal(out, '20ms,40ms')
    if (Math.abs(theirs - want) > 1e-6 * Math.max(1, want)) failures.push(`perf/threads.perf: the profiler's 20–40 ms hold ${theirs} ms, --from-time 20ms --to-time 40ms ${want}`)
    timed++
  } catch (e) {
    failures.push(`perf/threads.perf: ${e.message}`)
  }
}
for (const failure of failures) console.error(`firefox: ${failure}`)
console.log(`the Firefox Profiler conversions of ${checked} fixtures have the shape of version 55 and read back with their totals (${refused} refused: no samples, time or bytes)`)
if (profilerCli) console.log(`the Firefox Profiler's own code (profiler-cli) loads ${loaded} of them with their totals in its call trees, and ${timed} with perf's samples at their times (a range of them as --from-time/--to-time gives it)`)
process.exit(failures.length === 0 ? 0 : 1)
