import type { Job } from 'bullmq';

/**
 * The jobs this worker is running, with their lock tokens, so that a shutdown can hand the ones it
 * cannot finish back to their queues instead of leaving them locked until the lock expires.
 */
export class RunningJobs {
  private readonly jobs = new Map<Job, string>();

  async track<T>(job: Job, token: string | undefined, run: () => Promise<T>): Promise<T> {
    if (token !== undefined) this.jobs.set(job, token);
    try {
      return await run();
    } finally {
      this.jobs.delete(job);
    }
  }

  /**
   * Moves every job still running back to waiting (its priority kept, no attempt counted), where
   * another worker takes it; answers their ids. A job whose move fails is recovered once its lock
   * expires, as after a crash.
   */
  async handBack(): Promise<string[]> {
    const running = [...this.jobs];
    this.jobs.clear();
    const moved = await Promise.all(
      running.map(([job, token]) =>
        job.moveToWait(token).then(
          () => true,
          () => false,
        ),
      ),
    );
    return running.filter((_, index) => moved[index]).map(([job]) => String(job.id));
  }
}
