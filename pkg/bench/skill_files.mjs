// The SKILL.md files under a folder, for the benchmarks: sub-folders up to eight deep,
// `.git` and `node_modules` skipped, sorted (the order a source lists them in).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Paths of the SKILL.md files under `dir`, sorted. */
export function skillFiles(dir, depth = 0) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory() && depth < 8) out.push(...skillFiles(p, depth + 1));
    else if (e.isFile() && e.name === 'SKILL.md') out.push(p);
  }
  return out.sort();
}
