import { jsonDepthExceeds, SkillError } from '@skillrun/core';
import express, { type RequestHandler } from 'express';

/**
 * JSON bodies up to `limitBytes` (413 beyond), refused with 400 before parsing when nested deeper
 * than `maxDepth`, so that no recursive code after the parser (validation, cloning) meets a
 * hostile depth.
 */
export function jsonBody(limitBytes: number, maxDepth: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    strict: true,
    verify(_req, _res, buffer) {
      if (jsonDepthExceeds(buffer, maxDepth)) {
        throw new SkillError('INVALID_INPUT', `The request body is nested deeper than ${maxDepth} levels`, {
          details: [{ path: '/', message: `must not nest objects and arrays more than ${maxDepth} deep` }],
        });
      }
    },
  });
}
