// Compiled by `deno check` in the test script: the declarations tsc generates from src/ (both
// entry points: the browser one here, the Node and Deno one below) describe
// the API the README shows, with no `any` to hide mistakes.
import { init, lint, memoryBytes, Skillwire, SkillwireError } from '../lib/browser.js';
import * as forNode from '../lib/node.js';
import * as turns from '../lib/turns-browser.js';
import * as turnsForNode from '../lib/turns-node.js';
import type { AnthropicTool, Completion, Defaults, Finding, Injection, LintReport, Matches, OpenAiTool, SelectPrompt, Selection, SkillSource, SkillTool, SyncSkillSource, TurnContext } from '../lib/browser.js';

const sync: SyncSkillSource = { list: () => ['a/SKILL.md'], read: (_location: string) => '---\nname: a\ndescription: b\n---\n' };
const asyncSource: SkillSource = { list: async () => [{ location: 'a/SKILL.md' }], read: async () => '' };

await init();
const sw = new Skillwire({ sources: [sync], budget: 4096, format: 'xml', precedence: 'last-wins', available: ['github'] });
const turn: Injection = sw.injectSync('@a');
const bytes: number = turn.summary.injectedBytes;
const skipped: 'budget-exhausted' | 'body-unavailable' | 'gated' | 'mention-only' | 'recently-injected' | 'unsafe' | null =
  turn.decisions[0].skipped;
const findings: Finding[] = turn.decisions[0].findings ?? [];
const blocked: boolean = sw.report().flagged.some((f) => f.blocked && f.findings[0].line > 0);
const context: TurnContext = { recent: ['a'] };
const offered: Completion[] = sw.complete('a', 5);
const how: 'prefix' | 'fuzzy' | undefined = offered[0]?.match;
const next: Injection = await sw.inject('@a again', context);
const question: SelectPrompt = await sw.selectPrompt('x', { maxSkills: 2, stats: [{ skill: 'a', selected: 3, fellBack: 1 }] });
const asked: SelectPrompt = sw.selectPromptSync('x', { shortlistAbove: 10, turn: { embedding: [1, 0] } });
const chosen: Selection = sw.selectParse('["a"]', 1);
const plan: string | undefined = chosen.briefPlan;
const selectedTurn: Injection = await sw.injectSelected('x', chosen.skills, context);
const selectedSync: Injection = sw.injectSelectedSync('x', ['a']);
const tools: SkillTool[] = sw.tools({ exclude: ['b'] });
const forOpenAi: OpenAiTool[] = sw.toolDefinitions('openai');
const forAnthropic: AnthropicTool[] = sw.toolDefinitions('anthropic', { exclude: ['a'] });
const matches: Matches = await sw.match('@a');
const report: LintReport = lint('a/SKILL.md', '---\n---\n', { extensions: true, scan: { exfiltration: 'warn' } });
const later = await Skillwire.create({
  sources: [asyncSource],
  limits: { maxMessageBytes: 1024 },
  scan: { hiddenText: 'block', destructiveCommand: 'allow' },
  rank: { maxRanked: 2, minSimilarity: 0.5 },
  embed: async (texts: string[]) => texts.map(() => new Float32Array([1, 0])),
});
const embedded: number = later.setEmbeddings({ a: [1, 0] });
const why: string | null = later.embeddingError;
const defaults: Defaults = Skillwire.defaults();
const sameApi: typeof Skillwire = forNode.Skillwire;
await forNode.init();
const fromDefaults = new Skillwire({ ...defaults.options, budget: defaults.options.budget * 2 });
fromDefaults.free();
const byMeaning: Matches = await later.match('x', { embedding: [1, 0] });
const text: string = (await later.catalog({ format: 'skills-ref', budget: 100 })).text;
try {
  sw.injectSync('x');
} catch (e) {
  if (e instanceof SkillwireError) console.log(e.code satisfies string);
}
// skillwire/turns: a snapshot of the whole package's catalogue, restored with the same options.
const snapshot: Uint8Array = sw.snapshot('skills-v1');
await turns.init();
const restored: turns.Skillwire = turns.Skillwire.restore(snapshot, { sources: [sync], key: 'skills-v1', budget: 4096 });
const restoredTurn: Injection = await restored.inject('@a');
const restoredInNode: Matches = turnsForNode.Skillwire.restore(snapshot, { sources: [asyncSource] }).matchSync('a');
sw.free();
later[Symbol.dispose]();
console.log(question, asked, plan, selectedTurn, selectedSync, tools, forOpenAi[0]?.function.name, forAnthropic[0]?.input_schema, how, memoryBytes() satisfies number, bytes, skipped, findings, blocked, next, matches, report, text, embedded, why, byMeaning, defaults.select.maxSkills, sameApi.name, restoredTurn, restoredInNode, turns.memoryBytes());
