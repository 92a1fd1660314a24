import { findRedisServer, pingRedis, RedisServerProcess } from '@skillrun/redis-server';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface RedisChoice {
  url: string;
  /** Set when this process started its own redis-server; stop it on exit. */
  owned?: RedisServerProcess;
}

/**
 * Where the all-in-one service keeps its queue: REDIS_URL when set; else a Redis already answering
 * on the default address; else a private redis-server (append-only file in `dataDir`).
 */
export async function chooseRedis(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  defaultUrl = DEFAULT_REDIS_URL,
): Promise<RedisChoice> {
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
  const owned = await RedisServerProcess.start({ dir: dataDir });
  return { url: owned.url, owned };
}
