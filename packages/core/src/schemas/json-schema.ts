import { Type } from '@sinclair/typebox';

/** Any JSON Schema document; its own validity is checked by the compiler that uses it. */
export const JsonSchemaObject = Type.Object({}, { additionalProperties: true });

/** A closed set of strings as a plain JSON Schema `enum`, so errors read "must be one of [...]". */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * Ours: `x-max-json-bytes: N` bounds a value by its size as JSON (UTF-8 bytes), which no JSON
 * Schema keyword can: an object's keys and values may each be small but many and nested. Every
 * ajv of createAjv checks it.
 */
export const MAX_JSON_BYTES_KEYWORD = 'x-max-json-bytes';
