// @ts-self-types="./turns-browser.d.ts"
// `skillwire/turns` for browsers and bundlers: the turn path's module alone (about half
// the download of the whole package's), fetched when `init()` is awaited. A chat page
// restores a catalogue built and snapshotted elsewhere (`sw.snapshot()` with the whole
// package, e.g. at deploy time) and runs turns on it.

import * as turns from '../dist/skillwire_turns.js';
import { loadAsync, provide } from './wasm.js';
import type { WasmInput } from './types.js';

provide({ name: 'skillwire/turns', glue: turns, url: new URL('../dist/skillwire_turns_bg.wasm', import.meta.url) });

export { Skillwire, SkillwireError } from './skillwire.js';
export type * from './types.js';
export { memoryBytes } from './wasm.js';

/** Loads the WebAssembly module; needed once before `Skillwire.restore()`. `wasm` says
 * where from (default: next to this module). */
export async function init(wasm?: WasmInput): Promise<void> {
  await loadAsync(wasm);
}
