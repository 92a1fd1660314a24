import {
  type ErrorEnvelope,
  httpStatusOf,
  isErrorCode,
  type Logger,
  SkillError,
  toErrorBody,
} from '@skillrun/core';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { internalFault, requestIdOf } from './internal-fault';
import { knownErrorOf } from './known-error';

/** What a thrown value comes to over HTTP: a status and our envelope. */
export interface ErrorAnswer {
  status: number;
  envelope: ErrorEnvelope;
}

/**
 * The one place an error becomes an HTTP answer: the spec's envelope, bounded, never a stack
 * trace; a fault of our own code is logged and answered INTERNAL_ERROR. Sets Retry-After, and the
 * code for the metrics middleware (why an invocation was rejected); the caller writes the body,
 * the envelope itself or a protocol's rendering of it (JSON-RPC at /mcp and /a2a).
 */
export function answerError(error: unknown, req: Request, res: Response, logger: Logger): ErrorAnswer {
  const skillError = knownErrorOf(error) ?? internalError(error, req, res, logger);
  const status = isErrorCode(skillError.code) ? httpStatusOf(skillError.code) : 500;
  const retryAfter = retryAfterOf(skillError);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  const envelope: ErrorEnvelope = { error: toErrorBody(skillError, 'INTERNAL_ERROR') };
  res.locals.errorCode = envelope.error.code;
  return { status, envelope };
}

/** The error handler of the REST API: the answer's envelope as the body. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return function renderError(error, req, res, _next) {
    const { status, envelope } = answerError(error, req, res, logger);
    res.status(status).json(envelope);
  };
}

/** A fault of our own code (internalFault), its request's id also in the answer's X-Request-Id. */
function internalError(error: unknown, req: Request, res: Response, logger: Logger): SkillError {
  const requestId = requestIdOf(req.get('x-request-id'));
  res.setHeader('X-Request-Id', requestId);
  return internalFault(error, logger, { method: req.method, path: req.path, request_id: requestId });
}

/** Seconds a client should wait: what a rate limit says, or a moment for an unavailable queue. */
function retryAfterOf(error: SkillError): number | undefined {
  if (error.code === 'SERVICE_UNAVAILABLE') return 1;
  const { details } = error.options as { details?: { retry_after_seconds?: unknown } };
  const seconds = details?.retry_after_seconds;
  return typeof seconds === 'number' ? seconds : undefined;
}

export function notFound(): RequestHandler {
  return function routeNotFound(req, _res, next) {
    next(new SkillError('NOT_FOUND', `No endpoint ${req.method} ${req.path}`));
  };
}
