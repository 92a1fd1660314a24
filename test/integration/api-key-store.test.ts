import { ApiKeyStore, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStored } from '../support/redis-contents';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const RECORD_FIELDS = ['id', 'caller_id', 'scopes', 'skills', 'name', 'created_at', 'revoked_at'];

describe('ApiKeyStore: API keys kept as hashes in Redis', () => {
  let server: TestRedis;
  let redis: Redis;
  let store: ApiKeyStore;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url);
    store = new ApiKeyStore(redis, new RedisKeys('{api-key-test}'));
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it('creates a key that verifies to its principal', async () => {
    const { key, record } = await store.create({
      callerId: 'svc:billing',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['text_stats'],
      name: 'billing batch',
    });
    expect(key).toMatch(/^srk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(key.slice(4, 20)).toBe(record.id);
    expect(record).toEqual({
      id: record.id,
      caller_id: 'svc:billing',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['text_stats'],
      name: 'billing batch',
      created_at: expect.any(String),
    });
    expect(await store.verify(key)).toEqual({
      callerId: 'svc:billing',
      scopes: ['skill:invoke', 'skill:read'],
      skills: ['text_stats'],
      method: 'api_key',
      keyId: record.id,
    });
  });

  it('leaves out skills for a key that may use every skill', async () => {
    const { key, record } = await store.create({ callerId: 'admin-bot', scopes: ['admin'] });
    expect(await store.verify(key)).toEqual({
      callerId: 'admin-bot',
      scopes: ['admin'],
      method: 'api_key',
      keyId: record.id,
    });
  });

  it('stores neither the key nor its secret, in any form', async () => {
    const { key } = await store.create({ callerId: 'secretive', scopes: ['skill:read'] });
    const secret = key.slice(21);
    const forms = [key, secret, Buffer.from(secret, 'base64url').toString('hex')];
    const stored = (await everythingStored(redis)).join('\n');
    expect(stored).toContain(key.slice(4, 20));
    for (const form of forms) expect(stored).not.toContain(form);
  });

  it('refuses a wrong secret, an unknown id and malformed keys', async () => {
    const { key } = await store.create({ callerId: 'someone', scopes: ['skill:invoke'] });
    const id = key.slice(4, 20);
    const secret = key.slice(21);
    const otherSecret = (await store.create({ callerId: 'someone', scopes: ['skill:invoke'] })).key.slice(21);
    const unknownId = id === '0123456789abcdef' ? 'fedcba9876543210' : '0123456789abcdef';
    for (const presented of [
      `srk_${id}_${otherSecret}`,
      `srk_${unknownId}_${secret}`,
      '',
      'srk_',
      `srk_${id}_${secret}x`,
      `srk_${id.toUpperCase()}_${secret}`,
      `sk_${id}_${secret}`,
      `srk_${id}${secret}`,
      ` ${key}`,
    ]) {
      expect(await store.verify(presented), presented).toBeNull();
    }
    expect(await store.verify(key)).not.toBeNull();
  });

  it('revokes a key for good, and says false for an unknown id', async () => {
    const { key, record } = await store.create({ callerId: 'leaver', scopes: ['skill:invoke'] });
    expect(await store.revoke(record.id)).toBe(true);
    expect(await store.verify(key)).toBeNull();
    const revoked = await store.get(record.id);
    expect(revoked?.revoked_at).toEqual(expect.any(String));
    expect(await store.revoke(record.id)).toBe(true);
    expect((await store.get(record.id))?.revoked_at).toBe(revoked?.revoked_at);
    expect(await store.revoke('0000000000000000')).toBe(false);
    expect(await store.get('0000000000000000')).toBeNull();
  });

  it("lists one caller's keys or all of them, without hashes", async () => {
    const first = await store.create({ callerId: 'lister', scopes: ['skill:read'] });
    const second = await store.create({ callerId: 'lister', scopes: ['skill:invoke'], name: 'second' });
    const elsewhere = await store.create({ callerId: 'not-lister', scopes: ['skill:read'] });

    const mine = await store.list('lister');
    expect(mine.map((record) => record.id).sort()).toEqual([first.record.id, second.record.id].sort());
    expect(mine).toContainEqual(second.record);

    const all = await store.list();
    const ids = all.map((record) => record.id);
    expect(ids).toEqual(expect.arrayContaining([first.record.id, second.record.id, elsewhere.record.id]));
    expect(new Set(ids).size).toBe(ids.length);
    for (const record of all) {
      for (const field of Object.keys(record)) expect(RECORD_FIELDS).toContain(field);
      expect(JSON.stringify(record)).not.toMatch(/[0-9a-f]{64}/);
    }
    expect(await store.list('nobody')).toEqual([]);
  });

  it('trusts a key it has read for cacheMs: revoked here it stops at once, elsewhere within cacheMs', async () => {
    const keys = new RedisKeys('{api-key-test}');
    const cached = new ApiKeyStore(redis, keys, 400);
    const { key, record } = await store.create({ callerId: 'svc:cached', scopes: ['skill:invoke'] });
    const other = await store.create({ callerId: 'svc:cached', scopes: ['skill:invoke'] });
    expect(await cached.verify(key)).toMatchObject({ callerId: 'svc:cached' });
    expect(await cached.verify(other.key)).toMatchObject({ callerId: 'svc:cached' });
    // A wrong secret for a cached id is still refused.
    expect(await cached.verify(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBeNull();

    await cached.revoke(record.id);
    expect(await cached.verify(key)).toBeNull();

    await store.revoke(other.record.id);
    expect(await cached.verify(other.key)).toMatchObject({ callerId: 'svc:cached' });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await cached.verify(other.key)).toBeNull();
  });
});
