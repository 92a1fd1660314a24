import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

describe('context.priority', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'sleepy', WORKER_CONCURRENCY: '1' });
  });
  afterAll(() => system?.stop());

  it('runs waiting executions high first, then normal, then low, first come first served within a level', async () => {
    const { client } = system;
    const blocker = await client.invoke('sleepy', { ms: 1000, label: 'blocker' });
    const blockerId = String(blocker.body.execution_id);
    await expect
      .poll(async () => (await client.status('sleepy', blockerId)).status, { timeout: 10_000, interval: 20 })
      .toBe('running');

    const queued: [string, string][] = [
      ['low', 'low-1'],
      ['normal', 'normal-1'],
      ['high', 'high-1'],
      ['low', 'low-2'],
      [undefined as unknown as string, 'default-normal-2'],
      ['high', 'high-2'],
    ];
    const ids: string[] = [];
    for (const [priority, label] of queued) {
      const context = priority ? { priority } : {};
      const answer = await client.invoke('sleepy', { ms: 10, label }, { context });
      expect(answer.status).toBe(202);
      ids.push(String(answer.body.execution_id));
    }
    const finals = await Promise.all(ids.map(async (id) => (await client.waitForEnd('sleepy', id)).final));
    const order = finals
      .sort((a, b) => Date.parse(a.timestamps.started_at ?? '') - Date.parse(b.timestamps.started_at ?? ''))
      .map((execution) => (execution.output as { label: string }).label);
    expect(order).toEqual(['high-1', 'high-2', 'normal-1', 'default-normal-2', 'low-1', 'low-2']);
    expect(finals.find((execution) => execution.execution_id === ids[0])?.priority).toBe('low');
  });
});
