import { type RedisKeys, type RedisScript, redisScript } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import CLAIM_EXPIRED from './claim-expired.lua';

/**
 * The composites waiting for a step, by deadline. A waiting composite runs no code that could
 * notice its deadline pass, so every worker looks here and times out the ones whose time is up;
 * each is claimed by exactly one worker.
 */
export class WaitingComposites {
  private readonly claimScript: RedisScript<string[]>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.claimScript = redisScript(redis, 'skillrunClaimExpired', CLAIM_EXPIRED);
  }

  async add(executionId: string, deadline: number): Promise<void> {
    await this.redis.zadd(this.keys.waitingComposites(), deadline, executionId);
  }

  async remove(executionId: string): Promise<void> {
    await this.redis.zrem(this.keys.waitingComposites(), executionId);
  }

  claimExpired(now: number, limit: number): Promise<string[]> {
    return this.claimScript([this.keys.waitingComposites()], [now, limit]);
  }
}
