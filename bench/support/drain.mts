/**
 * Draining a pre-filled queue: a worker process is started and ready, its queues are paused,
 * filled, then resumed; the drain is timed from the resume to the moment nothing is left waiting,
 * prioritized, delayed or active, while the worker's RSS is sampled. Pausing (rather than filling
 * before any worker runs) is what lets the service accept the invocations: the gateway only takes
 * invocations of a skill that a live worker hosts. A drain may be warmed up: as many jobs drained
 * the same way first, untimed, by the same worker process, so that the timed one measures code
 * the JIT has compiled (a fresh process compiles its hot path while it drains).
 */

import { redisCpuUs } from '@skillrun/redis-server';
import type { Queue } from 'bullmq';
import type { BenchContext } from '../context.mjs';
import { count, load } from './load.mjs';
import { BASELINE_PREFIX } from './minimal.mjs';
import { noteAnswers } from './oddities.mjs';
import { cpuPer, type ProcCpu, procCpu } from './proc-cpu.mjs';
import { type ProcMemory, RssSampler } from './proc-memory.mjs';
import { QueueDepth, type QueueRef } from './queue-depth.mjs';
import { fillQueues, openQueue } from './raw-bullmq.mjs';
import { type SkillRef, serviceQueue } from './service.mjs';
import { executionsByStatus } from './worker-metrics.mjs';

/** No progress for this long and the drain is abandoned (and its leftovers removed). */
const STUCK_MS = 30_000;

export interface DrainOutcome {
  /** Jobs queued (202s for the service). */
  jobs: number;
  seconds: number;
  memory: ProcMemory | undefined;
  /** The worker process' CPU per job while it drained (its main thread's, and all its threads'). */
  cpu: ProcCpu | undefined;
  /** Redis' CPU per job while it drained, in µs (the drain is bound by both on two cores). */
  redisUs: number;
  /** Jobs that did not end `completed` (failed, timed out, or never finished), warm-up's included. */
  notCompleted: number;
  /** Why the figure is incomplete, if it is. */
  problem?: string;
}

