import safeRegex from 'safe-regex2';
import { SkillError } from '../errors/skill-error';
import { compileLinearRegExp } from './linear-reg-exp';
import { pointerToken } from './pointer-token';
import { describeViolations } from './violations';

export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCHEMA_DEPTH = 32;
/** Object keys plus array items, counted over the whole schema. */
export const MAX_SCHEMA_NODES = 5000;
/** Quantifiers in one pattern (safe-regex2's own default). */
export const MAX_PATTERN_REPETITIONS = 25;

/** Keywords whose values are data (not schemas), so a `pattern` key inside them is no regex. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
/** Keywords whose values map names to schemas, so every key names a schema, whatever it is. */
const SCHEMA_MAPS = new Set(['$defs', 'definitions', 'dependentSchemas', 'patternProperties', 'properties']);

type Kind = 'schema' | 'schemaMap' | 'data';

interface Place {
  value: unknown;
  pointer: string;
  depth: number;
  kind: Kind;
}

/**
 * Refuses a skill's schema (at registration and when a worker loads a skill) that would cost the
 * service too much to hold or to run: too large, too deep, too many nodes, a pattern that
 * backtracks catastrophically in a JavaScript engine or that the linear-time engine cannot run,
 * or a property named `__proto__`. Throws INVALID_INPUT naming the place under `where`, a JSON
 * Pointer such as `/inputs`.
 */
export function assertSafeSchema(schema: unknown, where: string): void {
  let nodes = 0;
  let textLength = 0;
  const stack: Place[] = [{ value: schema, pointer: '', depth: 0, kind: 'schema' }];
  for (let place = stack.pop(); place; place = stack.pop()) {
    const { value, pointer, depth, kind } = place;
    if (typeof value === 'string') textLength += value.length;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_SCHEMA_DEPTH) refuse(where, pointer, `nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    if (kind === 'schema' && isObject(value)) checkKeywords(value, where, pointer);
    const entries = Object.entries(value);
    nodes += entries.length;
    if (nodes > MAX_SCHEMA_NODES) refuse(where, pointer, `has more than ${MAX_SCHEMA_NODES} keys and items`);
    for (const [key, child] of entries) {
      textLength += key.length;
      stack.push({
        value: child,
        pointer: `${pointer}/${pointerToken(key)}`,
        depth: depth + 1,
        kind: childKind(value, kind, key),
      });
    }
  }
  // The text counted is less than the JSON, so a huge schema is refused before it is stringified.
  if (textLength > MAX_SCHEMA_BYTES || Buffer.byteLength(JSON.stringify(schema) ?? '') > MAX_SCHEMA_BYTES) {
    refuse(where, '', `is over ${MAX_SCHEMA_BYTES / 1024} KiB as JSON`);
  }
}

function childKind(parent: object, kind: Kind, key: string): Kind {
  if (kind !== 'schema' || Array.isArray(parent)) return kind === 'schemaMap' ? 'schema' : kind;
  if (DATA_KEYWORDS.has(key)) return 'data';
  return SCHEMA_MAPS.has(key) ? 'schemaMap' : 'schema';
}

function checkKeywords(schema: Record<string, unknown>, where: string, pointer: string): void {
  const { pattern, patternProperties, properties, required } = schema;
  if (typeof pattern === 'string') checkPattern(pattern, where, `${pointer}/pattern`);
  if (isObject(patternProperties)) {
    for (const key of Object.keys(patternProperties)) {
      checkPattern(key, where, `${pointer}/patternProperties/${pointerToken(key)}`);
    }
  }
  if (isObject(properties) && Object.hasOwn(properties, '__proto__')) {
    refuse(where, `${pointer}/properties/__proto__`, 'must not declare a property named "__proto__"');
  }
  if (Array.isArray(required) && required.includes('__proto__')) {
    refuse(where, `${pointer}/required`, 'must not require a property named "__proto__"');
  }
}

function checkPattern(pattern: string, where: string, pointer: string): void {
  try {
    compileLinearRegExp(pattern);
  } catch (error) {
    refuse(where, pointer, (error as Error).message);
  }
  if (!safeRegex(withoutOptionalGroups(pattern), { limit: MAX_PATTERN_REPETITIONS })) {
    refuse(
      where,
      pointer,
      `pattern ${JSON.stringify(pattern)} can backtrack catastrophically (nested quantifiers such as ` +
        `(a+)+, or more than ${MAX_PATTERN_REPETITIONS} quantifiers)`,
    );
  }
}

/**
 * safe-regex2 counts every quantifier as a star, but an optional group `(…)?` matches at most once;
 * without its `?`, spec 002's own `^\d{4}-\d{2}-\d{2}(/\d{4}-\d{2}-\d{2})?$` is not "nested".
 */
function withoutOptionalGroups(pattern: string): string {
  let result = '';
  let inClass = false;
  let afterGroup = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '?' && afterGroup) {
      afterGroup = false;
      continue;
    }
    afterGroup = char === ')' && !inClass;
    if (char === '\\') {
      result += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    result += char;
  }
  return result;
}

function refuse(where: string, pointer: string, message: string): never {
  const violation = { path: `${where}${pointer}` || '/', message };
  throw new SkillError('INVALID_INPUT', `Unsafe JSON Schema: ${describeViolations([violation])}`, {
    recoverable: false,
    details: [violation],
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
