import { once } from 'node:events';
import {
  createRedis,
  ExecutionIds,
  ExecutionLauncher,
  ExecutionStore,
  type LaunchRequest,
  newJobPayload,
  QueueRegistry,
  RedisKeys,
  redisTargetOf,
} from '@skillrun/core/data';
import { commandCalls, type RedisCluster, startCluster } from '@skillrun/redis-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorRedis } from '../support/redis-monitor';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const PREFIX = '{skillrun}';
const BURST = 20;

/** The `index`-th launch of a burst; its id minted as a gateway at `keys`' REDIS_SHARDS mints it. */
function launchOf(index: number, ids: ExecutionIds): LaunchRequest {
  return {
    payload: newJobPayload(
      {
        skill_id: 'echo',
        skill_version: '1.0.0',
        inputs: { index },
        caller: { id: 'tester', type: 'user' },
        owner: 'tester',
        trace_id: `trace-${index}`,
        priority: 'normal',
      },
      ids.mint(),
    ),
    skill: { name: 'echo', version: '1.0.0', retry: 0 },
  };
}

/**
 * A launcher on `connection`, as a gateway has one, and what a burst of its launches costs in RPUSH
 * (`rpush`: how many Redis has run).
 */
function rpushOfBursts(connection: Redis, keys: RedisKeys, rpush: () => Promise<number>) {
  const ids = new ExecutionIds(keys.shards);
  const launcher = new ExecutionLauncher({
    redis: connection,
    store: new ExecutionStore(connection, keys, 3600),
    queues: new QueueRegistry(connection, PREFIX),
    retryBackoffMs: 100,
  });
  return async (count: number) => {
    const before = await rpush();
    const launched = await Promise.all(
      Array.from({ length: count }, (_, i) => launcher.launch(launchOf(i, ids))),
    );
    expect(launched).toHaveLength(count);
    return (await rpush()) - before;
  };
}

// The ids of the executions launched in one turn go to each hour's list (everyone's, the owner's)
// in one RPUSH, not one each: on one server they join the turn's held write; a cluster client holds
// no writes, and they are sent at the end of the turn all the same. At REDIS_SHARDS=3 each vshard
// has its own lists, each written once a turn, and KEY_PREFIX's tag none.
describe.each([
  ['one Redis server', 'server', 1],
  ['a Redis Cluster of three masters', 'cluster', 1],
  ['a Redis Cluster of three masters, REDIS_SHARDS=3', 'cluster', 3],
] as const)('the execution index, on %s', (_, kind, shards) => {
  const keys = new RedisKeys(PREFIX, shards);
  let redis: TestRedis | undefined;
  let cluster: RedisCluster | undefined;
  let connection: Redis;
  let admin: Redis;
  let burst: (count: number) => Promise<number>;

  /** Every key of the index on any master. */
  const indexKeys = async () => {
    const nodes = cluster ? cluster.nodes.map(({ url }) => url) : [redis?.url ?? ''];
    const found: string[] = [];
    for (const url of nodes) {
      const node = new Redis(url);
      try {
        found.push(...(await node.keys('*:executions:*')));
      } finally {
        node.disconnect();
      }
    }
    return found;
  };

  beforeAll(async () => {
    let rpush: () => Promise<number>;
    if (kind === 'server') {
      redis = await startTestRedis();
      connection = createRedis(redis.url, { role: 'request' });
      admin = createRedis(redis.url, { role: 'queue' });
      rpush = async () => (await commandCalls(admin)).get('rpush') ?? 0;
    } else {
      const started = await startCluster({ masters: 3 });
      cluster = started;
      connection = createRedis(redisTargetOf(started.env), { role: 'request' });
      admin = createRedis((await started.masterOf(PREFIX)).url, { role: 'queue' });
      rpush = async () =>
        (await started.nodeStats()).reduce((sum, { calls }) => sum + (calls.get('rpush') ?? 0), 0);
    }
    await once(connection, 'ready');
    burst = rpushOfBursts(connection, keys, rpush);
    // The first launches create the lists and ready the queues (BullMQ asks its Redis about itself).
    await burst(shards);
  });
  afterAll(async () => {
    connection?.disconnect();
    admin?.disconnect();
    await redis?.stop();
    await cluster?.stop();
  });

  it('lists a burst of launches with one RPUSH per list', async () => {
    expect(await burst(BURST)).toBe(2 * shards);
    const store = new ExecutionStore(connection, keys, 3600);
    const range = { sinceMs: Date.now() - 3_600_000, untilMs: Date.now() + 1 };
    const { entries } = await store.index.read({ owner: 'tester' }, range, undefined, 100);
    expect(entries).toHaveLength(BURST + shards);
  });

  it("writes the index on KEY_PREFIX's tag at one shard, on the vshards' alone above", async () => {
    const onPrefix = (await indexKeys()).filter((key) => key.startsWith(`${PREFIX}:`));
    expect(onPrefix.length > 0).toBe(shards === 1);
  });

  // Not after them: a launch whose record and job Redis applied, refused because its RPUSH failed
  // (Redis killed in between), would run all the same.
  it.runIf(kind === 'cluster' && shards === 1)(
    'sends the RPUSH before the jobs: a launch ends with its job',
    async () => {
      const home = await cluster?.masterOf(PREFIX);
      const sent: string[] = [];
      const monitor = await monitorRedis(home?.url ?? '', ({ args, source }) => {
        if (source !== 'lua') sent.push(String(args[0]).toLowerCase());
      });
      try {
        await burst(3);
        await expect.poll(() => sent.filter((command) => command === 'evalsha')).toHaveLength(3);
      } finally {
        monitor.stop();
      }
      const launched = sent.filter((command) => ['hset', 'rpush', 'evalsha'].includes(command));
      expect(launched).toEqual(['hset', 'hset', 'hset', 'rpush', 'rpush', 'evalsha', 'evalsha', 'evalsha']);
    },
  );
});
