// The chat demo in Debian's Chromium (driven by playwright-core): what the page shows
// for the shared vectors, @-autocomplete, every vector run inside the page, and a
// screenshot kept as a test artifact (pkg/test-artifacts/demo.png).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../demo/serve.mjs';
import { turns } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

// Vector cases the page can show: one source, a message, only a budget as option.
const SHOWN = ['automatic-order-by-description-length', 'forged-delimiters-are-neutralised',
  'budget-truncates-then-exhausts', 'mention-only-skills'];

test('the chat demo in Chromium', async (t) => {
  const extraFiles = new Map();
  for (const name of SHOWN) {
    const c = turns.cases.find((x) => x.name === name);
    for (const skill of c.sources[0]) extraFiles.set(`/vector-skills/${name}/${skill.location}`, skill.text);
  }
  const server = await serve({ extraFiles });
  const profile = mkdtempSync(join(tmpdir(), 'skillwire-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  const errors = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    await t.test('shows the decisions and injected text of the vectors', async () => {
      for (const name of SHOWN) {
        const c = turns.cases.find((x) => x.name === name);
        const budget = c.options?.render?.budget ?? 8192;
        await page.goto(`${server.url}/pkg/demo/index.html?skills=/vector-skills/${name}/&budget=${budget}`);
        await page.waitForSelector('body[data-ready="true"]');
        const turnsBefore = Number(await page.getAttribute('body', 'data-turns') ?? 0);
        await page.fill('#message', c.message);
        await page.waitForFunction((n) => Number(document.body.dataset.turns) > n, turnsBefore);
        const want = c.expect.injection;
        assert.equal(await page.textContent('#injected'), want.text, name);
        const rows = await page.$$eval('#decisions tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
        assert.deepEqual(rows, want.decisions.map((d) =>
          [d.skill, d.reason, String(d.injected_bytes), d.skipped ?? (d.truncated ? 'truncated' : 'injected')]), name);
        assert.equal(await page.textContent('#budget'), `${want.summary.injected_bytes} of ${budget} bytes`);
      }
    });

    await t.test('@ autocompletes skill names', async () => {
      await page.goto(`${server.url}/pkg/demo/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.match(await page.textContent('#status'), /^4 skills loaded/);
      await page.click('#message');
      await page.keyboard.type('please check @SQ');
      await page.waitForSelector('#suggestions:not([hidden]) li[data-name="sql-review"]');
      // The suggestions are the package's `complete`, in its order.
      const offered = await page.$$eval('#suggestions li', (lis) => lis.map((li) => [li.dataset.name, li.dataset.match]));
      const expected = await page.evaluate(async () => {
        const { Skillwire } = await import('/pkg/lib/browser.js');
        const folder = new URL('/pkg/demo/skills/', location.href);
        const source = {
          list: async () => (await fetch(new URL('index.json', folder))).json(),
          read: async (path) => (await fetch(new URL(path, folder))).text(),
        };
        const sw = await Skillwire.create({ sources: [source] });
        return sw.complete('SQ', 8).map((c) => [c.name, c.match]);
      });
      assert.deepEqual(offered, expected);
      assert.deepEqual(offered[0], ['sql-review', 'prefix']);
      await page.keyboard.press('Tab');
      assert.equal(await page.inputValue('#message'), 'please check @sql-review ');
      await page.waitForSelector('#decisions tr[data-skill="sql-review"]');
      const row = await page.$$eval('#decisions tr[data-skill="sql-review"] td', (tds) => tds.map((td) => td.textContent));
      assert.deepEqual([row[0], row[1], row[3]], ['sql-review', 'mention', 'injected']);
      assert.match(await page.textContent('#injected'), /^\[SKILL:sql-review\]\n# SQL review/);
      // Not inside an e-mail address.
      await page.keyboard.type('and mail bob@co');
      assert.equal(await page.isHidden('#suggestions'), true);
      // Fuzzy: letters of a name in order.
      await page.keyboard.type(' then @cmsg');
      await page.waitForSelector('#suggestions:not([hidden]) li[data-name="commit-message"][data-match="fuzzy"]');
      await page.keyboard.press('Escape');
      mkdirSync(new URL('../test-artifacts/', import.meta.url), { recursive: true });
      await page.screenshot({ path: new URL('../test-artifacts/demo.png', import.meta.url).pathname, fullPage: true });
    });

    await t.test('an injected skill\'s files open as the read-file tool answers them', async () => {
      await page.goto(`${server.url}/pkg/demo/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.fill('#message', '@sql-review check this query');
      await page.waitForSelector('#files li[data-skill="sql-review"][data-path="references/checklist.md"]');
      await page.click('#files li[data-path="references/checklist.md"] button');
      await page.waitForFunction(() => document.getElementById('file').textContent.length > 0);
      assert.match(await page.textContent('#file'), /^# SQL review checklist\n/);
      assert.equal(await page.getAttribute('#file', 'data-error'), 'false');
      // A path out of the skill's folder is refused before anything is fetched.
      const refused = await page.evaluate(async () => {
        const { Skillwire } = await import('/pkg/lib/browser.js');
        const folder = new URL('/pkg/demo/skills/', location.href);
        const fetched = [];
        const source = {
          list: async () => (await fetch(new URL('index.json', folder))).json(),
          read: async (path) => (await fetch(new URL(path, folder))).text(),
          readFile: async (location, path) => { fetched.push(path); return (await fetch(new URL(path, new URL(location, folder)))).text(); },
        };
        const sw = await Skillwire.create({ sources: [source] });
        const answer = await sw.answerReadFile({ skill: 'sql-review', path: '../commit-message/SKILL.md' });
        return { answer, fetched };
      });
      assert.equal(refused.answer.isError, true);
      assert.match(refused.answer.content, /\(invalid_path\)$/);
      assert.deepEqual(refused.fetched, []);
    });

    await t.test('every turn vector runs inside the page', async () => {
      const failing = await page.evaluate(async (vectors) => {
        const { Skillwire } = await import('/pkg/lib/browser.js');
        const { failingCases } = await import('/pkg/test/vectors-core.js');
        return failingCases(Skillwire, vectors);
      }, turns);
      assert.deepEqual(failing, []);
    });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
