import { type ElicitRequestFormParams, isSpecType } from '@modelcontextprotocol/server';

/** The `requestedSchema` of a form-mode elicitation. */
export type ElicitationSchema = ElicitRequestFormParams['requestedSchema'];

type Json = Record<string, unknown>;

/** What a property of each type may say in an elicitation's restricted subset (revision 2026-07-28, client/elicitation). */
const PROPERTY_KEYWORDS: Record<string, ReadonlySet<string>> = {
  string: new Set([
    'type',
    'title',
    'description',
    'default',
    'minLength',
    'maxLength',
    'format',
    'enum',
    'enumNames',
    'oneOf',
  ]),
  number: new Set(['type', 'title', 'description', 'default', 'minimum', 'maximum']),
  integer: new Set(['type', 'title', 'description', 'default', 'minimum', 'maximum']),
  boolean: new Set(['type', 'title', 'description', 'default']),
  array: new Set(['type', 'title', 'description', 'default', 'minItems', 'maxItems', 'items']),
};

/** What the object may say besides its properties: annotations, and nothing that constrains them further. */
const OBJECT_KEYWORDS = new Set([
  '$schema',
  'type',
  'title',
  'description',
  'properties',
  'required',
  'additionalProperties',
]);

/** A multi-select's items: a string enum, or titled constants. */
const ITEMS_KEYWORDS = new Set(['type', 'enum', 'anyOf']);
const TITLED_KEYWORDS = new Set(['const', 'title']);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function saysOnly(value: Json, keywords: ReadonlySet<string>): boolean {
  return Object.keys(value).every((keyword) => keywords.has(keyword));
}

function titledOnly(options: unknown): boolean {
  return (
    options === undefined ||
    (Array.isArray(options) && options.every((o) => isObject(o) && saysOnly(o, TITLED_KEYWORDS)))
  );
}

/**
 * Whether a property is one of the subset's primitives saying nothing beyond it: the SDK's own
 * schema checks the values, but lets through (and would drop) what it does not know, a `pattern`
 * say, which the person filling the form would then never see.
 */
function isPrimitive(property: unknown): boolean {
  if (!isObject(property) || typeof property.type !== 'string') return false;
  const keywords = PROPERTY_KEYWORDS[property.type];
  if (!keywords || !saysOnly(property, keywords) || !titledOnly(property.oneOf)) return false;
  if (property.type === 'array') {
    const { items } = property;
    if (!isObject(items) || !saysOnly(items, ITEMS_KEYWORDS) || !titledOnly(items.anyOf)) return false;
  }
  return isSpecType.PrimitiveSchemaDefinition(property);
}

/**
 * The form a person hands a task in with, from the skill's output schema, when the output is one
 * an elicitation can ask for: a flat object whose properties are primitives (string, number,
 * integer, boolean, a single or multiple choice of strings) that say nothing the subset cannot,
 * and whose required properties are among them. Undefined for any other (nested objects, arrays
 * of objects, a `pattern`, a composition, an output that is not an object): such a task is handed
 * in by its other ways (a task handle, POST /tasks/{id}/complete).
 */
export function elicitationSchemaOf(output: unknown): ElicitationSchema | undefined {
  if (!isObject(output) || output.type !== 'object' || !saysOnly(output, OBJECT_KEYWORDS)) return undefined;
  const properties = output.properties ?? {};
  if (!isObject(properties) || !Object.values(properties).every(isPrimitive)) return undefined;
  const { required } = output;
  if (required !== undefined) {
    if (!Array.isArray(required)) return undefined;
    if (!required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name)))
      return undefined;
  }
  return {
    type: 'object',
    properties: properties as ElicitationSchema['properties'],
    ...(required === undefined ? {} : { required: required as string[] }),
  };
}
