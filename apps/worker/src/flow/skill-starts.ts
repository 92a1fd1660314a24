import type { SkillDefinition } from '@skillrun/core';
import type { RateStarts, StartTaken } from '@skillrun/core/data';
import type { StartGate } from '../consumers/queue-consumer';
import type { WorkerMetrics } from '../metrics/worker-metrics';

/**
 * The starts of a hosted skill version's queues: its skill.json `rate_limit`, shared by every
 * worker and version of the skill (RateStarts), read from its current load at each start; free
 * when it has none.
 */
export class SkillStarts implements StartGate {
  constructor(
    private readonly rate: RateStarts,
    private readonly definition: () => SkillDefinition,
    private readonly metrics: WorkerMetrics,
  ) {}

  limits(): boolean {
    return Boolean(this.definition().rate_limit);
  }

  async take(start: string): Promise<StartTaken> {
    const { name, rate_limit: limit } = this.definition();
    if (!limit) return { taken: true };
    const taken = await this.rate.take(name, limit, start);
    if (!taken.taken) this.metrics.startDeferred(name);
    return taken;
  }

  async giveBack(start: string): Promise<void> {
    const { name, rate_limit: limit } = this.definition();
    if (limit) await this.rate.giveBack(name, start);
  }
}
