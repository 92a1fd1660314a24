import { isTerminalStatus, type JobPayload } from '@skillrun/core';
import type { ExecutionStore, QueueRegistry } from '@skillrun/core/data';
import type { Job } from 'bullmq';

/**
 * Wakes a composite whose step was launched apart from it (no BullMQ child: a gated step homed on
 * another vshard than the composite's, docs/design/sharding.md slice 13). BullMQ moves a parent on
 * as its last child ends; for a step launched apart, the worker that ends it promotes the
 * composite's parked job instead. A wakeup lost (a worker gone between the two, or a step ended by
 * a gateway's cancel) costs the composite its recheck delay (CompositeRun.wait), not the step.
 */
export class StepWakeups {
  constructor(private readonly deps: { store: ExecutionStore; queues: QueueRegistry }) {}

  /** After BullMQ ended a job: its composite's job is promoted when it is a step launched apart that has ended. */
  async ended(job: Job): Promise<void> {
    const parent = (job.data as Partial<JobPayload>).parent;
    // A BullMQ child's parent is moved on by BullMQ itself.
    if (!parent || job.parentKey !== undefined) return;
    const { store, queues } = this.deps;
    // A failed attempt to be retried is no end: the composite waits on.
    if (!(await store.records.isFinal(String(job.id)))) return;
    const composite = await store.records.get(parent.execution_id);
    if (!composite || isTerminalStatus(composite.status)) return;
    const { skill_id, skill_version, priority, execution_id } = composite;
    const parked = await queues.for(skill_id, skill_version, priority, execution_id).getJob(execution_id);
    // Not delayed (it runs, or waits for BullMQ children): it looks at its steps again before it parks.
    await parked?.promote().catch(() => {});
  }
}
