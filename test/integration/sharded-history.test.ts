import type { ExecutionListPage } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import type { RedisCluster } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { monitorRedis } from '../support/redis-monitor';
import { ADMIN_HEADERS } from '../support/service-process';
import { TestSystem } from '../support/system';

// With REDIS_SHARDS=3 on three masters, an execution is listed in its own vshard's hour lists, none
// on KEY_PREFIX's tag; GET /executions merges the vshards' lists newest first, and its cursor goes on
// on each vshard exactly where the page stopped: every execution once, a caller's or everyone's.

const PREFIX = '{skillrun}';
const { shards } = new RedisKeys(PREFIX, 3);

type Listed = ExecutionListPage['executions'][number];

/** Commands that run others (MONITOR shows each command they run). */
const SCRIPTS = new Set(['eval', 'evalsha', 'fcall']);
describe('GET /executions over three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;
  let client: Client;
  const keys: Record<string, string> = {};
  const as = (caller: string) => ({ 'x-api-key': keys[caller] ?? '' });
  /** Each caller's executions, in the order their invocations were answered. */
  const launched: Record<string, string[]> = { alice: [], bob: [] };

  const list = (query: string, headers: Record<string, string>) =>
    client.request<ExecutionListPage & { error?: { code: string } }>(`/executions${query}`, { headers });

  /** Every page of `limit`, following next_cursor. */
  async function all(query: string, headers: Record<string, string>, limit: number): Promise<Listed[]> {
    const seen: Listed[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, headers);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.executions.length).toBeLessThanOrEqual(limit);
      seen.push(...page.body.executions);
      cursor = page.body.next_cursor;
    } while (cursor);
    return seen;
  }

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3' });
    await system.addWorker();
    client = system.client;
    for (const caller of ['alice', 'bob']) keys[caller] = await client.createKey(caller);
    const invoke = async (caller: string, text: string) => {
      launched[caller]?.push(await client.invokeAs(caller, 'echo', { text }, as(caller)));
    };
    // One at a time, then bursts launched together (their entries go in one RPUSH per list).
    for (let i = 0; i < 10; i++) await invoke(i % 3 === 0 ? 'bob' : 'alice', `one ${i}`);
    for (let burst = 0; burst < 2; burst++) {
      const ids = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          client.invokeAs('alice', 'echo', { text: `burst ${i}` }, as('alice')),
        ),
      );
      launched.alice?.push(...ids);
    }
  });
  afterAll(() => system?.stop());

  /** Newest first and each once: the same executions as `expected`, created_at never rising. */
  function expectListing(listed: Listed[], expected: string[]) {
    const ids = listed.map(({ execution_id }) => execution_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    const created = listed.map(({ timestamps }) => Date.parse(timestamps.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  }

  /** Per vshard, the listed one-at-a-time executions in the reverse of their launch order. */
  function expectListOrderPerVshard(listed: Listed[], sequential: string[]) {
    const order = new Set(sequential);
    for (const vshard of shards.active()) {
      const on = (id: string) => shards.vshardOf(id) === vshard;
      const shown = listed.map(({ execution_id }) => execution_id).filter((id) => order.has(id) && on(id));
      expect(shown).toEqual(sequential.filter(on).reverse());
    }
  }

  it("spreads a caller's executions over every vshard and pages through them newest first, each once", async () => {
    const alices = launched.alice ?? [];
    expect(new Set(alices.map((id) => shards.vshardOf(id)))).toEqual(new Set(shards.active()));
    for (const limit of [1, 4, 7, 100]) {
      const listed = await all('', as('alice'), limit);
      expectListing(listed, alices);
      expectListOrderPerVshard(listed, alices.slice(0, 6));
    }
  });

  it("lists everyone's for an admin, and one caller's, the same way", async () => {
    const everyone = [...(launched.alice ?? []), ...(launched.bob ?? [])];
    for (const limit of [3, 50]) expectListing(await all('', ADMIN_HEADERS, limit), everyone);
    expectListing(await all('&caller_id=bob', ADMIN_HEADERS, 2), launched.bob ?? []);
    expectListing(await all('', as('bob'), 1), launched.bob ?? []);
  });

  it('answers 400 in the error envelope for a cursor it did not give out', async () => {
    const first = await list('?limit=2', as('alice'));
    const cursor = first.body.next_cursor ?? '';
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { p: unknown[] };
    expect(position.p).toHaveLength(shards.tags().length);
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of [
      forged({ p: position.p.slice(1) }),
      forged({ p: [...position.p.slice(1), ['x']] }),
      forged({ p: [...position.p.slice(1), [1, -1]] }),
      forged({ hour: 1, before: 2 }),
      'bm90IGEgY3Vyc29y',
    ]) {
      const answer = await list(`?cursor=${bad}`, as('alice'));
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error?.code, bad).toBe('INVALID_INPUT');
    }
    // One from far ahead is read from the range's newest hour on: a listing, not a walk of empty hours.
    const ahead = forged({ p: position.p.map(() => [Number.MAX_SAFE_INTEGER]) });
    const answer = await list(`?cursor=${ahead}`, as('alice'));
    expect(answer.status).toBe(200);
  });

  it("writes no list of the index on KEY_PREFIX's tag: each execution's lists are on its vshard", async () => {
    const indexKeys: string[] = [];
    for (const node of system.redis.nodes) {
      const master = new Redis(node.url);
      try {
        indexKeys.push(...(await master.keys('*:executions:*')));
      } finally {
        master.disconnect();
      }
    }
    expect(indexKeys.filter((key) => key.startsWith(`${PREFIX}:`))).toEqual([]);
    const tagsListed = new Set(indexKeys.map((key) => key.slice(0, key.indexOf('}') + 1)));
    expect(tagsListed).toEqual(new Set(shards.active().map((vshard) => shards.tag(vshard))));
  });
  it("runs invocations to their end without touching a key of theirs or of the index on KEY_PREFIX's tag", async () => {
    /** The first key of each command the global tag's master ran on a key of that tag. */
    const touched: string[] = [];
    const ids: string[] = [];
    // A script's own commands are shown apart (source `lua`), each with its key first.
    const monitor = await monitorRedis((await system.redis.masterOf(PREFIX)).url, ({ args }) => {
      const key = String(args[1]);
      if (!SCRIPTS.has(String(args[0]).toLowerCase()) && key.startsWith(`${PREFIX}:`)) touched.push(key);
    });
    try {
      for (let i = 0; i < 3; i++) {
        const id = await client.invokeAs('alice', 'echo', { text: `watched ${i}` }, as('alice'));
        await client.waitForEnd('echo', id, undefined, as('alice'));
        ids.push(id);
      }
    } finally {
      monitor.stop();
    }
    // The global tag's own periodic work (worker heartbeats, the registry, the schedules' queue) goes on.
    const theirs = (key: string) =>
      key.startsWith(`${PREFIX}:executions:`) || ids.some((id) => key.includes(id));
    expect(touched.filter(theirs)).toEqual([]);
  });
});
