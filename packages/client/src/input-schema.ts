import type { ParameterDefinition } from './protocol.js';

/**
 * The input JSON Schema a descriptor's ParameterDefinitions describe (spec 000 lists inputs one by
 * one, as toParameterDefinitions writes them on the service): `a|b` is the type list ["a","b"],
 * `any` is no type at all. Parameters keep their order, except that names such as "0" come first,
 * as JavaScript lists such keys of an object. The service validates inputs against it; `skillrun
 * types` compiles it to TypeScript.
 */
export function inputSchemaOf(parameters: ParameterDefinition[]): Record<string, unknown> {
  // fromEntries defines each name as an own property, `__proto__` included.
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
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
