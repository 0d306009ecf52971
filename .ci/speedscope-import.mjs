// Reads proftool's speedscope, V8 .cpuprofile and Chrome trace conversions of every fixture with
// speedscope's own importers, headless, and checks each total against the source's, as proftool
// states it in `summary --format json` (the default metric's total) and `info` (its interval), and
// that the call tree speedscope builds from each trace conversion is the one it builds from the
// speedscope conversion, stack for stack (a trace's slices must nest as the profile says).
//
//   node .ci/speedscope-import.mjs PROFTOOL SPEEDSCOPE_RELEASE_DIR WORK_DIR FIXTURE...
//
// speedscope's importers are loaded as .ci/speedscope-lib.mjs says.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { speedscopeImporters } from './speedscope-lib.mjs'

const [bin, releaseDir, work, ...fixtures] = process.argv.slice(2)

// speedscope's weight units against proftool's unit words of time (src/formats/mod.rs, unit_word)
const microseconds = { ns: 1e-3, us: 1, ms: 1e3, s: 1e6 }
const speedscopeMicroseconds = { nanoseconds: 1e-3, microseconds: 1, milliseconds: 1e3, seconds: 1e6 }

function proftool(...args) {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

// The source's metric (its default, else METRIC): name, kind and unit as `info` and `summary`
// name them, the total of its rows' own values (a measured total they do not add up to, as a
// Dyalog report's, has no place in these formats: the conversion says so), and the interval in µs
// (else 1 ms, as convert). `timed` names what a target weighed by time takes where the metric
// counts other things (perf's cycles): the first metric of kind samples, time or ticks, the
// writers' order of preference.
function sourceFacts(fixture, metric) {
  const chosen = metric === undefined ? [] : ['--metric', metric]
  const summary = JSON.parse(proftool('summary', '-q', '--format', 'json', ...chosen, fixture))
  const info = proftool('info', '-q', fixture)
  const kindOf = (name) => info.split('\n').find((line) => line.startsWith(`metric     ${name} (`))?.split(/[(,]/)[1]
  const interval = info.match(/^interval\s+([\d.]+)(ns|µs|us|ms|s)\b/m)
  const timed = ['samples', 'time', 'ticks']
    .map((kind) => info.match(new RegExp(`^metric\\s+(.+?) \\(${kind},`, 'm'))?.[1])
    .find((name) => name !== undefined)
  return {
    metric: summary.metric,
    kind: kindOf(summary.metric),
    unit: summary.unit,
    // A flat report's row (a ]PROFILE summary) has no self value, and is written as a stack of
    // one function that weighs its total.
    total: summary.rows.reduce((sum, row) => sum + (row.self ?? row.total), 0),
    intervalUs: interval ? Number(interval[1]) * microseconds[interval[2].replace('µ', 'u')] : 1000,
    timed,
  }
}

// What speedscope's total of SOURCE's metric is in its unit WEIGHT_UNIT, and in µs for a target
// that holds time (null for a count of other things, which those refuse)
function speedscopeTotal(source, weightUnit) {
  if (source.kind === 'time') return (source.total * microseconds[source.unit]) / speedscopeMicroseconds[weightUnit]
  if (['alloc', 'bytes'].includes(source.kind)) return weightUnit === 'bytes' ? source.total : NaN
  return weightUnit === 'none' ? source.total : NaN
}
function timeUs(source) {
  if (source.kind === 'time') return source.total * microseconds[source.unit]
  return ['samples', 'ticks'].includes(source.kind) ? source.total * source.intervalUs : null
}

// The total of the profiles speedscope imports from FILE (of SLICES, a trace: see below): those of
// metric METRIC where given
// (proftool's speedscope files hold a profile per thread and metric, each naming its `metric`, a key
// speedscope ignores; it imports the profiles in the file's order), else all (a trace's threads).
async function importTotal(importers, file, metric, slices = false) {
  const log = console.log
  const warn = console.warn
  console.log = console.warn = () => {}
  try {
    const text = fs.readFileSync(file, 'utf8')
    const group = await importers.importProfileGroupFromText(path.basename(file), text)
    const written = metric === undefined ? [] : JSON.parse(text).profiles
    const kept = (group?.profiles ?? []).map((p, i) => [p, written[i]]).filter(([, w]) => metric === undefined || w.metric === metric)
    const profiles = kept.map(([p]) => p)
    if (profiles.length === 0) throw new Error(`speedscope imports no profile ${metric ?? ''} from ${file}`)
    const units = new Set(profiles.map((p) => p.getWeightUnit()))
    if (units.size !== 1) throw new Error(`${file}: profiles in several units ${[...units]}`)
    // An evented profile or a trace (`slices`: slices at their times) weighs from its first event
    // to its last, the time between its thread's slices too, which is no stack's: its total is the
    // time with one open.
    const weight = ([p, w]) => (slices || w?.type === 'evented' ? p.getTotalNonIdleWeight() : p.getTotalWeight())
    return { unit: [...units][0], total: kept.reduce((sum, pw) => sum + weight(pw), 0), profiles }
  } finally {
    console.log = log
    console.warn = warn
  }
}

// The call tree speedscope built from PROFILES, all merged into one map from a stack of frame
// names (root first, joined by ';') to its own weight times SCALE and the number of nodes of
// that stack (frames of one name in two files are two nodes). A root frame named in THREADS is
// left out (proftool's speedscope file has had threads as root frames, where a trace has them as
// tracks); the arguments speedscope appends to a trace event's name (` {"filename":…}`) too.
function callTree(profiles, scale, threads) {
  const stacks = new Map()
  for (const profile of profiles) {
    const walk = [[profile.getGroupedCalltreeRoot(), []]]
    while (walk.length > 0) {
      const [node, stack] = walk.pop()
      for (const child of node.children) {
        const name = child.frame.name.replace(/ \{.*\}$/s, '')
        const below = stack.length === 0 && threads.has(name) ? [] : [...stack, name]
        const self = child.getSelfWeight() * scale
        if (self !== 0 && below.length > 0) {
          const key = below.join(';')
          const [weight, nodes] = stacks.get(key) ?? [0, 0]
          stacks.set(key, [weight + self, nodes + 1])
        }
        walk.push([child, below])
      }
    }
  }
  return stacks
}

// Fails unless the two call trees have the same stacks with the same weights (within TOLERANCE
// for each node of the stack), naming the first few that differ.
function sameCallTree(got, want, tolerance, what) {
  const differ = []
  for (const key of new Set([...got.keys(), ...want.keys()])) {
    const [[a, m], [b, n]] = [got.get(key) ?? [0, 0], want.get(key) ?? [0, 0]]
    if (!(Math.abs(a - b) <= tolerance * Math.max(m, n) + 1e-9 * Math.abs(b))) {
      differ.push(`${key}: ${a} against ${b}`)
    }
  }
  if (differ.length > 0) {
    throw new Error(`${what}: ${differ.length} stacks differ, e.g.\n  ${differ.slice(0, 5).join('\n  ')}`)
  }
}

function near(got, want, tolerance, what) {
  if (!(Math.abs(got - want) <= tolerance)) {
    throw new Error(`${what}: speedscope totals ${got}, the source ${want} (tolerance ${tolerance})`)
  }
}

const importers = await speedscopeImporters(releaseDir)
let speedscopeChecked = 0
let timedChecked = 0
let treesChecked = 0
for (const fixture of fixtures) {
  const base = path.join(work, fixture.replaceAll('/', '_'))
  const source = sourceFacts(fixture)

  // The speedscope file keeps every metric in its own unit, a profile each.
  proftool('convert', '-q', fixture, `${base}.speedscope.json`)
  const written = await importTotal(importers, `${base}.speedscope.json`, source.metric)
  const want = speedscopeTotal(source, written.unit)
  near(written.total, want, 1e-9 * Math.abs(want), `${fixture} as speedscope (${written.unit})`)
  speedscopeChecked++

  // The .cpuprofile and the trace hold time in µs: samples and ticks at the source's interval.
  const weighed = timeUs(source) === null && source.timed !== undefined ? sourceFacts(fixture, source.timed) : source
  const wantUs = timeUs(weighed)
  if (wantUs === null) continue // a count of other things: refused by both writers (.ci/consumers checks)
  if (wantUs === 0) continue // no time to lay out: a trace of no slices, which speedscope imports as none
  for (const [ext, format] of [
    ['cpuprofile', 'cpuprofile'],
    ['trace.json', 'chrome-trace'],
  ]) {
    const file = `${base}.${ext}`
    proftool('convert', '-q', '--metric', weighed.metric, '--to', format, fixture, file)
    // A trace of CPU profiles (samples at their times) is read as a .cpuprofile is: all its time.
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'))
    const cpuProfiles = format === 'chrome-trace' ? doc.traceEvents.filter((e) => e.name === 'ProfileChunk') : []
    const imported = await importTotal(importers, file, undefined, format === 'chrome-trace' && cpuProfiles.length === 0)
    if (imported.unit !== 'microseconds') throw new Error(`${file}: speedscope reads ${imported.unit}`)
    // Each node's time is rounded once, as the writers say on stderr: a .cpuprofile's and a trace's
    // CPU profiles' to whole µs (their time deltas), a trace's slices' to the ns.
    const v8Nodes = format === 'cpuprofile' ? doc.nodes.length : cpuProfiles.reduce((n, c) => n + c.args.data.cpuProfile.nodes.length, 0)
    const rounding = format === 'cpuprofile' || cpuProfiles.length > 0 ? 0.5 * v8Nodes : 0.0005 * doc.traceEvents.length
    near(imported.total, wantUs, rounding + 1e-9 * wantUs, `${fixture} as ${format}`)
    // A trace of slices holds the call tree speedscope builds from the speedscope conversion; one
    // of CPU profiles holds it as a .cpuprofile does, which speedscope reads with its own rules
    // (the time before the first sample no frame's, `(garbage collector)` and `(program)` samples
    // on the stack before them, `(idle)` no frame): its total is checked, as a .cpuprofile's is.
    if (format === 'chrome-trace' && cpuProfiles.length === 0) {
      // The same stacks as speedscope builds from the speedscope conversion, µs for µs (each
      // node's time rounded to the ns), whatever holds the threads: roots, tracks or profiles.
      const threads = new Set(
        doc.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args.name),
      )
      const fromSpeedscope = await importTotal(importers, `${base}.speedscope.json`, weighed.metric)
      const scale = weighed.kind === 'time' ? speedscopeMicroseconds[fromSpeedscope.unit] : weighed.intervalUs
      sameCallTree(
        callTree(imported.profiles, 1, threads),
        callTree(fromSpeedscope.profiles, scale, threads),
        0.0005,
        `${fixture}: speedscope's call tree of the ${format} conversion against the speedscope conversion's`,
      )
      treesChecked++
    }
  }
  timedChecked++
}
console.log(
  `speedscope's importers read all ${speedscopeChecked} speedscope conversions with the source's total, ` +
    `and ${timedChecked} .cpuprofile and Chrome trace conversions with its time; ` +
    `the call trees of ${treesChecked} trace conversions are those of their speedscope conversions`,
)
