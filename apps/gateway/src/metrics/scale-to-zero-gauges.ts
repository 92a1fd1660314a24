import { refillWithin } from '@skillrun/core';
import { type QueueRegistry, queueHeadAges, queueJobsByState, type SkillRegistry } from '@skillrun/core/data';
import { Gauge, type Registry } from 'prom-client';

export interface ScaleToZeroGaugesDeps {
  registry: SkillRegistry;
  /** Queues on the gateway's connection, whose command timeout bounds each read. */
  queues: QueueRegistry;
  /** How long a scrape waits on Redis; past it, the gauges have no sample rather than a stale one. */
  timeoutMs: number;
}

/**
 * The queue gauges of the versions whose pools scale to zero (WORKER_SCALE_TO_ZERO), read from
 * Redis when Prometheus scrapes a gateway. The workers export the same gauges for what they host,
 * but a pool at zero has no worker to export them: without the gateways KEDA would read 0 and never
 * wake it. Every gateway reports the same numbers as the workers do: aggregate with max.
 */
export function registerScaleToZeroGauges(metrics: Registry, deps: ScaleToZeroGaugesDeps): void {
  const queueJobs: Gauge<'skill' | 'version' | 'state'> = new Gauge({
    name: 'skillrun_queue_jobs',
    help: 'Jobs in the queues of a skill version whose pool scales to zero, by state (waiting, active, delayed, failed, waiting-children).',
    labelNames: ['skill', 'version', 'state'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(queueJobs, deps.timeoutMs, async () => {
        const versions = await deps.registry.scaleToZeroVersions();
        const counts = await queueJobsByState(deps.queues, versions);
        versions.forEach(({ skill, version }, index) => {
          for (const [state, count] of counts[index] ?? []) queueJobs.set({ skill, version, state }, count);
        });
      });
    },
  });
  const queueAge: Gauge<'skill' | 'version'> = new Gauge({
    name: 'skillrun_queue_age_seconds',
    help: 'Age of the oldest job next in line in the queues of a skill version whose pool scales to zero, 0 when none waits.',
    labelNames: ['skill', 'version'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(queueAge, deps.timeoutMs, async () => {
        const versions = await deps.registry.scaleToZeroVersions();
        const ages = await queueHeadAges(deps.queues, versions, Date.now());
        versions.forEach(({ skill, version }, index) => {
          queueAge.set({ skill, version }, ages[index] ?? 0);
        });
      });
    },
  });
  const marked: Gauge<'skill' | 'version'> = new Gauge({
    name: 'skillrun_scale_to_zero',
    help: 'Skill versions whose pool scales to zero (1 each): no live worker is expected while they are idle.',
    labelNames: ['skill', 'version'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(marked, deps.timeoutMs, async () => {
        for (const version of await deps.registry.scaleToZeroVersions()) marked.set(version, 1);
      });
    },
  });
}
