// skillwire for LangChain.js agents (`skillwire/langchain`, with `langchain` 1.x and
// `@langchain/core` as peers): an agent middleware that adds the skills each model call's
// request calls for (and, if asked, the turn's skill catalogue) to the system message, and
// registers the tool that lets the model read a skill's files. Only this subpath imports
// LangChain: users who don't import it pay nothing.

import { createMiddleware } from 'langchain';
import { tool } from '@langchain/core/tools';
import type { BaseMessage } from '@langchain/core/messages';
import { Skillwire } from './skillwire.js';
import type { AnthropicTool, CatalogFormat, Injection, TurnContext } from './types.js';

/** What the middleware adds to each model call. */
export interface SkillwireLangChainOptions {
  /** Also list the skills for this request: the `featured` most relevant with their
   * descriptions, the others by name (`catalogFor`). Default: false. */
  catalog?: boolean | { featured?: number; format?: CatalogFormat; budget?: number };
  /** The turn's context (skills still in the model's context, the message's embedding, or
   * the skills the host's model chose), computed per call from the request's message. */
  context?: (userMessage: string) => TurnContext | undefined | Promise<TurnContext | undefined>;
  /** Called with each call's injection: every decision, for logging. */
  onInjection?: (injection: Injection) => void;
  /** Register `read_skill_file` with the agent (default: true). */
  tools?: boolean;
}

/** The text of the last human message in `messages` (its text parts, joined), or ''. */
function lastHumanText(messages: BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.getType() !== 'human') continue;
    const content: unknown = message.content;
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return '';
    return content
      .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text)
      .join('\n');
  }
  return '';
}

/**
 * The read-file tool as a LangChain tool: `read_skill_file` opens a file an injected skill
 * points to (`references/forms.md`) through the skill's source, with every check of
 * `sw.answerReadFile` (paths that could leave the folder refused, text scanned, scripts
 * returned as text, never run). A refused read answers with why, for the model to see.
 */
export function skillwireTools(sw: Skillwire) {
  const { name, description, input_schema } = Skillwire.readFileTool('anthropic') as AnthropicTool;
  const readFile = tool(
    async (input: { skill: string; path: string }) => (await sw.answerReadFile(input)).content,
    { name, description, schema: input_schema as unknown as Record<string, unknown> },
  );
  return [readFile];
}

/**
 * An agent middleware for `createAgent({ model, tools, middleware: [...] })`: before each
 * model call it runs a skillwire turn on the last human message (`sw.inject`) and appends
 * the injected skills' instructions (after the turn's catalogue, with `catalog`) to the
 * call's system message after a blank line, for that call only (each model call of an
 * agent loop runs a turn, and `onInjection` sees each); it registers `read_skill_file`,
 * whose refusals answer the model with why (a tool result, not an exception). A call with
 * no human text, or whose message calls for no skill, goes through unchanged.
 */
export function skillwireMiddleware(sw: Skillwire, options: SkillwireLangChainOptions = {}) {
  const catalog = options.catalog === true ? {} : options.catalog || undefined;
  return createMiddleware({
    name: 'SkillwireMiddleware',
    tools: options.tools === false ? [] : skillwireTools(sw),
    wrapModelCall: async (request, handler) => {
      const message = lastHumanText(request.messages);
      if (message.length === 0) return handler(request);
      const context = await options.context?.(message);
      const injection = await sw.inject(message, context);
      options.onInjection?.(injection);
      const listed = catalog ? (await sw.catalogFor(message, { ...catalog, recent: context?.recent })).text : '';
      const added = [listed, injection.text].filter((text) => text.length > 0).join('\n\n');
      if (added.length === 0) return handler(request);
      // Concatenated as text: a blank line apart from what the system message says already.
      const apart = request.systemMessage.text.length > 0 ? `\n\n${added}` : added;
      return handler({ ...request, systemMessage: request.systemMessage.concat(apart) });
    },
  });
}
