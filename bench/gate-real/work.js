// A workload for measuring diff's gate on real recordings (bench/gate-real/run.sh): functions of
// different kinds of work (loops, sorting, formatting, maps, allocation) under `node --cpu-prof`.
// `node work.js ROUNDS [FACTOR]`: render does FACTOR times its work (the regression to catch).
'use strict';
let sink = 0;
const kept = [];
function mix(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; }
function parse() {
  const counts = new Map();
  for (const w of 'alpha beta gamma delta '.repeat(2000).split(' ')) counts.set(w, (counts.get(w) || 0) + 1);
  sink += counts.size + mix(300000);
}
function sortValues() {
  const values = Array.from({ length: 20000 }, (_, i) => (mix(i % 40) ^ Math.imul(i, 2654435761)) | 0);
  values.sort((a, b) => a - b);
  sink += values[10000];
}
function render(factor) {
  let out = '';
  for (let i = 0; i < Math.floor(4000 * factor); i++) out += `${i}: ${(i * 0.5).toFixed(6)} row\n`;
  kept.push(out.slice(0, 1024));
  sink += out.length + mix(Math.floor(200000 * factor));
}
function compress() {
  const buffer = new Uint8Array(65536);
  for (let i = 0; i < buffer.length; i++) buffer[i] = i >> 6;
  let runs = 0;
  for (let round = 0; round < 10; round++) for (let i = 1; i < buffer.length; i++) if (buffer[i] !== buffer[i - 1]) runs++;
  sink += runs;
}
function allocate() {
  for (let i = 0; i < 2000; i++) { const block = new Array(16 + (i * 37) % 400).fill(i); if (i % 100 === 0) kept.push(block); }
  if (kept.length > 400) kept.splice(0, 200);
}
const rounds = Number(process.argv[2]);
const factor = Number(process.argv[3] || 1);
for (let r = 0; r < rounds; r++) { parse(); sortValues(); render(factor); compress(); allocate(); }
