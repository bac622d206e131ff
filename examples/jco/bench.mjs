// Per-call cost of the jco host: median microseconds of `match` and `inject` over the
// development messages, each turn into the transpiled component and back.
//
//   node bench.mjs [SKILLS] [MESSAGES.jsonl] [ROUNDS]   (defaults: ../shared/corpus, ../shared/queries/dev.jsonl, 20)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Skillwire, folderSource } from './skillwire-jco.mjs';

const shared = fileURLToPath(new URL('../../../shared/', import.meta.url));
const [skills = `${shared}corpus`, file = `${shared}queries/dev.jsonl`, rounds = '20'] = process.argv.slice(2);
const messages = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).q);
let started = performance.now();
const sw = new Skillwire([folderSource(skills)]);
console.log(`load: ${sw.report().loaded} skills in ${((performance.now() - started) / 1000).toFixed(2)} s`);
for (const op of ['match', 'inject']) {
  for (const m of messages) sw[op](m);
  const times = [];
  for (let r = 0; r < Number(rounds); r++) {
    for (const m of messages) {
      started = performance.now();
      sw[op](m);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  console.log(`${op}: median ${Math.round(times[times.length >> 1] * 1000)} µs over ${times.length} turns`);
}
