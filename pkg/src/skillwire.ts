// @ts-self-types="./skillwire.d.ts"
// skillwire for JavaScript: the JS idiom around the core compiled to WebAssembly.
// Glue only: sources are called here (sync or async), every rule runs in the core.
//
// Sources are objects with list() and read(location); either may return a value or a
// Promise. The same steps serve the sync and the async API: they are written once as
// generators that yield what a source returned, and a driver either uses the value
// (sync) or awaits it (async). Options go in camelCase and are mapped to the core's
// snake_case; every result comes back through `result()`, the one mapping to camelCase.

import type * as Whole from '../dist/skillwire_wasm.js';
// Catalogues are typed as both modules have them: what only the whole package's has is
// reached through `requireWhole` / `#whole`, never by accident.
import type { Catalog } from '../dist/skillwire_turns.js';
import { glue, isReady, loadAsync, moduleName } from './wasm.js';
import type {
  AnthropicTool, CatalogForOptions, CatalogFormat, CatalogReport, CatalogText, Completion, Defaults, ErrorCode,
  FileContent, Finding, Injection, LintOptions, LintReport, Matches, OpenAiTool, Options, SelectPrompt, SelectPromptOptions,
  Limits, Selection, SkillEntry, SkillFiles, SkillSource, SkillTool, SyncSkillSource, ToolAnswer, ToolProvider, TurnContext,
} from './types.js';

export type * from './types.js';

/** An error from skillwire, with a stable `code` (`message_too_large`, `async_source`, ...). */
export class SkillwireError extends Error {
  readonly code: ErrorCode;
  /** With `unknown_skill`, `blocked_skill`: the skill's name. */
  readonly skill?: string;
  /** With the other file errors: the file's path (as given; empty when a listing failed). */
  readonly path?: string;
  /** With `invalid_path`: what is wrong with the path (`parent`, `absolute`, ...); with
   * `file_unavailable`: the source's reason. */
  readonly problem?: string;
  /** With `file_too_large`: the file's size (or the bytes read past the limit), and the limit. */
  readonly bytes?: number;
  readonly limit?: number;
  /** With `file_blocked`: what the safety scan found in the file. */
  readonly findings?: Finding[];
  constructor(message: string, code: ErrorCode, details?: ErrorDetails) {
    super(message);
    this.name = 'SkillwireError';
    this.code = code;
    if (details) Object.assign(this, details);
  }
}

/** The fields a file error carries beside its message and code. */
export interface ErrorDetails {
  skill?: string; path?: string; problem?: string; bytes?: number; limit?: number; findings?: Finding[];
}

/** The core's limits as the glue reads them (snake_case: straight from the core). */
interface CoreLimits { max_skill_md_bytes: number; max_message_bytes: number }

/** A listed entry or a fetched body, as the core takes it. */
/** A SKILL.md's text, its bytes (as a source gave them: the core decodes them), or why there
 * is none (`refused`: a refusal that lasts until the file changes, the core's
 * `SourceError::refused`). */
type Text = { text: string } | { bytes: Uint8Array } | { error: string; refused?: boolean };

/** Where a turn's plan says to read a body. */
interface PlannedRead { source: number; location: string }

/** A step of the engine loop: it yields what a source or `embed` returned, and is handed
 * back the value (sync) or what the Promise resolved to (async). */
type Steps<T> = Generator<unknown, T, any>;

/** What the module's `Catalog.update` did with a changed entry (the core's `EntryUpdate`). */
type UpdateDone = 'in-place' | 'reindexed' | 'not-taken';

function translate(e: unknown): unknown {
  if (e instanceof Error && typeof (e as { code?: unknown }).code === 'string' && !(e instanceof SkillwireError)) {
    const raw = e as Error & { code: string } & Record<string, unknown>;
    const details: ErrorDetails = {};
    for (const key of ['skill', 'path', 'problem'] as const) {
      if (typeof raw[key] === 'string') details[key] = raw[key] as string;
    }
    for (const key of ['bytes', 'limit'] as const) {
      if (typeof raw[key] === 'number') details[key] = raw[key] as number;
    }
    if (Array.isArray(raw.findings)) details.findings = camelKeys(raw.findings) as Finding[];
    return new SkillwireError(e.message, raw.code, details);
  }
  return e;
}

function call<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw translate(e);
  }
}

/** A value the core returned, as this package returns it: keys in camelCase (`user_message`
 * → `userMessage`), in nested objects too; values untouched. Every result but the
 * provider-shaped `toolDefinitions` crosses here: one mechanical mapping. */
function result<T>(f: () => unknown): T {
  return camelKeys(call(f)) as T;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Whether a source's `read` threw a refusal that lasts until the SKILL.md changes: an
 * error whose `refused` property is `true` (see `SkillSource.read`). */
function isRefusal(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { refused?: unknown }).refused === true;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function';
}

function runSync<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) {
    if (isThenable(r.value)) {
      Promise.resolve(r.value).then(undefined, () => {}); // the promise is abandoned; keep it from reporting
      steps.return(undefined as T); // runs the steps' `finally` blocks (a turn frees its plan)
      throw new SkillwireError(
        'a source or embed() returned a Promise; use the async API (Skillwire.create, inject, match, ...)', 'async_source');
    }
    r = steps.next(r.value);
  }
  return r.value;
}

async function runAsync<T>(steps: Steps<T>, timeoutMs: number | undefined): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    let value: unknown;
    try {
      value = await withTimeout(r.value, timeoutMs);
    } catch (e) {
      r = steps.throw(e);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

/** `value`, or a `timeout` rejection when it has not settled within `ms` (no limit unless `ms` > 0). */
function withTimeout(value: unknown, ms: number | undefined): unknown {
  if (!isThenable(value) || ms === undefined || !(ms > 0) || !Number.isFinite(ms)) return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new SkillwireError(`no answer within ${ms} ms`, 'timeout')), ms);
  });
  return Promise.race([value, late]).finally(() => clearTimeout(timer));
}

/**
 * The UTF-8 length of a JS string, as the core will count it (a lone surrogate becomes
 * U+FFFD, 3 bytes). Only called on strings already known to be over a limit.
 */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * A source's answer as `{text}` or `{error}`. A string with more UTF-16 units than the
 * limit has bytes is over it for sure: it is refused here, without copying it into the
 * WebAssembly memory (the core checks every other text byte for byte).
 */
function sourceText(text: unknown, maxBytes: number): Text {
  const bytes = asBytes(text);
  if (bytes) {
    return bytes.byteLength > maxBytes
      ? { error: `SKILL.md is ${bytes.byteLength} bytes; the limit is ${maxBytes}`, refused: true }
      : { bytes };
  }
  if (typeof text !== 'string') {
    return { error: `read() returned ${text === null ? 'null' : typeof text}, not a string or bytes` };
  }
  if (text.length > maxBytes) {
    return { error: `SKILL.md is ${utf8Length(text)} bytes; the limit is ${maxBytes}`, refused: true };
  }
  return { text };
}

