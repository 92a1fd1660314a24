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

/**
 * A JSON-RPC 2.0 error response whose `data` is our envelope: what a JSON-RPC endpoint (/mcp)
 * answers for what it refuses over HTTP, since its clients read no other body.
 */
export const JsonRpcErrorResponse = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Union([Type.String(), Type.Integer(), Type.Null()], {
    description: "The request's id, or null when the body was not a request (not JSON)",
  }),
  error: Type.Object({
    code: Type.Integer({
      description:
        'JSON-RPC: -32700 Parse error, -32600 Invalid Request, -32603 Internal error, -32000 the rest',
    }),
    message: Type.String(),
    data: ErrorEnvelope,
  }),
});
export type JsonRpcErrorResponse = Static<typeof JsonRpcErrorResponse>;
