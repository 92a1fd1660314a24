import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

// Delayed executions live in Redis (BullMQ's delayed set), not in any process: a worker replaced,
// or Redis killed and started again from its append-only file, while they wait, and each runs once
// when due.

const ms = (iso: string | undefined) => Date.parse(iso ?? '');

describe('fault suite: restarts while delayed executions wait', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({}, { persistent: true });
  });
  afterAll(() => system?.stop());

  const addWorker = () => system.addWorker({ WORKER_SKILLS: 'echo', WORKER_CONCURRENCY: '8' });

  /** `count` invocations of echo due `delayMs` from now, half by delay_ms and half by run_at. */
  async function delayed(prefix: string, count: number, delayMs: number): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const runAt = new Date(Date.now() + delayMs).toISOString();
    for (let n = 0; n < count; n++) {
      const context = n % 2 === 0 ? { delay_ms: delayMs } : { run_at: runAt };
      const answer = await system.client.invoke('echo', { text: `${prefix}${n}` }, { context });
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      ids.set(String(answer.body.execution_id), `${prefix}${n}`);
    }
    return ids;
  }

  /** Every execution completed, once, after it was due, by the workers given. */
  async function expectRanOnceWhenDue(ids: Map<string, string>, workers: ServiceProcess[]): Promise<void> {
    const finals: Execution[] = await system.client.waitForEnds('echo', [...ids.keys()], 60_000);
    for (const final of finals) {
      expect(final).toMatchObject({ status: 'completed', output: { text: ids.get(final.execution_id) } });
      expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(ms(final.timestamps.scheduled_for));
    }
    const completed = (id: string) => (line: { msg?: string; execution_id?: string }) =>
      line.msg === 'execution completed' && line.execution_id === id;
    for (const id of ids.keys()) {
      await expect.poll(() => workers.some((worker) => worker.logs.some(completed(id)))).toBe(true);
      expect(
        workers.flatMap((worker) => worker.logs.filter(completed(id))),
        id,
      ).toHaveLength(1);
    }
  }

  it('a worker stopped while they wait, another started: each runs once, when due, on the new one', async () => {
    const first = await addWorker();
    const ids = await delayed('worker-', 6, 4000);
    await first.stop();
    const second = await addWorker();
    await expectRanOnceWhenDue(ids, [first, second]);
    for (const id of ids.keys()) expect(first.logs.some((line) => line.execution_id === id)).toBe(false);
    await second.stop();
  });

  it('Redis killed and started again from its file while they wait: each runs once, when due', async () => {
    const worker = await addWorker();
    const ids = await delayed('redis-', 20, 4000);
    await system.redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await system.redis.restart();
    await expectRanOnceWhenDue(ids, [worker]);
  });
});
