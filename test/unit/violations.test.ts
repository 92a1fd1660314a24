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
    expect(violationsOf({})).toEqual([{ path: '/inputs/name', message: 'is required' }]);
  });

  it('names a missing nested property under its parent', () => {
    expect(violationsOf({ name: 'a', address: {} })).toEqual([
      { path: '/inputs/address/city', message: 'is required' },
    ]);
  });

  it('names an extra property in the path', () => {
    expect(violationsOf({ name: 'a', nickname: 'b' })).toEqual([
      { path: '/inputs/nickname', message: 'is not a declared property' },
    ]);
    expect(violationsOf({ name: 'a', address: { city: 'c', planet: 'earth' } })).toEqual([
      { path: '/inputs/address/planet', message: 'is not a declared property' },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    expect(violationsOf({ name: 'a', color: 'pink' })).toEqual([
      { path: '/inputs/color', message: 'must be one of ["red","green"]' },
    ]);
  });

  it('checks the date-time and email formats', () => {
    expect(violationsOf({ name: 'a', when: 'yesterday' })).toEqual([
      { path: '/inputs/when', message: 'must match format "date-time"' },
    ]);
    expect(violationsOf({ name: 'a', email: 'not-an-address' })).toEqual([
      { path: '/inputs/email', message: 'must match format "email"' },
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
        { path: '/inputs/name', message: 'is required' },
        { path: '/inputs/extra', message: 'is not a declared property' },
        { path: '/inputs/age', message: 'must be >= 0' },
        { path: '/inputs/color', message: 'must be one of ["red","green"]' },
        { path: '/inputs/tags/1', message: 'must be string' },
        { path: '/inputs/when', message: 'must match format "date-time"' },
      ]),
    );
  });

  it('uses a JSON Pointer rooted at "/" when there is no base path', () => {
    expect(violationsOf({}, '')).toEqual([{ path: '/name', message: 'is required' }]);
    expect(violationsOf('a string', '')).toEqual([{ path: '/', message: 'must be object' }]);
    expect(violationsOf('a string', '/inputs')).toEqual([{ path: '/inputs', message: 'must be object' }]);
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
        { path: '/inputs/a~1b', message: 'must be string' },
        { path: '/inputs/c~0d', message: 'is required' },
        { path: '/inputs/x~1y~0z', message: 'is not a declared property' },
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
