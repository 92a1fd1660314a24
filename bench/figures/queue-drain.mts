/**
 * Row 2: the worker alone, draining executions queued before it consumed (real invocations,
 * through the gateway), at WORKER_CONCURRENCY=16; against raw BullMQ A(b), a no-op BullMQ Worker
 * process at concurrency 16 draining as many pre-filled jobs. Each worker process drains a warm-up
 * batch first, untimed. The service worker's RSS in these drains is also row 5's figure for
 * concurrency 16 and one skill.
 */
import type { BenchContext } from '../context.mjs';
import type { DrainOutcome } from '../support/drain.mjs';
import { minimalDrain, serviceDrain } from '../support/drain.mjs';

export const DRAIN_CONCURRENCY = 16;

export interface DrainRuns {
  ours: DrainOutcome[];
  baseline: DrainOutcome[];
}

function cpuText({ cpu, redisUs }: DrainOutcome): string {
  const worker = cpu ? `${cpu.mainUs.toFixed(0)} / ${cpu.totalUs.toFixed(0)}` : 'unread';
  return `${worker} / ${redisUs.toFixed(0)} µs`;
}

export async function queueDrain(ctx: BenchContext): Promise<DrainRuns> {
  const { config } = ctx;
  const runs: DrainRuns = { ours: [], baseline: [] };
  for (let rep = 1; rep <= config.repetitions; rep++) {
    const b = await minimalDrain(ctx, {
      concurrency: DRAIN_CONCURRENCY,
      queueNames: ['drain'],
      jobs: config.drainJobs,
      warmUpJobs: config.drainWarmUpJobs,
    });
    const o = await serviceDrain(ctx, {
      concurrency: DRAIN_CONCURRENCY,
      skills: [ctx.skill],
      jobs: config.drainJobs,
      warmUpJobs: config.drainWarmUpJobs,
      label: `row 2 rep ${rep}`,
    });
    runs.baseline.push(b);
    runs.ours.push(o);
    ctx.progress(
      `row 2 rep ${rep}: raw BullMQ ${(b.jobs / b.seconds).toFixed(0)}/s, service ${(o.jobs / o.seconds).toFixed(0)}/s ` +
        `(${o.jobs} jobs, peak RSS ${o.memory?.peakMb.toFixed(0)} MB); CPU per job, main thread / process / Redis: ` +
        `raw ${cpuText(b)}, service ${cpuText(o)}`,
    );
  }
  ctx.figures.push({
    row: '2',
    title: `worker alone draining ${config.drainJobs} queued executions, concurrency ${DRAIN_CONCURRENCY}`,
    unit: 'exec/s',
    ours: runs.ours.map((run) => run.jobs / run.seconds),
    baseline: runs.baseline.map((run) => run.jobs / run.seconds),
    baselineName: 'A(b)',
    target: { kind: 'ratio-at-least', value: 0.5 },
  });
  return runs;
}
