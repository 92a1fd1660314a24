import type { QueueRegistry } from '../../queue/queue-registry';
import type { ConcurrencyGate, GrantedExecution } from './concurrency-gate';

/**
 * Hands the concurrency slots an ended execution freed to the executions parked for them, and
 * promotes their jobs out of BullMQ's delayed set: what whoever ends an execution does, the worker
 * that ran it as its job ends, a gateway that cancels it or reads it past its queue timeout. Handing
 * on twice is harmless: only free slots are given.
 */
export class SlotHandover {
  constructor(
    private readonly gate: ConcurrencyGate,
    private readonly queues: QueueRegistry,
  ) {}

  /** After `executionId` ended, by whatever process: the slots it held, if any, go on. */
  async ended(executionId: string): Promise<void> {
    const released = await this.gate.releaseHeldBy(executionId);
    if (released) await this.promote(released.skillId, released.granted);
  }

  /** Moves the jobs of executions given their slots from delayed to waiting. */
  async promote(skillId: string, granted: GrantedExecution[]): Promise<void> {
    await Promise.all(
      granted.map(async ({ executionId, version, priority }) => {
        try {
          const job = await this.queues.for(skillId, version, priority, executionId).getJob(executionId);
          await job?.promote();
        } catch {
          // Not delayed yet: its worker, parking it, finds it holds its slots and promotes it. Or
          // Redis away: the job asks again when its park is over.
        }
      }),
    );
  }
}
