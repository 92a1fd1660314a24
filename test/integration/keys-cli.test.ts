import type { ApiKeyRecord } from '@skillrun/core';
import { ApiKeyStore, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runSkillrun } from '../support/cli-process';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const PREFIX = '{keys-cli-test}';

describe('skillrun keys (npm run keys): create, list and revoke API keys from the command line', () => {
  let server: TestRedis;
  let redis: Redis;
  let store: ApiKeyStore;

  /** Runs the CLI the way the root script does (`skillrun keys ...`), against the test's Redis. */
  const keys = (...args: string[]): Promise<CliRun> =>
    runSkillrun(['keys', ...args], { env: { REDIS_URL: server.url, KEY_PREFIX: PREFIX } });

  const records = (stdout: string): ApiKeyRecord[] =>
    stdout
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ApiKeyRecord);

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url);
    store = new ApiKeyStore(redis, new RedisKeys(PREFIX));
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it('creates a key: stdout is the key alone, the record goes to stderr, and the key verifies', async () => {
    const run = await keys(
      'create',
      '--caller',
      'ops@example',
      '--scopes',
      'skill:invoke,skill:read',
      '--skills',
      'text_stats',
      '--name',
      'nightly',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^srk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    const key = run.stdout.trim();
    const record = JSON.parse(run.stderr) as ApiKeyRecord;
    expect(record).toMatchObject({
      id: key.slice(4, 20),
      caller_id: 'ops@example',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['text_stats'],
      name: 'nightly',
    });
    expect(await store.verify(key)).toEqual({
      callerId: 'ops@example',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['text_stats'],
      method: 'api_key',
      keyId: record.id,
    });
  });

  it('lists keys by id, never the key itself, and revokes them', async () => {
    const [created] = await Promise.all([
      keys('create', '--caller', 'lister', '--scopes', 'skill:read'),
      keys('create', '--caller', 'someone-else', '--scopes', 'admin'),
    ]);
    const key = created.stdout.trim();
    const id = key.slice(4, 20);

    const [mine, all] = await Promise.all([keys('list', '--caller', 'lister'), keys('list')]);
    expect(mine.code).toBe(0);
    expect(records(mine.stdout).map((record) => record.id)).toEqual([id]);
    expect(mine.stdout).not.toContain(key.slice(21));
    expect(records(all.stdout).map((record) => record.caller_id)).toEqual(
      expect.arrayContaining(['lister', 'someone-else']),
    );

    const revoked = await keys('revoke', id);
    expect(revoked.code).toBe(0);
    expect(records(revoked.stdout)).toEqual([{ ...records(mine.stdout)[0], revoked_at: expect.any(String) }]);
    expect(await store.verify(key)).toBeNull();
  });

  it('exits 1 when revoking an unknown id', async () => {
    const run = await keys('revoke', '0123456789abcdef');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('0123456789abcdef');
    expect(run.stdout).toBe('');
  });

  it('exits 2 with the usage on a bad command line, creating nothing', async () => {
    const before = await store.list();
    const runs = await Promise.all([
      keys(),
      keys('rotate'),
      keys('create', '--caller', 'x'),
      keys('create', '--caller', 'x', '--scopes', 'skill:write'),
      keys('create', '--caller', 'has space', '--scopes', 'skill:read'),
      keys('create', '--caller', 'x', '--scopes', 'skill:read', '--colour', 'red'),
      keys('revoke'),
      keys('list', 'extra'),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('Usage: skillrun keys');
    }
    expect(await store.list()).toEqual(before);
  });

  it('creates a key with a role (--role), and refuses a viewer key with the admin scope', async () => {
    const run = await keys('create', '--caller', 'vera', '--scopes', 'skill:read', '--role', 'viewer');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stderr)).toMatchObject({ caller_id: 'vera', role: 'viewer' });
    expect(await store.verify(run.stdout.trim())).toMatchObject({ callerId: 'vera', role: 'viewer' });
    const before = await store.list();
    for (const args of [
      ['--role', 'viewer', '--scopes', 'admin'],
      ['--role', 'boss', '--scopes', 'skill:read'],
    ]) {
      const refused = await keys('create', '--caller', 'x', ...args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/role/);
    }
    expect(await store.list()).toEqual(before);
  });

  it('creates a key with a daily budget (--daily-budget), and refuses one that is not a positive number', async () => {
    const run = await keys('create', '--caller', 'bea', '--scopes', 'skill:invoke', '--daily-budget', '2.5');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stderr)).toMatchObject({ caller_id: 'bea', daily_budget_usd: 2.5 });
    expect(await store.verify(run.stdout.trim())).toMatchObject({ callerId: 'bea', dailyBudgetUsd: 2.5 });
    const before = await store.list();
    for (const budget of ['0', 'lots']) {
      const refused = await keys(
        'create',
        '--caller',
        'x',
        '--scopes',
        'skill:invoke',
        '--daily-budget',
        budget,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/daily_budget_usd/);
    }
    expect(await store.list()).toEqual(before);
  });
});
