import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = fileURLToPath(new URL('../fixtures/queue-skills', import.meta.url));

describe('queue timeout: an execution that waits too long to start ends as a timeout without running', () => {
  let system: TestSystem;
  let worker: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    // One slot: an execution that holds it makes the next ones wait in the queue.
    worker = await system.addWorker({ WORKER_CONCURRENCY: '1' });
  });
  afterAll(() => system?.stop());

  const ranOnWorker = (id: string) =>
    worker.logs.some((line) => line.execution_id === id && line.msg === 'execution completed');

  async function occupy(ms: number): Promise<string> {
    const busy = await system.client.invoke('slow_lane', { ms }, { context: { queue_timeout_ms: 60_000 } });
    const id = String(busy.body.execution_id);
    await expect.poll(async () => (await system.client.status('slow_lane', id)).status).toBe('running');
    return id;
  }

  it("ends an execution past the skill's queue_timeout as timeout, saying it never started, even while no worker is free", async () => {
    const busy = await occupy(2500);
    const waiting = await system.client.invoke('slow_lane', { ms: 10 });
    const id = String(waiting.body.execution_id);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // The worker is still busy: reading the status is what ends it.
    const ended: Execution = await system.client.status('slow_lane', id);
    expect(ended.status).toBe('timeout');
    expect(ended.error).toMatchObject({
      code: 'EXECUTION_TIMEOUT',
      details: { never_started: true, queue_timeout_ms: 400 },
    });
    expect(ended.error?.message).toMatch(/never started/);
    expect(ended.timestamps.started_at).toBeUndefined();
    expect(ended.attempts).toBe(0);
    // Once the worker is free it takes the job and does not run it.
    await system.client.waitForEnd('slow_lane', busy);
    await expect.poll(() => worker.logs.some((line) => line.execution_id === id)).toBe(true);
    expect(ranOnWorker(id)).toBe(false);
    expect((await system.client.status('slow_lane', id)).status).toBe('timeout');
  });

  it('lets the caller set its own queue timeout (context.queue_timeout_ms): longer runs, shorter ends unrun', async () => {
    const busy = await occupy(1200);
    const patient = await system.client.invoke(
      'slow_lane',
      { ms: 10 },
      { context: { queue_timeout_ms: 30_000 } },
    );
    const hasty = await system.client.invoke('slow_lane', { ms: 10 }, { context: { queue_timeout_ms: 50 } });
    await system.client.waitForEnd('slow_lane', busy);
    const [patientEnd, hastyEnd] = await Promise.all([
      system.client.waitForEnd('slow_lane', String(patient.body.execution_id)),
      system.client.waitForEnd('slow_lane', String(hasty.body.execution_id)),
    ]);
    expect(patientEnd.final.status).toBe('completed');
    expect(hastyEnd.final.status).toBe('timeout');
    expect(hastyEnd.final.error?.message).toMatch(/never started/);
  });

  it('refuses a queue timeout that is not a positive whole number of ms', async () => {
    const answer = await system.client.invoke('slow_lane', { ms: 10 }, { context: { queue_timeout_ms: 0 } });
    expect(answer.status).toBe(400);
  });
});