async function timedDrain(
  ctx: BenchContext,
  pid: number,
  queues: Queue[],
  refs: QueueRef[],
  jobs: number,
  kill: () => void,
): Promise<Omit<DrainOutcome, 'jobs' | 'notCompleted'>> {
  const depth = new QueueDepth(ctx.redis, refs);
  const sampler = new RssSampler(pid, ctx.config.rssGuardMb, kill);
  const cpuBefore = procCpu(pid);
  const redisBefore = await redisCpuUs(ctx.redis);
  const started = performance.now();
  await Promise.all(queues.map((queue) => queue.resume()));
  let problem: string | undefined;
  let finished = Number.NaN;
  try {
    finished = await depth.drained(20, STUCK_MS);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const cpu = cpuPer(cpuBefore, procCpu(pid), jobs);
  const redisUs = ((await redisCpuUs(ctx.redis)) - redisBefore) / jobs;
  const memory = sampler.stop();
  if (sampler.guardTripped) problem = `worker stopped: RSS passed the ${ctx.config.rssGuardMb} MB guard`;
  if (problem) {
    // Whatever is left must not run into the next figure.
    await Promise.all(queues.map((queue) => queue.obliterate({ force: true }).catch(() => {})));
  }
  return { seconds: (finished - started) / 1000, memory, cpu, redisUs, ...(problem ? { problem } : {}) };
}

/** Fills the paused queues with `amount` invocations through the gateway; resolves with the 202s. */
async function fillThroughGateway(
  ctx: BenchContext,
  skills: SkillRef[],
  amount: number,
  label: string,
): Promise<number> {
  const filled = await load(ctx.service.target(skills.map(({ id }) => id)), {
    connections: ctx.config.connections,
    amount,
  });
  ctx.service.invocations += amount;
  noteAnswers(ctx, label, filled);
  return count(filled, 202);
}

/**
 * Fills the paused queues, resumes them and waits until they are drained, untimed; resolves with
 * the jobs queued (the worker's counts include them).
 */
async function warmUp(
  ctx: BenchContext,
  queues: Queue[],
  refs: QueueRef[],
  fill: () => Promise<number>,
): Promise<number> {
  const jobs = await fill();
  await Promise.all(queues.map((queue) => queue.resume()));
  await new QueueDepth(ctx.redis, refs).drained(20, STUCK_MS);
  await Promise.all(queues.map((queue) => queue.pause()));
  return jobs;
}

export interface DrainOptions {
  concurrency: number;
  jobs: number;
  /** Jobs drained first, untimed, by the same worker process. */
  warmUpJobs?: number;
}

export async function serviceDrain(
  ctx: BenchContext,
  options: DrainOptions & { skills: SkillRef[]; skillsDir?: string; label: string },
): Promise<DrainOutcome> {
  const { service } = ctx;
  // Nothing else may consume these queues.
  await service.stopWorkers();
  const worker = await service.startWorker({
    concurrency: options.concurrency,
    ...(options.skillsDir
      ? { skillsDir: options.skillsDir }
      : { skills: options.skills.map(({ id }) => id).join(',') }),
  });
  const refs = options.skills.map((skill) => serviceQueue(skill));
  const queues = refs.map((ref) => openQueue(ctx.redis, ref));
  try {
    await Promise.all(queues.map((queue) => queue.pause()));
    const { skills, label, warmUpJobs } = options;
    const warmed = warmUpJobs
      ? await warmUp(ctx, queues, refs, () => fillThroughGateway(ctx, skills, warmUpJobs, `${label} warm-up`))
      : 0;
    const jobs = await fillThroughGateway(ctx, skills, options.jobs, `${label} fill`);
    const drain = await timedDrain(ctx, worker.child.pid, queues, refs, jobs, () => worker.child.kill());
    let completed = Number.NaN;
    if (worker.child.alive) {
      const statuses = await executionsByStatus(worker.metricsPort);
      completed = statuses.get('completed') ?? 0;
      const others = [...statuses].filter(([status, n]) => status !== 'completed' && n > 0);
      if (others.length > 0) {
        ctx.oddities.push(
          `${label}: ${others.map(([status, n]) => `${status} ${n}`).join(', ')} of ${jobs + warmed}`,
        );
      }
    }
    if (drain.problem) ctx.oddities.push(`${label}: ${drain.problem}`);
    const summary = worker.child.summary;
    if (summary.errors > 0) {
      ctx.oddities.push(`${label}: worker logged ${summary.errors} errors, e.g. ${summary.last.at(-1)}`);
    }
    return { jobs, ...drain, notCompleted: jobs + warmed - completed };
  } finally {
    await service.stopWorker(worker);
    await Promise.all(queues.map((queue) => queue.close()));
  }
}

export async function minimalDrain(
  ctx: BenchContext,
  options: DrainOptions & { queueNames: string[] },
): Promise<DrainOutcome> {
  const { minimal } = ctx;
  const worker = await minimal.startWorker({ concurrency: options.concurrency, queues: options.queueNames });
  const refs = options.queueNames.map((name) => ({ prefix: BASELINE_PREFIX, name }));
  const queues = refs.map((ref) => openQueue(ctx.redis, ref));
  try {
    await Promise.all(queues.map((queue) => queue.pause()));
    const { warmUpJobs } = options;
    const warmed = warmUpJobs
      ? await warmUp(ctx, queues, refs, async () => {
          await fillQueues(queues, warmUpJobs);
          return warmUpJobs;
        })
      : 0;
    await fillQueues(queues, options.jobs);
    const drain = await timedDrain(ctx, worker.pid, queues, refs, options.jobs, () => worker.kill());
    const { completed } = await minimal.stopWorker(worker);
    return { jobs: options.jobs, ...drain, notCompleted: options.jobs + warmed - completed };
  } finally {
    if (worker.alive) await minimal.stopWorker(worker);
    await Promise.all(queues.map((queue) => queue.close()));
  }
}
