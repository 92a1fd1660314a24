import type { Redis } from 'ioredis';
import { SkillError } from '../../errors/skill-error';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import { tagsInUse } from '../tags-in-use';
import DECIDE from './approval-decision.lua';
import { type ApprovalDecisionFields, decisionFields } from './approval-fields';
import type { ExecutionTransitions } from './execution-transitions';
import {
  TRANSITION_LUA,
  type TransitionCall,
  type TransitionReply,
  type TransitionResult,
  transitionSettled,
} from './transition-script';

/** What a decision came to: made, or not (`decided`: another decision, or an end, came first). */
export type DecisionResult = TransitionResult | 'decided';

/** A decision on an approval, as an approver (or the deadline) makes it. */
export type ApprovalDecision = Omit<ApprovalDecisionFields, 'at'>;

/**
 * The approvals executions wait for (`awaiting_approval`): listed while pending, decided once. Each
 * decision is one script (approval-decision.lua in front of transition.lua): approved, the record
 * goes on `accepted`; rejected or timed out, it ends `failed` (APPROVAL_REJECTED, APPROVAL_TIMEOUT);
 * of two at once, exactly one is made. Who decided, how and when is written with it, on the record.
 */
export class ApprovalDecisions {
  private readonly script: RedisScript<TransitionReply>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly transitions: ExecutionTransitions,
    private readonly clock: () => number = Date.now,
  ) {
    this.script = redisScript(redis, 'skillrunDecideApproval', `${DECIDE}\n${TRANSITION_LUA}`);
  }

  /** Makes the decision unless another was made first ('decided'); an end's second step follows. */
  async decide(executionId: string, decision: ApprovalDecision): Promise<DecisionResult> {
    const call = this.callOf(executionId, { ...decision, at: this.clock() });
    const pending = this.keys.pendingApprovals(this.keys.tagOf(executionId));
    const reply = await this.script(call.keys, [pending, ...call.args]);
    return reply === -3 ? 'decided' : transitionSettled(this.redis, executionId, reply);
  }

  /**
   * Pending approvals' ids, oldest first (then by id), from `after` (exclusive score/id cursor), at
   * most `count`: every tag's list read apart and merged, as TaskStore.list.
   */
  async list(
    after: { score: number; id: string } | undefined,
    count: number,
  ): Promise<{ id: string; score: number }[]> {
    const read = tagsInUse(this.keys.shards).map((tag) => this.listOn(tag, after, count));
    const merged = (await Promise.all(read)).flat();
    merged.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return merged.slice(0, count);
  }

  private async listOn(
    tag: string,
    after: { score: number; id: string } | undefined,
    count: number,
  ): Promise<{ id: string; score: number }[]> {
    const flat = await this.redis.zrangebyscore(
      this.keys.pendingApprovals(tag),
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
      if (after && entry.score === after.score && entry.id <= after.id) continue;
      entries.push(entry);
    }
    return entries.slice(0, count);
  }

  private callOf(executionId: string, decision: ApprovalDecisionFields): TransitionCall {
    const fields = decisionFields(decision);
    if (decision.state === 'approved') return this.transitions.approvedCall(executionId, fields);
    return this.transitions.failCall(executionId, 'failed', endError(decision), undefined, fields);
  }
}

/** The typed error a rejection or a timeout ends the execution with. */
function endError({ state, by, reason }: ApprovalDecisionFields) {
  if (state === 'timed_out') {
    return new SkillError('APPROVAL_TIMEOUT', 'No approver decided before the deadline; nothing ran', {
      recoverable: false,
    }).toBody();
  }
  const message = `Rejected by ${by}${reason ? `: ${reason}` : ''}; nothing ran`.slice(0, 1000);
  return new SkillError('APPROVAL_REJECTED', message, { recoverable: false }).toBody();
}
