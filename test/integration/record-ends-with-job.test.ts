import { RedisKeys, skillQueueName } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorRedis, type RedisMonitor } from '../support/redis-monitor';
import { TestSystem } from '../support/system';

// An execution's record says its outcome before BullMQ ends its job (a composite waiting for a
// step reads the step's record as the step's job ends), and once it says so nothing is left running:
// watched here in the order Redis runs the worker's commands (MONITOR).

const PREFIX = '{skillrun}';
const keys = new RedisKeys(PREFIX);

describe("an execution's record ends with its job", () => {
  let system: TestSystem;
  let admin: Redis;
  let monitor: RedisMonitor | undefined;
  const scripts: string[][] = [];

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo,flaky,fatal', WORKER_CONCURRENCY: '4' });
    admin = new Redis(system.redis.url);
    monitor = await monitorRedis(system.redis.url, ({ args }) => {
      if (/^eval/i.test(args[0] ?? '')) scripts.push(args);
    });
  });
  afterAll(async () => {
    monitor?.stop();
    admin?.disconnect();
    await system?.stop();
  });

  /**
   * Where, among the scripts Redis ran, the record of `id` became `status`, and where BullMQ moved
   * its job to its completed or failed set.
   */
  function order(skill: string, id: string, status: string): { recorded: number; ended: number } {
    const queue = skillQueueName(skill, '1.0.0');
    const jobKey = keys.job(queue, id);
    const finishedSet = keys.job(queue, status === 'completed' ? 'completed' : 'failed');
    return {
      recorded: scripts.findIndex((args) => args.includes(keys.execution(id)) && args.includes(status)),
      ended: scripts.findIndex((args) => args.includes(jobKey) && args.includes(finishedSet)),
    };
  }

  // Completed at once, completed after a retry, failed for good (on a machine too busy to start a
  // thread within a skill's timeout, an end may be a timeout instead: the order is the same).
  it.each([
    { skill: 'echo', inputs: { text: 'hi' } },
    { skill: 'flaky', inputs: { succeed_on: 2 } },
    { skill: 'fatal', inputs: {} },
  ])('$skill: the record says its end before the job ends, and the job ends with it', async (run) => {
    const accepted = await system.client.invoke(run.skill, run.inputs);
    const { final } = await system.client.waitForEnd(run.skill, String(accepted.body.execution_id), 60_000);
    const id = final.execution_id;
    const queue = new Queue(skillQueueName(run.skill, '1.0.0'), { connection: admin, prefix: PREFIX });
    try {
      // The job's end follows the record's in the next command: it is not left active (or waiting
      // to run again); a completed job may be removed at once (removeOnComplete).
      await expect
        .poll(() => queue.getJobState(id), { timeout: 5000, interval: 20 })
        .toMatch(/^(completed|failed|unknown)$/);
      expect(await queue.getActiveCount()).toBe(0);
      await expect.poll(() => order(run.skill, id, final.status).ended).toBeGreaterThanOrEqual(0);
      const { recorded, ended } = order(run.skill, id, final.status);
      expect(recorded).toBeGreaterThanOrEqual(0);
      expect(recorded).toBeLessThan(ended);
    } finally {
      await queue.close();
    }
  });
});
