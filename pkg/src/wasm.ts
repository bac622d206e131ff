// @ts-self-types="./wasm.d.ts"
// The WebAssembly module's loading state, shared by the entry points: `node.ts` loads it
// from the package's own file at import, `browser.ts` when `init()` is awaited.

import initWasm, { initSync, type InitOutput } from '../dist/skillwire_wasm.js';
import type { WasmInput } from './types.js';

/** Where the module lives: next to the glue, inside the package. */
export const WASM_URL = new URL('../dist/skillwire_wasm_bg.wasm', import.meta.url);

let ready: Promise<void> | null = null;
let loaded: InitOutput | null = null;

/** True once the module is loaded (or loading). */
export function isReady(): boolean {
  return ready !== null;
}

/** Loads the module from its bytes, now (Node and Deno, where the file is at hand). */
export function loadSync(bytes: BufferSource): void {
  if (ready) return;
  loaded = initSync({ module: bytes });
  ready = Promise.resolve();
}

/** Loads the module from `wasm`, or from next to this module (browsers). */
export function loadAsync(wasm?: WasmInput): Promise<void> {
  if (!ready) {
    ready = initWasm({ module_or_path: wasm ?? WASM_URL }).then((e) => { loaded = e; });
  }
  return ready;
}

/**
 * Bytes of WebAssembly memory the package holds (every engine shares it). It grows as
 * needed and never shrinks: for monitoring a long-running host (`pkg/bench/soak.mjs`).
 */
export function memoryBytes(): number {
  return loaded?.memory?.buffer?.byteLength ?? 0;
}
