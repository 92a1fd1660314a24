import { SkillError } from '@skillrun/core';
import type { RequestHandler } from 'express';

/** POST bodies must be JSON; anything else is 415 rather than an empty body. */
export function requireJson(): RequestHandler<never> {
  return function requireJsonBody(req, _res, next) {
    next(
      req.is('application/json')
        ? undefined
        : new SkillError('UNSUPPORTED_MEDIA_TYPE', 'Send application/json'),
    );
  };
}
