import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, ServiceProcess } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// Where the processes listen: on this machine only (127.0.0.1) unless HOST, or the worker's
// METRICS_HOST, says otherwise, so that a laptop on a shared network does not serve its skills and
// metrics to its neighbours; and where they cannot, one line naming the setting to change. Started
// as `npm run start:gateway` and `start:worker` start them.

/** An address of this machine that is not loopback: how a neighbour would reach it. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5000) })).ok;
  } catch {
    return false;
  }
}

describe('where the gateway and the worker listen', () => {
  let redis: TestRedis;
  const started: ServiceProcess[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
    await redis?.stop();
  });

  async function gatewayOn(env: Record<string, string>) {
    const port = await freePort();
    const gateway = ServiceProcess.spawn('gateway', { REDIS_URL: redis.url, PORT: String(port), ...env });
    started.push(gateway);
    const listening = await gateway.waitForLog((line) => line.msg === 'gateway listening');
    return { port, listening };
  }

  async function workerOn(env: Record<string, string>) {
    const worker = ServiceProcess.spawn('worker', {
      REDIS_URL: redis.url,
      SKILLS_DIR: fixtureSkills,
      WORKER_SKILLS: 'echo',
      ...env,
    });
    started.push(worker);
    const ready = await worker.waitForLog((line) => line.msg === 'worker ready', 50_000);
    return { port: Number(ready.metrics_port), ready };
  }

  it('a gateway answers on 127.0.0.1 only by default, and its start-up line says so', async () => {
    const { port, listening } = await gatewayOn({});
    expect(listening.host).toBe('127.0.0.1');
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBe(true);
    if (outside) expect(await answers(`http://${outside}:${port}/healthz`)).toBe(false);
  });

  it('a gateway answers on every interface with HOST=0.0.0.0', async () => {
    const { port, listening } = await gatewayOn({ HOST: '0.0.0.0' });
    expect(listening.host).toBe('0.0.0.0');
    if (outside) expect(await answers(`http://${outside}:${port}/healthz`)).toBe(true);
  });

  it("a worker's /metrics answers on 127.0.0.1 only by default, and its ready line says so", async () => {
    const { port, ready } = await workerOn({});
    expect(ready.metrics_host).toBe('127.0.0.1');
    expect(await answers(`http://127.0.0.1:${port}/metrics`)).toBe(true);
    if (outside) expect(await answers(`http://${outside}:${port}/metrics`)).toBe(false);
  });

  it("a worker's /metrics answers on every interface with METRICS_HOST=0.0.0.0", async () => {
    const { port, ready } = await workerOn({ METRICS_HOST: '0.0.0.0' });
    expect(ready.metrics_host).toBe('0.0.0.0');
    if (outside) expect(await answers(`http://${outside}:${port}/metrics`)).toBe(true);
  });
});

describe('where the gateway and the worker cannot listen', () => {
  let redis: TestRedis;
  /** Another program on a port, as a second service or anything else would be. */
  let holder: Server;
  let taken: number;

  beforeAll(async () => {
    redis = await startTestRedis();
    holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    taken = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    holder?.close();
    await redis?.stop();
  });

  /** Starts the app, expects it to stop on its own, non-zero, and answers what it printed on standard error. */
  async function refusal(app: 'gateway' | 'worker', env: Record<string, string>): Promise<string> {
    const service = ServiceProcess.spawn(app, { REDIS_URL: redis.url, ...env });
    try {
      expect(await service.exitCode()).toBe(1);
    } finally {
      await service.stop();
    }
    return service.stderr.trim();
  }

  it('a gateway whose PORT is in use says so in one line naming PORT', async () => {
    expect(await refusal('gateway', { PORT: String(taken) })).toBe(
      `port ${taken} is in use: set PORT to another port`,
    );
  });

  it('a worker whose METRICS_PORT is in use says so in one line naming METRICS_PORT', async () => {
    const env = { SKILLS_DIR: fixtureSkills, WORKER_SKILLS: 'echo', METRICS_PORT: String(taken) };
    expect(await refusal('worker', env)).toBe(`port ${taken} is in use: set METRICS_PORT to another port`);
  });

  it("a gateway whose HOST is not this machine's address says so in one line naming HOST", async () => {
    // An address of documentation's own range (TEST-NET-3), which no interface here holds.
    const stderr = await refusal('gateway', { HOST: '203.0.113.254', PORT: '0' });
    expect(stderr).toMatch(/^203\.0\.113\.254 is not an address of this machine: set HOST to /);
    expect(stderr.split('\n')).toHaveLength(1);
  });
});
