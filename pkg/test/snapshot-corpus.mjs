// For turns.test.js, in a process of its own (a process uses one of the package's two
// modules): the whole package builds the corpus's catalogue with the options given, and
// writes to OUT its snapshot under KEY and what it answers for each message.
//   node test/snapshot-corpus.mjs CORPUS KEY OPTIONS_JSON MESSAGES_JSON OUT
import { Skillwire } from 'skillwire';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [corpus, key, options, messagesFile, out] = process.argv.slice(2);
const find = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? find(join(d, e.name)) : e.name === 'SKILL.md' ? [join(d, e.name)] : []).sort();
const source = { list: () => find(corpus), read: (p) => readFileSync(p, 'utf8') };
const sw = new Skillwire({ sources: [source], ...JSON.parse(options) });
const messages = JSON.parse(readFileSync(messagesFile, 'utf8'));
writeFileSync(join(out, 'snapshot.bin'), sw.snapshot(key));
let restore = 'restored';
try {
  Skillwire.restore(new Uint8Array(4), {});
} catch (e) {
  restore = e.code;
}
writeFileSync(join(out, 'whole.json'), JSON.stringify({
  injections: messages.map((m) => sw.injectSync(m)),
  matches: messages.map((m) => sw.matchSync(m)),
  catalog: sw.catalogSync(),
  catalogFor: sw.catalogForSync(messages[0], { featured: 5 }),
  complete: sw.complete('pd'),
  report: sw.report(),
  restore,
}));
