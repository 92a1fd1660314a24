/**
 * Rows 5 and 6: the worker's peak RSS (VmHWM, which also catches peaks between samples) while
 * draining at WORKER_CONCURRENCY 16, 50 and 100, hosting the bench skill alone and hosting 50
 * copies of it (distinct names) with the load spread over all 50; and, at 50 and 100, how many of
 * those no-op executions did not end `completed` (the worker's skillrun_executions_total). The
 * baseline is the minimal BullMQ worker process with as many queues at the same concurrency.
 */
import type { BenchContext } from '../context.mjs';
import { type DrainOutcome, minimalDrain, serviceDrain } from '../support/drain.mjs';
import { BENCH_SKILLS } from '../support/service.mjs';
import { SkillCopies } from '../support/skill-copies.mjs';
import type { DrainRuns } from './queue-drain.mjs';
import { DRAIN_CONCURRENCY } from './queue-drain.mjs';

const CONCURRENCIES = [16, 50, 100];
const MANY_SKILLS = 50;

export async function workerMemory(ctx: BenchContext, fromRow2: DrainRuns | undefined): Promise<void> {
  const { config } = ctx;
  const copies = SkillCopies.create(`${BENCH_SKILLS}/${ctx.skill.id}`, MANY_SKILLS);
  // RSS hardly varies between runs and each drain costs a worker start and a fill through the
  // gateway: one run per setting keeps the whole bench within its time budget.
  const repetitions = 1;
  try {
    for (const skills of [1, MANY_SKILLS]) {
      for (const concurrency of CONCURRENCIES) {
        const label = `c${concurrency}×${skills}`;
        let ours: DrainOutcome[] = [];
        let baseline: DrainOutcome[] = [];
        if (skills === 1 && concurrency === DRAIN_CONCURRENCY && fromRow2) {
          ({ ours, baseline } = fromRow2);
        } else {
          for (let rep = 1; rep <= repetitions; rep++) {
            baseline.push(
              await minimalDrain(ctx, {
                concurrency,
                queueNames: skills === 1 ? ['drain'] : copies.skills.map(({ id }) => `drain.${id}`),
                jobs: config.memoryJobs,
              }),
            );
            ours.push(
              await serviceDrain(ctx, {
                concurrency,
                skills: skills === 1 ? [ctx.skill] : copies.skills,
                ...(skills === 1 ? {} : { skillsDir: copies.dir }),
                jobs: config.memoryJobs,
                label: `rows 5-6 ${label}`,
              }),
            );
            const [b, o] = [baseline.at(-1), ours.at(-1)];
            ctx.progress(
              `rows 5-6 ${label}: minimal worker ${b?.memory?.peakMb.toFixed(0)} MB, service worker ${o?.memory?.peakMb.toFixed(0)} MB, ` +
                `${o?.notCompleted} of ${o?.jobs} not completed, drained in ${o?.seconds.toFixed(1)} s`,
            );
          }
        }
        const skillsText = skills === 1 ? '1 skill' : `${skills} skills, load spread over all`;
        if (config.rows.has('row5')) {
          ctx.figures.push({
            row: `5 ${label}`,
            title: `worker peak RSS draining, concurrency ${concurrency}, ${skillsText}`,
            unit: 'MB',
            ours: ours.map((run) => run.memory?.peakMb ?? Number.NaN),
            baseline: baseline.map((run) => run.memory?.peakMb ?? Number.NaN),
            baselineName: 'BullMQ',
            target: { kind: 'at-most', value: 400 },
          });
        }
        if (config.rows.has('row6') && concurrency >= 50) {
          ctx.figures.push({
            row: `6 ${label}`,
            title: `no-op executions failed or timed out (of ${config.memoryJobs}), concurrency ${concurrency}, ${skillsText}`,
            unit: 'executions',
            ours: ours.map((run) => run.notCompleted),
            baseline: baseline.map((run) => run.notCompleted),
            baselineName: 'BullMQ',
            target: { kind: 'at-most', value: 0 },
          });
        }
      }
    }
  } finally {
    copies.remove();
  }
}