/**
 * `value` as bytes when it is a Uint8Array (a Node Buffer too) or an ArrayBuffer, made in
 * any realm (`instanceof` knows only this one's: a `vm` context's or an iframe's bytes would
 * fail it); else undefined.
 */
function asBytes(value: unknown): Uint8Array | undefined {
  const kind = Object.prototype.toString.call(value);
  if (kind === '[object ArrayBuffer]' || kind === '[object SharedArrayBuffer]') {
    return new Uint8Array(value as ArrayBufferLike);
  }
  return ArrayBuffer.isView(value) && kind === '[object Uint8Array]' ? value as Uint8Array : undefined;
}

/** `text` with bytes decoded by the core (a turn's body is rendered from its text); bytes
 * that are not UTF-8 are the core's error, a refusal; bytes that could not be handed over
 * (a view of a detached buffer) are a failed read. */
function decoded(text: Text): { text: string } | { error: string; refused?: boolean } {
  if (!('bytes' in text)) return text;
  try {
    return { text: call(() => glue().utf8Text(text.bytes)) as string };
  } catch (e) {
    return { error: describe(e), refused: !(e instanceof TypeError) };
  }
}

/** Refuses a message surely over the limit before it is copied (the core's error, word for word). */
function checkMessage(message: unknown, maxBytes: number, what = 'message'): void {
  if (typeof message === 'string' && message.length > maxBytes) {
    throw new SkillwireError(`the ${what} is ${utf8Length(message)} bytes; the limit is ${maxBytes}`, `${what}_too_large`);
  }
}

/** What the core's build needs next (the core's `Need`). */
type Need =
  | { need: 'list'; source: number }
  | { need: 'read'; source: number; location: string }
  | { need: 'embed'; texts: string[] }
  | { need: 'done' };

/** A source's listing as the core takes it: `{location}` (to be read), `{location,
 * text}`, or `{location, error}` for an inline text surely over the limit (refused
 * without being copied into the WebAssembly memory, and without a read); each with its
 * `origin`, `stamp` and `id` when it has them. Throws on a stamp or an id that is not a
 * string. */
function entriesOf(listed: unknown[], limits: CoreLimits):
  { location: string; text?: string; error?: string; origin?: string; stamp?: string; id?: string }[] {
  return listed.map((item) => {
    const entry = typeof item === 'object' && item !== null
      ? item as { location?: unknown; text?: unknown; origin?: unknown; stamp?: unknown; id?: unknown } : null;
    const location = typeof item === 'string' ? item : String(entry?.location ?? '');
    const text = entry?.text;
    // A label the core checks (and refuses with a reason when it is not one).
    const origin = entry?.origin == null ? {} : { origin: String(entry.origin) };
    // A stamp stands for the text: one that is not a string (`[object Object]` for every
    // version of an object) could keep a changed entry from being read, so it is refused.
    if (entry?.stamp != null && typeof entry.stamp !== 'string') {
      throw new SkillwireError(`${location}: stamp is ${typeof entry.stamp}, not a string`, 'invalid_argument');
    }
    const stamp = entry?.stamp == null ? {} : { stamp: entry.stamp };
    // An id is the host's key for the skill: a number would be a different key once
    // turned into text (`1e21`, `0.1`), so only strings are taken.
    if (entry?.id != null && typeof entry.id !== 'string') {
      throw new SkillwireError(`${location}: id is ${typeof entry.id}, not a string`, 'invalid_argument');
    }
    const id = entry?.id == null ? {} : { id: entry.id };
    return typeof text === 'string'
      ? { location, ...decoded(sourceText(text, limits.max_skill_md_bytes)), ...origin, ...stamp, ...id }
      : { location, ...origin, ...stamp, ...id };
  });
}

/** Builds a catalogue: the core says what it needs (list a source, read an entry, embed
 * the skills) and these steps do it with the host's sources and `embed`, sync or async.
 * With `previous` (the catalogue being refreshed, left usable meanwhile), entries listed
 * again with the same `stamp` are not read. */
function* buildSteps(
  sources: SkillSource[], options: CoreOptions, limits: CoreLimits, embed: Embed | undefined, previous?: Whole.Catalog,
): Steps<Whole.Catalog> {
  const { Build } = requireWhole('building a catalogue');
  const build = call(() => new Build(sources.length, options, typeof embed === 'function'));
  try {
    if (previous) call(() => build.reuse(previous));
    for (;;) {
      const need = call(() => build.need()) as Need;
      if (need.need === 'done') return call(() => build.finish());
      if (need.need === 'list') {
        let entries: ReturnType<typeof entriesOf>;
        try {
          const listed: unknown = yield sources[need.source]!.list();
          if (!Array.isArray(listed)) throw new Error('list() did not return an array');
          entries = entriesOf(listed as unknown[], limits);
        } catch (e) {
          call(() => build.listed(need.source, undefined, describe(e)));
          continue;
        }
        call(() => build.listed(need.source, entries, undefined));
      } else if (need.need === 'read') {
        let text: Text;
        try {
          text = sourceText(yield sources[need.source]!.read(need.location), limits.max_skill_md_bytes);
        } catch (e) {
          text = { error: describe(e), refused: isRefusal(e) };
        }
        if ('bytes' in text) {
          const { bytes } = text;
          try {
            call(() => build.readBytes(bytes));
            continue;
          } catch (e) {
            // Not handed over (a view of a detached buffer): that file's read failed.
            if (!(e instanceof TypeError)) throw e;
            text = { error: describe(e) };
          }
        }
        call(() => 'text' in text ? build.read(text.text, undefined, false)
          : build.read(undefined, text.error, text.refused === true));
      } else if (need.need === 'embed') {
        try {
          build.embedded(yield* embedTexts(embed!, need.texts), undefined);
        } catch (e) {
          call(() => build.embedded(undefined, describe(e)));
        }
      } else {
        throw new SkillwireError(`the core asked for ${JSON.stringify(need)}, which this version cannot answer`, 'invalid_value');
      }
    }
  } finally {
    build.free();
  }
}

/** Plans a turn in the core (once), reads the bodies it may need, then renders it.
 * `given` is the turn's context (`{recent, embedding, selected}`, checked by the core);
 * with `selected` (names the host's model chose) the turn injects those instead of what
 * the rules and ranking find, so the message is not embedded. */
