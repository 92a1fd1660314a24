import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { RedisKeys } from './redis-keys';

/** A concurrency quota: at most `limit` executions at once in the set under `key`. */
export interface SlotClaim {
  key: string;
  limit: number;
}

export type SlotsTaken =
  | { taken: true; inFlight: number[] }
  | { taken: false; full: SlotClaim; inFlight: number };

/**
 * How long a slot whose execution record does not exist yet is left alone when a full set is
 * repaired: the record is written just after the slot is taken.
 */
const UNRECORDED_GRACE_MS = 60_000;

/**
 * Takes a slot in every set or in none. KEYS: the sets. ARGV: execution id, now (ms), prefix of
 * execution record keys, then each set's limit. A full set is first repaired: members whose
 * execution is final (or whose record is gone) leave it, so a lost release cannot hold a slot
 * forever. Returns {0, counts...} when taken, {index of the full set, its count} otherwise.
 */
const TAKE = `
local function repair(key)
  local stale = tonumber(ARGV[2]) - ${UNRECORDED_GRACE_MS}
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #members, 2 do
    local status = redis.call('HGET', ARGV[3] .. members[i], 'status')
    local final = status == 'completed' or status == 'failed' or status == 'timeout' or status == 'canceled'
    if final or (not status and tonumber(members[i + 1]) < stale) then
      redis.call('ZREM', key, members[i])
    end
  end
end
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i + 3])
  if redis.call('ZCARD', key) >= limit then
    repair(key)
    local count = redis.call('ZCARD', key)
    if count >= limit then return { i, count } end
  end
end
local counts = { 0 }
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[1])
  counts[#counts + 1] = redis.call('ZCARD', key)
end
return counts
`;

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
