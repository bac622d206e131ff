// The package as a user gets it: `npm pack`, installed into an empty project offline,
// imported from Node ESM and from Deno; the README's examples run from there.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const deno = join(pkgDir, 'node_modules', '.bin', 'deno');
const readme = readFileSync(join(pkgDir, '..', 'README.md'), 'utf8');

test('npm pack, install offline, import from Node and Deno, run the examples', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillwire-pack-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkgDir })
      .toString().trim().split('\n').pop();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, tarball)],
      { cwd: dir });
    const packed = JSON.parse(readFileSync(join(dir, 'node_modules', 'skillwire', 'package.json'), 'utf8'));
    assert.deepEqual(packed.dependencies ?? {}, {}, 'zero runtime dependencies');

    for (const example of ['node.mjs', 'async-source.mjs']) {
      const source = readFileSync(join(pkgDir, 'examples', example), 'utf8');
      assert.ok(readme.includes(source.trim()), `README shows examples/${example} verbatim`);
      copyFileSync(join(pkgDir, 'examples', example), join(dir, example));
    }
    const node = (file) => execFileSync(process.execPath, [file], { cwd: dir }).toString();
    const denoRun = (file) => execFileSync(deno, ['run', '--no-check', '--allow-read', file], { cwd: dir }).toString();

    const three = '[SKILL:pdf]\nUse pypdf.\n[/SKILL]\n\n@pdf fill this form\n';
    assert.equal(node('node.mjs'), three);
    assert.equal(denoRun('node.mjs'), three);
    const fromNode = node('async-source.mjs');
    assert.equal(fromNode, 'xlsx: mention\npdf: name\n[SKILL:xlsx]\nUse openpyxl.\n[/SKILL]\n\n[SKILL:pdf]\nUse pypdf.\n[/SKILL]\n\nfill in the pdf form, then @xlsx\n');
    assert.equal(denoRun('async-source.mjs'), fromNode);

    // skillwire/turns from the installed package: its own module, in Node and Deno.
    writeFileSync(join(dir, 'turns.mjs'), `import { Skillwire, memoryBytes } from 'skillwire/turns';
let code;
try { new Skillwire({ sources: [] }); } catch (e) { code = e.code; }
console.log(typeof Skillwire.restore, code, memoryBytes() > 0);`);
    assert.equal(node('turns.mjs'), 'function not_in_module true\n');
    assert.equal(denoRun('turns.mjs'), 'function not_in_module true\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
