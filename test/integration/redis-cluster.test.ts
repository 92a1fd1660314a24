import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServer, freePort, pingRedis } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import {
  fixtureSkills,
  repoRoot,
  type ServiceProcess,
  startGateway,
  startWorker,
} from '../support/service-process';

/** A Redis Cluster of one node that owns every slot: the cluster protocol (MOVED, CLUSTER SLOTS) on one process. */
async function startClusterNode(dir: string, port: number): Promise<ChildProcess> {
  // A lone node does not know its own address until another meets it: it is told.
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-announce-ip',
    '127.0.0.1',
  ];
  const node = spawn(
    findRedisServer() ?? 'redis-server',
    [...args, '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const started = Date.now();
  while (!(await pingRedis(`redis://127.0.0.1:${port}`, 200))) {
    if (Date.now() - started > 10_000) throw new Error('the cluster node did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const admin = new Redis({ port, host: '127.0.0.1' });
  try {
    await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 20_000;
    while (!String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error('the cluster did not become ok');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    admin.disconnect();
  }
  return node;
}

describe('Redis Cluster', () => {
  let dir: string;
  let node: ChildProcess | undefined;
  let worker: ServiceProcess | undefined;
  let clusterEnv: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillrun-cluster-'));
    const port = await freePort();
    node = await startClusterNode(dir, port);
    // REDIS_URL's host is never contacted: the cluster's nodes are.
    clusterEnv = { REDIS_URL: 'redis://nowhere.invalid:6379', REDIS_CLUSTER_NODES: `127.0.0.1:${port}` };
  });
  afterAll(async () => {
    await worker?.stop();
    node?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs executions, failures and skills that use Redis, through a gateway and a worker on a cluster', async () => {
    worker = await startWorker({
      ...clusterEnv,
      SKILLS_DIR: `${fixtureSkills}:${join(repoRoot, 'skills')}`,
      WORKER_SKILLS: 'echo,memory_store,memory_search,thrower,sleepy',
      HEARTBEAT_INTERVAL_MS: '500',
    });
    const gateway = await startGateway({ ...clusterEnv, SKILL_CACHE_MS: '0' });
    try {
      const client = new Client(gateway.url);
      while ((await client.request('/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 100));
      const { final } = await client.run('echo', { text: 'on a cluster' });
      expect(final).toMatchObject({ status: 'completed', output: { text: 'on a cluster' } });
      expect((await client.run('memory_store', { text: 'clustered memory' })).final.status).toBe('completed');
      const found = await client.run('memory_search', { query: 'clustered' });
      expect(JSON.stringify(found.final.output)).toContain('clustered memory');
      expect((await client.run('thrower', {})).final.status).toBe('failed');
      // A waiting GET result is woken through the cluster's pub/sub.
      const sleeping = await client.invoke('sleepy', { ms: 500 });
      const result = await client.request(`/skills/sleepy/result/${sleeping.body.execution_id}`, {
        headers: { prefer: 'wait=30' },
      });
      expect(result.body).toMatchObject({ status: 'completed', output: { slept_ms: expect.any(Number) } });
    } finally {
      await gateway.process.stop();
    }
  });

  it('refuses a cluster and Sentinels at once, naming both settings', async () => {
    const refused = startWorker({
      ...clusterEnv,
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_NAME: 'm',
    });
    await expect(refused).rejects.toThrow(/REDIS_CLUSTER_NODES and REDIS_SENTINELS/);
  });
});
