// The jco host on the shared turn vectors (tests/vectors/turns/*.toml, run by the npm
// package's runner, pkg/test/vectors-core.js): every case's results equal what the native
// core gives, compared as the npm package's are (camelCase), errors by their code (the
// sentence for an error is the Rust and JS hosts' to write; WIT errors carry data). And the
// host as a user meets it: a folder of skills, the same bytes as the native command line,
// and the failure contract of sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonical, jsOptions, jsView, runCase, turns, vectorSource } from '../../pkg/test/helpers.js';
import { Skillwire, SkillwireError, folderSource, refusal } from './skillwire-jco.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const skills = fileURLToPath(new URL('../skills', import.meta.url));
// The native command line: $SKILLWIRE_CLI, the debug build, or the one on PATH.
const cli = process.env.SKILLWIRE_CLI ?? (existsSync(`${repo}/target/debug/skillwire`) ? `${repo}/target/debug/skillwire` : 'skillwire');

/** The npm package's API (what `runCase` calls) over the jco host. */
function npmShaped(sw) {
  const answer = (run) => {
    try {
      return run();
    } catch (e) {
      // runCase records `{error: code, message}`: the message carries the data here.
      if (e instanceof SkillwireError) throw Object.assign(new Error(JSON.stringify(e.data)), { code: e.code });
      throw e;
    }
  };
  const turnOf = ({ recent, embedding, selected } = {}) => ({ recent, embedding, selected });
  return {
    report: () => sw.report(),
    catalogSync: ({ format, budget }) => sw.catalog(format, budget),
    catalogForSync: (message, o) => answer(() => sw.catalogFor(message, turnOf(o), o.featured, o.format, o.budget)),
    complete: (typed, limit) => sw.complete(typed, limit),
    selectPromptSync: (message, { stats = [], turn, ...options }) => answer(() => {
      const defaults = sw.api.defaults().select;
      const counts = { selected: 0, applied: 0, completed: 0, fellBack: 0 };
      return sw.selectPrompt(message, turnOf(turn), stats.map((s) => ({ ...counts, ...s })), { ...defaults, ...options });
    }),
    selectParse: (reply, max) => answer(() => sw.selectParse(reply, max)),
    injectSelectedSync: (message, selected, turn) => answer(() => sw.inject(message, { ...turnOf(turn), selected })),
    tools: ({ exclude } = {}) => sw.tools(exclude),
    toolDefinitions: (provider, { exclude } = {}) => sw.toolDefinitions(provider, exclude),
    filesSync: (skill) => answer(() => sw.files(skill)),
    readFileSync: (skill, path) => answer(() => sw.readFile(skill, path)),
    answerReadFileSync: (call) => sw.answerReadFile(call),
    setEmbeddings: (vectors) => answer(() => sw.setEmbeddings(Array.isArray(vectors) ? vectors : Object.entries(vectors))),
    matchSync: (message, turn) => answer(() => sw.match(message, turn)),
    injectSync: (message, turn) => answer(() => sw.inject(message, turn)),
  };
}

/** The errors that carry sizes: (bytes, limit), and for a file its path first. */
const SIZED = new Set(['file_too_large', 'message_too_large', 'reply_too_large']);

/** `value` with every recorded error (`{error, message}`) reduced to its code and, for the
 * errors that carry sizes, the numbers of its message: the expected sentence's must be
 * those of the host's data (which `npmShaped` gives as the message). */
function codesOnly(value) {
  if (Array.isArray(value)) return value.map(codesOnly);
  if (value === null || typeof value !== 'object') return value;
  if ('error' in value && 'message' in value && Object.keys(value).length === 2) {
    if (!SIZED.has(value.error)) return { error: value.error };
    const sizes = [...value.message.matchAll(/\b\d+\b/g)].map((m) => Number(m[0]));
    return { error: value.error, sizes: sizes.sort((a, b) => a - b) };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, codesOnly(v)]));
}

test('jco: every turn vector gives what the native core gives', async () => {
  const failing = [];
  for (const c of turns.cases) {
    const options = Object.fromEntries(Object.entries(jsOptions(c.options)).filter(([, v]) => v !== undefined));
    const sw = new Skillwire(c.sources.map((s) => vectorSource(s)), options);
    const got = codesOnly(await runCase(npmShaped(sw), c, false));
    if (canonical(got) !== canonical(codesOnly(jsView(c.expect)))) failing.push(`${c.name}\n  got  ${canonical(got)}\n  want ${canonical(codesOnly(jsView(c.expect)))}`);
  }
  assert.deepEqual(failing, []);
});

