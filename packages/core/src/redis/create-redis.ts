import { Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from './redis-target';

export interface RedisConnectionOptions {
  /** `request` connections fail fast (HTTP handlers); `queue` connections wait out outages (workers). */
  role: 'request' | 'queue';
  /** For `request` connections: how long one command may take before it fails. */
  commandTimeoutMs?: number;
}

/**
 * ioredis connections configured the way BullMQ's production guide asks for each role, to one
 * server (a URL) or to the master a set of Sentinels names (ioredis follows failovers).
 */
export function createRedis(
  target: RedisTarget | string,
  { role, commandTimeoutMs = 800 }: RedisConnectionOptions,
): Redis {
  const { url, sentinels } = typeof target === 'string' ? { url: target, sentinels: undefined } : target;
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    lazyConnect: false,
    ...(sentinels
      ? {
          sentinels: sentinels.nodes,
          name: sentinels.name,
          ...(sentinels.password === undefined ? {} : { sentinelPassword: sentinels.password }),
          // rediss:// in REDIS_URL: the master is reached over TLS, as it would be directly.
          enableTLSForSentinelMode: url.startsWith('rediss://'),
        }
      : {}),
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
