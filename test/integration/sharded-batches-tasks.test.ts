import { once } from 'node:events';
import {
  BatchStore,
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  QueueRegistry,
  RedisKeys,
  redisTargetOf,
  TaskStore,
} from '@skillrun/core/data';
import { type RedisCluster, startCluster } from '@skillrun/redis-server';
import calculateSlot from 'cluster-key-slot';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARDED_SKILL, shardedPayload } from '../support/sharded-payload';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// A batch minted on a vshard keeps its hash on that vshard's tag, and the end of one of its items
// (minted on the same vshard) renews it there; a task of an execution minted on a vshard is listed
// on that tag's open-task sets, which the listing merges with every other tag in use. On one server
// (which takes any tag) and on three masters, where a key of another slot than the record's fails
// the script (CROSSSLOT), ends included (the notifications stream is the record's tag's, slice 9).

const PREFIX = '{skillrun}';
/** Three shards (as REDIS_SHARDS=3): key names do not depend on it, listings do. */
const keys = new RedisKeys(PREFIX, 3);
const [V0, V1, V2] = keys.shards.active() as [number, number, number];
const skill = SHARDED_SKILL;
/** The batch's own retention before any end renews it: shorter than the executions'. */
const BATCH_TTL_SECONDS = 5;
const EXECUTION_TTL_SECONDS = 600;

