import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys/redis-keys';

/** Two days: a day's counter outlives the day it counts, for the gateways still reading it at midnight. */
const DAY_COUNTER_TTL_SECONDS = 2 * 86_400;
const DAY_MS = 86_400_000;

/**
 * What each caller with a daily budget (LIMITS' daily_budget_usd) spent today, in nano-dollars, one
 * counter per UTC day: workers add to it as priced answers arrive, gateways read it at admission.
 */
export class DailySpend {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  async add(callerId: string, costNano: number): Promise<void> {
    const key = this.keys.callers.dailySpend(callerId, dayOf(this.clock()));
    await this.redis.multi().incrby(key, Math.round(costNano)).expire(key, DAY_COUNTER_TTL_SECONDS).exec();
  }

  /** Today's spend so far, and the seconds until the day (and its counter) resets. */
  async today(callerId: string): Promise<{ costNano: number; resetSeconds: number }> {
    const now = this.clock();
    const spent = await this.redis.get(this.keys.callers.dailySpend(callerId, dayOf(now)));
    return { costNano: Number(spent ?? 0), resetSeconds: Math.ceil((DAY_MS - (now % DAY_MS)) / 1000) };
  }
}

function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}