test('jco: a folder of skills gives the bytes the native command line gives', () => {
  const message = 'write release notes for 2.0 from these merged PRs';
  const sw = new Skillwire([folderSource(skills)]);
  const native = execFileSync(cli, ['--engine', 'native', 'inject', '--skills', skills, message], { encoding: 'utf8' });
  assert.equal(`${sw.inject(message).userMessage}\n`, native);
  assert.equal(sw.report().loaded, 4);
  assert.equal(typeof sw.readFile('release-notes', 'SKILL.md').size, 'number');
  assert.throws(() => sw.readFile('release-notes', '../csv-cleanup/SKILL.md'), { code: 'invalid_path' });
  assert.throws(() => sw.inject('x'.repeat(sw.api.defaultOptions().limits.maxMessageBytes + 1)), { code: 'message_too_large' });
});

test('jco: a source that throws is its err; a trap needs a rebuild', () => {
  const pdf = '---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n';
  let read = () => { throw new Error('disk on fire'); };
  const source = { list: () => [{ location: 's/pdf/SKILL.md', text: pdf }], read: (l) => read(l) };
  const sw = new Skillwire([source]);
  const decision = sw.inject('@pdf').decisions[0];
  assert.deepEqual([decision.skipped, decision.detail], ['body-unavailable', 'disk on fire']);
  // An answer the import cannot lower (a number for a string) aborts the call, unwinding
  // the guest without its clean-up: the host rebuilds before going on.
  read = () => 42;
  assert.throws(() => sw.inject('@pdf'), TypeError);
  read = () => pdf;
  sw.rebuild();
  assert.equal(sw.inject('@pdf').decisions[0].injectedBytes > 0, true);
});

test('jco: a size past u32 is listed as the largest, not wrapped', () => {
  const pdf = '---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n';
  const source = {
    list: () => [{ location: 's/pdf/SKILL.md', text: pdf }],
    read: () => pdf,
    listFiles: () => [{ path: 'SKILL.md', size: pdf.length }, { path: 'assets/huge.bin', size: 2 ** 32 + 5 }],
  };
  const sizes = Object.fromEntries(new Skillwire([source]).files('pdf').files.map((f) => [f.path, f.size]));
  assert.equal(sizes['assets/huge.bin'], 2 ** 32 - 1);
});


test('jco: a refresh reads what changed or failed, keeps refusals, and wants string stamps', () => {
  const reads = [];
  let stamp = '1';
  const source = {
    list: () => ['pdf', 'huge', 'flaky'].map((name) => ({ location: `s/${name}/SKILL.md`, stamp })),
    read: (location) => {
      reads.push(location);
      if (location.includes('huge')) throw refusal('SKILL.md is 9000000 bytes');
      if (location.includes('flaky')) throw new Error('connection reset');
      return '---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n';
    },
  };
  const sw = new Skillwire([source]);
  const skipped = sw.report().skipped;
  assert.deepEqual(skipped.map((s) => [s.location, s.reason, s.diagnostics.map((d) => d.code)]), [
    ['s/huge/SKILL.md', 'SKILL.md is 9000000 bytes', ['unreadable']],
    ['s/flaky/SKILL.md', 'connection reset', []],
  ]);
  sw.refresh();
  assert.deepEqual(reads.slice(3), ['s/flaky/SKILL.md'], 'the refusal is kept; the failure may pass');
  stamp = '2';
  sw.refresh();
  assert.deepEqual(reads.slice(4), ['s/pdf/SKILL.md', 's/huge/SKILL.md', 's/flaky/SKILL.md']);
  stamp = 5;
  sw.refresh();
  assert.equal(sw.report().loaded, 0);
  assert.match(sw.report().skipped[0].reason, /s\/pdf\/SKILL\.md: stamp is number, not a string/);
});

