import { pointerToken } from '../validation/pointer-token';
import type { CompiledValue } from './compiled-value';
import { inferSchema, type SchemaScope } from './infer-schema';
import {
  ANY_SCHEMA,
  asSchema,
  describeTypes,
  itemSchema,
  type JsonSchema,
  jsonTypeOf,
  jsonTypesOf,
  typesOverlap,
} from './json-type';
import { pipelineError } from './pipeline-error';

/** Where a value goes: its pointer in skill.json, how messages name it and the schema it meets. */
export interface Destination {
  /** e.g. `/pipeline/1/input` */
  readonly path: string;
  /** e.g. `step "summarize" input` */
  readonly subject: string;
  /** e.g. `the input of "summarize"` */
  readonly owner: string;
}

/**
 * Checks, where the schemas tell, that `compiled` renders to something `target` accepts: JSON types
 * that can overlap, and, in objects written out in skill.json, only fields the target allows.
 * Every expression is inferred on the way, which checks the fields it reads.
 */
export function checkAgainstSchema(
  compiled: CompiledValue,
  target: JsonSchema,
  scope: SchemaScope,
  destination: Destination,
): void {
  const fail = (fields: readonly string[], problem: string): never => {
    const label = fields.length === 0 ? destination.subject : `${destination.subject} "${fields.join('.')}"`;
    throw pipelineError([destination.path, ...fields.map(pointerToken)].join('/'), `${label}: ${problem}`);
  };
  const visit = (value: CompiledValue, schema: JsonSchema, fields: readonly string[]): void => {
    const got = jsonTypesOf(ownSchema(value, scope));
    const expected = jsonTypesOf(schema);
    if (got !== undefined && expected !== undefined && !typesOverlap(got, expected)) {
      fail(fields, `gets ${describeTypes(got)}, expects ${describeTypes(expected)}`);
    }
    if (value.kind === 'object') {
      for (const [key, item] of value.entries) {
        const field = [...fields, key];
        const problem = `${destination.owner} has no field "${key}" and allows no others`;
        visit(item, fieldSchema(schema, key) ?? fail(field, problem), field);
      }
    }
    if (value.kind === 'array') {
      value.items.forEach((item, index) => {
        visit(item, itemSchema(schema, index), [...fields, String(index)]);
      });
    }
  };
  visit(compiled, target, []);
}

/** The schema of a value on its own; an object's or array's content is visited separately. */
function ownSchema(value: CompiledValue, scope: SchemaScope): JsonSchema {
  switch (value.kind) {
    case 'literal': {
      const type = jsonTypeOf(value.value);
      return type === undefined ? ANY_SCHEMA : { type };
    }
    case 'expression':
      return inferSchema(value.expression, scope);
    case 'text':
      for (const part of value.parts) if (typeof part !== 'string') inferSchema(part, scope);
      return { type: 'string' };
    case 'array':
      return { type: 'array' };
    case 'object':
      return { type: 'object' };
  }
}

/** The schema of field `key`, undefined when the schema forbids it. */
function fieldSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const declared = asSchema(schema.properties);
  if (Object.hasOwn(declared, key)) return asSchema(declared[key]);
  const { additionalProperties, patternProperties } = schema;
  return additionalProperties === false && patternProperties === undefined
    ? undefined
    : asSchema(additionalProperties);
}
