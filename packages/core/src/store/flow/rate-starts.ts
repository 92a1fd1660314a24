import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RateLimitSettings } from '../../schemas/skill-definition';
import type { RedisKeys } from '../keys/redis-keys';
import TAKE from './take-start.lua';

/** A start taken, or how long until one may be. */
export type StartTaken = { taken: true } | { taken: false; waitMs: number };

/**
 * A skill's rate limit (skill.json `rate_limit`: at most `max` starts in any `per_ms` window),
 * shared by every worker, version and priority: a worker takes a start before it takes a job off
 * the skill's queues, and gives it back when none was there. BullMQ's own limiter counts per queue,
 * and a skill has two queues per version.
 */
export class RateStarts {
  private readonly takeScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.takeScript = redisScript(redis, 'skillrunTakeStart', TAKE);
  }

  /** `start`: a name for the start, unique among the skill's (a worker's lock token). */
  async take(skillId: string, limit: RateLimitSettings, start: string): Promise<StartTaken> {
    const waitMs = await this.takeScript(
      [this.keys.flow.rateStarts(skillId)],
      [limit.max, limit.per_ms, start],
    );
    return waitMs === 0 ? { taken: true } : { taken: false, waitMs };
  }

  /** Gives back a start that started nothing. */
  async giveBack(skillId: string, start: string): Promise<void> {
    await this.redis.zrem(this.keys.flow.rateStarts(skillId), start);
  }
}
