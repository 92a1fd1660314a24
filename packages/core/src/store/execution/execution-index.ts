import type { Redis } from 'ioredis';
import { joinHeldWrites } from '../../redis/coalesce-writes';
import type { RedisKeys } from '../keys/redis-keys';

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
 * an execution (a sorted set would be over 100); it expires an hour after the last record it names
 * could have (records live EXECUTION_TTL_SECONDS after they end), so an execution still running
 * that long after its hour drops out of listings, not out of GET status.
 *
 * A busy gateway launches tens of executions in one turn of the event loop, their records and jobs
 * in one write (coalesce-writes.ts). Their ids go to each list in one RPUSH at the end of that
 * write, not one RPUSH each (two Redis commands an invocation). A connection that holds no writes
 * (a cluster client's never does) sends them as soon as the code that launched them yields, before
 * their jobs (BullMQ sends a job after awaiting its client): one RPUSH for a bulk launch or a burst
 * started together, and a job still the last write of its launch, as with an RPUSH each. Not later:
 * a list written after the jobs let a Redis killed in between refuse launches that then ran
 * (docs/performance.md, 2026-11-25 17:50).
 */
export class ExecutionIndex {
  /** The appends to send together, per list. */
  private pending: Map<string, PendingAppend> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * Sent with the record's creation, answered once Redis has the entries (so an execution whose
   * creation was answered is listed); the first entries of a list set its expiry.
   */
  async add(executionId: string, owner: string | undefined, createdAt: number): Promise<void> {
    const hour = Math.floor(createdAt / HOUR_MS);
    const lists = [
      this.keys.executionsInHour(hour),
      ...(owner === undefined ? [] : [this.keys.executionsInHour(hour, owner)]),
    ];
    const expireAt = (hour + 2) * HOUR_MS + this.ttlSeconds * 1000;
    await Promise.all(lists.map((list) => this.append(list, executionId, expireAt)));
  }

  /** Adds `executionId` to the list: with this turn's held writes, or once the current task yields. */
  private append(list: string, executionId: string, expireAt: number): Promise<void> {
    let turn = this.pending;
    if (!turn) {
      const joining = new Map<string, PendingAppend>();
      if (!joinHeldWrites(this.redis, () => this.send(joining))) queueMicrotask(() => this.send(joining));
      turn = joining;
      this.pending = joining;
    }
    let append = turn.get(list);
    if (!append) {
      append = newAppend(expireAt);
      turn.set(list, append);
    }
    append.ids.push(executionId);
    return append.applied;
  }

  private send(turn: Map<string, PendingAppend>): void {
    if (this.pending === turn) this.pending = undefined;
    for (const [list, append] of turn) {
      this.push(list, append.ids, append.expireAt).then(append.resolve, append.reject);
    }
  }

  private async push(list: string, ids: string[], expireAt: number): Promise<void> {
    // The list did not exist before these entries: they start its expiry.
    if ((await this.redis.rpush(list, ...ids)) === ids.length) await this.redis.pexpireat(list, expireAt);
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

/** Ids for one list, sent in one RPUSH; `applied` settles when Redis has answered it. */
interface PendingAppend {
  ids: string[];
  expireAt: number;
  applied: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newAppend(expireAt: number): PendingAppend {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const applied = new Promise<void>((onApplied, onFailed) => {
    resolve = onApplied;
    reject = onFailed;
  });
  return { ids: [], expireAt, applied, resolve, reject };
}
