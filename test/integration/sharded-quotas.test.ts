import { once } from 'node:events';
import { createRedis, ExecutionStore, RedisKeys, redisScript, redisTargetOf } from '@skillrun/core/data';
import type { RedisCluster } from '@skillrun/redis-server';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSITION_LUA } from '../../packages/core/src/store/execution/transition-script';
import type { Client } from '../support/client';
import { TestSystem } from '../support/system';

// A caller's in-flight quota is a set on KEY_PREFIX's tag; with REDIS_SHARDS=3 its executions are
// spread over the vshards all the same (slice 8 of docs/design/sharding.md): an end's script
// leaves the sets of its record's slot and answers the quota's, which the ending process leaves
// just after. A process gone in between leaves the slot taken until the next take that finds the
// quota full, which reads the records and frees it.

const LIMITS = { callers: { quota: { concurrency: 1 } } };
const keys = new RedisKeys('{skillrun}', 3);
/** The caller's quota (CallerLimits: `caller:<id>`), on the prefix's tag. */
const inFlight = keys.flow.inFlight('caller:quota');
const DELAYED = { caller: { id: 'quota', type: 'user' }, context: { delay_ms: 600_000 } };

describe('in-flight quotas over three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;
  let client: Client;
  let redis: Redis;
  let headers: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3', LIMITS: JSON.stringify(LIMITS) });
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    client = system.client;
    headers = { 'x-api-key': await client.createKey('quota') };
    redis = createRedis(redisTargetOf(system.redis.env), { role: 'queue' });
    await once(redis, 'ready');
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  /** A delayed execution of the caller's, which holds its one slot until it is canceled. */
  async function holdSlot(): Promise<string> {
    const answer = await client.invoke('echo', { text: 'held' }, DELAYED, headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const id = String(answer.body.execution_id);
    expect(keys.shards.vshardOf(id)).toBeDefined();
    return id;
  }

  it("spreads a quota's executions over the vshards, and each end frees its slot", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await client.invokeAs('quota', 'echo', { text: `n${i}` }, headers);
      ids.push(id);
      expect((await client.waitForEnd('echo', id, 20_000, headers)).final.status).toBe('completed');
      // Freed by the end, not by the repair of a full quota (which a next 202 alone would not tell apart).
      await expect.poll(() => redis.zcard(inFlight)).toBe(0);
    }
    expect(new Set(ids.map((id) => keys.shards.vshardOf(id))).size).toBe(3);

    // A cancel (the gateway's end) frees it too.
    const held = await holdSlot();
    const refused = await client.invoke('echo', { text: 'over' }, DELAYED, headers);
    expect(refused.status).toBe(429);
    expect((await client.cancel('echo', held, headers)).status).toBe(200);
    await expect.poll(() => redis.zcard(inFlight)).toBe(0);
    expect((await client.cancel('echo', await holdSlot(), headers)).status).toBe(200);
  });

  it("runs a quota's debounced execution on its skill's home vshard, and its end frees the slot", async () => {
    const answer = await client.invoke(
      'echo',
      { text: 'debounced' },
      {
        caller: { id: 'quota', type: 'user' },
        context: { debounce: { key: 'quota', mode: 'leading', delay_ms: 1000 } },
      },
      headers,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const id = String(answer.body.execution_id);
    expect(keys.shards.vshardOf(id)).toBe(keys.shards.home('echo'));
    expect((await client.waitForEnd('echo', id, 20_000, headers)).final.status).toBe('completed');
    await expect.poll(() => redis.zcard(inFlight)).toBe(0);
  });

  it("starts a quota's item in a sharded batch, on the batch's vshard, and refuses the one over it in its place", async () => {
    const answer = await client.request<{ batch_id: string; executions: Record<string, unknown>[] }>(
      '/batches',
      {
        json: {
          caller: { id: 'quota', type: 'user' },
          items: [
            { skill_id: 'echo', inputs: { text: 'one' } },
            { skill_id: 'echo', inputs: { text: 'two' }, context: { delay_ms: 600_000 } },
          ],
        },
        headers,
      },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const [started, over] = answer.body.executions as [{ execution_id: string }, { error: { code: string } }];
    expect(over.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(keys.shards.vshardOf(started.execution_id)).toBe(keys.shards.vshardOf(answer.body.batch_id));
    expect((await client.waitForEnd('echo', started.execution_id, 20_000, headers)).final.status).toBe(
      'completed',
    );
    await expect.poll(() => redis.zcard(inFlight)).toBe(0);
  });

  it('frees the slot of an end whose second step was lost at the next take that finds the quota full', async () => {
    const lost = await holdSlot();
    // As a process that dies between an end's script and its second step: the end is written, and
    // the quota's set, on another slot than the record, still holds the execution.
    const transition = redisScript<unknown>(redis, 'bareTransition', TRANSITION_LUA);
    const end = new ExecutionStore(redis, keys, 600).transitions.failCall(lost, 'failed', {
      code: 'INTERNAL_ERROR',
      message: 'ended by a process that died then',
      recoverable: false,
    });
    expect(await transition(end.keys, end.args)).toEqual([1, inFlight]);
    expect(await client.status('echo', lost, headers)).toMatchObject({ status: 'failed' });
    expect(await redis.zscore(inFlight, lost)).not.toBeNull();

    const next = await holdSlot();
    expect(await redis.zscore(inFlight, lost)).toBeNull();
    expect(await redis.zscore(inFlight, next)).not.toBeNull();
    expect((await client.cancel('echo', next, headers)).status).toBe(200);
    await expect.poll(() => redis.zcard(inFlight)).toBe(0);
  });
});
