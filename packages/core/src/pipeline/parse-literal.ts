import type { TemplateScanner } from './template-scanner';

const NUMBER_AT = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const KEYWORD_AT = /true|false|null/y;
const KEYWORDS: ReadonlyMap<string, boolean | null> = new Map([
  ['true', true],
  ['false', false],
  ['null', null],
]);
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
]);

/** A filter argument: a number, true, false, null, a quoted string, `[]` or `{}`. */
export function parseLiteral(scanner: TemplateScanner): unknown {
  const number = scanner.match(NUMBER_AT);
  if (number !== undefined) {
    const value = Number(number);
    return Number.isFinite(value) ? value : scanner.fail(`${number} is out of range`);
  }
  const keyword = scanner.match(KEYWORD_AT);
  if (keyword !== undefined) return KEYWORDS.get(keyword);
  if (scanner.consume('[')) return closeEmpty(scanner, ']', []);
  if (scanner.consume('{')) return closeEmpty(scanner, '}', {});
  return parseQuoted(scanner, 'a number, true, false, null, a quoted string, [] or {}');
}

/** A string in single or double quotes, with the escapes \n \t \\ \' \". */
export function parseQuoted(scanner: TemplateScanner, expected = 'a quoted string'): string {
  const quote = scanner.peek();
  if (quote !== "'" && quote !== '"') return scanner.unexpected(expected);
  scanner.position++;
  let text = '';
  for (let char = scanner.peek(); char !== quote; char = scanner.peek()) {
    if (char === undefined) return scanner.fail('a quoted string is not closed');
    scanner.position++;
    text += char === '\\' ? parseEscape(scanner) : char;
  }
  scanner.position++;
  return text;
}

function parseEscape(scanner: TemplateScanner): string {
  const escaped = scanner.peek() ?? '';
  const replacement = ESCAPES.get(escaped);
  if (replacement === undefined) {
    return scanner.fail(`unknown escape "\\${escaped}" (known: \\n \\t \\\\ \\' \\")`);
  }
  scanner.position++;
  return replacement;
}

function closeEmpty<T>(scanner: TemplateScanner, close: string, value: T): T {
  scanner.skipSpace();
  if (!scanner.consume(close)) scanner.unexpected(`"${close}" (only empty arrays and objects are allowed)`);
  return value;
}
