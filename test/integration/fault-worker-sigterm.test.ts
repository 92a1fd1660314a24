import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

// Fault suite 4: a worker SIGTERMed while busy (its slots full, more waiting in the queue), with a
// second worker alive: the short executions finish on it within its grace period, the long ones go
// back to the queue and complete on the other worker, it exits 0, and nothing is lost, stuck or run
// to completion twice.

const EXECUTIONS = 100;
const SLOTS = 20;
const GRACE_MS = 1000;

describe('fault suite: SIGTERM a busy worker', () => {
  let system: TestSystem;
  let leaving: ServiceProcess;

  beforeAll(async () => {
    system = await TestSystem.start();
    leaving = await system.addWorker({
      WORKER_SKILLS: 'sleepy',
      WORKER_CONCURRENCY: String(SLOTS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      WORKER_ID: 'leaving',
    });
  });
  afterAll(() => system?.stop());

  const statuses = (ids: string[]): Promise<Execution[]> =>
    Promise.all(ids.map((id) => system.client.status('sleepy', id)));
  const completions = (worker: ServiceProcess) =>
    worker.logs.filter((line) => line.msg === 'execution completed').map((line) => String(line.execution_id));

  it('finishes or hands back every execution; all complete once, none stuck', async () => {
    // Half end well within the grace period, half long after it.
    const accepted = await Promise.all(
      Array.from({ length: EXECUTIONS }, (_, i) =>
        system.client.invoke('sleepy', { ms: i % 2 ? 200 : 4000 }),
      ),
    );
    const ids = accepted.map((answer) => String(answer.body.execution_id));
    await expect
      .poll(async () => (await statuses(ids)).filter((execution) => execution.status === 'running').length, {
        interval: 100,
      })
      .toBe(SLOTS);
    const staying = await system.addWorker({
      WORKER_SKILLS: 'sleepy',
      WORKER_CONCURRENCY: String(EXECUTIONS),
      WORKER_ID: 'staying',
    });

    void leaving.stop('SIGTERM');
    expect(await leaving.exitCode()).toBe(0);
    const handedBack = (leaving.logs.find((line) => line.msg?.startsWith('grace period over'))
      ?.execution_ids ?? []) as string[];

    const finals = await Promise.all(
      ids.map(async (id) => (await system.client.waitForEnd('sleepy', id, 60_000)).final),
    );
    expect(finals.filter((final) => final.status !== 'completed')).toEqual([]);
    // A worker logs an execution's end just after writing it: its line may still be on the way.
    await expect.poll(() => completions(leaving).length + completions(staying).length).toBe(EXECUTIONS);
    const onLeaving = completions(leaving);
    const onStaying = completions(staying);
    // Each completed exactly once, on one worker or the other.
    expect([...onLeaving, ...onStaying].sort()).toEqual([...ids].sort());
    for (const id of handedBack) expect(onStaying).toContain(id);
    expect((await statuses(ids)).filter((execution) => execution.status === 'running')).toEqual([]);
    console.log(
      `fault 4: SIGTERM with its ${SLOTS} slots full (${EXECUTIONS} invoked): ${onLeaving.length} finished on the leaving worker ` +
        `within its ${GRACE_MS} ms grace, ${handedBack.length} handed back, ${onStaying.length} completed on the other; ` +
        `exit code 0, none lost, stuck or completed twice`,
    );
  });
});
