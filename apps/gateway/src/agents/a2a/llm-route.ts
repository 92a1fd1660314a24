import { type SkillDescriptor, SkillError, toToolDefinitions } from '@skillrun/core';
import OpenAI, { APIError } from 'openai';
import type { SkillDiscovery } from '../../skills/skill-discovery';
import {
  HOW_TO_NAME_A_SKILL,
  type PlainText,
  type PlainTextRouter,
  type TextRoute,
} from './plain-text-router';

/** The LLM the router asks (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL). */
export interface LlmRouteSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

/** Chat Completions takes 128 tools at most: the caller's first skills, in the registry's order. */
const MAX_TOOLS = 128;
/** How long the model has to choose, and its retries (429, 5xx): the client's SendMessage waits for it. */
const TIMEOUT_MS = 30_000;
const RETRIES = 2;
/** A model's words quoted in an error, at most. */
const QUOTED_CHARS = 200;

const SYSTEM_PROMPT = [
  "You route a user's message to one of the tools you are given: each tool runs one skill.",
  'Call the one tool that does what the message asks, filling its arguments from the message.',
  'Call exactly one tool.',
].join(' ');

/**
 * The model's choice of one of the caller's skills for a plain-text message: the skills the
 * caller may see (as GET /tools lists them, the OpenAI tool definitions of toToolDefinitions) are
 * the tools of one chat completion that must call one; the skill it calls runs with the
 * arguments it filled (validated by the invocation as any inputs). The choice is the task's
 * `routing`. A model that calls no tool, or one it was not given, is refused with how to name a
 * skill; a provider that fails is LLM_PROVIDER_ERROR.
 */
export class LlmRoute implements PlainTextRouter {
  private readonly client: OpenAI;

  constructor(
    private readonly settings: LlmRouteSettings,
    private readonly discovery: SkillDiscovery,
  ) {
    // Null organization and project: the gateway's OPENAI_* variables are not this provider's.
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey ?? 'none',
      maxRetries: RETRIES,
      timeout: TIMEOUT_MS,
      organization: null,
      project: null,
    });
  }

  async route({ text, viewer }: PlainText): Promise<TextRoute> {
    const skills = await this.skillsOf(viewer);
    if (skills.length === 0) {
      throw new SkillError('SKILL_NOT_FOUND', 'The caller may use no skill to route the message to');
    }
    const definitions = toToolDefinitions(skills, 'openai');
    const call = await this.choose(text, definitions.tools);
    const mapping = definitions.skills.find((skill) => skill.tool_name === call.name);
    const inputs = argumentsOf(call.arguments);
    if (!mapping || inputs === undefined) {
      throw new SkillError(
        'INVALID_INPUT',
        `The router's model did not choose one of the caller's skills with arguments as JSON (it called "${call.name.slice(0, QUOTED_CHARS)}"). ${HOW_TO_NAME_A_SKILL}`,
      );
    }
    return {
      skillId: mapping.skill_id,
      inputs,
      routing: {
        by: 'llm',
        skill_id: mapping.skill_id,
        model: this.settings.model,
        tool: call.name,
        arguments: inputs,
      },
    };
  }

  /** The skills the caller may see, at their latest versions, up to MAX_TOOLS. */
  private async skillsOf(viewer: PlainText['viewer']): Promise<SkillDescriptor[]> {
    const skills: SkillDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.discovery.search(
        { limit: Math.min(100, MAX_TOOLS - skills.length), ...(cursor ? { cursor } : {}) },
        viewer,
      );
      skills.push(...page.skills);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && skills.length < MAX_TOOLS);
    return skills;
  }

  /** The tool the model calls for the text. */
  private async choose(text: string, tools: Record<string, unknown>[]) {
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.settings.model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: text },
        ],
        tools: tools as unknown as OpenAI.ChatCompletionTool[],
        tool_choice: 'required',
      });
    } catch (error) {
      const why =
        error instanceof APIError ? `it answered ${error.status ?? 'nothing'}` : 'it could not be reached';
      throw new SkillError('LLM_PROVIDER_ERROR', `The router's model could not be asked: ${why}`, {
        recoverable: true,
      });
    }
    const message = completion.choices[0]?.message;
    const call = message?.tool_calls?.find((each) => each.type === 'function');
    if (call?.type !== 'function') {
      const said = (message?.content ?? message?.refusal ?? '').slice(0, QUOTED_CHARS);
      throw new SkillError(
        'INVALID_INPUT',
        `The router's model chose no skill for the message${said ? ` (it said: "${said}")` : ''}. ${HOW_TO_NAME_A_SKILL}`,
      );
    }
    return call.function;
  }
}

/** A tool call's arguments as the skill's inputs: a JSON object, else undefined. */
function argumentsOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
