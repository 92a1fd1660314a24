import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, RedisLiveness } from '@skillrun/core/data';
import { RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger } from '../support/captured-logger';
import { LoopbackSentinel } from '../support/loopback-sentinel';
import { RedisReplica } from '../support/redis-replica';

// A promotion that closes nothing: SENTINEL FAILOVER promotes the replica while the old master,
// healthy, still answers as master (the Sentinels demote it only seconds later, as they do a
// primary healed from a minority side). A watched connection must leave it when the Sentinel says so.

const NAME = 'switch-master';

describe('a Sentinels promotion that closes no connection', () => {
  let master: RedisServerProcess;
  let replica: RedisReplica;
  let sentinel: LoopbackSentinel;
  let dir: string;
  const { logger, lines } = capturedLogger();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-master-switch-'));
    master = await RedisServerProcess.start({});
    const masterPort = Number(new URL(master.url).port);
    replica = await RedisReplica.start(masterPort, dir);
    sentinel = await LoopbackSentinel.start(NAME, { host: '127.0.0.1', port: masterPort }, dir);
  });
  afterAll(async () => {
    sentinel?.stop();
    await replica?.stop();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('moves each watched connection to the promoted replica before the old master is demoted', async () => {
    const target = {
      url: 'redis://nowhere.invalid:6379',
      sentinels: { nodes: [{ host: '127.0.0.1', port: sentinel.port }], name: NAME },
    };
    const liveness = new RedisLiveness({ intervalMs: 500, target, logger });
    const connection = createRedis(target, { role: 'queue', liveness });
    const asked = new Redis(sentinel.port, '127.0.0.1');
    const oldMaster = new Redis(master.url);
    try {
      if (connection.status !== 'ready') await once(connection, 'ready');
      expect(connection.stream.remotePort).toBe(Number(new URL(master.url).port));
      // The Sentinel must know the replica, and find it fit, before it can promote it: it learns of
      // it from the master's INFO, and finds it fit only once its own INFO of the replica reads the
      // link to the master up (until then FAILOVER answers NOGOODSLAVE).
      await expect
        .poll(
          async () => {
            const replicas = (await asked.call('SENTINEL', 'REPLICAS', NAME)) as string[][];
            const field = (fields: string[], name: string) => fields[fields.indexOf(name) + 1];
            return replicas.some(
              (fields) => field(fields, 'flags') === 'slave' && field(fields, 'master-link-status') === 'ok',
            );
          },
          { timeout: 30_000 },
        )
        .toBe(true);
      await asked.call('SENTINEL', 'FAILOVER', NAME);

      await expect.poll(() => connection.stream.remotePort).toBe(replica.port);
      expect(await oldMaster.info('replication')).toContain('role:master');
      expect(await connection.set('after-the-switch', '1')).toBe('OK');
      expect(lines.filter(({ msg }) => msg.includes(`promoted 127.0.0.1:${replica.port}`))).toHaveLength(1);
    } finally {
      connection.disconnect();
      asked.disconnect();
      oldMaster.disconnect();
    }
  });
});
