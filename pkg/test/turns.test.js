// `skillwire/turns`: the turn path's module alone. A catalogue built and snapshotted by the
// whole package (in another process: a page or process uses one of the two modules)
// restores here and gives the same turns, in Node and in a page in Chromium; what the
// module leaves out says so; snapshots of other keys, options or bytes are refused.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../demo/serve.mjs';
import { Skillwire } from 'skillwire/turns';

const corpus = new URL('../../../shared/corpus/', import.meta.url).pathname;
const messages = readFileSync(new URL('../../../shared/queries/dev.jsonl', import.meta.url), 'utf8')
  .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).q);
const OPTIONS = { budget: 12000, rank: { maxRanked: 2 } };

// The whole package, in a process of its own (test/snapshot-corpus.mjs).
const dir = mkdtempSync(join(tmpdir(), 'skillwire-turns-'));
writeFileSync(join(dir, 'messages.json'), JSON.stringify(messages));
execFileSync(process.execPath, [new URL('snapshot-corpus.mjs', import.meta.url).pathname, corpus, 'corpus-v1',
  JSON.stringify(OPTIONS), join(dir, 'messages.json'), dir]);
const snapshot = new Uint8Array(readFileSync(join(dir, 'snapshot.bin')));
const whole = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'));
rmSync(dir, { recursive: true, force: true });

// Bodies are read through the source as in the whole package; listing is never asked.
const read = new Map();
const source = {
  list: () => { throw new Error('a restored catalogue does not list'); },
  read: (location) => {
    const text = readFileSync(location, 'utf8');
    read.set(location, text);
    return text;
  },
};

test('a restored catalogue gives the turns the whole package gives', () => {
  const sw = Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v1', ...OPTIONS });
  assert.deepEqual(messages.map((m) => sw.injectSync(m)), whole.injections);
  assert.deepEqual(messages.map((m) => sw.matchSync(m)), whole.matches);
  assert.deepEqual(sw.catalogSync(), whole.catalog);
  assert.deepEqual(sw.catalogForSync(messages[0], { featured: 5 }), whole.catalogFor);
  assert.deepEqual(sw.complete('pd'), whole.complete);
  assert.deepEqual(sw.report(), whole.report);
  assert.ok(whole.injections.some((i) => i.summary.injectedBytes > 0), 'the dev messages inject skills');
  sw.free();
});

test('what the module leaves out, and snapshots it cannot use, fail with a code', () => {
  assert.equal(whole.restore, 'not_in_module', 'the whole package writes snapshots; restoring is skillwire/turns\'s');
  const sw = Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v1', ...OPTIONS });
  const code = (f) => { try { f(); } catch (e) { return e.code; } return 'no error'; };
  assert.equal(code(() => new Skillwire({ sources: [source] })), 'not_in_module');
  assert.equal(code(() => sw.refreshSync()), 'not_in_module');
  assert.equal(code(() => sw.snapshot()), 'not_in_module');
  assert.equal(code(() => sw.tools()), 'not_in_module');
  assert.equal(code(() => sw.selectParse('["pdf"]')), 'not_in_module');
  assert.equal(code(() => sw.filesSync('pdf')), 'not_in_module');
  // The catalogue still works after those.
  assert.deepEqual(sw.matchSync(messages[0]), whole.matches[0]);
  sw.free();

  assert.equal(code(() => Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v2', ...OPTIONS })),
    'snapshot_other_key');
  // Catalogue options are the snapshot's; render options (the budget) are the restorer's.
  assert.equal(code(() => Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v1', rank: false })),
    'snapshot_other_options');
  assert.equal(code(() => Skillwire.restore(snapshot.subarray(0, snapshot.length - 1),
    { sources: [source], key: 'corpus-v1', ...OPTIONS })), 'snapshot_unreadable');
  const damaged = snapshot.slice();
  damaged[damaged.length - 10] ^= 0xff;
  assert.equal(code(() => Skillwire.restore(damaged, { sources: [source], key: 'corpus-v1', ...OPTIONS })),
    'snapshot_unreadable');
  assert.equal(code(() => Skillwire.restore('not bytes', {})), 'invalid_argument');
  const budget = Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v1', ...OPTIONS, budget: 100 });
  const small = messages.map((m) => budget.injectSync(m).summary.injectedBytes);
  assert.ok(small.every((bytes) => bytes <= 100), "the restorer's budget holds");
  assert.ok(whole.injections.some((i) => i.summary.injectedBytes > 100));
});

test('every method of a restored Skillwire works or fails with a SkillwireError', async () => {
  const sw = Skillwire.restore(snapshot.buffer.slice(0), { sources: [source], key: 'corpus-v1', ...OPTIONS });
  const args = {
    setEmbeddings: [{ pdf: [1, 0] }], selectParse: ['["pdf"]'], files: ['pdf'], filesSync: ['pdf'],
    readFile: ['pdf', 'x.md'], readFileSync: ['pdf', 'x.md'], injectSelected: ['go', ['pdf']],
    injectSelectedSync: ['go', ['pdf']], toolDefinitions: ['openai'], lint: ['a/SKILL.md', 'x'],
    lintSync: ['a/SKILL.md', 'x'], complete: ['pd'],
  };
  const outcomes = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(sw))) {
    if (name === 'constructor' || name === 'free' || typeof sw[name] !== 'function') continue;
    try {
      await sw[name](...(args[name] ?? [messages[0]]));
      outcomes[name] = 'ok';
    } catch (e) {
      assert.ok(e instanceof Error && e.name === 'SkillwireError', `${name}: ${e}`);
      outcomes[name] = e.code;
    }
  }
  for (const [name, call] of [['create', () => Skillwire.create({ sources: [source] })],
    ['readFileTool', () => Skillwire.readFileTool('openai')], ['defaults', () => Skillwire.defaults()]]) {
    try {
      await call();
      outcomes[name] = 'ok';
    } catch (e) {
      assert.ok(e instanceof Error && e.name === 'SkillwireError', `${name}: ${e}`);
      outcomes[name] = e.code;
    }
  }
  for (const name of ['inject', 'injectSync', 'match', 'matchSync', 'catalog', 'catalogSync', 'catalogFor',
    'catalogForSync', 'complete', 'report', 'embeddingTexts', 'setEmbeddings', 'injectSelected', 'defaults']) {
    assert.equal(outcomes[name], 'ok', name);
  }
  for (const name of ['refresh', 'refreshSync', 'snapshot', 'files', 'filesSync', 'readFile', 'readFileSync',
    'answerReadFile', 'answerReadFileSync', 'selectPrompt', 'selectPromptSync', 'selectParse', 'tools',
    'toolDefinitions', 'lint', 'lintSync', 'create', 'readFileTool']) {
    assert.equal(outcomes[name], 'not_in_module', name);
  }
  // Embeddings are set on a restored catalogue (a snapshot keeps none, so `embed` is refused).
  assert.ok(sw.embeddingTexts().length > 100);
  assert.throws(() => Skillwire.restore(snapshot, { sources: [source], key: 'corpus-v1', ...OPTIONS, embed: () => [] }),
    { code: 'invalid_argument' });
  sw.free();
});

