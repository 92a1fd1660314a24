import { pointerToken } from '../validation/pointer-token';
import type { CompiledValue } from './compiled-value';
import { isRecord } from './is-record';
import { parseExpression } from './parse-expression';
import { pipelineError } from './pipeline-error';
import type { TemplateExpression, TemplateSite } from './template-expression';
import { TemplateScanner } from './template-scanner';

const MAX_QUOTED = 100;

/**
 * Parses every `{{ … }}` in the strings of a JSON value, once, for `renderValue` to use many times.
 * `where` is the value's JSON pointer in skill.json; `label` names it in messages (by default
 * "template at" the pointer). Text outside the braces is kept as it is; nothing is evaluated.
 */
export function compileTemplates(value: unknown, where: string, label?: string): CompiledValue {
  if (typeof value === 'string') {
    return compileString(value, { path: where, label: label ?? `template at ${where}` });
  }
  if (Array.isArray(value)) {
    return {
      kind: 'array',
      items: value.map((item, index) => compileTemplates(item, `${where}/${index}`, label)),
    };
  }
  if (isRecord(value)) {
    return {
      kind: 'object',
      entries: Object.entries(value).map(([key, item]) => [
        key,
        compileTemplates(item, `${where}/${pointerToken(key)}`, label),
      ]),
    };
  }
  return { kind: 'literal', value };
}

function compileString(text: string, site: TemplateSite): CompiledValue {
  const parts = splitTemplate(text, site);
  const expressions = parts.filter((part) => typeof part !== 'string');
  const [only] = expressions;
  if (only === undefined) return { kind: 'literal', value: text };
  const alone =
    expressions.length === 1 && parts.every((part) => typeof part !== 'string' || part.trim() === '');
  return alone ? { kind: 'expression', expression: only } : { kind: 'text', parts };
}

function splitTemplate(text: string, site: TemplateSite): (string | TemplateExpression)[] {
  const parts: (string | TemplateExpression)[] = [];
  let position = 0;
  for (let open = text.indexOf('{{'); open !== -1; open = text.indexOf('{{', position)) {
    if (open > position) parts.push(text.slice(position, open));
    const scanner = new TemplateScanner(text, open, (problem) => {
      throw pipelineError(site.path, `${site.label}: ${quoteExpression(text, open)}: ${problem}`);
    });
    parts.push(parseExpression(scanner, site));
    position = scanner.position;
  }
  if (position < text.length) parts.push(text.slice(position));
  return parts;
}

/** The expression starting at `open` as far as it can be told without parsing it, for messages. */
function quoteExpression(text: string, open: number): string {
  const close = text.indexOf('}}', open + 2);
  const quoted = text.slice(open, close === -1 ? text.length : close + 2);
  return quoted.length > MAX_QUOTED ? `${quoted.slice(0, MAX_QUOTED)}…` : quoted;
}
