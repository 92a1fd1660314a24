import { once } from 'node:events';
import {
  createRedis,
  ExecutionLauncher,
  ExecutionStore,
  QueueRegistry,
  RedisKeys,
} from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { TcpProxy } from './tcp-proxy';
import { startTestRedis, type TestRedis, type TestRedisOptions } from './test-redis';

export const LAUNCH_PREFIX = '{skillrun}';
export const launchKeys = new RedisKeys(LAUNCH_PREFIX);

/**
 * An ExecutionLauncher on a Redis of its own, its connection (a gateway's kind: no offline queue,
 * every command bounded) through a proxy, so that a test can hold back or drop Redis' replies to
 * the launches while another connection, straight to `redis.url`, reads what they wrote.
 */
export interface ProxiedLauncher {
  redis: TestRedis;
  proxy: TcpProxy;
  connection: Redis;
  launcher: ExecutionLauncher;
  close(): Promise<void>;
}

export async function startProxiedLauncher(
  options: TestRedisOptions & { commandTimeoutMs?: number } = {},
): Promise<ProxiedLauncher> {
  const { commandTimeoutMs, ...redisOptions } = options;
  const redis = await startTestRedis(redisOptions);
  let proxy: TcpProxy | undefined;
  let connection: Redis | undefined;
  const close = async () => {
    connection?.disconnect();
    await proxy?.close();
    await redis.stop();
  };
  try {
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
    connection = createRedis(proxy.url, { role: 'request', commandTimeoutMs });
    await once(connection, 'ready');
    const launcher = new ExecutionLauncher({
      redis: connection,
      store: new ExecutionStore(connection, launchKeys, 3600),
      queues: new QueueRegistry(connection, LAUNCH_PREFIX),
      retryBackoffMs: 100,
    });
    return { redis, proxy, connection, launcher, close };
  } catch (error) {
    // Started in part: nothing is left running.
    await close();
    throw error;
  }
}
