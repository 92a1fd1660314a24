import { type Execution, type Principal, SkillError } from '@skillrun/core';
import type { ExecutionEngine, ExecutionStore } from '@skillrun/core/data';
import { assertRole } from '../auth/assert-role';
import type { ExecutionIdentity } from '../auth/execution-identity';
import { roleOf } from '../auth/role-of';
import type { RequestHeaders } from '../http/request-headers';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

export interface ExecutionCancelerDeps {
  /** What the execution is read again with, once canceled. */
  store: ExecutionStore;
  /** What cancels it, with its steps, confirmed on the replicas (ACK_REPLICAS). */
  engine: Pick<ExecutionEngine, 'cancel'>;
  identity: ExecutionIdentity;
  metrics: GatewayMetrics;
}

export interface CancelRequest {
  skillId: string;
  executionId: string;
  headers: RequestHeaders;
}

/**
 * POST cancel: ends an execution that has not ended as `canceled`, with its composite steps, from
 * any gateway, once the caller may (the engine's cancel: ExecutionCancels). Cancelling a canceled
 * execution answers it again; one that ended otherwise is 409 EXECUTION_ENDED.
 */
export class ExecutionCanceler {
  constructor(private readonly deps: ExecutionCancelerDeps) {}

  async cancel({ skillId, executionId, headers }: CancelRequest): Promise<Execution> {
    const { store } = this.deps;
    const { execution, principal } = await this.deps.identity.read(skillId, executionId, headers);
    assertMayCancel(principal);
    await this.cancelFound(execution, principal);
    const after = await store.records.get(executionId);
    if (after?.status === 'canceled') return after;
    throw new SkillError(
      'EXECUTION_ENDED',
      `Execution "${executionId}" has already ended (${after?.status ?? execution.status}); nothing was canceled`,
      { details: { status: after?.status ?? execution.status } },
    );
  }

  /**
   * Cancels an execution `principal` was found to own and may cancel (assertMayCancel) by other
   * means (POST /executions/cancel found it in its history, POST /batches/{id}/cancel in its batch)
   * as POST cancel does, with its steps: true when this call ended it, false when it had ended
   * already.
   */
  async cancelFound(execution: Execution, principal: Principal | undefined): Promise<boolean> {
    const message = `Canceled by ${principal?.callerId ?? 'an anonymous caller'}`;
    return this.deps.engine.cancel(execution, message, (canceled) =>
      this.deps.metrics.executionCanceled(canceled.skill_id),
    );
  }
}

/**
 * Canceling needs the operator role (anyone's) or, for a caller, the skill:invoke scope (its own);
 * anonymous callers cancel what is anonymous.
 */
export function assertMayCancel(principal: Principal | undefined): void {
  if (!principal) return;
  assertRole(principal, 'operator', 'Canceling', 'callers too');
  if (roleOf(principal) === undefined && !principal.scopes.includes('skill:invoke')) {
    throw new SkillError('ACCESS_DENIED', 'Canceling needs the skill:invoke scope');
  }
}
