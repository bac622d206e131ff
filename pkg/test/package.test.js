// The npm package against the shared vectors (byte for byte with the Rust runner) and
// its JS contract: sync and async sources, errors with codes, hostile sources, freeing.
// Runs under Node (`node --test`) and Deno (`deno test`).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Skillwire, SkillwireError, lint } from '../index.js';
import { canonical, conformance, jsOptions, runCase, turns, vectorSource } from './helpers.js';

for (const c of turns.cases) {
  test(`turn vector ${c.name} (sync sources)`, async () => {
    const sw = new Skillwire({ ...jsOptions(c.options), sources: c.sources.map((s) => vectorSource(s)) });
    assert.equal(canonical(await runCase(sw, c, false)), canonical(c.expect));
    sw.free();
  });
  test(`turn vector ${c.name} (async sources)`, async () => {
    const sw = await Skillwire.create({ ...jsOptions(c.options), sources: c.sources.map((s) => vectorSource(s, true)) });
    assert.equal(canonical(await runCase(sw, c, true)), canonical(c.expect));
    sw.free();
  });
}

test('conformance vectors: lint speaks the reference validator\'s words', () => {
  let ran = 0;
  for (const c of conformance.cases) {
    if (c.fs_only || typeof c.lint !== 'string') continue;
    const rel = `${c.lint}/SKILL.md`;
    const report = lint(`{ROOT}/${rel}`, c.files[rel]);
    assert.deepEqual(report.errors, c.skillwire.validate, c.case);
    ran++;
  }
  assert.ok(ran > 70, `${ran}`);
});

const pdf = '---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n';

test('errors carry codes', async () => {
  const sw = new Skillwire({ sources: [vectorSource([{ location: 's/pdf/SKILL.md', text: pdf }])] });
  assert.throws(() => sw.injectSync('x'.repeat(300 * 1024)), (e) => e instanceof SkillwireError && e.code === 'message_too_large');
  await assert.rejects(sw.inject('x'.repeat(300 * 1024)), (e) => e instanceof SkillwireError && e.code === 'message_too_large');
  assert.throws(() => sw.injectSync('@pdf', { recent: 'pdf' }), (e) => e instanceof SkillwireError && e.code === 'invalid_argument');
  const asyncOnly = { list: async () => [], read: async () => '' };
  assert.throws(() => new Skillwire({ sources: [asyncOnly] }), (e) => e.code === 'async_source');
  sw.free();
  assert.throws(() => sw.injectSync('pdf'), (e) => e.code === 'freed');
});

test('a conversation: skills still in context are not read or injected again', async () => {
  let reads = 0;
  const source = { list: () => [{ location: 's/pdf/SKILL.md', text: pdf }], read: () => { reads++; return pdf; } };
  const sw = new Skillwire({ sources: [source] });
  const first = sw.injectSync('@pdf fill this form');
  assert.equal(first.decisions[0].skipped, null);
  const again = await sw.inject('@pdf and the next one', { recent: ['PDF'] });
  assert.equal(again.decisions[0].skipped, 'recently_injected');
  assert.equal(again.decisions[0].matched, true);
  assert.equal(again.user_message, '@pdf and the next one');
  assert.equal(reads, 1);
  sw.free();
});

test('hostile sources become skipped skills, not crashed engines', async () => {
  const throwsOnList = { list() { throw new Error('no disk'); }, read() { return ''; } };
  const weird = {
    list: () => ['w/a/SKILL.md', { location: 'w/b/SKILL.md' }, { location: 'w/pdf/SKILL.md', text: pdf }],
    read: (location) => (location === 'w/a/SKILL.md' ? 42 : location === 'w/b/SKILL.md' ? null : 17),
  };
  const sw = await Skillwire.create({ sources: [throwsOnList, weird] });
  const report = sw.report();
  assert.equal(report.loaded, 1);
  assert.deepEqual(report.skipped.map((s) => s.reason), [
    'source 0 could not list its skills: no disk',
    'read() returned number, not a string',
    'read() returned null, not a string',
  ]);
  const turn = await sw.inject('@pdf');
  assert.equal(turn.decisions[0].skipped, 'body_unavailable');
  assert.equal(turn.decisions[0].detail, 'read() returned number, not a string');
  assert.equal(turn.user_message, '@pdf');
  // The engine keeps working.
  assert.equal(sw.matchSync('@pdf').matches.length, 1);
  sw[Symbol.dispose]?.();
});

test('refresh picks up changed skills', async () => {
  const skills = [{ location: 's/pdf/SKILL.md', text: pdf }];
  const sw = await Skillwire.create({ sources: [vectorSource(skills, true)] });
  skills.push({ location: 's/xlsx/SKILL.md', text: '---\nname: xlsx\ndescription: Spreadsheets.\n---\nUse openpyxl.\n' });
  await sw.refresh();
  assert.equal(sw.report().loaded, 2);
  assert.match((await sw.inject('@xlsx')).text, /Use openpyxl/);
});

test('package.json version is the crate version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const cargo = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
  const crate = /\[workspace\.package\][^[]*?version = "([^"]+)"/.exec(cargo)[1];
  assert.equal(pkg.version, crate);
});
