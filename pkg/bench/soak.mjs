// Soak test of the npm package under Node: a million turns over the corpus with the
// heap sampled along the way. Not part of CI.
//
//   node --expose-gc pkg/bench/soak.mjs [TURNS=1000000]
//
// Every twentieth of the run prints the turn count and, after a full collection, the
// JS heap in use, the WebAssembly memory (`memoryBytes()`) and the resident set. Memory is flat when the last sample is within a few percent of the
// one taken after warm-up (a tenth of the run); the last line says which.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Skillwire, memoryBytes } from '../lib/node.js';

const root = new URL('../../', import.meta.url).pathname;
// The real packs and labelled messages: third-party data kept outside the repository.
const shared = process.env.SKILLWIRE_SHARED ?? join(root, '../shared');
const turns = Number(process.argv[2] ?? 1_000_000);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name === 'SKILL.md') files.push(path);
  }
})(join(shared, 'corpus'));
const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const messages = readFileSync(join(shared, 'queries/dev.jsonl'), 'utf8')
  .split('\n').filter(Boolean).map((l) => JSON.parse(l).q);

const sw = new Skillwire({
  sources: [{ list: () => files.map((location) => ({ location, text: texts.get(location) })), read: (l) => texts.get(l) }],
});
const every = Math.max(1, Math.floor(turns / 20));
const samples = [];
const mb = (n) => (n / 1e6).toFixed(1).padStart(8) + ' M';
console.log(`${'turns'.padStart(9)}  ${'heap'.padStart(10)}  ${'wasm'.padStart(10)}  ${'resident'.padStart(10)}  µs/turn`);
let injected = 0;
let last = performance.now();
const started = last;
// The dev messages in turn; every tenth with a word no turn had before (the stems the
// module remembers fill up and start again), every thousandth repeated past 16 KiB (the
// buffers it keeps for messages are let go after one): what it keeps stays bounded.
function soakMessage(turn) {
  const message = messages[turn % messages.length];
  if (turn % 1000 === 0) return `${message} `.repeat(Math.floor((17 * 1024) / (message.length + 1)) + 1);
  return turn % 10 === 0 ? `${message} zq${turn}` : message;
}
for (let turn = 1; turn <= turns; turn++) {
  const message = soakMessage(turn);
  const out = sw.injectSync(message, turn % 2 === 0 ? { recent: ['pdf'] } : undefined);
  injected += out.text.length;
  if (turn % every === 0) {
    const perTurn = ((performance.now() - last) * 1000) / every;
    globalThis.gc?.();
    const m = process.memoryUsage();
    samples.push({ turn, heap: m.heapUsed, wasm: memoryBytes(), rss: m.rss });
    console.log(`${String(turn).padStart(9)}  ${mb(m.heapUsed)}  ${mb(memoryBytes())}  ${mb(m.rss)}  ${perTurn.toFixed(1).padStart(7)}`);
    last = performance.now();
  }
}
const warm = samples[Math.floor(samples.length / 10)];
const end = samples[samples.length - 1];
const growth = (a, b) => ((b - a) / a) * 100;
const flat = growth(warm.heap, end.heap) < 5 && growth(warm.wasm, end.wasm) <= 0;
console.log(`node: ${turns} turns in ${((performance.now() - started) / 1000).toFixed(1)} s (${injected} characters injected); `
  + `from turn ${warm.turn} to ${end.turn}: heap ${growth(warm.heap, end.heap).toFixed(1)}%, `
  + `wasm ${growth(warm.wasm, end.wasm).toFixed(1)}%, resident ${growth(warm.rss, end.rss).toFixed(1)}% — `
  + (flat ? 'flat' : 'GROWING') + (globalThis.gc ? '' : ' (run with --expose-gc for exact heap figures)'));
sw.free();
