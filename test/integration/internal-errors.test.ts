import { RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import {
  type ServiceProcess,
  type StartedGateway,
  startGateway,
  startWorker,
} from '../support/service-process';

// A fault of ours is not an outage: only what says Redis is away answers 503. The fault here is
// injected in Redis itself (an execution's record replaced by a string, so the store's read script
// fails with WRONGTYPE, as a bug in a script of ours would): 500 INTERNAL_ERROR, logged once with
// its stack and the request's id, which the answer carries. Then Redis stopped: 503, not logged.

interface ErrorAnswerBody {
  error: { code: string; message: string; details?: { request_id?: string } };
}

describe('errors: a fault of ours is 500 and logged, Redis away is 503', () => {
  let redis: RedisServerProcess;
  let gateway: StartedGateway;
  let worker: ServiceProcess;
  let client: Client;
  let broken: string;

  beforeAll(async () => {
    redis = await RedisServerProcess.start();
    worker = await startWorker({ REDIS_URL: redis.url, WORKER_SKILLS: 'echo' });
    gateway = await startGateway({ REDIS_URL: redis.url });
    client = new Client(gateway.url);
    const { final } = await client.run('echo', { text: 'then broken' });
    broken = String(final.execution_id);
    // The record becomes a string: every read of it is refused by Redis as the wrong type.
    const key = `{skillrun}:exec:${broken}`;
    const admin = new Redis(redis.url);
    try {
      expect(await admin.type(key)).toBe('hash');
      await admin.set(key, 'not a record');
    } finally {
      admin.disconnect();
    }
  });

  afterAll(async () => {
    await Promise.all([gateway?.process.stop(), worker?.stop()]);
    await redis?.stop();
  });

  const unhandled = () => gateway.process.logs.filter((line) => line.msg === 'unhandled error');

  it("answers 500 INTERNAL_ERROR with the caller's request id, logged once with the stack", async () => {
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/status/${broken}`, {
      headers: { 'x-request-id': 'fault-1' },
    });
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatchObject({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred',
      details: { request_id: 'fault-1' },
    });
    expect(answer.headers.get('x-request-id')).toBe('fault-1');
    expect(JSON.stringify(answer.body)).not.toContain('WRONGTYPE');
    const line = await gateway.process.waitForLog((one) => one.request_id === 'fault-1');
    expect(line).toMatchObject({ level: 50, msg: 'unhandled error', path: `/skills/echo/status/${broken}` });
    expect(String((line.err as { stack?: string }).stack)).toContain('WRONGTYPE');
    expect(unhandled().filter((one) => one.request_id === 'fault-1')).toHaveLength(1);
  });

  it('makes a request id when the caller sent none (or one that is not a short token)', async () => {
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/result/${broken}`, {
      headers: { 'x-request-id': 'not a token\tat all' },
    });
    expect(answer.status).toBe(500);
    const id = answer.body.error.details?.request_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-request-id')).toBe(id);
    await gateway.process.waitForLog((one) => one.request_id === id);
  });

  it('answers 503 with Retry-After once Redis is stopped, and logs no fault for it', async () => {
    const before = unhandled().length;
    await redis.stop();
    const answer = await client.request<ErrorAnswerBody>(`/skills/echo/status/${broken}`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const invoked = await client.invoke('echo', { text: 'Redis away' });
    expect(invoked.status).toBe(503);
    expect(unhandled()).toHaveLength(before);
  });
});
