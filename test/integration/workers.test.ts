import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const ranBy = (worker: ServiceProcess) =>
  new Set(worker.logs.filter((line) => line.msg === 'execution completed').map((line) => line.execution_id));

describe('horizontal workers', () => {
  let system: TestSystem;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let echoOnly: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start();
    [first, second, echoOnly] = await Promise.all([
      system.addWorker({ WORKER_SKILLS: 'sleepy', WORKER_CONCURRENCY: '1', WORKER_ID: 'sleepy-a' }),
      system.addWorker({ WORKER_SKILLS: 'sleepy', WORKER_CONCURRENCY: '1', WORKER_ID: 'sleepy-b' }),
      system.addWorker({ WORKER_SKILLS: 'echo', WORKER_ID: 'echo-only' }),
    ]);
  });
  afterAll(() => system?.stop());

  it('shares one skill queue between two workers, each execution run exactly once', async () => {
    const { client } = system;
    const accepted = await Promise.all(Array.from({ length: 6 }, () => client.invoke('sleepy', { ms: 300 })));
    const ids = accepted.map((answer) => String(answer.body.execution_id));
    const finals = await Promise.all(ids.map(async (id) => (await client.waitForEnd('sleepy', id)).final));
    // Said in full so that a failure shows which execution ended how.
    expect(finals.map(({ status, attempts, error }) => ({ status, attempts, code: error?.code }))).toEqual(
      Array(6).fill({ status: 'completed', attempts: 1, code: undefined }),
    );

    // A worker logs an execution's end once Redis confirmed it: possibly after the client saw it.
    await expect.poll(() => ids.every((id) => ranBy(first).has(id) || ranBy(second).has(id))).toBe(true);
    const byFirst = ranBy(first);
    const bySecond = ranBy(second);
    expect(ids.filter((id) => byFirst.has(id)).length).toBeGreaterThan(0);
    expect(ids.filter((id) => bySecond.has(id)).length).toBeGreaterThan(0);
    expect(ids.every((id) => byFirst.has(id) !== bySecond.has(id))).toBe(true);
  });

  it('names the worker that runs an execution: in its status while it runs, after it ends, and on every log line', async () => {
    const { client } = system;
    const accepted = await client.invoke('sleepy', { ms: 1500 });
    const id = String(accepted.body.execution_id);
    await expect
      .poll(async () => (await client.status('sleepy', id)).status, { timeout: 20_000 })
      .toBe('running');
    const running = await client.status('sleepy', id);
    expect(['sleepy-a', 'sleepy-b']).toContain(running.worker_id);
    const { final } = await client.waitForEnd('sleepy', id);
    expect(final.worker_id).toBe(running.worker_id);
    const worker = running.worker_id === 'sleepy-a' ? first : second;
    await expect.poll(() => ranBy(worker).has(id)).toBe(true);
    const lines = worker.logs.filter((line) => line.execution_id === id);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.worker_id === running.worker_id)).toBe(true);
  });

  it('runs an invocation only on a worker that hosts its skill', async () => {
    const { client } = system;
    const echoes = await Promise.all([1, 2, 3].map((n) => client.run('echo', { text: `e${n}` })));
    const sleeps = await Promise.all([1, 2, 3].map(() => client.run('sleepy', { ms: 5 })));
    const echoIds = echoes.map(({ final }) => final.execution_id);
    const sleepIds = sleeps.map(({ final }) => final.execution_id);
    const logged = (id: string) => [first, second, echoOnly].some((worker) => ranBy(worker).has(id));
    await expect.poll(() => [...echoIds, ...sleepIds].every(logged)).toBe(true);
    expect(echoIds.every((id) => ranBy(echoOnly).has(id))).toBe(true);
    expect(echoIds.some((id) => ranBy(first).has(id) || ranBy(second).has(id))).toBe(false);
    expect(sleepIds.some((id) => ranBy(echoOnly).has(id))).toBe(false);
  });

  it('lists the skills of live workers, and forgets a skill when its last worker leaves', async () => {
    const { client } = system;
    const listed = await client.request<{ skills: { id: string }[] }>('/skills');
    expect(listed.body.skills.map((skill) => skill.id)).toEqual(['echo', 'sleepy']);

    await echoOnly.stop();
    expect((await client.request('/skills/echo')).status).toBe(404);
    expect((await client.invoke('echo', { text: 'anyone?' })).status).toBe(404);
    const after = await client.request<{ skills: { id: string }[] }>('/skills');
    expect(after.body.skills.map((skill) => skill.id)).toEqual(['sleepy']);
  });
});
