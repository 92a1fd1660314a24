import { SchemaValidator, SkillDefinition, SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const validator = new SchemaValidator(SkillDefinition, 'skill.json');

/** The spec's LLM example: a skill whose work is a prompt. */
function codeReview(): Record<string, unknown> {
  return {
    name: 'code_review',
    description: 'Reviews a piece of code and lists the problems it finds, most serious first.',
    category: 'development',
    input: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 1, description: 'The code to review.' },
        language: { type: 'string', enum: ['typescript', 'python', 'go'], default: 'typescript' },
        focus: { type: 'array', items: { type: 'string' } },
      },
      required: ['code'],
    },
    output: {
      type: 'object',
      properties: {
        issues: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              line: { type: 'integer' },
              severity: { type: 'string', enum: ['info', 'warning', 'error'] },
              message: { type: 'string' },
            },
            required: ['severity', 'message'],
          },
        },
        summary: { type: 'string' },
      },
      required: ['issues', 'summary'],
    },
    mode: 'llm',
  };
}

/** The spec's code example, as in skills/memory/search/skill.json. */
function memorySearch(): Record<string, unknown> {
  return {
    name: 'memory_search',
    description: "Searches the caller's long-term memory and returns the best-matching snippets.",
    category: 'memory',
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 1000 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: { results: { type: 'array' }, count: { type: 'integer' } },
      required: ['results', 'count'],
    },
    mode: 'code',
    calls: [],
    version: '1.2.3',
    tags: ['memory', 'search'],
    author: 'skillrun',
    timeout: 5000,
    retry: 2,
  };
}

function rejection(data: unknown): SkillError {
  try {
    validator.parse(data);
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    expect((error as SkillError).code).toBe('INVALID_INPUT');
    return error as SkillError;
  }
  throw new Error('expected the definition to be rejected');
}

describe('the SkillDefinition meta-schema', () => {
  it('accepts the LLM example and fills in the defaults', () => {
    const definition = validator.parse(codeReview());
    expect(definition).toMatchObject({ name: 'code_review', mode: 'llm' });
    expect(definition.calls).toEqual([]);
    expect(definition.version).toBe('1.0.0');
    expect(definition.tags).toEqual([]);
    expect(definition.timeout).toBe(30000);
    expect(definition.retry).toBe(0);
  });

  it('accepts the code example and keeps the values it gives', () => {
    const definition = validator.parse(memorySearch());
    expect(definition).toMatchObject({
      name: 'memory_search',
      mode: 'code',
      version: '1.2.3',
      tags: ['memory', 'search'],
      timeout: 5000,
      retry: 2,
      author: 'skillrun',
    });
  });

  it('accepts a composite skill with a pipeline', () => {
    const composite = {
      ...codeReview(),
      name: 'review_and_remember',
      mode: 'composite',
      calls: ['code_review', 'memory_store'],
      pipeline: [
        { step: 'review', skill: 'code_review', input: { code: '$.input.code' } },
        {
          step: 'save',
          skill: 'memory_store',
          input: { text: '$.review.summary' },
          condition: '$.review.issues',
        },
      ],
      outputMapping: { summary: '$.review.summary' },
    };
    expect(() => validator.parse(composite)).not.toThrow();
  });

  it.each(['Bad-Name', '1skill', 'has space', '', 'a'.repeat(129)])(
    'rejects the name %j, naming name',
    (name) => {
      expect(rejection({ ...codeReview(), name }).message).toContain('name');
    },
  );

  it('rejects an unknown top-level field, naming it', () => {
    const error = rejection({ ...codeReview(), handler: 'index.js' });
    expect(error.message).toContain('handler');
    expect(error.toBody().details).toEqual([
      { path: '/handler', message: 'is not a declared property', code: 'INVALID_INPUT' },
    ]);
  });

  it("rejects mode 'python', naming mode", () => {
    const error = rejection({ ...codeReview(), mode: 'python' });
    expect(error.message).toContain('mode');
    expect(error.message).toContain('must be one of ["code","llm","composite","knowledge","task"]');
  });

  it.each([
    ['description', { description: '' }],
    ['version', { version: '1.0' }],
    ['timeout', { timeout: 0 }],
    ['retry', { retry: -1 }],
    ['retry', { retry: 1.5 }],
    ['tags', { tags: 'memory' }],
  ])('rejects a bad %s, naming it', (field, change) => {
    expect(rejection({ ...memorySearch(), ...change }).message).toContain(field);
  });

  it.each(['name', 'description', 'category', 'input', 'output', 'mode'])(
    'rejects a definition without %s, naming it',
    (field) => {
      const definition = memorySearch();
      delete definition[field];
      const error = rejection(definition);
      expect(error.message).toContain(field);
      expect(error.toBody().details).toContainEqual({
        path: `/${field}`,
        message: 'is required',
        code: 'MISSING_REQUIRED_PARAM',
      });
    },
  );
});
