import { describeViolations, SkillSchemas } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const person = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    color: { type: 'string', enum: ['red', 'green'] },
    when: { type: 'string', format: 'date-time' },
    email: { type: 'string', format: 'email' },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

function violationsOf(data: unknown, basePath = '/inputs', schema: object = person) {
  const result = new SkillSchemas().validate(schema, data, basePath);
  if (result.ok) throw new Error(`expected violations for ${JSON.stringify(data)}`);
  return result.violations;
}

describe('SkillSchemas.validate violations', () => {
  it('names a missing required property in the path, with the message "is required"', () => {
    expect(violationsOf({})).toEqual([
      { path: '/inputs/name', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
    ]);
  });

  it('names a missing nested property under its parent', () => {
    expect(violationsOf({ name: 'a', address: {} })).toEqual([
      { path: '/inputs/address/city', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
    ]);
  });

  it('names an extra property in the path', () => {
    expect(violationsOf({ name: 'a', nickname: 'b' })).toEqual([
      { path: '/inputs/nickname', message: 'is not a declared property', code: 'INVALID_INPUT' },
    ]);
    expect(violationsOf({ name: 'a', address: { city: 'c', planet: 'earth' } })).toEqual([
      { path: '/inputs/address/planet', message: 'is not a declared property', code: 'INVALID_INPUT' },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    expect(violationsOf({ name: 'a', color: 'pink' })).toEqual([
      { path: '/inputs/color', message: 'must be one of ["red","green"]', code: 'INVALID_INPUT' },
    ]);
  });

  it('checks the date-time and email formats', () => {
    expect(violationsOf({ name: 'a', when: 'yesterday' })).toEqual([
      { path: '/inputs/when', message: 'must match format "date-time"', code: 'INVALID_INPUT' },
    ]);
    expect(violationsOf({ name: 'a', email: 'not-an-address' })).toEqual([
      { path: '/inputs/email', message: 'must match format "email"', code: 'INVALID_INPUT' },
    ]);
    const ok = new SkillSchemas().validate(person, {
      name: 'a',
      when: '2024-05-06T07:08:09Z',
      email: 'someone@example.com',
    });
    expect(ok.ok).toBe(true);
  });

  it('reports one violation per problem, each at its own path', () => {
    const violations = violationsOf({ age: -1, color: 'pink', extra: true, tags: ['ok', 7], when: 'x' });
    expect(violations).toHaveLength(6);
    expect(violations).toEqual(
      expect.arrayContaining([
        { path: '/inputs/name', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
        { path: '/inputs/extra', message: 'is not a declared property', code: 'INVALID_INPUT' },
        { path: '/inputs/age', message: 'must be >= 0', code: 'PARAM_OUT_OF_RANGE' },
        { path: '/inputs/color', message: 'must be one of ["red","green"]', code: 'INVALID_INPUT' },
        { path: '/inputs/tags/1', message: 'must be string (got number 7)', code: 'INVALID_INPUT' },
        { path: '/inputs/when', message: 'must match format "date-time"', code: 'INVALID_INPUT' },
      ]),
    );
  });

  it('uses a JSON Pointer rooted at "/" when there is no base path', () => {
    expect(violationsOf({}, '')).toEqual([
      { path: '/name', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
    ]);
    expect(violationsOf('a string', '')).toEqual([
      { path: '/', message: 'must be object (got string "a string")', code: 'INVALID_INPUT' },
    ]);
    expect(violationsOf('a string', '/inputs')).toEqual([
      { path: '/inputs', message: 'must be object (got string "a string")', code: 'INVALID_INPUT' },
    ]);
  });

  it('escapes "/" and "~" in property names as JSON Pointer does (~1 and ~0)', () => {
    const schema = {
      type: 'object',
      properties: { 'a/b': { type: 'string' } },
      required: ['a/b', 'c~d'],
      additionalProperties: false,
    };
    expect(violationsOf({ 'a/b': 1, 'x/y~z': 0 }, '/inputs', schema)).toEqual(
      expect.arrayContaining([
        { path: '/inputs/a~1b', message: 'must be string (got number 1)', code: 'INVALID_INPUT' },
        { path: '/inputs/c~0d', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
        { path: '/inputs/x~1y~0z', message: 'is not a declared property', code: 'INVALID_INPUT' },
      ]),
    );
  });

  it('stops at 50 violations', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    expect(
      violationsOf(
        Array.from({ length: 80 }, (_, i) => i),
        '',
        schema,
      ),
    ).toHaveLength(50);
  });
});

describe('violation codes and type messages', () => {
  const bounded = {
    type: 'object',
    properties: {
      low: { type: 'integer', minimum: 1 },
      high: { type: 'number', maximum: 10 },
      above: { type: 'number', exclusiveMinimum: 0 },
      below: { type: 'number', exclusiveMaximum: 5 },
      short: { type: 'string', maxLength: 2 },
    },
  };

  it('codes the four range keywords PARAM_OUT_OF_RANGE and other bounds INVALID_INPUT', () => {
    const violations = violationsOf({ low: 0, high: 11, above: 0, below: 5, short: 'abc' }, '', bounded);
    expect(violations.map(({ path, code }) => [path, code])).toEqual([
      ['/low', 'PARAM_OUT_OF_RANGE'],
      ['/high', 'PARAM_OUT_OF_RANGE'],
      ['/above', 'PARAM_OUT_OF_RANGE'],
      ['/below', 'PARAM_OUT_OF_RANGE'],
      ['/short', 'INVALID_INPUT'],
    ]);
  });

  it('says what was sent when the type is wrong', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, s: { type: ['string', 'null'] } },
    };
    const messageFor = (data: unknown) => violationsOf(data, '', schema)[0]?.message;
    expect(messageFor({ n: 'abc' })).toBe('must be integer (got string "abc")');
    expect(messageFor({ n: 1.5 })).toBe('must be integer (got number 1.5)');
    expect(messageFor({ n: true })).toBe('must be integer (got boolean true)');
    expect(messageFor({ n: null })).toBe('must be integer (got null)');
    expect(messageFor({ n: [1] })).toBe('must be integer (got array)');
    expect(messageFor({ n: {} })).toBe('must be integer (got object)');
    expect(messageFor({ s: 3 })).toBe('must be string or null (got number 3)');
  });

  it('quotes at most 40 characters of a long string', () => {
    const message = violationsOf({ n: 'x'.repeat(10_000) }, '', { properties: { n: { type: 'integer' } } })[0]
      ?.message;
    expect(message).toBe(`must be integer (got string "${'x'.repeat(40)}…")`);
  });
});

describe('describeViolations', () => {
  it('renders each violation as "[a -> b] message", joined by "; "', () => {
    expect(
      describeViolations([
        { path: '/inputs/address/city', message: 'is required' },
        { path: '/inputs/color', message: 'must be one of ["red","green"]' },
      ]),
    ).toBe('[inputs -> address -> city] is required; [inputs -> color] must be one of ["red","green"]');
  });

  it('renders the root as "[]" and no violations as an empty string', () => {
    expect(describeViolations([{ path: '/', message: 'must be object' }])).toBe('[] must be object');
    expect(describeViolations([])).toBe('');
  });
});