function* turn(
  catalog: Catalog, sources: SkillSource[], embed: Embed | undefined, message: string,
  given: TurnContext | undefined, limits: CoreLimits, listFiles: boolean,
): Steps<Injection> {
  checkMessage(message, limits.max_message_bytes);
  const context = yield* turnContext(embed, message, given);
  const plan = call(() => catalog.turn(message, context));
  try {
    const reads = call(() => catalog.reads(plan)) as PlannedRead[];
    const bodies = yield* readBodies(sources, reads, limits, listFiles);
    return result<Injection>(() => catalog.render(plan, bodies));
  } finally {
    plan.free();
  }
}

/** The SKILL.md texts of a turn's reads, each with its source and location: `{text}` or
 * `{error}` (two sources may use the same location); with `listFiles`, each skill's
 * folder listing too, from sources that have `listFiles` (a failing one lists nothing). */
function* readBodies(
  sources: SkillSource[], reads: PlannedRead[], limits: CoreLimits, listFiles: boolean,
): Steps<(PlannedRead & Text & { files?: unknown })[]> {
  const bodies: (PlannedRead & Text & { files?: unknown })[] = [];
  for (const { source, location } of reads) {
    let body: PlannedRead & Text & { files?: unknown };
    try {
      const text = yield sources[source]!.read(location);
      body = { source, location, ...decoded(sourceText(text, limits.max_skill_md_bytes)) };
    } catch (e) {
      body = { source, location, error: describe(e) };
    }
    const lister = sources[source];
    if (listFiles && 'text' in body && typeof lister?.listFiles === 'function') {
      try {
        const files: unknown = yield lister.listFiles(location);
        // Entries the core can read ({path: string, size: number}); others are left out.
        if (Array.isArray(files)) {
          body.files = files.filter((f) => typeof f?.path === 'string' && Number.isFinite(f?.size) && f.size >= 0);
        }
      } catch {
        // No listing: the block ends without one.
      }
    }
    bodies.push(body);
  }
  return bodies;
}

/** The selection prompt, with the message embedded when the skills are (for the shortlist). */
function* selectSteps(
  catalog: Whole.Catalog, embed: Embed | undefined, message: string, options: SelectPromptOptions | undefined,
  limits: CoreLimits,
): Steps<SelectPrompt> {
  checkMessage(message, limits.max_message_bytes);
  const { stats, turn: given, ...rest } = options ?? {};
  const context = yield* turnContext(embed, message, given);
  const records = Array.isArray(stats) ? stats.map(snakeKeys) : stats;
  return result<SelectPrompt>(() => catalog.selectPrompt(message, context, records, snakeKeys(rest)));
}

/** `rank: boolean | {enabled, maxRanked, minScore, ...}` in the core's shape. */
function rankOptions(rank: Options['rank']): object | undefined {
  if (rank === undefined || rank === null) return undefined;
  return typeof rank === 'boolean' ? { enabled: rank } : defined(snakeKeys(rank) ?? {});
}

/** A vector from the host's model as a plain array (Float32Array and friends too). */
/** The vectors `embed` gives for `texts`, as plain arrays of numbers; throws when its answer
 * is not an array, or holds something that is not numbers. */
function* embedTexts(embed: Embed, texts: string[]): Steps<number[][]> {
  const given: unknown = yield embed(texts);
  if (!Array.isArray(given)) throw new Error(`embed() returned ${typeof given}, not an array`);
  return (given as ArrayLike<number>[]).map(plainVector);
}

function plainVector(v: ArrayLike<number> | null | undefined): number[] {
  return Array.isArray(v) ? v : Array.from(v ?? []);
}

type Embed = NonNullable<Options['embed']>;

/** The turn's context, with the message embedded when the skills are and the turn ranks
 * (a turn on the host model's choice, `selected`, ranks nothing). */
function* turnContext(embed: Embed | undefined, message: string, context: TurnContext | undefined):
  Steps<TurnContext | undefined> {
  // A field set to `undefined` is one left out, as the types say.
  if (context !== null && typeof context === 'object') context = defined(context as Record<string, unknown>);
  if (!embed || context?.embedding !== undefined || context?.selected != null) return context;
  try {
    const [vector] = (yield embed([message])) as ArrayLike<number>[];
    return { ...context, embedding: plainVector(vector) };
  } catch {
    return context; // the model failed this turn: rank by words alone
  }
}

function* catalogForSteps(
  catalog: Catalog, embed: Embed | undefined, message: string, options: CatalogForOptions | undefined,
  limits: CoreLimits,
): Steps<CatalogText> {
  checkMessage(message, limits.max_message_bytes);
  const { format = 'agent-skills', budget, featured, recent, embedding } = options ?? {};
  const wanted = featured ?? coreDefaultsJs().featured;
  const count = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, 0xffffffff) : 0;
  const context = { ...(recent !== undefined ? { recent } : {}), ...(embedding !== undefined ? { embedding } : {}) };
  const given = yield* turnContext(embed, message, context);
  return result<CatalogText>(() => catalog.catalogFor(message, given, count, format, budget));
}

function* matchSteps(
  catalog: Catalog, embed: Embed | undefined, message: string, context: TurnContext | undefined,
  limits: CoreLimits,
): Steps<Matches> {
  checkMessage(message, limits.max_message_bytes);
  const given = yield* turnContext(embed, message, context);
  return result<Matches>(() => catalog.turnMatches(message, given));
}

/** Where the core says to list or read a skill's files (handed back to it as it is). */
interface FileRequest { source: number; location: string; path: string; max_bytes: number }

function* filesSteps(catalog: Whole.Catalog, sources: SkillSource[], skill: string): Steps<SkillFiles> {
  const request: FileRequest = call(() => catalog.filesRequest(skill));
  const source = sources[request.source];
  let listed: unknown;
  let error: string | undefined;
  // A source without `listFiles` has no files: the core says so.
  if (typeof source?.listFiles === 'function') {
    try {
      listed = yield source.listFiles(request.location);
      if (!Array.isArray(listed)) error = `listFiles() returned ${listed === null ? 'null' : typeof listed}, not an array`;
    } catch (e) {
      error = describe(e);
    }
  }
  return result(() => catalog.fileList(request, listed, error));
}

function* readFileSteps(catalog: Whole.Catalog, sources: SkillSource[], skill: string, path: string): Steps<FileContent> {
  const request: FileRequest = call(() => catalog.fileRequest(skill, path));
  const { bytes, error } = yield* fetchFile(sources, request);
  return result(() => catalog.fileContent(request, bytes, error));
}

