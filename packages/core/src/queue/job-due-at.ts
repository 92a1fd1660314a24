import type { Job } from 'bullmq';

/**
 * When a job was due to run (epoch ms): when it was added, plus the delay it was added with (a
 * delayed execution's scheduled start). A retry's backoff and a parked attempt move the job to the
 * delayed set again without changing either: what waited past this is counted from here.
 */
export function jobDueAt(job: Pick<Job, 'timestamp' | 'opts'>): number {
  return job.timestamp + (job.opts.delay ?? 0);
}
