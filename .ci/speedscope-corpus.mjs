// speedscope's own sample corpus (../shared/corpus/speedscope-samples/ beside the checkout, not in
// the repository: it is speedscope's): every file of a format
// proftool reads, converted to speedscope by proftool, must import in speedscope with the total
// speedscope's importers give the original, for each kind of weight (time, bytes, counts): the
// weight of its call trees. Where
// proftool's reading differs on purpose, READINGS below says why (and docs/formats.md with it).
//
//   node .ci/speedscope-corpus.mjs PROFTOOL SPEEDSCOPE_RELEASE_DIR WORK_DIR CORPUS_DIR
//
// Prints a line per file: read and agreeing, read with a documented difference, or not a format
// proftool reads (with proftool's word for it). Fails on any other difference or error.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { speedscopeImporters, importGroup } from './speedscope-lib.mjs'

const [bin, releaseDir, work, corpus] = process.argv.slice(2)

// Files whose total in proftool's reading differs from speedscope's on purpose: why, and the total
// proftool's conversion must then give, worked out by hand from the file (docs/formats.md, "speedscope's
// sample corpus"). A file proftool refuses gives no total.
const perfByPeriod = (samples, periodNs) =>
  `perf weighed by its period, as perf report and inferno weigh it: ${samples} samples of ${periodNs} ns; ` +
  'speedscope weighs a sample by the time to the next one of its thread'
const devtools = (span, speedscopeBusy) =>
  `a DevTools recording's CPU profile weighed as a .cpuprofile is (speedscope's own reading of one): ` +
  `its samples' time deltas, ${span} µs, (idle), (program) and (garbage collector) samples included as V8 names them; ` +
  `speedscope's timeline importer leaves idle samples out and gives the rest to the stack before them (${speedscopeBusy} µs in its call tree)`
const firefoxGecko = (samples, ms) =>
  `every frame and sample, as the Firefox Profiler (the format's own viewer) imports a Gecko profile: ${samples} samples, ${ms} ms ` +
  "(each until the next, the last one interval); speedscope keeps JS functions only and leaves out Firefox's label frames, " +
  'addresses and resource: scripts, and the samples left with no frame'
const READINGS = {
  'Firefox/59/firefox.json': { total: 10183775.769, why: firefoxGecko(10161, '10,183.776') },
  'Firefox/59/simple-firefox.json': { total: 37978.056, why: firefoxGecko(38, '37.978') },
  'Firefox/61/recursion.json': { total: 15114.334, why: firefoxGecko(15, '15.114') },
  'Firefox/63/simple-firefox.json': { total: 38775.204, why: firefoxGecko(39, '38.775') },
  'linux-perf/forks.linux-perf.txt': { total: 561561.561, why: perfByPeriod(561, 1001001) },
  'linux-perf/rust-mangled.linux-perf.txt': {
    total: 1627118.592,
    why: 'perf weighed by its task-clock periods (96 samples, 1,627,118,592 ns added up), as perf report and inferno weigh it; speedscope weighs a sample by the time to the next one of its thread',
  },
  'linux-perf/simple-with-header.linux-perf.txt': { total: 136136.136, why: perfByPeriod(136, 1001001) },
  'linux-perf/system-wide.linux-perf.txt': { total: 556556.556, why: perfByPeriod(556, 1001001) },
  'linux-perf/simple-with-pid.linux-perf.txt': {
    count: 137,
    why: 'no period in its headers: 137 samples of one each, as inferno counts them; speedscope weighs a sample by the time to the next one',
  },
  'Chrome/69/simple.json': { total: 283121, why: devtools(283121, 43568) },
  'Chrome/116/Trace-20230603T221323.json': { total: 269531, why: devtools(269531, 34528) },
  'Chrome/141/no-arg-data.json': { total: 371739, why: devtools(371739, 55862) },
  'node/10.11.0/example.cpuprofile': {
    total: 45920,
    why: "the old format's samples at their timestamps, as DevTools reads them: 45,920 µs from the first to the last; speedscope adds the lead from startTime to its total (644,063) and gives the last sample no time in its call tree (44,777)",
  },
  'haskell/simple.prof': {
    count: 798,
    why: "GHC's -pj ticks kept as ticks (798 at its 1 ms interval: speedscope's 798 ms), which read back as ticks",
  },
  'callgrind/callgrind.cfn-reset.log': {
    count: 40,
    why: "the file's own costs, 40 instructions (four functions of 10, as callgrind_annotate totals them); its calls claim 40 of callees whose own cost is 20, which speedscope adds to alpha's 10 (50): proftool shares each callee's cost among its callers",
  },
  'callgrind/callgrind.subposition-compression.log': {
    why: "a cost written `*` (line 13, `* *`): the format compresses positions so, not costs; refused at the line (speedscope takes the count before it)",
  },
  'speedscope/invalid/incomplete-trace.json': {
    why: 'not valid by the file format (speedscope keeps it as an invalid sample): a frame left open, refused at its place',
  },
  'speedscope/invalid/out-of-order-events.json': {
    why: 'not valid by the file format (speedscope keeps it as an invalid sample): a close event of a frame that is not the innermost, refused at its place',
  },
}

