import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  analyzeStrict,
  OPENAI_TOOL_NAME,
  openAiToolName,
  type SkillDefinition,
  type SkillDescriptor,
  toAnthropicTool,
  toMcpTool,
  toOpenAiTool,
  toStructuredContent,
  toToolDefinitions,
} from '@skillrun/core';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { publishedLike } from '../support/descriptors';

type Json = Record<string, unknown>;

const descriptorOf = (overrides: Partial<SkillDefinition>): SkillDescriptor => publishedLike(overrides);

/** Every input of it required, closed, with keywords strict mode takes. */
const strictSkill = descriptorOf({
  input: {
    type: 'object',
    properties: {
      text: { type: 'string', pattern: '^\\S', description: 'What to count.' },
      unit: { type: 'string', enum: ['words', 'chars'] },
      at: { type: 'string', format: 'date-time' },
      limits: {
        type: 'object',
        properties: { max: { type: 'integer', minimum: 1, maximum: 10 } },
        required: ['max'],
      },
      words: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    },
    required: ['text', 'unit', 'at', 'limits', 'words'],
  },
});

/** Optional inputs, a default, a free-form map and keywords strict mode refuses. */
const looseSkill = descriptorOf({
  name: 'com.acme.loose',
  input: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1 },
      top: { type: 'integer', default: 5 },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    },
    required: ['text', 'labels', 'tags'],
  },
  output: { type: 'array', items: { type: 'string' } },
});

/** Walks a schema as OpenAI's strict mode does, and lists what it would refuse. */
function strictViolations(schema: Json, pointer = ''): string[] {
  const found: string[] = [];
  const allowed = new Set([
    ...['type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const'],
    ...['$ref', '$defs', 'definitions', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum'],
    ...['exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'description', 'title'],
  ]);
  for (const keyword of Object.keys(schema)) {
    if (!allowed.has(keyword)) found.push(`${pointer}: ${keyword}`);
  }
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    if (schema.additionalProperties !== false) found.push(`${pointer}: additionalProperties`);
    expect([...((schema.required as string[]) ?? [])].sort()).toEqual(Object.keys(properties).sort());
    for (const [name, child] of Object.entries(properties))
      found.push(...strictViolations(child, `${pointer}/${name}`));
  }
  if (schema.items) found.push(...strictViolations(schema.items as Json, `${pointer}/items`));
  return found;
}

describe('a skill as an MCP tool', () => {
  it("is a valid Tool by the MCP SDK's own schema (revision 2025-11-25)", () => {
    for (const descriptor of [strictSkill, looseSkill]) {
      const tool = toMcpTool(descriptor, { tasks: true });
      const parsed = ToolSchema.safeParse(tool);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(tool).toMatchObject({
        name: descriptor.id,
        title: descriptor.name,
        description: descriptor.description,
        execution: { taskSupport: 'optional' },
        annotations: { title: descriptor.name },
      });
    }
  });

  it('takes the inputs as one object schema that a JSON Schema 2020-12 validator compiles', () => {
    const tool = toMcpTool(strictSkill);
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(tool.inputSchema);
    expect(validate({ text: 'a', unit: 'words', at: 'x', limits: { max: 2 }, words: [] })).toBe(true);
    expect(validate({ text: 'a', unit: 'lines' })).toBe(false);
  });

  it('wraps an output that is not an object, in outputSchema and in structuredContent alike', () => {
    const tool = toMcpTool(looseSkill);
    expect(tool.outputSchema).toEqual({
      type: 'object',
      properties: { result: { type: 'array', items: { type: 'string' } } },
      required: ['result'],
    });
    expect(toStructuredContent(looseSkill, ['a'])).toEqual({ result: ['a'] });
    expect(toStructuredContent(strictSkill, { count: 2 })).toEqual({ count: 2 });
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(tool.outputSchema);
    expect(validate(toStructuredContent(looseSkill, ['a']))).toBe(true);
  });

  it("keeps the input schema's $schema, $defs and additionalProperties, so a $ref into $defs resolves", () => {
    // The conformance suite's json-schema-2020-12 example, and an output that is wrapped.
    const input = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    };
    const output = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { label: { type: 'string', minLength: 1 } },
      type: 'array',
      items: { $ref: '#/$defs/label' },
    };
    const skill = descriptorOf({ input, output });
    const tool = toMcpTool(skill);
    expect(tool.inputSchema).toEqual(input);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validateInput = ajv.compile(tool.inputSchema);
    expect(validateInput({ name: 'a', address: { city: 'Lyon' } })).toBe(true);
    expect(validateInput({ address: { city: 7 } })).toBe(false);
    expect(validateInput({ nickname: 'a' })).toBe(false);
    expect(tool.outputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { label: { type: 'string', minLength: 1 } },
      type: 'object',
      properties: { result: { type: 'array', items: { $ref: '#/$defs/label' } } },
      required: ['result'],
    });
    const validateOutput = ajv.compile(tool.outputSchema);
    expect(validateOutput(toStructuredContent(skill, ['a']))).toBe(true);
    expect(validateOutput(toStructuredContent(skill, ['']))).toBe(false);
  });

  it('says when the version is deprecated', () => {
    const deprecated = {
      ...strictSkill,
      'x-deprecated': { message: 'Use v3', deprecated_at: '2026-01-01T00:00:00.000Z' },
    };
    expect(toMcpTool(deprecated).description).toContain('Deprecated: Use v3');
  });
});

