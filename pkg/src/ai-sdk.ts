// skillwire for the Vercel AI SDK (`skillwire/ai-sdk`, with `ai` 6 as a peer): a
// language-model middleware that puts the skills each request calls for (and, if asked,
// the turn's skill catalogue) in front of the model, and the tool that lets the model read a
// skill's files. Only this subpath imports `ai`: users who don't import it pay nothing.

import { jsonSchema, tool } from 'ai';
import type { LanguageModelMiddleware, Tool } from 'ai';
import { Skillwire } from './skillwire.js';
import type { AnthropicTool, CatalogFormat, Injection, TurnContext } from './types.js';

/** What the middleware adds to each call. */
export interface SkillwireMiddlewareOptions {
  /** Also list the skills for this request in a system message: the `featured` most
   * relevant with their descriptions, the others by name (`catalogFor`). Default: false. */
  catalog?: boolean | { featured?: number; format?: CatalogFormat; budget?: number };
  /** The turn's context (skills still in the model's context, the message's embedding, or
   * the skills the host's model chose), computed per call from the request's messages. */
  context?: (userMessage: string) => TurnContext | undefined | Promise<TurnContext | undefined>;
  /** Called with each call's injection: every decision, for logging. */
  onInjection?: (injection: Injection) => void;
}

/** The prompt of a call as the middleware reads and writes it (the provider-level prompt of
 * the AI SDK's language-model specification, V2 to V4 alike). */
type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant' | 'tool'; content: unknown };

/** The text of the last user message of `prompt` (its text parts, joined), or ''. */
function lastUserText(prompt: PromptMessage[]): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (!Array.isArray(message.content)) return '';
    return message.content
      .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text)
      .join('\n');
  }
  return '';
}

/** `prompt` with `texts` as system messages after its leading system messages (providers
 * refuse system messages in the middle of a conversation). */
function withSystem(prompt: PromptMessage[], texts: string[]): PromptMessage[] {
  const added = texts.filter((text) => text.length > 0).map((content) => ({ role: 'system' as const, content }));
  if (added.length === 0) return prompt;
  let at = 0;
  while (at < prompt.length && prompt[at]!.role === 'system') at++;
  return [...prompt.slice(0, at), ...added, ...prompt.slice(at)];
}

/**
 * A middleware for `wrapLanguageModel({ model, middleware })`: for each call it reads the
 * last user message, runs a skillwire turn on it (`sw.inject`), and adds the injected skills'
 * instructions as a system message after the call's own system messages (and, with
 * `catalog`, the turn's catalogue before them). A call with no user text, or whose message
 * calls for no skill, goes through unchanged. Each call of a multi-step loop runs a turn
 * (and `onInjection` sees each).
 */
export function skillwireMiddleware(sw: Skillwire, options: SkillwireMiddlewareOptions = {}): LanguageModelMiddleware {
  const catalog = options.catalog === true ? {} : options.catalog || undefined;
  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const prompt = params.prompt as PromptMessage[];
      const message = lastUserText(prompt);
      if (message.length === 0) return params;
      const context = await options.context?.(message);
      const injection = await sw.inject(message, context);
      options.onInjection?.(injection);
      const listed = catalog ? (await sw.catalogFor(message, { ...catalog, recent: context?.recent })).text : '';
      return { ...params, prompt: withSystem(prompt, [listed, injection.text]) as typeof params.prompt };
    },
  };
}

/**
 * The tools a model needs beside the middleware, as an AI SDK tool set for
 * `generateText({ tools: { ...skillwireTools(sw), ...yours } })`: `read_skill_file`, which
 * opens a file an injected skill points to (`references/forms.md`) through the skill's
 * source, with every check of `sw.answerReadFile` (paths that could leave the folder
 * refused, text scanned, scripts returned as text, never run).
 */
export function skillwireTools(sw: Skillwire): Record<string, Tool> {
  const { name, description, input_schema } = Skillwire.readFileTool('anthropic') as AnthropicTool;
  return {
    [name]: tool({
      description,
      inputSchema: jsonSchema<{ skill: string; path: string }>(input_schema as Parameters<typeof jsonSchema>[0]),
      execute: async (input: { skill: string; path: string }) => {
        const answer = await sw.answerReadFile(input);
        if (answer.isError) throw new Error(answer.content);
        return answer.content;
      },
    }),
  };
}
