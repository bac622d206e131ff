// Skills from another MCP server: the CLI's `--mcp` (both engines) and `skillwire/mcp` (a
// source over the official MCP TypeScript SDK's client), each reading a server written with
// that SDK (skills-server.mjs) and `skillwire mcp` itself: the catalogue built from
// `skills/list` alone, bodies and files fetched on demand and checked against the listed
// digests and frontmatter, and each origin's names kept apart (`name@origin`, reported).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Skillwire } from '../lib/node.js';
import { mcpSource } from '../lib/mcp.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const binary = join(targetDir, 'debug', process.platform === 'win32' ? 'skillwire.exe' : 'skillwire');
const fixtureServer = join(here, 'skills-server.mjs');

/** What the fixture server serves: a pdf skill (whose name a local skill also has) with a
 * reference, an invoice skill, and a skill whose folder name is not its name. */
const served = [
  {
    frontmatter: { name: 'pdf', description: 'Fill PDF forms and merge PDF files.', metadata: { version: '2' } },
    body: 'Use the remote pdf tools; see references/forms.md.\n',
    files: { 'references/forms.md': '# Form fields\nUse the AcroForm names.\n' },
  },
  { frontmatter: { name: 'invoice', description: 'Draft invoices from timesheets.' }, body: 'Sum the hours per client.\n' },
  { frontmatter: { name: 'weather', description: 'Report the weather forecast for a city.' }, body: 'Ask the weather API.\n' },
];
let servedFile;
let local;

