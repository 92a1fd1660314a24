import { type Static, Type } from '@sinclair/typebox';
import { CommonConfig, parseEnv } from '@skillrun/core';
import { type RedisTarget, redisTargetOf } from '@skillrun/core/data';

export const KeysConfigSchema = Type.Object({
  REDIS_URL: CommonConfig.REDIS_URL,
  KEY_PREFIX: CommonConfig.KEY_PREFIX,
  REDIS_SENTINELS: CommonConfig.REDIS_SENTINELS,
  REDIS_SENTINEL_NAME: CommonConfig.REDIS_SENTINEL_NAME,
  REDIS_SENTINEL_PASSWORD: CommonConfig.REDIS_SENTINEL_PASSWORD,
});
export type KeysConfig = Static<typeof KeysConfigSchema>;

/** Reads the Redis the services use, with the same variables and defaults. */
export function loadKeysConfig(env: NodeJS.ProcessEnv): Readonly<KeysConfig & { redisTarget: RedisTarget }> {
  const parsed = parseEnv(KeysConfigSchema, env);
  return Object.freeze({ ...parsed, redisTarget: redisTargetOf(parsed) });
}
