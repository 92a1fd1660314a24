import type { Redis } from 'ioredis';

/**
 * Whether the connection refuses what is sent on it now without sending it: it is not ready (Redis
 * away, or the connection closed) and keeps no offline queue to send it later (the gateway's
 * connections). A command sent then never leaves the process, so it has no effect to look for.
 */
export function refusesCommands(redis: Redis): boolean {
  return redis.status !== 'ready' && redis.options.enableOfflineQueue === false;
}
