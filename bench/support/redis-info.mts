import { info } from '@skillrun/redis-server';
import type { Redis } from 'ioredis';

export async function usedMemory(redis: Redis): Promise<number> {
  return Number((await info(redis, 'memory')).get('used_memory'));
}

export async function redisVersion(redis: Redis): Promise<string> {
  return (await info(redis, 'server')).get('redis_version') ?? 'unknown';
}
