/** A JSON Schema's constraints in a few words: `1..50 chars`, `one of plain|loud`, `date-time`. */
export function schemaRules(schema: Record<string, unknown> | undefined): string {
  if (schema === undefined) return '';
  const rules: string[] = [];
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems, maxItems } =
    schema;
  if (Array.isArray(schema.enum)) rules.push(`one of ${schema.enum.map(plain).join('|')}`);
  if (schema.const !== undefined) rules.push(`= ${plain(schema.const)}`);
  if (typeof schema.format === 'string') rules.push(schema.format);
  if (typeof schema.pattern === 'string') rules.push(`/${schema.pattern}/`);
  const range = (low: unknown, high: unknown, unit: string) => {
    if (low === undefined && high === undefined) return;
    if (low !== undefined && high !== undefined) rules.push(`${plain(low)}..${plain(high)}${unit}`);
    else if (low !== undefined) rules.push(`≥ ${plain(low)}${unit}`);
    else rules.push(`≤ ${plain(high)}${unit}`);
  };
  range(minimum, maximum, '');
  if (exclusiveMinimum !== undefined) rules.push(`> ${plain(exclusiveMinimum)}`);
  if (exclusiveMaximum !== undefined) rules.push(`< ${plain(exclusiveMaximum)}`);
  range(minLength, maxLength, ' chars');
  range(minItems, maxItems, ' items');
  if (typeof schema.items === 'object' && schema.items !== null) {
    const items = schema.items as Record<string, unknown>;
    if (typeof items.type === 'string') rules.push(`of ${items.type}`);
  }
  return rules.join(', ');
}

function plain(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
