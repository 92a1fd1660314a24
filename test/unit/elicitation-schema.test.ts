import { describe, expect, it } from 'vitest';
import { elicitationSchemaOf } from '../../apps/gateway/src/agents/mcp/elicitation-schema';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('elicitationSchemaOf: the form a task is handed in with, from its output schema', () => {
  it('takes a flat object of primitives, keeping what the form shows and dropping object annotations', () => {
    const output = object(
      {
        approved: { type: 'boolean', title: 'Approved', default: false },
        note: { type: 'string', maxLength: 200, description: 'Why' },
        score: { type: 'integer', minimum: 0, maximum: 10 },
        ratio: { type: 'number' },
        when: { type: 'string', format: 'date' },
        colour: { type: 'string', enum: ['red', 'green'] },
        size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
        labels: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex' }] } },
      },
      {
        required: ['approved'],
        additionalProperties: false,
        $schema: 'https://json-schema.org/draft/2020-12/schema',
      },
    );
    expect(elicitationSchemaOf(output)).toEqual({
      type: 'object',
      properties: output.properties,
      required: ['approved'],
    });
  });

  it('takes an object with no properties (the person only accepts)', () => {
    expect(elicitationSchemaOf({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });

  it.each([
    ['an output that is not an object', { type: 'string' }],
    ['no type', { properties: { a: { type: 'string' } } }],
    ['a nested object', object({ inner: object({ a: { type: 'string' } }) })],
    ['an array of objects', object({ list: { type: 'array', items: object({}) } })],
    ['an array of free strings', object({ list: { type: 'array', items: { type: 'string' } } })],
    ['a pattern', object({ code: { type: 'string', pattern: '^[A-Z]+$' } })],
    ['a format the subset has not', object({ ip: { type: 'string', format: 'ipv4' } })],
    ['an exclusive bound', object({ n: { type: 'number', exclusiveMinimum: 0 } })],
    ['a nullable type', object({ n: { type: ['string', 'null'] } })],
    ['a property without a type', object({ n: { enum: ['a'] } })],
    ['a reference', object({ n: { $ref: '#/$defs/n' } })],
    ['a composition of the object', object({ a: { type: 'string' } }, { anyOf: [{ required: ['a'] }] })],
    ['a required property it does not define', object({ a: { type: 'string' } }, { required: ['b'] })],
    ['a number where a string belongs', object({ a: { type: 'string', maxLength: 'ten' } })],
    [
      'a choice with more than a title',
      object({ a: { type: 'string', oneOf: [{ const: 'a', title: 'A', description: 'x' }] } }),
    ],
  ])('refuses %s', (_name, output) => {
    expect(elicitationSchemaOf(output)).toBeUndefined();
  });
});
