// @ts-self-types="./node.d.ts"
// The entry point for Node and Deno (package.json `exports` conditions `node`, `deno`):
// the module is read from the package's own file at import, so nothing needs awaiting.

import { readFileSync } from 'node:fs';
import { loadSync, WASM_URL } from './wasm.js';
import type { WasmInput } from './types.js';

loadSync(readFileSync(WASM_URL));

export * from './skillwire.js';
export { memoryBytes } from './wasm.js';

/** Loads the WebAssembly module: done at import here, so a no-op (kept for code shared
 * with browsers). */
export async function init(_wasm?: WasmInput): Promise<void> {}
