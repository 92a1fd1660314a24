import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { LoopbackSentinel } from '../support/loopback-sentinel';
import { fixtureSkills, repoRoot, ServiceProcess, startGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

const MASTER_NAME = 'skillrun-master';

describe('Redis through Sentinel', () => {
  let system: TestSystem;
  let sentinel: LoopbackSentinel | undefined;
  let sentinelPort = 0;
  let dir: string;

  beforeAll(async () => {
    system = await TestSystem.start();
    dir = await mkdtemp(join(tmpdir(), 'skillrun-sentinel-'));
    const master = new URL(system.redis.url);
    sentinel = await LoopbackSentinel.start(
      MASTER_NAME,
      { host: master.hostname, port: Number(master.port) },
      dir,
    );
    sentinelPort = sentinel.port;
  });
  afterAll(async () => {
    await system?.stop();
    sentinel?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs executions through a gateway and a worker that find their Redis through Sentinel', async () => {
    // REDIS_URL's host is never contacted: the Sentinel names the master.
    const throughSentinel = {
      REDIS_URL: 'redis://nowhere.invalid:6379',
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_NAME: MASTER_NAME,
    };
    await system.addWorker({ WORKER_SKILLS: 'echo', ...throughSentinel });
    // memory_store reaches Redis from its sandbox thread, through the Sentinel too.
    await system.addWorker({
      SKILLS_DIR: join(repoRoot, 'skills'),
      WORKER_SKILLS: 'memory_store',
      ...throughSentinel,
    });
    const gateway = await startGateway({ ...system.env, ...throughSentinel });
    try {
      const client = new Client(gateway.url);
      // As a load balancer would: traffic once the gateway is ready (it has found the master).
      while ((await client.request('/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 100));
      const { final } = await client.run('echo', { text: 'via sentinel' });
      expect(final).toMatchObject({ status: 'completed', output: { text: 'via sentinel' } });
      const stored = await client.run('memory_store', { text: 'remembered via sentinel' });
      expect(stored.final.status).toBe('completed');
      const cli = [
        'apps/cli/bin/skillrun.mjs',
        'keys',
        'create',
        '--caller',
        'ops',
        '--scopes',
        'skill:read',
      ];
      const created = await promisify(execFile)(process.execPath, cli, {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', ...throughSentinel },
      });
      expect(created.stdout.trim()).toMatch(/^srk_/);
    } finally {
      await gateway.process.stop();
    }
  });

  it('refuses to start on Sentinel settings that do not add up, naming the setting', async () => {
    const attempts: { env: Record<string, string>; names: string }[] = [
      {
        env: { REDIS_SENTINELS: '127.0.0.1:99999', REDIS_SENTINEL_NAME: MASTER_NAME },
        names: 'REDIS_SENTINELS',
      },
      { env: { REDIS_SENTINELS: 'just-a-host' }, names: 'REDIS_SENTINELS' },
      { env: { REDIS_SENTINELS: `127.0.0.1:${sentinelPort}` }, names: 'REDIS_SENTINEL_NAME' },
    ];
    for (const { env, names } of attempts) {
      const worker = ServiceProcess.spawn('worker', {
        ...system.env,
        SKILLS_DIR: fixtureSkills,
        WORKER_SKILLS: 'echo',
        ...env,
      });
      expect(await worker.exitCode()).toBe(1);
      expect(worker.stderr).toContain(names);
    }
  });
});
