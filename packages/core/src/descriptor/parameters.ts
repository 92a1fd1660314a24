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
 * The input schema the ParameterDefinitions describe, the reverse of toParameterDefinitions: the
 * client's, so that the service validates against the schema the client's types are compiled from.
 */
export { inputSchemaOf as toInputSchema } from '@skillrun/client';
