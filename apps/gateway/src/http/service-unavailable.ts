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
