import { type ParameterDefinition, toDescriptorInputs, toInputSchema } from '@skillrun/core';
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

/** An input schema's own keywords beyond type, properties and required (x-inputs_schema). */
const rootKeywords = fc.record(
  {
    $schema: fc.constant('https://json-schema.org/draft/2020-12/schema'),
    $defs: fc.dictionary(parameterName, property),
    additionalProperties: fc.boolean(),
    title: fc.string(),
    minProperties: fc.nat(),
  },
  { requiredKeys: [] },
);

const inputSchemas = fc
  .tuple(
    fc.uniqueArray(fc.tuple(parameterName, property, fc.boolean()), {
      selector: ([name]) => name,
      maxLength: 8,
    }),
    rootKeywords,
  )
  .map(([entries, keywords]) => {
    const required = entries.filter(([, , isRequired]) => isRequired).map(([name]) => name);
    return {
      ...keywords,
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
    expect(toInputSchema({ inputs })).toEqual({
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
    expect(toInputSchema({ inputs: [{ name: 'a', type: 'string', required: false }] })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(toInputSchema({ inputs: [] })).toEqual({ type: 'object', properties: {} });
  });

  it('declares a parameter named __proto__ as an own property, touching no prototype', () => {
    const schema = toInputSchema({ inputs: [{ name: '__proto__', type: 'string', required: true }] });
    const properties = schema.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(schema.required).toEqual(['__proto__']);
  });

  it("keeps the input schema's own keywords, $defs and the $refs into them included", () => {
    const address = { type: 'object', properties: { city: { type: 'string' } } };
    const described = toDescriptorInputs({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address },
      properties: { address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    });
    expect(described).toEqual({
      inputs: [{ name: 'address', type: 'any', required: false, schema: { $ref: '#/$defs/address' } }],
      'x-inputs_schema': {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $defs: { address },
        additionalProperties: false,
      },
    });
    expect(toInputSchema(described)).toMatchObject({ $defs: { address }, additionalProperties: false });
  });

  it('is undone by toDescriptorInputs, for any parameter list', () => {
    fc.assert(
      fc.property(parameters, (inputs) => {
        expect(toDescriptorInputs(toInputSchema({ inputs }))).toEqual({ inputs });
      }),
    );
  });

  it('undoes toDescriptorInputs, for any object schema of properties and keywords of its own', () => {
    fc.assert(
      fc.property(inputSchemas, (schema) => {
        expect(toInputSchema(toDescriptorInputs(schema))).toEqual(schema);
      }),
    );
  });
});
