import { parseFilter } from './parse-filter';
import { parsePath } from './parse-path';
import type { TemplateExpression, TemplateFilter, TemplateSite } from './template-expression';
import { NAME_AT } from './template-name';
import type { TemplateScanner } from './template-scanner';

/** Reads `{{ path ( '|' filter )* }}` from the scanner's position, which is at the `{{`. */
export function parseExpression(scanner: TemplateScanner, site: TemplateSite): TemplateExpression {
  const start = scanner.position;
  scanner.consume('{{');
  scanner.skipSpace();
  const root = scanner.match(NAME_AT) ?? scanner.unexpected('a path such as input.topic');
  if (root !== 'input' && root !== 'steps') {
    scanner.fail(`a path starts with "input" or "steps", not "${root}"`);
  }
  const path = scanner.consume('.') ? parsePath(scanner) : [];
  if (root === 'steps' && typeof path[0] !== 'string') {
    scanner.fail('"steps" must be followed by a step name, as in steps.search.results');
  }
  const filters: TemplateFilter[] = [];
  for (scanner.skipSpace(); scanner.consume('|'); scanner.skipSpace()) {
    scanner.skipSpace();
    filters.push(parseFilter(scanner));
  }
  if (!scanner.consume('}}')) scanner.unexpected('"|" or "}}"');
  return { text: scanner.text.slice(start, scanner.position), site, root, path, filters };
}
