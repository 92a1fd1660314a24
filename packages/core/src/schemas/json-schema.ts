import { Type } from '@sinclair/typebox';

/** Any JSON Schema document; its own validity is checked by the compiler that uses it. */
export const JsonSchemaObject = Type.Object({}, { additionalProperties: true });
