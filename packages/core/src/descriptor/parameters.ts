import type { ParameterDefinition } from '../schemas/skill-descriptor';

interface ObjectSchema {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** The input schema's properties as spec 000 ParameterDefinitions; extra keywords go in `schema`. */
export function toParameterDefinitions(inputSchema: object): ParameterDefinition[] {
  const { properties = {}, required = [] } = inputSchema as ObjectSchema;
  return Object.entries(properties).map(([name, property]) => {
    const { type, description, default: defaultValue, ...keywords } = property;
    return {
      name,
      type: Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any',
      ...(typeof description === 'string' ? { description } : {}),
      required: required.includes(name),
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
      ...(Object.keys(keywords).length > 0 ? { schema: keywords } : {}),
    };
  });
}

/**
 * The input JSON Schema the ParameterDefinitions describe, the reverse of toParameterDefinitions:
 * `a|b` is the type list ["a","b"], `any` is no type at all. Parameters keep their order, except that
 * names such as "0" come first, as JavaScript lists such keys of an object. The service validates
 * inputs against it; `skillrun types` compiles it to TypeScript.
 */
export function toInputSchema(parameters: ParameterDefinition[]): Record<string, unknown> {
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
