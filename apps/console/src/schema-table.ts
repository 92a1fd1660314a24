import { h } from './dom';
import type { JsonSchema } from './protocol';
import { rulesOf, typeOf } from './schema-text';

interface Row {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** An object schema's fields, nested ones as `a.b`, each once; items of arrays of objects as `a[].b`. */
function rowsOf(schema: JsonSchema, prefix = ''): Row[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const row = { name: path, schema: field, required: required.has(name) };
    if (field.properties) return [row, ...rowsOf(field, `${path}.`)];
    if (field.items?.properties) return [row, ...rowsOf(field.items, `${path}[].`)];
    return [row];
  });
}

/**
 * A JSON Schema as a table a person reads: name, type, required, default, rules, description. A
 * schema that is not an object with properties shows its type and rules in one line.
 */
export function schemaTable(schema: JsonSchema, caption: string): HTMLElement {
  const rows = rowsOf(schema);
  if (rows.length === 0) {
    const rules = rulesOf(schema);
    return h('p', { class: 'schema-plain' }, `${caption}: ${typeOf(schema)}${rules ? ` (${rules})` : ''}`);
  }
  return h(
    'table',
    { class: 'schema' },
    // The page's heading already says it: the caption names the table for screen readers.
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Name', 'Type', 'Required', 'Default', 'Rules', 'Description'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('code', {}, row.name)),
          h('td', {}, typeOf(row.schema)),
          h('td', {}, row.required ? 'yes' : ''),
          h('td', {}, row.schema.default === undefined ? '' : JSON.stringify(row.schema.default)),
          h('td', {}, rulesOf(row.schema)),
          h('td', {}, row.schema.description ?? row.schema.title ?? ''),
        ),
      ),
    ),
  );
}
