import type { Redis } from 'ioredis';

/** Every key of a Redis and every string stored under it, as text: to prove a secret is nowhere. */
export async function everythingStored(redis: Redis): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of redis.scanStream({ count: 100 }) as AsyncIterable<string[]>) {
    for (const key of keys) found.push(key, ...(await valuesOf(redis, key)));
  }
  return found;
}

async function valuesOf(redis: Redis, key: string): Promise<string[]> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return [(await redis.get(key)) ?? ''];
    case 'hash':
      return Object.entries(await redis.hgetall(key)).flat();
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, 0, -1);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'stream':
      return (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields);
    default:
      return [`(${type})`];
  }
}
