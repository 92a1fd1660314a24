/**
 * Baseline B's worker (and raw BullMQ's, baseline A): a BullMQ Worker per queue whose processor
 * does nothing, in a process of its own.
 *
 * Env: REDIS_URL, QUEUES (comma-separated), QUEUE_PREFIX, CONCURRENCY (per queue: BullMQ's own
 * meaning, where the service's WORKER_CONCURRENCY is the process's total). On SIGTERM it prints how
 * many jobs completed and failed.
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.QUEUE_PREFIX ?? '{bench}';
const concurrency = Number(process.env.CONCURRENCY ?? 4);
const connection = new Redis(url, { maxRetriesPerRequest: null });
let completed = 0;
let failed = 0;

const workers = (process.env.QUEUES ?? 'minimal').split(',').map((name) => {
  const worker = new Worker(name, async () => ({}), { connection, prefix, concurrency });
  worker.on('completed', () => completed++);
  worker.on('failed', () => failed++);
  return worker;
});
await Promise.all(workers.map((worker) => worker.waitUntilReady()));
console.log(JSON.stringify({ level: 30, msg: 'minimal worker ready', queues: workers.length, concurrency }));

process.once('SIGTERM', () => {
  void Promise.all(workers.map((worker) => worker.close())).then(() => {
    console.log(JSON.stringify({ level: 30, msg: 'minimal worker stopped', completed, failed }));
    connection.disconnect();
    process.exit(0);
  });
});
