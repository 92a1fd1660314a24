import { SkillError } from '@skillrun/core';
import type { RequestHandler } from 'express';

/**
 * POST bodies must be JSON; anything else is 415 rather than an empty body. `optional`: a request
 * without a body passes too (none at all, or an empty one: `Content-Length: 0`).
 */
export function requireJson(options: { optional?: boolean } = {}): RequestHandler<never> {
  return function requireJsonBody(req, _res, next) {
    const json = req.is('application/json');
    const empty = json === null || req.headers['content-length'] === '0';
    next(
      json || (empty && options.optional)
        ? undefined
        : new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Send application/json'),
    );
  };
}
