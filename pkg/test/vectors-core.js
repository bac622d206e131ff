// Runs the shared turn vectors through the package; no Node APIs, so the same code runs
// in Node, Deno and inside a browser page.

/** JSON with object keys sorted at every level: equal strings mean equal data. */
export function canonical(value) {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v);
}

/** `value` in the form the vectors' expectations are written in (`tests/rust/vector_toml.rs`):
 * null, false, empty lists and empty objects left out of every object, at every level. */
export function compact(value) {
  if (Array.isArray(value)) return value.map(compact);
  if (value === null || typeof value !== 'object') return value;
  const empty = (v) => v === null || v === undefined || v === false
    || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compact(v)]).filter(([, v]) => !empty(v)));
}

/** `user_message` → `userMessage`: the rule the package maps the core's keys by, written
 * again here so that the tests do not take the package's word for it. */
function camelName(key) {
  return key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
}

/** `value` with `camelName` applied to every key, at every level. */
function camelDeep(value) {
  if (Array.isArray(value)) return value.map(camelDeep);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelName(k), camelDeep(v)]));
}

/** A vector's expectation (the core's JSON) as the JS API must return it: keys in
 * camelCase, except the provider-shaped tool definitions, which are the providers' own
 * JSON. Written here, apart from the package's mapping, and applied to the expectation
 * only: a result left in snake_case fails. */
export function jsView(value) {
  if (Array.isArray(value)) return value.map(jsView);
  if (value === null || typeof value !== 'object') return value;
  if ('openai' in value && 'anthropic' in value) {
    return { tools: camelDeep(value.tools), openai: value.openai, anthropic: value.anthropic };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelName(k), jsView(v)]));
}

/** A source over a vector's skills; with `async`, every answer is a Promise. */
export function vectorSource(skills, async = false) {
  const answer = (v) => (async ? Promise.resolve(v) : v);
  const fail = (m) => {
    if (async) return Promise.reject(new Error(m));
    throw new Error(m);
  };
  return {
    list: () => answer(skills.map(({ location, text, origin, id }) => ({ location, text, origin, id }))),
    read: (location) => {
      const skill = skills.find((s) => s.location === location);
      if (!skill) return fail('missing');
      if (skill.read_error) return fail(skill.read_error);
      return answer(skill.read_text ?? skill.text);
    },
    listFiles: (location) => {
      const skill = skills.find((s) => s.location === location);
      if (!skill) return fail('missing');
      const files = Object.entries(skill.files ?? {}).map(([path, text]) => ({ path, size: utf8.encode(text).length }));
      return answer([{ path: 'SKILL.md', size: utf8.encode(skill.text).length }, ...files]);
    },
    readFile: (location, path, maxBytes) => {
      const skill = skills.find((s) => s.location === location);
      if (!skill) return fail('missing');
      const text = path === 'SKILL.md' ? skill.text : skill.files?.[path];
      if (text === undefined) return fail(`no file ${path}`);
      return answer(utf8.encode(text).subarray(0, maxBytes + 1));
    },
  };
}

const utf8 = new TextEncoder();

/** `{max_name_bytes: 1}` → `{maxNameBytes: 1}`; undefined stays undefined. */
function camelKeys(object) {
  return object && Object.fromEntries(
    Object.entries(object).map(([k, v]) => [camelName(k), v]));
}

/** A vector's options (the core's shape) in the JS API's shape. */
export function jsOptions(o = {}) {
  const c = o.catalog ?? {};
  const r = o.render ?? {};
  return {
    precedence: c.precedence,
    available: c.available,
    rank: camelKeys(c.rank),
    notUserInvocable: c.not_user_invocable,
    scanBodies: c.scan_bodies,
    allow: c.allow,
    deny: c.deny,
    scan: camelKeys(c.scan),
    limits: camelKeys(c.limits),
    budget: r.budget,
    format: r.format,
    baseDir: r.base_dir,
    listFiles: r.list_files,
    minTruncatedBytes: r.min_truncated_bytes,
  };
}

/** Runs one vector case through a built Skillwire, synchronously or not; the results in
 * the expectations' compact form. */
