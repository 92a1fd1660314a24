import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '@skillrun/core';
import { freePort, pingRedis, RedisServerProcess } from '@skillrun/redis-server';
import { chooseRedis, StandaloneData } from '@skillrun/standalone';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/service-process';

let scratch: string;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'skillrun-private-redis-'));
});

afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** An address on 127.0.0.1 where nothing listens. */
async function silentUrl(): Promise<string> {
  const url = `redis://127.0.0.1:${await freePort()}`;
  expect(await pingRedis(url)).toBe(false);
  return url;
}

describe('chooseRedis', () => {
  it('uses REDIS_URL when set, without probing or starting anything', async () => {
    const dataDir = join(scratch, 'data');
    const choice = await chooseRedis(
      { REDIS_URL: 'redis://my-redis:6379' },
      new StandaloneData(dataDir),
      await silentUrl(),
    );
    expect(choice).toEqual({ url: 'redis://my-redis:6379' });
    expect(() => readdirSync(dataDir)).toThrow();
  });

  it('follows Sentinels or a cluster without REDIS_URL: no private redis-server, nothing probed', async () => {
    const dataDir = join(scratch, 'data');
    const defaultUrl = await silentUrl();
    for (const nodes of [{ REDIS_SENTINELS: 'sentinel-1:26379' }, { REDIS_CLUSTER_NODES: 'redis-1:6379' }]) {
      const choice = await chooseRedis(
        { PATH: process.env.PATH, ...nodes },
        new StandaloneData(dataDir),
        defaultUrl,
      );
      expect(choice).toEqual({ url: defaultUrl, named: true });
    }
    const withUrl = { REDIS_URL: 'redis://:secret@my-redis:6379', REDIS_SENTINELS: 'sentinel-1:26379' };
    expect(await chooseRedis(withUrl, new StandaloneData(dataDir), defaultUrl)).toEqual({
      url: withUrl.REDIS_URL,
      named: true,
    });
    expect(() => readdirSync(dataDir)).toThrow();
  });

  it('uses a Redis that already answers at the default address', async () => {
    const existing = await RedisServerProcess.start();
    try {
      const dataDir = join(scratch, 'data');
      const choice = await chooseRedis({ PATH: process.env.PATH }, new StandaloneData(dataDir), existing.url);
      expect(choice).toEqual({ url: existing.url });
      expect(choice.owned).toBeUndefined();
      expect(() => readdirSync(dataDir)).toThrow();
    } finally {
      await existing.stop();
    }
  });

  it('starts a private redis-server, append-only in the data folder, when nothing answers', async () => {
    const data = new StandaloneData(join(scratch, 'data'));
    const defaultUrl = await silentUrl();
    const choice = await chooseRedis({ PATH: process.env.PATH }, data, defaultUrl);
    try {
      expect(choice.owned).toBeDefined();
      expect(choice.url).toBe(choice.owned?.url);
      expect(choice.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(await pingRedis(choice.url)).toBe(true);
      expect(readdirSync(data.redisDir).some((name) => name.startsWith('appendonly'))).toBe(true);
    } finally {
      await choice.owned?.stop();
    }
    expect(await pingRedis(choice.url)).toBe(false);
  });

  it('says how to get a Redis when there is no redis-server on the PATH', async () => {
    const emptyBin = join(scratch, 'empty-bin');
    mkdirSync(emptyBin);
    const defaultUrl = await silentUrl();
    const attempt = chooseRedis({ PATH: emptyBin }, new StandaloneData(join(scratch, 'data')), defaultUrl);
    await expect(attempt).rejects.toThrow(/apt-get install redis-server/);
    await expect(attempt).rejects.toThrow(/REDIS_URL/);
    await expect(attempt).rejects.toThrow(defaultUrl);
  });

  it('refuses a second private redis-server in a data folder whose first still runs, naming what to set', async () => {
    const data = new StandaloneData(join(scratch, 'data'));
    const defaultUrl = await silentUrl();
    const first = await chooseRedis({ PATH: process.env.PATH }, data, defaultUrl);
    try {
      // What the first npm start writes once it serves.
      await data.writeRedisUrl(first.url);
      const second = chooseRedis({ PATH: process.env.PATH }, data, defaultUrl);
      await expect(second).rejects.toBeInstanceOf(ConfigError);
      await expect(second).rejects.toThrow(`set REDIS_URL=${first.url} to share it, or SKILLRUN_DATA_DIR`);
    } finally {
      await first.owned?.stop();
    }
    // Once the first has stopped, its file names a Redis that no longer answers: a new one starts.
    const again = await chooseRedis({ PATH: process.env.PATH }, data, defaultUrl);
    expect(again.owned).toBeDefined();
    await again.owned?.stop();
  });

  it('stops its private redis-server when npm start exits without stopping it (a second Ctrl-C, a deadline)', async () => {
    // The server is in a process group of its own (Ctrl-C reaches npm start only): nothing else
    // would stop it. A process that starts one and exits at once, as a second Ctrl-C makes it.
    const owner = `
      import { chooseRedis, StandaloneData } from '@skillrun/standalone';
import { Redis } from 'ioredis';
      const [dataDir, defaultUrl] = process.argv.slice(1);
      const choice = await chooseRedis({ PATH: process.env.PATH }, new StandaloneData(dataDir), defaultUrl);
      console.log(choice.url);
      process.exit(1);`;
    const args = [
      '--import',
      'tsx',
      '--import',
      './scripts/lua-text.mjs',
      '--input-type=module',
      '-e',
      owner,
    ];
    const exited = await promisify(execFile)(
      process.execPath,
      [...args, join(scratch, 'data'), await silentUrl()],
      {
        cwd: repoRoot,
      },
    ).catch((error: { code: number; stdout: string }) => error);
    expect(exited).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+\n$/),
    });
    const url = exited.stdout.trim();
    try {
      await expect.poll(() => pingRedis(url), { timeout: 10_000 }).toBe(false);
    } finally {
      await shutDown(url);
    }
  }, 30_000);
});

/** Stops a Redis this test left running, if it did. */
async function shutDown(url: string): Promise<void> {
  if (!(await pingRedis(url))) return;
  const redis = new Redis(url, { retryStrategy: () => null });
  await redis.call('shutdown', 'nosave').catch(() => {});
  redis.disconnect();
}
