// skillwire over MCP (`skillwire/mcp`, with `@modelcontextprotocol/sdk` as a peer): a skill
// source over another MCP server's skills extension (SEP-2640), through a connected client
// of the official MCP TypeScript SDK. Only this subpath imports the SDK: users who don't
// import it pay nothing.
//
// - `list` is `skills/list`, every page, and fetches no file: each entry holds the listed
//   frontmatter (no body), so the catalogue is built from names, descriptions and fields.
//   An entry that breaks the extension's rules (a bad URI, name or digest; each entry of a
//   URI listed twice, the entries different) is listed and refused when it is read, so the
//   catalogue reports it as skipped, with why.
// - `read` and `readFile` are `resources/read`, checked as the extension asks of hosts: the
//   bytes against the listed SHA-256, a SKILL.md's frontmatter against the listed one (the
//   core's rule). A mismatch is a refused read, never the changed text; the engine scans
//   what is read before it reaches the model, as for any source.
// - Every entry carries the server's name (or `origin`) as its origin: a skill of the server
//   never silently takes or loses a name held by one from elsewhere (`name@origin`).

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { checkListedFrontmatter, listedSkillText, originLabel, Skillwire, SkillwireError } from './skillwire.js';
import type { Limits, ListedFile, SkillSource } from './types.js';

/** The skills extension's identifier, as servers declare it in their capabilities. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Milliseconds a request to the server may take by default. */
export const MCP_TIMEOUT = 20_000;

/** How `mcpSource` reads a server. */
export interface McpSourceOptions {
  /** The label its skills carry as their origin (default: the server's name), kept to what
   * a label may hold (`originLabel`). */
  origin?: string;
  /** Milliseconds each read may take, and the listing's pages all together (default
   * `MCP_TIMEOUT`). */
  timeout?: number;
  /** The engine's limits, when not the defaults: a SKILL.md listed over the size limit is
   * refused unread, frontmatter is read within them, and no page of skills is asked for
   * past `maxSkills` (one more is listed, for the engine to report as over it). */
  limits?: Limits;
}

/** One skill of the server as the engine lists it. */
export interface McpSkillEntry {
  location: string;
  text?: string;
  origin: string;
}

/** A skill source over an MCP server (async: use it with `Skillwire.create`). */
export interface McpSkillSource extends SkillSource {
  /** The label its skills carry as their origin. */
  readonly origin: string;
  list(): Promise<McpSkillEntry[]>;
  read(location: string): Promise<string>;
  listFiles(location: string): Promise<ListedFile[]>;
  readFile(location: string, path: string, maxBytes: number): Promise<Uint8Array>;
}

/** A file as a listing gives it. */
interface ListedResource { uri: string; digest: string; size: number }

