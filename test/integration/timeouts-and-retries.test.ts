import { randomUUID } from 'node:crypto';
import type { JobPayload } from '@skillrun/core';
import { ExecutionStore, RedisKeys, skillJobOptions, skillQueueName } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSystem } from '../support/system';

const elapsed = (from?: string, to?: string) => Date.parse(to ?? '') - Date.parse(from ?? '');

describe('deadlines and retries', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({ RETRY_BACKOFF_MS: '100' });
    await system.addWorker({ WORKER_CONCURRENCY: '2', ABORT_GRACE_MS: '200' });
  });
  afterAll(() => system?.stop());

  it('ends a busy-looping skill as timeout on time, with the spec error body, without holding up others', async () => {
    const { client } = system;
    const spinning = await client.invoke('busy_loop', {});
    expect(spinning.status).toBe(202);
    const spinId = String(spinning.body.execution_id);
    // While the loop spins, the same worker keeps running other executions.
    await expect
      .poll(async () => (await client.status('busy_loop', spinId)).status, { timeout: 10_000, interval: 20 })
      .toBe('running');
    const meanwhile = await client.run('echo', { text: 'still here' });
    expect(meanwhile.final.status).toBe('completed');
    // An execution that never retried keeps no attempt errors.
    expect(meanwhile.final).not.toHaveProperty('attempt_errors');

    const { final } = await client.waitForEnd('busy_loop', spinId);
    expect(final.status).toBe('timeout');
    expect(final.error).toEqual({
      code: 'EXECUTION_TIMEOUT',
      message: 'Skill execution exceeded the configured timeout of 2500ms',
      recoverable: true,
      retry: { suggested_delay_ms: 100, max_attempts: 1 },
    });
    expect(Date.parse(meanwhile.final.timestamps.completed_at ?? '')).toBeLessThan(
      Date.parse(final.timestamps.completed_at ?? ''),
    );
    expect(elapsed(final.timestamps.started_at, final.timestamps.completed_at)).toBeGreaterThanOrEqual(2500);
    expect(elapsed(final.timestamps.started_at, final.timestamps.completed_at)).toBeLessThan(10_000);

    // The thread that spun was replaced: the worker still runs everything, several at once.
    const after = await Promise.all(
      [1, 2, 3].map((n) => client.run('sleepy', { ms: 50, label: `after-${n}` })),
    );
    expect(after.map(({ final: end }) => end.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('uses the smaller of context.timeout_ms and the skill timeout, and aborts the skill signal', async () => {
    const { final } = await system.client.run('sleepy', { ms: 4000 }, { context: { timeout_ms: 300 } });
    expect(final.status).toBe('timeout');
    expect(final.error?.code).toBe('EXECUTION_TIMEOUT');
    expect(final.error?.message).toBe('Skill execution exceeded the configured timeout of 300ms');
    expect(elapsed(final.timestamps.started_at, final.timestamps.completed_at)).toBeLessThan(4000);
  });

  it('retries a failing skill with exponential backoff: retry 2 means three attempts', async () => {
    const { final } = await system.client.run('flaky', { succeed_on: 3 });
    expect(final.status).toBe('completed');
    expect(final.attempts).toBe(3);
    expect(final.max_attempts).toBe(3);
    expect(final.output).toEqual({ attempt: 3 });
    // Backoff of 100ms then 200ms (100 × 2^n) lies between the first start and the end.
    expect(elapsed(final.timestamps.started_at, final.timestamps.completed_at)).toBeGreaterThanOrEqual(300);
    // Each retried attempt's error is kept, oldest first, with when and where it failed.
    const failure = (attempt: number) => ({
      attempt,
      error: {
        code: 'TOOL_EXECUTION_FAILED',
        message: `attempt ${attempt} failed on purpose`,
        recoverable: true,
      },
      failed_at: expect.any(String),
      worker_id: expect.stringMatching(/./),
    });
    expect(final.attempt_errors).toEqual([failure(1), failure(2)]);
    const [first, second] = (final.attempt_errors ?? []).map((each) => Date.parse(each.failed_at));
    expect(first).toBeGreaterThanOrEqual(Date.parse(final.timestamps.started_at ?? ''));
    expect(second).toBeGreaterThan(first ?? 0);
    expect(second).toBeLessThanOrEqual(Date.parse(final.timestamps.completed_at ?? ''));
  });

  it('fails after the last retry with the last error, as a structured TOOL_EXECUTION_FAILED', async () => {
    const { final } = await system.client.run('flaky', { succeed_on: 9 });
    expect(final.status).toBe('failed');
    expect(final.attempts).toBe(3);
    expect(final.error).toEqual({
      code: 'TOOL_EXECUTION_FAILED',
      message: 'attempt 3 failed on purpose',
      recoverable: true,
    });
    // The last attempt's error is the execution's; the ones before it are the attempts'.
    expect(final.attempt_errors?.map((each) => [each.attempt, each.error.message])).toEqual([
      [1, 'attempt 1 failed on purpose'],
      [2, 'attempt 2 failed on purpose'],
    ]);
  });

  it('does not retry an error the skill marks as not recoverable', async () => {
    const { final } = await system.client.run('fatal', {});
    expect(final.status).toBe('failed');
    expect(final.attempts).toBe(1);
    expect(final.max_attempts).toBe(4);
    expect(final.error).toEqual({
      code: 'QUOTA_GONE',
      message: 'The account behind this skill is closed',
      recoverable: false,
      suggested_action: 'Do not retry',
    });
  });

  it('bounds a thrown message and never shows a stack trace', async () => {
    const { final } = await system.client.run('thrower', {});
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('TOOL_EXECUTION_FAILED');
    expect(final.error?.message.startsWith('disk on fire !!!')).toBe(true);
    expect(final.error?.message.length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(final)).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('re-validates on dequeue: invalid input from another producer fails at once and is not retried', async () => {
    const redis = new Redis(system.redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue(skillQueueName('flaky', '1.0.0'), { connection: redis, prefix: '{skillrun}' });
    try {
      const executionId = randomUUID();
      const store = new ExecutionStore(redis, new RedisKeys('{skillrun}'), 3600);
      const payload: JobPayload = {
        v: 1,
        execution_id: executionId,
        skill_id: 'flaky',
        skill_version: '1.0.0',
        inputs: { succeed_on: 'soon' },
        caller: { id: 'old-gateway', type: 'service' },
        trace_id: 'trace-old',
        priority: 'normal',
      };
      // Recorded by an older producer; the worker still re-validates what it dequeues.
      await store.records.create(payload, { max_attempts: 3 });
      const options = skillJobOptions({
        executionId,
        priority: 'normal',
        skill: { retry: 2 },
        retryBackoffMs: 100,
      });
      await queue.add('flaky', payload, options);
      const { final } = await system.client.waitForEnd('flaky', executionId);
      expect(final.status).toBe('failed');
      expect(final.attempts).toBe(1);
      expect(final.error?.code).toBe('INVALID_INPUT');
      expect(final.error?.details).toEqual([
        { path: '/inputs/succeed_on', message: 'must be integer (got string "soon")', code: 'INVALID_INPUT' },
      ]);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });
});