describe('a skill as an OpenAI function tool', () => {
  it('is strict when every input is required and every keyword is one strict mode supports', () => {
    const { tool, mapping } = toOpenAiTool(strictSkill);
    expect(mapping).toEqual({
      skill_id: 'text_stats',
      version: '2.1.0',
      tool_name: 'text_stats',
      strict: true,
      notes: [],
    });
    expect(tool.strict).toBe(true);
    expect(strictViolations(tool.parameters)).toEqual([]);
  });

  it('is not strict, with a note for each place, when strict mode would change what the skill takes', () => {
    const { tool, mapping } = toOpenAiTool(looseSkill);
    expect(tool.strict).toBe(false);
    expect(mapping.notes).toEqual([
      '/: optional properties (top); strict mode requires every property',
      '/properties/text: "minLength" is not supported in strict mode',
      '/properties/labels: allows properties it does not name (additionalProperties)',
      '/properties/tags: "uniqueItems" is not supported in strict mode',
      'the function name is "com_acme_loose": OpenAI allows [A-Za-z0-9_-]{1,64}',
    ]);
    // Sent as the skill takes it: nothing the skill accepts is refused.
    expect(tool.parameters).toMatchObject({ properties: { text: { minLength: 1 }, top: { default: 5 } } });
  });

  it('moves a default into the description and drops annotations in strict form', () => {
    const analysis = analyzeStrict({
      type: 'object',
      properties: { n: { type: 'integer', default: 3, description: 'How many.', examples: [1] } },
      required: ['n'],
    });
    expect(analysis).toMatchObject({ strict: true, notes: [] });
    expect(analysis.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { n: { type: 'integer', description: 'How many. (default: 3)' } },
      required: ['n'],
    });
  });

  it('has names OpenAI accepts, unique within a list', () => {
    const long = `a.${'b'.repeat(120)}`;
    expect(openAiToolName(long)).toMatch(OPENAI_TOOL_NAME);
    expect(openAiToolName(long).length).toBeLessThanOrEqual(64);
    const twins = [descriptorOf({ name: 'a.b' }), descriptorOf({ name: 'a_b' })];
    const { skills, tools } = toToolDefinitions(twins, 'openai');
    const names = skills.map((skill) => skill.tool_name);
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect(name).toMatch(OPENAI_TOOL_NAME);
    expect(tools[0]).toMatchObject({ type: 'function', function: { name: 'a_b', strict: true } });
  });

  it('comes in the Responses API shape too', () => {
    const { tools } = toToolDefinitions([strictSkill], 'openai-responses');
    expect(tools[0]).toMatchObject({ type: 'function', name: 'text_stats', strict: true });
  });
});

/** Anthropic's rule for a client tool's name (the Messages API's `tools[].name`). */
const ANTHROPIC_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

describe('a skill as an Anthropic client tool', () => {
  it('has a name, a description and an object input_schema that a JSON Schema 2020-12 validator compiles', () => {
    const { tool, mapping } = toAnthropicTool(strictSkill);
    expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
    expect(tool).toMatchObject({ name: 'text_stats', description: strictSkill.description });
    expect(tool.input_schema.type).toBe('object');
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(tool.input_schema);
    expect(validate({ text: 'a', unit: 'words', at: 'x', limits: { max: 2 }, words: [] })).toBe(true);
    expect(validate({ text: 'a', unit: 'lines' })).toBe(false);
    expect(mapping).toEqual({
      skill_id: 'text_stats',
      version: '2.1.0',
      tool_name: 'text_stats',
      strict: false,
      notes: [],
    });
  });

  it('keeps the schema as the skill takes it: optional inputs stay optional, nothing made strict', () => {
    const { tool } = toAnthropicTool(looseSkill);
    expect(tool.input_schema).toEqual(toMcpTool(looseSkill).inputSchema);
    expect(tool).not.toHaveProperty('strict');
  });

  it("has the OpenAI formats' names, which Anthropic accepts, unique within a list, a rename noted", () => {
    const twins = [descriptorOf({ name: 'a.b' }), descriptorOf({ name: 'a_b' })];
    const anthropic = toToolDefinitions(twins, 'anthropic');
    const openai = toToolDefinitions(twins, 'openai');
    expect(anthropic.skills.map((skill) => skill.tool_name)).toEqual(
      openai.skills.map((skill) => skill.tool_name),
    );
    const names = anthropic.tools.map((tool) => (tool as { name: string }).name);
    for (const name of names) expect(name).toMatch(ANTHROPIC_TOOL_NAME);
    expect(new Set(names).size).toBe(2);
    expect(anthropic.skills[0]?.notes).toEqual([
      'the tool name is "a_b": names allow [A-Za-z0-9_-]{1,64} here',
    ]);
  });

  it('says when the version is deprecated', () => {
    const deprecated = {
      ...strictSkill,
      'x-deprecated': { message: 'Use v3', deprecated_at: '2026-01-01T00:00:00.000Z' },
    };
    expect(toAnthropicTool(deprecated).tool.description).toBe(
      `${strictSkill.description}\n\nDeprecated: Use v3`,
    );
  });
});