/** What the source keeps of a listed skill. */
interface Listed {
  frontmatter: Record<string, unknown>;
  /** Its files by path in its folder; undefined for `"dynamic"`. */
  files?: Map<string, ListedResource>;
  /** Why the listing entry is refused (the extension's rules), when it is. */
  refused?: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * A skill source over the server `client` is connected to. Throws a `SkillwireError`
 * (`invalid_argument`) when the server does not declare the skills extension.
 */
export function mcpSource(client: Client, options: McpSourceOptions = {}): McpSkillSource {
  const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  if (!extensions?.[SKILLS_EXTENSION]) {
    throw new SkillwireError(`the MCP server does not serve skills (no ${SKILLS_EXTENSION} extension)`, 'invalid_argument');
  }
  const origin = originLabel(options.origin ?? client.getServerVersion()?.name ?? '');
  const timeout = options.timeout ?? MCP_TIMEOUT;
  const limits = options.limits;
  const { maxSkillMdBytes, maxSkills } = { ...Skillwire.defaults().options.limits, ...limits };
  let listing = new Map<string, Listed>();

  const listed = (location: string): Listed => {
    const skill = listing.get(location);
    if (!skill) throw new Error(`${location}: not a skill of this server`);
    if (skill.refused) throw new Error(skill.refused);
    return skill;
  };
  const filesOf = (skill: Listed): Map<string, ListedResource> => {
    if (!skill.files) throw new Error("the server lists this skill's files as dynamic");
    return skill.files;
  };
  const fetch = async (uri: string, expected?: ListedResource): Promise<Uint8Array> => {
    const result = await client.readResource({ uri }, { timeout });
    const content = result.contents[0];
    if (!content) throw new Error(`${uri}: the server sent no content`);
    const bytes = 'text' in content && typeof content.text === 'string'
      ? new TextEncoder().encode(content.text)
      : 'blob' in content && typeof content.blob === 'string'
        ? Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0))
        : undefined;
    if (!bytes) throw new Error(`${uri}: content of a kind this source does not read`);
    if (expected && bytes.length !== expected.size) {
      throw new Error(`${uri} is ${bytes.length} bytes, the listing says ${expected.size} (the file changed since it was listed)`);
    }
    if (expected && await sha256(bytes) !== expected.digest) {
      throw new Error(`${uri}: its SHA-256 is not the listed ${expected.digest} (the file changed since it was listed)`);
    }
    return bytes;
  };

  const source: McpSkillSource = {
    origin,
    async list() {
      // Every page within one time limit, and none asked for past the engine's limit.
      const deadline = Date.now() + timeout;
      const skills: unknown[] = [];
      let cursor: string | undefined;
      const seen = new Set<string>();
      do {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`skills/list: not every page within ${timeout} ms`);
        const page = await client.request({ method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
          ResultSchema, { timeout: left }) as { skills?: unknown; nextCursor?: unknown };
        if (!Array.isArray(page.skills)) throw new Error('skills/list: the answer has no skills list');
        skills.push(...page.skills);
        // A cursor neither a string nor null would lose the pages after it unsaid.
        if (page.nextCursor !== undefined && page.nextCursor !== null && typeof page.nextCursor !== 'string') {
          throw new Error(`skills/list: the next cursor is not a string: ${JSON.stringify(page.nextCursor)}`);
        }
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
        // A server that hands out one cursor twice would page forever.
        if (cursor !== undefined && seen.has(cursor)) throw new Error(`skills/list: the cursor ${cursor} came twice`);
        if (cursor !== undefined) seen.add(cursor);
      } while (cursor !== undefined && skills.length <= maxSkills);
      const read = skills.slice(0, maxSkills + 1).map((skill, index) => listedSkill(skill, index));
      // A URI listed twice, the entries unlike: a read of it could be checked against one of
      // them only, and which is the skill cannot be told, so none is taken. (Entries alike
      // are one entry listed twice, taken as any entry is: a skill's copies are shadowed by
      // its first.)
      const first = new Map<string, Listed>();
      const twice = new Set<string>();
      for (const [location, kept] of read) {
        const earlier = first.get(location);
        if (earlier === undefined) first.set(location, kept);
        else if (canonical(earlier) !== canonical(kept)) twice.add(location);
      }
      listing = new Map();
      return read.map(([location, listed]) => {
        const kept = twice.has(location) ? brokenListing(`${location} is listed twice, with different entries`) : listed;
        listing.set(location, kept);
        return kept.refused ? { location, origin } : { location, text: listedSkillText(kept.frontmatter), origin };
      });
    },
    async read(location) {
      const skill = listed(location);
      const resource = skill.files?.get('SKILL.md');
      if (resource && resource.size > maxSkillMdBytes) {
        throw new Error(`${location}: SKILL.md is ${resource.size} bytes; the limit is ${maxSkillMdBytes}`);
      }
      const bytes = await fetch(location, resource);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw new Error(`${location}: not UTF-8 text`);
      }
      try {
        checkListedFrontmatter(text, skill.frontmatter, limits ? { limits } : {});
      } catch (e) {
        throw new Error(`${location}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return text;
    },
    async listFiles(location) {
      return [...filesOf(listed(location))].map(([path, r]) => ({ path, size: r.size }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async readFile(location, path, maxBytes) {
      // Its frontmatter is checked too, as when a turn reads it.
      if (path === 'SKILL.md') return new TextEncoder().encode(await source.read(location)).subarray(0, maxBytes + 1);
      const resource = filesOf(listed(location)).get(path);
      if (!resource) throw new Error(`${path}: not a file of this skill`);
      if (resource.size > maxBytes) throw new Error(`${path} is ${resource.size} bytes; the limit is ${maxBytes}`);
      return (await fetch(resource.uri, resource)).subarray(0, maxBytes + 1);
    },
  };
  return source;
}

/** The SHA-256 of `bytes` as the extension writes digests. */
async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return `sha256:${[...digest].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A listing entry's location and what the source keeps of it, refused with why when it
 * breaks the extension's structural rules (a SKILL.md URI naming the skill, files inside
 * its folder with well-formed digests, its SKILL.md among them, none twice). */
function listedSkill(entry: unknown, index: number): [string, Listed] {
  const skill = (typeof entry === 'object' && entry !== null ? entry : {}) as
    { uri?: unknown; frontmatter?: unknown; resources?: unknown };
  const uri = typeof skill.uri === 'string' ? skill.uri : `skills/list entry ${index}`;
  const frontmatter = (typeof skill.frontmatter === 'object' && skill.frontmatter !== null ? skill.frontmatter : {}) as
    Record<string, unknown>;
  const refuse = (why: string): [string, Listed] => [uri, brokenListing(why, frontmatter)];
  if (typeof skill.uri !== 'string' || !uri.startsWith('skill://') || !uri.endsWith('/SKILL.md') || /[?#]/.test(uri)) {
    return refuse(`${uri} is not the URI of a SKILL.md`);
  }
  const name = frontmatter.name;
  if (typeof name !== 'string' || typeof frontmatter.description !== 'string') {
    return refuse(`${uri}: its frontmatter has no name or description string`);
  }
  const folder = uri.slice(0, -'SKILL.md'.length);
  const segment = decode(folder.slice(0, -1).split('/').pop() ?? '');
  if (segment?.normalize('NFKC') !== name.normalize('NFKC')) return refuse(`${uri} does not end in the name ${name}`);
  if (skill.resources === 'dynamic') return [uri, { frontmatter }];
  if (!Array.isArray(skill.resources)) return refuse(`${uri}: its resources are neither a list nor "dynamic"`);
  const files = new Map<string, ListedResource>();
  for (const file of skill.resources as unknown[]) {
    const r = (typeof file === 'object' && file !== null ? file : {}) as Partial<ListedResource>;
    const path = typeof r.uri === 'string' && r.uri.startsWith(folder) ? decode(r.uri.slice(folder.length)) : undefined;
    if (!path || typeof r.digest !== 'string' || !DIGEST.test(r.digest) || typeof r.size !== 'number') {
      return refuse(`${uri}: a file listed as ${JSON.stringify(file)} is not one of its files with a SHA-256 digest`);
    }
    if (files.has(path)) return refuse(`${uri}: ${path} is listed twice`);
    files.set(path, { uri: r.uri!, digest: r.digest, size: r.size });
  }
  if (!files.has('SKILL.md')) return refuse(`${uri}: its files do not include its SKILL.md`);
  return [uri, { frontmatter, files }];
}

/** A listing entry the source refuses, for `problem` with the listing. */
function brokenListing(problem: string, frontmatter: Record<string, unknown> = {}): Listed {
  return { frontmatter, refused: `the server's listing breaks the skills extension: ${problem}` };
}

/** `value` as JSON with every object's keys in order and a `Map` as its sorted entries:
 * equal for two listings that say the same. */
function canonical(value: unknown): string {
  const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify(value, (_, v: unknown) => v instanceof Map ? [...(v as Map<string, unknown>)].sort(byKey)
    : typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(byKey)) : v);
}

/** A URI path percent-decoded, or undefined when it is malformed. */
function decode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}
