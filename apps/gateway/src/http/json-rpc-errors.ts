import type { ErrorEnvelope, JsonRpcErrorResponse, Logger } from '@skillrun/core';
import type { ErrorRequestHandler } from 'express';
import { answerError } from './error-handler';
import { isUnparsableBody } from './known-error';

/** JSON-RPC 2.0's own codes, and the start of the range left to implementations. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;
const SERVER_ERROR = -32000;

/**
 * An endpoint that speaks JSON-RPC (a Slice's `jsonRpc`): whatever the app refuses there, before
 * or after its route (a body that is not JSON, credentials, a limit), is a JSON-RPC error response,
 * for a client of the protocol reads no other body.
 */
export interface JsonRpcEndpoint {
  /** The endpoint's whole path (`/mcp`): paths under it are not the endpoint's. */
  path: string;
  /**
   * The HTTP status of a refusal of the JSON-RPC layer itself (Invalid Request: a body that is
   * JSON but not a JSON-RPC request). A2A answers it 200, as every error of its protocol; by
   * default it is the REST API's status (400).
   */
  invalidRequestStatus?: number;
}

/** The request's id, when the body parsed as a JSON-RPC request; null otherwise, as JSON-RPC asks. */
function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The JSON-RPC code for a refusal: Parse error, Invalid Request, our fault, or the rest. */
function jsonRpcCodeOf(error: unknown, envelope: ErrorEnvelope): number {
  if (isUnparsableBody(error)) return PARSE_ERROR;
  if (envelope.error.code === 'INVALID_INPUT') return INVALID_REQUEST;
  if (envelope.error.code === 'INTERNAL_ERROR') return INTERNAL_ERROR;
  return SERVER_ERROR;
}

/**
 * The error handler of a JSON-RPC endpoint, mounted at its path by the app, once for every such
 * endpoint the slices name. The HTTP status is the one the REST API gives (answerError, the one
 * mapping; `invalidRequestStatus` for Invalid Request); a body that is not JSON is Parse error
 * (-32700, id null), another invalid request -32600, our fault -32603, the rest -32000 (the range
 * JSON-RPC leaves to implementations); `data` carries our envelope, whose code says which. Paths
 * under the endpoint (A2A's HTTP+JSON binding under /a2a/rest) are left to the app's handler.
 */
export function jsonRpcErrors(logger: Logger, endpoint: JsonRpcEndpoint): ErrorRequestHandler {
  return function renderJsonRpcError(error, req, res, next) {
    // Mounted at the endpoint's path, which Express strips: the endpoint itself is `/`.
    if (res.headersSent || req.path !== '/') {
      next(error);
      return;
    }
    const answer = answerError(error, req, res, logger);
    const code = jsonRpcCodeOf(error, answer.envelope);
    const message =
      code === PARSE_ERROR
        ? 'Parse error: the request body is not valid JSON'
        : answer.envelope.error.message;
    const status =
      code === INVALID_REQUEST && endpoint.invalidRequestStatus !== undefined
        ? endpoint.invalidRequestStatus
        : answer.status;
    const body: JsonRpcErrorResponse = {
      jsonrpc: '2.0',
      id: code === PARSE_ERROR ? null : requestIdOf(req.body),
      error: { code, message, data: answer.envelope },
    };
    res.status(status).json(body);
  };
}
