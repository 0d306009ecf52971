// Unit tests of the HTML page's model (src/formats/html/model.js: the tree, its totals, merging
// lines and threads, the function table, search, the sandwich, the viewport's layout, number
// formatting), run by node on the file itself, with no browser. Expected values are worked out by
// hand in the comments. .ci/consumers runs it (node .ci/html-model.mjs).
import fs from 'node:fs'
import vm from 'node:vm'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'

const source = fs.readFileSync(fileURLToPath(new URL('../src/formats/html/model.js', import.meta.url)), 'utf8')
const M = vm.runInNewContext(`${source}\nModel`, {})
let passed = 0
const test = (name, body) => {
  try { body(); passed++ } catch (e) { console.error(`html model: ${name}: ${e.message}`); process.exitCode = 1 }
}

// A profile as the writer gives it: names as strings, frames [name, module, line, kind], nodes
// as [parent, frame, self...] (the writer gives each parent as an offset back from its node).
function profile({ names, frames, nodes, metrics = [{ name: 'samples', kind: 'samples', unit: 'count', additive: true }], fn, measured }) {
  return {
    strings: names, metrics, totals: null,
    frames: frames.flat(),
    function: fn ?? frames.map((_, i) => i),
    defined: frames.map(() => -1),
    parentOffset: nodes.map((n, i) => (n[0] < 0 ? 0 : i - n[0])),
    frame: nodes.map((n) => n[1]),
    values: metrics.map((_, m) => nodes.map((n) => n[2 + m])),
    measured: measured ?? metrics.map(() => null),
  }
}

// main → a → b (self 2), main → b (self 3), main self 1; b recursive under a: a → b → b (self 4).
const simple = profile({
  names: ['main', 'a', 'b'],
  frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0]],
  nodes: [[-1, 0, 1], [0, 1, 0], [1, 2, 2], [0, 2, 3], [2, 2, 4]],
})

test('totals roll self values up', () => {
  const t = M.fromProfile(simple)
  // b under a: 2 + 4 = 6; a: 6; main: 1 + 6 + 3 = 10.
  assert.deepEqual([...M.totals(t, 0)], [10, 6, 6, 3, 4])
})

test('a function total counts a recursive call once, its self every time', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0)
  const k = M.childIndex(t, 'heavy', total, null)
  const f = M.functions(simple, t, k, t.self[0], total, null)
  // b: outermost nodes 2 (6) and 3 (3) = 9, not 6 + 4 + 3; self 2 + 3 + 4 = 9.
  assert.equal(f.total[2], 9)
  assert.equal(f.self[2], 9)
  assert.equal(f.total[0], 10)
  assert.equal(f.total[1], 6)
})

test('heaviest first, or by name', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0)
  // main's children: a (6) before b (3); by name the same here, so b's: check the roots' kids.
  assert.deepEqual([...M.childIndex(t, 'heavy', total, null).kids(0)], [1, 3])
  const names = (n) => simple.strings[simple.frames[4 * t.frame[n]]]
  const swapped = M.fromProfile(profile({ names: ['main', 'z', 'y'], frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0]], nodes: [[-1, 0, 0], [0, 1, 5], [0, 2, 1]] }))
  const sn = (n) => ['main', 'z', 'y'][swapped.frame[n]]
  assert.deepEqual([...M.childIndex(swapped, 'heavy', M.totals(swapped, 0), sn).kids(0)], [1, 2])
  assert.deepEqual([...M.childIndex(swapped, 'alpha', M.totals(swapped, 0), sn).kids(0)], [2, 1])
  assert.ok(names(0) === 'main')
})

test('measured inclusive values are the totals where the source measured them', () => {
  // Dyalog: Rain measured 68.4 with 0.9 of self values below it.
  const p = profile({ names: ['Rain', 'LEAP'], frames: [[0, -1, -1, 0], [1, -1, -1, 0]], nodes: [[-1, 0, 0.8], [0, 1, 0.1]], measured: [[68.4, 0.1]] })
  assert.deepEqual([...M.totals(M.fromProfile(p), 0)], [68.4, 0.1])
})

