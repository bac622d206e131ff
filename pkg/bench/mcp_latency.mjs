// MCP request latency of `skillwire mcp`, measured as a client sees it: the official MCP
// TypeScript SDK's client over stdio calls find_skills and load_skill on each message in
// turn, lists the prompts and resources (what a client does on connecting, and again on
// each list_changed notification), and reports the medians, the lists' sizes and the
// server's resident memory.
//
//   node bench/mcp_latency.mjs --skills /tmp/bench/skills-1000 [--engine wasm|native]
//     [--messages ../../shared/queries/dev.jsonl] [--calls 400] [--binary ../target/release/skillwire]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    skills: { type: 'string' },
    engine: { type: 'string', default: 'wasm' },
    messages: { type: 'string', default: join(repo, '../shared/queries/dev.jsonl') },
    calls: { type: 'string', default: '400' },
    binary: { type: 'string', default: join(repo, 'target/release/skillwire') },
  },
});
if (!args.skills) throw new Error('--skills PATH is required');
const messages = readFileSync(args.messages, 'utf8').split('\n').filter((l) => l.trim())
  .map((line) => { try { return JSON.parse(line).q ?? line; } catch { return line; } });

const started = performance.now();
const transport = new StdioClientTransport({
  command: args.binary, args: ['--engine', args.engine, 'mcp', '--skills', args.skills], stderr: 'ignore',
});
const client = new Client({ name: 'skillwire-bench', version: '0.0.0' });
await client.connect(transport);
const ready = performance.now() - started;

/** Median of `calls` timed calls of `call(message)`, messages used in turn (one warm-up round). */
async function median(call) {
  for (const message of messages) await call(message);
  const times = [];
  for (let i = 0; i < Number(args.calls); i++) {
    const t = performance.now();
    await call(messages[i % messages.length]);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const find = await median((request) => client.callTool({ name: 'find_skills', arguments: { request } }));
// load_skill on the skill each message's find_skills puts first (or the first listed).
const { tools } = await client.listTools();
const names = {};
for (const message of messages) {
  const found = JSON.parse((await client.callTool({ name: 'find_skills', arguments: { request: message } })).content[0].text);
  names[message] = (found.skills[0] ?? found.also_related[0])?.name;
}
const asked = messages.length;
const loadable = messages.filter((m) => names[m]);
if (loadable.length === 0) throw new Error('find_skills named no skill for any message');
messages.splice(0, messages.length, ...loadable);
const load = await median((message) => client.callTool({ name: 'load_skill', arguments: { name: names[message] } }));
// The lists a client asks for on connecting: each answer's time (median of 20) and size.
async function listed(list) {
  const times = [];
  let answer;
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    answer = await list();
    if (i > 0) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], bytes: JSON.stringify(answer).length, answer };
}
const prompts = await listed(() => client.listPrompts());
const resources = await listed(() => client.listResources());
const rss = (() => {
  try {
    const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return NaN;
  }
})();
await client.close();
console.log(JSON.stringify({
  engine: args.engine, skills: args.skills, tools: tools.length, messages: asked, loadable: loadable.length,
  calls: Number(args.calls),
  ready_ms: Math.round(ready), find_skills_median_ms: +find.toFixed(3), load_skill_median_ms: +load.toFixed(3),
  prompts: prompts.answer.prompts.length, prompts_list_median_ms: +prompts.median.toFixed(2),
  prompts_list_bytes: prompts.bytes, resources: resources.answer.resources.length,
  resources_list_median_ms: +resources.median.toFixed(2), resources_list_bytes: resources.bytes,
  server_rss_mb: +rss.toFixed(1),
}));
