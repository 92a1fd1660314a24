import type { Redis } from 'ioredis';
import { type RedisScript, redisScript } from '../redis/redis-script';
import CLAIM from './claim-task.lua';
import {
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionReply,
  type TransitionResult,
  transitionSettled,
} from './execution/transition-script';
import HAND_IN from './hand-in-task.lua';
import type { RedisKeys } from './keys/redis-keys';
import OPEN from './open-task.lua';
import { tagsInUse } from './tags-in-use';

export type ClaimResult = 'claimed' | 'not-open' | 'claimed-by-another';
export type HandInResult = TransitionResult | 'claimed-by-another';

/**
 * The open tasks of `task` skills: opened by the worker that takes the execution, claimed and listed
 * through the gateway; completing or declining one is an ordinary end of its execution
 * (ExecutionStore), which also takes it off the lists.
 */
export class TaskStore {
  private readonly openScript: RedisScript<number>;
  private readonly claimScript: RedisScript<number>;
  private readonly handInScript: RedisScript<TransitionReply>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {
    this.openScript = redisScript(redis, 'skillrunOpenTask', OPEN);
    this.claimScript = redisScript(redis, 'skillrunClaimTask', CLAIM);
    this.handInScript = redisScript(redis, 'skillrunHandInTask', `${HAND_IN}\n${TRANSITION_LUA}`);
  }

  /** False when the execution has ended meanwhile (canceled, say). */
  async open(executionId: string, skillId: string, deadline: number): Promise<boolean> {
    // On the record's tag: its end (transition.lua) removes it from them in the same slot.
    const tag = this.keys.tagOf(executionId);
    const keys = [
      this.keys.execution(executionId),
      this.keys.openTasks(undefined, tag),
      this.keys.openTasks(skillId, tag),
    ];
    const args = [executionId, this.clock(), deadline, this.keys.watcherInboxes()];
    return (await this.openScript(keys, args)) === 1;
  }

  async claim(executionId: string, callerId: string): Promise<ClaimResult> {
    const result = await this.claimScript([this.keys.execution(executionId)], [callerId, this.clock()]);
    return result === 1 ? 'claimed' : result === 0 ? 'not-open' : 'claimed-by-another';
  }

  /**
   * Ends a task's execution with `end` (ExecutionTransitions' completeCall or failCall) for
   * `callerId` (who hands it in, or who issued the one-time link it is handed in by) unless another
   * caller has claimed it, in one script (hand-in-task.lua): a claim made at the same moment is
   * either seen here or finds the task ended. An end's second step (transitionSettled) follows.
   */
  async handIn(end: TransitionCall, callerId: string): Promise<HandInResult> {
    const reply = await this.handInScript(end.keys, [callerId, ...end.args]);
    return reply === -2 ? 'claimed-by-another' : transitionSettled(this.redis, end.executionId, reply);
  }

  /**
   * Open task ids, oldest first (then by id), from `after` (exclusive score/id cursor), at most
   * `count`: the sets of every tag in use read apart (a cluster client sends no command across
   * slots) and merged.
   */
  async list(
    skillId: string | undefined,
    after: { score: number; id: string } | undefined,
    count: number,
  ): Promise<{ id: string; score: number }[]> {
    const read = tagsInUse(this.keys.shards).map((tag) => this.listOn(tag, skillId, after, count));
    const merged = (await Promise.all(read)).flat();
    if (read.length > 1) merged.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return merged.slice(0, count);
  }

  /** One tag's open task ids, as `list` (ZRANGEBYSCORE orders ties by id, as `list` merges them). */
  private async listOn(
    tag: string,
    skillId: string | undefined,
    after: { score: number; id: string } | undefined,
    count: number,
  ): Promise<{ id: string; score: number }[]> {
    const flat = await this.redis.zrangebyscore(
      this.keys.openTasks(skillId, tag),
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