test('lines merge into their functions as the reports merge them', () => {
  // Rain, Rain[1] (self 2) under Rain (self 1), LEAP under Rain[1], LEAP[1] (3) under LEAP; and
  // f[9] (5) of a function f that is no frame: frame 5, appended by the writer.
  const p = profile({
    names: ['Rain', 'Rain[1]', 'LEAP', 'LEAP[1]', 'f[9]', 'f'],
    frames: [[0, -1, -1, 0], [1, -1, 1, 1], [2, -1, -1, 0], [3, -1, 1, 1], [4, -1, 9, 1], [5, -1, -1, 0]],
    fn: [0, 0, 2, 2, 5, 5],
    nodes: [[-1, 0, 1], [0, 1, 2], [1, 2, 0], [2, 3, 3], [-1, 4, 5]],
    measured: [[6, 5, 3, 3, 5]],
  })
  const t = M.mergeLines(p, M.fromProfile(p))
  // Rain (1 + 2), LEAP (3) under it, f (5) a root.
  assert.deepEqual([...t.frame], [0, 2, 5])
  assert.deepEqual([...t.parent], [-1, 0, -1])
  assert.deepEqual([...t.self[0]], [3, 3, 5])
  // Spliced lines' measured values are inside their function's already: Rain stays 6.
  assert.deepEqual([...t.measured[0]], [6, 3, 5])
})

test('threads merge: their calls become roots, one path one node', () => {
  const p = profile({
    names: ['t1', 't2', 'main', 'work'],
    frames: [[0, -1, -1, 2], [1, -1, -1, 2], [2, -1, -1, 0], [3, -1, -1, 0]],
    nodes: [[-1, 0, 0], [0, 2, 1], [1, 3, 2], [-1, 1, 0], [3, 2, 4], [4, 3, 8]],
  })
  const t = M.mergeThreads(p, M.fromProfile(p))
  assert.equal(M.threadRootCount(p, M.fromProfile(p)), 2)
  const total = M.totals(t, 0)
  const roots = [...t.parent.keys()].filter((i) => t.parent[i] < 0 && p.frames[4 * t.frame[i] + 3] !== 2)
  // main: 1 + 2 + 4 + 8 = 15, once.
  assert.deepEqual(roots.map((r) => [t.frame[r], total[r]]), [[2, 15]])
})

test('upside down, a root per function where samples end, its callers below', () => {
  const t = M.invert(simple, M.fromProfile(simple)), total = M.totals(t, 0)
  const name = (n) => simple.strings[t.frame[n]]
  const at = (path) => { let x = -1; for (const f of path) x = [...t.parent.keys()].find((i) => t.parent[i] === x && name(i) === f); return x }
  // Stacks main:1, main;a;b:2, main;b:3, main;a;b;b:4: b ends 2 + 3 + 4 = 9 samples, main 1.
  assert.equal(total[at(['b'])], 9)
  assert.equal(total[at(['main'])], 1)
  assert.equal(total[at(['b', 'a'])], 2)
  assert.equal(total[at(['b', 'main'])], 3)
  assert.equal(total[at(['b', 'b'])], 4)
  assert.equal(total[at(['b', 'b', 'a', 'main'])], 4)
})

test('a search counts a node once under a matched ancestor', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0)
  const match = new Uint8Array(3); match[2] = 1
  const found = M.matchShare(simple, t, total, match)
  // b's outermost nodes: 2 (6) and 3 (3): 9 of 10; node 4 is inside node 2.
  assert.equal(found.matched, 9)
  assert.deepEqual([...found.places], [2, 3])
})

test('a sandwich gives each caller what passes through its calls, once', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  const s = M.sandwich(simple, t, k, t.self[0], total, 2)
  // b's callers: a (6), main (3); b calling itself (4) is inside a's 6, counted once there.
  assert.equal(s.callers.get(1), 6)
  assert.equal(s.callers.get(0), 3)
  assert.equal(s.callers.get(2), 4)
  assert.equal(s.own, 9)
})

test('the layout draws only the rows in view, to any depth', () => {
  // A chain of 12,000 frames: rows 11,990 to 12,000 are laid out, and the deepest is among them.
  const n = 12000
  const p = profile({ names: ['f'], frames: [[0, -1, -1, 0]], nodes: Array.from({ length: n }, (_, i) => [i - 1, 0, i === n - 1 ? 1 : 0]) })
  const t = M.fromProfile(p), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  const lay = M.layout(t, k, total, { zoom: -1, base: 1, x0: 0, x1: 1, width: 1000, first: 11990, last: 12000 })
  assert.equal(lay.depth, n + 1)
  assert.equal(lay.rects.node.length, 11)
  assert.ok(lay.rects.node.includes(n - 1))
  assert.equal(Math.max(...lay.rects.depth), n)
})

