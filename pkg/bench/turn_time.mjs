// Per-turn time of the npm package in Node on a folder of skills and a file of messages
// (JSONL with a `q` field, or plain lines); the Node counterpart of
// `cargo run --release -p skillwire-host --example turn_time`.
//   node pkg/bench/turn_time.mjs tests/corpus tests/queries/dev.jsonl 100
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [root = 'tests/corpus', messagesPath = 'tests/queries/dev.jsonl', roundsArg = '100'] = process.argv.slice(2);
const t0 = performance.now();
const { Skillwire } = await import('../index.js');
const instantiate = performance.now() - t0;

function find(dir, depth = 0) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory() && depth < 8) out.push(...find(p, depth + 1));
    else if (e.isFile() && e.name === 'SKILL.md') out.push(p);
  }
  return out.sort();
}
const source = { list: () => find(root), read: (p) => readFileSync(p, 'utf8') };
const messages = readFileSync(messagesPath, 'utf8').split('\n').filter((l) => l.trim())
  .map((l) => { try { return JSON.parse(l).q ?? l; } catch { return l; } });

let t = performance.now();
const sw = new Skillwire({ sources: [source] });
const build = performance.now() - t;
const times = [];
for (let r = 0; r < Number(roundsArg); r++) {
  for (const m of messages) {
    t = performance.now();
    sw.injectSync(m);
    times.push(performance.now() - t);
  }
}
times.sort((a, b) => a - b);
const pct = (p) => times[Math.round((times.length - 1) * p)] * 1000;
console.log(`skills: ${sw.report().loaded} | turns: ${times.length}`);
console.log(`module instantiate (import) ${instantiate.toFixed(1)} ms | catalogue build ${build.toFixed(1)} ms`);
console.log(`inject per turn: p50 ${pct(0.5).toFixed(2)} µs, p99 ${pct(0.99).toFixed(2)} µs`);
