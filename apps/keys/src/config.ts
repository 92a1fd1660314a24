import { type Static, Type } from '@sinclair/typebox';
import { CommonConfig, parseEnv } from '@skillrun/core';

export const KeysConfigSchema = Type.Object({
  REDIS_URL: CommonConfig.REDIS_URL,
  KEY_PREFIX: CommonConfig.KEY_PREFIX,
});
export type KeysConfig = Static<typeof KeysConfigSchema>;

/** Reads the Redis the services use, with the same variables and defaults. */
export function loadKeysConfig(env: NodeJS.ProcessEnv): Readonly<KeysConfig> {
  return parseEnv(KeysConfigSchema, env);
}