export async function runCase(sw, c, async) {
  const out = { report: sw.report() };
  if (c.catalog) {
    out.catalog = [];
    for (const r of c.catalog) {
      const opts = { format: r.format, budget: r.budget };
      const text = async ? await sw.catalog(opts) : sw.catalogSync(opts);
      out.catalog.push({ ...text, format: r.format, budget: r.budget ?? null });
    }
  }
  // A result, or the error the vectors record: {error: code, message}.
  const answer = async (f) => {
    try {
      return await f();
    } catch (e) {
      if (e instanceof Error && typeof e.code === 'string') return { error: e.code, message: e.message };
      throw e;
    }
  };
  if (c.catalog_for) {
    out.catalogFor = [];
    for (const r of c.catalog_for) {
      const opts = { ...r.turn, format: r.format, budget: r.budget, featured: r.featured };
      out.catalogFor.push(await answer(() => (async ? sw.catalogFor(r.message, opts) : sw.catalogForSync(r.message, opts))));
    }
  }
  if (c.complete) out.complete = c.complete.map((r) => sw.complete(r.typed, r.limit));
  if (c.select_prompt) {
    out.selectPrompt = [];
    for (const r of c.select_prompt) {
      // The JS API spells options and statistics in camelCase.
      const options = { ...camelKeys(r.options), stats: r.stats?.map(camelKeys), turn: r.turn };
      out.selectPrompt.push(await answer(() => (async ? sw.selectPrompt(r.message, options) : sw.selectPromptSync(r.message, options))));
    }
  }
  if (c.select_parse) out.selectParse = await Promise.all(c.select_parse.map((r) => answer(() => sw.selectParse(r.reply, r.max_skills))));
  if (c.inject_selected) {
    out.injectSelected = [];
    for (const r of c.inject_selected) {
      const run = () => (async ? sw.injectSelected(r.message, r.selected, r.turn) : sw.injectSelectedSync(r.message, r.selected, r.turn));
      out.injectSelected.push(await answer(run));
    }
  }
  if (c.tools) {
    out.tools = c.tools.map((r) => ({
      tools: sw.tools({ exclude: r.exclude }),
      openai: sw.toolDefinitions('openai', { exclude: r.exclude }),
      anthropic: sw.toolDefinitions('anthropic', { exclude: r.exclude }),
    }));
  }
  if (c.files) {
    out.files = [];
    for (const skill of c.files) out.files.push(await answer(() => (async ? sw.files(skill) : sw.filesSync(skill))));
  }
  if (c.read_files) {
    out.readFiles = [];
    for (const r of c.read_files) {
      const got = await answer(() => (async ? sw.readFile(r.skill, r.path) : sw.readFileSync(r.skill, r.path)));
      // The vectors record a binary body by its size and digest, not its bytes.
      if (got.body?.type === 'binary') delete got.body.value;
      out.readFiles.push(got);
    }
  }
  if (c.read_file_calls) {
    out.readFileCalls = [];
    for (const call of c.read_file_calls) {
      out.readFileCalls.push(await answer(() => (async ? sw.answerReadFile(call) : sw.answerReadFileSync(call))));
    }
  }
  if (c.embeddings) out.embeddings = await answer(() => sw.setEmbeddings(c.embeddings));
  if (c.message !== undefined) {
    out.matches = await answer(() => (async ? sw.match(c.message, c.turn) : sw.matchSync(c.message, c.turn)));
    out.injection = await answer(() => (async ? sw.inject(c.message, c.turn) : sw.injectSync(c.message, c.turn)));
  }
  return compact(out);
}

/** Runs every case with async sources; returns the names of the cases that differ. */
export async function failingCases(Skillwire, turns) {
  const failing = [];
  for (const c of turns.cases) {
    const sw = await Skillwire.create({ ...jsOptions(c.options), sources: c.sources.map((s) => vectorSource(s, true)) });
    if (canonical(await runCase(sw, c, true)) !== canonical(jsView(c.expect))) failing.push(c.name);
    sw.free();
  }
  return failing;
}
