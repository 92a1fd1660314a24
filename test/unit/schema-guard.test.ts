import {
  assertSafeSchema,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  SkillError,
} from '@skillrun/core';
import { describe, expect, it } from 'vitest';

/** Spec 002 section 31.1: DailyNewsDigestInput, with the date_range of its principle three. */
const dailyNewsDigestInput = {
  $schema: 'https://json-schema.org/draft/2020-12',
  type: 'object',
  title: 'DailyNewsDigestInput',
  required: ['topics'],
  additionalProperties: false,
  properties: {
    topics: {
      type: 'array',
      items: { type: 'string', minLength: 2, maxLength: 100 },
      minItems: 1,
      maxItems: 5,
      examples: [['AI regulation in Europe'], ['quantum computing', 'space exploration']],
    },
    time_range: { type: 'string', enum: ['today', '24h', 'this_week', 'this_month'], default: 'today' },
    max_articles_per_topic: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
    output_language: { type: 'string', default: 'auto', pattern: '^(auto|[a-z]{2})$' },
    output_format: {
      type: 'string',
      enum: ['prose', 'bullets', 'structured', 'brief'],
      default: 'structured',
    },
    save_to_file: { type: 'boolean', default: false },
    file_path: { type: 'string', pattern: '^[^<>:"\\\\|?*]+\\.md$' },
    date_range: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}(/\\d{4}-\\d{2}-\\d{2})?$' },
  },
  if: { properties: { save_to_file: { const: true } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise
  then: { properties: { file_path: { type: 'string' } } },
};

function refusal(schema: unknown): SkillError {
  try {
    assertSafeSchema(schema, '/inputs');
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    expect((error as SkillError).code).toBe('INVALID_INPUT');
    return error as SkillError;
  }
  throw new Error('expected the schema to be refused');
}

function detailOf(schema: unknown): { path: string; message: string } {
  const details = refusal(schema).toBody().details as { path: string; message: string }[];
  expect(details).toHaveLength(1);
  return details[0] as { path: string; message: string };
}

function nestedObjects(depth: number): unknown {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < depth; i++) schema = { allOf: schema };
  return schema;
}

describe('assertSafeSchema', () => {
  it('accepts ordinary schemas such as spec 002 DailyNewsDigestInput', () => {
    expect(() => assertSafeSchema(dailyNewsDigestInput, '/inputs')).not.toThrow();
    expect(() =>
      assertSafeSchema({ type: 'object', properties: { pattern: { type: 'string' } } }, ''),
    ).not.toThrow();
    expect(() => assertSafeSchema(true, '/output/schema')).not.toThrow();
  });

  it('refuses a pattern that backtracks catastrophically, naming where it is', () => {
    for (const pattern of ['^(a+)+$', '(a*)*', '^(\\w+\\s?)*$', '((a+)?)*', '(a?a?)*', '([?)]+)*']) {
      const detail = detailOf({ type: 'object', properties: { name: { type: 'string', pattern } } });
      expect(detail.path).toBe('/inputs/properties/name/pattern');
      expect(detail.message).toMatch(/can backtrack catastrophically/);
    }
  });

  it('refuses an unsafe key of patternProperties, escaping it in the path', () => {
    const detail = detailOf({ type: 'object', patternProperties: { '^(a/|b+)+$': { type: 'string' } } });
    expect(detail.path).toBe('/inputs/patternProperties/^(a~1|b+)+$');
  });

  it('refuses a pattern the linear-time engine cannot run', () => {
    const detail = detailOf({ $defs: { Name: { type: 'string', pattern: '^(?!admin$)' } } });
    expect(detail).toEqual({
      path: '/inputs/$defs/Name/pattern',
      message: expect.stringMatching(
        /uses syntax the linear-time engine does not support, e\.g\. lookaround/,
      ),
    });
    expect(detailOf({ items: { pattern: '(x)\\1' } }).path).toBe('/inputs/items/pattern');
  });

  it('checks patterns under a property named like a data keyword, but not inside data', () => {
    expect(detailOf({ properties: { enum: { pattern: '(a+)+' } } }).path).toBe(
      '/inputs/properties/enum/pattern',
    );
    expect(() =>
      assertSafeSchema(
        { type: 'object', default: { pattern: '(a+)+' }, examples: [{ pattern: '(?=x)' }] },
        '',
      ),
    ).not.toThrow();
  });

  it('refuses a property named __proto__ in properties or required', () => {
    expect(detailOf(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')).path).toBe(
      '/inputs/properties/__proto__',
    );
    expect(detailOf({ type: 'object', required: ['name', '__proto__'] }).path).toBe('/inputs/required');
  });

  it(`refuses a schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`, () => {
    expect(() => assertSafeSchema(nestedObjects(MAX_SCHEMA_DEPTH), '')).not.toThrow();
    const detail = detailOf(nestedObjects(MAX_SCHEMA_DEPTH + 1));
    expect(detail.message).toBe(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    expect(detail.path).toBe(`/inputs${'/allOf'.repeat(MAX_SCHEMA_DEPTH)}`);
  });

  it('refuses deeply nested arrays without overflowing the stack', () => {
    let schema: unknown = {};
    for (let i = 0; i < 100_000; i++) schema = { anyOf: [schema] };
    expect(detailOf(schema).message).toMatch(/nests deeper/);
  });

  it(`refuses a schema with more than ${MAX_SCHEMA_NODES} keys and items`, () => {
    const names = (count: number) => Array.from({ length: count }, (_, i) => `p${i}`);
    expect(() => assertSafeSchema({ enum: names(MAX_SCHEMA_NODES - 1) }, '')).not.toThrow();
    expect(detailOf({ enum: names(MAX_SCHEMA_NODES) }).message).toBe(
      `has more than ${MAX_SCHEMA_NODES} keys and items`,
    );
  });

  it(`refuses a schema over ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`, () => {
    const sized = (bytes: number) => ({ description: 'x'.repeat(bytes - '{"description":""}'.length) });
    expect(() => assertSafeSchema(sized(MAX_SCHEMA_BYTES), '')).not.toThrow();
    expect(detailOf(sized(MAX_SCHEMA_BYTES + 1))).toEqual({
      path: '/inputs',
      message: 'is over 64 KiB as JSON',
    });
    expect(detailOf({ description: 'é'.repeat(MAX_SCHEMA_BYTES / 2) }).message).toBe(
      'is over 64 KiB as JSON',
    );
  });

  it('names the place in the message, as the spec renders violations', () => {
    expect(refusal({ properties: { a: { pattern: '(a+)+' } } }).message).toMatch(
      /^Unsafe JSON Schema: \[inputs -> properties -> a -> pattern\] pattern "\(a\+\)\+" can backtrack/,
    );
    expect(refusal({ properties: { a: { pattern: '(a+)+' } } }).recoverable).toBe(false);
  });
});
