import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys';

const HOUR_MS = 3_600_000;

/** Where a listing goes on from: the hour bucket, and how many of its entries are still to read. */
export interface IndexPosition {
  hour: number;
  /** Entries [0, before) of the bucket are still to read (newest last); all of it when absent. */
  before?: number;
}

/** An execution's id, and the position just past it (older entries only). */
export interface IndexEntry {
  id: string;
  after: IndexPosition;
}

/** The part of the index a listing reads: the caller's own lists, or everyone's. */
export interface IndexScope {
  owner?: string;
}

/**
 * The executions created in each hour, in order, as Redis LISTs of ids: one for everyone and one
 * per authenticated caller, so that a caller's listing reads only its own. A list is some 45 bytes
 * an execution (a sorted set would be over 100) and costs one RPUSH per invocation; it expires an
 * hour after the last record it names could have (records live EXECUTION_TTL_SECONDS after they
 * end), so an execution still running that long after its hour drops out of listings, not out of
 * GET status.
 */
export class ExecutionIndex {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  /** Sent with the record's creation; the first entry of a list sets its expiry. */
  async add(executionId: string, owner: string | undefined, createdAt: number): Promise<void> {
    const hour = Math.floor(createdAt / HOUR_MS);
    const lists = [
      this.keys.executionsInHour(hour),
      ...(owner === undefined ? [] : [this.keys.executionsInHour(hour, owner)]),
    ];
    const lengths = await Promise.all(lists.map((list) => this.redis.rpush(list, executionId)));
    const expireAt = (hour + 2) * HOUR_MS + this.ttlSeconds * 1000;
    await Promise.all(
      lists.map((list, i) => (lengths[i] === 1 ? this.redis.pexpireat(list, expireAt) : undefined)),
    );
  }

  /**
   * Entries from `from` (or the newest of `untilMs`'s hour) back to `sinceMs`'s hour, newest first,
   * at most `count`, each with the position a listing that stops after it goes on from; and where
   * to go on from after the last, or null when nothing older is left.
   */
  async read(
    scope: IndexScope,
    range: { sinceMs: number; untilMs: number },
    from: IndexPosition | undefined,
    count: number,
  ): Promise<{ entries: IndexEntry[]; next: IndexPosition | null }> {
    const oldest = Math.floor(range.sinceMs / HOUR_MS);
    let hour = from?.hour ?? Math.floor(range.untilMs / HOUR_MS);
    let before = from?.before;
    const entries: IndexEntry[] = [];
    while (hour >= oldest && entries.length < count) {
      const list = this.keys.executionsInHour(hour, scope.owner);
      before ??= await this.redis.llen(list);
      const start = Math.max(0, before - (count - entries.length));
      const ids = before > start ? await this.redis.lrange(list, start, before - 1) : [];
      for (let i = ids.length - 1; i >= 0; i--) {
        entries.push({ id: ids[i] as string, after: { hour, before: start + i } });
      }
      if (start > 0) return { entries, next: { hour, before: start } };
      hour -= 1;
      before = undefined;
    }
    return { entries, next: hour >= oldest ? { hour } : null };
  }
}
