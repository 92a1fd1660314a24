import {
  type ErrorEnvelope,
  httpStatusOf,
  isErrorCode,
  type Logger,
  SkillError,
  toErrorBody,
} from '@skillrun/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isOwnFault, serviceUnavailable } from './service-unavailable';

/** body-parser's error types, mapped to the catalogue. */
const BODY_ERRORS: Record<string, SkillError> = {
  'entity.too.large': new SkillError('PAYLOAD_TOO_LARGE', 'The request body is over the size limit'),
  'entity.parse.failed': new SkillError('INVALID_INPUT', 'The request body is not valid JSON'),
  'encoding.unsupported': new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding'),
  'charset.unsupported': new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported charset'),
};

/** Any other client error Express or body-parser raise (a malformed %-escape in the path, a body that does not decode). */
const MALFORMED = new SkillError(
  'INVALID_INPUT',
  'The request is malformed (its path or body cannot be decoded)',
);

/**
 * The catalogue's error for a thrown value; undefined for a fault of the gateway's own code. What
 * Redis or a queue threw is the one place Redis unavailability becomes 503 SERVICE_UNAVAILABLE.
 */
function toSkillError(error: unknown): SkillError | undefined {
  if (error instanceof SkillError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
  if (known) return known;
  if (typeof status === 'number' && status >= 400 && status < 500) return MALFORMED;
  return error instanceof Error && !isOwnFault(error) ? serviceUnavailable() : undefined;
}

/** The one place an error becomes an HTTP answer: the spec's envelope, bounded, never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return function renderError(error, req, res, _next) {
    const known = toSkillError(error);
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
