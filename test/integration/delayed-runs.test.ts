import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { RedisKeys, skillQueueName } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../support/client';
import { ADMIN_HEADERS, fixtureSkills, type ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

const SKILLS_DIR = [fixtureSkills, fileURLToPath(new URL('../fixtures/queue-skills', import.meta.url))].join(
  delimiter,
);
const keys = new RedisKeys('{skillrun}');
/** The gateway's default MAX_DELAY_MS: 30 days. */
const MAX_DELAY_MS = 2_592_000_000;

const ms = (iso: string | undefined) => Date.parse(iso ?? '');

describe('delayed runs: context.delay_ms and context.run_at', () => {
  let system: TestSystem;
  let runner: ServiceProcess;
  /** Hosts slow_lane alone, one at a time: a second execution waits in its queue. */
  let single: ServiceProcess;
  let redis: Redis;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    runner = await system.addWorker({ WORKER_SKILLS: 'echo', WORKER_CONCURRENCY: '8' });
    single = await system.addWorker({ WORKER_SKILLS: 'slow_lane', WORKER_CONCURRENCY: '1' });
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  const idOf = (answer: Answer) => String(answer.body.execution_id);
  const timestampsOf = (answer: Answer) => answer.body.timestamps as Execution['timestamps'];

  async function accepted(skillId: string, inputs: unknown, context: Record<string, unknown>) {
    const answer = await system.client.invoke(skillId, inputs, { context });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return answer;
  }

  /** Whether any worker wrote a log line about the execution. */
  const seenOnWorkers = (id: string) =>
    system.workers.some((worker) => worker.logs.some((line) => line.execution_id === id));

  it('accepts now and starts when due: accepted with timestamps.scheduled_for until then, in status and history', async () => {
    const runAt = new Date(Date.now() + 3000).toISOString();
    const [delayed, timed] = await Promise.all([
      accepted('echo', { text: 'later' }, { delay_ms: 3000 }),
      accepted('echo', { text: 'at a time' }, { run_at: runAt }),
    ]);
    // Due delay_ms after its acceptance, or at run_at.
    const { created_at, scheduled_for } = timestampsOf(delayed);
    expect(ms(scheduled_for) - ms(created_at)).toBe(3000);
    expect(timestampsOf(timed).scheduled_for).toBe(runAt);

    const waiting = await system.client.status('echo', idOf(delayed));
    expect(waiting.status).toBe('accepted');
    expect(waiting.timestamps.scheduled_for).toBe(timestampsOf(delayed).scheduled_for);
    const listed = await system.client.request<{ executions: Execution[] }>('/executions?skill_id=echo', {
      headers: ADMIN_HEADERS,
    });
    expect(listed.body.executions.find((each) => each.execution_id === idOf(delayed))).toMatchObject({
      status: 'accepted',
      timestamps: { scheduled_for: timestampsOf(delayed).scheduled_for },
    });
    // The worker's queue gauges count it as delayed.
    const metrics = await (await fetch(runner.metricsUrl())).text();
    const gauge = /^skillrun_queue_jobs\{skill="echo",version="1\.0\.0",state="delayed"\} (\d+)$/m.exec(
      metrics,
    );
    expect(Number(gauge?.[1])).toBeGreaterThanOrEqual(1);

    for (const answer of [delayed, timed]) {
      const { final } = await system.client.waitForEnd('echo', idOf(answer));
      expect(final.status).toBe('completed');
      expect(final.timestamps.scheduled_for).toBe(timestampsOf(answer).scheduled_for);
      expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(ms(final.timestamps.scheduled_for));
    }
  });

  it('runs a run_at that has passed at once: due at its acceptance', async () => {
    const answer = await accepted('echo', { text: 'overdue' }, { run_at: '2020-01-01T00:00:00Z' });
    const { created_at, scheduled_for } = timestampsOf(answer);
    expect(scheduled_for).toBe(created_at);
    const { final } = await system.client.waitForEnd('echo', idOf(answer));
    expect(final).toMatchObject({ status: 'completed', output: { text: 'overdue' } });
  });

  it('refuses with 400 and the error envelope: a malformed run_at or delay_ms, both at once, beyond MAX_DELAY_MS', async () => {
    const refusals: Array<[Record<string, unknown>, string, string]> = [
      [{ run_at: 'tomorrow' }, 'INVALID_INPUT', '/context/run_at'],
      // RFC 3339 needs the offset: a local time is no instant.
      [{ run_at: '2030-01-01T10:00:00' }, 'INVALID_INPUT', '/context/run_at'],
      [{ delay_ms: -1 }, 'INVALID_INPUT', '/context/delay_ms'],
      [{ delay_ms: 1.5 }, 'INVALID_INPUT', '/context/delay_ms'],
      [
        { delay_ms: 1000, run_at: new Date(Date.now() + 1000).toISOString() },
        'INVALID_INPUT',
        '/context/run_at',
      ],
      [{ delay_ms: MAX_DELAY_MS + 1 }, 'PARAM_OUT_OF_RANGE', '/context/delay_ms'],
      [
        { run_at: new Date(Date.now() + MAX_DELAY_MS + 86_400_000).toISOString() },
        'PARAM_OUT_OF_RANGE',
        '/context/run_at',
      ],
    ];
    for (const [context, code, path] of refusals) {
      const answer = await system.client.invoke('echo', { text: 'never' }, { context });
      expect(answer.status, JSON.stringify(context)).toBe(400);
      expect(answer.body.error, JSON.stringify(context)).toMatchObject({
        code,
        recoverable: true,
        details: expect.arrayContaining([expect.objectContaining({ path })]),
      });
    }
    // The longest delay allowed is accepted.
    const longest = await accepted('echo', { text: 'in a month' }, { delay_ms: MAX_DELAY_MS });
    expect((await system.client.cancel('echo', idOf(longest))).status).toBe(200);
  });

  it('cancels a delayed execution: its job leaves the delayed set, and it never runs', async () => {
    const canceled = await accepted('echo', { text: 'canceled' }, { delay_ms: 1000 });
    const id = idOf(canceled);
    const answer = await system.client.cancel('echo', id);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('canceled');
    expect(await redis.exists(keys.job(skillQueueName('echo', '1.0.0'), id))).toBe(0);
    // One due after it runs: by then the canceled one would have been due too.
    const after = await accepted('echo', { text: 'after' }, { delay_ms: 1500 });
    expect((await system.client.waitForEnd('echo', idOf(after))).final.status).toBe('completed');
    const final = await system.client.status('echo', id);
    expect(final).toMatchObject({ status: 'canceled', attempts: 0, error: { code: 'EXECUTION_CANCELED' } });
    expect(final.timestamps.started_at).toBeUndefined();
    expect(seenOnWorkers(id)).toBe(false);
  });

  it('counts the queue timeout from when the execution is due, not from its acceptance', async () => {
    // slow_lane's queue_timeout is 400 ms: waited from acceptance, this one would time out unrun
    // (every status read below would end it).
    const patient = await accepted('slow_lane', { ms: 10 }, { delay_ms: 1200 });
    const { final: ran, seen } = await system.client.waitForEnd('slow_lane', idOf(patient));
    expect(seen[0]).toBe('accepted');
    expect(ran.status).toBe('completed');

    // Due while the one slot is busy, it waits past its queue timeout from then: a timeout that
    // counts its wait from when it was due.
    const busy = await accepted('slow_lane', { ms: 2500 }, { queue_timeout_ms: 60_000 });
    await expect
      .poll(async () => (await system.client.status('slow_lane', idOf(busy))).status)
      .toBe('running');
    const hasty = await accepted('slow_lane', { ms: 10 }, { delay_ms: 600, queue_timeout_ms: 300 });
    const { final } = await system.client.waitForEnd('slow_lane', idOf(hasty));
    expect(final.status).toBe('timeout');
    const details = final.error?.details as {
      never_started: boolean;
      waited_ms: number;
      queue_timeout_ms: number;
    };
    expect(details).toMatchObject({ never_started: true, queue_timeout_ms: 300 });
    expect(details.waited_ms).toBeGreaterThan(300);
    expect(details.waited_ms).toBeLessThanOrEqual(
      ms(final.timestamps.completed_at) - ms(final.timestamps.scheduled_for),
    );
    expect(final.timestamps.started_at).toBeUndefined();
    await system.client.waitForEnd('slow_lane', idOf(busy));
    expect(
      single.logs.some((line) => line.execution_id === idOf(hasty) && line.msg === 'execution completed'),
    ).toBe(false);
  });

  it('keeps Idempotency-Key: a repeat answers the same delayed execution and starts nothing', async () => {
    const key = `delayed-${Date.now()}`;
    const body = { context: { delay_ms: 1000 } };
    const first = await system.client.invoke('echo', { text: 'once' }, body, { 'idempotency-key': key });
    const again = await system.client.invoke('echo', { text: 'once' }, body, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(idOf(again)).toBe(idOf(first));
    expect(timestampsOf(again).scheduled_for).toBe(timestampsOf(first).scheduled_for);
    expect((await system.client.waitForEnd('echo', idOf(first))).final.status).toBe('completed');
    const ranOnce = (line: { msg?: string; execution_id?: string }) =>
      line.msg === 'execution completed' && line.execution_id === idOf(first);
    await runner.waitForLog(ranOnce);
    expect(runner.logs.filter(ranOnce)).toHaveLength(1);
  });

  it('delays low and high priority executions alike: each waits, then runs', async () => {
    const [low, high] = await Promise.all([
      accepted('echo', { text: 'low' }, { delay_ms: 2000, priority: 'low' }),
      accepted('echo', { text: 'high' }, { delay_ms: 2000, priority: 'high' }),
    ]);
    expect(await redis.exists(keys.job(skillQueueName('echo', '1.0.0', 'high'), idOf(high)))).toBe(1);
    for (const answer of [low, high]) {
      expect((await system.client.status('echo', idOf(answer))).status).toBe('accepted');
    }
    for (const [answer, priority] of [
      [low, 'low'],
      [high, 'high'],
    ] as const) {
      const { final } = await system.client.waitForEnd('echo', idOf(answer));
      expect(final).toMatchObject({ status: 'completed', priority, output: { text: priority } });
      expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(ms(final.timestamps.scheduled_for));
    }
  });
});
