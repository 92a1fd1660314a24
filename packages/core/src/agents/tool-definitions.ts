import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../schemas/json-schema';
import { SkillSearchQuery } from '../schemas/skill-catalog-api';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { toAnthropicTool } from './anthropic-tool';
import { toMcpTool } from './mcp-tool';
import { toChatCompletionsTool, toOpenAiTool } from './openai-tool';

/** The tool formats GET /tools and GET /skills/{id}/tools answer in. */
export const ToolFormat = StringEnum(['openai', 'openai-responses', 'anthropic', 'mcp'], {
  default: 'openai',
  description:
    '`openai`: Chat Completions function tools (`{type: "function", function: {...}}`); `openai-responses`: the Responses API\'s flat function tools; `anthropic`: the Messages API\'s client tools (`{name, description, input_schema}`); `mcp`: MCP Tool objects (revision 2025-11-25), as tools/list at /mcp answers them.',
});
export type ToolFormat = Static<typeof ToolFormat>;

export const ToolFormatQuery = Type.Object(
  { format: Type.Optional(ToolFormat), version: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);
export type ToolFormatQuery = Static<typeof ToolFormatQuery>;

/** GET /tools: the search of GET /skills, and the format. */
export const ToolListQuery = Type.Object(
  { ...SkillSearchQuery.properties, format: Type.Optional(ToolFormat) },
  { additionalProperties: false },
);
export type ToolListQuery = Static<typeof ToolListQuery>;

const ToolMapping = Type.Object({
  skill_id: Type.String(),
  version: Type.String(),
  tool_name: Type.String({ description: 'The name the tool has in this format.' }),
  strict: Type.Optional(
    Type.Boolean({
      description:
        'OpenAI and Anthropic formats: whether the tool is sent with `strict: true` (never for Anthropic).',
    }),
  ),
  notes: Type.Array(Type.String(), {
    description:
      'OpenAI formats: why the tool is not strict (a JSON Pointer into the parameters and the reason); OpenAI and Anthropic formats: a renamed tool.',
  }),
});

/** GET /tools and GET /skills/{id}/tools: the tools, and what was made of each skill. */
export const ToolDefinitions = Type.Object({
  format: ToolFormat,
  tools: Type.Array(Type.Object({}, { additionalProperties: true }), {
    description:
      'Ready to hand to the framework as they are (OpenAI or Anthropic `tools`, or MCP `Tool` objects).',
  }),
  skills: Type.Array(ToolMapping, { description: 'One entry per tool, in the same order.' }),
  next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type ToolDefinitions = Static<typeof ToolDefinitions>;
type ToolMapping = Static<typeof ToolMapping>;

/** The skills as tools of one format, names kept unique across the list. */
export function toToolDefinitions(
  descriptors: SkillDescriptor[],
  format: ToolFormat,
  options: { tasks?: boolean } = {},
): Pick<ToolDefinitions, 'format' | 'tools' | 'skills'> {
  const tools: Record<string, unknown>[] = [];
  const skills: ToolDefinitions['skills'] = [];
  const taken = new Set<string>();
  for (const descriptor of descriptors) {
    const { tool, mapping } = toolOf(descriptor, format, taken, options);
    taken.add(mapping.tool_name);
    tools.push(tool);
    skills.push(mapping);
  }
  return { format, tools, skills };
}

/** One skill as a tool of `format`, named apart from those `taken`. */
function toolOf(
  descriptor: SkillDescriptor,
  format: ToolFormat,
  taken: ReadonlySet<string>,
  options: { tasks?: boolean },
): { tool: Record<string, unknown>; mapping: ToolMapping } {
  switch (format) {
    case 'mcp': {
      // MCP takes skill ids as they are: unique already.
      const tool = toMcpTool(descriptor, options);
      const mapping = {
        skill_id: descriptor.id,
        version: descriptor.version,
        tool_name: tool.name,
        notes: [],
      };
      return { tool: { ...tool }, mapping };
    }
    case 'anthropic': {
      const { tool, mapping } = toAnthropicTool(descriptor, taken);
      return { tool: { ...tool }, mapping };
    }
    default: {
      const { tool, mapping } = toOpenAiTool(descriptor, taken);
      return { tool: format === 'openai' ? { ...toChatCompletionsTool(tool) } : { ...tool }, mapping };
    }
  }
}
