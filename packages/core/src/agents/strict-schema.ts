/**
 * OpenAI's strict mode (Structured Outputs, "Supported schemas"): a tool whose `strict` is true has
 * its arguments decoded under the schema, which must then keep to a subset of JSON Schema. Every
 * object says `additionalProperties: false` and lists every property in `required`; only these
 * keywords may constrain a value; the root is an object, not an `anyOf`.
 */
const SUPPORTED = new Set([
  // structure
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  '$ref',
  '$defs',
  'definitions',
  // strings
  'pattern',
  'format',
  // numbers
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  // arrays
  'minItems',
  'maxItems',
  // annotations kept
  'description',
  'title',
]);

/** Annotations that constrain nothing: dropped from a strict schema (a default is told in the description). */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentMediaType',
  'contentEncoding',
]);

/** The string formats strict mode accepts. */
const FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** OpenAI's limits on one strict schema. */
const MAX_PROPERTIES = 5000;
const MAX_DEPTH = 10;

export interface StrictAnalysis {
  /** The schema to send with `strict: true`, when it can be; else the schema as it is. */
  schema: Record<string, unknown>;
  /** Whether strict mode can take the schema without changing what it accepts (narrowed only by `additionalProperties: false`). */
  strict: boolean;
  /** Why not, one line per place (a JSON Pointer and the reason); empty when strict. */
  notes: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Whether `schema` (a tool's parameters) can be sent in strict mode, and the strict form: annotation
 * keywords dropped (a default moved into the description), and `additionalProperties: false` added
 * to objects that do not say. A schema that allows other properties, leaves a property optional or
 * uses a keyword strict mode does not support is not made strict, since that would change what the
 * skill accepts: it is sent as it is with `strict: false` and a note for each such place.
 */
export function analyzeStrict(schema: Json): StrictAnalysis {
  const notes: string[] = [];
  const counter = { properties: 0 };
  if (schema.type !== 'object') notes.push('/: the root must be an object');
  const strict = rewrite(schema, '', 0, notes, counter);
  if (counter.properties > MAX_PROPERTIES) notes.push(`/: more than ${MAX_PROPERTIES} properties`);
  return notes.length === 0 ? { schema: strict, strict: true, notes } : { schema, strict: false, notes };
}

function rewrite(
  node: Json,
  pointer: string,
  depth: number,
  notes: string[],
  counter: { properties: number },
): Json {
  const at = pointer === '' ? '/' : pointer;
  if (depth > MAX_DEPTH) notes.push(`${at}: nested deeper than ${MAX_DEPTH} levels`);
  const out: Json = {};
  let description = typeof node.description === 'string' ? node.description : undefined;
  for (const [keyword, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(keyword)) {
      if (keyword === 'default') {
        description = `${description ? `${description} ` : ''}(default: ${JSON.stringify(value)})`;
      }
      continue;
    }
    if (!SUPPORTED.has(keyword)) {
      notes.push(`${at}: "${keyword}" is not supported in strict mode`);
      continue;
    }
    out[keyword] = value;
  }
  if (description !== undefined) out.description = description;
  if (typeof node.format === 'string' && !FORMATS.has(node.format)) {
    notes.push(`${at}: format "${node.format}" is not supported in strict mode`);
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || isObject(node.properties)) {
    const properties = isObject(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    const names = Object.keys(properties);
    counter.properties += names.length;
    const optional = names.filter((name) => !required.includes(name));
    if (optional.length > 0) {
      notes.push(`${at}: optional properties (${optional.join(', ')}); strict mode requires every property`);
    }
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      notes.push(`${at}: allows properties it does not name (additionalProperties)`);
    }
    out.additionalProperties = false;
    out.properties = Object.fromEntries(
      names.map((name) => {
        const child = properties[name];
        return [
          name,
          isObject(child)
            ? rewrite(child, `${pointer}/properties/${pointerToken(name)}`, depth + 1, notes, counter)
            : child,
        ];
      }),
    );
    out.required = names;
  }
  if (isObject(node.items)) out.items = rewrite(node.items, `${pointer}/items`, depth + 1, notes, counter);
  if (Array.isArray(node.anyOf)) {
    out.anyOf = node.anyOf.map((branch, index) =>
      isObject(branch) ? rewrite(branch, `${pointer}/anyOf/${index}`, depth + 1, notes, counter) : branch,
    );
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const defined = node[defs];
    if (isObject(defined)) {
      out[defs] = Object.fromEntries(
        Object.entries(defined).map(([name, child]) => [
          name,
          isObject(child)
            ? rewrite(child, `${pointer}/${defs}/${pointerToken(name)}`, depth + 1, notes, counter)
            : child,
        ]),
      );
    }
  }
  return out;
}

function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
