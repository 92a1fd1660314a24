import { randomUUID } from 'node:crypto';
import type { JobBudget } from '@skillrun/core';
import { ExecutionStore, RedisKeys, type Reservation } from '@skillrun/core/data';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/test-redis';

const FREE = { input: 0, output: 0 };

/** Many connections, so that the calls really race on the server rather than queue on one socket. */
const RACERS = 8;

describe("ExecutionBudgets: a tree's budget spent atomically on its root's key", () => {
  let server: TestRedis;
  const connections: Redis[] = [];
  let stores: ExecutionStore[];
  const keys = new RedisKeys('{budgets-test}');

  beforeAll(async () => {
    server = await startTestRedis();
    for (let i = 0; i < RACERS; i++) connections.push(new Redis(server.url));
    stores = connections.map((redis) => new ExecutionStore(redis, keys, 600));
  });
  afterAll(async () => {
    await Promise.all(connections.map((redis) => redis.quit()));
    await server?.stop();
  });

  const budgetOf = (limits: JobBudget['limits']): JobBudget => ({ root: randomUUID(), limits });
  const storeAt = (index: number) => stores[index % RACERS] as ExecutionStore;

  it('never hands out more tokens than max_tokens to calls that reserve at once', async () => {
    const budget = budgetOf({ max_tokens: 1000 });
    const taken = await Promise.allSettled(
      Array.from({ length: 40 }, (_, index) => storeAt(index).budgets.reserve(budget, 10, 100, FREE)),
    );
    const granted = taken.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const held = granted.reduce((sum, reservation) => sum + reservation.tokens, 0);
    expect(held).toBeLessThanOrEqual(1000);
    // Nine calls of 110 (990), then one capped at what is left: 10 for its prompt, none to write.
    expect(granted.map(({ maxTokens }) => maxTokens).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      new Array(9).fill(100),
    );
    const refused = taken.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(31);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'BUDGET_EXCEEDED' });
  });

  it('gives back what a call held but did not spend, and refuses once what was spent reaches the limit', async () => {
    const budget = budgetOf({ max_tokens: 300 });
    const { budgets } = storeAt(0);
    const first: Reservation = await budgets.reserve(budget, 20, undefined, FREE);
    // No cap of its own: it holds all that is left, and a parallel call gets nothing.
    expect(first.maxTokens).toBe(280);
    await expect(budgets.reserve(budget, 20, undefined, FREE)).rejects.toMatchObject({
      code: 'BUDGET_EXCEEDED',
    });
    expect(await budgets.settle(budget, first, 120, 0)).toBeUndefined();
    const second = await budgets.reserve(budget, 20, undefined, FREE);
    expect(second.maxTokens).toBe(160);
    const over = await budgets.settle(budget, second, 180, 0);
    expect(over).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      options: { details: { limit: 'max_tokens', spent: { tokens: 300 } } },
    });
  });

  it('caps a call at what the rest of max_cost_usd affords at its price', async () => {
    // $0.001 at 1,000 nano-dollars a prompt token and 2,000 a completion token.
    const budget = budgetOf({ max_cost_usd: 0.001 });
    const reservation = await storeAt(0).budgets.reserve(budget, 100, undefined, {
      input: 1000,
      output: 2000,
    });
    expect(reservation.maxTokens).toBe(450);
    expect(reservation.costNano).toBe(1_000_000);
  });

  it('counts steps against max_steps, all of a launch or none', async () => {
    const budget = budgetOf({ max_steps: 3 });
    const { budgets } = storeAt(0);
    await budgets.takeSteps(budget, 2);
    await expect(budgets.takeSteps(budget, 2)).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
    await budgets.takeSteps(budget, 1);
    await expect(budgets.takeSteps(budget, 1)).rejects.toMatchObject({
      options: { details: { limit: 'max_steps', spent: { steps: 3 } } },
    });
  });

  it('refuses everything once max_duration_ms has passed', async () => {
    const budget: JobBudget = { ...budgetOf({ max_duration_ms: 1 }), ends_at: Date.now() - 1 };
    await expect(storeAt(0).budgets.takeSteps(budget, 1)).rejects.toMatchObject({
      options: { details: { limit: 'max_duration_ms' } },
    });
    await expect(storeAt(0).budgets.reserve(budget, 1, 1, FREE)).rejects.toMatchObject({
      code: 'BUDGET_EXCEEDED',
    });
  });
});
