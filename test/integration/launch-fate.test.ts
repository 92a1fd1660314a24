import { once } from 'node:events';
import {
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  newJobPayload,
  QueueRegistry,
  RedisKeys,
} from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// A launch Redis applied and wrote to its append-only file, whose reply the gateway never got
// because Redis died just then and came back from that file: the gateway's connection and Redis'
// own file, as in production, the reply's loss made certain by killing Redis right after it.

const PREFIX = '{skillrun}';
const keys = new RedisKeys(PREFIX);
const skill = { name: 'echo', version: '1.0.0', retry: 0 };

describe('the fate of a launch whose reply went with Redis', () => {
  let redis: TestRedis;
  let connection: Redis;
  let launcher: ExecutionLauncher;

  beforeAll(async () => {
    redis = await startTestRedis({ persistent: true });
    // The gateway's connection: no offline queue, every command bounded.
    connection = createRedis(redis.url, { role: 'request' });
    await once(connection, 'ready');
    const store = new ExecutionStore(connection, keys, 3600);
    const queues = new QueueRegistry(connection, PREFIX);
    launcher = new ExecutionLauncher({ redis: connection, store, queues, retryBackoffMs: 100 });
  });
  afterAll(async () => {
    connection?.disconnect();
    await redis?.stop();
  });

  it('takes it back once Redis restarts from its file, so that a refused launch never runs', async () => {
    const payload = newJobPayload({
      skill_id: skill.name,
      skill_version: skill.version,
      inputs: { text: 'lost reply' },
      caller: { id: 'tester', type: 'user' },
      trace_id: 'trace-lost-reply',
      priority: 'normal',
    });
    let restarted: Promise<void> | undefined;
    // Redis has applied the launch (so its file has it) when it dies, for longer than a second.
    const replyLost = async <T>(operation: () => Promise<T>): Promise<T> => {
      await operation();
      await redis.kill();
      restarted = new Promise((resolve) => setTimeout(resolve, 1500)).then(() => redis.restart());
      throw new Error('Connection is closed.');
    };

    await expect(launcher.launch({ payload, skill }, replyLost)).rejects.toThrow('Connection is closed.');

    await restarted;
    const check = new Redis(redis.url);
    try {
      const queue = new QueueRegistry(check, PREFIX).for(skill.name, skill.version, 'normal');
      expect(await queue.getJobState(payload.execution_id)).toBe('unknown');
      expect(await check.exists(keys.execution(payload.execution_id))).toBe(0);
      await queue.close();
    } finally {
      check.disconnect();
    }
  });
});
