import type { JobPayload } from '@skillrun/core';
import { type DailySpend, type ExecutionStore, NANO_DOLLARS } from '@skillrun/core/data';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { LoadedSkill } from '../skills/loaded-skill';

export interface FixedCostDeps {
  store: ExecutionStore;
  dailySpend: DailySpend;
  metrics: WorkerMetrics;
}

/**
 * A code (or remote API) skill's declared cost per run (skill.json `cost_usd`), counted once its run has ended:
 * in its usage, the cost metric, its caller's day (daily budgets) and its tree's budget, whose next
 * spends are refused once it is over. Nothing is written for a skill that declares none.
 */
export class FixedCost {
  constructor(private readonly deps: FixedCostDeps) {}

  /** Whether the skill's runs cost anything to charge (most skills': no, and nothing is awaited). */
  applies({ definition, body }: LoadedSkill): boolean {
    return Boolean(definition.cost_usd) && (body.kind === 'code' || body.kind === 'remote');
  }

  async charge(payload: JobPayload, skill: LoadedSkill): Promise<void> {
    const { cost_usd: usd } = skill.definition;
    if (!usd || !this.applies(skill)) return;
    const costNano = Math.round(usd * NANO_DOLLARS);
    const { store, dailySpend, metrics } = this.deps;
    metrics.cost(skill.definition.name, payload.caller.id, costNano);
    const { budget, daily_spend_of: payer } = payload;
    await Promise.all([
      store.usage.add(payload.execution_id, { increments: [], costNano }),
      ...(payer === undefined ? [] : [dailySpend.add(payer, costNano)]),
      ...(budget ? [store.budgets.settle(budget, { tokens: 0, costNano: 0 }, 0, costNano)] : []),
    ]);
  }
}
