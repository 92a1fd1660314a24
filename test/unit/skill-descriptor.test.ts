import {
  type DescriptorContext,
  PROTOCOL_VERSION,
  SchemaValidator,
  type SkillDefinition,
  SkillDescriptor,
  toSkillDescriptor,
} from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const skill: SkillDefinition = {
  name: 'text_stats',
  description: 'Counts words and characters.',
  category: 'text',
  input: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 100, description: 'What to count.' },
      unit: { type: 'string', enum: ['words', 'chars'], default: 'words' },
      limit: { type: 'integer', default: 10 },
      note: { type: ['string', 'null'] },
      anything: { description: 'No type at all.' },
    },
    required: ['text'],
    additionalProperties: false,
  },
  output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  mode: 'code',
  calls: [],
  version: '2.1.0',
  tags: ['text', 'stats'],
  timeout: 4000,
  retry: 2,
};

const context: DescriptorContext = {
  baseUrl: 'https://skills.example.com',
  provider: { name: 'acme' },
  retryBackoffMs: 750,
  defaults: { access: 'public', capabilityType: 'api', auth: { type: 'none' } },
};
const validator = new SchemaValidator(SkillDescriptor, 'skill descriptor');

describe('toSkillDescriptor', () => {
  it('builds a descriptor that validates against the SkillDescriptor schema', () => {
    const descriptor = toSkillDescriptor(skill, context);
    expect(() => validator.parse(structuredClone(descriptor))).not.toThrow();
    expect(descriptor).toMatchObject({
      protocol: { version: PROTOCOL_VERSION },
      id: 'text_stats',
      name: 'text_stats',
      version: '2.1.0',
      description: 'Counts words and characters.',
      provider: { name: 'acme' },
      output: { content_type: 'application/json', schema: skill.output },
      tags: ['text', 'stats'],
    });
  });

  it('the validator rejects a descriptor that is not one (the check can fail)', () => {
    const broken = { ...toSkillDescriptor(skill, context), endpoint: { url: 'not a url' } };
    expect(() => validator.parse(broken)).toThrow(/Invalid skill descriptor/);
  });

  it('puts the endpoint under the base URL, with {execution_id} templates', () => {
    const { endpoint } = toSkillDescriptor(skill, context);
    expect(endpoint).toEqual({
      url: 'https://skills.example.com/skills/text_stats/invoke?version=2.1.0',
      method: 'POST',
      content_type: 'application/json',
      status_url: 'https://skills.example.com/skills/text_stats/status/{execution_id}',
      result_url: 'https://skills.example.com/skills/text_stats/result/{execution_id}',
      'x-cancel_url': 'https://skills.example.com/skills/text_stats/cancel/{execution_id}',
      'x-events_url': 'https://skills.example.com/skills/text_stats/events/{execution_id}',
      timeout_ms: 4000,
      retry: { max_attempts: 3, backoff_ms: 750 },
    });
  });

  it('tolerates trailing slashes and keeps a path prefix of the base URL', () => {
    const slash = toSkillDescriptor(skill, { ...context, baseUrl: 'https://skills.example.com/' });
    expect(slash.endpoint.url).toBe('https://skills.example.com/skills/text_stats/invoke?version=2.1.0');
    expect(slash.endpoint.status_url).toBe(
      'https://skills.example.com/skills/text_stats/status/{execution_id}',
    );
    expect(() => validator.parse(structuredClone(slash))).not.toThrow();
    const prefixed = toSkillDescriptor(skill, { ...context, baseUrl: 'http://localhost:3000/api//' });
    expect(prefixed.endpoint.result_url).toBe(
      'http://localhost:3000/api/skills/text_stats/result/{execution_id}',
    );
  });

  it('max_attempts is retry + 1', () => {
    for (const retry of [0, 1, 5]) {
      expect(toSkillDescriptor({ ...skill, retry }, context).endpoint.retry.max_attempts).toBe(retry + 1);
    }
  });

  it('takes the inputs from the input schema properties', () => {
    const { inputs } = toSkillDescriptor(skill, context);
    expect(inputs).toEqual([
      {
        name: 'text',
        type: 'string',
        description: 'What to count.',
        required: true,
        schema: { minLength: 1, maxLength: 100 },
      },
      {
        name: 'unit',
        type: 'string',
        required: false,
        default: 'words',
        schema: { enum: ['words', 'chars'] },
      },
      { name: 'limit', type: 'integer', required: false, default: 10 },
      { name: 'note', type: 'string|null', required: false },
      { name: 'anything', type: 'any', description: 'No type at all.', required: false },
    ]);
  });

  it("keeps the input schema's other keywords in x-inputs_schema, a valid descriptor still", () => {
    const descriptor = toSkillDescriptor(skill, context);
    expect(descriptor['x-inputs_schema']).toEqual({ additionalProperties: false });
    expect(() => validator.parse(structuredClone(descriptor))).not.toThrow();
  });

  it('has no inputs when the input schema has no properties', () => {
    const descriptor = toSkillDescriptor({ ...skill, input: { type: 'object' } }, context);
    expect(descriptor.inputs).toEqual([]);
    expect(() => validator.parse(structuredClone(descriptor))).not.toThrow();
  });

  it('stays valid for any timeout the skill definition allows (a fractional one included)', () => {
    const descriptor = toSkillDescriptor({ ...skill, timeout: 1500.5 }, context);
    expect(() => validator.parse(structuredClone(descriptor))).not.toThrow();
    expect(descriptor.endpoint.timeout_ms).toBeGreaterThanOrEqual(1500.5);
  });
});
