import { type Job, type Processor, Worker, type WorkerOptions } from 'bullmq';
import type { ExecutionSlots, SlotLane } from './execution-slots';

/**
 * A BullMQ Worker that takes a job off its queue only while it holds one of the process's
 * execution slots (BullMQ's own `concurrency` counts per queue). The slot is taken before the job
 * is moved to active, so no job is locked while it waits; when a job ends, its slot carries on to
 * the next job of the same queue (fetched by the same script that finishes the job) unless another
 * queue is waiting for one.
 */
export class GatedWorker extends Worker {
  /** Lock tokens whose next fetch carries on with the slot of the job that just ended. */
  private readonly carried = new Set<string>();

  constructor(
    name: string,
    processor: Processor,
    options: WorkerOptions,
    private readonly slots: ExecutionSlots,
    private readonly lane: SlotLane,
  ) {
    super(name, processor, { ...options, concurrency: slots.total });
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    const carried = this.carried.delete(token);
    if (!carried) await this.slots.acquire(this.lane);
    let job: Job | undefined;
    try {
      job = this.closing ? undefined : await super.moveToActive(token, name);
    } finally {
      if (!job && !carried) this.slots.release();
    }
    return job as Job;
  }

  override async processJob(
    job: Job,
    token: string,
    fetchNext: () => boolean = () => true,
  ): Promise<Job | undefined> {
    let next: Job | undefined;
    try {
      next = (await super.processJob(job, token, () => {
        const carry = fetchNext() && !this.slots.isWanted(this.lane);
        if (carry) this.carried.add(token);
        return carry;
      })) as Job | undefined;
      return next;
    } finally {
      this.carried.delete(token);
      if (!next) this.slots.release();
    }
  }
}
