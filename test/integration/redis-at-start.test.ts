import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, RedisServerProcess } from '@skillrun/redis-server';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { fixtureSkills, type LogLine, ServiceProcess } from '../support/service-process';

// Processes whose REDIS_URL names a Redis that does not answer yet: each starts all the same,
// alive and saying it is not ready because of Redis, says so in a line at a slow pace (no error
// per reconnect attempt), and serves as soon as a redis-server starts there. The URL carries a
// password, which no line may show.

const PASSWORD = 'not-in-any-log-3f9a';
/** The pace the waiting line may keep at most: one line per this much waiting, plus the first. */
const SLOWEST_REPEAT_MS = 10_000;
/** Several of the connections' reconnect attempts (2 s apart at most) are made meanwhile. */
const OBSERVED_MS = 6000;

const isWaiting = (line: LogLine) => /^waiting for Redis at /.test(String(line.msg));
const waitingLine = (address: string) => `waiting for Redis at ${address}, set REDIS_URL if it is elsewhere`;

describe('when Redis does not answer at start', () => {
  const started: ServiceProcess[] = [];
  let redis: RedisServerProcess | undefined;

  afterEach(async () => {
    await Promise.all(started.splice(0).map((process) => process.stop()));
    await redis?.stop();
    redis = undefined;
  });

  /** A Redis address where nothing listens yet, with a password in its URL. */
  async function nowhere(): Promise<{ port: number; url: string }> {
    const port = await freePort();
    return { port, url: `redis://:${PASSWORD}@127.0.0.1:${port}` };
  }

  function spawn(app: 'gateway' | 'worker' | 'standalone', env: Record<string, string>): ServiceProcess {
    const process = ServiceProcess.spawn(app, env);
    started.push(process);
    return process;
  }

  /** Alive (/healthz 200) and not ready because of Redis (/readyz 503, naming it). */
  async function expectAliveNotReady(base: string): Promise<void> {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    const { error } = (await ready.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toMatch(/\bredis \(/);
  }

  /** One waiting line, then at most one per SLOWEST_REPEAT_MS; no unhandled error, no password. */
  function expectQuietWait(process: ServiceProcess, address: string): void {
    const waiting = process.logs.filter(isWaiting);
    expect(waiting[0]).toMatchObject({ redis: address, level: 40 });
    expect(waiting[0]?.msg).toBe(waitingLine(address));
    const first = Date.parse(String(waiting[0]?.time));
    expect(waiting.length).toBeLessThanOrEqual(1 + Math.floor((Date.now() - first) / SLOWEST_REPEAT_MS));
    expect(process.logs.filter((line) => line.msg === 'queue error')).toEqual([]);
    expect(process.stderr).not.toMatch(/Unhandled error event/);
  }

  function expectNoPassword(process: ServiceProcess): void {
    expect(JSON.stringify(process.logs)).not.toContain(PASSWORD);
    expect(process.stderr).not.toContain(PASSWORD);
  }

  it('gateway and worker start, wait saying so, and serve an invocation once Redis answers', async () => {
    const { port, url } = await nowhere();
    const address = `redis://:***@127.0.0.1:${port}`;
    const [gatewayPort, metricsPort] = [await freePort(), await freePort()];
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const metricsUrl = `http://127.0.0.1:${metricsPort}`;
    const gateway = spawn('gateway', {
      REDIS_URL: url,
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: gatewayUrl,
    });
    const worker = spawn('worker', {
      REDIS_URL: url,
      SKILLS_DIR: fixtureSkills,
      WORKER_SKILLS: 'echo',
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      HEARTBEAT_INTERVAL_MS: '500',
    });
    for (const process of [gateway, worker]) {
      await process.waitForLog((line) => line.msg === `using Redis at ${address}`, 50_000);
      await process.waitForLog(isWaiting, 50_000);
    }
    await gateway.waitForLog((line) => line.msg === 'gateway listening');
    await expectAliveNotReady(gatewayUrl);
    await expect.poll(async () => (await fetch(`${metricsUrl}/healthz`).catch(() => null))?.status).toBe(200);
    await expectAliveNotReady(metricsUrl);
    // The pace of the waiting line shows only as time passes.
    await delay(OBSERVED_MS);
    for (const process of [gateway, worker]) expectQuietWait(process, address);

    redis = await RedisServerProcess.start({ port, password: PASSWORD });
    await worker.waitForLog((line) => line.msg === 'worker ready', 50_000);
    const client = new Client(gatewayUrl);
    await expect.poll(async () => (await client.request('/readyz')).status).toBe(200);
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(200);
    const run = await client.run('echo', { text: 'after the wait' });
    expect(run.final).toMatchObject({ status: 'completed', output: { text: 'after the wait' } });
    await gateway.waitForLog((line) => line.msg === `Redis answers at ${address}`);
    for (const process of [gateway, worker]) expectNoPassword(process);
  });

  it('the all-in-one service (npm start) starts too, and serves once Redis answers', async () => {
    const { port, url } = await nowhere();
    const address = `redis://:***@127.0.0.1:${port}`;
    const servicePort = await freePort();
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    // Its data folder (the local admin key) a temporary one, not the repository's .data.
    const dataDir = await mkdtemp(join(tmpdir(), 'skillrun-redis-at-start-'));
    const service = spawn('standalone', {
      SKILLRUN_DATA_DIR: dataDir,
      REDIS_URL: url,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: serviceUrl,
    });
    await service.waitForLog((line) => line.msg === 'gateway listening', 50_000);
    await service.waitForLog((line) => line.msg === waitingLine(address));
    await expectAliveNotReady(serviceUrl);

    redis = await RedisServerProcess.start({ port, password: PASSWORD });
    await service.waitForLog((line) => line.msg === 'worker ready', 90_000);
    const client = new Client(serviceUrl);
    await expect.poll(async () => (await client.request('/readyz')).status).toBe(200);
    const run = await client.run('text_stats', { text: 'One fish. Two fish!' });
    expect(run.final).toMatchObject({ status: 'completed', output: { words: 4, sentences: 2 } });
    expect(service.stderr).not.toMatch(/Unhandled error event/);
    expectNoPassword(service);
  });
});
