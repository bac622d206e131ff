// Shared by the Node and Deno suites: the vector files, read from the repository.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';

import { compact } from './vectors-core.js';

export { canonical, jsOptions, jsView, runCase, vectorSource } from './vectors-core.js';

/** The cases of a topic file (`tests/vectors/turns/*.toml`, its form described in
 * `tests/rust/vector_toml.rs`), each with `sources` resolved to lists of skills. */
function topicCases(text) {
  const doc = parse(text);
  const sets = doc.skills ?? {};
  return (doc.case ?? []).map((c) => {
    if (c.sources && c.skills) throw new Error(`${c.name}: sources or skills, not both`);
    const sources = c.sources
      ? c.sources.map((name) => {
        if (!Object.hasOwn(sets, name)) throw new Error(`${c.name}: no skill set ${name}`);
        return sets[name];
      })
      : [c.skills ?? []];
    return { ...c, sources, expect: compact(c.expect ?? {}) };
  });
}

/** Every turn vector, from the topic files of `tests/vectors/turns/`, as one `{cases}`. */
const folder = new URL('../../tests/vectors/turns/', import.meta.url);
export const turns = {
  cases: readdirSync(folder).filter((f) => f.endsWith('.toml')).sort()
    .flatMap((f) => topicCases(readFileSync(new URL(f, folder), 'utf8'))),
};
export const conformance = JSON.parse(
  readFileSync(new URL('../../tests/vectors/conformance.json', import.meta.url), 'utf8'));
