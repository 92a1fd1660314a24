import { SkillError } from '@skillrun/core';

/**
 * The answer to a request whose dependency failed: Redis refused, closed or timed out a command
 * (the gateway's connection bounds each by REDIS_TIMEOUT_MS, and fails it at once while Redis is
 * away: no offline queue), or a queue write failed with it. The error handler adds Retry-After.
 */
export function serviceUnavailable(): SkillError {
  return new SkillError(
    'SERVICE_UNAVAILABLE',
    'The queue is unavailable (Redis cannot be reached); retry shortly',
    {
      suggestedAction: 'Retry with exponential backoff',
    },
  );
}

/**
 * Whether a thrown value is a fault of the gateway's own code (a TypeError, a RangeError…), which
 * is answered 500 and logged, rather than of what it called: what the Redis client and BullMQ
 * throw (plain Errors and ReplyErrors) is the service being unavailable.
 */
export function isOwnFault(error: unknown): boolean {
  return (
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError ||
    error instanceof EvalError ||
    error instanceof URIError
  );
}
