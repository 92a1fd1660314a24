import { refillWithin } from '@skillrun/core';
import {
  type CheckStatus,
  type ConcurrencyGate,
  type QueueRegistry,
  queueHeadAges,
  queueJobsByState,
  type ReadinessCheck,
  type SkillRegistry,
  type VersionRef,
} from '@skillrun/core/data';
import { Gauge, type Registry } from 'prom-client';

export interface RedisGaugesDeps {
  /** The skill versions whose queues this worker hosts. */
  hosted: VersionRef[];
  /** Queues on a connection that fails fast (no offline queue), so a scrape never piles up commands. */
  queues: QueueRegistry;
  registry: SkillRegistry;
  /** The checks of /readyz, shown as a gauge so that alerts see Redis not ready or evicting. */
  readiness: ReadinessCheck;
  /** How long a scrape waits on Redis; past it, the gauges have no sample rather than a stale one. */
  timeoutMs: number;
  /** The hosted skills with concurrency limits, and where their parked executions are counted. */
  gated: { skills: string[]; gate: ConcurrencyGate };
}

const CHECK_STATUSES: CheckStatus[] = ['ok', 'unknown', 'failed'];

/**
 * Gauges read from Redis when Prometheus scrapes: the jobs in each hosted queue by state, the age of
 * the oldest job in line, the workers holding a live lease, and the readiness checks. Every worker
 * hosting a version reports the same queue: aggregate with max, not sum.
 */
export function registerRedisGauges(metrics: Registry, deps: RedisGaugesDeps): void {
  const queueJobs: Gauge<'skill' | 'version' | 'state'> = new Gauge({
    name: 'skillrun_queue_jobs',
    help: 'Jobs in a hosted skill version queue, by state (waiting, active, delayed, failed, waiting-children).',
    labelNames: ['skill', 'version', 'state'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(queueJobs, deps.timeoutMs, async () => {
        const counts = await queueJobsByState(deps.queues, deps.hosted);
        deps.hosted.forEach(({ skill, version }, index) => {
          for (const [state, count] of counts[index] ?? []) queueJobs.set({ skill, version, state }, count);
        });
      });
    },
  });
  const queueAge: Gauge<'skill' | 'version'> = new Gauge({
    name: 'skillrun_queue_age_seconds',
    help: 'Age of the oldest job next in line in a hosted skill version queues (prioritized included), 0 when none waits.',
    labelNames: ['skill', 'version'] as const,
    registers: [metrics],
    async collect() {
      await refillWithin(queueAge, deps.timeoutMs, async () => {
        const ages = await queueHeadAges(deps.queues, deps.hosted, Date.now());
        deps.hosted.forEach(({ skill, version }, index) => {
          queueAge.set({ skill, version }, ages[index] ?? 0);
        });
      });
    },
  });
  const parked: Gauge<'skill'> = new Gauge({
    name: 'skillrun_concurrency_waiting',
    help: 'Executions parked now because their skill is at its concurrency limit (in all, or for their concurrency key), by skill.',
    labelNames: ['skill'] as const,
    registers: [metrics],
    async collect() {
      const { skills, gate } = deps.gated;
      await refillWithin(parked, deps.timeoutMs, async () => {
        const counts = await Promise.all(skills.map((skill) => gate.parked(skill)));
        skills.forEach((skill, index) => {
          parked.set({ skill }, counts[index] ?? 0);
        });
      });
    },
  });
  const readinessChecks: Gauge<'check' | 'status'> = new Gauge({
    name: 'skillrun_readiness_check',
    help: 'The readiness checks of /readyz (redis, queue, eviction_policy): 1 for the status each has now (ok, unknown, failed), 0 for the others.',
    labelNames: ['check', 'status'] as const,
    registers: [metrics],
    async collect() {
      // Each check is bounded by the timeout and never throws: a Redis away reads as failed.
      const { checks } = await deps.readiness.run();
      for (const { check, status } of checks) {
        for (const shown of CHECK_STATUSES)
          readinessChecks.set({ check, status: shown }, shown === status ? 1 : 0);
      }
    },
  });
  const workersAlive: Gauge = new Gauge({
    name: 'skillrun_workers_alive',
    help: 'Worker processes holding a live lease in the registry (NaN when Redis cannot be read).',
    registers: [metrics],
    async collect() {
      const read = () => deps.registry.liveWorkers().then((count) => workersAlive.set(count));
      // prom-client always shows an unlabelled gauge: NaN says "unknown" where 0 would mislead.
      if (!(await refillWithin(workersAlive, deps.timeoutMs, read))) workersAlive.set(Number.NaN);
    },
  });
}
