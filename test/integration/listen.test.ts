import { networkInterfaces } from 'node:os';
import { freePort } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, ServiceProcess } from '../support/service-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// Where the processes listen: on this machine only (127.0.0.1) unless HOST, or the worker's
// METRICS_HOST, says otherwise, so that a laptop on a shared network does not serve its skills and
// metrics to its neighbours. Started as `npm run start:gateway` and `start:worker` start them.

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
