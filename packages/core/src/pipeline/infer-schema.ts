import { inferFilter } from './infer-filter';
import { ANY_SCHEMA, type JsonSchema } from './json-type';
import { expressionError } from './pipeline-error';
import type { PathSegment, TemplateExpression } from './template-expression';
import { walkSchema } from './walk-schema';

/** A schema that templates read, and how messages name it (`the output of "memory_search"`). */
export interface SchemaSource {
  readonly schema: JsonSchema;
  readonly owner: string;
}

/** What an expression may read: the composite's input, and the steps that run before it. */
export interface SchemaScope {
  readonly input: SchemaSource;
  readonly steps: ReadonlyMap<string, SchemaSource>;
}

/**
 * The schema of what an expression renders to, as far as the schemas tell (`ANY_SCHEMA` where they
 * do not). Throws a SkillError naming the expression where they show it reads a field that cannot
 * be there, or filters a value of the wrong type.
 */
export function inferSchema(expression: TemplateExpression, scope: SchemaScope): JsonSchema {
  const [first, ...rest] = expression.path;
  const source = expression.root === 'input' ? scope.input : scope.steps.get(String(first));
  if (source === undefined) return ANY_SCHEMA;
  const fail = (problem: string): never => {
    throw expressionError(expression, problem);
  };
  const walk = (schema: JsonSchema, path: readonly PathSegment[]) =>
    walkSchema(schema, path, source.owner, fail);
  const read = walk(source.schema, expression.root === 'input' ? expression.path : rest);
  return expression.filters.reduce((schema, filter) => inferFilter(schema, filter, walk, fail), read);
}
