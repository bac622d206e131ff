// skillwire's WebAssembly component in Node through jco: `dist/` is what
// `jco transpile skillwire.wasm --name skillwire --instantiation sync -o dist` writes (see
// package.json), and this module is the host: it instantiates the component with skill
// sources as its imports and offers the engine with plain results.
//
//   import { Skillwire, folderSource } from './skillwire-jco.mjs';
//   const sw = new Skillwire([folderSource('../skills')]);
//   console.log(sw.inject('write release notes for 2.0').userMessage);
//
// Results are jco's: records with camelCase fields, enum values as kebab-case strings,
// `option`s as `undefined` or the value, sizes as numbers (u32: no BigInt). A call the
// engine refuses throws jco's `ComponentError`; this module rethrows it as a
// `SkillwireError` whose `code` is the WIT case in snake_case (`message_too_large`,
// `invalid_path`, ...) and whose `data` is its payload.
//
// The failure contract of sources (wit/skillwire.wit): a source that throws has its error
// handed to the engine as the import's `err` (a skipped skill, `body-unavailable`, a file
// error); the call goes on. An error `read` throws with `refused: true` (see `refusal`) is a
// refusal of the SKILL.md for what it is, lasting until the file changes: a `refresh()`
// does not read it again while the entry's `stamp` (a string that changes with the file)
// holds; a host that learns of one edited or deleted SKILL.md (a file watcher) hands it to
// `update(source, entry)` or `remove(source, location)`, which take it without listing the
// sources. A failure the host does not contain aborts the call: an import
// that throws a JS `Error` or answers what cannot be lowered unwinds the guest without its
// clean-up (jco lets later calls in), and a trap in the guest leaves the instance refusing
// every call; either way `rebuild()` (a new instance) comes first.

import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { instantiate } from './dist/skillwire.js';

const SOURCE = 'skillwire:engine/skill-source';
const VERSION = '0.1.0';

/** The file-error cases whose core codes carry a `file_` prefix. */
const FILE_CODES = { 'too-large': 'file_too_large', unavailable: 'file_unavailable', blocked: 'file_blocked' };

/** A call the engine refused. */
export class SkillwireError extends Error {
  constructor(code, data) {
    super(`${code}: ${JSON.stringify(data)}`);
    this.name = 'SkillwireError';
    this.code = code;
    this.data = data;
  }
}

/** The core modules jco split the component into, compiled once per process. */
const modules = new Map();
function coreModule(path) {
  if (!modules.has(path)) modules.set(path, new WebAssembly.Module(readFileSync(new URL(`./dist/${path}`, import.meta.url))));
  return modules.get(path);
}

/** A source answer as the import's `result`: `{tag: 'ok'}` or `{tag: 'err'}` with what
 * `error` makes of the thrown value, by default its message (a thrown JS `Error` would abort
 * the guest's call instead). */
function contained(answer, error = message) {
  try {
    return { tag: 'ok', val: answer() };
  } catch (e) {
    return { tag: 'err', val: error(e) };
  }
}

function message(e) {
  return e instanceof Error ? e.message : String(e);
}

/** A `read` failure as the WIT `read-error`. */
function readError(e) {
  return { message: message(e), refused: e?.refused === true };
}

/** An error refusing a SKILL.md for what it is (too large, not UTF-8, not a regular file). */
export function refusal(text) {
  return Object.assign(new Error(text), { refused: true });
}

/** `value` unwrapped from a thrown `ComponentError`, as a `SkillwireError`. */
function rethrown(e) {
  const payload = e?.payload;
  if (payload && typeof payload.tag === 'string') {
    const code = FILE_CODES[payload.tag] ?? payload.tag.replaceAll('-', '_');
    throw new SkillwireError(code, payload.val);
  }
  throw e;
}

/** A bound on any SKILL.md read, far above the engine's own limit (which applies after). */
const MAX_SKILL_MD_READ = 16 << 20;

/** At most `limit` bytes of the regular file at `path` (never through a link); with `cut`
 * the first `limit` bytes of a longer file, else a longer file is an error. */
function readRegular(path, limit, what, cut = false) {
  const stat = lstatSync(path);
  if (!stat.isFile()) throw refusal(`${what}: not a regular file`);
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(limit + (cut ? 0 : 1), stat.size + 1));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    if (!cut && read > limit) throw refusal(`${what} is over ${limit} bytes`);
    return buffer.subarray(0, Math.min(read, limit));
  } finally {
    closeSync(fd);
  }
}

/** Skills on disk: a folder with SKILL.md, or a folder searched for such folders (up to 8
 * levels, `.git` and `node_modules` skipped). Symbolic links are not followed, only regular
 * files are read, and no read goes past the size it is asked for.
 *
 * Each `list()` searches the folder again (so a refresh finds skills added and removed; the
 * first, within `settleMs` of the call, takes this call's search; a root that is gone fails
 * the listing) and stamps each SKILL.md with its size, times, inode and device, as the
 * `skillwire` command does: a refresh reads only the files whose stamp changed. A file
 * changed within the last `settleMs` milliseconds is listed without a stamp (read at every
 * refresh until it settles): a rewrite within the file system's clock tick could otherwise
 * keep its stamp. */