test('frames too small to draw become one sliver, with its nodes', () => {
  // main (1000) with a heavy child (990) and ten of 1 each, at 100 px: 0.1 px each, 1 px together.
  const nodes = [[-1, 0, 0], [0, 1, 990], ...Array.from({ length: 10 }, () => [0, 2, 1])]
  const p = profile({ names: ['main', 'big', 'small'], frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0]], nodes })
  const t = M.fromProfile(p), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  const lay = M.layout(t, k, total, { zoom: -1, base: 1000, x0: 0, x1: 1, width: 100, first: 0, last: 10 })
  const sliver = lay.rects.node.indexOf(-2)
  assert.ok(sliver >= 0)
  assert.equal(lay.slivers[lay.rects.sliver[sliver]].nodes.length, 10)
  assert.ok(Math.abs(lay.slivers[lay.rects.sliver[sliver]].value - 10) < 1e-9)
  assert.ok(Math.abs(lay.rects.w[sliver] - 1) < 1e-9)
  assert.ok(Math.abs(lay.rects.x[sliver] - 99) < 1e-9)
})

test("a sliver's children are a sliver below it, of their weight", () => {
  // main (1000): big (990), ten smalls of 1 (self 0.4, a leaf of 0.6 below each): at 100 px the
  // smalls are a sliver of 10 (1 px), their leaves one of 6 (0.6 px) below it.
  const nodes = [[-1, 0, 0], [0, 1, 990]]
  for (let i = 0; i < 10; i++) nodes.push([0, 2, 0.4], [nodes.length, 3, 0.6])
  const p = profile({ names: ['main', 'big', 'small', 'leaf'], frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0], [3, -1, -1, 0]], nodes })
  const t = M.fromProfile(p), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  const lay = M.layout(t, k, total, { zoom: -1, base: 1000, x0: 0, x1: 1, width: 100, first: 0, last: 10, heights: M.heights(t), self: t.self[0] })
  const values = lay.rects.node.map((n, i) => (n === -2 ? [lay.rects.depth[i], lay.slivers[lay.rects.sliver[i]].value] : null)).filter(Boolean)
  assert.deepEqual(Array.from(values, ([d, v]) => [d, Math.round(v * 1e9) / 1e9]), [[2, 10], [3, 6]])
  assert.equal(lay.depth, 4)
})

test('heights hold a tree of any depth, and its columns their values exactly', () => {
  // A chain of 70,000 nodes: the root is 69,999 levels above its leaf, past 16 bits.
  const nodes = Array.from({ length: 70000 }, (_, i) => [i - 1, 0, i === 69999 ? 3 : 0])
  const deep = M.fromProfile(profile({ names: ['f'], frames: [[0, -1, -1, 0]], nodes }))
  assert.equal(M.heights(deep)[0], 69999)
  assert.equal(M.heights(M.fromProfile(simple))[0], 3)
  // 2^24 + 1 is not a 32-bit float: its column stays 64-bit; halves are kept too.
  const big = profile({ names: ['a'], frames: [[0, -1, -1, 0]], nodes: [[-1, 0, 16777217], [0, 0, 0.5]] })
  assert.deepEqual([...M.fromProfile(big).self[0]], [16777217, 0.5])
})

test('a zoomed view of [x0, x1) scales and skips what is off screen', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  // The right half of 100 px: a (0–60 % of main) is from -100 to 20 px, b (60–90 %) 20 to 80.
  const lay = M.layout(t, k, total, { zoom: -1, base: 10, x0: 0.5, x1: 1, width: 100, first: 0, last: 10 })
  const at = (node) => lay.rects.node.indexOf(node)
  assert.ok(Math.abs(lay.rects.x[at(3)] - 20) < 1e-9 && Math.abs(lay.rects.w[at(3)] - 60) < 1e-9)
  assert.ok(Math.abs(lay.rects.x[at(1)] + 100) < 1e-9)
})

