import { SkillError } from '@skillrun/core';

/**
 * Runs a Redis operation for an HTTP request with a deadline: whatever goes wrong on the way to
 * Redis (refused, closed, slow) becomes a 503 SERVICE_UNAVAILABLE within `timeoutMs`, never a
 * hang or a 500. Errors that are already SkillErrors pass through.
 */
export async function redisDeadline<T>(operation: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${timeoutMs}ms`)), timeoutMs);
  });
  try {
    return await Promise.race([operation(), expired]);
  } catch (error) {
    if (error instanceof SkillError) throw error;
    throw new SkillError(
      'SERVICE_UNAVAILABLE',
      'The queue is unavailable (Redis cannot be reached); retry shortly',
      {
        suggestedAction: 'Retry with exponential backoff',
      },
    );
  } finally {
    clearTimeout(timer);
  }
}
