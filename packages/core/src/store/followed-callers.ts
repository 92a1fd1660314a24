import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys/redis-keys';

/**
 * The callers whose executions someone follows live (GET /executions/events), each until a time
 * that the gateway keeping the stream open renews: a gateway that dies stops renewing, and the
 * caller is no longer followed once its time has passed.
 */
export class FollowedCallers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The caller is followed until `untilMs`. Gateways renew long before it passes, so one that sets an
   * earlier time than another's is corrected at the other's next renewal.
   */
  async follow(owner: string, untilMs: number): Promise<void> {
    await this.redis.hset(this.keys.notifications.followedCallers(), owner, String(untilMs));
  }

  /** The callers followed now; the entries whose time has passed are removed on the way. */
  async followed(): Promise<Set<string>> {
    const key = this.keys.notifications.followedCallers();
    const now = this.clock();
    const entries = Object.entries(await this.redis.hgetall(key));
    const lapsed = entries.filter(([, until]) => Number(until) < now).map(([owner]) => owner);
    if (lapsed.length > 0) await this.redis.hdel(key, ...lapsed);
    return new Set(entries.filter(([, until]) => Number(until) >= now).map(([owner]) => owner));
  }
}
