import { ConfigError } from '@skillrun/core';
import { findRedisServer, pingRedis, RedisServerProcess } from '@skillrun/redis-server';
import type { StandaloneData } from './standalone-data';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface RedisChoice {
  url: string;
  /** Set when this process started its own redis-server; stop it on exit. */
  owned?: RedisServerProcess;
  /**
   * Set when Sentinels or a cluster's nodes name the servers (REDIS_SENTINELS,
   * REDIS_CLUSTER_NODES): `url` then gives only the user, password and TLS, and names no server
   * that `skillrun keys` could be told of.
   */
  named?: true;
}

/**
 * Where the all-in-one service keeps its queue: the servers Sentinels or a cluster name, when they
 * are set (never a private server beside them, which nothing would use); REDIS_URL when set; else a Redis already answering
 * on the default address; else a private redis-server (append-only file in the data folder). Not
 * while another `npm start`'s private redis-server runs in the same data folder: two servers
 * appending to one file corrupt it, and a server shared would stop with the process that owns it.
 */
export async function chooseRedis(
  env: NodeJS.ProcessEnv,
  data: StandaloneData,
  defaultUrl = DEFAULT_REDIS_URL,
): Promise<RedisChoice> {
  if (env.REDIS_SENTINELS || env.REDIS_CLUSTER_NODES)
    return { url: env.REDIS_URL || defaultUrl, named: true };
  if (env.REDIS_URL) return { url: env.REDIS_URL };
  if (await pingRedis(defaultUrl)) return { url: defaultUrl };
  if (!findRedisServer(env.PATH)) {
    throw new Error(
      [
        `Nothing answers at ${defaultUrl} and there is no redis-server on the PATH.`,
        'Either install Redis 7 (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis),',
        'or point REDIS_URL at a Redis you have, e.g. REDIS_URL=redis://my-redis:6379 npm start',
      ].join('\n'),
    );
  }
  const running = await data.runningRedisUrl();
  if (running !== undefined) {
    throw new ConfigError(
      `another npm start's private Redis runs at ${running} (data in ${data.dir}): set REDIS_URL=${running} to share it, or SKILLRUN_DATA_DIR to another folder for a Redis of its own`,
    );
  }
  // Ctrl-C stops npm start, which closes the gateway and the worker, then this Redis.
  const owned = await RedisServerProcess.start({ dir: data.redisDir, ownGroup: true });
  return { url: owned.url, owned };
}
