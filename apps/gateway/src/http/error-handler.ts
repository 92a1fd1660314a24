import {
  type ErrorEnvelope,
  httpStatusOf,
  isErrorCode,
  type Logger,
  SkillError,
  toErrorBody,
} from '@skillrun/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { knownErrorOf } from './known-error';

/** The one place an error becomes an HTTP answer: the spec's envelope, bounded, never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return function renderError(error, req, res, _next) {
    const known = knownErrorOf(error);
    const skillError = known ?? new SkillError('INTERNAL_ERROR', 'An unexpected error occurred');
    if (!known) logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    const status = isErrorCode(skillError.code) ? httpStatusOf(skillError.code) : 500;
    const retryAfter = retryAfterOf(skillError);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    const body: ErrorEnvelope = { error: toErrorBody(skillError, 'INTERNAL_ERROR') };
    // For the metrics middleware: why an invocation was rejected.
    res.locals.errorCode = body.error.code;
    res.status(status).json(body);
  };
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
