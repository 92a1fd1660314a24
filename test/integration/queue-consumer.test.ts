import { readFileSync } from 'node:fs';
import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type JobHandler, QueueConsumer } from '../../apps/worker/src/consumers/queue-consumer';
import { ExecutionSlots } from '../../apps/worker/src/flow/execution-slots';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// The worker consumes its queues by BullMQ's manual processing, with parts of BullMQ 6's public API
// whose answers are loosely typed (the backend's moveToActive and waitForJob, the next job a job's
// end answers): BullMQ is pinned, and this is what the worker relies on, against real Redis.

const PREFIX = '{consumer-test}';
const bullmq = JSON.parse(
  readFileSync(new URL('../../node_modules/bullmq/package.json', import.meta.url), 'utf8'),
);

describe('queues consumed under one bound of slots', () => {
  let redis: TestRedis;
  let connection: Redis;
  let consumers: QueueConsumer[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    await Promise.all(consumers.map((consumer) => consumer.close()));
    consumers = [];
  });
  afterAll(async () => {
    connection?.disconnect();
    await redis?.stop();
  });

  function consume(
    queue: string,
    slots: ExecutionSlots,
    handler: JobHandler,
    settle: (job: Job) => Promise<void> = async () => {},
    drainDelay?: number,
  ): QueueConsumer {
    const consumer = new QueueConsumer({
      queue,
      lane: 'normal',
      slots,
      handler,
      settle,
      settleAgain: async () => {},
      unsettle: () => {},
      givenUp: () => {},
      worker: { connection, prefix: PREFIX, lockDuration: 30_000, ...(drainDelay ? { drainDelay } : {}) },
    });
    consumer.start();
    consumers.push(consumer);
    return consumer;
  }

  it('is BullMQ 6.7.0, the version whose answers the consumer reads', () => {
    expect(bullmq.version).toBe('6.7.0');
  });

  it('runs the jobs of many queues, never more than the slots at once, and locks none it does not run', async () => {
    const slots = new ExecutionSlots(2);
    const names = ['q1', 'q2', 'q3', 'q4'];
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const name of names) {
      consume(name, slots, async () => {
        running++;
        most = Math.max(most, running);
        await gate;
        running--;
      });
    }
    const queues = names.map((name) => new Queue(name, { connection, prefix: PREFIX }));
    await Promise.all(
      queues.map((queue) => queue.addBulk([1, 2, 3].map((n) => ({ name: 'job', data: { n } })))),
    );
    await expect.poll(() => running).toBe(2);
    // Every other job waits unlocked in its queue, for any worker to take.
    const active = await Promise.all(queues.map((queue) => queue.getActiveCount()));
    expect(active.reduce((sum, count) => sum + count, 0)).toBe(2);
    release();
    await expect
      .poll(async () => (await Promise.all(queues.map((queue) => queue.getCompletedCount()))).join())
      .toBe('3,3,3,3');
    expect(most).toBe(2);
    await Promise.all(queues.map((queue) => queue.close()));
  });

  it('takes a delayed job when it is due, and a failed one again after its backoff', async () => {
    // Later than the marker's wait without a job (drainDelay, 5 s) would say the due time was missed.
    consume('delays', new ExecutionSlots(1), async (job) => {
      if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('fails once');
    });
    const queue = new Queue('delays', { connection, prefix: PREFIX });
    const at = Date.now();
    const later = await queue.add('later', {}, { delay: 600 });
    const flaky = await queue.add('flaky', {}, { attempts: 2, backoff: { type: 'fixed', delay: 800 } });
    const finished = async (id: string | undefined) => (await queue.getJob(String(id)))?.finishedOn ?? 0;
    await expect.poll(() => finished(later.id), { timeout: 4000 }).toBeGreaterThanOrEqual(at + 600);
    expect(await finished(later.id)).toBeLessThan(at + 3000);
    await expect.poll(() => finished(flaky.id), { timeout: 4000 }).toBeGreaterThanOrEqual(at + 800);
    expect(await finished(flaky.id)).toBeLessThan(at + 3000);
    expect((await queue.getJob(String(flaky.id)))?.attemptsMade).toBe(2);
    await queue.close();
  });

  it('takes nothing from a paused queue and keeps no slot for it, and a resume wakes it at once', async () => {
    // Only the marker BullMQ adds on resume can wake the paused queue's consumer before the test
    // ends: its look without one (drainDelay) is minutes away.
    const slots = new ExecutionSlots(1);
    const ran: string[] = [];
    const handler: JobHandler = async (job) => {
      ran.push(`${job.queueName}:${job.name}`);
    };
    consume('held', slots, handler, undefined, 300);
    consume('served', slots, handler, undefined, 300);
    const held = new Queue('held', { connection, prefix: PREFIX });
    const served = new Queue('served', { connection, prefix: PREFIX });
    await held.pause();
    await held.addBulk(['a', 'b', 'c'].map((name) => ({ name, data: {} })));
    await served.add('first', {});
    // The only slot is free for the other queue: the paused one neither took nor kept it.
    await expect.poll(() => ran).toEqual(['served:first']);
    expect(await held.getWaitingCount()).toBe(3);
    await held.resume();
    await expect.poll(() => ran.length).toBe(4);
    expect(ran.slice(1).sort()).toEqual(['held:a', 'held:b', 'held:c']);
    await Promise.all([held.close(), served.close()]);
  });

  it('settles each job once as it ends, in a command Redis runs while the job is still active', async () => {
    // The worker writes an execution's outcome this way: sent on the consumer's connection just
    // before BullMQ's end of the job, not awaited in between, so Redis runs it first.
    const activeKey = `${PREFIX}:settles:active`;
    const seen: Record<string, string[]> = {};
    consume(
      'settles',
      new ExecutionSlots(2),
      async (job) => {
        if (job.name === 'fails') throw new Error('fails for good');
        return 'done';
      },
      async (job) => {
        const id = String(job.id);
        seen[id] = [...(seen[id] ?? []), ...(await connection.lrange(activeKey, 0, -1))];
      },
    );
    const queue = new Queue('settles', { connection, prefix: PREFIX });
    const jobs = await queue.addBulk([
      ...[1, 2, 3, 4].map((n) => ({ name: 'ok', data: { n } })),
      { name: 'fails', data: {} },
    ]);
    await expect.poll(async () => (await queue.getCompletedCount()) + (await queue.getFailedCount())).toBe(5);
    for (const job of jobs) {
      // Each settle's read found its own job active: it ran before the job's end.
      expect(seen[String(job.id)]).toContain(String(job.id));
    }
    expect(Object.keys(seen)).toHaveLength(5);
    await queue.close();
  });
});
