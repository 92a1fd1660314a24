import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { RedisKeys, skillQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm-server';
import { fixtureSkills, type ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const fixtures = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const SKILLS_DIR = [fixtureSkills, fixtures('composite-skills'), fixtures('cancel-skills')].join(delimiter);
const keys = new RedisKeys('{skillrun}');

describe('cancel: POST /skills/{id}/cancel/{execution_id}', () => {
  let system: TestSystem;
  let llm: FakeLlm;
  /** The second gateway: a cancel works from any gateway, whichever accepted the invocation. */
  let other: Client;
  /** Hosts gated alone, one at a time: a second gated execution waits in the queue. */
  let single: ServiceProcess;
  /** Hosts the rest, on one sandbox thread. */
  let runner: ServiceProcess;
  let redis: Redis;
  const gates: string[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm();
    system = await TestSystem.start({ SKILLS_DIR });
    other = new Client((await system.addGateway()).url);
    single = await system.addWorker({ WORKER_SKILLS: 'gated', WORKER_CONCURRENCY: '1' });
    runner = await system.addWorker({
      WORKER_SKILLS: 'sleepy,echo,spin,slow_pipeline,long_summary',
      WORKER_CONCURRENCY: '50',
      SANDBOX_THREADS: '1',
      ABORT_GRACE_MS: '200',
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'sk-test-cancel',
      LLM_MODEL: 'fake-model',
    });
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await Promise.all(gates.map((gate) => rm(gate, { force: true })));
    await system?.stop();
    await llm?.close();
  });

  const idOf = (answer: { body: Record<string, unknown> }) => String(answer.body.execution_id);
  const stoppedOn = (worker: ServiceProcess, id: string) =>
    worker.waitForLog(
      (line) => line.execution_id === id && line.msg === 'attempt stopped: the execution was canceled',
    );

  async function invoked(skillId: string, inputs: unknown): Promise<string> {
    const answer = await system.client.invoke(skillId, inputs);
    expect(answer.status).toBe(202);
    return idOf(answer);
  }

  async function runningNow(skillId: string, id: string): Promise<void> {
    await expect
      .poll(async () => (await system.client.status(skillId, id)).status, { timeout: 20_000 })
      .toBe('running');
  }

  function newGate(): string {
    const gate = join(tmpdir(), `skillrun-cancel-gate-${process.pid}-${gates.length}`);
    gates.push(gate);
    return gate;
  }

  it('takes a waiting execution off its queue: it never starts, from any gateway', async () => {
    const gate = newGate();
    const blocker = await invoked('gated', { gate });
    await runningNow('gated', blocker);
    const waiting = await invoked('gated', { gate });
    const answer = await other.cancel('gated', waiting);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      execution_id: waiting,
      status: 'canceled',
      attempts: 0,
      error: { code: 'EXECUTION_CANCELED', recoverable: false },
    });
    expect(answer.body.error?.message).toMatch(/^Canceled by /);
    // Its job is gone: nothing is left for a worker to take.
    expect(await redis.exists(keys.job(skillQueueName('gated', '1.0.0', 'normal'), waiting))).toBe(0);
    await writeFile(gate, '');
    const { final: done } = await system.client.waitForEnd('gated', blocker);
    expect(done.status).toBe('completed');
    const after = await system.client.status('gated', waiting);
    expect(after).toMatchObject({ status: 'canceled', attempts: 0 });
    expect(after.timestamps.started_at).toBeUndefined();
    expect(single.logs.some((line) => line.execution_id === waiting)).toBe(false);
  });

  it("aborts a running code skill's signal on the worker running it; the status stays canceled", async () => {
    const id = await invoked('sleepy', { ms: 600_000 });
    await runningNow('sleepy', id);
    const answer = await other.cancel('sleepy', id);
    expect(answer.body.status).toBe('canceled');
    await stoppedOn(runner, id);
    const final = await system.client.status('sleepy', id);
    expect(final).toMatchObject({ status: 'canceled', error: { code: 'EXECUTION_CANCELED' } });
    expect(final.output).toBeUndefined();
  });

  it('ends the thread of a skill that ignores its signal, after the grace, and the worker goes on', async () => {
    const id = await invoked('spin', {});
    // Its progress says it is past loading and about to spin (a cancel before would stop it cleanly).
    await expect
      .poll(async () => (await system.client.status('spin', id)).progress, { timeout: 20_000 })
      .toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await system.client.cancel('spin', id)).body.status).toBe('canceled');
    await stoppedOn(runner, id);
    const ended = await runner.waitForLog(
      (line) => line.execution_id === id && /^sandbox thread ended/.test(String(line.msg)),
    );
    expect(ended).toMatchObject({ level: 40, reason: 'EXECUTION_CANCELED' });
    // The only sandbox thread spun without end: an echo completes only on the thread replacing it.
    const { final } = await system.client.run('echo', { text: 'after the spin' });
    expect(final).toMatchObject({ status: 'completed', output: { text: 'after the spin' } });
    expect((await system.client.status('spin', id)).status).toBe('canceled');
  });

  it('aborts the HTTP call of a running llm skill', async () => {
    llm.script({ json: { summary: 'too late', words: 2 }, delayMs: 60_000 });
    const id = await invoked('long_summary', { text: 'a long story' });
    await expect.poll(() => llm.requests.length, { timeout: 20_000 }).toBe(1);
    expect((await system.client.cancel('long_summary', id)).body.status).toBe('canceled');
    await expect.poll(() => llm.aborted, { timeout: 10_000 }).toBe(1);
    await stoppedOn(runner, id);
    expect((await system.client.status('long_summary', id)).status).toBe('canceled');
  });

  it("cancels a composite's running step with it, before answering", async () => {
    const id = await invoked('slow_pipeline', { ms: 600_000, label: 'never' });
    let step: Execution['steps'] = [];
    await expect
      .poll(
        async () => {
          step = (await system.client.status('slow_pipeline', id)).steps;
          return step?.[0]?.status;
        },
        { timeout: 20_000 },
      )
      .toBe('running');
    const stepId = String(step?.[0]?.execution_id);
    const answer = await other.cancel('slow_pipeline', id);
    expect(answer.body.status).toBe('canceled');
    expect(answer.body.steps?.[0]).toMatchObject({ step: 'sleep', status: 'canceled' });
    const sleep = await system.client.status('sleepy', stepId);
    expect(sleep).toMatchObject({ status: 'canceled', error: { code: 'EXECUTION_CANCELED' } });
    expect(sleep.error?.message).toMatch(/with the composite that called it/);
    await stoppedOn(runner, stepId);
    // The composite's job ran again once its step's job ended: it found itself canceled.
    await runner.waitForLog((line) => line.execution_id === id && /already ended/.test(String(line.msg)));
    const final = await system.client.status('slow_pipeline', id);
    expect(final.status).toBe('canceled');
    expect(final.steps?.map(({ status }) => status)).toEqual(['canceled']);
  });

  it('answers 409 for an execution that ended, and changes nothing; a canceled one again; unknown ids 404', async () => {
    const { final } = await system.client.run('echo', { text: 'done' });
    const ended = await system.client.cancel('echo', final.execution_id);
    expect(ended.status).toBe(409);
    expect(ended.body.error).toMatchObject({ code: 'EXECUTION_ENDED', details: { status: 'completed' } });
    expect(await system.client.status('echo', final.execution_id)).toEqual(final);

    const id = await invoked('sleepy', { ms: 600_000 });
    const first = await system.client.cancel('sleepy', id);
    const again = await other.cancel('sleepy', id);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);

    const unknown = await system.client.cancel('echo', '6f1d2c1e-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('EXECUTION_NOT_FOUND');
    // An execution is canceled through its own skill's URL only.
    expect((await system.client.cancel('echo', id)).status).toBe(404);
  });

  /** How long fault 6's executions run, in turn (ms). */
  const RACE_RUN_MS = [0, 1, 2, 5, 50];

  it('fault 6: cancel racing completion 1,000 times: one terminal status each, never changed after', async () => {
    const total = 1000;
    const outcomes: { id: string; cancel: number }[] = [];
    let next = 0;
    const lane = async () => {
      while (next < total) {
        const n = next++;
        // Runs of 0 to 50 ms, cancels sent 0 to 3 ms after the 202: from a cancel that lands first
        // whatever the host's speed (50 ms) to one that comes after an instant run, and races
        // in between. An instant run alone could end before every cancel on a fast worker.
        const id = await invoked('sleepy', { ms: RACE_RUN_MS[n % RACE_RUN_MS.length] });
        if (n % 4 > 0) await new Promise((resolve) => setTimeout(resolve, n % 4));
        const answer = await other.cancel('sleepy', id);
        outcomes.push({ id, cancel: answer.status });
      }
    };
    await Promise.all(Array.from({ length: 20 }, lane));
    const read = () =>
      Promise.all(
        outcomes.map(async ({ id }) => (await system.client.waitForEnd('sleepy', id)).final.status),
      );
    const finals = await read();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const later = await read();
    const expected = outcomes.map(({ cancel }) =>
      cancel === 200 ? 'canceled' : cancel === 409 ? 'completed' : `HTTP ${cancel}`,
    );
    expect(finals).toEqual(expected);
    expect(later).toEqual(finals);
    const canceled = finals.filter((status) => status === 'canceled').length;
    console.log(
      `fault 6: ${total} cancels raced completion: ${canceled} canceled, ${total - canceled} completed first; none changed after`,
    );
    // Both sides of the race were exercised.
    expect(canceled).toBeGreaterThan(0);
    expect(canceled).toBeLessThan(total);
  });
});
