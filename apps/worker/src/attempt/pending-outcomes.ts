import type { TransitionCall, TransitionResult } from '@skillrun/core/data';

interface Pending {
  call: TransitionCall;
  resolve: (result: TransitionResult) => void;
  reject: (error: Error) => void;
}

/**
 * The outcome of an attempt, held from when the attempt decides it until its job ends: `write` sends
 * it just before BullMQ is asked to end the job, so that the record says the outcome before
 * anything the job's end moves on (a composite waiting for this step reads the step's record), and
 * no record is left `running` behind an ended job.
 */
export class PendingOutcomes {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly send: (call: TransitionCall) => Promise<TransitionResult>) {}

  /** `call` is written as job `jobId` ends; answers what it did. */
  attach(jobId: string, call: TransitionCall): Promise<TransitionResult> {
    return new Promise((resolve, reject) => {
      const earlier = this.pending.get(jobId);
      this.pending.set(jobId, { call, resolve, reject });
      if (earlier) void this.sendNow(earlier);
    });
  }

  /** Writes the outcome attached to job `jobId`, if there is one; whoever attached it hears how it went. */
  async write(jobId: string): Promise<void> {
    const pending = this.pending.get(jobId);
    if (!pending) return;
    this.pending.delete(jobId);
    await this.sendNow(pending);
  }

  private sendNow({ call, resolve, reject }: Pending): Promise<void> {
    return this.send(call).then(resolve, reject);
  }
}
