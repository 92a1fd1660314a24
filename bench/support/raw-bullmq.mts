import { randomUUID } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueRef } from './queue-depth.mjs';

/** The job a baseline adds: the invocation's body, as the minimal gateway would queue it. */
export const JOB_DATA = {
  caller: { id: 'bench', type: 'service' },
  skill_id: 'noop',
  inputs: { text: 'hello' },
};

/** What the service uses for a normal-priority invocation, less its priority and retry settings. */
export function jobOptions(): JobsOptions {
  return { jobId: randomUUID(), removeOnComplete: true, removeOnFail: true };
}

export function openQueue(redis: Redis, queue: QueueRef): Queue {
  return new Queue(queue.name, { connection: redis, prefix: queue.prefix });
}

/**
 * `adders` loops that each add one job and wait for Redis' answer before the next (as an HTTP
 * client waits for its 202), for `amount` jobs in all or until `until` (performance.now()).
 */
export async function addConcurrently(
  queue: Queue,
  options: { adders: number; amount?: number; until?: number },
): Promise<number> {
  let added = 0;
  let claimed = 0;
  const more = () =>
    options.amount !== undefined ? claimed < options.amount : performance.now() < (options.until ?? 0);
  await Promise.all(
    Array.from({ length: options.adders }, async () => {
      while (more()) {
        claimed++;
        await queue.add('invoke', JOB_DATA, jobOptions());
        added++;
      }
    }),
  );
  return added;
}

/** Fills queues quickly (addBulk), spreading `amount` jobs over them in turn. */
export async function fillQueues(queues: Queue[], amount: number): Promise<void> {
  const chunk = 1000;
  for (let start = 0; start < amount; start += chunk) {
    const size = Math.min(chunk, amount - start);
    const byQueue = new Map<Queue, { name: string; data: typeof JOB_DATA; opts: JobsOptions }[]>();
    for (let i = 0; i < size; i++) {
      const queue = queues[(start + i) % queues.length] as Queue;
      const jobs = byQueue.get(queue) ?? [];
      jobs.push({ name: 'invoke', data: JOB_DATA, opts: jobOptions() });
      byQueue.set(queue, jobs);
    }
    await Promise.all([...byQueue].map(([queue, jobs]) => queue.addBulk(jobs)));
  }
}
