import { SkillError, SkillSchemas } from '@skillrun/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

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


  it('leaves the input untouched when the default is in a definition the schema refers to', () => {
    const schema = {
      type: 'object',
      properties: { options: { $ref: '#/$defs/options' } },
      $defs: { options: { type: 'object', properties: { fuzzy: { type: 'boolean', default: false } } } },
    };
    const input = { options: {} };
    const result = new SkillSchemas().validate(schema, input);
    expect(result).toEqual({ ok: true, value: { options: { fuzzy: false } } });
    expect(input).toEqual({ options: {} });
  });
  it('prefixes paths with the base path', () => {
    const result = new SkillSchemas().validate(search, { query: '' }, '/output');
    expect(result).toEqual({
      ok: false,
      violations: [
        { path: '/output/query', message: 'must NOT have fewer than 1 characters', code: 'INVALID_INPUT' },
      ],
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

describe('SkillSchemas.assertInputs', () => {
  const digest = {
    type: 'object',
    properties: {
      topics: { type: 'array', items: { type: 'string' }, minItems: 1 },
      max_articles: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
      save_to_file: { type: 'boolean', default: false },
    },
    required: ['topics'],
    additionalProperties: false,
  };

  function rejection(data: unknown, coerce = true): SkillError {
    const error = thrownBy(() =>
      new SkillSchemas().assertInputs(digest, data, { coerce, basePath: '/inputs' }),
    );
    expect(error).toBeInstanceOf(SkillError);
    return error as SkillError;
  }

  it('coerces the usual LLM mistakes before validating, then fills defaults', () => {
    const inputs = { topics: 'AI news', max_articles: ' 3 ', save_to_file: 'yes' };
    expect(new SkillSchemas().assertInputs(digest, inputs, { coerce: true })).toEqual({
      topics: ['AI news'],
      max_articles: 3,
      save_to_file: true,
    });
    expect(inputs).toEqual({ topics: 'AI news', max_articles: ' 3 ', save_to_file: 'yes' });
  });

  it('leaves the data as sent when coercion is off', () => {
    const error = rejection({ topics: ['AI'], max_articles: '3' }, false);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe('Invalid inputs: [inputs -> max_articles] must be integer (got string "3")');
    expect(new SkillSchemas().assertInputs(digest, { topics: ['AI'] }, { coerce: false })).toEqual({
      topics: ['AI'],
      max_articles: 5,
      save_to_file: false,
    });
  });

  it('throws MISSING_REQUIRED_PARAM when a required input is missing, with every violation in details', () => {
    const error = rejection({ max_articles: 99 });
    expect(error.code).toBe('MISSING_REQUIRED_PARAM');
    expect(error.recoverable).toBe(true);
    expect(error.message).toBe(
      'Invalid inputs: [inputs -> topics] is required; [inputs -> max_articles] must be <= 10',
    );
    expect(error.toBody().details).toEqual([
      { path: '/inputs/topics', message: 'is required', code: 'MISSING_REQUIRED_PARAM' },
      { path: '/inputs/max_articles', message: 'must be <= 10', code: 'PARAM_OUT_OF_RANGE' },
    ]);
  });

  it('throws PARAM_OUT_OF_RANGE when only bounds are broken, after coercion', () => {
    const error = rejection({ topics: ['AI'], max_articles: '0' });
    expect(error.code).toBe('PARAM_OUT_OF_RANGE');
    expect(error.toBody().details).toEqual([
      { path: '/inputs/max_articles', message: 'must be >= 1', code: 'PARAM_OUT_OF_RANGE' },
    ]);
  });

  it('throws INVALID_INPUT for anything else, such as a value that cannot be coerced', () => {
    const error = rejection({ topics: ['AI'], max_articles: 'five', extra: 1 });
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      'Invalid inputs: [inputs -> extra] is not a declared property; ' +
        '[inputs -> max_articles] must be integer (got string "five")',
    );
  });

  it('names what is validated in the message', () => {
    const error = thrownBy(() =>
      new SkillSchemas().assertInputs(digest, {}, { coerce: true, what: 'step inputs' }),
    );
    expect((error as SkillError).message).toBe('Invalid step inputs: [topics] is required');
  });
});

describe('SkillSchemas compile cache', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('compiles structurally equal schemas once, however many distinct objects carry them', () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const schemas = new SkillSchemas();
    const first = schemas.compile(structuredClone(search));
    for (let i = 0; i < 5000; i++) expect(schemas.compile(structuredClone(search))).toBe(first);
    expect(compile).toHaveBeenCalledTimes(1);
    expect(schemas.size).toBe(1);
  });

  it('keeps at most the configured number of schemas, removing the evicted ones from ajv too', () => {
    const removeSchema = vi.spyOn(Ajv2020.prototype, 'removeSchema');
    const schemas = new SkillSchemas({ maxCachedSchemas: 10 });
    const compiled = Array.from({ length: 25 }, (_, i) => ({ type: 'integer', maximum: i }));
    for (const schema of compiled) schemas.compile(schema);
    expect(schemas.size).toBe(10);
    expect(removeSchema).toHaveBeenCalledTimes(15);
    expect(removeSchema.mock.calls.map(([schema]) => schema)).toEqual(compiled.slice(0, 15));
  });

  it('evicts the least recently used schema, not the oldest', () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const schemas = new SkillSchemas({ maxCachedSchemas: 2 });
    schemas.compile({ type: 'string' });
    schemas.compile({ type: 'number' });
    schemas.compile({ type: 'string' });
    schemas.compile({ type: 'boolean' });
    expect(compile).toHaveBeenCalledTimes(3);
    schemas.compile({ type: 'string' });
    expect(compile).toHaveBeenCalledTimes(3);
    schemas.compile({ type: 'number' });
    expect(compile).toHaveBeenCalledTimes(4);
  });

  it('still validates with a function whose schema was evicted', () => {
    const schemas = new SkillSchemas({ maxCachedSchemas: 1 });
    const schema = { type: 'string', maxLength: 2 };
    schemas.compile(schema);
    schemas.compile({ type: 'number' });
    expect(schemas.validate(schema, 'ab').ok).toBe(true);
    expect(schemas.validate(schema, 'abc').ok).toBe(false);
  });
});
