import { toInputSchema } from '../descriptor/parameters';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { toolDescription } from './tool-description';

type Json = Record<string, unknown>;

/** An MCP Tool (revision 2025-11-25, `Tool` in schema.ts): what `tools/list` answers for a skill. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  outputSchema: Json & { type: 'object' };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  execution?: { taskSupport: 'optional' };
  _meta: Json;
}

export interface McpToolOptions {
  /** Whether the server takes `tools/call` as a task (task-augmented execution). */
  tasks?: boolean;
}

/** The `_meta` key under which a tool names the skill version it runs. */
export const MCP_META_KEY = 'io.skillrun/skill';

/**
 * The property an output that is not a JSON object is wrapped in: MCP's `outputSchema` and
 * `structuredContent` must be objects, a skill's output need not be.
 */
export const WRAPPED_OUTPUT = 'result';

/** Whether the output schema is an object schema, and so is `outputSchema` as it is. */
function isObjectSchema(schema: Json): boolean {
  return schema.type === 'object';
}

/**
 * A skill as an MCP tool. The name is the skill id (ids keep to MCP's tool-name characters:
 * letters, digits, `_`, `-`, `.`, at most 128). The input schema is the skill's, as the
 * descriptor's parameters and its `x-inputs_schema` say it ($schema, $defs and all: MCP reads a
 * schema as JSON Schema 2020-12 unless its $schema says otherwise); the output schema is the
 * skill's, or `{result: <schema>}` when it is not an object. Descriptors say nothing of side
 * effects, so the annotations are MCP's own defaults written out (may write, may destroy, not
 * idempotent, open world): a client must not assume less.
 */
export function toMcpTool(descriptor: SkillDescriptor, options: McpToolOptions = {}): McpTool {
  const output = descriptor.output.schema as Json;
  const deprecated = descriptor['x-deprecated'];
  return {
    name: descriptor.id,
    title: descriptor.name,
    description: toolDescription(descriptor),
    inputSchema: toInputSchema(descriptor) as Json & { type: 'object' },
    outputSchema: (isObjectSchema(output) ? output : wrappedOutputSchema(output)) as Json & {
      type: 'object';
    },
    annotations: {
      title: descriptor.name,
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    ...(options.tasks ? { execution: { taskSupport: 'optional' as const } } : {}),
    _meta: {
      [MCP_META_KEY]: {
        id: descriptor.id,
        version: descriptor.version,
        capability_type: descriptor.capability_type,
        timeout_ms: descriptor.endpoint.timeout_ms,
        ...(deprecated ? { deprecated } : {}),
      },
    },
  };
}

/**
 * `{result: <schema>}` for an output that is not an object. The schema's `$schema`, `$defs` and
 * `definitions` stay at the root, where its `$ref`s (`#/$defs/...`) look for them.
 */
function wrappedOutputSchema(output: Json): Json {
  const { $schema, $defs, definitions, ...wrapped } = output;
  return {
    ...($schema === undefined ? {} : { $schema }),
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
    type: 'object',
    properties: { [WRAPPED_OUTPUT]: wrapped },
    required: [WRAPPED_OUTPUT],
  };
}

/** A completed execution's output as `structuredContent`, shaped as toMcpTool's `outputSchema` says. */
export function toStructuredContent(descriptor: Pick<SkillDescriptor, 'output'>, output: unknown): Json {
  return isObjectSchema(descriptor.output.schema as Json) && isJsonObject(output)
    ? output
    : { [WRAPPED_OUTPUT]: output };
}

function isJsonObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
