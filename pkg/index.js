// @ts-self-types="./index.d.ts"
// skillwire for JavaScript: the JS idiom around the core compiled to WebAssembly.
// Glue only: sources are called here (sync or async), every rule runs in the core.
//
// Sources are objects with list() and read(location); either may return a value or a
// Promise. The same steps serve the sync and the async API: they are written once as
// generators that yield what a source returned, and a driver either uses the value
// (sync) or awaits it (async).

import initWasm, { initSync, Catalogue, lint as wasmLint } from './dist/skillwire_wasm.js';

const WASM_URL = new URL('./dist/skillwire_wasm_bg.wasm', import.meta.url);
const isServer = typeof globalThis.Deno !== 'undefined' ||
  (typeof globalThis.process !== 'undefined' && Boolean(globalThis.process.versions?.node));

let ready = null;
if (isServer) {
  // Node and Deno read the module from the package itself: no network fetch.
  const { readFileSync } = await import('node:fs');
  initSync({ module: readFileSync(WASM_URL) });
  ready = Promise.resolve();
}

/**
 * Loads the WebAssembly module. Needed once in browsers before `new Skillwire()`
 * (`Skillwire.create()` calls it); a no-op in Node and Deno.
 * @param {string | URL | Request | Response | BufferSource | WebAssembly.Module} [wasm]
 */
export async function init(wasm) {
  if (!ready) {
    ready = initWasm({ module_or_path: wasm ?? WASM_URL });
  }
  await ready;
}

/** An error from skillwire, with a stable `code` (`message_too_large`, `async_source`, ...). */
export class SkillwireError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'SkillwireError';
    this.code = code;
  }
}

function translate(e) {
  if (e instanceof Error && typeof e.code === 'string' && !(e instanceof SkillwireError)) {
    return new SkillwireError(e.message, e.code);
  }
  return e;
}

function call(f) {
  try {
    return f();
  } catch (e) {
    throw translate(e);
  }
}