export function folderSource(root, { settleMs = 2000 } = {}) {
  const base = realpathSync(root);
  const settleNs = BigInt(Math.round(settleMs * 1e6));
  let skills = new Set();
  const isFile = (path) => lstatSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  const search = () => {
    const found = [];
    const walk = (dir, depth) => {
      if (isFile(join(dir, 'SKILL.md'))) return void found.push(join(dir, 'SKILL.md'));
      if (depth >= 8) return;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        // The root that cannot be read fails the listing; a folder below it is passed over.
        if (depth === 0) throw e;
        return;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (entry.isDirectory() && entry.name !== '.git' && entry.name !== 'node_modules') walk(join(dir, entry.name), depth + 1);
      }
    };
    walk(base, 0);
    skills = new Set(found); // a read checks its location in constant time
  };
  const entry = (location) => {
    let meta;
    try {
      meta = lstatSync(location, { bigint: true });
    } catch {
      return { location }; // gone (or not to be looked at) since the search: its read says why
    }
    const changed = meta.mtimeNs > meta.ctimeNs ? meta.mtimeNs : meta.ctimeNs;
    if (BigInt(Date.now()) * 1_000_000n - changed < settleNs) return { location };
    return { location, stamp: `${meta.size} ${meta.mtimeNs} ${meta.ctimeNs} ${meta.ino} ${meta.dev}` };
  };
  search();
  // The first listing takes this search when it comes soon after (as the engine's build
  // does), instead of searching twice.
  let searchedAt = performance.now();
  const folderOf = (location) => {
    if (!skills.has(location)) throw new Error(`${location}: not a skill of this source`);
    return location.slice(0, -'SKILL.md'.length - 1);
  };
  return {
    list() {
      if (searchedAt === undefined || performance.now() - searchedAt > settleMs) search();
      searchedAt = undefined;
      return [...skills].map(entry);
    },
    read: (location) => {
      folderOf(location);
      const bytes = readRegular(location, MAX_SKILL_MD_READ, 'SKILL.md');
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw refusal('SKILL.md: not valid UTF-8');
      }
    },
    listFiles: (location) => {
      const folder = folderOf(location);
      const files = [];
      const walkFiles = (dir) => {
        for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) walkFiles(path);
          else if (entry.isFile()) files.push({ path: relative(folder, path).split(sep).join('/'), size: lstatSync(path).size });
        }
      };
      walkFiles(folder);
      return files;
    },
    readFile: (location, path, maxBytes) => {
      const folder = folderOf(location);
      // No segment of the path may be a link (the engine has refused `..` already).
      let at = folder;
      for (const segment of path.split('/')) {
        at = join(at, segment);
        if (lstatSync(at).isSymbolicLink()) throw new Error(`${path}: a link (not followed)`);
      }
      return readRegular(at, maxBytes + 1, path, true);
    },
  };
}

/** An engine over `sources` (objects with `list`, `read`, and optionally `listFiles` and
 * `readFile`, answering directly), `options` changing the component's `defaultOptions()`
 * (camelCase fields; `rank`, `limits` and `scan` merged field by field). */
export class Skillwire {
  constructor(sources, options = {}) {
    this.sources = sources;
    this.options = options;
    this.rebuild();
  }

  /** A new instance of the component, and the engine built again over the same sources. */
  rebuild() {
    const source = (i) => this.sources[i];
    const imports = {
      list: (i) => contained(() => source(i).list().map(skillEntry)),
      read: (i, location) => contained(() => {
        const text = source(i).read(location);
        // Refused here, as the Rust host does, rather than copied into the guest.
        const limit = this.limits.maxSkillMdBytes;
        if (new TextEncoder().encode(text).length > limit) throw refusal(`SKILL.md is over ${limit} bytes`);
        return text;
      }, readError),
      listFiles: (i, location) => contained(() => {
        if (!source(i).listFiles) throw new Error('this source has no skill files');
        // jco lowers a u32 modulo 2^32: a size past it is given as the largest.
        return source(i).listFiles(location).map((f) => ({ path: f.path, size: Math.min(f.size, 0xFFFFFFFF) }));
      }),
      readFile: (i, location, path, maxBytes) => contained(() => {
        if (!source(i).readFile) throw new Error('this source has no skill files');
        const data = source(i).readFile(location, path, maxBytes);
        const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
        return bytes.subarray(0, maxBytes + 1);
      }),
    };
    // The generated code reads the unversioned key; its types name the versioned one.
    const root = instantiate(coreModule, { [SOURCE]: imports, [`${SOURCE}@${VERSION}`]: imports });
    this.api = root.api;
    const options = this.api.defaultOptions();
    // A field the defaults do not have is an error (a misspelt option would do nothing).
    const put = (target, key, value, where) => {
      if (!(key in target)) throw new Error(`no option ${where}${key}`);
      const isRecord = value && typeof value === 'object' && !Array.isArray(value);
      if (!isRecord) return void (target[key] = value);
      for (const [inner, field] of Object.entries(value)) put(target[key], inner, field, `${where}${key}.`);
    };
    for (const [key, value] of Object.entries(this.options)) put(options, key, value, '');
    this.limits = options.limits;
    this.featured = this.api.defaults().featured;
    this.engine = new this.api.Engine(this.sources.length, options);
  }

