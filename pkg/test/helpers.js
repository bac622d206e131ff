// Shared by the Node and Deno suites: the vector files, read from the repository.
import { readFileSync } from 'node:fs';

export { canonical, jsOptions, jsView, runCase, vectorSource } from './vectors-core.js';

export const turns = JSON.parse(readFileSync(new URL('../../tests/vectors/turns.json', import.meta.url), 'utf8'));
export const conformance = JSON.parse(
  readFileSync(new URL('../../tests/vectors/conformance.json', import.meta.url), 'utf8'));
