import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import INCREMENT from './increment-usage.lua';
import { type UsageIncrement, usageFields, usageIncrements } from './usage-fields';

/** The tokens an execution spent, per model, as counters in its record (one HINCRBY each). */
export class ExecutionUsage {
  private readonly incrementScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.incrementScript = redisScript(redis, 'skillrunIncrement', INCREMENT);
  }

  /** Adds to the record's counters, while the record exists. */
  async add(executionId: string, increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.incrementScript(
      [this.keys.execution(executionId)],
      increments.flatMap((increment) => usageFields(increment)),
    );
  }

  /** Per model, the tokens the record says the execution spent. */
  async increments(executionId: string): Promise<UsageIncrement[]> {
    return usageIncrements(await this.redis.hgetall(this.keys.execution(executionId)));
  }
}
