import { parseLiteral, parseQuoted } from './parse-literal';
import { parsePath } from './parse-path';
import type { TemplateFilter } from './template-expression';
import { NAME_AT } from './template-name';
import type { TemplateScanner } from './template-scanner';

const FILTER_NAMES = 'map, join, default, first, last, length, json, not, eq';

/** `name ( ':' argument )?`, the argument's syntax depending on the filter. */
export function parseFilter(scanner: TemplateScanner): TemplateFilter {
  const name = scanner.match(NAME_AT) ?? scanner.unexpected('a filter name');
  scanner.skipSpace();
  const hasArgument = scanner.consume(':');
  scanner.skipSpace();
  switch (name) {
    case 'map':
      requireArgument(scanner, name, hasArgument, 'a field path');
      return { name, field: parsePath(scanner) };
    case 'join':
      return { name, separator: hasArgument ? parseQuoted(scanner, 'a quoted separator') : ',' };
    case 'default':
    case 'eq':
      requireArgument(scanner, name, hasArgument, 'a value');
      return { name, value: parseLiteral(scanner) };
    case 'first':
    case 'last':
    case 'length':
    case 'json':
    case 'not':
      if (hasArgument) scanner.fail(`filter "${name}" takes no argument`);
      return { name };
    default:
      return scanner.fail(`unknown filter "${name}" (filters: ${FILTER_NAMES})`);
  }
}

function requireArgument(scanner: TemplateScanner, name: string, hasArgument: boolean, what: string): void {
  if (!hasArgument) scanner.fail(`filter "${name}" needs ${what}, as in "${name}: …"`);
}
