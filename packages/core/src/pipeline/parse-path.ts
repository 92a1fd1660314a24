import type { PathSegment } from './template-expression';
import { isReservedName, NAME_AT } from './template-name';
import type { TemplateScanner } from './template-scanner';

const INDEX_AT = /0|[1-9][0-9]*/y;

/** `segment ( '.' segment )*`, where a segment is a name or a non-negative integer. */
export function parsePath(scanner: TemplateScanner): PathSegment[] {
  const segments = [parseSegment(scanner)];
  while (scanner.consume('.')) segments.push(parseSegment(scanner));
  return segments;
}

function parseSegment(scanner: TemplateScanner): PathSegment {
  const index = scanner.match(INDEX_AT);
  if (index !== undefined) return Number(index);
  const name = scanner.match(NAME_AT) ?? scanner.unexpected('a field name or an array index');
  if (isReservedName(name)) scanner.fail(`"${name}" is not allowed in a path`);
  return name;
}
