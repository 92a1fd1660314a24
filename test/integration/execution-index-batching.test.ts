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
import { commandCalls, type RedisCluster, redisReads, startCluster } from '@skillrun/redis-server';
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
// in one RPUSH, not one each, which joins the turn's held write (a cluster client's to each master).
// At REDIS_SHARDS=3 each vshard has its own lists, each written once a turn, and KEY_PREFIX's tag
// none.
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

  /** What `read` answers on each master (each read with a connection of its own), together. */
  const onEveryMaster = async <T>(read: (node: Redis) => Promise<T>) => {
    const urls = cluster ? cluster.nodes.map(({ url }) => url) : [redis?.url ?? ''];
    const found: T[] = [];
    for (const url of urls) {
      const node = new Redis(url);
      try {
        found.push(await read(node));
      } finally {
        node.disconnect();
      }
    }
    return found;
  };
  /** Every key of the index on any master. */
  const indexKeys = async () => (await onEveryMaster((node) => node.keys('*:executions:*'))).flat();
  /** The reads of a client's commands every master has made so far (INFO stats). */
  const reads = async () => (await onEveryMaster(redisReads)).reduce((sum, count) => sum + count, 0);

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

  // A burst's records, jobs and RPUSHes (twice as many commands as launches, and more) leave in one
  // write to each master, which Redis reads at once, rather than a write each (coalesce-writes.ts).
  it("sends a burst's commands in a few writes, not one each", async () => {
    const readsOf = async (count: number) => {
      const before = await reads();
      await burst(count);
      return (await reads()) - before;
    };
    // Less the reads of the readings themselves (INFO, each with a connection of its own).
    const launches = (await readsOf(BURST)) - (await readsOf(0));
    expect(launches).toBeLessThan(BURST / 2);
  });

  // In the write that carries the jobs, not in a later one: a launch whose record and job Redis
  // applied, refused because a later RPUSH failed (Redis killed in between), would run all the same.
  it.runIf(shards === 1)('sends the RPUSH last in the write of the records and jobs', async () => {
    const home = cluster ? (await cluster.masterOf(PREFIX)).url : (redis?.url ?? '');
    const sent: string[] = [];
    const monitor = await monitorRedis(home, ({ args, source }) => {
      if (source !== 'lua') sent.push(String(args[0]).toLowerCase());
    });
    try {
      await burst(3);
      await expect.poll(() => sent.filter((command) => command === 'evalsha')).toHaveLength(3);
    } finally {
      monitor.stop();
    }
    const launched = sent.filter((command) => ['hset', 'rpush', 'evalsha'].includes(command));
    expect(launched).toEqual(['hset', 'hset', 'hset', 'evalsha', 'evalsha', 'evalsha', 'rpush', 'rpush']);
  });
});
