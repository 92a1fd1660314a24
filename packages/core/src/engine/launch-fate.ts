import type { Queue } from 'bullmq';
import type { ExecutionStore } from '../store/execution/execution-store';

/** What a launch that failed left: nothing, or an execution after all. */
export type Fate = 'withdrawn' | 'launched' | 'unknown';

/**
 * How long a failed launch's fate is asked for while Redis does not answer: long enough for a
 * Redis restarted from its append-only file to be back on the connection (whose reconnects are at
 * most 2 s apart). A launch Redis wrote to its file just before it went away is in the restarted
 * Redis: asked for a second only, the gateway answered 503 for it, and it ran.
 */
const SETTLE_MS = 8000;
/** Pauses between those questions; the last one repeats. */
const SETTLE_PAUSES_MS = [100, 300, 600, 1000, 2000];

/**
 * What a launch whose write failed, or whose confirmation did not come (ExecutionLauncher), left
 * behind: taken back when no worker has it, found to exist when one has.
 */
export class LaunchFate {
  constructor(private readonly store: ExecutionStore) {}

  /**
   * Takes back what a failed launch may have written, or finds that the execution exists after all.
   * Asked down the launch's own connection, so Redis answers after applying whatever of the launch
   * reached it. A job still waiting (or delayed, never taken) is removed with its record (the
   * execution never was); a job a worker holds or has held (its record past `accepted`: it retried,
   * reported progress or ended) means it runs. 'unknown' when Redis does not answer meanwhile: the launch may then still exist,
   * if it reached Redis before Redis went away.
   */
  async settle(executionId: string, queue: Queue): Promise<Fate> {
    const deadline = Date.now() + SETTLE_MS;
    for (let asked = 0; ; asked++) {
      try {
        return await this.withdraw(executionId, queue);
      } catch {
        // Redis still away or slow: ask again after a pause, while there is time.
      }
      const pause = SETTLE_PAUSES_MS[Math.min(asked, SETTLE_PAUSES_MS.length - 1)] ?? 0;
      const pauseMs = Math.min(pause, deadline - Date.now());
      if (pauseMs <= 0) return 'unknown';
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  private async withdraw(executionId: string, queue: Queue): Promise<Fate> {
    const { store } = this;
    const state = await queue.getJobState(executionId);
    if (
      state === 'waiting' ||
      state === 'prioritized' ||
      (state === 'delayed' && (await neverTaken(queue, executionId)))
    ) {
      // 0: a worker took it meanwhile. 1 removes a job that ended meanwhile too: its record says so.
      if ((await queue.remove(executionId)) === 0) return 'launched';
    } else if (state !== 'unknown') {
      return 'launched';
    }
    // Gone or removed: it ran if its record moved on (a worker writes that before BullMQ ends the job).
    if (await store.records.hasStarted(executionId)) return 'launched';
    await store.records.discard(executionId);
    return 'withdrawn';
  }
}

/** Whether a delayed job is one that no worker has taken yet (not a retry waiting out its backoff). */
async function neverTaken(queue: Queue, executionId: string): Promise<boolean> {
  const job = await queue.getJob(executionId);
  return job !== undefined && job.attemptsStarted === 0;
}
