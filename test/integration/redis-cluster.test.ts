import { join } from 'node:path';
import type { RedisCluster } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSkills, repoRoot, startWorker } from '../support/service-process';
import { TestSystem } from '../support/system';

describe('Redis Cluster', () => {
  // One node that owns every slot: the cluster protocol (MOVED, CLUSTER SLOTS) on one process.
  let system: TestSystem<RedisCluster>;

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({}, { masters: 1 });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('runs executions, failures and skills that use Redis, through a gateway and a worker on a cluster', async () => {
    await system.addWorker({
      SKILLS_DIR: `${fixtureSkills}:${join(repoRoot, 'skills')}`,
      WORKER_SKILLS: 'echo,memory_store,memory_search,thrower,sleepy',
    });
    const { client } = system;
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
  });

  it('refuses a cluster and Sentinels at once, naming both settings', async () => {
    const refused = startWorker({
      ...system.env,
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_NAME: 'm',
    });
    await expect(refused).rejects.toThrow(/REDIS_CLUSTER_NODES and REDIS_SENTINELS/);
  });
});
