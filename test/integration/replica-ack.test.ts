import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicaAck } from '@skillrun/core/data';
import { RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisReplica } from '../support/redis-replica';

// ReplicaAck against a master and a real replica: confirmations asked together share WAITs (never
// more than one out, and one after it), and none is confirmed while the replica is paused.

describe('ReplicaAck', () => {
  let master: RedisServerProcess;
  let replica: RedisReplica;
  let dir: string;
  let connection: Redis;
  let monitor: Redis;
  const waits: string[][] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-replica-ack-'));
    master = await RedisServerProcess.start();
    replica = await RedisReplica.start(master.port, dir);
    connection = new Redis(master.url);
    monitor = await new Redis(master.url).monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^wait$/i.test(args[0] ?? '')) waits.push(args);
    });
  });

  afterAll(async () => {
    replica?.resume();
    monitor?.disconnect();
    connection?.disconnect();
    await replica?.stop();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('confirms at once without replicas required, asking Redis nothing', async () => {
    const ack = new ReplicaAck(connection, { replicas: 0, timeoutMs: 100 });
    expect(ack.required).toBe(false);
    expect(await ack.confirm()).toBe(true);
    expect(waits).toEqual([]);
  });

  it('confirms many writes with two WAITs at most: the one out, and one for all asked meanwhile', async () => {
    const ack = new ReplicaAck(connection, { replicas: 1, timeoutMs: 1000 });
    const confirmed = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        await connection.set(`written-${index}`, index);
        return ack.confirm();
      }),
    );
    expect(confirmed.every(Boolean)).toBe(true);
    // MONITOR shows a command as it runs: every WAIT has run once every confirmation is answered.
    await expect.poll(() => waits.length).toBeGreaterThan(0);
    expect(waits.length).toBeLessThanOrEqual(2);
    expect(waits[0]).toEqual(['wait', '1', '1000']);
    const onReplica = new Redis(replica.port, '127.0.0.1');
    try {
      expect(await onReplica.get('written-49')).toBe('49');
    } finally {
      onReplica.disconnect();
    }
  });

  it('confirms nothing while the replica is paused', async () => {
    const ack = new ReplicaAck(connection, { replicas: 1, timeoutMs: 200 });
    replica.pause();
    try {
      await connection.set('unconfirmed', 1);
      expect(await Promise.all([ack.confirm(), ack.confirm()])).toEqual([false, false]);
    } finally {
      replica.resume();
    }
    expect(await ack.confirm()).toBe(true);
  });
});