test('numbers are written in the unit the reports pick', () => {
  const ms = { kind: 'time', unit: 'ms' }
  assert.equal(M.format(68.40049487792044, ms), '68.4 ms')
  assert.equal(M.format(0.9142, ms), '914.2 µs')
  assert.equal(M.format(1500, ms), '1.5 s')
  assert.equal(M.format(1536, { kind: 'alloc', unit: 'bytes' }), '1.5 KiB')
  assert.equal(M.format(1234567, { kind: 'samples', unit: 'count' }), '1,234,567')
  assert.equal(M.pct(1, 3), '33.33 %')
  assert.equal(M.pct(1, 0), '–')
})

test('labels are cut in the middle', () => {
  assert.equal(M.cutMiddle('std::vector<int>::push_back', 11), 'std::…_back')
  assert.equal(M.cutMiddle('short', 10), 'short')
  assert.equal(M.cutMiddle('abcdef', 2), 'ab')
})

// The transforms, worked out by hand as filter.rs's tests are: a;b;c 5, a;b 1, a;d;b 2, e 3.
const filtered = profile({
  names: ['a', 'b', 'c', 'd', 'e', 'libx'],
  frames: [[0, -1, -1, 0], [1, 5, -1, 0], [2, 5, -1, 0], [3, -1, -1, 0], [4, -1, -1, 0]],
  nodes: [[-1, 0, 0], [0, 1, 1], [1, 2, 5], [0, 3, 0], [3, 1, 2], [-1, 4, 3]],
})
// Each node as `name self`, indented by depth, in node order.
function shape(P, t) {
  const depth = (i) => (t.parent[i] < 0 ? 0 : 1 + depth(t.parent[i]))
  return [...t.frame].map((f, i) => `${'  '.repeat(depth(i))}${P.strings[P.frames[4 * f]]} ${t.self[0][i]}`)
}

test('focus keeps the stacks through a function, its callers bare', () => {
  // As filter.rs's focus test: a 0 (b 1 (c 5), d 0 (b 2)); e goes.
  assert.deepEqual(shape(filtered, M.focusRow(filtered, M.fromProfile(filtered), 1)), ['a 0', '  b 1', '    c 5', '  d 0', '    b 2'])
})

test('merge into callers and drop', () => {
  // b merged: a gets b's 1, c moves up under a, d keeps b's 2; then d dropped: a 1 (c 5), e 3.
  const merged = M.mergeRow(filtered, M.fromProfile(filtered), 1)
  assert.deepEqual(shape(filtered, merged), ['a 1', '  c 5', '  d 2', 'e 3'])
  assert.deepEqual(shape(filtered, M.dropRow(filtered, merged, 3)), ['a 1', '  c 5', 'e 3'])
})

test('collapsing recursion puts inner calls into the outermost', () => {
  // a;b;a;c 4, a;b 1, a;a 2: c under the outer a, a's own 2, b keeps 1 (filter.rs's test).
  const P = profile({
    names: ['a', 'b', 'c'],
    frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0]],
    nodes: [[-1, 0, 0], [0, 1, 1], [1, 0, 0], [2, 2, 4], [0, 0, 2]],
  })
  assert.deepEqual(shape(P, M.collapseRecursion(P, M.fromProfile(P), 0)), ['a 2', '  b 1', '  c 4'])
  // a;b;a;c 3, a;d 1 (the CLI test's): b held only the inner a, and goes with it: a (c 3, d 1).
  const Q = profile({
    names: ['a', 'b', 'c', 'd'],
    frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0], [3, -1, -1, 0]],
    nodes: [[-1, 0, 0], [0, 1, 0], [1, 0, 0], [2, 2, 3], [0, 3, 1]],
  })
  assert.deepEqual(shape(Q, M.collapseRecursion(Q, M.fromProfile(Q), 0)), ['a 0', '  c 3', '  d 1'])
})

test('a module collapses into one frame', () => {
  // b and c are libx's: a;b;c is a;libx, with 1 + 5; a;d;b is a;d;libx 2.
  const P = structuredClone(filtered)
  P.frames.push(5, 5, -1, 0)
  const t = M.collapseModule(P, M.fromProfile(P), 5, 5)
  assert.deepEqual(shape(P, t), ['a 0', '  libx 6', '  d 0', '    libx 2', 'e 3'])
})

