import type { Redis } from 'ioredis';
import { SkillError } from '../errors/skill-error';
import type { QueueRegistry } from '../queue/queue-registry';
import { type Execution, isTerminalStatus } from '../schemas/execution';
import type { ExecutionStore } from '../store/execution/execution-store';
import type { SlotHandover } from '../store/flow/slot-handover';
import type { RedisKeys } from '../store/keys/redis-keys';

export interface ExecutionCancelsDeps {
  /** Where every worker hears of a cancel (the process's connection). */
  redis: Redis;
  keys: RedisKeys;
  /** The durable writes' (DurableWrites): what the engine confirms on the replicas. */
  store: ExecutionStore;
  queues: QueueRegistry;
  /** The concurrency slots a canceled execution held go on at once, not when its worker lets go. */
  handover: SlotHandover;
}

/**
 * Ends an execution that has not ended as `canceled`, with its composite steps. The record changes
 * first, atomically and only from a status that is not final, so the execution ends in exactly one
 * terminal status whichever of the cancel and the skill's end comes first; then its job is taken
 * off its queue (a waiting execution never starts) and every worker is told, so the one running it
 * aborts the skill; the concurrency slots it held (skill.json `concurrency`) go to the next parked
 * executions, whose jobs this process promotes.
 */
export class ExecutionCancels {
  constructor(private readonly deps: ExecutionCancelsDeps) {}

  /**
   * The execution first (its end is what the caller asked for), then its steps that have not ended,
   * each with theirs: by the time it resolves, none of the tree is left to run. True when this call
   * ended the execution; `canceled` hears of each execution of the tree it ended.
   */
  async cancelTree(
    execution: Execution,
    message: string,
    canceled: (execution: Execution) => void,
  ): Promise<boolean> {
    if (isTerminalStatus(execution.status)) return false;
    const { store, queues, redis, keys, handover } = this.deps;
    const { execution_id: id } = execution;
    const error = new SkillError('EXECUTION_CANCELED', message, { recoverable: false }).toBody();
    if ((await store.transitions.cancel(id, error)) !== 'applied') return false;
    canceled(execution);
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
      if (current) await this.cancelTree(current, `${message}, with the composite that called it`, canceled);
    }
    return true;
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
}
