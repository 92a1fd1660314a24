import { coerceInputs } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

function coerced(type: unknown, value: unknown): unknown {
  const result = coerceInputs({ type: 'object', properties: { value: { type } } }, { value });
  return (result as { value: unknown }).value;
}

describe('coerceInputs', () => {
  it('turns integer literals into integers where the schema wants an integer', () => {
    expect(coerced('integer', '5')).toBe(5);
    expect(coerced('integer', ' -12 ')).toBe(-12);
    expect(coerced('integer', '+7')).toBe(7);
    for (const text of ['5.5', '1e3', 'five', '', '0x10', '9007199254740993', '5 apples']) {
      expect(coerced('integer', text), text).toBe(text);
    }
  });

  it('turns number literals into numbers where the schema wants a number', () => {
    expect(coerced('number', '2.5')).toBe(2.5);
    expect(coerced('number', '-.5')).toBe(-0.5);
    expect(coerced('number', '1e3')).toBe(1000);
    expect(coerced('number', '4')).toBe(4);
    for (const text of ['1e999', 'NaN', 'Infinity', '1.2.3', '.', '']) {
      expect(coerced('number', text), text).toBe(text);
    }
  });

  it('turns the six boolean words into booleans, in any case, where the schema wants a boolean', () => {
    for (const text of ['true', 'YES', ' 1 ']) expect(coerced('boolean', text), text).toBe(true);
    for (const text of ['false', 'No', '0']) expect(coerced('boolean', text), text).toBe(false);
    for (const text of ['on', 'y', '2', '']) expect(coerced('boolean', text), text).toBe(text);
    expect(coerced('boolean', 1)).toBe(1);
  });

  it('wraps a single value in an array where the schema wants an array, coercing the item too', () => {
    expect(coerced('array', 'AI news')).toEqual(['AI news']);
    expect(coerced('array', { a: 1 })).toEqual([{ a: 1 }]);
    expect(coerced('array', ['x'])).toEqual(['x']);
    const schema = { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } };
    expect(coerceInputs(schema, { ids: '42' })).toEqual({ ids: [42] });
    expect(coerceInputs(schema, { ids: ['1', '2', 'x'] })).toEqual({ ids: [1, 2, 'x'] });
  });

  it('reads a list of types and leaves a value whose type is already allowed', () => {
    expect(coerced(['integer', 'null'], '5')).toBe(5);
    expect(coerced(['string', 'integer'], '5')).toBe('5');
    expect(coerced(['array', 'string'], 'x')).toBe('x');
    expect(coerced(['array', 'null'], null)).toBe(null);
    expect(coerced(['array', 'number'], 3)).toBe(3);
    expect(coerced('number', 3)).toBe(3);
    expect(coerced(undefined, '5')).toBe('5');
  });

  it('follows properties, additionalProperties, items and prefixItems into nested data', () => {
    const schema = {
      type: 'object',
      properties: {
        filter: {
          type: 'object',
          properties: { limit: { type: 'integer' } },
          additionalProperties: { type: 'boolean' },
        },
        pair: {
          type: 'array',
          prefixItems: [{ type: 'number' }, { type: 'boolean' }],
          items: { type: 'integer' },
        },
      },
    };
    expect(
      coerceInputs(schema, {
        filter: { limit: '3', fuzzy: 'yes', strict: 'no' },
        pair: ['1.5', 'true', '7'],
      }),
    ).toEqual({ filter: { limit: 3, fuzzy: true, strict: false }, pair: [1.5, true, 7] });
  });

  it('does not apply additionalProperties where patternProperties might match instead', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^n_': { type: 'string' } },
      additionalProperties: { type: 'integer' },
    };
    expect(coerceInputs(schema, { n_id: '5' })).toEqual({ n_id: '5' });
  });

  it('resolves local $refs to $defs and definitions, and survives a $ref cycle', () => {
    const schema = {
      type: 'object',
      properties: {
        count: { $ref: '#/$defs/Count' },
        flag: { $ref: '#/definitions/Flag' },
        loop: { $ref: '#/$defs/A' },
      },
      $defs: { Count: { type: 'integer' }, A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } },
      definitions: { Flag: { $ref: '#/definitions/Bool' }, Bool: { type: 'boolean' } },
    };
    expect(coerceInputs(schema, { count: '2', flag: 'yes', loop: '1' })).toEqual({
      count: 2,
      flag: true,
      loop: '1',
    });
  });

  it('follows a recursive schema as deep as the data goes', () => {
    const schema = {
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          properties: {
            weight: { type: 'number' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
    };
    const data = { weight: '1', children: [{ weight: '2', children: { weight: '3' } }] };
    expect(coerceInputs(schema, data)).toEqual({
      weight: 1,
      children: [{ weight: 2, children: [{ weight: 3 }] }],
    });
  });

  it('ignores $refs it cannot resolve locally', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: 'https://example.com/x.json' },
        b: { $ref: '#/$defs/missing' },
        c: { $ref: '#/$defs/toString' },
      },
      $defs: {},
    };
    expect(coerceInputs(schema, { a: '1', b: '1', c: '1' })).toEqual({ a: '1', b: '1', c: '1' });
  });

  it('returns a copy and never changes the data it was given', () => {
    const data = { filter: { limit: '3', tags: ['a'] } };
    const snapshot = structuredClone(data);
    const schema = {
      type: 'object',
      properties: { filter: { type: 'object', properties: { limit: { type: 'integer' } } } },
    };
    const result = coerceInputs(schema, data) as typeof data;
    expect(result).toEqual({ filter: { limit: 3, tags: ['a'] } });
    expect(data).toEqual(snapshot);
    expect(result.filter).not.toBe(data.filter);
    expect(result.filter.tags).not.toBe(data.filter.tags);
  });

  it('keeps the order of keys', () => {
    const schema = { type: 'object', properties: { b: { type: 'integer' } } };
    expect(Object.keys(coerceInputs(schema, { c: 1, b: '2', a: { z: 1, y: 2 } }) as object)).toEqual([
      'c',
      'b',
      'a',
    ]);
  });

  it('keeps __proto__, constructor and prototype as own data properties without touching any prototype', () => {
    const data = JSON.parse(
      '{"__proto__": {"polluted": "1"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": "no"}',
    );
    const schema = JSON.parse(`{
      "type": "object",
      "properties": { "__proto__": { "type": "object", "properties": { "polluted": { "type": "integer" } } } },
      "additionalProperties": { "type": ["object", "boolean"], "properties": { "prototype": { "type": "object" } } }
    }`);
    const result = coerceInputs(schema, data) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: 1 });
    expect(result.polluted).toBeUndefined();
    expect(result.constructor).toEqual({ prototype: { polluted: 'yes' } });
    expect(result.prototype).toBe(false);
  });

  it('copies data nested far deeper than any body limit without overflowing the stack', () => {
    let deep: unknown = '7';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const schema = {
      $ref: '#/$defs/Nested',
      $defs: { Nested: { type: ['array', 'integer'], items: { $ref: '#/$defs/Nested' } } },
    };
    let copy = coerceInputs(schema, deep);
    let depth = 0;
    while (Array.isArray(copy)) {
      copy = copy[0];
      depth++;
    }
    expect([depth, copy]).toEqual([100_000, 7]);
  });

  it('terminates on data that holds an object twice or in a cycle, which JSON cannot', () => {
    const shared = { n: '1' };
    const cyclic: Record<string, unknown> = { n: '2' };
    cyclic.self = cyclic;
    const schema = {
      type: 'object',
      additionalProperties: { type: 'object', properties: { n: { type: 'integer' } } },
    };
    const result = coerceInputs(schema, { a: shared, b: shared, c: cyclic }) as Record<
      string,
      Record<string, unknown>
    >;
    expect(result.a).toEqual({ n: 1 });
    expect(result.b).toEqual({ n: '1' });
    expect(result.c?.n).toBe(2);
    expect(result.c?.self).not.toBe(cyclic);
  });

  it('passes scalars and data without a matching schema through', () => {
    expect(coerceInputs({ type: 'integer' }, '12')).toBe(12);
    expect(coerceInputs({}, { a: '1' })).toEqual({ a: '1' });
    expect(coerceInputs({ type: 'object' }, null)).toBe(null);
  });
});
