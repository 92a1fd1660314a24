import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import { isTerminalStatus } from '../schemas/execution';
import type { RedisKeys } from './keys/redis-keys';
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
 * How long (ms) a slot whose execution record does not exist yet is left alone when a full set is
 * repaired: the record is written just after the slot is taken (take-slots.lua has the same).
 */
const UNRECORDED_GRACE_MS = 60_000;

/**
 * Concurrency quotas shared by every gateway: one sorted set per quota holds the executions in
 * flight (accepted and not yet final). The execution's record lists its sets, and the store's
 * final transition leaves them, whichever process records the outcome: in the same script when
 * they share the record's hash tag, else just after it (transitionSettled).
 *
 * A full set is repaired before a take is refused: members whose execution is final (or whose
 * record is gone) leave it, so that a lost release, or an end whose second step was lost, cannot
 * hold a slot forever. At one shard the take's script repairs, the records beside the sets; above
 * (REDIS_SHARDS), records live on other slots than the sets, and this class reads them.
 */
export class InFlightSlots {
  private readonly takeScript: RedisScript<number[]>;
  /** take-slots.lua's ARGV[3]: the records' prefix when the script can read them, else ''. */
  private readonly recordsInScript: string;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.takeScript = redisScript(redis, 'skillrunTakeSlots', TAKE);
    this.recordsInScript = keys.shards.shards === 1 ? keys.execution('') : '';
  }

  async take(executionId: string, claims: SlotClaim[], nowMs = Date.now()): Promise<SlotsTaken> {
    const repaired = new Set<string>();
    for (;;) {
      const answer = await this.takeScript(
        claims.map((claim) => claim.key),
        [executionId, nowMs, this.recordsInScript, ...claims.map((claim) => claim.limit)],
      );
      const [full = 0, ...counts] = answer;
      const fullClaim = claims[full - 1];
      if (!fullClaim) return { taken: true, inFlight: counts };
      if (this.recordsInScript !== '' || repaired.has(fullClaim.key)) {
        return { taken: false, full: fullClaim, inFlight: counts[0] ?? fullClaim.limit };
      }
      repaired.add(fullClaim.key);
      await this.repair(fullClaim.key, nowMs);
    }
  }

  /** Gives slots back for an execution that was never started. */
  async release(executionId: string, claims: SlotClaim[]): Promise<void> {
    if (claims.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const claim of claims) pipeline.zrem(claim.key, executionId);
    await pipeline.exec();
  }

  /** take-slots.lua's repair, with each member's record read on its own slot. */
  private async repair(key: string, nowMs: number): Promise<void> {
    const flat = await this.redis.zrange(key, 0, -1, 'WITHSCORES');
    const members: { id: string; takenAt: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      members.push({ id: flat[i] as string, takenAt: Number(flat[i + 1]) });
    }
    // One read per record: a cluster client sends no pipeline across slots.
    const statuses = await Promise.all(
      members.map(({ id }) => this.redis.hget(this.keys.execution(id), 'status')),
    );
    const stale = nowMs - UNRECORDED_GRACE_MS;
    const gone = members.filter(({ takenAt }, i) => {
      const status = statuses[i];
      return status ? isTerminalStatus(status) : takenAt < stale;
    });
    if (gone.length > 0) await this.redis.zrem(key, ...gone.map(({ id }) => id));
  }
}