function* answerReadFileSteps(catalog: Whole.Catalog, sources: SkillSource[], args: unknown): Steps<ToolAnswer> {
  const text = typeof args === 'string' ? args : JSON.stringify(args ?? null);
  const step: { request?: FileRequest; answer?: unknown } = call(() => catalog.readFileCall(text));
  if (!step.request) return camelKeys(step.answer) as ToolAnswer;
  const request = step.request;
  const { bytes, error } = yield* fetchFile(sources, request);
  return result(() => catalog.readFileAnswer(request, bytes, error));
}

/** What the source's `readFile` gave for `request`: bytes (at most the limit and one
 * more), or why not; neither when it has no `readFile`. */
function* fetchFile(sources: SkillSource[], request: FileRequest): Steps<{ bytes?: Uint8Array; error?: string }> {
  const source = sources[request.source];
  let bytes: Uint8Array | undefined;
  let error: string | undefined;
  if (typeof source?.readFile === 'function') {
    try {
      const got: unknown = yield source.readFile(request.location, request.path, request.max_bytes);
      bytes = typeof got === 'string' ? new TextEncoder().encode(got) : asBytes(got);
      if (!bytes) error = `readFile() returned ${got === null ? 'null' : typeof got}, not bytes or a string`;
      // One byte past the limit is enough for the core to refuse it: no more is copied in.
      if (bytes && bytes.length > request.max_bytes + 1) bytes = bytes.subarray(0, request.max_bytes + 1);
    } catch (e) {
      error = describe(e);
    }
  }
  return { bytes, error };
}

/** `{maxSkillMdBytes: 1}` → `{max_skill_md_bytes: 1}`; undefined stays undefined. */
function snakeKeys(object: object | undefined): Record<string, unknown> | undefined {
  // A field set to `undefined` is one left out, as the types say.
  return object && Object.fromEntries(Object.entries(object)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()), v]));
}

/** An object without its `undefined` fields: the core fills what is left out with its
 * own defaults (nothing here restates them). */
function defined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

/** The core's `Options` for the JS options. */
interface CoreOptions { catalog: Record<string, unknown>; render: Record<string, unknown> }

/** The JS options (`{precedence, budget, rank: {maxRanked}, ...}`) in the core's shape. */
function coreOptions(o: Options): CoreOptions {
  return {
    catalog: defined({
      precedence: o.precedence,
      available: o.available,
      rank: rankOptions(o.rank),
      not_user_invocable: o.notUserInvocable,
      scan_bodies: o.scanBodies,
      allow: o.allow,
      deny: o.deny,
      limits: snakeKeys(o.limits),
      scan: snakeKeys(o.scan),
    }),
    render: defined({
      format: o.format,
      budget: o.budget,
      base_dir: o.baseDir,
      list_files: o.listFiles,
      min_truncated_bytes: o.minTruncatedBytes,
    }),
  };
}

/** Each core key's camelCase spelling, computed once (the core's keys are a fixed set). */
const camelNames = new Map<string, string>();

function camelName(key: string): string {
  let name = camelNames.get(key);
  if (name === undefined) {
    name = key.includes('_') ? key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : key;
    if (camelNames.size < 4096) camelNames.set(key, name);
  }
  return name;
}

/** `{max_skill_md_bytes: 1}` → `{maxSkillMdBytes: 1}`, in nested objects too. Arrays are
 * rewritten in place: the values are fresh from the core. */
function camelKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = camelKeys(value[i]);
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) out[camelName(key)] = camelKeys((value as Record<string, unknown>)[key]);
  return out;
}

let defaultsCache: Defaults | null = null;

/** The core's defaults in the JS shapes (the constructor's options, `selectPrompt`'s
 * options, the default counts of `catalogFor` and `complete`), read from the core once.
 * Shared: callers only read it; `Skillwire.defaults()` hands out a copy. */
function coreDefaultsJs(): Defaults {
  if (!defaultsCache) {
    const { options, select, featured, completions } = glue().defaults() as {
      options: { catalog: object; render: object }; select: object; featured: number; completions: number;
    };
    defaultsCache = {
      options: camelKeys({ ...options.catalog, ...options.render }),
      select: camelKeys(select),
      featured,
      completions,
    } as Defaults;
  }
  return defaultsCache;
}

function requireReady(what: string): void {
  if (!isReady()) throw new SkillwireError(`call \`await init()\` before ${what} in a browser`, 'not_initialised');
}

/** The whole package's module, or `not_in_module` for what `skillwire/turns` leaves out. */
function requireWhole(what: string): typeof Whole {
  const g = glue();
  if (!('Build' in g)) {
    throw new SkillwireError(`${what} needs the whole package (import 'skillwire'); ${moduleName()} restores catalogues and runs turns`, 'not_in_module');
  }
  return g;
}

/** A catalogue already built by `Skillwire.create`, handed to the constructor. */
const BUILT = Symbol('built');

type BuiltOptions = Options & { [BUILT]?: Catalog };

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry<Catalog>((catalog) => catalog.free())
  : null;

/** Skills from one or more sources, ready for every turn of a conversation. */
export class Skillwire {
  #sources: SkillSource[];
  #options: CoreOptions;
  #limits: CoreLimits;
  #timeout: number | undefined;
  #embed: Embed | undefined;
  #embeddingError: string | null = null;
  /** How many updates' skills are being embedded again (`embeddingError` says so meanwhile). */
  #reembedding = 0;
  #catalog: Catalog | null = null;
  /** Catalogues that calls still running use, with how many: one replaced meanwhile (by a
   * refresh or an update) is freed when the last of them ends, not under them. */
  #holds = new Map<Catalog, number>();
  /** Counts the changes to the live catalogue (replaced, or an entry taken in place): a
   * refresh that started before one is made again from it. */
  #generation = 0;

  /**
   * Builds the catalog synchronously: every source must answer synchronously. In
   * browsers, `await init()` first (or use `Skillwire.create`).
   */
  constructor(options: Options<SyncSkillSource> = {}) {
    requireReady('`new Skillwire()`');
    this.#sources = [...(options.sources ?? [])];
    this.#options = coreOptions(options);
    this.#limits = call(() => glue().effectiveLimits(this.#options.catalog.limits)) as CoreLimits;
    this.#timeout = options.timeout;
    this.#embed = options.embed;
    this.#use((options as BuiltOptions)[BUILT] ?? runSync(this.#buildSteps()));
  }

  /** Builds the catalog, awaiting sources (and `embed`) that return Promises. */
  static async create(options: Options = {}): Promise<Skillwire> {
    await loadAsync(options.wasm);
    const core = coreOptions(options);
    const limits = call(() => glue().effectiveLimits(core.catalog.limits)) as CoreLimits;
    const sources = [...(options.sources ?? [])];
    const built = await runAsync(buildSteps(sources, core, limits, options.embed), options.timeout);
    return new Skillwire({ ...options, [BUILT]: built } as Options<SyncSkillSource>);
  }

