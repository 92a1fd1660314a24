import { toInputSchema } from '../descriptor/parameters';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { type OpenAiToolMapping, openAiToolName } from './openai-tool';
import { toolDescription } from './tool-description';

/** A client tool as Anthropic's Messages API takes it in `tools`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * A skill as an Anthropic client tool: the input schema as the skill takes it, under OpenAI's name
 * rule, which Anthropic's (`[a-zA-Z0-9_-]`, up to 128) accepts too, so one skill has one tool name
 * whichever of the two a caller loads. Never `strict`: Anthropic's strict tool use takes a subset of
 * JSON Schema of its own, and a tool sent strict that it refuses fails the caller's whole request.
 */
export function toAnthropicTool(
  descriptor: SkillDescriptor,
  taken: ReadonlySet<string> = new Set(),
): { tool: AnthropicTool; mapping: OpenAiToolMapping } {
  const name = openAiToolName(descriptor.id, taken);
  const notes =
    name === descriptor.id ? [] : [`the tool name is "${name}": names allow [A-Za-z0-9_-]{1,64} here`];
  return {
    tool: {
      name,
      description: toolDescription(descriptor),
      input_schema: toInputSchema(descriptor),
    },
    mapping: { skill_id: descriptor.id, version: descriptor.version, tool_name: name, strict: false, notes },
  };
}
