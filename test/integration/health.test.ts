import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedGateway, startGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

interface Check {
  check: string;
  status: string;
  detail: string;
}

async function get(url: string) {
  const response = await fetch(url);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: contentType.includes('json') ? JSON.parse(text) : undefined,
  };
}

/** The checks of a /readyz answer: in the body when ready, in the error's details when not. */
function checksOf(body: { checks?: Check[]; error?: { details?: { checks?: Check[] } } }) {
  const checks = body.checks ?? body.error?.details?.checks ?? [];
  return Object.fromEntries(checks.map((check) => [check.check, check.status]));
}

const ALL_OK = { redis: 'ok', queue: 'ok', eviction_policy: 'ok' };

describe('/healthz and /readyz on the gateway and the worker', () => {
  let system: TestSystem;
  let admin: Redis;
  /** The base URLs of both processes' health endpoints. */
  let processes: { gateway: string; worker: string };

  beforeAll(async () => {
    system = await TestSystem.start();
    const worker = await system.addWorker({ WORKER_SKILLS: 'echo' });
    const ready = worker.logs.find((line) => line.msg === 'worker ready');
    processes = { gateway: system.gateway.url, worker: `http://127.0.0.1:${ready?.metrics_port}` };
    admin = new Redis(system.redis.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => {});
  });
  afterAll(async () => {
    admin?.disconnect();
    await system?.stop();
  });

  it('answer 200 when Redis answers, takes a queue write and keeps every job', async () => {
    for (const [name, url] of Object.entries(processes)) {
      const alive = await get(`${url}/healthz`);
      expect([name, alive.status, alive.body]).toEqual([name, 200, { status: 'ok' }]);
      const ready = await get(`${url}/readyz`);
      expect([name, ready.status, ready.body.status]).toEqual([name, 200, 'ready']);
      expect(checksOf(ready.body), name).toEqual(ALL_OK);
    }
  });

  it('are not ready while Redis may evict jobs (maxmemory-policy allkeys-lru), and ready again after', async () => {
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      for (const [name, url] of Object.entries(processes)) {
        const answer = await get(`${url}/readyz`);
        expect([name, answer.status]).toEqual([name, 503]);
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', recoverable: true });
        expect(answer.body.error.message).toMatch(/eviction_policy.*allkeys-lru/);
        expect(checksOf(answer.body), name).toEqual({ ...ALL_OK, eviction_policy: 'failed' });
        expect((await get(`${url}/healthz`)).status).toBe(200);
      }
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
    }
    for (const url of Object.values(processes)) expect((await get(`${url}/readyz`)).status).toBe(200);
  });

  it('call the eviction policy unknown but stay ready where CONFIG is not allowed (a managed Redis)', async () => {
    const password = 'probe-secret-4b7e91';
    await admin.acl('SETUSER', 'no_config', 'on', `>${password}`, '~*', '&*', '+@all', '-config');
    const url = new URL(system.redis.url);
    url.username = 'no_config';
    url.password = password;
    let gateway: StartedGateway | undefined;
    try {
      gateway = await startGateway({ REDIS_URL: url.toString() });
      const readyz = `${gateway.url}/readyz`;
      // Not ready until its connection is up, which may come a moment after it listens.
      await expect.poll(async () => (await get(readyz)).status, { timeout: 15_000 }).toBe(200);
      const answer = await get(readyz);
      expect(checksOf(answer.body)).toEqual({ ...ALL_OK, eviction_policy: 'unknown' });
      expect(answer.text).toMatch(/CONFIG is not available/);
      expect(answer.text).not.toContain(password);
    } finally {
      await gateway?.process.stop();
    }
  });

  it('are not ready while Redis is down, still alive, and ready again once it is back', async () => {
    await system.redis.stop();
    try {
      for (const [name, url] of Object.entries(processes)) {
        const answer = await get(`${url}/readyz`);
        expect([name, answer.status]).toEqual([name, 503]);
        expect(checksOf(answer.body), name).toEqual({
          redis: 'failed',
          queue: 'failed',
          eviction_policy: 'failed',
        });
        expect(answer.text).not.toContain(system.redis.url);
        expect((await get(`${url}/healthz`)).status).toBe(200);
      }
      // A scrape does not hang on Redis: it answers, without numbers it could not read.
      const metrics = await get(`${processes.worker}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain('skillrun_executions_total');
      expect(metrics.text).not.toMatch(/^skillrun_queue_jobs\{/m);
      expect(metrics.text).toMatch(/^skillrun_workers_alive NaN$/im);
    } finally {
      await system.redis.restart();
    }
    for (const url of Object.values(processes)) {
      await expect.poll(async () => (await get(`${url}/readyz`)).status, { timeout: 15_000 }).toBe(200);
    }
    await expect
      .poll(async () => (await get(`${processes.worker}/metrics`)).text, { timeout: 15_000 })
      .toMatch(/^skillrun_workers_alive 1$/m);
  });
});