// A weight in speedscope's unit, as a kind and an amount in that kind's base unit.
const timeUs = { nanoseconds: 1e-3, microseconds: 1, milliseconds: 1e3, seconds: 1e6 }
function kindOf(unit) {
  if (unit in timeUs) return 'time (µs)'
  return unit === 'bytes' ? 'bytes' : 'count'
}

// The totals of a group of profiles, per kind of weight, twice: their whole weight, and what their
// call trees hold without idle time (speedscope's non-idle weight). An evented profile's whole weight
// is its span, gaps where no frame is open included, which a conversion holds no stack for; a CPU
// profile's includes its `(idle)` samples, which a conversion keeps as frames. A conversion agrees
// where either total is the original's.
function totals(group) {
  const byKind = {}
  for (const profile of group?.profiles ?? []) {
    const unit = profile.getWeightUnit()
    const kind = kindOf(unit)
    const scale = timeUs[unit] ?? 1
    const [whole, busy] = byKind[kind] ?? [0, 0]
    byKind[kind] = [whole + profile.getTotalWeight() * scale, busy + profile.getTotalNonIdleWeight() * scale]
  }
  return byKind
}

// Whether two totals agree, but for floating point's rounding.
const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.abs(b) + 1e-6

// Whether a conversion gives the total its documented reading says: time in µs, or a count.
function documented(reading, converted) {
  if (reading.total !== undefined) return near(converted['time (µs)']?.[0] ?? NaN, reading.total)
  if (reading.count !== undefined) return near(converted.count?.[0] ?? NaN, reading.count)
  return false
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? walk(full) : [full]
  })
}

const importers = await speedscopeImporters(releaseDir)
const files = walk(corpus)
  .filter((f) => !/(LICENSE|SOURCE|REFERENCE)[^/]*\.txt$/.test(f))
  .sort()
const failures = []
let [agreeing, explained, unread] = [0, 0, 0]
for (const file of files) {
  const rel = path.relative(corpus, file)
  const out = path.join(work, rel.replaceAll('/', '_') + '.speedscope.json')
  try {
    execFileSync(bin, ['convert', '-q', file, out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    // The error line (an error may go on over lines of its own, such as the reasons each JSON
    // format gives); else the last line.
    const lines = e.stderr.trim().split('\n')
    const said = lines.find((line) => line.startsWith('proftool: error:')) ?? lines.pop()
    if (/cannot tell the input format|cannot read the input/.test(said)) {
      console.log(`not read: ${rel}: ${said}`)
      unread++
    } else if (READINGS[rel] && READINGS[rel].total === undefined && READINGS[rel].count === undefined) {
      console.log(`refused as documented: ${rel}: ${said}: ${READINGS[rel].why}`)
      explained++
    } else {
      failures.push(`${rel}: proftool fails: ${said}`)
    }
    continue
  }
  let original
  try {
    original = totals(await importGroup(importers, file))
  } catch (e) {
    // speedscope cannot import it either (its corpus holds deliberately invalid files).
    original = { error: String(e) }
  }
  const converted = totals(await importGroup(importers, out))
  const differences = Object.keys(original)
    .filter((kind) => kind !== 'error')
    .filter((kind) => ![0, 1].some((i) => near(converted[kind]?.[i] ?? NaN, original[kind][i])))
    .map((kind) => `${kind}: speedscope ${original[kind].join(' (non-idle ')}), proftool ${converted[kind]?.join(' (non-idle ')})`)
  if (original.error) differences.push(`speedscope cannot import the original (${original.error})`)
  if (differences.length === 0) {
    console.log(`agrees: ${rel}: ${JSON.stringify(converted)}`)
    agreeing++
  } else if (READINGS[rel] && documented(READINGS[rel], converted)) {
    console.log(`differs as documented: ${rel}: ${differences.join('; ')}: ${READINGS[rel].why}`)
    explained++
  } else {
    failures.push(`${rel}: ${differences.join('; ')}`)
  }
}
for (const failure of failures) console.error(`speedscope corpus: ${failure}`)
console.log(
  `speedscope's corpus: ${agreeing} files agree with speedscope's import, ${explained} differ as documented, ` +
    `${unread} are of formats proftool does not read, ${failures.length} fail`,
)
process.exit(failures.length === 0 ? 0 : 1)
