// @ts-self-types="./types.d.ts"
// The shapes of the npm package's options and results. Options and results are camelCase;
// results are the Rust core's serde output with every key mapped mechanically
// (`user_message` → `userMessage`), values untouched (enum values are kebab-case in every
// runtime). The provider-shaped `toolDefinitions` are the providers' own JSON.

/**
 * One skill a source offers: its location, its SKILL.md text if at hand, and its origin
 * when it is not the host's own (an MCP server: 1 to 64 ASCII letters, digits, `.`, `_`,
 * `-`). A skill from an origin never silently takes or loses a name another skill holds:
 * it is listed as `name@origin` then (an `origin_collision` warning in the report), and
 * `allow`/`deny` patterns match it by either name. `stamp`: any text that changes whenever
 * the SKILL.md does (a file's size and modification time, a digest); `refresh()` reads
 * again only the entries whose stamp changed (none: read on every build). `id`: the
 * skill's id in the host's own store (a database row, a registry key; 1 to 256 bytes, no
 * control characters, no whitespace at either end), carried by every match and decision so
 * that what a host records about a skill outlives renames and moves; without one, the id is
 * the skill's name, or `name@origin` for a skill from an origin. Ids are unique among listed
 * skills: a skill whose id an entry listed before it holds under another name is skipped (in
 * the report, with the reason).
 */
export type SkillEntry = string | { location: string; text?: string; origin?: string; stamp?: string; id?: string };

/** The host's skills. Either method may answer directly or with a Promise (async API). */
export interface SkillSource {
  list(): SkillEntry[] | Promise<SkillEntry[]>;
  /**
   * The SKILL.md at `location` — its text, or its bytes (a `Uint8Array` such as the Node
   * `Buffer` of `readFileSync(path)`, or an `ArrayBuffer` such as `fetch`'s
   * `arrayBuffer()`: not decoded in JavaScript, and bytes that are not UTF-8 are refused as
   * the command line refuses them) — or a throw saying why not. A thrown error whose
   * `refused` property is `true` is a refusal that lasts until the file changes (too
   * large, not text): the entry is skipped with an `unreadable` diagnostic and, while its
   * `stamp` holds, `refresh()` does not read it again. Any other failure may pass: the
   * entry is read again at the next build.
   */
  read(location: string): string | Uint8Array | ArrayBuffer | Promise<string | Uint8Array | ArrayBuffer>;
  /**
   * The regular files in the folder of the skill whose SKILL.md is at `location` (the
   * SKILL.md among them): paths relative to the folder, `/` between segments. Optional:
   * called only by `files`.
   */
  listFiles?(location: string): ListedFile[] | Promise<ListedFile[]>;
  /**
   * File `path` of that skill (already checked: relative, no `..`), at most `maxBytes`
   * (one more tells the core it is over): bytes, or a string for text. Refuse what only
   * you can see (a link leading out of the folder). Optional: called only by `readFile`.
   */
  readFile?(location: string, path: string, maxBytes: number): FileData | Promise<FileData>;
}

/** A source whose methods answer directly, for the synchronous API. */
export interface SyncSkillSource {
  list(): SkillEntry[];
  read(location: string): string | Uint8Array | ArrayBuffer;
  listFiles?(location: string): ListedFile[];
  readFile?(location: string, path: string, maxBytes: number): FileData;
}

/** A file's contents as a source returns them. */
export type FileData = Uint8Array | ArrayBuffer | string;

/** A file a source lists in a skill's folder. */
export interface ListedFile {
  path: string;
  size: number;
}

/** A file's role in its skill: a `script` is for the agent to run, never run by skillwire. */
export type FileKind = 'skill' | 'reference' | 'script' | 'asset';

/** One of a skill's files. */
export interface SkillFile {
  path: string;
  size: number;
  kind: FileKind;
  mediaType: string;
}

/** A skill's files, sorted by path (`Skillwire.files`). */
export interface SkillFiles {
  skill: string;
  files: SkillFile[];
  /** Listed files left out: over `limits.maxSkillFiles`, or with a path that could leave the folder. */
  leftOut: number;
}

/** The answer to a model's call of the read-file tool (`Skillwire.answerReadFile`). */
export interface ToolAnswer {
  /** The tool result's text. */
  content: string;
  /** True when the file could not be read (Anthropic's `is_error`). */
  isError: boolean;
}

/** A file read from a skill's folder (`Skillwire.readFile`). */
export interface FileContent {
  skill: string;
  /** Normalised, relative to the skill's folder. */
  path: string;
  kind: FileKind;
  mediaType: string;
  size: number;
  /** `sha256:` and 64 lowercase hex digits. */
  digest: string;
  /** What the safety scan found in a text file that does not block it. */
  findings: Finding[];
  body: { type: 'text'; value: string } | { type: 'binary'; value: Uint8Array };
}

