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
import { pageAcrossTags, type ScoredId } from './page-across-tags';

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

  /** Open task ids, oldest first (then by id), from `after` (exclusive cursor), at most `count`. */
  list(skillId: string | undefined, after: ScoredId | undefined, count: number): Promise<ScoredId[]> {
    return pageAcrossTags(
      this.redis,
      this.keys.shards,
      (tag) => this.keys.openTasks(skillId, tag),
      after,
      count,
    );
  }
}