test('jco: a refresh over a folder finds added and removed skills and reads what changed', () => {
  const folder = mkdtempSync(join(tmpdir(), 'skillwire-jco-'));
  const write = (name, description) => {
    mkdirSync(join(folder, name), { recursive: true });
    writeFileSync(join(folder, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
  };
  try {
    write('csv', 'Clean CSV exports.');
    write('pdf', 'Fill PDF forms.');
    const source = folderSource(folder, { settleMs: 0 });
    const reads = [];
    const read = source.read;
    source.read = (location) => (reads.push(location.split(sep).at(-2)), read(location));
    const sw = new Skillwire([source]);
    assert.deepEqual(reads.toSorted(), ['csv', 'pdf']);
    sw.refresh();
    assert.equal(reads.length, 2, 'nothing changed, nothing read');
    write('notes', 'Write release notes.');
    write('csv', 'Clean CSV exports and spreadsheets.');
    rmSync(join(folder, 'pdf'), { recursive: true });
    sw.refresh();
    assert.deepEqual(reads.slice(2).toSorted(), ['csv', 'notes']);
    assert.equal(sw.report().loaded, 2);
    assert.match(sw.catalog().text, /spreadsheets/);
    assert.doesNotMatch(sw.catalog().text, /PDF/);
    // Changed within `settleMs`: listed without a stamp (read at every refresh).
    assert.deepEqual(folderSource(folder, { settleMs: 3_600_000.5 }).list().map((e) => e.stamp), [undefined, undefined]);
    // Only what it listed is read through it.
    assert.throws(() => source.read(join(folder, 'pdf', 'SKILL.md')), /not a skill of this source/);
    // A root that is gone fails the listing, which the report says (not an empty folder).
    rmSync(folder, { recursive: true });
    assert.throws(() => source.list(), /ENOENT/);
    sw.refresh();
    assert.match(sw.report().skipped[0].reason, /source 0 could not list its skills/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('jco: the folder source refuses a SKILL.md that is not UTF-8', () => {
  const folder = mkdtempSync(join(tmpdir(), 'skillwire-jco-'));
  try {
    mkdirSync(join(folder, 'latin1'));
    writeFileSync(join(folder, 'latin1', 'SKILL.md'), Buffer.from('---\nname: latin1\ndescription: Caf\xe9.\n---\n', 'latin1'));
    const [skipped] = new Skillwire([folderSource(folder)]).report().skipped;
    assert.match(skipped.reason, /not valid UTF-8/);
    assert.deepEqual(skipped.diagnostics.map((d) => d.code), ['unreadable']);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** Skills in memory, each listed with a stamp that changes with its text; reads and
 * listings counted. */
function memorySkills(texts) {
  const source = {
    texts: { ...texts },
    stamps: Object.fromEntries(Object.keys(texts).map((location) => [location, '1'])),
    reads: [],
    listings: 0,
    edit(location, text) {
      source.texts[location] = text;
      source.stamps[location] = String(Number(source.stamps[location] ?? 0) + 1);
      return { location, stamp: source.stamps[location] };
    },
    list() {
      source.listings += 1;
      return Object.keys(source.texts).sort().map((location) => ({ location, stamp: source.stamps[location] }));
    },
    read(location) {
      source.reads.push(location);
      return source.texts[location];
    },
  };
  return source;
}

const skillMd = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** The engine's report, catalogue and turns are those of an engine built over the source as
 * it is now. */
function assertSameAsBuilt(sw, source) {
  const built = new Skillwire([memorySkills(source.texts)]);
  assert.deepEqual(sw.report(), built.report());
  assert.deepEqual(sw.catalog(), built.catalog());
  for (const message of ['fill the tax form in this pdf', 'clean up this csv export', 'draft the release notes', '@notes']) {
    assert.deepEqual(sw.inject(message), built.inject(message), message);
  }
}

test('jco: an edit or a deletion is taken without listing the sources', () => {
  const source = memorySkills({
    's/csv/SKILL.md': skillMd('csv', 'Clean CSV exports.', 'Trim the columns.'),
    's/notes/SKILL.md': skillMd('notes', 'Write release notes.', 'Group the merged PRs.'),
    's/pdf/SKILL.md': skillMd('pdf', 'Fill PDF forms.', 'Use the form fields.'),
  });
  const sw = new Skillwire([source]);
  assert.equal(source.listings, 1);
  // A body edit: in place, the one file read.
  const edited = source.edit('s/pdf/SKILL.md', skillMd('pdf', 'Fill PDF forms.', 'Flatten the form after filling it.'));
  assert.equal(sw.update(0, edited), true);
  assert.deepEqual(source.reads.slice(3), ['s/pdf/SKILL.md']);
  assert.match(sw.inject('fill the tax form in this pdf').text, /Flatten the form/);
  assertSameAsBuilt(sw, source);
  // A description edit, its text at hand: the indexes made again, nothing read.
  const text = skillMd('csv', 'Clean CSV exports and spreadsheet tabs.', 'Trim the columns.');
  const { stamp } = source.edit('s/csv/SKILL.md', text);
  const reads = source.reads.length;
  assert.equal(sw.update(0, { location: 's/csv/SKILL.md', stamp, text }), false);
  assert.equal(source.reads.length, reads);
  assert.match(sw.catalog().text, /spreadsheet tabs/);
  assertSameAsBuilt(sw, source);
  // A deletion: taken out in place.
  delete source.texts['s/notes/SKILL.md'];
  assert.equal(sw.remove(0, 's/notes/SKILL.md'), true);
  assert.equal(sw.report().loaded, 2);
  assertSameAsBuilt(sw, source);
  assert.equal(source.listings, 1, 'no change above listed the sources');
  // An unknown source is the caller's mistake, not a reason to refresh.
  for (const call of [() => sw.update(1, edited), () => sw.remove(-1, 's/pdf/SKILL.md'), () => sw.remove(0, 7)]) {
    assert.throws(call, (e) => e instanceof SkillwireError && e.code === 'invalid_argument');
  }
  assert.throws(() => sw.update(0, { location: 's/pdf/SKILL.md', stamp: 3 }), /stamp is number, not a string/);
  assert.equal(source.listings, 1);
  // An entry the engine cannot take in place (a location it never listed): a refresh.
  const added = source.edit('s/new/SKILL.md', skillMd('new', 'Rename files in bulk.', 'Preview first.'));
  assert.equal(sw.update(0, added), false);
  assert.equal(source.listings, 2);
  assertSameAsBuilt(sw, source);
});