export type Precedence = 'first-wins' | 'last-wins';
/**
 * How `user-invocable: false` is read: `hidden` (default; Claude Code's meaning: kept out
 * of the user's `@` menu, open to automatic use) or `mention-only` (only an explicit
 * `@mention` injects it, as skillwire 0.1 read it).
 */
export type NotUserInvocable = 'hidden' | 'mention-only';
/** When the safety scan reads skills' bodies (`Options.scanBodies`). */
export type ScanBodies = 'at-build' | 'when-read';
export type InjectFormat = 'bracket' | 'xml' | 'markdown';
export type CatalogFormat = 'agent-skills' | 'skills-ref' | 'markdown' | 'json';
export type Reason = 'mention' | 'description' | 'tag' | 'name' | 'rank' | 'selected';
export type Skip = 'budget-exhausted' | 'body-unavailable' | 'gated' | 'mention-only' | 'recently-injected' | 'unsafe';

/** How relevance ranking selects skills (each field defaults to the core's default). */
export interface RankOptions {
  enabled?: boolean;
  /** Most skills ranking adds to a turn (default 1). */
  maxRanked?: number;
  /** Lowest score selected (default 9). */
  minScore?: number;
  /** Lowest score selected, as a fraction of the turn's best (default 0.7). */
  minRatio?: number;
  /** Lowest share of the message's informative words a skill must match (default 0.1). */
  minCoverage?: number;
  /** With embeddings: what a perfect cosine similarity adds to the score (default 30). */
  semanticWeight?: number;
  /** With embeddings: the similarity from which an embedding counts (default 0.45). */
  minSimilarity?: number;
  /** Also rank on the headings of each skill's body (default false). */
  headings?: boolean;
}

/** What the host knows about the conversation, for one turn. */
export interface TurnContext {
  /** The message's embedding (else `embed` is asked for it, when given). */
  embedding?: ArrayLike<number>;
  /**
   * Skills whose bodies recent turns injected and that are still in the model's context
   * (names, compared ignoring case and `-`/`_`): not injected again.
   */
  recent?: string[];
  /**
   * The skills your model chose (LLM selection, e.g. `selectParse(...).skills`): the turn
   * injects these, after the message's `@mentions`, instead of what the rules and
   * ranking find.
   */
  selected?: string[] | null;
}

/** What the safety scan does with a category's findings. */
export type ScanAction = 'allow' | 'warn' | 'block';
export type ScanCategory =
  | 'hidden-text' | 'bidi-control' | 'homoglyph-name' | 'instruction-override' | 'exfiltration' | 'destructive-command';

/**
 * The safety scan's action per category; a category left out keeps its default
 * (`destructiveCommand: 'warn'`, the others `'block'`).
 */
export interface ScanPolicy {
  hiddenText?: ScanAction;
  bidiControl?: ScanAction;
  homoglyphName?: ScanAction;
  instructionOverride?: ScanAction;
  exfiltration?: ScanAction;
  destructiveCommand?: ScanAction;
}

/** One thing the safety scan found in a SKILL.md. */
export interface Finding {
  category: ScanCategory;
  action: 'warn' | 'block';
  message: string;
  /** 1-based line and column (in characters) in the SKILL.md. */
  line: number;
  column: number;
  /** The text found, invisible characters written as `<U+XXXX>`. */
  excerpt: string;
}

/** Input limits (the core's defaults when left out; README, "Limits"). */
export interface Limits {
  /** Largest SKILL.md, in bytes (1 MiB): past it a skill is skipped, a body `body-unavailable`. */
  maxSkillMdBytes?: number;
  /** Largest frontmatter, in bytes (64 KiB). */
  maxFrontmatterBytes?: number;
  /** Deepest YAML flow nesting (32). */
  maxYamlDepth?: number;
  /** Most YAML alias references (64). */
  maxYamlAliases?: number;
  /** Largest message, in bytes (256 KiB): past it a turn fails with `message_too_large`. */
  maxMessageBytes?: number;
  /** Most skills in a catalogue (50,000). */
  maxSkills?: number;
  /** Longest name, tag or requirement, in bytes (256). */
  maxNameBytes?: number;
  /** Longest description used, in bytes (16 KiB); longer ones are cut. */
  maxDescriptionBytes?: number;
  /** Largest file of a skill's folder handed out, in bytes (1 MiB). */
  maxFileBytes?: number;
  /** Most files listed for one skill (1,000). */
  maxSkillFiles?: number;
  /** Longest path of a skill's file accepted, in bytes (1 KiB). */
  maxFilePathBytes?: number;
}