test('the whole package cannot load beside it, and bundlers keep the entries that provide a module', async () => {
  await assert.rejects(import('skillwire'), { code: 'module_conflict', message: /cannot be loaded beside skillwire\/turns/ });
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  for (const entry of ['node', 'browser', 'turns-node', 'turns-browser']) {
    const code = readFileSync(new URL(`../lib/${entry}.js`, import.meta.url), 'utf8');
    assert.match(code, /\bprovide\(/, entry);
    assert.ok(pkg.sideEffects.includes(`./lib/${entry}.js`), `${entry} runs provide() at import: a side effect`);
  }
});

test('a chat page restores the snapshot with skillwire/turns and runs turns (Chromium)', async () => {
  const server = await serve({});
  const profile = mkdtempSync(join(tmpdir(), 'skillwire-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // A page of the same origin that loads no skillwire of its own.
      await page.goto(`${server.url}/pkg/package.json`);
      // The bodies the turns in Node read, as the page's source would fetch them.
      const bodies = Object.fromEntries(read);
      assert.ok(read.size > 5);
      const got = await page.evaluate(async ({ bytes, bodies, messages, options }) => {
        const { init, Skillwire: Turns } = await import('/pkg/lib/turns-browser.js');
        // A load that fails (here: bytes that are no module) can be tried again.
        const failed = await init(new Uint8Array([0, 1, 2, 3])).then(() => 'loaded', (e) => e.name);
        if (failed !== 'CompileError') throw new Error(`a failed load said ${failed}`);
        await init();
        const read = async (location) => {
          if (!(location in bodies)) throw new Error(`not fetched: ${location}`);
          return bodies[location];
        };
        const sw = Turns.restore(new Uint8Array(bytes), { sources: [{ list: () => [], read }], key: 'corpus-v1', ...options });
        const out = [];
        for (const m of messages) out.push(await sw.inject(m));
        return out;
      }, { bytes: [...snapshot], bodies, messages, options: OPTIONS });
      assert.deepEqual(got, whole.injections);
      assert.deepEqual(errors, []);
      const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name));
      assert.ok(fetched.some((u) => u.endsWith('/pkg/dist/skillwire_turns_bg.wasm')), 'the page fetched the turn module');
      assert.ok(!fetched.some((u) => u.endsWith('/skillwire_wasm_bg.wasm')), 'and not the whole one');
    } finally {
      await context.close();
    }
  } finally {
    await server.close();
    // (Also when Chromium did not start or would not close.)
    rmSync(profile, { recursive: true, force: true });
  }
});
