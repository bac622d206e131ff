// `skillwire/ai-sdk` with the Vercel AI SDK itself (from the npm registry): the middleware
// wrapped around the SDK's own mock model puts the request's skills in front of it, and the
// model's call of read_skill_file runs through the tool set; end to end through
// `generateText`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Skillwire } from '../lib/node.js';
import { skillwireMiddleware, skillwireTools } from '../lib/ai-sdk.js';

const pdf = '---\nname: pdf\ndescription: Fill PDF forms and merge PDF files.\n---\nFill forms as references/forms.md says.\n';
const sql = '---\nname: sql-review\ndescription: Review SQL queries and migrations.\n---\nCheck every DROP.\n';
const files = { 'references/forms.md': '# Form fields\nUse the AcroForm names.\n' };

function skillwire() {
  return new Skillwire({
    sources: [{
      list: () => [{ location: 's/pdf/SKILL.md', text: pdf }, { location: 's/sql-review/SKILL.md', text: sql }],
      read: (location) => (location.includes('pdf') ? pdf : sql),
      listFiles: () => Object.entries(files).map(([path, text]) => ({ path, size: text.length })),
      readFile: (_location, path) => files[path],
    }],
  });
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const answer = (content) => ({ content, finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

test('the middleware puts the skills a request calls for after the system prompt', async () => {
  const sw = skillwire();
  const model = new MockLanguageModelV3({ doGenerate: answer([{ type: 'text', text: 'done' }]) });
  const injections = [];
  const wrapped = wrapLanguageModel({ model, middleware: skillwireMiddleware(sw, { onInjection: (i) => injections.push(i) }) });
  const result = await generateText({ model: wrapped, system: 'You are helpful.', prompt: 'please fill this PDF form' });
  assert.equal(result.text, 'done');
  const prompt = model.doGenerateCalls[0].prompt;
  assert.deepEqual(prompt.slice(0, 2), [
    { role: 'system', content: 'You are helpful.' },
    { role: 'system', content: '[SKILL:pdf]\nFill forms as references/forms.md says.\n[/SKILL]' },
  ]);
  assert.deepEqual(prompt[2].content, [{ type: 'text', text: 'please fill this PDF form' }]);
  assert.deepEqual(injections[0].decisions.map((d) => [d.skill, d.reason]), [['pdf', 'name']]);

  // A request that calls for no skill goes through as it came.
  await generateText({ model: wrapped, prompt: 'what is the weather like' });
  assert.deepEqual(model.doGenerateCalls[1].prompt.map((m) => m.role), ['user']);

  // With the catalogue: the turn's skills listed first (most relevant with descriptions).
  const listing = new MockLanguageModelV3({ doGenerate: answer([{ type: 'text', text: 'ok' }]) });
  const catalogued = wrapLanguageModel({ model: listing, middleware: skillwireMiddleware(sw, { catalog: { featured: 1, format: 'markdown' } }) });
  await generateText({ model: catalogued, prompt: 'review my SQL migration' });
  const [listed, injected] = listing.doGenerateCalls[0].prompt;
  assert.match(listed.content, /^## Available skills\n\n- \*\*sql-review\*\*: Review SQL queries and migrations\./);
  assert.match(injected.content, /^\[SKILL:sql-review\]\nCheck every DROP\./);
  sw.free();
});

test('read_skill_file runs as an AI SDK tool: the model reads a reference, an escape is an error', async () => {
  const sw = skillwire();
  const calls = [
    answer([{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_skill_file', input: JSON.stringify({ skill: 'pdf', path: 'references/forms.md' }) }]),
    answer([{ type: 'tool-call', toolCallId: 'c2', toolName: 'read_skill_file', input: JSON.stringify({ skill: 'pdf', path: '../secret.md' }) }]),
    answer([{ type: 'text', text: 'filled' }]),
  ];
  const model = new MockLanguageModelV3({ doGenerate: calls });
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware: skillwireMiddleware(sw) }),
    tools: skillwireTools(sw),
    stopWhen: stepCountIs(5),
    prompt: 'fill this PDF form',
  });
  assert.equal(result.text, 'filled');
  const outputs = result.steps.flatMap((step) => step.content).filter((part) => part.type.startsWith('tool-'));
  const read = outputs.find((part) => part.type === 'tool-result');
  assert.equal(read.output, '# Form fields\nUse the AcroForm names.\n');
  const refused = outputs.find((part) => part.type === 'tool-error');
  assert.match(String(refused.error), /invalid_path/);
  // The tool's schema is skillwire's own.
  const offered = model.doGenerateCalls[0].tools;
  assert.deepEqual(offered.map((t) => [t.type, t.name]), [['function', 'read_skill_file']]);
  assert.deepEqual(offered[0].inputSchema.required, ['skill', 'path']);
  sw.free();
});
