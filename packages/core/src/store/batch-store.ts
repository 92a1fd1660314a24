import type { Redis } from 'ioredis';
import { coalesceWrites } from '../redis/coalesce-writes';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { RedisKeys } from './keys/redis-keys';
import SAVE from './save-batch.lua';

/** A batch as its record keeps it (POST /batches). */
export interface StoredBatch {
  id: string;
  /** The authenticated caller it belongs to; undefined for an anonymous one (anyone may read it). */
  owner: string | undefined;
  caller: { id: string; type: string };
  /** Epoch ms. */
  createdAt: number;
  /** How many items it had, refused ones included. */
  items: number;
  /** Its executions' ids, in the order of its items (refused items have none). */
  executions: string[];
}

/**
 * Batches in Redis, one HASH each (RedisKeys.batch). A batch is kept EXECUTION_TTL_SECONDS
 * (`ttlSeconds`) past its creation and past each end of one of its executions (transition.lua
 * renews it then), so that it lives as long as they do: one whose executions never start cannot
 * outlive the retention period, as a record without a TTL could.
 */
export class BatchStore {
  private readonly saveScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {
    this.saveScript = redisScript(redis, 'skillrunSaveBatch', SAVE);
  }

  /**
   * Writes the batch (again: the same batch written twice is one record). Sent before its
   * executions' records, in the same write, so that an execution of it that ends at once finds it
   * to renew.
   */
  async save(batch: StoredBatch): Promise<void> {
    // Held to the end of this turn, so that a launch sent in it goes in the same write.
    coalesceWrites(this.redis);
    const fields = {
      caller_id: batch.caller.id,
      caller_type: batch.caller.type,
      created_at: String(batch.createdAt),
      items: String(batch.items),
      executions: JSON.stringify(batch.executions),
      ...(batch.owner === undefined ? {} : { owner_id: batch.owner }),
    };
    await this.saveScript([this.keys.batch(batch.id)], [this.ttlSeconds, ...Object.entries(fields).flat()]);
  }

  /** The batch, or null when there is none (or it expired). */
  async get(batchId: string): Promise<StoredBatch | null> {
    const fields = await this.redis.hgetall(this.keys.batch(batchId));
    if (fields.created_at === undefined) return null;
    return {
      id: batchId,
      owner: fields.owner_id,
      caller: { id: fields.caller_id ?? '', type: fields.caller_type ?? '' },
      createdAt: Number(fields.created_at),
      items: Number(fields.items ?? 0),
      executions: JSON.parse(fields.executions ?? '[]') as string[],
    };
  }
}
