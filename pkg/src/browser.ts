// @ts-self-types="./browser.d.ts"
// The entry point for browsers and bundlers (package.json `exports` default): the module
// is fetched when `init()` (or `Skillwire.create()`) is awaited.

import { loadAsync } from './wasm.js';
import type { WasmInput } from './types.js';

export * from './skillwire.js';
export { memoryBytes } from './wasm.js';

/**
 * Loads the WebAssembly module. Needed once before `new Skillwire()` (`Skillwire.create()`
 * calls it); `wasm` says where from (default: next to this module).
 */
export async function init(wasm?: WasmInput): Promise<void> {
  await loadAsync(wasm);
}
