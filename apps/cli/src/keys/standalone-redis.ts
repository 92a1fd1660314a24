import type { StandaloneData } from '@skillrun/standalone';

/**
 * The environment the keys command takes its Redis from: as given; but without REDIS_URL (nor
 * Sentinels), the Redis of the `npm start` running from this repository when there is one, since
 * its private redis-server listens on a port of its own (said on stderr, without the URL's
 * password).
 */
export async function withStandaloneRedis(
  env: NodeJS.ProcessEnv,
  data: StandaloneData,
): Promise<NodeJS.ProcessEnv> {
  if (env.REDIS_URL || env.REDIS_SENTINELS) return env;
  const url = await data.runningRedisUrl();
  if (url === undefined) return env;
  process.stderr.write(`keys: using the Redis of npm start at ${new URL(url).host} (${data.redisUrlFile})\n`);
  return { ...env, REDIS_URL: url };
}