export interface Options<S extends SkillSource = SkillSource> {
  /** Sources in precedence order. */
  sources?: S[];
  /** Which skill keeps a name several entries share (default `first-wins`). */
  precedence?: Precedence;
  /** Integrations the host provides, for skills that `requires` them. */
  available?: string[];
  /** How `user-invocable: false` is read (default `hidden`). */
  notUserInvocable?: NotUserInvocable;
  /**
   * When the safety scan reads skills' bodies (default `at-build`: every body while the
   * catalogue is built, so a blocked body is never listed). `when-read`: each body only as
   * a turn reads it — faster builds of large catalogues; a skill whose body is blocked is
   * listed (until the catalogue is rebuilt), and never injected. Frontmatter is always
   * scanned at build.
   */
  scanBodies?: ScanBodies;
  /** Glob patterns over skill names (`*`, `?`, case ignored): when not empty, only the
   * skills matching one are used; the others are gated (in `report().gated`, with why). */
  allow?: string[];
  /** Glob patterns over skill names: a skill matching one is gated (deny wins over allow). */
  deny?: string[];
  /** Relevance ranking beyond the substring rules: on/off (default on), or tuned. */
  rank?: boolean | RankOptions;
  /**
   * The host's embedding model, for ranking by meaning as well as by words: one vector
   * per text, all of one length. Called for every skill when the catalogue is built
   * (and refreshed), and for each message. May return a Promise with `Skillwire.create`
   * and the async methods. When it fails, ranking stays lexical (`embeddingError`).
   */
  embed?: (texts: string[]) => ArrayLike<number>[] | Promise<ArrayLike<number>[]>;
  /**
   * Milliseconds the async API waits for each answer of a source (`list`, `read`) or of
   * `embed`; past it, the call counts as failed (code `timeout`): a skipped skill, a
   * `body-unavailable` decision, or lexical ranking. No limit by default.
   */
  timeout?: number;
  /** Most bytes the injected skills may take (default 8192). */
  budget?: number;
  /** Block format (default `bracket`). */
  format?: InjectFormat;
  /** Replace `{baseDir}` in bodies with the skill's folder, and start each body with the
   * line `Base directory for this skill: FOLDER`. */
  baseDir?: boolean;
  /**
   * End each injected block with the skill's other files (from the source's `listFiles`),
   * for a model given `Skillwire.readFileTool` (default off).
   */
  listFiles?: boolean;
  /** A body is cut to fit only if at least this many bytes of it fit (default 64). */
  minTruncatedBytes?: number;
  limits?: Limits;
  /** The safety scan: what it looks for in each SKILL.md and what it blocks. */
  scan?: ScanPolicy;
  /** Where browsers load the .wasm from (default: next to this module). */
  wasm?: WasmInput;
}

/** The core's defaults in this package's shapes (`Skillwire.defaults()`). */
export interface Defaults {
  /** What the constructor and `create` use for every option left out. */
  options: Required<Pick<Options, 'precedence' | 'available' | 'notUserInvocable' | 'scanBodies' | 'allow' | 'deny' | 'budget' | 'format' | 'baseDir' | 'listFiles' | 'minTruncatedBytes'>> & {
    rank: Required<RankOptions>;
    limits: Required<Limits>;
    scan: Required<ScanPolicy>;
  };
  /** What `selectPrompt` uses for every option left out. */
  select: Required<Omit<SelectPromptOptions, 'stats' | 'turn'>>;
  /** How many skills `catalogFor` features by default. */
  featured: number;
  /** How many skills `complete` offers by default. */
  completions: number;
}

/** A skill selected for a message: its name, its id (the host's, else derived from its
 * name), the rule, where in the message, and the ranking score for `rank`. */
export interface Match { skill: string; id: string; reason: Reason; position: number; score?: number }
export interface Matches { matches: Match[] }

export interface Decision {
  skill: string;
  /** The skill's id: the host's (`SkillEntry.id`), else derived from its name. */
  id: string;
  matched: boolean;
  reason: Reason;
  /** The ranking score, when `reason` is `rank`. */
  score?: number;
  injectedBytes: number;
  truncated: boolean;
  skipped: Skip | null;
  detail?: string;
  /** Why it was blocked, or warnings about a skill injected anyway. */
  findings?: Finding[];
}

export interface Summary { candidates: number; matched: number; injectedBytes: number; truncatedAny: boolean }

export interface Injection {
  /** The injected blocks alone. */
  text: string;
  /** What to send as the user turn: the blocks, a blank line, the message. */
  userMessage: string;
  decisions: Decision[];
  summary: Summary;
}

/** A skill offered for what was typed after `@`. */
export interface Completion {
  name: string;
  /** Shortened for display (at most 80 characters). */
  description: string;
  match: 'prefix' | 'fuzzy';
}

/** What the host has recorded about one skill's past selections. */
export interface SkillStats {
  skill: string;
  selected?: number;
  applied?: number;
  completed?: number;
  fellBack?: number;
}

