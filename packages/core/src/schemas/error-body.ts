import { type Static, Type } from '@sinclair/typebox';

export const ValidationViolation = Type.Object({
  path: Type.String({ description: 'JSON Pointer into the request body, e.g. /inputs/text' }),
  message: Type.String(),
  code: Type.Optional(
    Type.String({ description: 'INVALID_INPUT, MISSING_REQUIRED_PARAM or PARAM_OUT_OF_RANGE (spec 002)' }),
  ),
});
export type ValidationViolation = Static<typeof ValidationViolation>;

/** An error as the spec renders it (spec 001 section 6.5/6.6, spec 002 section 31.4). */
export const ErrorBody = Type.Object({
  code: Type.String(),
  message: Type.String(),
  recoverable: Type.Boolean(),
  details: Type.Optional(Type.Unknown()),
  suggested_action: Type.Optional(Type.String()),
  retry: Type.Optional(Type.Object({ suggested_delay_ms: Type.Integer(), max_attempts: Type.Integer() })),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const ErrorEnvelope = Type.Object({ error: ErrorBody });
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
