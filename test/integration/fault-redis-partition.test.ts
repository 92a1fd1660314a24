import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServer, freePort, pingRedis, RedisServerProcess } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import {
  type ServiceProcess,
  type StartedGateway,
  startGateway,
  startWorker,
} from '../support/service-process';
import { TcpProxy } from '../support/tcp-proxy';

// A Redis master cut off by the network: everyone (the gateway, the worker, the Sentinel, the
// replica) reaches it through a proxy that, blackholed, forwards nothing either way and closes
// nothing, on the connections open and on new ones, while the replica stays reachable directly.
// The Sentinel promotes the replica; the service must follow within a few seconds.

const MASTER_NAME = 'partitioned-master';

describe('a Redis master cut off by the network', () => {
  let master: RedisServerProcess;
  let proxy: TcpProxy;
  let replica: ChildProcess | undefined;
  let replicaPort = 0;
  let sentinel: ChildProcess | undefined;
  let sentinelAsk: Redis;
  let dir: string;
  let gateway: StartedGateway;
  let worker: ServiceProcess;

  beforeAll(async () => {
    const binary = findRedisServer() ?? 'redis-server';
    dir = await mkdtemp(join(tmpdir(), 'skillrun-partition-'));
    master = await RedisServerProcess.start();
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: master.port });
    // The replica follows the master through the proxy: its address there is the master's for all.
    replicaPort = await freePort();
    // Its copy of the master's data goes to the test's folder (a replica writes one as it syncs).
    const replicaArgs = ['--port', String(replicaPort), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
    const follows = ['--replicaof', '127.0.0.1', String(proxy.port)];
    replica = spawn(
      binary,
      [...replicaArgs, '--appendonly', 'no', '--maxmemory-policy', 'noeviction', ...follows],
      { stdio: 'ignore' },
    );
    const replicaAsk = new Redis(replicaPort, '127.0.0.1', { lazyConnect: true });
    replicaAsk.on('error', () => {});
    await poll(async () => (await replicaAsk.info('replication')).includes('master_link_status:up'));
    replicaAsk.disconnect();

    const sentinelPort = await freePort();
    const config = join(dir, 'sentinel.conf');
    await writeFile(
      config,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${proxy.port} 1`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        '',
      ].join('\n'),
    );
    sentinel = spawn(binary, [config, '--sentinel'], { stdio: 'ignore' });
    await poll(() => pingRedis(`redis://127.0.0.1:${sentinelPort}`, 200));
    sentinelAsk = new Redis(sentinelPort, '127.0.0.1');
    // The Sentinel knows the replica, which it can promote.
    await poll(async () => {
      const replicas = (await sentinelAsk.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as string[][];
      return replicas.some((fields) => fields.includes(String(replicaPort)));
    });

    const env = {
      // REDIS_URL's host is never contacted: the Sentinel names the master.
      REDIS_URL: 'redis://nowhere.invalid:6379',
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_NAME: MASTER_NAME,
      RETRY_BACKOFF_MS: '100',
      HEARTBEAT_INTERVAL_MS: '500',
    };
    worker = await startWorker({ ...env, WORKER_SKILLS: 'echo' });
    gateway = await startGateway({ ...env, SKILL_CACHE_MS: '0' });
  });
  afterAll(async () => {
    await Promise.all([gateway?.process.stop(), worker?.stop()]);
    sentinelAsk?.disconnect();
    sentinel?.kill();
    replica?.kill();
    await proxy?.close();
    await master?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is left for the promoted replica within seconds, said once by each process', async () => {
    const client = new Client(gateway.url);
    await poll(async () => (await client.request('/readyz')).status === 200);
    expect((await client.run('echo', { text: 'before' })).final.status).toBe('completed');

    proxy.blackhole();
    await poll(async () => {
      const [, port] = (await sentinelAsk.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        MASTER_NAME,
      )) as string[];
      return port === String(replicaPort);
    }, 30_000);

    // From the promotion on: ready again, and an invocation runs to its end, within the bound.
    const deadline = Date.now() + 10_000;
    await poll(async () => (await client.request('/readyz')).status === 200, deadline - Date.now());
    // A 503 meanwhile says to retry shortly (the worker's lease may have lapsed with the partition).
    let executionId = '';
    await poll(async () => {
      const accepted = await client.invoke('echo', { text: 'after' });
      executionId = String(accepted.body.execution_id);
      return accepted.status === 202;
    }, deadline - Date.now());
    const { final } = await client.waitForEnd('echo', executionId, deadline - Date.now());
    expect(final).toMatchObject({ status: 'completed', output: { text: 'after' } });

    // Each process says once that it left the master: found silent, or told of the promotion first.
    const redis = `Redis at Sentinels 127.0.0.1:${sentinelAsk.options.port} (master "${MASTER_NAME}")`;
    const left = [
      `${redis} stopped answering: reconnecting`,
      `${redis} promoted 127.0.0.1:${replicaPort}: reconnecting`,
    ];
    for (const process of [gateway.process, worker]) {
      const lines = process.logs.filter((line) => left.includes(String(line.msg)));
      expect(lines).toHaveLength(1);
    }
  });
});

/** Polls until `check` holds, for at most `timeoutMs`. */
async function poll(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
