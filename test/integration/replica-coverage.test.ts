import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicaCoverage } from '@skillrun/core/data';
import { freePort, RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../support/fault-harness/poll';
import { LoopbackSentinel } from '../support/loopback-sentinel';
import { RedisReplica } from '../support/redis-replica';
import { startGateway } from '../support/service-process';

// ACK_REPLICAS's promise with Sentinels: a confirmed write is on whichever replica they promote only
// when it is confirmed on every replica they know (WAIT counts replicas, not which ones). A master
// with two replicas: 1 does not hold it, 2 does, 3 can confirm nothing.

const NAME = 'coverage';

describe('ReplicaCoverage: ACK_REPLICAS against the replicas the Sentinels know', () => {
  let master: RedisServerProcess;
  let replicas: RedisReplica[];
  let sentinel: LoopbackSentinel;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-coverage-'));
    master = await RedisServerProcess.start({});
    const masterPort = Number(new URL(master.url).port);
    replicas = [await RedisReplica.start(masterPort, dir), await RedisReplica.start(masterPort, dir)];
    sentinel = await LoopbackSentinel.start(NAME, { host: '127.0.0.1', port: masterPort }, dir);
    // The Sentinel learns the replicas from the master's INFO (at once, then every 10 s).
    const asked = new Redis(sentinel.port, '127.0.0.1');
    try {
      await poll(
        async () => ((await asked.call('SENTINEL', 'REPLICAS', NAME)) as unknown[]).length === 2,
        30_000,
      );
    } finally {
      asked.disconnect();
    }
  }, 60_000);
  afterAll(async () => {
    sentinel?.stop();
    for (const replica of replicas ?? []) await replica.stop();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const coverage = (required: number, ports: number[] = [sentinel.port]) =>
    new ReplicaCoverage({
      sentinels: { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), name: NAME },
      replicas: required,
      timeoutMs: 500,
    }).check();

  it('fails with fewer than the replicas, saying what to set', async () => {
    const { status, detail } = await coverage(1);
    expect(status).toBe('failed');
    expect(detail).toMatch(/know 2 replicas, 2 of which they may promote.*set ACK_REPLICAS=2/);
  });

  it('holds with every replica', async () => {
    expect(await coverage(2)).toMatchObject({ status: 'ok' });
  });

  it('fails with more than the replicas: nothing can be confirmed', async () => {
    expect(await coverage(3)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/no write can be confirmed/),
    });
  });

  it('answers from whichever Sentinel answers; unknown when none does', async () => {
    const away = await freePort();
    expect(await coverage(2, [away, sentinel.port])).toMatchObject({ status: 'ok' });
    expect(await coverage(2, [away])).toMatchObject({ status: 'unknown' });
  });

  it('a gateway whose ACK_REPLICAS is below them says so, and is not ready', async () => {
    const { url, process: gateway } = await startGateway({
      REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
      REDIS_SENTINEL_NAME: NAME,
      ACK_REPLICAS: '1',
    });
    try {
      const warned = await gateway.waitForLog(
        (line) => line.msg === 'ACK_REPLICAS does not make a 202 survive every failover',
      );
      expect(String(warned.detail)).toMatch(/set ACK_REPLICAS=2/);
      const answer = await fetch(`${url}/readyz`);
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as { error: { message: string } };
      expect(error.message).toMatch(/replicas \(ACK_REPLICAS=1;/);
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});
