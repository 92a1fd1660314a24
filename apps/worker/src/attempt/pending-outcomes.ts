import { type TransitionCall, type TransitionResult, untilRedisAnswers } from '@skillrun/core/data';

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
 *
 * Sent again while Redis is away, as the job's end is (QueueConsumer.persist): across a failover
 * the job's end may land on the promoted master while the outcome's first send died with the old
 * one, and a job ended without its outcome leaves its record unended for ever (the fault loop's
 * cluster run 15 of 2026-12-06: "Too many Cluster redirections", the job completed, the record
 * `accepted`). A send that was applied before its reply was lost finds the record ended: refused,
 * which changes nothing.
 */
export class PendingOutcomes {
  private readonly pending = new Map<string, Pending>();

  /** `retryDelayMs`: how long to wait before sending again while Redis is away. */
  constructor(
    private readonly send: (call: TransitionCall) => Promise<TransitionResult>,
    private readonly retryDelayMs: number,
  ) {}

  /** `call` is written as job `jobId` ends; answers what it did. */
  attach(jobId: string, call: TransitionCall): Promise<TransitionResult> {
    return new Promise((resolve, reject) => {
      const earlier = this.pending.get(jobId);
      this.pending.set(jobId, { call, resolve, reject });
      if (earlier) void this.sendNow(earlier);
    });
  }

  /**
   * Writes the outcome attached to job `jobId`, if there is one, until Redis has it; whoever attached
   * it hears how it went. Resolves once it is written or refused for a reason other than Redis away.
   */
  async write(jobId: string): Promise<void> {
    const pending = this.pending.get(jobId);
    if (!pending) return;
    this.pending.delete(jobId);
    await this.sendNow(pending);
  }

  private sendNow({ call, resolve, reject }: Pending): Promise<void> {
    return untilRedisAnswers(() => this.send(call), this.retryDelayMs).then(resolve, reject);
  }
}
