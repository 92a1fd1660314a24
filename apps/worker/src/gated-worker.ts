import { type Job, type Processor, Worker, type WorkerOptions } from 'bullmq';
import type { ExecutionSlots, SlotLane, SlotWait } from './execution-slots';

/**
 * A BullMQ Worker that takes a job off its queue only while it holds one of the process's
 * execution slots (BullMQ's own `concurrency` counts per queue). The slot is taken before the job
 * is moved to active, so no job is locked while it waits; when a job ends, its slot carries on to
 * the next job of the same queue (fetched by the same script that finishes the job) unless another
 * queue is waiting for one.
 *
 * While the queue is dry (the last look found it empty), a job that ends does not look for the next
 * one, and a fetch that waited for a slot while the queue went dry does not ask Redis: BullMQ's
 * loop is waiting for the queue's marker then, which a job added sets, so a look would find nothing
 * or race that wake for the same job (some nine Redis commands for nothing, each time).
 *
 * BullMQ's main loop fetches jobs one after the other and starts the fetched ones only once it
 * stops fetching. So while this worker holds a fetched job it has not started, a fetch answers
 * "nothing" at once, without asking Redis, and the loop starts what it has: a job starts before the
 * next one is looked for, not one round trip later (the look goes on meanwhile), and a fetch never
 * waits for a slot while a fetched job waits to start (else every queue could end up holding slots
 * for jobs it cannot start, each waiting for another's).
 */
export class GatedWorker extends Worker {
  /** Lock tokens whose next fetch carries on with the slot of the job that just ended. */
  private readonly carried = new Set<string>();
  /** Jobs fetched (each holding a slot) that BullMQ's loop has not started yet. */
  private unstarted = 0;
  /** The fetch waiting for a slot, if one is. */
  private slotWait: SlotWait | undefined;
  /** The last look found the queue empty (BullMQ's own `drained`, which it keeps private). */
  private dry = false;

  constructor(
    name: string,
    processor: Processor,
    options: WorkerOptions,
    private readonly slots: ExecutionSlots,
    private readonly lane: SlotLane,
  ) {
    super(name, processor, { ...options, concurrency: slots.total });
    this.on('drained', () => {
      this.dry = true;
    });
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job> {
    const carried = this.carried.delete(token);
    // A fetch made after a wait for the marker is made while the queue is dry: it must look.
    const dryBefore = this.dry;
    if (!carried && !(await this.takeSlot())) return undefined as unknown as Job;
    let job: Job | undefined;
    try {
      const wentDry = !dryBefore && this.dry;
      job = this.closing || wentDry ? undefined : await super.moveToActive(token, name);
    } finally {
      if (!job && !carried) this.slots.release();
    }
    // A carried fetch happens inside processJob (a job moved to wait for its children fetches the
    // next one this way): that job is counted when processJob hands it on.
    if (job) this.dry = false;
    if (job && !carried) this.unstarted++;
    return job as Job;
  }

  override async processJob(
    job: Job,
    token: string,
    fetchNext: () => boolean = () => true,
  ): Promise<Job | undefined> {
    this.unstarted--;
    let next: Job | undefined;
    try {
      next = (await super.processJob(job, token, () => {
        const carry = fetchNext() && !this.dry && !this.slots.isWanted(this.lane, this);
        if (carry) this.carried.add(token);
        return carry;
      })) as Job | undefined;
      if (next) {
        this.dry = false;
        this.fetchedWhileWaiting();
      }
      return next;
    } finally {
      this.carried.delete(token);
      if (!next) this.slots.release();
    }
  }

  /** A slot for a fetch: none while this worker has a fetched job to start, else waited for. */
  private async takeSlot(): Promise<boolean> {
    if (this.unstarted > 0) return false;
    const wait = this.slots.wait(this.lane, this);
    this.slotWait = wait;
    try {
      return await wait.granted;
    } finally {
      if (this.slotWait === wait) this.slotWait = undefined;
    }
  }

  /** A finished job brought the next one: the loop must be free to start it, so the wait ends. */
  private fetchedWhileWaiting(): void {
    this.unstarted++;
    this.slotWait?.withdraw();
  }
}
