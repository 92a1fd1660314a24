import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { RedisKeys } from './redis-keys';
import TAKE from './take-slots.lua';

/** A concurrency quota: at most `limit` executions at once in the set under `key`. */
export interface SlotClaim {
  key: string;
  limit: number;
}

export type SlotsTaken =
  | { taken: true; inFlight: number[] }
  | { taken: false; full: SlotClaim; inFlight: number };

/**
 * Concurrency quotas shared by every gateway: one sorted set per quota holds the executions in
 * flight (accepted and not yet final). The execution's record lists its sets, and the store's
 * final transition leaves them in the same script, whichever process records the outcome.
 */
export class InFlightSlots {
  private readonly takeScript: RedisScript<number[]>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.takeScript = redisScript(redis, 'skillrunTakeSlots', TAKE);
  }

  async take(executionId: string, claims: SlotClaim[], nowMs = Date.now()): Promise<SlotsTaken> {
    const answer = await this.takeScript(
      claims.map((claim) => claim.key),
      [executionId, nowMs, this.keys.execution(''), ...claims.map((claim) => claim.limit)],
    );
    const [full = 0, ...counts] = answer;
    const fullClaim = claims[full - 1];
    if (fullClaim) return { taken: false, full: fullClaim, inFlight: counts[0] ?? fullClaim.limit };
    return { taken: true, inFlight: counts };
  }

  /** Gives slots back for an execution that was never started. */
  async release(executionId: string, claims: SlotClaim[]): Promise<void> {
    if (claims.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const claim of claims) pipeline.zrem(claim.key, executionId);
    await pipeline.exec();
  }
}
