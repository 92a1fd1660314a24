import type { JsonSchema } from './protocol';

/** The type a schema names, readably: `string`, `integer`, `array of string`, `"a" | "b"`. */
export function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (type === 'array' && schema.items) return `array of ${typeOf(schema.items)}`;
  return type ?? (schema.properties ? 'object' : 'any');
}

/** Its constraints, readably: `1..50`, `≤ 1000 chars`, `date-time`, `matches ^a`. */
export function rulesOf(schema: JsonSchema): string {
  const rules: string[] = [];
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  if (low !== undefined && high !== undefined) rules.push(`${low}..${high}`);
  else if (low !== undefined) rules.push(`${schema.exclusiveMinimum !== undefined ? '>' : '≥'} ${low}`);
  else if (high !== undefined) rules.push(`${schema.exclusiveMaximum !== undefined ? '<' : '≤'} ${high}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    rules.push(`${schema.minLength}–${schema.maxLength} chars`);
  else if (schema.minLength !== undefined) rules.push(`≥ ${schema.minLength} chars`);
  else if (schema.maxLength !== undefined) rules.push(`≤ ${schema.maxLength} chars`);
  if (schema.minItems !== undefined) rules.push(`≥ ${schema.minItems} items`);
  if (schema.maxItems !== undefined) rules.push(`≤ ${schema.maxItems} items`);
  if (schema.format) rules.push(schema.format);
  if (schema.pattern) rules.push(`matches ${schema.pattern}`);
  return rules.join(', ');
}
