// speedscope's own sample corpus (fixtures/corpus/speedscope-samples/): every file of a format
// proftool reads, converted to speedscope by proftool, must import in speedscope with the total
// speedscope's importers give the original, for each kind of weight (time, bytes, counts). Where
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

// Files whose total in proftool's reading differs from speedscope's on purpose: why.
const READINGS = {}

// A weight in speedscope's unit, as a kind and an amount in that kind's base unit.
const timeUs = { nanoseconds: 1e-3, microseconds: 1, milliseconds: 1e3, seconds: 1e6 }
function kindOf(unit) {
  if (unit in timeUs) return 'time (µs)'
  return unit === 'bytes' ? 'bytes' : 'count'
}

// The totals of a group of profiles, per kind of weight.
function totals(group) {
  const byKind = {}
  for (const profile of group?.profiles ?? []) {
    const unit = profile.getWeightUnit()
    const kind = kindOf(unit)
    byKind[kind] = (byKind[kind] ?? 0) + profile.getTotalWeight() * (timeUs[unit] ?? 1)
  }
  return byKind
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
    const said = e.stderr.trim().split('\n').pop()
    if (/cannot tell the input format|cannot read the input/.test(said)) {
      console.log(`not read: ${rel}: ${said}`)
      unread++
    } else if (READINGS[rel]) {
      console.log(`refused as documented: ${rel}: ${said}: ${READINGS[rel]}`)
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
    .filter((kind) => !(Math.abs((converted[kind] ?? NaN) - original[kind]) <= 1e-6 * Math.abs(original[kind]) + 1e-6))
    .map((kind) => `${kind}: speedscope ${original[kind]}, proftool ${converted[kind]}`)
  if (original.error) differences.push(`speedscope cannot import the original (${original.error})`)
  if (differences.length === 0) {
    console.log(`agrees: ${rel}: ${JSON.stringify(converted)}`)
    agreeing++
  } else if (READINGS[rel]) {
    console.log(`differs as documented: ${rel}: ${differences.join('; ')}: ${READINGS[rel]}`)
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
