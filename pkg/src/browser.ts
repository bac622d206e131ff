// @ts-self-types="./browser.d.ts"
// The entry point for browsers and bundlers (package.json `exports` default): the module
// is fetched when `init()` (or `Skillwire.create()`) is awaited.

import * as whole from '../dist/skillwire_wasm.js';
import { loadAsync, provide } from './wasm.js';
import type { WasmInput } from './types.js';

provide({ name: 'skillwire', glue: whole, url: new URL('../dist/skillwire_wasm_bg.wasm', import.meta.url) });

export * from './skillwire.js';
export { memoryBytes } from './wasm.js';

/**
 * Loads the WebAssembly module. Needed once before `new Skillwire()` (`Skillwire.create()`
 * calls it); `wasm` says where from (default: next to this module).
 */
export async function init(wasm?: WasmInput): Promise<void> {
  await loadAsync(wasm);
}
