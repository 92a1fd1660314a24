import {
  ExecutionLauncher,
  ExecutionStore,
  QueueRegistry,
  RedisKeys,
  skillQueueName,
} from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARDED_SKILL, shardedPayload } from '../support/sharded-payload';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// An execution whose id is minted for a vshard keeps every key of its own (record, outcome,
// chunks, BullMQ's job and queue) under that vshard's hash tag, from its launch to its end, and so
// (REDIS_SHARDS > 1) do its entries in the by-hour index: nothing on KEY_PREFIX's tag. One Redis
// takes any tag, so this holds without a cluster.

const PREFIX = '{skillrun}';
/** REDIS_SHARDS=3's last active vshard. */
const VSHARD = 213;
const skill = SHARDED_SKILL;

describe('an execution with a sharded id', () => {
  let server: TestRedis;
  let redis: Redis;
  let keys: RedisKeys;
  let store: ExecutionStore;
  let queues: QueueRegistry;
  let launcher: ExecutionLauncher;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url, { maxRetriesPerRequest: null });
    keys = new RedisKeys(PREFIX, 3);
    store = new ExecutionStore(redis, keys, 600);
    queues = new QueueRegistry(redis, PREFIX);
    launcher = new ExecutionLauncher({ redis, store, queues, retryBackoffMs: 100 });
  });
  afterAll(async () => {
    await queues?.close();
    await redis?.quit();
    await server?.stop();
  });

  const payloadOf = shardedPayload;

  /** Every key in Redis not under `tag`. */
  const strayKeys = async (tag: string) =>
    (await redis.keys('*')).filter((key) => !key.startsWith(`${tag}:`));
  /** The ids the index lists for the last hour, everyone's. */
  const listed = async () => {
    const range = { sinceMs: Date.now() - 3_600_000, untilMs: Date.now() + 1 };
    return (await store.index.read({}, range, undefined, 10)).entries.map(({ id }) => id);
  };

  it('writes and reads only keys on its tag, from its launch to its end', async () => {
    await redis.flushall();
    const tag = keys.shards.tag(VSHARD);
    expect(tag).not.toBe(PREFIX);
    const id = keys.shards.mintId(VSHARD);
    const queueName = skillQueueName(skill.name, skill.version);

    const launched = await launcher.launch({ payload: payloadOf(id), skill });
    expect(launched.status).toBe('accepted');
    expect(await redis.exists(`${tag}:exec:${id}`, `${tag}:${queueName}:${id}`)).toBe(2);
    expect(await queues.for(skill.name, skill.version, 'normal', id).getJobState(id)).toBe('waiting');
    expect(await strayKeys(tag)).toEqual([]);

    // Read back through its job on the tag: a worker took it (BullMQ's mark on the job), so it runs.
    expect((await store.records.get(id))?.status).toBe('accepted');
    await redis.hset(`${tag}:${queueName}:${id}`, 'processedOn', Date.now(), 'ats', 1);
    expect((await store.records.get(id))?.status).toBe('running');

    expect(await store.transitions.running(id, Date.now(), { progress: 10 })).toBe('applied');
    expect(await store.chunks.append(id, ['"a"', '"b"'])).toEqual({ appended: 2 });
    const output = { text: 'x'.repeat(200) };
    const end = store.transitions.completeCall(id, JSON.stringify(output), {
      attempt: 1,
      startedAt: Date.now(),
    });
    expect(await store.transitions.send(end)).toBe('applied');

    const ended = await store.records.get(id);
    expect(ended?.status).toBe('completed');
    expect(ended?.output).toEqual(output);
    expect((await store.chunks.read(id, 0, 10)).map(({ chunk }) => chunk)).toEqual(['a', 'b']);
    expect(await redis.exists(`${tag}:exec:${id}:outcome`, `${tag}:exec:${id}:chunks`)).toBe(2);
    expect(await strayKeys(tag)).toEqual([]);
    expect(await listed()).toEqual([id]);
  });

  it('keeps an unmarked id under the prefix, as every execution was before', async () => {
    await redis.flushall();
    const { execution_id: id } = payloadOf(crypto.randomUUID());
    await launcher.launch({ payload: payloadOf(id), skill });
    expect(
      await redis.exists(`${PREFIX}:exec:${id}`, `${PREFIX}:${skillQueueName('echo', '1.0.0')}:${id}`),
    ).toBe(2);
    expect(await strayKeys(PREFIX)).toEqual([]);
    expect((await store.records.get(id))?.status).toBe('accepted');
    expect(await listed()).toEqual([id]);
  });

  it('cancels it on its tag: the record ends and its job leaves its queue', async () => {
    await redis.flushall();
    const id = keys.shards.mintId(VSHARD);
    await launcher.launch({ payload: payloadOf(id), skill });
    const error = { code: 'EXECUTION_CANCELED', message: 'Canceled by tester', recoverable: false };
    expect(await store.transitions.cancel(id, error)).toBe('applied');
    expect(await queues.for(skill.name, skill.version, 'normal', id).remove(id)).toBe(1);
    expect((await store.records.get(id))?.status).toBe('canceled');
    expect(await strayKeys(keys.shards.tag(VSHARD))).toEqual([]);
  });
});
