import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import ATTEMPT_DEADLINE from './attempt-deadline.lua';

/**
 * The deadline of a composite's attempt, kept in its record: fixed when the attempt first runs and
 * the same each time it runs again after its steps, so that waiting for them does not extend it.
 */
export class AttemptDeadlines {
  private readonly script: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.script = redisScript(redis, 'skillrunAttemptDeadline', ATTEMPT_DEADLINE);
  }

  /** The attempt whose deadline the record keeps, if any. */
  async attemptOf(executionId: string): Promise<number | undefined> {
    const attempt = await this.redis.hget(this.keys.execution(executionId), 'deadline_attempt');
    return attempt === null ? undefined : Number(attempt);
  }

  /** The deadline of this attempt: `proposedMs` the first time, the same one after. */
  fix(executionId: string, attempt: number, proposedMs: number): Promise<number> {
    return this.script([this.keys.execution(executionId)], [attempt, proposedMs]);
  }
}
