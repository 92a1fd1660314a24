import { Redis, type RedisOptions } from 'ioredis';

export interface RedisConnectionOptions {
  /** `request` connections fail fast (HTTP handlers); `queue` connections wait out outages (workers). */
  role: 'request' | 'queue';
  /** For `request` connections: how long one command may take before it fails. */
  commandTimeoutMs?: number;
}

/** ioredis connections configured the way BullMQ's production guide asks for each role. */
export function createRedis(url: string, { role, commandTimeoutMs = 800 }: RedisConnectionOptions): Redis {
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    lazyConnect: false,
  };
  const options: RedisOptions =
    role === 'request'
      ? { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs }
      : { ...common, maxRetriesPerRequest: null, enableOfflineQueue: true };
  const redis = new Redis(url, options);
  // Connection errors are expected while Redis is away; readiness checks report them.
  redis.on('error', () => {});
  return redis;
}
