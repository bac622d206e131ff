// @ts-self-types="./wasm.d.ts"
// The WebAssembly module the entry point provided, and its loading state. Two modules
// exist, built from the same core: the whole package's (`skillwire`: `node.ts`,
// `browser.ts`) and the turn path's alone (`skillwire/turns`: `turns-node.ts`,
// `turns-browser.ts`; it restores catalogues and runs turns, and has no catalogue
// building, lint, LLM selection, tools or files). A page or process uses one of them.

import type * as Whole from '../dist/skillwire_wasm.js';
import type * as Turns from '../dist/skillwire_turns.js';
import type { WasmInput } from './types.js';

/** A module's wasm-bindgen glue: the whole package's, or the turn path's (which lacks
 * building, lint, LLM selection, tools and files, and has `restore`). */
export type Glue = typeof Whole | typeof Turns;

/** What an entry point provides: its module's glue and where its `.wasm` file lives. */
export interface WasmModule {
  /** The package entry that provides it: `skillwire` or `skillwire/turns`. */
  name: string;
  glue: Glue;
  /** Where the module lives: next to the glue, inside the package. */
  url: URL;
}

let provided: WasmModule | null = null;
let ready: Promise<void> | null = null;
let loaded: { memory?: WebAssembly.Memory } | null = null;

/** Sets the module this page or process uses; a second, different one is refused. */
export function provide(module: WasmModule): void {
  if (provided && provided.name !== module.name) {
    const conflict = new Error(`${module.name} cannot be loaded beside ${provided.name}: a page or process uses one of them`);
    throw Object.assign(conflict, { code: 'module_conflict' });
  }
  provided ??= module;
}

function current(): WasmModule {
  if (!provided) throw new Error('no skillwire module: import skillwire or skillwire/turns');
  return provided;
}

/** The glue of the module in use. */
export function glue(): Glue {
  return current().glue;
}

/** The entry that provided the module in use. */
export function moduleName(): string {
  return current().name;
}

/** True once the module is loaded (or loading). */
export function isReady(): boolean {
  return ready !== null;
}

/** Loads the module from its bytes, now (Node and Deno, where the file is at hand). */
export function loadSync(bytes: BufferSource): void {
  if (ready) return;
  loaded = current().glue.initSync({ module: bytes });
  ready = Promise.resolve();
}

/** Loads the module from `wasm`, or from next to its glue (browsers). */
export function loadAsync(wasm?: WasmInput): Promise<void> {
  if (!ready) {
    const { glue: g, url } = current();
    // A failed load (a wrong URL, a network error) can be tried again.
    ready = g.default({ module_or_path: wasm ?? url }).then((e) => { loaded = e; }, (e: unknown) => {
      ready = null;
      throw e;
    });
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
