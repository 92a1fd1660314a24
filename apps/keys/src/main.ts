import { parseArgs } from 'node:util';
import {
  ApiKeyStore,
  ConfigError,
  exitOnStartupError,
  NewApiKey,
  RedisKeys,
  type RedisTarget,
  SchemaValidator,
  SkillError,
  targetOptions,
} from '@skillrun/core';
import { Redis } from 'ioredis';
import { loadKeysConfig } from './config';

const USAGE = `Usage: npm run keys -- <command>   (npm run -s keys in scripts: npm prints a banner on stdout)

  create --caller <id> --scopes <scope,...> [--skills <skill-id,...>] [--name <text>]
      Prints the new key on stdout (it is shown this once) and its record as JSON on stderr.
  revoke <id>
      Revokes the key with this id for good and prints its record.
  list [--caller <id>]
      Prints one JSON record per key, oldest first; never a key or a secret.

Scopes: skill:invoke, skill:read, admin. Environment: REDIS_URL, KEY_PREFIX, REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD.`;

const HELP = new Set(['help', '--help', '-h']);

/** A command line that does not say what to do (exit code 2). */
class UsageError extends Error {}

class RedisUnreachable extends Error {}

/** The work a command line asks for, checked before Redis is reached; resolves to the exit code. */
type Job = (store: ApiKeyStore) => Promise<number>;

const newApiKey = new SchemaValidator(NewApiKey, 'API key');

function parseCommandLine(argv: string[]): Job {
  const [command, ...args] = argv;
  switch (command) {
    case 'create':
      return createJob(args);
    case 'revoke':
      return revokeJob(args);
    case 'list':
      return listJob(args);
    default:
      throw new UsageError(command === undefined ? 'no command given' : `unknown command "${command}"`);
  }
}

function createJob(args: string[]): Job {
  const { values } = parseArgs({
    args,
    options: {
      caller: { type: 'string' },
      scopes: { type: 'string' },
      skills: { type: 'string' },
      name: { type: 'string' },
    },
  });
  if (values.caller === undefined || values.scopes === undefined) {
    throw new UsageError('create needs --caller and --scopes');
  }
  const request = validRequest({
    caller_id: values.caller,
    scopes: commaList(values.scopes),
    ...(values.skills === undefined ? {} : { skills: commaList(values.skills) }),
    ...(values.name === undefined ? {} : { name: values.name }),
  });
  return async (store) => {
    const { key, record } = await store.create({
      callerId: request.caller_id,
      scopes: request.scopes,
      skills: request.skills,
      name: request.name,
    });
    process.stdout.write(`${key}\n`);
    process.stderr.write(`${JSON.stringify(record)}\n`);
    return 0;
  };
}

function revokeJob(args: string[]): Job {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true });
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new UsageError('revoke needs exactly one key id');
  return async (store) => {
    if (!(await store.revoke(id))) {
      process.stderr.write(`keys: no API key has the id "${id}"\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(await store.get(id))}\n`);
    return 0;
  };
}

function listJob(args: string[]): Job {
  const { values } = parseArgs({ args, options: { caller: { type: 'string' } } });
  return async (store) => {
    for (const record of await store.list(values.caller)) {
      process.stdout.write(`${JSON.stringify(record)}\n`);
    }
    return 0;
  };
}

function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function validRequest(data: unknown): NewApiKey {
  try {
    return newApiKey.parse(data);
  } catch (error) {
    if (error instanceof SkillError && error.code === 'INVALID_INPUT') throw new UsageError(error.message);
    throw error;
  }
}

/** node:util parseArgs reports an unknown option, a missing value or a stray argument by these codes. */
function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}

/** One connection, no retries: a command-line tool should say at once that Redis is away. */
async function connect(target: RedisTarget): Promise<Redis> {
  const redis = new Redis(target.url, {
    ...targetOptions(target),
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // connect() only says "Connection is closed."; the event says why.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => {
    cause = error;
  });
  try {
    await redis.connect();
  } catch (error) {
    throw new RedisUnreachable(
      `keys: cannot reach Redis (REDIS_URL): ${(cause ?? (error as Error)).message}`,
    );
  }
  return redis;
}

async function main(argv: string[]): Promise<number> {
  if (HELP.has(argv[0] ?? '')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const job = parseCommandLine(argv);
  const config = loadKeysConfig(process.env);
  const redis = await connect(config.redisTarget);
  try {
    return await job(new ApiKeyStore(redis, new RedisKeys(config.KEY_PREFIX)));
  } finally {
    await redis.quit();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`keys: ${error.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    exitOnStartupError(error, [ConfigError, RedisUnreachable]);
  },
);
