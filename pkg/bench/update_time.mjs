// Hot updates in Node: what taking one changed skill costs through the npm package, over
// an in-memory source of a folder's SKILL.md files that stamps each entry (as a host whose
// files carry a version or a digest would), against refreshing the whole catalogue.
//   node pkg/bench/update_time.mjs SKILLS [RUNS=10]
//   node pkg/bench/update_time.mjs /tmp/bench/skills-10000
// Each figure is the median of RUNS; the skill changed is the middle one of the listing.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { skillFiles } from './skill_files.mjs';

const [root, runsArg = '10'] = process.argv.slice(2);
if (!root) throw new Error('usage: node pkg/bench/update_time.mjs SKILLS [RUNS]');
const runs = Number(runsArg);
const { Skillwire } = await import('../lib/node.js');

// Location -> { text, stamp, gone }; a change gives the entry a new stamp, a deletion
// leaves it out of the listing (in its place, for when it comes back).
const files = new Map(skillFiles(root).map((location) => [location, { text: readFileSync(location, 'utf8'), stamp: 0 }]));
const source = {
  list: () => [...files].filter(([, f]) => !f.gone).map(([location, f]) => ({ location, stamp: String(f.stamp) })),
  read: (location) => files.get(location).text,
};
const sw = new Skillwire({ sources: [source] });
const locations = [...files.keys()];
const middle = locations[Math.floor(locations.length / 2)];
const original = files.get(middle).text;
if (!/^description: /m.test(original)) throw new Error(`${middle}: no one-line description to edit`);

/** Gives the middle skill `text` and a new stamp; the entry `update` takes. */
function change(text) {
  const file = files.get(middle);
  file.text = text;
  file.stamp += 1;
  return { location: middle, stamp: String(file.stamp), text };
}
const bodyEdit = (i) => `${original}\nEdited ${i}.\n`;
const descriptionEdit = (i) => original.replace(/^description: /m, `description: edited${i} `);

/** How long `call` takes, in ms. */
function timed(call) {
  const t = performance.now();
  call();
  return performance.now() - t;
}
const medianOf = (times) => times.sort((a, b) => a - b)[Math.floor((times.length - 1) / 2)];
const print = (what, times) => console.log(`${what.padEnd(48)} ${medianOf(times).toFixed(2).padStart(9)} ms`);

const rows = [
  ['refreshSync(), nothing changed', () => sw.refreshSync()],
  ['a body edit, refreshSync()', (i) => { change(bodyEdit(i)); sw.refreshSync(); }],
  ['a body edit, updateSync() with its text', (i) => sw.updateSync(0, change(bodyEdit(i)))],
  ['a description edit, refreshSync()', (i) => { change(descriptionEdit(i)); sw.refreshSync(); }],
  ['a description edit, updateSync() with its text', (i) => sw.updateSync(0, change(descriptionEdit(i)))],
];
console.log(`${sw.report().loaded} skills, the middle one changed; medians of ${runs}`);
for (const [what, each] of rows) {
  // One call first: the first update after a build indexes the catalogue's report.
  each(runs);
  print(what, Array.from({ length: runs }, (_, i) => timed(() => each(i))));
}
// A deletion, then the skill back: each time through `removeSync` and through a refresh.
change(original);
sw.refreshSync();
const [removed, added, refreshedOut] = [[], [], []];
for (let i = 0; i < runs; i++) {
  removed.push(timed(() => {
    if (!sw.removeSync(0, middle)) throw new Error('removeSync refreshed: the entry could not be taken out in place');
  }));
  added.push(timed(() => sw.refreshSync()));
  files.get(middle).gone = true;
  refreshedOut.push(timed(() => sw.refreshSync()));
  files.get(middle).gone = false;
  sw.refreshSync();
}
print('a deletion, removeSync()', removed);
print('a deletion, refreshSync()', refreshedOut);
print('an addition, refreshSync()', added);
sw.free();