  /**
   * A Skillwire on the catalogue of `snapshot` (what `sw.snapshot(key)` gave in the whole
   * package of the same version), with no build (`skillwire/turns`): `options` are those the
   * catalogue was built with (its `sources` read the bodies turns inject; `key` as given
   * to `snapshot`, default `''`). Throws with code `snapshot_other_options` when the
   * catalogue options differ, `snapshot_other_key`, `snapshot_other_version` (another
   * version of skillwire wrote it), `snapshot_unread` (its build could not read an entry)
   * or `snapshot_unreadable`. In browsers, `await init()` first. No `embed`: a snapshot keeps
   * no embeddings (set them with `setEmbeddings`, and give each turn its `embedding`).
   */
  static restore(snapshot: Uint8Array | ArrayBuffer, options: Options & { key?: string } = {}): Skillwire {
    requireReady('`Skillwire.restore()`');
    const bytes = ArrayBuffer.isView(snapshot)
      ? new Uint8Array(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength) : asBytes(snapshot);
    if (!bytes) throw new SkillwireError('restore(snapshot): snapshot must be a Uint8Array or an ArrayBuffer', 'invalid_argument');
    if (options.embed !== undefined) {
      throw new SkillwireError(
        'restore(): a snapshot keeps no embeddings; set them with setEmbeddings() and pass each message\'s vector as `embedding`',
        'invalid_argument');
    }
    const g = glue();
    if (!('restore' in g)) {
      throw new SkillwireError(`\`Skillwire.restore()\` is skillwire/turns's; ${moduleName()} builds catalogues and writes their snapshots`, 'not_in_module');
    }
    const { key = '', ...rest } = options;
    const catalog = call(() => g.restore(bytes, String(key), coreOptions(rest)));
    return new Skillwire({ ...rest, [BUILT]: catalog } as Options<SyncSkillSource>);
  }

  /**
   * The catalogue as bytes, for `Skillwire.restore` under the same `key` (default `''`)
   * and catalogue options: build once (at deploy time, on a server) and restore where
   * turns run, e.g. a chat page with `skillwire/turns`. The skills' embeddings are not
   * kept. Bytes are for this version of skillwire. A catalogue whose build could not read an
   * entry (see `report()`) is written but refused by `restore` (`snapshot_unread`): build
   * it again once the source answers.
   */
  snapshot(key = ''): Uint8Array {
    const catalog = this.#whole('`snapshot()`');
    return call(() => catalog.snapshot(String(key)));
  }

  #buildSteps(previous?: Catalog): Steps<Whole.Catalog> {
    // A catalogue to refresh is the whole package's: buildSteps runs in no other. (It is
    // read when the steps start, before they wait for anything.)
    return buildSteps(this.#sources, this.#options, this.#limits, this.#embed, previous as Whole.Catalog | undefined);
  }

  /** Why the skills have no embeddings when `embed` failed, else null. */
  get embeddingError(): string | null { return this.#embeddingError; }

  /** The embedder for turns: only while the skills have embeddings. */
  get #turnEmbed(): Embed | undefined { return this.#embeddingError === null ? this.#embed : undefined; }

  /** Takes `next` as the live catalogue, freeing the one before (once no call uses it). */
  #use(next: Catalog): void {
    this.#embeddingError = next.embeddingError() ?? null;
    if (this.#catalog) {
      registry?.unregister(this);
      this.#retire(this.#catalog);
    }
    this.#catalog = next;
    this.#generation++;
    registry?.register(this, next, this);
  }

  /** Frees `catalog`, no longer live, now or when the last call using it ends. */
  #retire(catalog: Catalog): void {
    if (!this.#holds.has(catalog)) catalog.free();
  }

