import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@skillrun/core';
import { freePort, pingRedis, RedisServerProcess } from '@skillrun/redis-server';
import { chooseRedis, StandaloneData } from '@skillrun/standalone';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

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
});
