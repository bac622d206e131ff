// Per-turn time of the npm package in Node, on a folder of skills and a file of
// messages (JSONL with a `q` field, or plain lines): the Node counterpart of
// `skillwire bench`, with the same warm-up, turns and figures, and how long building the
// catalogue took (bodies scanned at build, the default, or when a turn reads them; the
// source answering with each SKILL.md's text, or with its bytes as `readFileSync` gives them).
//   node pkg/bench/turn_time.mjs SKILLS MESSAGES [TURNS=2000] [inject|match] [at-build|when-read] [text|bytes]
//   node pkg/bench/turn_time.mjs ../shared/corpus ../shared/queries/dev.jsonl 4000 match
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { skillFiles } from './skill_files.mjs';

const [root, messagesPath, turnsArg = '2000', op = 'inject', scanBodies = 'at-build', answer = 'text'] = process.argv.slice(2);
if (!root || !messagesPath) {
  throw new Error('usage: node pkg/bench/turn_time.mjs SKILLS MESSAGES [TURNS] [inject|match] [at-build|when-read] [text|bytes]');
}
if (op !== 'inject' && op !== 'match') throw new Error(`op must be inject or match, not ${op}`);
if (scanBodies !== 'at-build' && scanBodies !== 'when-read') {
  throw new Error(`scanning bodies is at-build or when-read, not ${scanBodies}`);
}
if (answer !== 'text' && answer !== 'bytes') throw new Error(`a read answers with text or bytes, not ${answer}`);
const t0 = performance.now();
const { Skillwire } = await import('../lib/node.js');
const instantiate = performance.now() - t0;

const source = { list: () => skillFiles(root), read: answer === 'text' ? (p) => readFileSync(p, 'utf8') : (p) => readFileSync(p) };
const messages = readFileSync(messagesPath, 'utf8').split('\n').filter((l) => l.trim())
  .map((l) => { try { const v = JSON.parse(l); return typeof v?.q === 'string' ? v.q : l; } catch { return l; } });

let t = performance.now();
const sw = new Skillwire({ sources: [source], scanBodies });
const build = performance.now() - t;
const turn = op === 'inject' ? (m) => sw.injectSync(m) : (m) => sw.matchSync(m);
for (const m of messages) turn(m); // warm-up
const times = [];
for (let i = 0; i < Number(turnsArg); i++) {
  const m = messages[i % messages.length];
  t = performance.now();
  turn(m);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const pct = (p) => times[Math.round((times.length - 1) * p)] * 1000;
const total = times.reduce((a, b) => a + b, 0);
console.log(`engine node, ${op}, ${sw.report().loaded} skills, ${messages.length} messages, ${times.length} turns`);
console.log(`module import ${instantiate.toFixed(1)} ms, catalogue built in ${build.toFixed(1)} ms (bodies scanned ${scanBodies}, read as ${answer})`);
console.log(`per turn: p50 ${pct(0.5).toFixed(2)} µs, p99 ${pct(0.99).toFixed(2)} µs, mean ${(total / times.length * 1000).toFixed(2)} µs`);
console.log(`${Math.round(times.length / (total / 1000))} turns/s`);
