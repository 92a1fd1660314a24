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
  /** Outcomes written whose job has not ended yet: sent again before its end is (`writeAgain`). */
  private readonly written = new Map<string, TransitionCall>();

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
    this.written.set(jobId, pending.call);
    await this.sendNow(pending);
  }

  /**
   * Writes job `jobId`'s outcome again (sent at once, until Redis has it), before its end is sent
   * again after a lost connection: the master the end goes to now may be one promoted over the
   * master that took the outcome and died with it, and a job ended there without its outcome would
   * leave its record unended for ever. Where the outcome is, it is refused, which changes nothing.
   * Never rejects.
   */
  async writeAgain(jobId: string): Promise<void> {
    const call = this.written.get(jobId);
    if (call) await untilRedisAnswers(() => this.send(call), this.retryDelayMs).catch(() => {});
  }

  /** Job `jobId` has ended (or was moved): its outcome is not sent again. */
  forget(jobId: string): void {
    this.written.delete(jobId);
  }

  private sendNow({ call, resolve, reject }: Pending): Promise<void> {
    return untilRedisAnswers(() => this.send(call), this.retryDelayMs).then(resolve, reject);
  }
}
