import type { Redis } from 'ioredis';
import { SkillError } from '../../errors/skill-error';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { RedisKeys } from '../keys/redis-keys';
import { pageAcrossTags, type ScoredId } from '../page-across-tags';
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

  /** Pending approvals' ids, oldest first (then by id), from `after` (exclusive cursor), at most `count`. */
  list(after: ScoredId | undefined, count: number): Promise<ScoredId[]> {
    return pageAcrossTags(
      this.redis,
      this.keys.shards,
      (tag) => this.keys.pendingApprovals(tag),
      after,
      count,
    );
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
