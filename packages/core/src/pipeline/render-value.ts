import { applyFilter } from './apply-filter';
import type { CompiledValue } from './compiled-value';
import { expressionError } from './pipeline-error';
import { readPath } from './read-path';
import type { TemplateExpression } from './template-expression';
import { textOf } from './text-of';

/** What templates read: the composite's input, and the output of each step that has run. */
export interface TemplateScope {
  readonly input: Readonly<Record<string, unknown>>;
  readonly steps: Readonly<Record<string, unknown>>;
}

/**
 * The JSON value with its templates filled in. An object property that renders to undefined is
 * left out; an array item that does becomes null. Throws a SkillError (INVALID_INPUT) naming the
 * expression when a filter meets a value it cannot work on.
 */
export function renderValue(compiled: CompiledValue, scope: TemplateScope): unknown {
  switch (compiled.kind) {
    case 'literal':
      return compiled.value;
    case 'expression':
      return evaluate(compiled.expression, scope);
    case 'text':
      return compiled.parts
        .map((part) => (typeof part === 'string' ? part : textOf(evaluate(part, scope))))
        .join('');
    case 'array':
      return compiled.items.map((item) => renderValue(item, scope) ?? null);
    case 'object':
      // fromEntries defines each key as an own property, `__proto__` included.
      return Object.fromEntries(
        compiled.entries
          .map(([key, value]) => [key, renderValue(value, scope)] as const)
          .filter(([, value]) => value !== undefined),
      );
  }
}

function evaluate(expression: TemplateExpression, scope: TemplateScope): unknown {
  const fail = (problem: string): never => {
    throw expressionError(expression, problem);
  };
  const start = readPath(expression.root === 'input' ? scope.input : scope.steps, expression.path);
  return expression.filters.reduce((value, filter) => applyFilter(value, filter, fail), start);
}
