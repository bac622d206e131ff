// @ts-self-types="./turns-node.d.ts"
// `skillwire/turns` for Node and Deno: the turn path's module alone, read from the
// package's own file at import. `Skillwire.restore` a catalogue the whole package
// snapshotted (`sw.snapshot()`), then run turns on it; building, lint, LLM selection,
// tools and files are the whole package's.

import { readFileSync } from 'node:fs';
import * as turns from '../dist/skillwire_turns.js';
import { loadSync, provide } from './wasm.js';
import type { WasmInput } from './types.js';

const url = new URL('../dist/skillwire_turns_bg.wasm', import.meta.url);
provide({ name: 'skillwire/turns', glue: turns, url });
loadSync(readFileSync(url));

export { Skillwire, SkillwireError } from './skillwire.js';
export type * from './types.js';
export { memoryBytes } from './wasm.js';

/** Loads the WebAssembly module: done at import here, so a no-op (kept for code shared
 * with browsers). */
export async function init(_wasm?: WasmInput): Promise<void> {}
