import { ExecutionStore, newJobPayload, RedisKeys } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const TTL_SECONDS = 600;

describe("ExecutionChunks: an execution's streamed output in a Redis stream", () => {
  let server: TestRedis;
  let redis: Redis;
  let store: ExecutionStore;
  const keys = new RedisKeys('{chunks-test}');

  beforeAll(async () => {
    server = await startTestRedis();
    redis = new Redis(server.url);
    store = new ExecutionStore(redis, keys, TTL_SECONDS);
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  const created = async () => {
    const payload = newJobPayload({
      skill_id: 'streamer',
      skill_version: '1.0.0',
      inputs: {},
      caller: { id: 'tester', type: 'user' },
      trace_id: 'trace',
      priority: 'normal',
    });
    await store.records.create(payload, { max_attempts: 1 });
    return payload.execution_id;
  };

  it('numbers chunks from 1 across appends, reads them after a seq in pages, and counts them on the record', async () => {
    const id = await created();
    expect(await store.chunks.append(id, ['"a"', '{"n":1}'])).toEqual({ appended: 2 });
    expect(await store.chunks.append(id, ['[true]'])).toEqual({ appended: 3 });
    expect(await store.chunks.read(id, 0, 100)).toEqual([
      { seq: 1, chunk: 'a' },
      { seq: 2, chunk: { n: 1 } },
      { seq: 3, chunk: [true] },
    ]);
    expect(await store.chunks.read(id, 1, 1)).toEqual([{ seq: 2, chunk: { n: 1 } }]);
    expect(await store.chunks.read(id, 3, 100)).toEqual([]);
    expect((await store.records.read(id))?.chunks).toBe(3);
    // While it runs, the stream lives as long as the record: no expiry yet.
    expect(await redis.pttl(keys.chunks(id))).toBe(-1);
  });

  it('refuses chunks once the execution has ended, and expires the stream with the record', async () => {
    const id = await created();
    await store.chunks.append(id, ['1']);
    await store.transitions.send(
      store.transitions.completeCall(id, '{}', { attempt: 1, startedAt: Date.now() }),
    );
    expect(await store.chunks.append(id, ['2'])).toEqual({ refused: 'ended' });
    expect(await store.chunks.read(id, 0, 100)).toEqual([{ seq: 1, chunk: 1 }]);
    const recordTtl = await redis.pttl(keys.execution(id));
    const streamTtl = await redis.pttl(keys.chunks(id));
    expect(recordTtl).toBeGreaterThan(0);
    expect(streamTtl).toBeGreaterThan(0);
    expect(streamTtl).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    expect(await store.chunks.append('00000000-0000-4000-8000-000000000000', ['1'])).toEqual({
      refused: 'missing',
    });
  });

  it('writes nothing for an execution that streamed nothing', async () => {
    const id = await created();
    await store.transitions.fail(id, 'failed', { code: 'INTERNAL_ERROR', message: 'x', recoverable: false });
    expect(await redis.exists(keys.chunks(id))).toBe(0);
    expect((await store.records.read(id))?.chunks).toBe(0);
  });
});