export interface SelectPromptOptions {
  /** Most skills the model may pick (3). */
  maxSkills?: number;
  /** Catalogues with more selectable skills are shortlisted by ranking (40). */
  shortlistAbove?: number;
  /** How many ranked skills a shortlist offers (20). */
  shortlistSize?: number;
  /** The skills' records: those they show failing are left out. */
  stats?: SkillStats[];
  /** Selected this often and never completed: left out (2; 0 turns it off). */
  neverCompletedAfter?: number;
  /** Applied this often and fell back more than `maxFallbackRate`: left out (2; 0 turns it off). */
  fallbackAfter?: number;
  /** Highest share of applications that fell back (0.5). */
  maxFallbackRate?: number;
  /** The message's embedding, to rank a shortlist. */
  turn?: TurnContext;
}

/** The question for the host's model. */
export interface SelectPrompt {
  prompt: string;
  /** The skills offered, in order; empty: there is nothing to ask. */
  candidates: string[];
  shortlisted: boolean;
  leftOut: { skill: string; reason: 'never-completed' | 'falls-back'; detail: string }[];
}

/** The model's reply, read. */
export interface Selection {
  /** Catalogue names, in the model's order, at most `maxSkills`. */
  skills: string[];
  briefPlan?: string;
  /** Names that are no skill the model may pick. */
  unknown: string[];
  /** Skills past `maxSkills`, dropped. */
  overLimit: string[];
  reply: 'object' | 'list' | 'names' | 'unreadable';
}

/** The input every skill tool takes: one required string, `task`. */
export interface TaskSchema {
  type: 'object';
  properties: { task: { type: 'string'; description: string } };
  required: ['task'];
  additionalProperties: false;
}

/** A skill offered as a tool. */
export interface SkillTool {
  /** `skills__…`, valid for the OpenAI and Anthropic APIs. */
  name: string;
  skill: string;
  description: string;
  inputSchema: TaskSchema;
  maxTurns: number;
}

export type ToolProvider = 'openai' | 'anthropic';
export type OpenAiTool = { type: 'function'; function: { name: string; description: string; parameters: TaskSchema } };
export type AnthropicTool = { name: string; description: string; input_schema: TaskSchema };

export interface CatalogText {
  text: string;
  shortened: string[];
  omitted: string[];
  /** `catalogFor`: the skills listed first with their descriptions, most relevant first. */
  featured?: string[];
  /** `catalogFor`: the skills listed by name only. */
  namesOnly?: string[];
}

export interface CatalogForOptions {
  format?: CatalogFormat;
  budget?: number;
  /** How many of the most relevant skills keep their descriptions (default 10). */
  featured?: number;
  /** Skills still in the model's context from recent turns. */
  recent?: string[];
  /** The message's embedding (else `embed` is asked for it). */
  embedding?: ArrayLike<number>;
}

export interface Diagnostic {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  line?: number;
  column?: number;
}

export interface CatalogReport {
  loaded: number;
  skipped: { location: string; reason: string; diagnostics: Diagnostic[] }[];
  shadowed: { name: string; location: string; by: string }[];
  /** Skills left out of use: requirements the host lacks, or the allow or deny list (`keptOut`: why). */
  gated: { name: string; location: string; missing: string[]; keptOut?: string }[];
  warnings: { location: string; diagnostic: Diagnostic }[];
  /** Skills the safety scan found something in (blocked ones stay out of every turn). */
  flagged: { name: string; location: string; blocked: boolean; findings: Finding[] }[];
  /** Skills that fire only when `@mentioned`, by name. */
  mentionOnly: string[];
}

export interface LintReport {
  path: string;
  valid: boolean;
  errors: string[];
  warnings: Diagnostic[];
  /** Safety findings (absent when there are none); `valid` is about the standard alone. */
  findings?: Finding[];
}
export interface LintOptions {
  extensions?: boolean;
  limits?: Limits;
  scan?: ScanPolicy;
  /** The skill folder's file paths: links to files it does not hold, or out of it, are warnings. */
  files?: string[];
}

/** What `init` loads the WebAssembly module from. */
export type WasmInput = string | URL | Request | Response | BufferSource | WebAssembly.Module;

/** The codes a `SkillwireError` carries (a string: new codes may come). */
export type ErrorCode =
  | 'message_too_large' | 'reply_too_large' | 'invalid_embedding' | 'stale_turn' | 'unavailable' | 'timeout'
  | 'async_source' | 'not_initialised' | 'freed' | 'invalid_argument' | 'invalid_value'
  | 'unknown_skill' | 'blocked_skill' | 'invalid_path' | 'file_too_large' | 'file_unavailable' | 'file_blocked'
  | 'not_in_module' | 'snapshot_unreadable' | 'snapshot_other_version' | 'snapshot_other_key'
  | 'snapshot_other_options' | 'snapshot_unread' | 'snapshot_unwritable'
  | (string & {});
