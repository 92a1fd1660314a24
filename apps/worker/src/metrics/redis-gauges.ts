import {
  type CheckStatus,
  type QueueRegistry,
  type ReadinessCheck,
  type SkillRegistry,
  withTimeout,
} from '@skillrun/core';
import type { JobType, Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';

export interface RedisGaugesDeps {
  /** The skill versions whose queues this worker hosts. */
  hosted: { skill: string; version: string }[];
  /** Queues on a connection that fails fast (no offline queue), so a scrape never piles up commands. */
  queues: QueueRegistry;
  registry: SkillRegistry;
  /** The checks of /readyz, shown as a gauge so that alerts see Redis not ready or evicting. */
  readiness: ReadinessCheck;
  /** How long a scrape waits on Redis; past it, the gauges have no sample rather than a stale one. */
  timeoutMs: number;
}

/** BullMQ's states as the gauge shows them: prioritized jobs (every job here has a priority) are waiting. */
const SHOWN_AS: Partial<Record<JobType, string>> = {
  waiting: 'waiting',
  prioritized: 'waiting',
  active: 'active',
  delayed: 'delayed',
  failed: 'failed',
  'waiting-children': 'waiting-children',
};

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
      await readWithin(queueJobs, deps.timeoutMs, () => readQueues(queueJobs, deps));
    },
  });
  const queueAge: Gauge<'skill' | 'version'> = new Gauge({
    name: 'skillrun_queue_age_seconds',
    help: 'Age of the oldest job next in line in a hosted skill version queues (prioritized included), 0 when none waits.',
    labelNames: ['skill', 'version'] as const,
    registers: [metrics],
    async collect() {
      await readWithin(queueAge, deps.timeoutMs, () => readAges(queueAge, deps));
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
      if (!(await readWithin(workersAlive, deps.timeoutMs, read))) workersAlive.set(Number.NaN);
    },
  });
}

async function readQueues(gauge: Gauge<'skill' | 'version' | 'state'>, deps: RedisGaugesDeps): Promise<void> {
  const counts = await Promise.all(
    deps.hosted.map(({ skill, version }) =>
      Promise.all(
        deps.queues
          .allOf(skill, version)
          .map((queue) => queue.getJobCounts(...(Object.keys(SHOWN_AS) as JobType[]))),
      ),
    ),
  );
  deps.hosted.forEach(({ skill, version }, index) => {
    const byState = new Map<string, number>();
    for (const queueCounts of counts[index] ?? []) {
      for (const [state, count] of Object.entries(queueCounts)) {
        const shown = SHOWN_AS[state as JobType];
        if (shown) byState.set(shown, (byState.get(shown) ?? 0) + count);
      }
    }
    for (const [state, count] of byState) gauge.set({ skill, version, state }, count);
  });
}

/**
 * How long the jobs next in line have waited: the head of each queue's FIFO list and of its
 * prioritized set (a job behind them is younger, or waits behind them by priority), the oldest of
 * them; 0 when nothing waits, so that an idle queue reads 0 rather than nothing.
 */
async function readAges(gauge: Gauge<'skill' | 'version'>, deps: RedisGaugesDeps): Promise<void> {
  const now = Date.now();
  const ages = await Promise.all(
    deps.hosted.map(({ skill, version }) =>
      Promise.all(deps.queues.allOf(skill, version).map((queue) => headAgeSeconds(queue, now))),
    ),
  );
  deps.hosted.forEach(({ skill, version }, index) => {
    gauge.set({ skill, version }, Math.max(0, ...(ages[index] ?? [])));
  });
}

async function headAgeSeconds(queue: Queue, now: number): Promise<number> {
  const heads = await queue.getJobs(['wait', 'prioritized'], 0, 0, true);
  return Math.max(0, ...heads.map((job) => (job ? (now - job.timestamp) / 1000 : 0)));
}

/** A scrape never hangs on Redis, and never shows numbers it could not read; false when it could not. */
async function readWithin<T extends string>(
  gauge: Gauge<T>,
  timeoutMs: number,
  read: () => Promise<void>,
): Promise<boolean> {
  gauge.reset();
  try {
    await withTimeout(read(), timeoutMs);
    return true;
  } catch {
    gauge.reset();
    return false;
  }
}
