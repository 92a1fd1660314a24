import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  newJobPayload,
  QueueRegistry,
  RedisKeys,
  skillQueueName,
} from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// A launch Redis applied and wrote to its append-only file, whose reply the gateway never got
// because Redis died just then and came back from that file: the gateway's connection and Redis'
// own file, as in production, the reply's loss made certain by a proxy that drops Redis' answers
// on the launch's connection, Redis killed once the launch is in it.

const PREFIX = '{skillrun}';
const keys = new RedisKeys(PREFIX);
const skill = { name: 'echo', version: '1.0.0', retry: 0 };

describe('the fate of a launch whose reply went with Redis', () => {
  let redis: TestRedis;
  let proxy: TcpProxy;
  let connection: Redis;
  let launcher: ExecutionLauncher;

  beforeAll(async () => {
    redis = await startTestRedis({ persistent: true });
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
    // The gateway's connection: no offline queue, every command bounded.
    connection = createRedis(proxy.url, { role: 'request' });
    await once(connection, 'ready');
    const store = new ExecutionStore(connection, keys, 3600);
    const queues = new QueueRegistry(connection, PREFIX);
    launcher = new ExecutionLauncher({ redis: connection, store, queues, retryBackoffMs: 100 });
  });
  afterAll(async () => {
    connection?.disconnect();
    await proxy?.close();
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
    const check = new Redis(redis.url);
    const jobKey = keys.job(skillQueueName(skill.name, skill.version), payload.execution_id);
    // A launch before, answered: the connection knows the scripts and the queue, as a gateway's
    // does after its first invocation (else the launch would wait for replies before it is sent).
    await launcher.launch({ payload: { ...payload, execution_id: randomUUID() }, skill });
    proxy.dropReplies();
    const launched = launcher.launch({ payload, skill });
    // Redis has applied the launch (so its file has it) when it dies, for longer than a second.
    await expect.poll(() => check.exists(jobKey), { interval: 5 }).toBe(1);
    check.disconnect();
    await redis.kill();
    const restarted = new Promise((resolve) => setTimeout(resolve, 1500)).then(() => redis.restart());

    await expect(launched).rejects.toThrow();

    await restarted;
    const after = new Redis(redis.url);
    try {
      const queue = new QueueRegistry(after, PREFIX).for(skill.name, skill.version, 'normal');
      expect(await queue.getJobState(payload.execution_id)).toBe('unknown');
      expect(await after.exists(keys.execution(payload.execution_id))).toBe(0);
      await queue.close();
    } finally {
      after.disconnect();
    }
  });
});
