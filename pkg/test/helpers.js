// Shared by the Node and Deno suites: the vector files, read from the repository.
import { readdirSync, readFileSync } from 'node:fs';

export { canonical, jsOptions, jsView, runCase, vectorSource } from './vectors-core.js';

/** Every turn vector, from the topic files of `tests/vectors/turns/`, as one `{cases}`. */
const folder = new URL('../../tests/vectors/turns/', import.meta.url);
export const turns = {
  cases: readdirSync(folder).filter((f) => f.endsWith('.json')).sort()
    .flatMap((f) => JSON.parse(readFileSync(new URL(f, folder), 'utf8')).cases),
};
export const conformance = JSON.parse(
  readFileSync(new URL('../../tests/vectors/conformance.json', import.meta.url), 'utf8'));
