import type { Redis } from 'ioredis';

/** `INFO <section>` as a map of its `field:value` lines. */
export async function info(redis: Redis, section: string): Promise<Map<string, string>> {
  const text = await redis.info(section);
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** CPU time the Redis server has used so far (all its threads), in µs. */
export async function redisCpuUs(redis: Redis): Promise<number> {
  const cpu = await info(redis, 'cpu');
  return (Number(cpu.get('used_cpu_user')) + Number(cpu.get('used_cpu_sys'))) * 1e6;
}

/**
 * Reads of clients' sockets the server has made so far: fewer than its commands when clients send
 * several in one write (a pipeline, or writes held to the end of a turn).
 */
export async function redisReads(redis: Redis): Promise<number> {
  return Number((await info(redis, 'stats')).get('total_reads_processed'));
}

/**
 * Calls per command since the last `CONFIG RESETSTAT`. Redis counts a command called from a Lua
 * script (BullMQ's scripts) like one sent by a client, so scripts' insides are included. The
 * caller's own CONFIG and INFO calls are left out.
 */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [field, value] of await info(redis, 'commandstats')) {
    const command = field.replace(/^cmdstat_/, '');
    if (command.startsWith('config') || command === 'info') continue;
    calls.set(command, Number(/calls=(\d+)/.exec(value)?.[1] ?? 0));
  }
  return calls;
}
