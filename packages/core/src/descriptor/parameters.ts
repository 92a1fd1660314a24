import type { ParameterDefinition, SkillDescriptor } from '../schemas/skill-descriptor';

/** What a descriptor says of a skill's input schema: its parameters, and its own other keywords. */
export type DescriptorInputs = Pick<SkillDescriptor, 'inputs' | 'x-inputs_schema'>;

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}

/**
 * The input schema as a descriptor says it: its properties as spec 000 ParameterDefinitions (a
 * property's extra keywords go in its `schema`), and the schema's own keywords that no parameter
 * holds (`$schema`, `$defs` that its properties' `$ref`s point into, `additionalProperties`, ...)
 * in `x-inputs_schema`, so that nothing of it is lost.
 */
export function toDescriptorInputs(inputSchema: object): DescriptorInputs {
  const { type: _object, properties = {}, required = [], ...keywords } = inputSchema as ObjectSchema;
  const inputs = Object.entries(properties).map(([name, property]): ParameterDefinition => {
    const { type, description, default: defaultValue, ...extra } = property;
    return {
      name,
      type: Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any',
      ...(typeof description === 'string' ? { description } : {}),
      required: required.includes(name),
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
      ...(Object.keys(extra).length > 0 ? { schema: extra } : {}),
    };
  });
  return { inputs, ...(Object.keys(keywords).length > 0 ? { 'x-inputs_schema': keywords } : {}) };
}

/**
 * The input JSON Schema a descriptor's inputs describe, the reverse of toDescriptorInputs: `a|b` is
 * the type list ["a","b"], `any` is no type at all. Parameters keep their order, except that names
 * such as "0" come first, as JavaScript lists such keys of an object. The service validates inputs
 * against it; MCP's `tools/list` answers it as the tool's `inputSchema`; `skillrun types` compiles
 * it to TypeScript.
 */
export function toInputSchema({
  inputs,
  'x-inputs_schema': keywords,
}: DescriptorInputs): Record<string, unknown> {
  // fromEntries defines each name as an own property, `__proto__` included.
  const properties = Object.fromEntries(
    inputs.map(({ name, type, description, default: defaultValue, schema }) => [
      name,
      {
        ...schema,
        ...(type === 'any' ? {} : { type: type.includes('|') ? type.split('|') : type }),
        ...(description === undefined ? {} : { description }),
        ...(defaultValue === undefined ? {} : { default: defaultValue }),
      },
    ]),
  );
  const required = inputs.filter((parameter) => parameter.required).map(({ name }) => name);
  return { ...keywords, type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
