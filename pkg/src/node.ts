// @ts-self-types="./node.d.ts"
// The entry point for Node and Deno (package.json `exports` conditions `node`, `deno`):
// the module is read from the package's own file at import, so nothing needs awaiting.

import { readFileSync } from 'node:fs';
import * as whole from '../dist/skillwire_wasm.js';
import { loadSync, provide } from './wasm.js';
import type { WasmInput } from './types.js';

const url = new URL('../dist/skillwire_wasm_bg.wasm', import.meta.url);
provide({ name: 'skillwire', glue: whole, url });
loadSync(readFileSync(url));

export * from './skillwire.js';
export { memoryBytes } from './wasm.js';

/** Loads the WebAssembly module: done at import here, so a no-op (kept for code shared
 * with browsers). */
export async function init(_wasm?: WasmInput): Promise<void> {}
