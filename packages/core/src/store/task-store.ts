import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import type { RedisKeys } from './redis-keys';

/**
 * Opens a task: the execution runs (its first start kept), waits for someone until ARGV[3] (epoch
 * ms), and is listed among the open tasks, everyone's and its skill's (KEYS[2], KEYS[3]), which it
 * leaves when it ends: their keys join the record's `slots`, the sets the end of an execution
 * removes it from (execution-store.ts). KEYS[1]: the record. ARGV: execution id, now (ms), deadline.
 * Returns 0 when the record is gone or has ended, 1 otherwise (opening again changes nothing).
 */
const OPEN = `
local current = redis.call('HMGET', KEYS[1], 'status', 'slots', 'task_deadline')
local final = { completed = true, failed = true, timeout = true, canceled = true }
if not current[1] or final[current[1]] then return 0 end
if current[3] then return 1 end
local slots = current[2] and cjson.decode(current[2]) or {}
table.insert(slots, KEYS[2])
table.insert(slots, KEYS[3])
redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[2], 'slots', cjson.encode(slots),
  'task_deadline', ARGV[3])
redis.call('HSETNX', KEYS[1], 'started_at', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1
`;

/**
 * Claims an open task for a caller. KEYS[1]: the record. ARGV: caller id, now (ms). Returns 1 when
 * the caller holds it now (or held it already), 0 when it is not an open task (gone, ended, or not
 * a task), -1 when another caller holds it.
 */
const CLAIM = `
local current = redis.call('HMGET', KEYS[1], 'status', 'task_deadline', 'task_claimed_by')
local final = { completed = true, failed = true, timeout = true, canceled = true }
if not current[1] or final[current[1]] or not current[2] then return 0 end
if current[3] then return current[3] == ARGV[1] and 1 or -1 end
redis.call('HSET', KEYS[1], 'task_claimed_by', ARGV[1], 'task_claimed_at', ARGV[2], 'updated_at', ARGV[2])
return 1
`;

export type ClaimResult = 'claimed' | 'not-open' | 'claimed-by-another';

/**
 * The open tasks of `task` skills: opened by the worker that takes the execution, claimed and listed
 * through the gateway; completing or declining one is an ordinary end of its execution
 * (ExecutionStore), which also takes it off the lists.
 */
export class TaskStore {
  private readonly openScript: RedisScript<number>;
  private readonly claimScript: RedisScript<number>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {
    this.openScript = redisScript(redis, 'skillrunOpenTask', OPEN);
    this.claimScript = redisScript(redis, 'skillrunClaimTask', CLAIM);
  }

  /** False when the execution has ended meanwhile (canceled, say). */
  async open(executionId: string, skillId: string, deadline: number): Promise<boolean> {
    const keys = [this.keys.execution(executionId), this.keys.openTasks(), this.keys.openTasks(skillId)];
    return (await this.openScript(keys, [executionId, this.clock(), deadline])) === 1;
  }

  async claim(executionId: string, callerId: string): Promise<ClaimResult> {
    const result = await this.claimScript([this.keys.execution(executionId)], [callerId, this.clock()]);
    return result === 1 ? 'claimed' : result === 0 ? 'not-open' : 'claimed-by-another';
  }

  /** Open task ids, oldest first, from `after` (exclusive score/id cursor), at most `count`. */
  async list(
    skillId: string | undefined,
    after: { score: number; id: string } | undefined,
    count: number,
  ): Promise<{ id: string; score: number }[]> {
    const key = this.keys.openTasks(skillId);
    const flat = await this.redis.zrangebyscore(
      key,
      after?.score ?? '-inf',
      '+inf',
      'WITHSCORES',
      'LIMIT',
      0,
      count + 50,
    );
    const entries: { id: string; score: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const entry = { id: flat[i] as string, score: Number(flat[i + 1]) };
      // Ties on the cursor's score: those up to the cursor's id were on an earlier page.
      if (after && entry.score === after.score && entry.id <= after.id) continue;
      entries.push(entry);
    }
    return entries.slice(0, count);
  }
}
