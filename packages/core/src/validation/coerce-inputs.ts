const INTEGER_LITERAL = /^[+-]?\d+$/;
const NUMBER_LITERAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['0', false],
]);
const LOCAL_REF = /^#\/(\$defs|definitions)\/([^/]+)$/;

type Schema = Record<string, unknown>;
type Container = Record<string, unknown> | unknown[];

interface Task {
  value: unknown;
  /** The schema at this place followed by the schemas its `$ref`s lead to. */
  schemas: Schema[];
  into: Container;
  key: string | number;
}

/**
 * Spec 002's friendly coercion of the usual LLM mistakes, applied before validation: a number
 * literal string becomes a number where the schema wants an integer or number, `"true"`/`"yes"`/
 * `"1"` and `"false"`/`"no"`/`"0"` become booleans where it wants a boolean, and a single value
 * becomes a one-element array where it wants an array. Returns a copy; what cannot be coerced is
 * left for validation to reject. Keys such as `__proto__` stay own properties of the copy.
 */
export function coerceInputs(schema: object, data: unknown): unknown {
  const root = schema as Schema;
  const result: unknown[] = [undefined];
  // Breadth first and without recursion, so that any depth is safe and an object's keys keep their order.
  const queue: Task[] = [{ value: data, schemas: resolve(root, root), into: result, key: 0 }];
  const seen = new WeakSet<object>();
  for (let next = 0; next < queue.length; next++) {
    const { value, schemas, into, key } = queue[next] as Task;
    const coerced = coerceValue(value, keyword(schemas, 'type'));
    if (coerced !== null && typeof coerced === 'object') {
      // Parsed JSON never holds an object twice; other data may, even in a cycle, and is copied as is.
      if (seen.has(coerced)) {
        place(into, key, structuredClone(coerced));
        continue;
      }
      seen.add(coerced);
    }
    place(into, key, copyShell(coerced, schemas, root, queue));
  }
  return result[0];
}

/** An empty copy of an array or object, with a task queued per element; any other value itself. */
function copyShell(value: unknown, schemas: Schema[], root: Schema, queue: Task[]): unknown {
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    value.forEach((item, index) => {
      queue.push({ value: item, schemas: resolve(itemSchema(schemas, index), root), into: copy, key: index });
    });
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      queue.push({ value: item, schemas: resolve(propertySchema(schemas, key), root), into: copy, key });
    }
    return copy;
  }
  return value;
}

function place(into: Container, key: string | number, value: unknown): void {
  Object.defineProperty(into, key, { value, writable: true, enumerable: true, configurable: true });
}

function coerceValue(value: unknown, type: unknown): unknown {
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : [];
  if (types.length === 0 || jsonTypesOf(value).some((current) => types.includes(current))) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (types.includes('number') && NUMBER_LITERAL.test(text)) {
      const number = Number(text);
      if (Number.isFinite(number)) return number;
    }
    if (types.includes('integer') && INTEGER_LITERAL.test(text)) {
      const integer = Number(text);
      if (Number.isSafeInteger(integer)) return integer;
    }
    const word = types.includes('boolean') ? BOOLEAN_WORDS.get(text.toLowerCase()) : undefined;
    if (word !== undefined) return word;
  }
  return types.includes('array') && !Array.isArray(value) ? [value] : value;
}

function jsonTypesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** The first of the schemas (the place's own, then its `$ref` targets) that has the keyword. */
function keyword(schemas: Schema[], name: string): unknown {
  for (const schema of schemas) if (Object.hasOwn(schema, name)) return schema[name];
  return undefined;
}

function propertySchema(schemas: Schema[], key: string): unknown {
  const properties = keyword(schemas, 'properties');
  if (isSchema(properties) && Object.hasOwn(properties, key)) return properties[key];
  // A key may match one of the patternProperties, which this coercion does not evaluate.
  if (keyword(schemas, 'patternProperties') !== undefined) return undefined;
  return keyword(schemas, 'additionalProperties');
}

function itemSchema(schemas: Schema[], index: number): unknown {
  const prefixItems = keyword(schemas, 'prefixItems');
  if (Array.isArray(prefixItems) && index < prefixItems.length) return prefixItems[index];
  return keyword(schemas, 'items');
}

/** The schema and the chain of local `$ref`s it leads through, each visited once. */
function resolve(schema: unknown, root: Schema): Schema[] {
  const chain: Schema[] = [];
  let current = schema;
  while (isSchema(current) && !chain.includes(current)) {
    chain.push(current);
    current = typeof current.$ref === 'string' ? target(current.$ref, root) : undefined;
  }
  return chain;
}

function target(ref: string, root: Schema): unknown {
  const [, section, encoded] = LOCAL_REF.exec(ref) ?? [];
  if (section === undefined || encoded === undefined || !Object.hasOwn(root, section)) return undefined;
  const definitions = root[section];
  if (!isSchema(definitions)) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(encoded).replaceAll('~1', '/').replaceAll('~0', '~');
  } catch {
    return undefined;
  }
  return Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
