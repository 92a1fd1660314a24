import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

// Fault suite 1: a worker killed (SIGKILL) in the middle of 100 running executions, with a second
// worker alive: every execution completes on the survivor, none stays running.

const QUICK_RECOVERY = { JOB_LOCK_MS: '2000', STALLED_CHECK_INTERVAL_MS: '500' };
const EXECUTIONS = 100;

describe('fault suite: kill -9 a worker mid-execution', () => {
  let system: TestSystem;
  let gates: string;

  beforeAll(async () => {
    system = await TestSystem.start();
    gates = await mkdtemp(join(tmpdir(), 'skillrun-fault-1-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (gates) await rm(gates, { recursive: true, force: true });
  });

  const statuses = (ids: string[]): Promise<Execution[]> =>
    Promise.all(ids.map((id) => system.client.status('gated', id)));

  it('completes all 100 on the surviving worker, each takeover counted, none left running', async () => {
    const doomed = await system.addWorker({
      WORKER_SKILLS: 'gated',
      WORKER_CONCURRENCY: String(EXECUTIONS),
      WORKER_ID: 'doomed',
      ...QUICK_RECOVERY,
    });
    // Every execution runs until the test opens the gate: the kill finds all of them running.
    const gate = join(gates, 'gate');
    const accepted = await Promise.all(
      Array.from({ length: EXECUTIONS }, () => system.client.invoke('gated', { gate })),
    );
    const ids = accepted.map((answer) => String(answer.body.execution_id));
    await expect
      .poll(async () => (await statuses(ids)).filter((execution) => execution.status === 'running').length, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(EXECUTIONS);
    await system.addWorker({
      WORKER_SKILLS: 'gated',
      WORKER_CONCURRENCY: String(EXECUTIONS),
      WORKER_ID: 'survivor',
      ...QUICK_RECOVERY,
    });
    const killedAt = performance.now();
    await doomed.stop('SIGKILL');
    await writeFile(gate, '');

    const finals = await Promise.all(
      ids.map(async (id) => (await system.client.waitForEnd('gated', id, 60_000)).final),
    );
    const recoveredIn = (performance.now() - killedAt) / 1000;
    const byStatus = finals.reduce<Record<string, number>>((counts, { status }) => {
      counts[status] = (counts[status] ?? 0) + 1;
      return counts;
    }, {});
    console.log(
      `fault 1: ${EXECUTIONS} running when the worker was killed; ${JSON.stringify(byStatus)} ${recoveredIn.toFixed(1)} s after the kill`,
    );
    expect(byStatus).toEqual({ completed: EXECUTIONS });
    for (const final of finals) {
      expect(final.worker_id).toBe('survivor');
      // Started on the killed worker, then again on the survivor.
      expect(final.attempts).toBe(2);
    }
    const after = await statuses(ids);
    expect(after.filter((execution) => execution.status === 'running')).toEqual([]);
  });
});
