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
