import { type Execution, isTerminalStatus, notReplicated, type Principal, SkillError } from '@skillrun/core';
import type { ExecutionStore, QueueRegistry, RedisKeys, ReplicaAck, SlotHandover } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import type { ExecutionIdentity } from '../auth/execution-identity';
import { isAdmin } from '../auth/identity';
import type { RequestHeaders } from '../http/request-headers';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

export interface ExecutionCancelerDeps {
  redis: Redis;
  keys: RedisKeys;
  /** The durable writes' (see DurableWrites): a cancel is confirmed on `ack`'s replicas. */
  store: ExecutionStore;
  queues: QueueRegistry;
  ack: ReplicaAck;
  /** The concurrency slots a canceled execution held go on at once, not when its worker lets go. */
  handover: SlotHandover;
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
 * worker is told, so the one running it aborts the skill; the concurrency slots it held (skill.json
 * `concurrency`) go to the next parked executions, whose jobs this gateway promotes. Cancelling a canceled execution answers
 * it again; one that ended otherwise is 409 EXECUTION_ENDED.
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
    const session = this.deps.ack.session;
    const ended = await this.cancelTree(
      execution,
      `Canceled by ${principal?.callerId ?? 'an anonymous caller'}`,
    );
    // On the replicas (ACK_REPLICAS) before it is answered; asked again, it answers what holds then.
    if (ended && !(await this.deps.ack.confirm(session))) throw notReplicated('cancel', false);
    return ended;
  }

  /**
   * A skill registered from elsewhere has its job on the remote queue. Parked between polls of its
   * provider, it is brought forward, so that a worker asks the provider to cancel too; not started
   * (waiting, or delayed until it is due), it is removed.
   */
  private async abandonRemote(id: string, priority: Execution['priority']): Promise<void> {
    const job = await this.deps.queues
      .remote(priority, id)
      .getJob(id)
      .catch(() => undefined);
    if (!job) return;
    const parked = job.attemptsStarted > 0 && (await job.isDelayed().catch(() => false));
    if (parked) await job.promote().catch(() => {});
    else await job.remove().catch(() => {});
  }

  /**
   * The execution first (its end is what the caller asked for), then its steps that have not ended,
   * each with theirs: by the time the answer goes out, none of the tree is left to run. True when
   * this call ended the execution.
   */
  private async cancelTree(execution: Execution, message: string): Promise<boolean> {
    if (isTerminalStatus(execution.status)) return false;
    const { store, queues, redis, keys, metrics, handover } = this.deps;
    const { execution_id: id } = execution;
    const error = new SkillError('EXECUTION_CANCELED', message, { recoverable: false }).toBody();
    if ((await store.transitions.cancel(id, error)) !== 'applied') return false;
    metrics.executionCanceled(execution.skill_id);
    await redis.publish(keys.canceled(), id);
    // Fails (and is harmless) when a worker holds the job: that worker heard the cancel.
    await queues
      .for(execution.skill_id, execution.skill_version, execution.priority, id)
      .remove(id)
      .catch(() => 0);
    await this.abandonRemote(id, execution.priority);
    // Its slots were left by the cancel itself; a parked one holds none, and nothing goes on.
    await handover.ended(id).catch(() => {});
    for (const step of execution.steps ?? []) {
      if (step.execution_id === undefined || isTerminalStatus(step.status)) continue;
      const current = await store.records.get(step.execution_id);
      if (current) await this.cancelTree(current, `${message}, with the composite that called it`);
    }
    return true;
  }
}

/** Canceling needs the skill:invoke scope (an admin may anyway); anonymous callers cancel what is anonymous. */
export function assertMayCancel(principal: Principal | undefined): void {
  if (principal && !isAdmin(principal) && !principal.scopes.includes('skill:invoke')) {
    throw new SkillError('ACCESS_DENIED', 'Canceling needs the skill:invoke scope');
  }
}
