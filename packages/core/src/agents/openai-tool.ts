import { createHash } from 'node:crypto';
import { toInputSchema } from '../descriptor/parameters';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { analyzeStrict } from './strict-schema';
import { toolDescription } from './tool-description';

type Json = Record<string, unknown>;

/** OpenAI's function-calling tool, as Chat Completions takes it in `tools`. */
export interface OpenAiChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Json; strict: boolean };
}

/** The same tool as the Responses API takes it (flat). */
export interface OpenAiResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Json;
  strict: boolean;
}

/** What was made of a skill: the tool's name, whether it is strict, and why not. */
export interface OpenAiToolMapping {
  skill_id: string;
  version: string;
  tool_name: string;
  strict: boolean;
  notes: string[];
}

/** OpenAI's rule for a function name. */
export const OPENAI_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A function name OpenAI accepts for a skill id: the id with each `.` (or any other character it
 * refuses) as `_`, and, past 64 characters or when `taken` already holds the name (two ids that
 * differ only in `.` and `_`), cut short with 8 hex digits of the id's SHA-256 after it.
 */
export function openAiToolName(skillId: string, taken: ReadonlySet<string> = new Set()): string {
  const plain = skillId.replace(/[^A-Za-z0-9_-]/g, '_');
  if (plain.length <= 64 && !taken.has(plain)) return plain;
  const hash = createHash('sha256').update(skillId).digest('hex').slice(0, 8);
  return `${plain.slice(0, 55)}_${hash}`;
}

/**
 * A skill as an OpenAI function tool: parameters from the descriptor's inputs, strict where strict
 * mode can take them unchanged (see analyzeStrict), with the notes that say why not otherwise.
 */
export function toOpenAiTool(
  descriptor: SkillDescriptor,
  taken: ReadonlySet<string> = new Set(),
): { tool: OpenAiResponsesTool; mapping: OpenAiToolMapping } {
  const name = openAiToolName(descriptor.id, taken);
  const analysis = analyzeStrict(toInputSchema(descriptor));
  const notes = [...analysis.notes];
  if (name !== descriptor.id) notes.push(`the function name is "${name}": OpenAI allows [A-Za-z0-9_-]{1,64}`);
  return {
    tool: {
      type: 'function',
      name,
      description: toolDescription(descriptor),
      parameters: analysis.schema,
      strict: analysis.strict,
    },
    mapping: {
      skill_id: descriptor.id,
      version: descriptor.version,
      tool_name: name,
      strict: analysis.strict,
      notes,
    },
  };
}

/** The Responses API's flat tool as Chat Completions nests it. */
export function toChatCompletionsTool({
  name,
  description,
  parameters,
  strict,
}: OpenAiResponsesTool): OpenAiChatTool {
  return { type: 'function', function: { name, description, parameters, strict } };
}
