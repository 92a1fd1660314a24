import { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { type SkillDescriptor, toA2aSkill, toSkillDescriptor } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { agentCardJson } from '../../apps/gateway/src/agents/a2a/a2a-agent-card';
import { definitionLike, exampleContext } from '../support/descriptors';

const skill = definitionLike({
  description: 'Counts words.',
  input: {
    type: 'object',
    properties: { text: { type: 'string' }, top: { type: 'integer', default: 5 } },
    required: ['text'],
  },
  output: { type: 'object' },
  version: '1.0.0',
  tags: ['text', 'stats'],
  timeout: 1000,
});

const open = toSkillDescriptor(skill, exampleContext);
const restricted: SkillDescriptor = {
  ...toSkillDescriptor({ ...skill, name: 'com.acme.secret' }, exampleContext),
  access: 'restricted',
  'x-deprecated': { message: 'Use v2', deprecated_at: '2026-01-01T00:00:00.000Z' },
};

/** Drops what ProtoJSON leaves out when it writes (empty lists), to compare with what it read. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => !(Array.isArray(child) && child.length === 0))
      .map(([key, child]) => [key, withoutEmpty(child)]),
  );
}

describe('skills as A2A', () => {
  it('maps a skill to an AgentSkill that the A2A SDK reads back whole', () => {
    for (const descriptor of [open, restricted]) {
      const json = toA2aSkill(descriptor);
      expect(AgentSkill.toJSON(AgentSkill.fromJSON(json))).toEqual(withoutEmpty(json));
    }
    expect(toA2aSkill(open)).toEqual({
      id: 'text_stats',
      name: 'text_stats',
      description: 'Counts words.',
      tags: ['text', 'stats'],
      examples: ['Message metadata {"skill_id": "text_stats"} and a data part {"text":"<string>"}'],
      inputModes: ['application/json'],
      outputModes: ['application/json'],
    });
    expect(toA2aSkill(restricted)).toMatchObject({
      description: 'Counts words. (Deprecated: Use v2)',
      securityRequirements: [{ schemes: { apiKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }],
    });
  });

  it('builds an Agent Card that the A2A SDK reads back whole (no field it does not know)', () => {
    const card = agentCardJson([open, restricted], {
      baseUrl: 'https://skills.example.com',
      providerName: 'acme',
      plainText: false,
    });
    const parsed = AgentCard.fromJSON(card);
    expect(AgentCard.toJSON(parsed)).toEqual(withoutEmpty(card));
    expect(parsed.securitySchemes.apiKey?.scheme).toMatchObject({
      $case: 'apiKeySecurityScheme',
      value: { location: 'header', name: 'X-API-Key' },
    });
    expect(
      parsed.supportedInterfaces.map((each) => `${each.protocolBinding} ${each.protocolVersion} ${each.url}`),
    ).toEqual([
      'JSONRPC 1.0 https://skills.example.com/a2a',
      'JSONRPC 0.3 https://skills.example.com/a2a',
      'HTTP+JSON 1.0 https://skills.example.com/a2a/rest',
    ]);
  });

  it('takes plain text as an input mode, and says so, only when plain-text messages are routed', () => {
    const context = { baseUrl: 'https://skills.example.com', providerName: 'acme' };
    const routed = agentCardJson([open], { ...context, plainText: true });
    expect(routed.defaultInputModes).toEqual(['application/json', 'text/plain']);
    expect(routed.description).toMatch(/plain text/);
    const unrouted = agentCardJson([open], { ...context, plainText: false });
    expect(unrouted.defaultInputModes).toEqual(['application/json']);
    expect(unrouted.description).not.toMatch(/plain text/);
  });
});
