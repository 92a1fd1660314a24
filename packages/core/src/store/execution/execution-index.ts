import type { Redis } from 'ioredis';
import { joinHeldWrites } from '../../redis/coalesce-writes';
import type { RedisKeys } from '../keys/redis-keys';
import { encodeEntry, HOUR_MS } from './index-entry';
import { type IndexPosition, positionFrom } from './index-position';
import { IndexStream } from './index-stream';

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
 * At one shard the lists are on KEY_PREFIX's tag. Above (REDIS_SHARDS > 1) an execution is listed on
 * its own id's tag (ShardMap.tagOf: its vshard's; a legacy id's, the prefix's), so that nothing
 * global is written per execution, and a listing merges the lists of every tag executions are on
 * (ShardMap.tags()), newest first by creation time. That time is kept in the entry (index-entry.ts)
 * rather than read from the records: to choose which tag's entry comes next the merge needs each
 * tag's next one's time before the listing reads any record, and it reads ahead up to a page on
 * every tag (most of it read again by the next page), so ordering by the records would cost a read
 * of each of those records, some of them expired; 9 bytes an entry cost none. Within one tag entries
 * keep their list's order. A position (the cursor) holds each tag's own place, so a listing goes on
 * exactly where it stopped on each.
 *
 * A busy gateway launches tens of executions in one turn of the event loop, their records and jobs
 * in one write (coalesce-writes.ts). Their ids go to each list in one RPUSH at the end of that
 * write, not one RPUSH each (two Redis commands an invocation); a cluster client holds its writes to
 * each master, and an execution's list is on its record's and job's master. A connection that holds
 * no writes (not connected yet) sends them as soon as the code that launched them yields, before
 * their jobs (BullMQ sends a job after awaiting its client). Not in a later write than the jobs: a
 * list written after them let a Redis killed in between refuse launches that then ran
 * (docs/performance-history.md, 2026-11-25 17:50).
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
    const sharded = this.keys.shards.shards > 1;
    const tag = sharded ? this.keys.tagOf(executionId) : this.keys.prefix;
    const lists = [
      this.keys.executionsInHour(hour, undefined, tag),
      ...(owner === undefined ? [] : [this.keys.executionsInHour(hour, owner, tag)]),
    ];
    const entry = encodeEntry({ id: executionId, createdAt }, sharded);
    const expireAt = (hour + 2) * HOUR_MS + this.ttlSeconds * 1000;
    await Promise.all(lists.map((list) => this.append(list, entry, expireAt)));
  }

  /** Adds `entry` to the list: with this turn's held writes, or once the current task yields. */
  private append(list: string, entry: string, expireAt: number): Promise<void> {
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
    append.entries.push(entry);
    return append.applied;
  }

  private send(turn: Map<string, PendingAppend>): void {
    if (this.pending === turn) this.pending = undefined;
    for (const [list, append] of turn) {
      this.push(list, append.entries, append.expireAt).then(append.resolve, append.reject);
    }
  }

  private async push(list: string, entries: string[], expireAt: number): Promise<void> {
    // The list did not exist before these entries: they start its expiry.
    if ((await this.redis.rpush(list, ...entries)) === entries.length) {
      await this.redis.pexpireat(list, expireAt);
    }
  }

  /**
   * The position a cursor's compact one (compactPosition) names, if this index could have given it
   * out; undefined otherwise.
   */
  positionOf(compact: unknown): IndexPosition | undefined {
    return positionFrom(compact, this.keys.shards.tags().length);
  }

  /**
   * Entries from `from` (or the newest of `untilMs`'s hour) back to `sinceMs`'s hour, newest first,
   * at most `count`, each with the position a listing that stops after it goes on from; and where
   * to go on from after the last, or null when nothing older is left. Reads every tag's lists, up to
   * `count` entries of an hour at a time each.
   */
  async read(
    scope: IndexScope,
    range: { sinceMs: number; untilMs: number },
    from: IndexPosition | undefined,
    count: number,
  ): Promise<{ entries: IndexEntry[]; next: IndexPosition | null }> {
    const oldest = Math.floor(range.sinceMs / HOUR_MS);
    const newest = Math.floor(range.untilMs / HOUR_MS);
    const streams = this.keys.shards.tags().map((tag, i) => {
      const listOf = (hour: number) => this.keys.executionsInHour(hour, scope.owner, tag);
      // Never newer than the range: a cursor's hour past it (not one we gave) would walk empty hours.
      const at = from === undefined ? { hour: newest } : from[i];
      const start = at && at.hour > newest ? { hour: newest } : (at ?? null);
      return new IndexStream(this.redis, listOf, start, oldest);
    });
    const entries: IndexEntry[] = [];
    while (entries.length < count) {
      const heads = await Promise.all(streams.map((stream) => stream.peek(count - entries.length)));
      const taken = streams[newestOf(heads)]?.take();
      if (taken === undefined) break;
      entries.push({ id: taken.id, after: streams.map((stream) => stream.at) });
    }
    const position = streams.map((stream) => stream.at);
    return { entries, next: position.some((at) => at !== null) ? position : null };
  }
}

/** Which of the tags' next entries was created last (the first tag's on a tie); -1 when none is left. */
function newestOf(heads: ({ createdAt: number } | undefined)[]): number {
  let newest = -1;
  for (const [i, head] of heads.entries()) {
    if (head !== undefined && (newest < 0 || head.createdAt > (heads[newest]?.createdAt ?? 0))) newest = i;
  }
  return newest;
}

/** Entries for one list, sent in one RPUSH; `applied` settles when Redis has answered it. */
interface PendingAppend {
  entries: string[];
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
  return { entries: [], expireAt, applied, resolve, reject };
}