before(() => {
  execFileSync('cargo', ['build', '-q', '-p', 'skillwire-host', '--locked'], { cwd: repo, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'skillwire-mcp-source-'));
  servedFile = join(dir, 'served.json');
  writeFileSync(servedFile, JSON.stringify(served));
  local = join(dir, 'local');
  mkdirSync(join(local, 'pdf'), { recursive: true });
  writeFileSync(join(local, 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: Our own PDF skill: fill forms.\n---\nUse qpdf.\n');
});

/** The fixture server's command line, with its flags. */
const fixture = (...flags) => [process.execPath, fixtureServer, servedFile, '--name', 'acme', ...flags]
  .map((a) => `'${a}'`).join(' ');

/** Runs the CLI; its standard output parsed as JSON. */
function cli(engine, ...args) {
  const run = spawnSync(binary, ['--engine', engine, ...args], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

for (const engine of ['native', 'wasm']) {
  test(`--mcp (${engine}): a listing that fails once the server answered is said, and the other skills load`, () => {
    const run = spawnSync(binary, ['--engine', engine, 'catalog', '--format', 'json', '--skills', local,
      '--mcp', fixture('--cursor-loop')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).map((s) => s.name), ['pdf']);
    assert.match(run.stderr, /skillwire: source 1 could not list its skills: skills\/list: the cursor "2" came twice/);
  });

  test(`--mcp (${engine}): an entry that does not read is refused, and the others of its page load`, () => {
    // `invoice` shares its page with `pdf`; its resources are a number, which rmcp's types refuse.
    const run = spawnSync(binary, ['--engine', engine, 'catalog', '-v', '--format', 'json',
      '--mcp', fixture('--malformed', 'invoice')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).map((s) => s.name), ['pdf', 'weather']);
    assert.match(run.stderr, /skipped skill:\/\/invoice\/SKILL\.md: the server's listing breaks the skills extension: skill:\/\/invoice\/SKILL\.md: its resources are neither a list nor "dynamic"/);
  });

  test(`--mcp (${engine}): a URI listed twice unlike is refused each time; listed twice alike, it is one skill`, () => {
    // `invoice` listed again at the listing's end with another description, or with another
    // digest for its SKILL.md: which of the two its reads answer to cannot be told.
    for (const again of ['--twice', '--redigest']) {
      const run = spawnSync(binary, ['--engine', engine, 'catalog', '-v', '--format', 'json',
        '--mcp', fixture(again, 'invoice')], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout).map((s) => s.name), ['pdf', 'weather'], again);
      assert.deepEqual(run.stderr.match(/skipped skill:\/\/invoice\/SKILL\.md: .*/g), Array(2).fill(
        "skipped skill://invoice/SKILL.md: the server's listing breaks the skills extension: skill://invoice/SKILL.md is listed twice, with different entries"), again);
    }
    const repeated = spawnSync(binary, ['--engine', engine, 'catalog', '-v', '--format', 'json',
      '--mcp', fixture('--repeat', 'invoice')], { encoding: 'utf8' });
    assert.equal(repeated.status, 0, repeated.stderr);
    assert.deepEqual(JSON.parse(repeated.stdout).map((s) => s.name).sort(), ['invoice', 'pdf', 'weather']);
    assert.match(repeated.stderr, /shadowed invoice \(skill:\/\/invoice\/SKILL\.md\) by skill:\/\/invoice\/SKILL\.md/);
    assert.doesNotMatch(repeated.stderr, /skipped/);
  });

  test(`--mcp (${engine}): skillwire's own server, values YAML spells otherwise than JSON included`, () => {
    const folder = mkdtempSync(join(tmpdir(), 'skillwire-mcp-spelled-'));
    mkdirSync(join(folder, 'spelled'));
    writeFileSync(join(folder, 'spelled', 'SKILL.md'), '---\nname: spelled\ndescription: Keep the ledger.\n'
      + 'empty:\nnothing: ~\nlimit: 1e3\nmask: 0x1F\nmetadata:\n  version: 1.50\n---\nBalance every entry.\n');
    const own = `'${binary}' --engine native mcp --skills '${folder}'`;
    const injection = cli(engine, 'inject', '--json', '--mcp', own, '@spelled this month');
    assert.deepEqual(injection.decisions.map((d) => [d.skill, d.skipped]), [['spelled', null]]);
    assert.match(injection.text, /Balance every entry\./);
  });

  test(`--mcp (${engine}): a catalogue from skills/list, names kept apart by origin`, () => {
    const catalog = cli(engine, 'catalog', '--format', 'json', '--skills', local, '--mcp', fixture());
    assert.deepEqual(catalog.map((s) => [s.name, s.location]), [
      ['pdf', join(local, 'pdf', 'SKILL.md')],
      ['invoice', 'skill://invoice/SKILL.md'],
      ['pdf@acme', 'skill://pdf/SKILL.md'],
      ['weather', 'skill://weather/SKILL.md'],
    ]);
    const injection = cli(engine, 'inject', '--json', '--skills', local, '--mcp', fixture(),
      'use @pdf@acme, then draft the invoice from these timesheets');
    assert.deepEqual(injection.decisions.map((d) => [d.skill, d.reason, d.injected_bytes > 0]),
      [['pdf@acme', 'mention', true], ['invoice', 'name', true]]);
    assert.match(injection.text, /Use the remote pdf tools/);
    assert.match(injection.text, /Sum the hours per client/);
    // Two servers with one name are two origins.
    const twice = cli(engine, 'catalog', '--format', 'json', '--mcp', fixture(), '--mcp', fixture());
    assert.deepEqual(twice.map((s) => s.name),
      ['invoice', 'pdf', 'weather', 'invoice@acme-2', 'pdf@acme-2', 'weather@acme-2']);
    // A deny pattern over the origin keeps all of the server's skills out.
    const denied = cli(engine, 'catalog', '--format', 'json', '--skills', local, '--mcp', fixture(), '--deny', '*@acme');
    assert.deepEqual(denied.map((s) => s.name), ['pdf']);
    // The file a model reads is fetched and checked against its digest.
    const file = cli(engine, 'read', '--json', '--skills', local, '--mcp', fixture(), 'pdf@acme', 'references/forms.md');
    assert.equal(file.body.value, served[0].files['references/forms.md']);
  });

  test(`--mcp (${engine}): a body or file that is not what was listed is refused`, () => {
    const message = 'draft the invoice from these timesheets';
    const tampered = cli(engine, 'inject', '--json', '--mcp', fixture('--tamper', 'invoice'), message);
    assert.equal(tampered.text, '');
    assert.equal(tampered.decisions[0].skipped, 'body-unavailable');
    assert.match(tampered.decisions[0].detail, /the file changed since it was listed/);
    const relabelled = cli(engine, 'inject', '--json', '--mcp', fixture('--relabel', 'invoice'), message);
    assert.equal(relabelled.decisions[0].skipped, 'body-unavailable');
    assert.match(relabelled.decisions[0].detail, /differs from the listing in `description`/);
    const run = spawnSync(binary, ['--engine', engine, 'read', '--json', '--mcp', fixture('--tamper', 'pdf'), 'pdf',
      'references/forms.md'], { encoding: 'utf8' });
    assert.notEqual(run.status, 0);
    assert.match(run.stdout + run.stderr, /changed since it was listed/);
    const flipped = spawnSync(binary, ['--engine', engine, 'read', '--json', '--mcp', fixture('--flip', 'pdf'), 'pdf',
      'references/forms.md'], { encoding: 'utf8' });
    assert.notEqual(flipped.status, 0);
    assert.match(flipped.stdout + flipped.stderr, /digest|sha256/i);
    const relabelledFile = spawnSync(binary, ['--engine', engine, 'read', '--json', '--mcp', fixture('--relabel', 'invoice'),
      'invoice', 'SKILL.md'], { encoding: 'utf8' });
    assert.notEqual(relabelledFile.status, 0);
    assert.match(relabelledFile.stdout + relabelledFile.stderr, /differs from the listing in `description`/);
  });

  test(`--mcp (${engine}): a server that is not there, or serves no skills, is an error`, () => {
    const missing = spawnSync(binary, ['--engine', engine, 'catalog', '--mcp', 'exit 3'], { encoding: 'utf8' });
    assert.equal(missing.status, 2, missing.stderr);
    assert.match(missing.stderr, /--mcp exit 3/);
    const https = spawnSync(binary, ['--engine', engine, 'catalog', '--mcp', 'https://example.com/mcp'], { encoding: 'utf8' });
    assert.match(https.stderr, /only http:\/\/ URLs/);
    const plain = spawnSync(binary, ['--engine', engine, 'catalog', '--mcp', fixture('--plain')], { encoding: 'utf8' });
    assert.equal(plain.status, 2);
    assert.match(plain.stderr, /does not serve skills/);
    const watch = spawnSync(binary, ['--engine', engine, 'mcp', '--watch', '--mcp', fixture()], { encoding: 'utf8', input: '' });
    assert.equal(watch.status, 2);
    assert.match(watch.stderr, /--watch follows the --skills folders/);
  });
}

/** A client of the official SDK connected to `command args`. */
async function connect(command, args) {
  const client = new Client({ name: 'skillwire-test', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  return client;
}

const localSource = {
  list: () => [{ location: 'local/pdf/SKILL.md', text: '---\nname: pdf\ndescription: Our own PDF skill.\n---\nUse qpdf.\n' }],
  read: () => '---\nname: pdf\ndescription: Our own PDF skill.\n---\nUse qpdf.\n',
};

test('skillwire/mcp: a source over the SDK client, beside a local one', async () => {
  const client = await connect(process.execPath, [fixtureServer, servedFile, '--name', 'Acme Skills']);
  try {
    const source = mcpSource(client);
    assert.equal(source.origin, 'Acme-Skills');
    const sw = await Skillwire.create({ sources: [localSource, source] });
    const report = sw.report();
    assert.equal(report.loaded, 4);
    assert.deepEqual(report.warnings.map((w) => [w.location, w.diagnostic.code, w.diagnostic.message]), [[
      'skill://pdf/SKILL.md', 'origin_collision', 'listed as `pdf@Acme-Skills`: `pdf` is also the name of local/pdf/SKILL.md',
    ]]);
    const injection = await sw.inject('@pdf@Acme-Skills and the invoice from these timesheets');
    assert.deepEqual(injection.decisions.map((d) => [d.skill, d.injectedBytes > 0]), [['pdf@Acme-Skills', true], ['invoice', true]]);
    const file = await sw.readFile('pdf@Acme-Skills', 'references/forms.md');
    assert.equal(file.body.value, served[0].files['references/forms.md']);
    assert.deepEqual((await sw.files('pdf@Acme-Skills')).files.map((f) => f.path), ['SKILL.md', 'references/forms.md']);
    sw.free();
  } finally {
    await client.close();
  }
});

test('skillwire/mcp: an entry that does not read is refused, and the others of its page load', async () => {
  const malformed = await connect(process.execPath, [fixtureServer, servedFile, '--malformed', 'invoice']);
  let sw;
  try {
    sw = await Skillwire.create({ sources: [mcpSource(malformed)] });
    assert.deepEqual(sw.catalogSync({ format: 'json' }).text.match(/"name":"[a-z]+"/g),
      ['"name":"pdf"', '"name":"weather"']);
    const skipped = sw.report().skipped.find((s) => s.location === 'skill://invoice/SKILL.md');
    assert.match(skipped.reason, /the server's listing breaks the skills extension: .*its resources are neither a list nor "dynamic"/);
  } finally {
    sw?.free();
    await malformed.close();
  }
});

test('skillwire/mcp: a URI listed twice unlike is refused each time; listed twice alike, it is one skill', async () => {
  let sw;
  // Again with another description, or with the same frontmatter and another digest.
  for (const again of ['--twice', '--redigest']) {
    const twice = await connect(process.execPath, [fixtureServer, servedFile, again, 'invoice']);
    try {
      sw = await Skillwire.create({ sources: [mcpSource(twice)] });
      assert.deepEqual(sw.catalogSync({ format: 'json' }).text.match(/"name":"[a-z]+"/g),
        ['"name":"pdf"', '"name":"weather"'], again);
      const skipped = sw.report().skipped.filter((s) => s.location === 'skill://invoice/SKILL.md');
      assert.equal(skipped.length, 2, again);
      for (const s of skipped) {
        assert.match(s.reason, /the server's listing breaks the skills extension: skill:\/\/invoice\/SKILL\.md is listed twice, with different entries/);
      }
    } finally {
      sw?.free();
      sw = undefined;
      await twice.close();
    }
  }
  const repeat = await connect(process.execPath, [fixtureServer, servedFile, '--repeat', 'invoice']);
  try {
    sw = await Skillwire.create({ sources: [mcpSource(repeat)] });
    const report = sw.report();
    assert.equal(report.loaded, 3);
    assert.deepEqual(report.skipped, []);
    assert.deepEqual(report.shadowed.map((s) => [s.name, s.location, s.by]),
      [['invoice', 'skill://invoice/SKILL.md', 'skill://invoice/SKILL.md']]);
    const injection = await sw.inject('draft the invoice from these timesheets');
    assert.deepEqual(injection.decisions.map((d) => [d.skill, d.injectedBytes > 0]), [['invoice', true]]);
  } finally {
    sw?.free();
    await repeat.close();
  }
});

test('skillwire/mcp: what is not what was listed is refused, and a server without skills too', async () => {
  const tampering = await connect(process.execPath,
    [fixtureServer, servedFile, '--tamper', 'invoice', '--relabel', 'weather', '--flip', 'pdf']);
  try {
    const sw = await Skillwire.create({ sources: [mcpSource(tampering, { origin: 'fixture' })] });
    const injection = await sw.inject('draft the invoice from these timesheets, and the weather forecast for Oslo');
    const decided = Object.fromEntries(injection.decisions.map((d) => [d.skill, d]));
    assert.deepEqual(Object.keys(decided).sort(), ['invoice', 'weather']);
    assert.equal(injection.text, '');
    assert.equal(decided.invoice.skipped, 'body-unavailable');
    assert.match(decided.invoice.detail, /is 122 bytes, the listing says 97 \(the file changed since it was listed\)/);
    assert.equal(decided.weather.skipped, 'body-unavailable');
    assert.match(decided.weather.detail, /differs from the listing in `description`/);
    // As many bytes as listed, but not those: the digest tells.
    await assert.rejects(sw.readFile('pdf', 'references/forms.md'), /its SHA-256 is not the listed sha256:[0-9a-f]{64}/);
    // Read as a file, the relabelled SKILL.md is refused as well.
    await assert.rejects(sw.readFile('weather', 'SKILL.md'), /differs from the listing in `description`/);
    sw.free();
  } finally {
    await tampering.close();
  }
  const plain = await connect(process.execPath, [fixtureServer, servedFile, '--plain']);
  try {
    assert.throws(() => mcpSource(plain), { code: 'invalid_argument', message: /does not serve skills/ });
  } finally {
    await plain.close();
  }
  // skillwire's own server serves its folder's skills to the source as any server would.
  const own = await connect(binary, ['--engine', 'native', 'mcp', '--skills', local]);
  try {
    const sw = await Skillwire.create({ sources: [mcpSource(own)] });
    assert.deepEqual(sw.catalogSync({ format: 'json' }).text, JSON.stringify([
      { name: 'pdf', description: 'Our own PDF skill: fill forms.', location: 'skill://pdf/SKILL.md' },
    ]));
    const injection = await sw.inject('@pdf');
    assert.match(injection.text, /Use qpdf\./);
    sw.free();
  } finally {
    await own.close();
  }
  // Serving another server's skills beside its own, a name qualified by its origin is
  // percent-encoded in its URIs (`@` would start a URI's user part), and read through them.
  const relay = await connect(binary, ['--engine', 'native', 'mcp', '--skills', local, '--mcp', fixture()]);
  try {
    const uri = 'skill://pdf%40acme/SKILL.md';
    const { resources } = await relay.listResources();
    assert.ok(resources.some((r) => r.uri === uri), JSON.stringify(resources.map((r) => r.uri)));
    const read = await relay.readResource({ uri });
    assert.match(read.contents[0].text, /Use the remote pdf tools/);
  } finally {
    await relay.close();
  }
});
