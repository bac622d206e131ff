// `skillwire/langchain` with LangChain.js itself (from the npm registry): an agent built with
// `createAgent` and the middleware, over LangChain's own fake chat model, gets the request's
// skills in its system message, and its call of read_skill_file runs through skillwire.
import test from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, createAgent, fakeModel } from 'langchain';
import { Skillwire } from '../lib/node.js';
import { skillwireMiddleware } from '../lib/langchain.js';

const pdf = '---\nname: pdf\ndescription: Fill PDF forms and merge PDF files.\n---\nFill forms as references/forms.md says.\n';
const files = { 'references/forms.md': '# Form fields\nUse the AcroForm names.\n' };

function skillwire() {
  return new Skillwire({
    sources: [{
      list: () => [{ location: 's/pdf/SKILL.md', text: pdf }],
      read: () => pdf,
      listFiles: () => Object.entries(files).map(([path, text]) => ({ path, size: text.length })),
      readFile: (_location, path) => files[path],
    }],
  });
}

test('an agent with the middleware sees the skill, reads its reference, and an escape is refused', async () => {
  const sw = skillwire();
  const model = fakeModel()
    .respondWithTools([{ name: 'read_skill_file', args: { skill: 'pdf', path: 'references/forms.md' }, id: 'c1' }])
    .respondWithTools([{ name: 'read_skill_file', args: { skill: 'pdf', path: '../secret.md' }, id: 'c2' }])
    .respond(new AIMessage('filled'));
  const injections = [];
  const agent = createAgent({
    model,
    tools: [],
    systemPrompt: 'You are helpful.',
    middleware: [skillwireMiddleware(sw, { onInjection: (i) => injections.push(i) })],
  });
  const result = await agent.invoke({ messages: [new HumanMessage('please fill this PDF form')] });
  assert.equal(result.messages.at(-1).content, 'filled');

  const system = model.calls[0].messages[0];
  assert.equal(system.getType(), 'system');
  assert.equal(system.text, 'You are helpful.\n\n[SKILL:pdf]\nFill forms as references/forms.md says.\n[/SKILL]');
  assert.deepEqual(injections[0].decisions.map((d) => [d.skill, d.reason]), [['pdf', 'name']]);

  const tools = result.messages.filter((m) => m.getType() === 'tool');
  assert.equal(tools[0].content, '# Form fields\nUse the AcroForm names.\n');
  assert.match(tools[1].content, /\(invalid_path\)$/);
  // The tool the middleware registers is skillwire's, with its schema.
  const [registered] = skillwireMiddleware(sw).tools;
  assert.equal(registered.name, 'read_skill_file');
  assert.deepEqual(registered.schema.required, ['skill', 'path']);
  sw.free();
});

test('a message that calls for no skill leaves the system message as it was', async () => {
  const sw = skillwire();
  const model = fakeModel().respond(new AIMessage('sunny'));
  const agent = createAgent({ model, tools: [], systemPrompt: 'Be brief.', middleware: [skillwireMiddleware(sw, { tools: false })] });
  await agent.invoke({ messages: [new HumanMessage('what is the weather like')] });
  assert.equal(model.calls[0].messages[0].text, 'Be brief.');
  sw.free();
});
