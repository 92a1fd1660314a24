import { setTimeout as delay } from 'node:timers/promises';
import { isRedisUnavailable } from './redis-unavailable';

/**
 * `call`'s answer, asked again every `delayMs` while it fails because Redis is away (a failover, a
 * restart): for a write that must land once what comes after it has (a job's end), where giving up
 * would leave a record behind for ever. Any other failure is thrown at once.
 */
export async function untilRedisAnswers<T>(call: () => Promise<T>, delayMs: number): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      await delay(delayMs);
    }
  }
}
