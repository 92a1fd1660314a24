import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicaAck } from '@skillrun/core/data';
import { type RedisCluster, RedisServerProcess, startCluster } from '@skillrun/redis-server';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorRedis, type RedisMonitor } from '../support/redis-monitor';
import { RedisReplica } from '../support/redis-replica';
import { TcpProxy } from '../support/tcp-proxy';

// ReplicaAck against a master and a real replica: confirmations asked together share WAITs (never
// more than one out, and one after it), none is confirmed while the replica is paused, and none
// across a reconnect (a WAIT on a new connection counts none of the old one's writes).

describe('ReplicaAck', () => {
  let master: RedisServerProcess;
  let replica: RedisReplica;
  let dir: string;
  let connection: Redis;
  let monitor: RedisMonitor | undefined;
  const waits: string[][] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-replica-ack-'));
    master = await RedisServerProcess.start();
    replica = await RedisReplica.start(master.port, dir);
    connection = new Redis(master.url);
    monitor = await monitorRedis(master.url, ({ args }) => {
      if (/^wait$/i.test(args[0] ?? '')) waits.push(args);
    });
  });

  afterAll(async () => {
    replica?.resume();
    monitor?.stop();
    connection?.disconnect();
    await replica?.stop();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('confirms at once without replicas required, asking Redis nothing', async () => {
    const ack = new ReplicaAck(connection, { replicas: 0, timeoutMs: 100 });
    expect(ack.required).toBe(false);
    expect(await ack.confirm(ack.session)).toBe(true);
    expect(waits).toEqual([]);
  });

  it('confirms many writes with two WAITs at most: the one out, and one for all asked meanwhile', async () => {
    const ack = new ReplicaAck(connection, { replicas: 1, timeoutMs: 1000 });
    const confirmed = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const session = ack.session;
        await connection.set(`written-${index}`, index);
        return ack.confirm(session);
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
      const session = ack.session;
      await connection.set('unconfirmed', 1);
      expect(await Promise.all([ack.confirm(session), ack.confirm(session)])).toEqual([false, false]);
    } finally {
      replica.resume();
    }
    expect(await ack.confirm(ack.session)).toBe(true);
  });

  it('confirms nothing written before its connection closed, though the WAIT sent again on the next one is answered at once', async () => {
    // A failover seen from the connection: its address now leads to another master (with a
    // replica of its own, which has none of the first master's writes).
    const promoted = await RedisServerProcess.start();
    const promotedReplica = await RedisReplica.start(promoted.port, dir);
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: master.port });
    const own = new Redis(proxy.url);
    const admin = new Redis(master.url);
    const onPromoted = new Redis(promoted.url);
    const ack = new ReplicaAck(own, { replicas: 1, timeoutMs: 10_000 });
    try {
      // Asked now: once the WAIT is out, the connection answers nothing else until it is.
      const id = String(await own.client('ID'));
      replica.pause();
      const session = ack.session;
      await own.set('written-before-the-failover', 1);
      const confirmation = ack.confirm(session);
      // The WAIT is out (the paused replica acknowledges nothing) when the connection closes.
      await expect.poll(() => waits.some((args) => args[2] === '10000')).toBe(true);
      proxy.retarget({ host: '127.0.0.1', port: promoted.port });
      await admin.client('KILL', 'ID', id);
      // ioredis sends the WAIT again, on a connection to the promoted master, whose replica
      // answers it: one replica. The write is on neither of them.
      expect(await confirmation).toBe(false);
      expect(await onPromoted.get('written-before-the-failover')).toBeNull();
      expect(await own.wait(1, 10_000)).toBe(1);
    } finally {
      replica.resume();
      own.disconnect();
      admin.disconnect();
      onPromoted.disconnect();
      await proxy.close();
      await promotedReplica.stop();
      await promoted.stop();
    }
  });

  it("confirms no read made before its connection closed: the probe's WAIT on the promoted master covers none of it", async () => {
    const promoted = await RedisServerProcess.start();
    const promotedReplica = await RedisReplica.start(promoted.port, dir);
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: master.port });
    const own = new Redis(proxy.url);
    const admin = new Redis(master.url);
    const ack = new ReplicaAck(own, { replicas: 1, timeoutMs: 2000, probeKeys: ['read-probe'] });
    try {
      const id = String(await own.client('ID'));
      // A reader's session, then its read on the process's other connection: a status the master
      // has and (as a worker writes it, without waiting) its replica may not have yet.
      const session = ack.session;
      await connection.set('read-before-the-failover', 'completed');
      expect(await connection.get('read-before-the-failover')).toBe('completed');
      // The master is lost before the probe: the writes' connection now leads to the promoted one.
      proxy.retarget({ host: '127.0.0.1', port: promoted.port });
      await admin.client('KILL', 'ID', id);
      await expect.poll(() => ack.session).toBeGreaterThan(session);
      expect(await ack.confirmRead(session)).toBe(false);
      // A session taken after the failover would confirm it there (the promoted master's replica
      // answers the probe), though the promoted master never had what was read.
      expect(await ack.confirmRead(ack.session)).toBe(true);
      expect(await own.get('read-before-the-failover')).toBeNull();
    } finally {
      own.disconnect();
      admin.disconnect();
      await proxy.close();
      await promotedReplica.stop();
      await promoted.stop();
    }
  });
});

describe('ReplicaAck on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  /** A key on each master. */
  const keys: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ masters: 3, replicas: 1 });
    client = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]?.port as number }]);
    for (const master of cluster.nodes.filter((node) => node.role === 'master')) {
      for (let tag = 0; keys.length < 3; tag++) {
        const key = `{probe:${tag}}:written`;
        if ((await cluster.masterOf(key)).port === master.port) {
          keys.push(key);
          break;
        }
      }
    }
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  /** The process id of the replica of the master of `key`. */
  const replicaPidOf = async (key: string): Promise<number> => {
    const master = await cluster.masterOf(key);
    for (const node of cluster.nodes.filter((one) => one.role === 'replica')) {
      const asked = new Redis(node.url);
      try {
        if ((await asked.info('replication')).includes(`master_port:${master.port}`)) {
          return Number(/process_id:(\d+)/.exec(await asked.info('server'))?.[1]);
        }
      } finally {
        asked.disconnect();
      }
    }
    throw new Error(`no replica of the master of ${key}`);
  };

  it('confirms writes on every master, each on its own replica; nothing while one replica is paused', async () => {
    const ack = new ReplicaAck(client as unknown as Redis, {
      replicas: 1,
      timeoutMs: 300,
      // In each written key's tag: on each master.
      probeKeys: keys.map((key) => `${key}:probe`),
    });
    const session = ack.session;
    await Promise.all(keys.map((key) => client.set(key, 'one')));
    expect(await ack.confirm(session)).toBe(true);
    expect(await ack.confirmRead(ack.session)).toBe(true);
    const key = keys[1] as string;
    const replica = await replicaPidOf(key);
    process.kill(replica, 'SIGSTOP');
    try {
      const paused = ack.session;
      await client.set(key, 'two');
      expect(await ack.confirm(paused)).toBe(false);
      expect(await ack.confirmRead(paused)).toBe(false);
    } finally {
      process.kill(replica, 'SIGCONT');
    }
    expect(await ack.confirm(ack.session)).toBe(true);
  });
});
