import { randomUUID } from 'node:crypto';
import { type Logger, SkillError } from '@skillrun/core';

/** What a fault's log line says of the request besides the fault: its id, and where it was met. */
export interface FaultPlace {
  request_id: string;
  [field: string]: unknown;
}

/**
 * A fault of our own code, whichever protocol met it (the REST error handler, MCP, A2A): logged
 * once as `unhandled error`, with its stack and the request's id, and answered INTERNAL_ERROR
 * carrying that id for the caller to quote, never the fault's own message. Made only for a fault,
 * so that a request that does not fail pays nothing for it.
 */
export function internalFault(error: unknown, logger: Logger, place: FaultPlace): SkillError {
  logger.error({ err: error, ...place }, 'unhandled error');
  return new SkillError('INTERNAL_ERROR', 'An unexpected error occurred', {
    details: { request_id: place.request_id },
  });
}

/** The caller's X-Request-Id when it is a short printable token, else a new one. */
export function requestIdOf(given: string | undefined): string {
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
