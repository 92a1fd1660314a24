/**
 * End-to-end throughput of the service against raw BullMQ on the same machine and Redis, measured
 * in the same run: prints jobs per second for both and their ratio. Run with `npm run bench`.
 *
 * - baseline: one process adds JOBS no-op jobs to a BullMQ queue and a BullMQ worker (same
 *   concurrency) completes them.
 * - skillrun: CLIENTS concurrent HTTP clients invoke the `echo` fixture skill JOBS times through a
 *   gateway process; a worker process runs each in its thread sandbox; we wait until the skill's
 *   queue is empty (jobs leave it once their outcome is recorded), then check every execution's
 *   status once over HTTP, outside the timed part.
 */

import { RedisServerProcess } from '@skillrun/redis-server';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Client } from '../test/support/client';
import { startGateway, startWorker } from '../test/support/service-process';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function baseline(url: string): Promise<number> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue('bench-baseline', { connection });
  const events = new QueueEvents('bench-baseline', { connection: { url } });
  await events.waitUntilReady();
  let done = 0;
  const finished = new Promise<void>((resolve) => {
    events.on('completed', () => {
      if (++done === JOBS) resolve();
    });
  });
  const worker = new Worker('bench-baseline', async (job) => job.data, {
    connection,
    concurrency: CONCURRENCY,
  });
  const started = performance.now();
  await runConcurrently(JOBS, CLIENTS, (i) =>
    queue.add('job', { text: `hello ${i}` }, { removeOnComplete: true, removeOnFail: true }),
  );
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all([worker.close(), queue.close(), events.close()]);
  connection.disconnect();
  return JOBS / seconds;
}

async function skillrun(url: string): Promise<{ perSecond: number; invokeP50: number; invokeP99: number }> {
  const env = { REDIS_URL: url, WORKER_CONCURRENCY: String(CONCURRENCY) };
  const gateway = await startGateway(env);
  const worker = await startWorker({ ...env, WORKER_SKILLS: 'echo' });
  const client = new Client(gateway.url);
  await client.run('echo', { text: 'warm-up' });
  const ids: string[] = [];
  const latencies: number[] = [];
  const started = performance.now();
  await runConcurrently(JOBS, CLIENTS, async (i) => {
    const sent = performance.now();
    const answer = await client.invoke('echo', { text: `hello ${i}` });
    latencies.push(performance.now() - sent);
    if (answer.status !== 202) throw new Error(`invoke answered ${answer.status}`);
    ids.push(String(answer.body.execution_id));
  });
  await queueDrained(url, 'skill.echo');
  const seconds = (performance.now() - started) / 1000;
  await runConcurrently(ids.length, CLIENTS, async (i) => {
    const execution = await client.status('echo', ids[i] ?? '');
    if (execution.status !== 'completed') throw new Error(`${execution.execution_id} is ${execution.status}`);
  });
  await Promise.all([gateway.process.stop(), worker.stop()]);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { perSecond: JOBS / seconds, invokeP50: at(0.5), invokeP99: at(0.99) };
}

async function queueDrained(url: string, name: string): Promise<void> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix: '{skillrun}' });
  for (;;) {
    const counts = await queue.getJobCounts('wait', 'active', 'prioritized', 'delayed', 'waiting-children');
    if (Object.values(counts).every((count) => count === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await queue.close();
  connection.disconnect();
}

async function runConcurrently(count: number, width: number, task: (index: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

const redis = await RedisServerProcess.start();
try {
  console.log(`jobs=${JOBS} clients=${CLIENTS} worker concurrency=${CONCURRENCY} (Redis ${redis.url})`);
  const raw = await baseline(redis.url);
  console.log(`baseline  raw BullMQ add → no-op worker:          ${raw.toFixed(0)} jobs/s`);
  const ours = await skillrun(redis.url);
  console.log(
    `skillrun  HTTP invoke → sandboxed skill → recorded: ${ours.perSecond.toFixed(0)} jobs/s ` +
      `(invoke p50 ${ours.invokeP50.toFixed(1)} ms, p99 ${ours.invokeP99.toFixed(1)} ms)`,
  );
  console.log(`ratio     skillrun / raw BullMQ: ${(ours.perSecond / raw).toFixed(2)}`);
} finally {
  await redis.stop();
}
