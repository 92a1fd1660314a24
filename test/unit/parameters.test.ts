import { type ParameterDefinition, toInputSchema, toParameterDefinitions } from '@skillrun/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Names that JavaScript objects list first, whatever their order (array indices), are left out. */
const parameterName = fc.string({ minLength: 1 }).filter((text) => !/^(0|[1-9]\d*)$/.test(text));

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

/** Keywords other than the three a ParameterDefinition carries on its own. */
const keywords = fc.dictionary(
  fc.constantFrom(
    'minimum',
    'maximum',
    'enum',
    'format',
    'pattern',
    'items',
    'minLength',
    'examples',
    'title',
  ),
  fc.jsonValue(),
  { minKeys: 1 },
);

const typeName = fc.oneof(
  fc.constant('any'),
  fc
    .uniqueArray(fc.constantFrom(...JSON_TYPES), { minLength: 1, maxLength: 3 })
    .map((types) => types.join('|')),
);

const parameters = fc.uniqueArray(
  fc.record(
    {
      name: fc.oneof(parameterName, fc.constantFrom('__proto__', 'constructor', 'a/b', 'x~y')),
      type: typeName,
      description: fc.string(),
      required: fc.boolean(),
      default: fc.jsonValue(),
      schema: keywords,
    },
    { requiredKeys: ['name', 'type', 'required'] },
  ),
  { selector: (parameter) => parameter.name, maxLength: 8 },
);

const property = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom(...JSON_TYPES),
      fc.uniqueArray(fc.constantFrom(...JSON_TYPES), { minLength: 2, maxLength: 3 }),
    ),
    description: fc.string(),
    default: fc.jsonValue(),
    minimum: fc.integer(),
    enum: fc.array(fc.jsonValue(), { minLength: 1 }),
    format: fc.constantFrom('date-time', 'email', 'uri'),
  },
  { requiredKeys: [] },
);

const inputSchemas = fc
  .uniqueArray(fc.tuple(parameterName, property, fc.boolean()), {
    selector: ([name]) => name,
    maxLength: 8,
  })
  .map((entries) => {
    const required = entries.filter(([, , isRequired]) => isRequired).map(([name]) => name);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([name, schema]) => [name, schema])),
      ...(required.length > 0 ? { required } : {}),
    };
  });

describe('toInputSchema', () => {
  it('builds an object schema with typed, described, defaulted properties and the required names', () => {
    const inputs: ParameterDefinition[] = [
      {
        name: 'topics',
        type: 'array',
        description: 'What to research',
        required: true,
        schema: { minItems: 1 },
      },
      { name: 'limit', type: 'integer', required: false, default: 5, schema: { minimum: 1, maximum: 10 } },
      { name: 'cursor', type: 'string|null', required: false, default: null },
      { name: 'extra', type: 'any', required: false },
    ];
    expect(toInputSchema(inputs)).toEqual({
      type: 'object',
      properties: {
        topics: { type: 'array', description: 'What to research', minItems: 1 },
        limit: { type: 'integer', default: 5, minimum: 1, maximum: 10 },
        cursor: { type: ['string', 'null'], default: null },
        extra: {},
      },
      required: ['topics'],
    });
  });

  it('omits required when nothing is required', () => {
    expect(toInputSchema([{ name: 'a', type: 'string', required: false }])).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(toInputSchema([])).toEqual({ type: 'object', properties: {} });
  });

  it('declares a parameter named __proto__ as an own property, touching no prototype', () => {
    const schema = toInputSchema([{ name: '__proto__', type: 'string', required: true }]);
    const properties = schema.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(schema.required).toEqual(['__proto__']);
  });

  it('is undone by toParameterDefinitions, for any parameter list', () => {
    fc.assert(
      fc.property(parameters, (list) => {
        expect(toParameterDefinitions(toInputSchema(list))).toEqual(list);
      }),
    );
  });

  it('undoes toParameterDefinitions, for any object schema of properties', () => {
    fc.assert(
      fc.property(inputSchemas, (schema) => {
        expect(toInputSchema(toParameterDefinitions(schema))).toEqual(schema);
      }),
    );
  });
});