test('transforms keep measured values less what went', () => {
  // Measured a 20, b 6.5, c 5, d 2.25, b 2, e 3 (filter.rs's test): ignoring c leaves a 15, b 1.5.
  const P = profile({
    names: ['a', 'b', 'c', 'd', 'e'],
    frames: [[0, -1, -1, 0], [1, -1, -1, 0], [2, -1, -1, 0], [3, -1, -1, 0], [4, -1, -1, 0]],
    nodes: [[-1, 0, 0], [0, 1, 1], [1, 2, 5], [0, 3, 0], [3, 1, 2], [-1, 4, 3]],
    metrics: [{ name: 'time', kind: 'time', unit: 'ms', additive: true }],
    measured: [[20, 6.5, 5, 2.25, 2, 3]],
  })
  assert.deepEqual([...M.dropRow(P, M.fromProfile(P), 2).measured[0]], [15, 1.5, 2.25, 2, 3])
  assert.deepEqual([...M.focusRow(P, M.fromProfile(P), 3).measured[0]], [2.25, 2.25, 2])
})

test('the call tree shows what is expanded, heaviest first', () => {
  const t = M.fromProfile(simple), total = M.totals(t, 0), k = M.childIndex(t, 'heavy', total, null)
  // Nothing expanded: the root; main expanded: a (6) then b (3); a expanded too: its b.
  assert.deepEqual([...M.treeRows(k, new Set(), 100).node], [0])
  const open = M.treeRows(k, new Set([0]), 100)
  assert.deepEqual([[...open.node], [...open.depth], open.more], [[0, 1, 3], [0, 1, 1], false])
  assert.deepEqual([...M.treeRows(k, new Set([0, 1]), 100).node], [0, 1, 2, 3])
  assert.equal(M.treeRows(k, new Set([0, 1]), 2).more, true)
  // The heaviest path while a node holds half of the 10: main (10), a (6), b under a (6), its b (4 < 5).
  assert.deepEqual([...M.heaviestPath(k, total, 10, 0.5)], [0, 1, 2])
})

// A thread root T (node 0) with main (1) → a (2), main → b (3): samples at 0 ns in a, 10 in a, 20
// in b, 30 in main, each to the next (the last as long as the gap before it: 30 to 40).
const timed = profile({
  names: ['T', 'main', 'a', 'b'],
  frames: [[0, -1, -1, 2], [1, -1, -1, 0], [2, -1, -1, 0], [3, -1, -1, 0]],
  nodes: [[-1, 0, 0], [0, 1, 1], [1, 2, 2], [1, 3, 1]],
})
const samples = { end: 40, sampleTimes: [0, 10, 20, 30], sampleNodes: [2, 2, 3, 1], sampleWeights: [1, 1, 1, 1], sliceStarts: [], sliceEnds: [], sliceNodes: [] }

test('the time chart merges a frame over consecutive samples into one box', () => {
  const b = M.timeRuns(samples, M.fromProfile(timed))
  const boxes = [...b.node].map((n, i) => [n, b.depth[i], b.start[i], b.end[i]]).sort((x, y) => x[2] - y[2] || x[1] - y[1])
  // main from 0 to 40 (depth 0), a from 0 to 20 and b from 20 to 30 (depth 1); all in T's lane.
  assert.deepEqual(boxes, [[1, 0, 0, 40], [2, 1, 0, 20], [3, 1, 20, 30]])
  assert.deepEqual([...new Set(b.root)], [0])
})

test('a range keeps the part of each node taken in it', () => {
  const t = M.fromProfile(timed)
  // From 5 to 25: a's sample at 10 (one of its two: self 1 of 2), b's at 20 (all: 1), not main's.
  const cut = M.withinTime(samples, t, 5, 25)
  assert.deepEqual([...cut.self[0]], [0, 0, 1, 1])
  // Slices: main 0..40, a 5..15 inside it; from 10 to 20: a's own 5 of its 10, main's own 5 of 30.
  const slices = { end: 40, sampleTimes: [], sampleNodes: [], sampleWeights: [], sliceStarts: [0, 5], sliceEnds: [40, 15], sliceNodes: [1, 2] }
  const byTime = profile({ names: timed.strings, frames: [[0, -1, -1, 2], [1, -1, -1, 0], [2, -1, -1, 0]], nodes: [[-1, 0, 0], [0, 1, 30], [1, 2, 10]] })
  assert.deepEqual([...M.withinTime(slices, M.fromProfile(byTime), 10, 20).self[0]], [0, 5, 5])
})

console.log(`html model: ${passed} tests pass${process.exitCode ? ', some fail' : ''}`)