describe.each([['one server', 'server'] as const, ['three masters', 'cluster'] as const])(
  'sharded batches and tasks, on %s',
  (_, kind) => {
    let server: TestRedis | undefined;
    let cluster: RedisCluster | undefined;
    let redis: Redis;
    let queues: QueueRegistry;
    let store: ExecutionStore;
    let launcher: ExecutionLauncher;
    let batches: BatchStore;
    let now = 1_000;
    let tasks: TaskStore;

    beforeAll(async () => {
      if (kind === 'server') {
        server = await startTestRedis();
        redis = createRedis(server.url, { role: 'queue' });
      } else {
        cluster = await startCluster({ masters: 3 });
        redis = createRedis(redisTargetOf(cluster.env), { role: 'queue' });
      }
      await once(redis, 'ready');
      queues = new QueueRegistry(redis, PREFIX);
      store = new ExecutionStore(redis, keys, EXECUTION_TTL_SECONDS);
      launcher = new ExecutionLauncher({ redis, store, queues, retryBackoffMs: 100 });
      batches = new BatchStore(redis, keys, BATCH_TTL_SECONDS);
      tasks = new TaskStore(redis, keys, () => now);
    });
    afterAll(async () => {
      await queues?.close();
      redis?.disconnect();
      await server?.stop();
      await cluster?.stop();
    });

    const launch = (executionId: string, batchId?: string) =>
      launcher.launch({
        payload: shardedPayload(executionId),
        skill,
        ...(batchId === undefined ? {} : { origin: { kind: 'batch-item', batchId } as const }),
      });

    const complete = (executionId: string) =>
      store.transitions.send(
        store.transitions.completeCall(executionId, '{"text":"done"}', { attempt: 1, startedAt: now }),
      );

    /** A batch of two items on vshard V1, saved and launched as the batch desk does. */
    const launchBatch = async () => {
      const batchId = keys.shards.mintId(V1);
      const items = [keys.shards.mintId(V1), keys.shards.mintId(V1)];
      const batch = {
        id: batchId,
        owner: 'tester',
        caller: { id: 'tester', type: 'user' },
        createdAt: Date.now(),
        items: 2,
        executions: items,
      };
      await batches.save(batch);
      for (const id of items) expect((await launch(id, batchId)).status).toBe('accepted');
      return { batch, items: items as [string, string] };
    };

    /** One task on each active vshard and one legacy, opened in an order that mixes the tags. */
    const openTasks = async () => {
      const opened = [
        keys.shards.mintId(V2),
        crypto.randomUUID(),
        keys.shards.mintId(V0),
        keys.shards.mintId(V1),
      ] as [string, string, string, string];
      for (const id of opened) {
        await launch(id);
        now += 10;
        expect(await tasks.open(id, skill.name, now + 60_000)).toBe(true);
      }
      return opened;
    };

    /** No open task on any tag (DEL per key: a cluster client sends FLUSHALL to one node). */
    const clearOpenTasks = async () => {
      for (const tag of [PREFIX, ...[V0, V1, V2].map((v) => keys.shards.tag(v))]) {
        await redis.del(keys.openTasks(undefined, tag));
        await redis.del(keys.openTasks(skill.name, tag));
      }
    };

    const openIds = async (skillId?: string) =>
      (await tasks.list(skillId, undefined, 10)).map(({ id }) => id);

    it("keeps a batch minted on a vshard on its tag, in its items' slot", async () => {
      const { batch, items } = await launchBatch();
      const key = keys.batch(batch.id);
      expect(key).toBe(`${keys.shards.tag(V1)}:batch:${batch.id}`);
      for (const id of items) expect(calculateSlot(keys.execution(id))).toBe(calculateSlot(key));
      // What transition.lua renews at an item's end: the batch's key, named from the record's tag.
      expect(`${keys.batches(items[0])}${batch.id}`).toBe(key);
      expect(await batches.get(batch.id)).toEqual(batch);
      expect(await redis.exists(`${PREFIX}:batch:${batch.id}`)).toBe(0);
    });

    it('renews the batch on its tag at the end of each of its items', async () => {
      const { batch, items } = await launchBatch();
      expect(await redis.pttl(keys.batch(batch.id))).toBeLessThanOrEqual(BATCH_TTL_SECONDS * 1000);
      expect(await complete(items[0])).toBe('applied');
      // Renewed for the executions' retention from the end on.
      expect(await redis.pttl(keys.batch(batch.id))).toBeGreaterThan(BATCH_TTL_SECONDS * 1000);
      expect((await store.records.get(items[0]))?.status).toBe('completed');
      expect(await store.transitions.cancel(items[1], canceled())).toBe('applied');
    });

    it('keeps a legacy batch under the prefix, renewed there', async () => {
      const batchId = crypto.randomUUID();
      const item = crypto.randomUUID();
      expect(keys.batch(batchId)).toBe(`${PREFIX}:batch:${batchId}`);
      await batches.save({
        id: batchId,
        owner: undefined,
        caller: { id: 'tester', type: 'user' },
        createdAt: Date.now(),
        items: 1,
        executions: [item],
      });
      await launch(item, batchId);
      expect(await complete(item)).toBe('applied');
      expect(await redis.pttl(keys.batch(batchId))).toBeGreaterThan(BATCH_TTL_SECONDS * 1000);
    });

    it("opens tasks on their record's tag and lists every tag's, merged by when they opened", async () => {
      await clearOpenTasks();
      const opened = await openTasks();
      const [sharded, legacy] = opened;
      const tag = keys.shards.tag(V2);
      expect(await redis.zscore(`${tag}:tasks:open`, sharded)).not.toBeNull();
      expect(await redis.zscore(`${tag}:tasks:open:${skill.name}`, sharded)).not.toBeNull();
      expect(await redis.zscore(`${PREFIX}:tasks:open`, sharded)).toBeNull();
      expect(await redis.zscore(`${PREFIX}:tasks:open`, legacy)).not.toBeNull();

      expect(await openIds()).toEqual(opened);
      expect(await openIds(skill.name)).toEqual(opened);
      // Pages follow the merged order across tags.
      const first = await tasks.list(undefined, undefined, 2);
      expect(first.map(({ id }) => id)).toEqual(opened.slice(0, 2));
      expect((await tasks.list(undefined, first[1], 10)).map(({ id }) => id)).toEqual(opened.slice(2));
      // With one shard, only the prefix's sets are read.
      const unsharded = new TaskStore(redis, new RedisKeys(PREFIX));
      expect((await unsharded.list(undefined, undefined, 10)).map(({ id }) => id)).toEqual([legacy]);
    });

    it("takes an ended task off its tag's sets", async () => {
      await clearOpenTasks();
      const opened = await openTasks();
      const [sharded] = opened;
      expect(await store.transitions.cancel(sharded, canceled())).toBe('applied');
      expect(await openIds()).toEqual(opened.slice(1));
      expect(await redis.zcard(`${keys.shards.tag(V2)}:tasks:open:${skill.name}`)).toBe(0);
      for (const id of opened.slice(1)) await store.transitions.cancel(id, canceled());
      expect(await tasks.list(undefined, undefined, 10)).toEqual([]);
    });
  },
);

function canceled() {
  return { code: 'EXECUTION_CANCELED', message: 'Canceled by tester', recoverable: false } as const;
}
