import {
  ANY_SCHEMA,
  describeTypes,
  itemsSchema,
  type JsonSchema,
  type JsonType,
  jsonTypeOf,
  jsonTypesOf,
  typesOverlap,
} from './json-type';
import type { PathSegment, TemplateFilter } from './template-expression';

type Fail = (problem: string) => never;
type Walk = (schema: JsonSchema, path: readonly PathSegment[]) => JsonSchema;

const ARRAY: ReadonlySet<JsonType> = new Set(['array', 'null']);
const STRING_OR_ARRAY: ReadonlySet<JsonType> = new Set(['string', 'array', 'null']);

/**
 * The schema of a filter's result, given the schema of its input; fails where the input's schema
 * shows the filter cannot work on it. `walk` reads the fields `map` names.
 */
export function inferFilter(schema: JsonSchema, filter: TemplateFilter, walk: Walk, fail: Fail): JsonSchema {
  switch (filter.name) {
    case 'map':
      expectTypes(schema, ARRAY, 'map needs an array', fail);
      return { type: 'array', items: walk(itemsSchema(schema), filter.field) };
    case 'join':
      expectTypes(schema, ARRAY, 'join needs an array', fail);
      return { type: 'string' };
    case 'first':
    case 'last':
      expectTypes(schema, ARRAY, `${filter.name} needs an array`, fail);
      return itemsSchema(schema);
    case 'length':
      expectTypes(schema, STRING_OR_ARRAY, 'length needs a string or an array', fail);
      return { type: 'integer' };
    case 'json':
      return { type: 'string' };
    case 'default':
      return withDefault(schema, filter.value);
    case 'not':
    case 'eq':
      return { type: 'boolean' };
  }
}

function expectTypes(schema: JsonSchema, accepted: ReadonlySet<JsonType>, need: string, fail: Fail): void {
  const types = jsonTypesOf(schema);
  if (types !== undefined && !typesOverlap(types, accepted)) fail(`${need}, gets ${describeTypes(types)}`);
}

/** The schema widened by the default's type; `const` and `enum` no longer hold. */
function withDefault(schema: JsonSchema, value: unknown): JsonSchema {
  const types = jsonTypesOf(schema);
  const added = jsonTypeOf(value);
  if (types === undefined || added === undefined) return ANY_SCHEMA;
  const { const: _const, enum: _enum, ...rest } = schema;
  return { ...rest, type: [...new Set([...types, added])] };
}