  call(run) {
    try {
      return run();
    } catch (e) {
      return rethrown(e);
    }
  }

  /** Lists the sources again and reads the entries whose `stamp` changed (and those
   * without one); the rest is what the last build prepared. */
  refresh() { this.engine.refresh(); }
  /** Takes one changed entry of source `source` (as its `list()` gives it: the same location,
   * origin and id, with the new `stamp`, and `text` when at hand) without listing the
   * sources: in place when the edit is to a body's instructions, with the indexes made again
   * when it is to what they read (a description, tags, "When to use" sections), otherwise by
   * a refresh. True when it was taken in place with nothing else changed. */
  update(source, entry) {
    this.#checkSource(source, 'update');
    return this.engine.update(source, skillEntry(entry));
  }
  /** Takes the entry of source `source` at `location` out (its SKILL.md deleted) without
   * listing the sources, or refreshes when it cannot be (an entry listed without a stamp,
   * the last one, a skill that shadowed another). True when it was taken out without a
   * refresh. */
  remove(source, location) {
    this.#checkSource(source, 'remove');
    if (typeof location !== 'string') throw new SkillwireError('invalid_argument', 'remove(): the location must be a string');
    return this.engine.remove(source, location);
  }
  /** An `invalid_argument` error naming `method` unless `source` is one of the sources (the
   * engine would take an unknown source as a reason to refresh). */
  #checkSource(source, method) {
    if (!Number.isInteger(source) || !this.sources[source]) {
      throw new SkillwireError('invalid_argument', `${method}(${String(source)}): no such source`);
    }
  }
  report() { return this.engine.report(); }
  catalog(format = 'agent-skills', budget) { return this.engine.catalog(format, budget); }
  catalogFor(message, turn = {}, featured = this.featured, format = 'agent-skills', budget) {
    return this.call(() => this.engine.catalogFor(message, turnContext(turn), featured, format, budget));
  }
  match(message, turn = {}) { return { matches: this.call(() => this.engine.match(message, turnContext(turn))) }; }
  inject(message, turn = {}) { return this.call(() => this.engine.inject(message, turnContext(turn))); }
  complete(typed, limit) { return this.engine.complete(typed, limit); }
  selectPrompt(message, turn, stats, options) {
    return this.call(() => this.engine.selectPrompt(message, turnContext(turn), stats, options));
  }
  selectParse(reply, maxSkills) { return this.call(() => this.engine.selectParse(reply, maxSkills)); }
  tools(exclude = []) {
    // The schema crosses as JSON text.
    return this.engine.tools(exclude).map((t) => ({ ...t, inputSchema: JSON.parse(t.inputSchema) }));
  }
  toolDefinitions(provider, exclude = []) { return JSON.parse(this.engine.toolDefinitions(provider, exclude)); }
  files(skill) { return this.call(() => this.engine.files(skill)); }
  readFile(skill, path) {
    const content = this.call(() => this.engine.readFile(skill, path));
    // `file-body` is a variant: written as the core writes it.
    return { ...content, body: { type: content.body.tag, value: content.body.val } };
  }
  answerReadFile(args) { return this.engine.answerReadFile(args); }
  setEmbeddings(vectors) { return this.call(() => this.engine.setEmbeddings(vectors)); }
}

/** A listed entry as the WIT `skill-entry`: a location, or `{location, text?, origin?,
 * stamp?, id?}`. A stamp stands for the text: one that is not a string could keep a changed
 * entry from being read, so the listing is refused; so is an id that is not a string. */
function skillEntry(entry) {
  if (typeof entry === 'string') return { location: entry };
  for (const key of ['stamp', 'id']) {
    if (entry[key] != null && typeof entry[key] !== 'string') {
      throw new Error(`${entry.location}: ${key} is ${typeof entry[key]}, not a string`);
    }
  }
  return { location: entry.location, text: entry.text, origin: entry.origin, stamp: entry.stamp, id: entry.id };
}

/** The WIT `turn-context` for a turn's `recent`, `embedding` and `selected`. */
function turnContext({ recent = [], embedding, selected } = {}) {
  return { recent, embedding: embedding && Float32Array.from(embedding), selected };
}
