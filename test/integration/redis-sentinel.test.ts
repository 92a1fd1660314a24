import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServer, freePort, pingRedis } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { fixtureSkills, ServiceProcess, startGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

const MASTER_NAME = 'skillrun-master';

describe('Redis through Sentinel', () => {
  let system: TestSystem;
  let sentinel: ChildProcess | undefined;
  let sentinelPort = 0;
  let dir: string;

  beforeAll(async () => {
    system = await TestSystem.start();
    dir = await mkdtemp(join(tmpdir(), 'skillrun-sentinel-'));
    const master = new URL(system.redis.url);
    sentinelPort = await freePort();
    // Sentinel rewrites its configuration file, so it gets one of its own.
    const config = join(dir, 'sentinel.conf');
    await writeFile(
      config,
      `port ${sentinelPort}\nbind 127.0.0.1\nsentinel monitor ${MASTER_NAME} ${master.hostname} ${master.port} 1\n`,
    );
    sentinel = spawn(findRedisServer() ?? 'redis-server', [config, '--sentinel'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await pingRedis(`redis://127.0.0.1:${sentinelPort}`, 200))) {
      if (Date.now() > deadline) throw new Error('the Sentinel did not answer');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await system?.stop();
    sentinel?.kill();
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
    const gateway = await startGateway({ ...system.env, ...throughSentinel });
    try {
      const { final } = await new Client(gateway.url).run('echo', { text: 'via sentinel' });
      expect(final).toMatchObject({ status: 'completed', output: { text: 'via sentinel' } });
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
