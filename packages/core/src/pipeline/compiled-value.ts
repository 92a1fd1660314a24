import type { TemplateExpression } from './template-expression';

/**
 * A JSON value with its templates parsed. A string that is one expression keeps the type of what
 * it reads (`expression`); a string mixing text and expressions renders to a string (`text`).
 */
export type CompiledValue =
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'expression'; readonly expression: TemplateExpression }
  | { readonly kind: 'text'; readonly parts: readonly (string | TemplateExpression)[] }
  | { readonly kind: 'array'; readonly items: readonly CompiledValue[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, CompiledValue])[] };

/** Every expression inside, in document order. */
export function expressionsOf(compiled: CompiledValue): TemplateExpression[] {
  switch (compiled.kind) {
    case 'literal':
      return [];
    case 'expression':
      return [compiled.expression];
    case 'text':
      return compiled.parts.filter((part) => typeof part !== 'string');
    case 'array':
      return compiled.items.flatMap(expressionsOf);
    case 'object':
      return compiled.entries.flatMap(([, value]) => expressionsOf(value));
  }
}
