import { ANY_SCHEMA, asSchema, describeTypes, itemSchema, type JsonSchema, jsonTypesOf } from './json-type';
import type { PathSegment } from './template-expression';

type Fail = (problem: string) => never;

/** Keywords that can allow fields `properties` does not list. */
const OPEN_ENDED = [
  'patternProperties',
  'unevaluatedProperties',
  '$ref',
  '$dynamicRef',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'dependentSchemas',
];

/**
 * The schema of the value at `path` in a value of `schema`, `ANY_SCHEMA` where the schema does not
 * say; fails where it shows the path leads nowhere. `owner` names the schema in messages, e.g.
 * `the output of "memory_search"`.
 */
export function walkSchema(
  schema: JsonSchema,
  path: readonly PathSegment[],
  owner: string,
  fail: Fail,
): JsonSchema {
  return path.reduce((current, segment) => walkSegment(current, segment, owner, fail), schema);
}

function walkSegment(schema: JsonSchema, segment: PathSegment, owner: string, fail: Fail): JsonSchema {
  const types = jsonTypesOf(schema);
  if (typeof segment === 'number' && (types === undefined || types.has('array'))) {
    return itemSchema(schema, segment);
  }
  if (types !== undefined && !types.has('object')) {
    const what = typeof segment === 'number' ? `item ${segment}` : `field "${segment}"`;
    const type = describeTypes(types);
    return fail(`reads ${what} of ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} in ${owner}`);
  }
  return fieldSchema(schema, String(segment), owner, fail);
}

function fieldSchema(schema: JsonSchema, name: string, owner: string, fail: Fail): JsonSchema {
  const { properties, additionalProperties } = schema;
  const declared = asSchema(properties);
  if (Object.hasOwn(declared, name)) return asSchema(declared[name]);
  if (additionalProperties !== undefined && additionalProperties !== false) {
    return asSchema(additionalProperties);
  }
  const closed = properties !== undefined && !OPEN_ENDED.some((keyword) => Object.hasOwn(schema, keyword));
  return closed ? fail(`reads field "${name}", which ${owner} does not have`) : ANY_SCHEMA;
}
