import { ConfigError, type DescriptorContext, type SkillDefinition, toSkillDescriptor } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { textInputOf } from '../../apps/gateway/src/agents/a2a/text-input';
import { loadGatewayConfig } from '../../apps/gateway/src/config';

const context: DescriptorContext = {
  baseUrl: 'https://skills.example.com',
  provider: { name: 'acme' },
  retryBackoffMs: 750,
  defaults: { access: 'public', capabilityType: 'api', auth: { type: 'none' } },
};

const withInput = (input: SkillDefinition['input']) =>
  toSkillDescriptor(
    {
      name: 'some_skill',
      description: 'A skill.',
      category: 'text',
      input,
      output: { type: 'object' },
      mode: 'code',
      calls: [],
      version: '1.0.0',
      tags: [],
      timeout: 1000,
      retry: 0,
    },
    context,
  );

describe('the input a plain-text A2A message fills (A2A_DEFAULT_SKILL)', () => {
  it('is the one string the schema requires', () => {
    const descriptor = withInput({
      type: 'object',
      properties: { text: { type: 'string' }, mode: { type: 'string' }, top: { type: 'integer' } },
      required: ['text'],
    });
    expect(textInputOf(descriptor)).toBe('text');
  });

  it('is the one string property of a schema that requires none', () => {
    const descriptor = withInput({
      type: 'object',
      properties: { label: { type: 'string' }, ms: { type: 'integer' } },
    });
    expect(textInputOf(descriptor)).toBe('label');
  });

  it('is none when the text has no single place: two required, a required non-string, no string at all', () => {
    const inputs: SkillDefinition['input'][] = [
      {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        required: ['a', 'b'],
      },
      { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } }, required: ['n'] },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      { type: 'object', properties: {} },
    ];
    for (const input of inputs) expect(textInputOf(withInput(input)), JSON.stringify(input)).toBeUndefined();
  });

  it('is checked to be a skill id when the gateway starts', () => {
    expect(loadGatewayConfig({ A2A_DEFAULT_SKILL: 'text_stats' }).A2A_DEFAULT_SKILL).toBe('text_stats');
    expect(() => loadGatewayConfig({ A2A_DEFAULT_SKILL: 'not a skill!' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ A2A_DEFAULT_SKILL: 'not a skill!' })).toThrow(/A2A_DEFAULT_SKILL/);
  });
});