  /** Runs `steps`, made on the live `catalog`, keeping it from being freed until they end:
   * a turn that waits for a source finishes on the catalogue it was planned on, even when
   * a refresh replaced it meanwhile. */
  async #holding<T>(catalog: Catalog, steps: Steps<T>): Promise<T> {
    this.#holds.set(catalog, (this.#holds.get(catalog) ?? 0) + 1);
    try {
      return await runAsync(steps, this.#timeout);
    } finally {
      const left = (this.#holds.get(catalog) ?? 1) - 1;
      if (left > 0) {
        this.#holds.set(catalog, left);
      } else {
        this.#holds.delete(catalog);
        if (catalog !== this.#catalog) catalog.free();
      }
    }
  }

  #live(): Catalog {
    if (!this.#catalog) throw new SkillwireError('this Skillwire was freed', 'freed');
    return this.#catalog;
  }

  /** The live catalogue, for what only the whole package's module does. */
  #whole(what: string): Whole.Catalog {
    requireWhole(what);
    return this.#live() as Whole.Catalog;
  }

  /** Lists the sources again and reads the entries whose `stamp` changed, or that have
   * none; with `embed`, asks it only for the skills whose text to embed it has not embedded
   * (vectors set with `setEmbeddings` go, as with any refresh). */
  async refresh(): Promise<void> {
    for (;;) {
      const generation = this.#generation;
      const next = await runAsync(this.#buildSteps(this.#live()), this.#timeout);
      if (this.#catalog !== null && this.#generation === generation) {
        this.#use(next);
        return;
      }
      // Freed meanwhile (`#live` then says so), or changed by another refresh or an update
      // that ended first: this one, which may have listed the sources before that change,
      // is made again from the catalogue as it is now.
      next.free();
    }
  }
  /** `refresh`, synchronously. */
  refreshSync(): void {
    this.#use(runSync(this.#buildSteps(this.#live())));
  }

  /**
   * Takes one changed entry of `sources[source]` — listed where it was (the same location,
   * origin and id), its SKILL.md edited, with its new `stamp` (and its `text` when the host
   * has it at hand; else it is read) — without listing the sources: in place, in time
   * proportional to that skill, when it leaves its skill's fields, "When to use" sections,
   * id, gates, warnings and blocked flag as they were (an edit to a body's instructions);
   * in place, the catalogue's indexes taking it in place too, when it edits only what
   * they read (a description, tags, `when_to_use`, `when_not_to_use`, "When to use"
   * sections); otherwise the catalogue is refreshed (`refresh()`). Resolves to `true` when
   * the entry was taken in place with nothing else changed (or its stamp had not changed),
   * `false` when the catalogue's indexes changed, or it was refreshed. For a host that
   * learns of one change at a time (a file watcher, an editor saving a skill): other changes
   * are seen at the next refresh. An update that resolves to `true` keeps the embeddings set
   * with `setEmbeddings`; after `false` they are gone, as after a refresh (with `embed`, the
   * skills whose text to embed changed are embedded before it resolves; the others keep the
   * vectors `embed` gave them).
   */
  async update(source: number, entry: SkillEntry): Promise<boolean> {
    const done = await runAsync(this.#updateSteps(source, entry), this.#timeout);
    const refreshes = this.#refreshesAfter(done);
    if (refreshes) await this.refresh();
    return done === 'in-place' && !refreshes;
  }
  /** `update`, synchronously. */
  updateSync(source: number, entry: SkillEntry): boolean {
    const done = runSync(this.#updateSteps(source, entry));
    const refreshes = this.#refreshesAfter(done);
    if (refreshes) this.refreshSync();
    return done === 'in-place' && !refreshes;
  }

  /**
   * Takes the entry of source `source` at `location` out of the catalogue (its SKILL.md
   * deleted) without listing the sources: its skill, warnings and safety report go, and
   * the catalogue's indexes take the removal in place, the skills left keeping the vectors
   * `embed` gave them; otherwise (an entry the catalogue has not listed with a `stamp` or
   * whose skill did not load, its last, a skill that shadowed another or is listed as
   * `name@origin`, two skills met under one name from two origins), and when `embed`
   * failed, the catalogue is refreshed (`refresh()`). Resolves to `true` when the entry was
   * taken out without a refresh. Embeddings set with `setEmbeddings` go, as after a refresh.
   */
  async remove(source: number, location: string): Promise<boolean> {
    const done = await runAsync(this.#removeSteps(source, location), this.#timeout);
    const refreshes = this.#refreshesAfter(done);
    if (refreshes) await this.refresh();
    return !refreshes;
  }
  /** `remove`, synchronously. */
  removeSync(source: number, location: string): boolean {
    const refreshes = this.#refreshesAfter(runSync(this.#removeSteps(source, location)));
    if (refreshes) this.refreshSync();
    return !refreshes;
  }

  /** Whether the entry was taken out in place (`'reindexed'`: the skills without a vector
   * then embedded with `embed`) or is left to a refresh. */
  *#removeSteps(source: number, location: string): Steps<UpdateDone> {
    const catalog = this.#whole('`remove()`');
    this.#sourceAt(source, 'remove');
    if (typeof location !== 'string') throw new SkillwireError('remove(): the location must be a string', 'invalid_argument');
    const done = call(() => catalog.remove(source, location)) as UpdateDone;
    if (done !== 'not-taken') this.#generation++;
    if (done === 'reindexed' && typeof this.#embed === 'function') yield* this.#embedSteps(catalog);
    return done;
  }

  /** Source `source`, or an `invalid_argument` error naming `method`. */
  #sourceAt(source: number, method: string): SkillSource {
    const from = Number.isInteger(source) ? this.#sources[source] : undefined;
    if (!from) throw new SkillwireError(`${method}(${String(source)}): no such source`, 'invalid_argument');
    return from;
  }

  /** Whether an update that did `done` is followed by a refresh: when the entry was not
   * taken, and when `embed` failed before (a refresh tries it again). */
  #refreshesAfter(done: UpdateDone): boolean {
    return done === 'not-taken' || this.#embedFailed;
  }

  /** Embeds with `embed` the skills of `catalog` that have no vector (an update that made
   * its indexes again left the skills read again without one, the others with the model's);
   * a failure is kept as `embeddingError`. */
  *#embedSteps(catalog: Whole.Catalog): Steps<void> {
    const texts = call(() => catalog.missingEmbeddingTexts()) as { skill: string; text: string }[];
    if (texts.length === 0) return;
    // Until the vectors are back the skills rank by words, and say so (a sync call whose
    // `embed` returns a Promise stops here, and the next update refreshes).
    this.#embeddingError = 'the skills are being embedded again after an update';
    this.#reembedding++;
    try {
      const vectors = yield* embedTexts(this.#embed!, texts.map((t) => t.text));
      if (vectors.length !== texts.length) throw new Error(`embed() returned ${vectors.length} vectors for ${texts.length} texts`);
      // A refresh that ended meanwhile replaced the catalogue, and embedded its own skills.
      if (this.#catalog !== catalog) return;
      // By text: an update that read the skill again meanwhile left it for its own answer.
      call(() => catalog.takeMissingEmbeddings(texts.map((t, i) => [t.text, vectors[i]!])));
      this.#embeddingError = null;
    } catch (e) {
      if (this.#catalog === catalog) this.#embeddingError = describe(e);
    } finally {
      this.#reembedding--;
    }
  }

  /** Whether `embed` failed for the live catalogue: an update then refreshes, which tries
   * again (not while an update's skills are being embedded again: that has not failed). */
  get #embedFailed(): boolean {
    return this.#embeddingError !== null && this.#reembedding === 0 && typeof this.#embed === 'function';
  }

  /** Whether `entry` of source `source` was taken in place (its text read when it came
   * without one; a read that fails leaves it to the refresh). */
  *#updateSteps(source: number, entry: SkillEntry): Steps<UpdateDone> {
    const catalog = this.#whole('`update()`');
    const from = this.#sourceAt(source, 'update');
    const [listed] = entriesOf([entry], this.#limits);
    let text: string | undefined;
    if (listed!.text === undefined && listed!.error === undefined) {
      try {
        const read = decoded(sourceText(yield from.read(listed!.location), this.#limits.max_skill_md_bytes));
        if (!('text' in read)) return 'not-taken';
        text = read.text;
      } catch {
        return 'not-taken';
      }
      // A refresh that ended while the text was read replaced the catalogue: refreshed again.
      if (this.#catalog !== catalog) return 'not-taken';
    }
    const done = call(() => catalog.update(source, listed, text)) as UpdateDone;
    if (done !== 'not-taken') this.#generation++;
    if (done === 'reindexed' && typeof this.#embed === 'function') yield* this.#embedSteps(catalog);
    return done;
  }

  /** What to embed for each skill (`[{skill, text}]`), for hosts that call `setEmbeddings`. */
  embeddingTexts(): { skill: string; text: string }[] {
    return call(() => this.#live().embeddingTexts());
  }

  /**
   * Sets the skills' embeddings: `{[name]: vector}` or `[[name, vector]]`. Returns how
   * many skills have one; a refresh drops them (unless `embed` was given).
   */
  setEmbeddings(vectors: Record<string, ArrayLike<number>> | [string, ArrayLike<number>][]): number {
    const pairs = Array.isArray(vectors) ? vectors : Object.entries(vectors ?? {});
    return call(() => this.#live().setEmbeddings(pairs.map(([name, v]) => [name, plainVector(v)])));
  }

  /**
   * The core's defaults, in the shapes this package takes: `options` (what the
   * constructor and `create` accept: `budget`, `format`, `rank`, `limits`, `scan`, ...),
   * `select` (`selectPrompt`'s options), `featured` (`catalogFor`) and `completions`
   * (`complete`). Start from these and change what you need; nothing here restates them.
   * (After `init()` in a browser.)
   */
  static defaults(): Defaults {
    requireReady('`Skillwire.defaults()`');
    return structuredClone(call(coreDefaultsJs));
  }

  /** What building the catalog found: skipped, shadowed and gated skills, warnings. */
  report(): CatalogReport { return result(() => this.#live().report()); }

  /**
   * Runs a turn: the message with the skills it calls for prepended, and every decision.
   * `context.recent` names skills whose bodies are still in the model's context from
   * recent turns: they are not injected again (decision `recently-injected`).
   * `context.embedding` is the message's vector (else `embed` is asked for it).
   * `context.selected` names the skills your model chose (LLM selection, step 3):
   * the turn injects those, after the message's `@mentions`, instead of what the rules
   * and ranking find.
   */
  async inject(message: string, context?: TurnContext): Promise<Injection> {
    const catalog = this.#live();
    return this.#holding(catalog, this.#turnSteps(catalog, message, context));
  }
  /** `inject` for synchronous sources. */
  injectSync(message: string, context?: TurnContext): Injection {
    return runSync(this.#turnSteps(this.#live(), message, context));
  }

  #turnSteps(catalog: Catalog, message: string, context: TurnContext | undefined): Steps<Injection> {
    const listFiles = this.#options.render.list_files === true;
    return turn(catalog, this.#sources, this.#turnEmbed, message, context, this.#limits, listFiles);
  }

  /** The skills a turn on `message` would inject (`{matches}`); reads no bodies. */
  async match(message: string, context?: TurnContext): Promise<Matches> {
    const catalog = this.#live();
    return this.#holding(catalog, matchSteps(catalog, this.#turnEmbed, message, context, this.#limits));
  }
  /** `match`, synchronously. */
  matchSync(message: string, context?: TurnContext): Matches {
    return runSync(matchSteps(this.#live(), this.#turnEmbed, message, context, this.#limits));
  }

  /** The catalog for the system prompt (`{text, shortened, omitted}`). */
  async catalog(options: { format?: CatalogFormat; budget?: number } = {}): Promise<CatalogText> {
    return this.catalogSync(options);
  }
  /** `catalog`, synchronously. */
  catalogSync({ format = 'agent-skills', budget }: { format?: CatalogFormat; budget?: number } = {}): CatalogText {
    return result(() => this.#live().catalog(format, budget));
  }

  /**
   * The catalog for a turn on `message` (`{text, shortened, omitted, featured?,
   * namesOnly?}`): the `featured` (10) skills most relevant to it first, with their
   * descriptions, the others by name only; over `budget`, name-only entries go first.
   * `options`: `format`, `budget`, `featured`, and the turn's `recent` / `embedding`.
   */
  async catalogFor(message: string, options: CatalogForOptions = {}): Promise<CatalogText> {
    const catalog = this.#live();
    return this.#holding(catalog, catalogForSteps(catalog, this.#turnEmbed, message, options, this.#limits));
  }
  /** `catalogFor`, synchronously. */
  catalogForSync(message: string, options: CatalogForOptions = {}): CatalogText {
    return runSync(catalogForSteps(this.#live(), this.#turnEmbed, message, options, this.#limits));
  }

  /**
   * The files of skill `skill`'s folder (`{skill, files: [{path, size, kind, mediaType}],
   * leftOut}`), from its source's `listFiles(location)`: paths normalised and sorted, a
   * path that could leave the folder left out. Throws `unknown_skill`, `blocked_skill`, or
   * `file_unavailable` (the source failed, or has no `listFiles`).
   */
  async files(skill: string): Promise<SkillFiles> {
    const catalog = this.#whole('files');
    return this.#holding(catalog, filesSteps(catalog, this.#sources, skill));
  }
  /** `files` for synchronous sources. */
  filesSync(skill: string): SkillFiles {
    return runSync(filesSteps(this.#whole('files'), this.#sources, skill));
  }

  /**
   * File `path` of skill `skill`'s folder (`{skill, path, kind, mediaType, size, digest,
   * findings, body: {type: 'text', value: string} | {type: 'binary', value: Uint8Array}}`),
   * from its source's `readFile(location, path, maxBytes)`. The path is checked before
   * the source is asked (`invalid_path`: absolute, `..`, `\\`, `:`, control characters);
   * text is scanned like a body (`file_blocked`, with `findings`); `file_too_large` past
   * `limits.maxFileBytes`. A `script` is returned as text, never run.
   */
  async readFile(skill: string, path: string): Promise<FileContent> {
    const catalog = this.#whole('readFile');
    return this.#holding(catalog, readFileSteps(catalog, this.#sources, skill, path));
  }
  /** `readFile` for synchronous sources. */
  readFileSync(skill: string, path: string): FileContent {
    return runSync(readFileSteps(this.#whole('readFile'), this.#sources, skill, path));
  }

  /**
   * The tool that lets a model open a file an injected skill points to, in `provider`'s
   * shape: input `{skill, path}`. Answer its calls with `answerReadFile`.
   */
  static readFileTool(provider: ToolProvider): OpenAiTool | AnthropicTool {
    requireReady('`Skillwire.readFileTool()`');
    return call(() => requireWhole('`Skillwire.readFileTool()`').readFileTool(provider));
  }

  /**
   * Answers a model's call of `readFileTool` (`args`: the arguments it wrote, as JSON text
   * or parsed): `{content, isError}` — the file's text, a line describing a binary file,
   * or why it could not be read (a path leaving the folder, a blocked file, …). Return
   * `content` as the tool's result.
   */
  async answerReadFile(args: unknown): Promise<ToolAnswer> {
    const catalog = this.#whole('answerReadFile');
    return this.#holding(catalog, answerReadFileSteps(catalog, this.#sources, args));
  }
  /** `answerReadFile` for synchronous sources. */
  answerReadFileSync(args: unknown): ToolAnswer {
    return runSync(answerReadFileSteps(this.#whole('answerReadFile'), this.#sources, args));
  }

  /**
   * The skills to offer as a user types `@` and `typed` (`[{name, description, match}]`,
   * at most `limit`, by default `Skillwire.defaults().completions`): prefix matches on the
   * name first, ignoring case and separators, then fuzzy ones; gated, hidden and unsafe
   * skills left out. Synchronous: it reads nothing.
   */
  complete(typed: string, limit?: number): Completion[] {
    if (typeof typed !== 'string') throw new SkillwireError('complete(typed): typed must be a string', 'invalid_argument');
    const wanted = limit ?? coreDefaultsJs().completions;
    const max = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, 0xffffffff) : 0;
    return result(() => this.#live().complete(typed, max));
  }

  /**
   * LLM selection, step 1: the prompt asking your model which skills `message` calls for
   * (`{prompt, candidates, shortlisted, leftOut}`). `options`: `maxSkills`,
   * `shortlistAbove`, `shortlistSize`, `stats` (`[{skill, selected, applied, completed,
   * fellBack}]`: skills they show failing are left out, see `neverCompletedAfter`,
   * `fallbackAfter`, `maxFallbackRate`), `turn` (`{embedding}`); defaults in
   * `Skillwire.defaults().select`. When `candidates` is empty there is nothing to ask.
   */
  async selectPrompt(message: string, options: SelectPromptOptions = {}): Promise<SelectPrompt> {
    const catalog = this.#whole('selectPrompt');
    return this.#holding(catalog, selectSteps(catalog, this.#turnEmbed, message, options, this.#limits));
  }
  /** `selectPrompt`, synchronously. */
  selectPromptSync(message: string, options: SelectPromptOptions = {}): SelectPrompt {
    return runSync(selectSteps(this.#whole('selectPrompt'), this.#turnEmbed, message, options, this.#limits));
  }

  /**
   * LLM selection, step 2: your model's reply read tolerantly (`{skills, briefPlan?,
   * unknown, overLimit, reply}`): JSON alone, fenced or in prose, an object with
   * `skills` or a bare list, else a plain list of names; at most `maxSkills` kept (by
   * default `Skillwire.defaults().select.maxSkills`).
   */
  selectParse(reply: string, maxSkills?: number): Selection {
    if (typeof reply !== 'string') throw new SkillwireError('selectParse(reply): reply must be a string', 'invalid_argument');
    checkMessage(reply, this.#limits.max_message_bytes, 'reply');
    const wanted = maxSkills ?? coreDefaultsJs().select.maxSkills;
    const max = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, 0xffffffff) : 0;
    const catalog = this.#whole('selectParse');
    return result(() => catalog.selectParse(reply, max));
  }

  /**
   * LLM selection, step 3: runs a turn on the skills your model chose (`selected`, e.g.
   * `selectParse(...).skills`), after those the message `@mentions`; decisions say
   * `selected`. Same budget, scan and `context.recent` as `inject`. (Shorthand for
   * `inject(message, {...context, selected})`.)
   */
  async injectSelected(message: string, selected: string[], context?: TurnContext): Promise<Injection> {
    return this.inject(message, { ...context, selected });
  }
  /** `injectSelected` for synchronous sources. */
  injectSelectedSync(message: string, selected: string[], context?: TurnContext): Injection {
    return this.injectSync(message, { ...context, selected });
  }

  /**
   * The skills a model may invoke, as tools (`[{name, skill, description, inputSchema,
   * maxTurns}]`), named `skills__<name>`; `exclude` names skills to leave out (the one
   * whose run is asking).
   */
  tools({ exclude = [] }: { exclude?: string[] } = {}): SkillTool[] {
    const catalog = this.#whole('tools');
    return result(() => catalog.tools(exclude));
  }

  /** `tools` in `provider`'s shape (`'openai'` or `'anthropic'`): the array to pass as `tools`. */
  toolDefinitions(provider: 'openai', options?: { exclude?: string[] }): OpenAiTool[];
  toolDefinitions(provider: 'anthropic', options?: { exclude?: string[] }): AnthropicTool[];
  toolDefinitions(provider: ToolProvider, { exclude = [] }: { exclude?: string[] } = {}): OpenAiTool[] | AnthropicTool[] {
    const catalog = this.#whole('toolDefinitions');
    return call(() => catalog.toolDefinitions(provider, exclude));
  }

  /** Lints one SKILL.md text. */
  async lint(location: string, text: string, options?: LintOptions): Promise<LintReport> {
    return lint(location, text, options);
  }
  /** `lint`, synchronously. */
  lintSync(location: string, text: string, options?: LintOptions): LintReport { return lint(location, text, options); }

  /** Releases the WebAssembly memory now (it is also released when this is collected). */
  free(): void {
    if (this.#catalog) {
      registry?.unregister(this);
      const catalog = this.#catalog;
      this.#catalog = null;
      this.#retire(catalog);
    }
  }

}

export interface Skillwire {
  /** `using sw = new Skillwire(...)`: frees it at the end of the scope (where the runtime
   * has explicit resource management). */
  [Symbol.dispose](): void;
}

if (typeof Symbol.dispose === 'symbol') {
  Skillwire.prototype[Symbol.dispose] = function dispose(this: Skillwire): void { this.free(); };
}

/**
 * Lints one SKILL.md text against the standard and scans it for safety
 * (`{path, valid, errors, warnings, findings?}`).
 */
export function lint(location: string, text: string, { extensions = false, limits, scan, files }: LintOptions = {}): LintReport {
  requireReady('`lint()`');
  const core = coreOptions({ limits, scan }).catalog;
  const { lint: wasmLint } = requireWhole('lint');
  return result(() => wasmLint(location, text, {
    extensions,
    ...(core.limits ? { limits: core.limits } : {}),
    ...(core.scan ? { scan: core.scan } : {}),
    ...(files ? { files } : {}),
  }));
}

/**
 * For sources over a server's listing of skills (the MCP skills extension: `skillwire/mcp`):
 * the SKILL.md text of a skill known only by its listed frontmatter `fields` (the fields,
 * no body), which a catalogue is built from before any file is fetched.
 */
export function listedSkillText(fields: Record<string, unknown>): string {
  requireReady('`listedSkillText()`');
  const { listedSkillText: wasmListedText } = requireWhole('listedSkillText');
  return call(() => wasmListedText(JSON.stringify(fields)));
}

/**
 * Checks a SKILL.md `text` fetched from a server against the frontmatter it `listed`, read
 * as a catalogue reads it (within the default limits, or `limits`): throws a
 * `SkillwireError` (`invalid_value`) saying what differs.
 */
export function checkListedFrontmatter(text: string, listed: Record<string, unknown>, { limits }: { limits?: Limits } = {}): void {
  requireReady('`checkListedFrontmatter()`');
  const core = coreOptions({ limits }).catalog;
  const { checkListedFrontmatter: wasmCheckListed } = requireWhole('checkListedFrontmatter');
  call(() => wasmCheckListed(text, JSON.stringify(listed), core.limits ?? {}));
}

/** `name` (a server's, say) kept to what a skill entry's `origin` label may hold. */
export function originLabel(name: string): string {
  requireReady('`originLabel()`');
  return call(() => glue().originLabel(name));
}
