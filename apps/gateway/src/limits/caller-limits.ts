import { SkillError } from '@skillrun/core';
import {
  type DailySpend,
  type InFlightSlots,
  NANO_DOLLARS,
  type RedisKeys,
  type SlotClaim,
  usdOfNano,
} from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type EffectiveLimits, type Limits, limitsFor } from './limits-config';
import { joinRateLimitHeaders, type QuotaState, rateLimitHeaders } from './rate-limit-headers';

const MICRO_DOLLARS = 1e6;

/** Who is counted: an authenticated caller by id, anyone else by network address. */
export interface Subject {
  callerId: string | undefined;
  address: string;
  skillId: string;
  /** The daily budget of the API key presented, which wins over LIMITS' for its caller. */
  dailyBudgetUsd?: number;
}

/**
 * Where a subject stands against its quotas: the RateLimit headers of the quotas that applied (for
 * the answer, on success and on refusal alike), and the 429 when one of them is exceeded.
 */
export interface LimitCheck {
  headers: Record<string, string>;
  refusal?: SkillError;
  /** The caller whose daily spend the execution counts to (it has a daily budget). */
  dailySpendOf?: string;
}

/** How long a caller refused for concurrency is told to wait: slots free up as executions end. */
const CONCURRENCY_RETRY_SECONDS = 1;

interface RateCheck {
  policy: string;
  rate: NonNullable<EffectiveLimits['overall']['rate']>;
  key: string;
}

/**
 * Per-caller rate limits (fixed windows, counted in Redis by rate-limiter-flexible) and concurrency
 * quotas (in-flight sets), overall and per skill, shared by every gateway. Over a limit is 429
 * RATE_LIMIT_EXCEEDED with Retry-After; every answer carries the quotas' RateLimit headers. A caller
 * with a daily budget whose day's spend has reached it is refused with 429 BUDGET_EXCEEDED until
 * midnight UTC (one GET, only for such callers).
 */
export class CallerLimits {
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(
    private readonly limits: Limits,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly slots: InFlightSlots,
    private readonly dailySpend: DailySpend,
  ) {}

  /** Counts one invocation against the subject's rate limits. */
  consume(subject: Subject): Promise<LimitCheck> {
    const dailyBudgetUsd =
      subject.dailyBudgetUsd ?? limitsFor(this.limits, subject.callerId, subject.skillId).dailyBudgetUsd;
    if (dailyBudgetUsd === undefined || subject.callerId === undefined) return this.consumeRates(subject);
    return this.consumeWithBudget(subject, subject.callerId, dailyBudgetUsd);
  }

  /** The rates, and the caller's daily budget beside them. */
  private async consumeWithBudget(
    subject: Subject,
    callerId: string,
    dailyBudgetUsd: number,
  ): Promise<LimitCheck> {
    const [rates, budget] = await Promise.all([
      this.consumeRates(subject),
      this.checkDailyBudget(callerId, dailyBudgetUsd),
    ]);
    return {
      headers: joinRateLimitHeaders(rates.headers, budget.headers),
      dailySpendOf: subject.callerId,
      ...(budget.refusal ? { refusal: budget.refusal } : rates.refusal ? { refusal: rates.refusal } : {}),
    };
  }

  /** Whether the caller's spend today has reached its daily budget; the quota in micro-dollars. */
  private async checkDailyBudget(callerId: string, budgetUsd: number): Promise<LimitCheck> {
    const { costNano, resetSeconds } = await this.dailySpend.today(callerId);
    const quota = Math.round(budgetUsd * MICRO_DOLLARS);
    const spent = Math.floor(costNano / (NANO_DOLLARS / MICRO_DOLLARS));
    const state = { policy: 'daily-budget', quota, remaining: Math.max(quota - spent, 0), resetSeconds };
    const headers = rateLimitHeaders([{ ...state, windowSeconds: 86_400, unit: 'usd-micros' }]);
    if (spent < quota) return { headers };
    const refusal = new SkillError(
      'BUDGET_EXCEEDED',
      `Daily budget spent: $${usdOfNano(costNano)} of $${budgetUsd} today (UTC); it resets in ${resetSeconds} s`,
      {
        details: {
          policy: 'daily-budget',
          budget_usd: budgetUsd,
          spent_usd: usdOfNano(costNano),
          retry_after_seconds: resetSeconds,
        },
        suggestedAction: `Wait ${resetSeconds} s (midnight UTC), or ask an operator for a larger daily_budget_usd`,
      },
    );
    return { headers, refusal };
  }

