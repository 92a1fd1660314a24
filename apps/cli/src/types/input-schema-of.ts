import type { ParameterDefinition } from '@skillrun/client';

/**
 * The input JSON Schema a descriptor's ParameterDefinitions describe (spec 000 lists inputs one by
 * one): `a|b` is the type list ["a","b"], `any` no type at all. No fields beyond those listed, so
 * that a misspelt input name is a compile error.
 */
export function inputSchemaOf(parameters: ParameterDefinition[]): Record<string, unknown> {
  const properties = Object.fromEntries(
    parameters.map(({ name, type, description, default: defaultValue, schema }) => [
      name,
      {
        ...schema,
        ...(type === 'any' ? {} : { type: type.includes('|') ? type.split('|') : type }),
        ...(description === undefined ? {} : { description }),
        ...(defaultValue === undefined ? {} : { default: defaultValue }),
      },
    ]),
  );
  const required = parameters.filter((parameter) => parameter.required).map(({ name }) => name);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
