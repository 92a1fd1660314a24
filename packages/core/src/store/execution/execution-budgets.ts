import type { Redis } from 'ioredis';
import { SkillError } from '../../errors/skill-error';
import { type RedisScript, redisScript } from '../../redis/redis-script';
import type { BudgetSpend, JobBudget } from '../../schemas/budget';
import type { RedisKeys } from '../keys/redis-keys';
import { NANO_DOLLARS, usdOfNano } from './nano-dollars';
import SPEND from './spend-budget.lua';

type SpendReply = [
  status: number,
  limit: string,
  cap: number,
  reservedTokens: number,
  reservedCost: number,
  tokens: number,
  cost: number,
  steps: number,
];

/** Nano-dollars per token: what a model's prompt and completion tokens cost. */
export interface TokenCost {
  input: number;
  output: number;
}

/** What an LLM call holds of a budget while it runs, given back (with what it spent) when it ends. */
export interface Reservation {
  /** The completion tokens the call may write (its provider call's max_tokens); none: no cap. */
  maxTokens?: number;
  tokens: number;
  costNano: number;
}

/**
 * The budgets of execution trees (context.budget): counters on the root's key that every execution
 * of the tree spends from, each spend one atomic script (spend-budget.lua), so that steps running in
 * parallel cannot together spend more than the budget holds. Only executions with a budget touch it.
 */
export class ExecutionBudgets {
  private readonly spendScript: RedisScript<SpendReply>;

  constructor(
    redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.spendScript = redisScript(redis, 'skillrunSpendBudget', SPEND);
  }

  /**
   * Before an LLM call: holds what it may spend (its prompt, estimated, and a completion capped by
   * what is left), or throws BUDGET_EXCEEDED when nothing is.
   */
  async reserve(budget: JobBudget, promptTokens: number, wanted: number | undefined, cost: TokenCost) {
    const reply = await this.spend(budget, 'reserve', [promptTokens, wanted ?? '', cost.input, cost.output]);
    if (reply[0] !== 1) throw exceeded(budget, reply);
    const [, , cap, tokens, costNano] = reply;
    const reservation: Reservation = { tokens, costNano, ...(cap >= 0 ? { maxTokens: cap } : {}) };
    return reservation;
  }

  /** After an LLM call: what it held given back, what it spent counted; whether the budget has room left. */
  async settle(budget: JobBudget, reservation: Reservation, tokens: number, costNano: number) {
    const reply = await this.spend(budget, 'settle', [
      reservation.tokens,
      reservation.costNano,
      tokens,
      costNano,
    ]);
    return reply[0] === 1 ? undefined : exceeded(budget, reply);
  }

  /** Before a composite's steps start: counts them, or throws BUDGET_EXCEEDED (none start). */
  async takeSteps(budget: JobBudget, count: number): Promise<void> {
    const reply = await this.spend(budget, 'step', [count]);
    if (reply[0] !== 1) throw exceeded(budget, reply);
  }

  private spend(budget: JobBudget, op: string, args: (string | number)[]): Promise<SpendReply> {
    const { max_tokens, max_cost_usd, max_steps } = budget.limits;
    return this.spendScript(
      [this.keys.budget(budget.root)],
      [
        op,
        this.clock(),
        this.ttlSeconds,
        max_tokens ?? '',
        max_cost_usd === undefined ? '' : Math.round(max_cost_usd * NANO_DOLLARS),
        max_steps ?? '',
        budget.ends_at ?? '',
        ...args,
      ],
    );
  }
}

/** BUDGET_EXCEEDED naming the limit reached, with the budget and what the tree spent as details. */
function exceeded(budget: JobBudget, [, limit, , , , tokens, cost, steps]: SpendReply): SkillError {
  const spent: BudgetSpend = { tokens, cost_usd: usdOfNano(cost), steps };
  return new SkillError(
    'BUDGET_EXCEEDED',
    `The execution's budget is spent: ${limit} reached (spent ${tokens} tokens, $${spent.cost_usd}, ${steps} steps)`,
    { recoverable: false, details: { limit, budget: budget.limits, spent } },
  );
}
