import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import INCREMENT from './increment-usage.lua';
import { type Spent, spentFields, spentOf } from './usage-fields';

/**
 * What an execution spent, as counters in its record (one HINCRBY each): tokens per model, and its
 * cost in nano-dollars.
 */
export class ExecutionUsage {
  private readonly incrementScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.incrementScript = redisScript(redis, 'skillrunIncrement', INCREMENT);
  }

  /** Adds to the record's counters, while the record exists. */
  async add(executionId: string, spent: Spent): Promise<void> {
    const fields = spentFields(spent);
    if (fields.length === 0) return;
    await this.incrementScript([this.keys.execution(executionId)], fields);
  }

  /** Per model, the tokens the record says the execution spent, and its cost. */
  async spent(executionId: string): Promise<Spent> {
    return spentOf(await this.redis.hgetall(this.keys.execution(executionId)));
  }
}