  private async consumeRates(subject: Subject): Promise<LimitCheck> {
    const { overall, skill } = limitsFor(this.limits, subject.callerId, subject.skillId);
    const partition = partitionOf(subject);
    const checks: RateCheck[] = [];
    if (overall.rate) checks.push({ policy: 'invocations', rate: overall.rate, key: partition });
    if (skill.rate) {
      checks.push({
        policy: 'skill-invocations',
        rate: skill.rate,
        key: `${partition}:skill:${subject.skillId}`,
      });
    }
    if (checks.length === 0) return { headers: {} };
    const outcomes = await Promise.all(checks.map((check) => this.count(check)));
    const headers = rateLimitHeaders(outcomes.map(({ state }) => state));
    const refused = outcomes.filter(({ allowed }) => !allowed);
    if (refused.length === 0) return { headers };
    const retryAfter = Math.max(...refused.map(({ state }) => state.resetSeconds ?? 1));
    const [first] = refused;
    const refusal = rateLimitExceeded(
      `Rate limit exceeded: at most ${first?.state.quota} invocations${of(first?.state.policy, subject)} per ${first?.state.windowSeconds} s`,
      { policy: first?.state.policy, quota: first?.state.quota, window_seconds: first?.state.windowSeconds },
      retryAfter,
    );
    return { headers, refusal };
  }

  /**
   * Takes a slot in the subject's concurrency quotas for this execution, unless one is full (the
   * refusal). `slots` are the slots taken: the execution frees them when it ends.
   */
  async take(subject: Subject, executionId: string): Promise<LimitCheck & { slots: SlotClaim[] }> {
    const { overall, skill } = limitsFor(this.limits, subject.callerId, subject.skillId);
    const partition = partitionOf(subject);
    const quotas: { policy: string; claim: SlotClaim }[] = [];
    if (overall.concurrency) {
      quotas.push({
        policy: 'in-flight',
        claim: { key: this.keys.flow.inFlight(partition), limit: overall.concurrency },
      });
    }
    if (skill.concurrency) {
      const key = this.keys.flow.inFlight(partition, 'skill', subject.skillId);
      quotas.push({ policy: 'skill-in-flight', claim: { key, limit: skill.concurrency } });
    }
    if (quotas.length === 0) return { headers: {}, slots: [] };
    const claims = quotas.map(({ claim }) => claim);
    const taken = await this.slots.take(executionId, claims);
    if (!taken.taken) {
      const policy = quotas.find(({ claim }) => claim === taken.full)?.policy ?? 'in-flight';
      return {
        headers: rateLimitHeaders([{ policy, quota: taken.full.limit, remaining: 0 }]),
        refusal: rateLimitExceeded(
          `Concurrency quota reached: ${taken.inFlight} executions${of(policy, subject)} in flight, at most ${taken.full.limit}`,
          { policy, quota: taken.full.limit },
          CONCURRENCY_RETRY_SECONDS,
        ),
        slots: [],
      };
    }
    const headers = rateLimitHeaders(
      quotas.map(({ policy, claim }, index) => ({
        policy,
        quota: claim.limit,
        remaining: Math.max(claim.limit - (taken.inFlight[index] ?? claim.limit), 0),
      })),
    );
    return { headers, slots: claims };
  }

  /** Gives back the slots of an execution that could not be started. */
  release(executionId: string, claims: SlotClaim[]): Promise<void> {
    return this.slots.release(executionId, claims);
  }

  private async count(check: RateCheck): Promise<{ allowed: boolean; state: QuotaState }> {
    const toState = (answer: RateLimiterRes): QuotaState => ({
      policy: check.policy,
      quota: check.rate.requests,
      remaining: answer.remainingPoints,
      windowSeconds: check.rate.per_seconds,
      resetSeconds: Math.max(Math.ceil(answer.msBeforeNext / 1000), 0),
    });
    try {
      return { allowed: true, state: toState(await this.limiter(check.rate).consume(check.key)) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { allowed: false, state: toState(rejection) };
      throw rejection;
    }
  }

  private limiter({ requests, per_seconds }: RateCheck['rate']): RateLimiterRedis {
    const name = `${requests}/${per_seconds}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${this.keys.flow.rateLimits()}:${name}`,
        points: requests,
        duration: per_seconds,
      });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }
}

function partitionOf({ callerId, address }: Subject): string {
  return callerId === undefined ? `address:${address}` : `caller:${encodeURIComponent(callerId)}`;
}

function of(policy: string | undefined, { skillId }: Subject): string {
  return policy?.startsWith('skill-') ? ` of "${skillId}"` : '';
}

function rateLimitExceeded(
  message: string,
  details: Record<string, unknown>,
  retryAfter: number,
): SkillError {
  return new SkillError('RATE_LIMIT_EXCEEDED', message, {
    details: { ...details, retry_after_seconds: retryAfter },
    suggestedAction: `Wait ${retryAfter} s before retrying`,
  });
}
