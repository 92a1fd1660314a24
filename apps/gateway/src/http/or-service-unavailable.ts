import { SkillError } from '@skillrun/core';

/**
 * Runs what a request needs of Redis: whatever goes wrong on the way (refused, closed, a command
 * timed out) becomes 503 SERVICE_UNAVAILABLE, never a 500; errors that are already SkillErrors pass
 * through. It sets no timer of its own: the gateway's connection bounds every command by
 * REDIS_TIMEOUT_MS (ioredis' commandTimeout), and fails it at once while Redis is away (no offline
 * queue). What is not a command (waiting for a connection to be ready) needs a bound of its own.
 */
export async function orServiceUnavailable<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw new SkillError(
      'SERVICE_UNAVAILABLE',
      'The queue is unavailable (Redis cannot be reached); retry shortly',
      {
        suggestedAction: 'Retry with exponential backoff',
      },
    );
  }
}
