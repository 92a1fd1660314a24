import type { Redis } from 'ioredis';

/** An argument of a script (a Buffer for binary data, as BullMQ's packed options). */
export type ScriptArg = string | number | Buffer;

/** A Lua script bound to a connection: called with its keys and arguments, answering `Result`. */
export type RedisScript<Result> = (keys: string[], args: ScriptArg[]) => Promise<Result>;

type ScriptCommand = (...keysThenArgs: ScriptArg[]) => Promise<unknown>;

/**
 * Defines a script on the connection (sent once, then run by its SHA; ioredis loads it again after
 * a restart) and answers a typed function that runs it. The one place a script's command is looked
 * up on the connection, so no caller needs a cast.
 */
export function redisScript<Result>(redis: Redis, name: string, lua: string): RedisScript<Result> {
  redis.defineCommand(name, { lua });
  const command = (redis as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
  return (keys, args) => command.call(redis, keys.length, ...keys, ...args) as Promise<Result>;
}
