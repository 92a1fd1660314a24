import { refillWithin } from '@skillrun/core';
import type { SkillPauses } from '@skillrun/core/data';
import { Gauge, type Registry } from 'prom-client';

export interface PausedSkillsGaugeDeps {
  pauses: SkillPauses;
  /** How long a scrape waits on Redis; past it, the gauge has no sample rather than a stale one. */
  timeoutMs: number;
}

/**
 * The skills an operator paused (1 each), read from Redis when Prometheus scrapes a gateway: every
 * gateway reports the same, so aggregate with max. A paused skill's executions wait in its queues,
 * which the queue gauges show growing while it is.
 */
export function registerPausedSkillsGauge(metrics: Registry, deps: PausedSkillsGaugeDeps): void {
  const paused: Gauge<'skill'> = new Gauge({
    name: 'skillrun_skill_paused',
    help: 'Skills an operator paused (1 each): their executions are accepted and wait, none starts.',
    labelNames: ['skill'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(paused, deps.timeoutMs, async () => {
        for (const skill of (await deps.pauses.all()).keys()) paused.set({ skill }, 1);
      });
    },
  });
}
