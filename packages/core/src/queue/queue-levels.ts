import type { JobType, Queue } from 'bullmq';
import type { VersionRef } from '../store/skill-registry';
import { jobDueAt } from './job-due-at';
import type { QueueRegistry } from './queue-registry';

/** BullMQ's states as the gauges show them: prioritized jobs (every low one has a priority) are waiting. */
const SHOWN_AS: Partial<Record<JobType, string>> = {
  waiting: 'waiting',
  prioritized: 'waiting',
  active: 'active',
  delayed: 'delayed',
  failed: 'failed',
  'waiting-children': 'waiting-children',
};

/**
 * The jobs in each version's queues (its normal and high queues together) by state as the
 * `skillrun_queue_jobs` gauge shows it, one map a version in the order given. What KEDA scales on:
 * every process that exports it must count alike.
 */
export async function queueJobsByState(
  queues: QueueRegistry,
  versions: VersionRef[],
): Promise<Map<string, number>[]> {
  const counts = await Promise.all(
    versions.map(({ skill, version }) =>
      Promise.all(
        queues
          .allOf(skill, version)
          .map((queue) => queue.getJobCounts(...(Object.keys(SHOWN_AS) as JobType[]))),
      ),
    ),
  );
  return counts.map((ofVersion) => {
    const byState = new Map<string, number>();
    for (const queueCounts of ofVersion) {
      for (const [state, count] of Object.entries(queueCounts)) {
        const shown = SHOWN_AS[state as JobType];
        if (shown) byState.set(shown, (byState.get(shown) ?? 0) + count);
      }
    }
    return byState;
  });
}

/**
 * How long the jobs next in line in each version's queues have waited, in seconds, in the order
 * given: the head of each queue's FIFO list and of its prioritized set (a job behind them is
 * younger, or waits behind them by priority), the oldest of them; 0 when nothing waits, so that an
 * idle queue reads 0 rather than nothing. A delayed execution has waited since it was due.
 */
export function queueHeadAges(queues: QueueRegistry, versions: VersionRef[], now: number): Promise<number[]> {
  return Promise.all(
    versions.map(async ({ skill, version }) => {
      const ages = await Promise.all(queues.allOf(skill, version).map((queue) => headAgeSeconds(queue, now)));
      return Math.max(0, ...ages);
    }),
  );
}

async function headAgeSeconds(queue: Queue, now: number): Promise<number> {
  const heads = await queue.getJobs(['wait', 'prioritized'], 0, 0, true);
  return Math.max(0, ...heads.map((job) => (job ? (now - jobDueAt(job)) / 1000 : 0)));
}
