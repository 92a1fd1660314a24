import { type RedisTarget, targetOptions } from '@skillrun/core/data';
import { Redis } from 'ioredis';

/** Redis did not answer (exit code 5). */
export class RedisUnreachable extends Error {}

/** One connection, no retries: a command-line tool should say at once that Redis is away. */
export async function connectToRedis(target: RedisTarget): Promise<Redis> {
  const redis = new Redis(target.url, {
    ...targetOptions(target),
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // connect() only says "Connection is closed."; the event says why.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => {
    cause = error;
  });
  try {
    await redis.connect();
  } catch (error) {
    throw new RedisUnreachable(
      `keys: cannot reach Redis (REDIS_URL): ${(cause ?? (error as Error)).message}`,
    );
  }
  return redis;
}
