import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { TestSystem } from '../support/system';

describe('when Redis goes away', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
  });
  afterAll(() => system?.stop());

  it('answers 503 within a second while Redis is down, and recovers when it is back', async () => {
    const { client } = system;
    const before = await client.run('echo', { text: 'before' });
    expect(before.final.status).toBe('completed');

    await system.redis.kill();
    for (const request of [
      () => client.invoke('echo', { text: 'during' }),
      () => client.request(`/skills/echo/status/${before.final.execution_id}`),
      () => client.request('/skills'),
      () => client.request('/readyz'),
    ]) {
      const started = performance.now();
      const answer = await request();
      const tookMs = performance.now() - started;
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', recoverable: true } });
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(tookMs).toBeLessThan(1000);
    }
    expect((await client.request('/healthz')).status).toBe(200);

    await system.redis.restart();
    // The gateway reconnects by itself, and the worker resumes consuming.
    await expect.poll(async () => (await client.request('/readyz')).status, { timeout: 15_000 }).toBe(200);
    await expect
      .poll(async () => (await client.invoke('echo', { text: 'after' })).status, {
        timeout: 15_000,
        interval: 250,
      })
      .toBe(202);
    const after = await client.run('echo', { text: 'after again' });
    expect(after.final.status).toBe('completed');
  });
});

describe('when Redis goes away under a gateway that knows the skill', () => {
  // The skill's versions come from the gateway's cache (SKILL_CACHE_MS), so the launch is the
  // invocation's first command to Redis. REDIS_TIMEOUT_MS far above what an immediate answer takes,
  // and below the eight seconds a launch's fate may be asked for.
  const REDIS_TIMEOUT_MS = 5000;
  let system: TestSystem;
  let client: Client;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    const gateway = await system.addGateway({
      REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
      SKILL_CACHE_MS: '600000',
    });
    client = new Client(gateway.url);
  });
  afterAll(() => system?.stop());

  it('answers the first invocation 503 within REDIS_TIMEOUT_MS: a launch that could not be sent has no fate to ask about', async () => {
    await expect.poll(async () => (await client.request('/readyz')).status).toBe(200);
    expect((await client.run('echo', { text: 'before' })).final.status).toBe('completed');

    await system.redis.kill();
    const started = performance.now();
    const answer = await client.invoke('echo', { text: 'while away' });
    const tookMs = performance.now() - started;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', recoverable: true } });
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(tookMs).toBeLessThan(REDIS_TIMEOUT_MS);

    await system.redis.restart();
    await expect
      .poll(async () => (await client.invoke('echo', { text: 'back' })).status, { interval: 250 })
      .toBe(202);
  });
});
