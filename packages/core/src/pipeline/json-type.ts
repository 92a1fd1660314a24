import { isRecord } from './is-record';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A JSON Schema object; boolean schemas and anything else read as `ANY_SCHEMA`. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export const ANY_SCHEMA: JsonSchema = Object.freeze({});

const JSON_TYPES: ReadonlySet<unknown> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);

export function asSchema(value: unknown): JsonSchema {
  return isRecord(value) ? value : ANY_SCHEMA;
}

/** The schema of every item of an array of `schema`; unknown when `prefixItems` types some apart. */
export function itemsSchema(schema: JsonSchema): JsonSchema {
  return schema.prefixItems === undefined ? asSchema(schema.items) : ANY_SCHEMA;
}

/** The schema of item `index` of an array of `schema`. */
export function itemSchema(schema: JsonSchema, index: number): JsonSchema {
  const { prefixItems } = schema;
  if (!Array.isArray(prefixItems)) return itemsSchema(schema);
  return index < prefixItems.length ? asSchema(prefixItems[index]) : asSchema(schema.items);
}

/** The JSON type of a value; integers are `integer`. */
export function jsonTypeOf(value: unknown): JsonType | undefined {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return typeof value === 'object' ? 'object' : undefined;
}

/** The types a schema allows, from `type`, `const` or `enum`; undefined when it does not say. */
export function jsonTypesOf(schema: JsonSchema): ReadonlySet<JsonType> | undefined {
  const { type } = schema;
  if (type !== undefined) return knownTypes(Array.isArray(type) ? type : [type]);
  if (Object.hasOwn(schema, 'const')) return knownTypes([jsonTypeOf(schema.const)]);
  if (Array.isArray(schema.enum)) return knownTypes(schema.enum.map(jsonTypeOf));
  return undefined;
}

/** Whether a value can have one of `a` and one of `b`; integer is a kind of number. */
export function typesOverlap(a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): boolean {
  return [...a].some((type) => b.has(type) || (isNumeric(type) && (b.has('number') || b.has('integer'))));
}

export function describeTypes(types: ReadonlySet<JsonType>): string {
  return [...types].join(' or ');
}

function knownTypes(types: readonly unknown[]): ReadonlySet<JsonType> | undefined {
  const valid = types.length > 0 && types.every((type) => JSON_TYPES.has(type));
  return valid ? new Set(types as JsonType[]) : undefined;
}

function isNumeric(type: JsonType): boolean {
  return type === 'number' || type === 'integer';
}
