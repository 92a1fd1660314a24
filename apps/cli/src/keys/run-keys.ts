import { ConfigError } from '@skillrun/core';
import { ApiKeyStore, RedisKeys } from '@skillrun/core/data';
import { StandaloneData } from '@skillrun/standalone';
import { ExitCode } from '../exit-codes';
import { loadKeysConfig } from './keys-config';
import { parseKeysCommandLine } from './keys-jobs';
import { KEYS_USAGE, KeysUsageError } from './keys-usage';
import { connectToRedis, RedisUnreachable } from './redis-connection';
import { withStandaloneRedis } from './standalone-redis';

const HELP = new Set(['help', '--help', '-h']);

/**
 * `skillrun keys create|revoke|list`: API keys straight in Redis, with the services' Redis settings
 * from the environment, or the Redis of the `npm start` running from the repository at `repoRoot`.
 * Resolves to the exit code.
 */
export async function runKeys(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  repoRoot?: string,
): Promise<number> {
  if (HELP.has(argv[0] ?? '')) {
    process.stdout.write(`${KEYS_USAGE}\n`);
    return ExitCode.Ok;
  }
  try {
    const job = parseKeysCommandLine(argv);
    const config = loadKeysConfig(
      repoRoot === undefined ? env : await withStandaloneRedis(env, StandaloneData.of(env, repoRoot)),
    );
    const redis = await connectToRedis(config.redisTarget);
    try {
      return await job(new ApiKeyStore(redis, new RedisKeys(config.KEY_PREFIX)));
    } finally {
      await redis.quit();
    }
  } catch (error) {
    if (error instanceof KeysUsageError || isParseArgsError(error)) {
      process.stderr.write(`keys: ${error.message}\n\n${KEYS_USAGE}\n`);
      return ExitCode.Usage;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return ExitCode.Usage;
    }
    if (error instanceof RedisUnreachable) {
      process.stderr.write(`${error.message}\n`);
      return ExitCode.Unavailable;
    }
    throw error;
  }
}

/** node:util parseArgs reports an unknown option, a missing value or a stray argument by these codes. */
function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}