function describe(e) {
  return e instanceof Error ? e.message : String(e);
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

function runSync(steps) {
  let r = steps.next();
  while (!r.done) {
    if (isThenable(r.value)) {
      r.value.then(undefined, () => {}); // the promise is abandoned; keep it from reporting
      throw new SkillwireError(
        'a source returned a Promise; use the async API (Skillwire.create, inject, match, ...)', 'async_source');
    }
    r = steps.next(r.value);
  }
  return r.value;
}

async function runAsync(steps) {
  let r = steps.next();
  while (!r.done) {
    let value;
    try {
      value = await r.value;
    } catch (e) {
      r = steps.throw(e);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

/** Lists every source and reads the entries that came without text. */
function* listEntries(sources) {
  const entries = [];
  for (let source = 0; source < sources.length; source++) {
    let listed;
    try {
      listed = yield sources[source].list();
      if (!Array.isArray(listed)) throw new Error('list() did not return an array');
    } catch (e) {
      entries.push({ source, location: '', error: `source ${source} could not list its skills: ${describe(e)}` });
      continue;
    }
    for (const item of listed) {
      const location = typeof item === 'string' ? item : String(item?.location ?? '');
      let text = typeof item === 'object' && item !== null ? item.text : undefined;
      if (typeof text !== 'string') {
        try {
          text = yield sources[source].read(location);
        } catch (e) {
          entries.push({ source, location, error: describe(e) });
          continue;
        }
        if (typeof text !== 'string') {
          entries.push({ source, location, error: `read() returned ${text === null ? 'null' : typeof text}, not a string` });
          continue;
        }
      }
      entries.push({ source, location, text });
    }
  }
  return entries;
}

/** Reads the bodies a turn may need, then runs it in the core. `context` is the
 * turn's `{recent}` (checked by the core). */
function* turn(catalogue, sources, message, context) {
  const plan = call(() => catalogue.plan(message, context));
  const bodies = {};
  for (const { source, location } of plan) {
    try {
      const text = yield sources[source].read(location);
      bodies[location] = typeof text === 'string'
        ? { text }
        : { error: `read() returned ${text === null ? 'null' : typeof text}, not a string` };
    } catch (e) {
      bodies[location] = { error: describe(e) };
    }
  }
  return call(() => catalogue.inject(message, bodies, context));
}

function coreOptions(o) {
  const limits = o.limits && Object.fromEntries(
    Object.entries(o.limits).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()), v]));
  return {
    catalog: {
      precedence: (o.precedence ?? 'first-wins').replace('-', '_'),
      available: o.available ?? [],
      rank: { enabled: o.rank ?? true },
      ...(limits ? { limits } : {}),
    },
    render: {
      format: o.format ?? 'bracket',
      budget: o.budget ?? 8192,
      base_dir: o.baseDir ?? false,
      min_truncated_bytes: o.minTruncatedBytes ?? 64,
    },
  };
}

/** Entries already listed by `Skillwire.create`, handed to the constructor. */
const LISTED = Symbol('listed');

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((catalogue) => catalogue.free())
  : null;

/** Skills from one or more sources, ready for every turn of a conversation. */
export class Skillwire {
  #sources;
  #options;
  #catalogue = null;

  /**
   * Builds the catalogue synchronously: every source must answer synchronously. In
   * browsers, `await init()` first (or use `Skillwire.create`).
   */
  constructor(options = {}) {
    if (!ready) throw new SkillwireError('call `await init()` before `new Skillwire()` in a browser', 'not_initialised');
    this.#sources = [...(options.sources ?? [])];
    this.#options = coreOptions(options);
    this.#build(options[LISTED] ?? runSync(listEntries(this.#sources)));
  }

  /** Builds the catalogue, awaiting sources that return Promises. */
  static async create(options = {}) {
    await init(options.wasm);
    const entries = await runAsync(listEntries([...(options.sources ?? [])]));
    return new Skillwire({ ...options, [LISTED]: entries });
  }

  #build(entries) {
    const next = call(() => new Catalogue(entries, this.#options));
    if (this.#catalogue) {
      registry?.unregister(this);
      this.#catalogue.free();
    }
    this.#catalogue = next;
    registry?.register(this, next, this);
  }

  #live() {
    if (!this.#catalogue) throw new SkillwireError('this Skillwire was freed', 'freed');
    return this.#catalogue;
  }

  /** Lists and reads the sources again. */
  async refresh() { this.#build(await runAsync(listEntries(this.#sources))); }
  /** Lists and reads the sources again, synchronously. */
  refreshSync() { this.#build(runSync(listEntries(this.#sources))); }

  /** What building the catalogue found: skipped, shadowed and gated skills, warnings. */
  report() { return call(() => this.#live().report()); }

  /**
   * Runs a turn: the message with the skills it calls for prepended, and every decision.
   * `turn.recent` names skills whose bodies are still in the model's context from recent
   * turns: they are not injected again (decision `recently_injected`).
   */
  async inject(message, context = undefined) {
    return runAsync(turn(this.#live(), this.#sources, message, context));
  }
  /** `inject` for synchronous sources. */
  injectSync(message, context = undefined) {
    return runSync(turn(this.#live(), this.#sources, message, context));
  }

  /** The skills the rules select for a message (`{matches}`); reads no bodies. */
  async match(message) { return this.matchSync(message); }
  /** `match`, synchronously. */
  matchSync(message) { return call(() => this.#live().matches(message)); }

  /** The catalogue for the system prompt (`{text, shortened, omitted}`). */
  async catalog(options = {}) { return this.catalogSync(options); }
  /** `catalog`, synchronously. */
  catalogSync({ format = 'agent-skills', budget } = {}) {
    return call(() => this.#live().catalog(format, budget));
  }

  /** Lints one SKILL.md text. */
  async lint(location, text, options) { return lint(location, text, options); }
  /** `lint`, synchronously. */
  lintSync(location, text, options) { return lint(location, text, options); }

  /** Releases the WebAssembly memory now (it is also released when this is collected). */
  free() {
    if (this.#catalogue) {
      registry?.unregister(this);
      this.#catalogue.free();
      this.#catalogue = null;
    }
  }
}

// `using sw = new Skillwire(...)` where the runtime has explicit resource management.
if (typeof Symbol.dispose === 'symbol') {
  Skillwire.prototype[Symbol.dispose] = function dispose() { this.free(); };
}

/** Lints one SKILL.md text against the standard (`{path, valid, errors, warnings}`). */
export function lint(location, text, { extensions = false, limits } = {}) {
  if (!ready) throw new SkillwireError('call `await init()` first in a browser', 'not_initialised');
  const core = limits ? coreOptions({ limits }).catalog.limits : undefined;
  return call(() => wasmLint(location, text, { extensions, ...(core ? { limits: core } : {}) }));
}
