import { type Execution, isTerminalStatus, SkillError } from '@skillrun/core';
import type { ExecutionStore, QueueRegistry, RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import type { ExecutionIdentity } from '../auth/execution-identity';
import { isAdmin } from '../auth/identity';
import type { RequestHeaders } from '../http/request-headers';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

export interface ExecutionCancelerDeps {
  redis: Redis;
  keys: RedisKeys;
  store: ExecutionStore;
  queues: QueueRegistry;
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
 * any gateway. The record changes first, atomically and only from a status that is not final, so
 * the execution ends in exactly one terminal status whichever of the cancel and the skill's end
 * comes first; then its job is taken off its queue (a waiting execution never starts) and every
 * worker is told, so the one running it aborts the skill. Cancelling a canceled execution answers
 * it again; one that ended otherwise is 409 EXECUTION_ENDED.
 */
export class ExecutionCanceler {
  constructor(private readonly deps: ExecutionCancelerDeps) {}

  async cancel({ skillId, executionId, headers }: CancelRequest): Promise<Execution> {
    const { store } = this.deps;
    const { execution, principal } = await this.deps.identity.read(skillId, executionId, headers);
    if (principal && !isAdmin(principal) && !principal.scopes.includes('skill:invoke')) {
      throw new SkillError('ACCESS_DENIED', 'Canceling needs the skill:invoke scope');
    }
    const by = principal?.callerId ?? 'an anonymous caller';
    await this.cancelTree(execution, `Canceled by ${by}`);
    const after = await store.records.get(executionId);
    if (after?.status === 'canceled') return after;
    throw new SkillError(
      'EXECUTION_ENDED',
      `Execution "${executionId}" has already ended (${after?.status ?? execution.status}); nothing was canceled`,
      { details: { status: after?.status ?? execution.status } },
    );
  }

  /**
   * A skill registered from elsewhere has its job on the remote queue. Parked between polls of its
   * provider, it is brought forward, so that a worker asks the provider to cancel too; not started,
   * it is removed.
   */
  private async abandonRemote(id: string, priority: Execution['priority']): Promise<void> {
    const job = await this.deps.queues
      .remote(priority)
      .getJob(id)
      .catch(() => undefined);
    if (!job) return;
    if (await job.isDelayed().catch(() => false)) await job.promote().catch(() => {});
    else await job.remove().catch(() => {});
  }

  /**
   * The execution first (its end is what the caller asked for), then its steps that have not ended,
   * each with theirs: by the time the answer goes out, none of the tree is left to run.
   */
  private async cancelTree(execution: Execution, message: string): Promise<void> {
    if (isTerminalStatus(execution.status)) return;
    const { store, queues, redis, keys, metrics } = this.deps;
    const { execution_id: id } = execution;
    const error = new SkillError('EXECUTION_CANCELED', message, { recoverable: false }).toBody();
    if ((await store.transitions.cancel(id, error)) !== 'applied') return;
    metrics.executionCanceled(execution.skill_id);
    await redis.publish(keys.canceled(), id);
    // Fails (and is harmless) when a worker holds the job: that worker heard the cancel.
    await queues
      .for(execution.skill_id, execution.skill_version, execution.priority)
      .remove(id)
      .catch(() => 0);
    await this.abandonRemote(id, execution.priority);
    for (const step of execution.steps ?? []) {
      if (step.execution_id === undefined || isTerminalStatus(step.status)) continue;
      const current = await store.records.get(step.execution_id);
      if (current) await this.cancelTree(current, `${message}, with the composite that called it`);
    }
  }
}
