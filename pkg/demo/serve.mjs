// A static server for the demo and its browser test, on 127.0.0.1 only.
//   node pkg/demo/serve.mjs [port]   then open http://127.0.0.1:PORT/pkg/demo/
// Serves the repository, with three additions: /pkg/demo/skills/ is examples/skills/,
// any folder's index.json lists the SKILL.md files below it, and any folder's files.json
// lists every file below it with its size (a static folder can't be listed by a page).
// `extraFiles` maps URL paths to contents (used by the test).
import { createServer } from 'node:http';
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.md': 'text/plain; charset=utf-8',
  '.png': 'image/png',
};

/** The SKILL.md files below `dir`, paths relative to it. */
async function skillFiles(dir) {
  return (await allFiles(dir)).map((f) => f.path).filter((p) => p.split('/').pop().toLowerCase() === 'skill.md').sort();
}

/** Every regular file below `dir`: `[{path, size}]`, paths relative to it. */
async function allFiles(dir, base = dir, depth = 0) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth < 8) out.push(...await allFiles(path, base, depth + 1));
    else if (entry.isFile()) out.push({ path: relative(base, path).split(sep).join('/'), size: (await stat(path)).size });
  }
  return out;
}

function fileFor(urlPath) {
  const mapped = urlPath.startsWith('/pkg/demo/skills/')
    ? '/examples/skills/' + urlPath.slice('/pkg/demo/skills/'.length)
    : urlPath;
  const path = normalize(join(repoRoot, decodeURIComponent(mapped)));
  return path.startsWith(repoRoot) ? path : null;
}

/** Starts the server; resolves to `{ url, close }`. */
export function serve({ port = 0, extraFiles = new Map() } = {}) {
  const server = createServer(async (req, res) => {
    const urlPath = new URL(req.url, 'http://x').pathname;
    try {
      if (extraFiles.has(urlPath)) {
        res.writeHead(200, { 'content-type': types[extname(urlPath)] ?? 'text/plain; charset=utf-8' });
        return res.end(extraFiles.get(urlPath));
      }
      if (urlPath.endsWith('/index.json')) {
        const prefix = urlPath.slice(0, -'index.json'.length);
        const listed = [...extraFiles.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
        const dir = fileFor(prefix);
        const onDisk = dir && (await stat(dir).catch(() => null))?.isDirectory() ? await skillFiles(dir) : [];
        res.writeHead(200, { 'content-type': types['.json'] });
        return res.end(JSON.stringify([...listed.filter((p) => p.toLowerCase().endsWith('skill.md')), ...onDisk]));
      }
      if (urlPath.endsWith('/files.json')) {
        const dir = fileFor(urlPath.slice(0, -'files.json'.length));
        const listed = dir && (await stat(dir).catch(() => null))?.isDirectory() ? await allFiles(dir) : [];
        res.writeHead(200, { 'content-type': types['.json'] });
        return res.end(JSON.stringify(listed));
      }
      let path = fileFor(urlPath.endsWith('/') ? urlPath + 'index.html' : urlPath);
      if (!path) throw Object.assign(new Error('outside the repository'), { code: 'ENOENT' });
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await serve({ port: Number(process.argv[2] ?? 8080) });
  console.log(`demo: ${url}/pkg/demo/`);
}
