import { once } from 'node:events';
import {
  createRedis,
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
import { startTestRedis, type TestRedis } from '../support/test-redis';

const PREFIX = '{skillrun}';
const keys = new RedisKeys(PREFIX);
const BURST = 20;

function launchOf(index: number): LaunchRequest {
  return {
    payload: newJobPayload({
      skill_id: 'echo',
      skill_version: '1.0.0',
      inputs: { index },
      caller: { id: 'tester', type: 'user' },
      owner: 'tester',
      trace_id: `trace-${index}`,
      priority: 'normal',
    }),
    skill: { name: 'echo', version: '1.0.0', retry: 0 },
  };
}

/** A launcher on `connection`, as a gateway has one, and what a burst of its launches costs in RPUSH. */
function rpushOfBursts(connection: Redis, server: Redis) {
  const launcher = new ExecutionLauncher({
    redis: connection,
    store: new ExecutionStore(connection, keys, 3600),
    queues: new QueueRegistry(connection, PREFIX),
    retryBackoffMs: 100,
  });
  return async (count: number) => {
    const rpush = async () => (await commandCalls(server)).get('rpush') ?? 0;
    const before = await rpush();
    const launched = await Promise.all(Array.from({ length: count }, (_, i) => launcher.launch(launchOf(i))));
    expect(launched).toHaveLength(count);
    return (await rpush()) - before;
  };
}

// The ids of the executions launched in one turn go to each hour's list (everyone's, the owner's)
// in one RPUSH, not one each: on one server they join the turn's held write; a cluster client holds
// no writes, and they are sent at the end of the turn all the same.
describe.each([
  ['one Redis server', 'server'],
  ['a Redis Cluster of three masters', 'cluster'],
] as const)('the execution index, on %s', (_, kind) => {
  let redis: TestRedis | undefined;
  let cluster: RedisCluster | undefined;
  let connection: Redis;
  let admin: Redis;
  let burst: (count: number) => Promise<number>;

  beforeAll(async () => {
    if (kind === 'server') {
      redis = await startTestRedis();
      connection = createRedis(redis.url, { role: 'request' });
      admin = createRedis(redis.url, { role: 'queue' });
    } else {
      cluster = await startCluster({ masters: 3 });
      connection = createRedis(redisTargetOf(cluster.env), { role: 'request' });
      admin = createRedis((await cluster.masterOf(PREFIX)).url, { role: 'queue' });
    }
    await once(connection, 'ready');
    burst = rpushOfBursts(connection, admin);
    // The first launch creates the lists and readies the queue (BullMQ asks its Redis about itself).
    await burst(1);
  });
  afterAll(async () => {
    connection?.disconnect();
    admin?.disconnect();
    await redis?.stop();
    await cluster?.stop();
  });

  it('lists a burst of launches with one RPUSH per list', async () => {
    expect(await burst(BURST)).toBe(2);
    const listed = await admin.lrange(
      keys.executionsInHour(Math.floor(Date.now() / 3_600_000), 'tester'),
      0,
      -1,
    );
    expect(listed).toHaveLength(BURST + 1);
  });

  // Not after them: a launch whose record and job Redis applied, refused because its RPUSH failed
  // (Redis killed in between), would run all the same.
  it.runIf(kind === 'cluster')('sends the RPUSH before the jobs: a launch ends with its job', async () => {
    const home = await cluster?.masterOf(PREFIX);
    const watcher = new Redis(home?.url ?? '');
    const sent: string[] = [];
    try {
      const monitor = await watcher.monitor();
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source !== 'lua') sent.push(String(args[0]).toLowerCase());
      });
      await burst(3);
      await expect.poll(() => sent.filter((command) => command === 'evalsha')).toHaveLength(3);
      monitor.disconnect();
    } finally {
      watcher.disconnect();
    }
    const launched = sent.filter((command) => ['hset', 'rpush', 'evalsha'].includes(command));
    expect(launched).toEqual(['hset', 'hset', 'hset', 'rpush', 'rpush', 'evalsha', 'evalsha', 'evalsha']);
  });
});
