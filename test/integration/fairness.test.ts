import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skillQueueName } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { TestSystem } from '../support/system';

const BURST = 10_000;

describe('fair share between callers', () => {
  let system: TestSystem;
  let client: Client;
  const keys: Record<string, string> = {};
  const gate = join(tmpdir(), `skillrun-fairness-gate-${process.pid}`);

  const invokeAs = (caller: string, skill: string, inputs: unknown) =>
    client.invokeAs(caller, skill, inputs, { 'x-api-key': keys[caller] ?? '' });

  beforeAll(async () => {
    system = await TestSystem.start();
    // One execution at a time: the order the queue gives is the order they run in.
    await system.addWorker({ WORKER_SKILLS: 'gated,sleepy', WORKER_CONCURRENCY: '1' });
    client = system.client;
    for (const caller of ['burst', 'single']) keys[caller] = await client.createKey(caller, ['skill:invoke']);
  });
  afterAll(async () => {
    await rm(gate, { force: true });
    await system?.stop();
  });

  it(`runs another caller's single invocation ahead of one caller's burst of ${BURST.toLocaleString('en')}`, async () => {
    // The only slot is held until every invocation below is queued.
    await invokeAs('single', 'gated', { gate });
    let sent = 0;
    const lane = async () => {
      while (sent < BURST) {
        sent++;
        await invokeAs('burst', 'sleepy', { ms: 1 });
      }
    };
    await Promise.all(Array.from({ length: 25 }, lane));
    const queue = new Queue(skillQueueName('sleepy', '1.0.0'), {
      connection: { url: system.redis.url },
      prefix: '{skillrun}',
    });
    // Alone, however busy, the burst went in the queue's order (no BullMQ priority to pay for).
    expect(await queue.getJobCounts('wait', 'prioritized')).toEqual({ wait: BURST, prioritized: 0 });
    const single = await invokeAs('single', 'sleepy', { ms: 1 });
    await writeFile(gate, '');
    await expect
      .poll(
        async () =>
          (
            await client.request<{ status: string }>(`/skills/sleepy/status/${single}`, {
              headers: { 'x-api-key': keys.single ?? '' },
            })
          ).body.status,
        { timeout: 60_000, interval: 20 },
      )
      .toBe('completed');
    const counts = await queue.getJobCounts('wait', 'prioritized', 'active');
    await queue.close();
    const left = (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.active ?? 0);
    const ranBefore = BURST - left;
    console.log(
      `fairness: the single invocation completed after ${ranBefore} of the ${BURST} queued before it (FAIR_SHARE_BURST 100); ${left} still waiting`,
    );
    // A FIFO would have run all of the burst first; the single invocation went ahead of it (what ran
    // before it is what the worker had taken, and what ran while the poll looked).
    expect(ranBefore).toBeLessThan(100);
  });
});
