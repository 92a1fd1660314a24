import { SkillError, SkillSchemas } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const search = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1, default: 5 },
    options: {
      type: 'object',
      properties: { fuzzy: { type: 'boolean', default: false } },
      default: {},
    },
  },
  required: ['query'],
  additionalProperties: false,
};

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('SkillSchemas.validate', () => {
  it('answers ok with the value when the data is valid', () => {
    const result = new SkillSchemas().validate(search, { query: 'cats', limit: 2, options: { fuzzy: true } });
    expect(result).toEqual({ ok: true, value: { query: 'cats', limit: 2, options: { fuzzy: true } } });
  });

  it('fills defaults into a copy and leaves the input untouched', () => {
    const input = { query: 'cats' };
    const frozen = Object.freeze({ query: 'dogs' });
    const schemas = new SkillSchemas();
    const result = schemas.validate(search, input);
    expect(result).toEqual({ ok: true, value: { query: 'cats', limit: 5, options: { fuzzy: false } } });
    expect(input).toEqual({ query: 'cats' });
    if (result.ok) expect(result.value).not.toBe(input);
    expect(schemas.validate(search, frozen)).toMatchObject({ ok: true, value: { limit: 5 } });
    expect(frozen).toEqual({ query: 'dogs' });
  });

  it('does not mutate nested objects of the input either', () => {
    const input = { query: 'cats', options: {} };
    new SkillSchemas().validate(search, input);
    expect(input.options).toEqual({});
  });

  it('prefixes paths with the base path', () => {
    const result = new SkillSchemas().validate(search, { query: '' }, '/output');
    expect(result).toEqual({
      ok: false,
      violations: [{ path: '/output/query', message: 'must NOT have fewer than 1 characters' }],
    });
  });

  it('reads a draft-07 schema (with its $schema marker)', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...search };
    expect(new SkillSchemas().validate(schema, { query: 'x' }).ok).toBe(true);
    expect(new SkillSchemas().validate(schema, {}).ok).toBe(false);
  });
});

describe('SkillSchemas.compile', () => {
  it('returns the same function for the same schema (cached)', () => {
    const schemas = new SkillSchemas();
    const first = schemas.compile(search);
    expect(schemas.compile(search)).toBe(first);
    expect(schemas.compile(structuredClone(search))).toBe(first);
  });

  it('returns different functions for different schemas', () => {
    const schemas = new SkillSchemas();
    expect(schemas.compile({ type: 'string' })).not.toBe(schemas.compile({ type: 'number' }));
  });

  it('compiled functions validate', () => {
    const validate = new SkillSchemas().compile({ type: 'string', maxLength: 3 });
    expect(validate('abc')).toBe(true);
    expect(validate('abcd')).toBe(false);
  });

  it('throws a SkillError with code INVALID_INPUT for an invalid schema', () => {
    const schemas = new SkillSchemas();
    for (const schema of [{ type: 'nope' }, { type: 'object', required: 'name' }, { minimum: 'zero' }]) {
      const error = thrownBy(() => schemas.compile(schema));
      expect(error).toBeInstanceOf(SkillError);
      expect((error as SkillError).code).toBe('INVALID_INPUT');
      expect((error as SkillError).message).toMatch(/^Invalid JSON Schema: /);
      expect((error as SkillError).recoverable).toBe(false);
    }
  });

  it('makes validate throw the same error for an invalid schema', () => {
    const error = thrownBy(() => new SkillSchemas().validate({ type: 'nope' }, 'x'));
    expect(error).toBeInstanceOf(SkillError);
    expect((error as SkillError).code).toBe('INVALID_INPUT');
  });
});

describe('SkillSchemas.assert', () => {
  it('returns the value with defaults when valid', () => {
    expect(new SkillSchemas().assert(search, { query: 'q' }, 'inputs', '/inputs')).toEqual({
      query: 'q',
      limit: 5,
      options: { fuzzy: false },
    });
  });

  it('throws INVALID_INPUT (or the given code) with one detail per violation', () => {
    const schemas = new SkillSchemas();
    const error = thrownBy(() => schemas.assert(search, { limit: 0 }, 'inputs', '/inputs')) as SkillError;
    expect(error).toBeInstanceOf(SkillError);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      'Invalid inputs: [inputs -> query] is required; [inputs -> limit] must be >= 1',
    );
    expect(error.toBody().details).toEqual([
      { path: '/inputs/query', message: 'is required' },
      { path: '/inputs/limit', message: 'must be >= 1' },
    ]);
    const output = thrownBy(() => schemas.assert(search, {}, 'output', '/output', 'INVALID_OUTPUT'));
    expect((output as SkillError).code).toBe('INVALID_OUTPUT');
  });
});
