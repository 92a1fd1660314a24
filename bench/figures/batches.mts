/**
 * Rows 10 and 11: executions started through `POST /batches`, 100 invocations a batch, against
 * baseline B's single `POST /invoke`s, both measured in the same load windows as row 1 (workers
 * running): row 10, executions accepted per second of the window (ours: the gateway's
 * `skillrun_invocations_accepted_total`, every item counting; B: its 202s); row 11, completed
 * executions per second end to end, every execution accepted in the window until the last of them
 * has finished (B measured so is row 1's baseline). The gateway's CPU per batched item is printed
 * beside (from /proc).
 */

import { redisCpuUs } from '@skillrun/redis-server';
import type { BenchContext } from '../context.mjs';
import { median } from '../stats.mjs';
import type { Child } from '../support/child.mjs';
import { acceptedInvocations } from '../support/gateway-metrics.mjs';
import { JsonClient } from '../support/http.mjs';
import { count, type HttpTarget, load } from '../support/load.mjs';
import { BASELINE_QUEUE } from '../support/minimal.mjs';
import { noteAnswers } from '../support/oddities.mjs';
import { cpuPer, procCpu } from '../support/proc-cpu.mjs';
import { QueueDepth, type QueueRef } from '../support/queue-depth.mjs';
import { batchBody, serviceQueue } from '../support/service.mjs';

/** Invocations per batch. */
const BATCH_SIZE = 100;
/**
 * Connections sending batches: ten batches in flight are a thousand executions, more than row 1's
 * fifty connections keep in flight; more would only queue in the gateway.
 */
const BATCH_CONNECTIONS = 10;

/** One load window: executions accepted per second of it, completed per second until all ended. */
interface Window {
  acceptedPerSecond: number;
  completedPerSecond: number;
  /** The gateway's CPU per execution accepted (µs, whole process). */
  gatewayCpuUs: number | undefined;
  /**
   * Redis's CPU per execution (µs), from the window's start until every execution accepted in it
   * has finished: its launch, its run and its end, what bounds a box where Redis has one core.
   */
  redisCpuUs: number;
}

interface Measured {
  target: HttpTarget;
  connections: number;
  queue: QueueRef;
  gateway: Child;
  /**
   * The executions the gateway has accepted so far, read before and after a window, when its 202s
   * do not count them (a batch's 202 holds many); else each 202 is one.
   */
  acceptedSoFar?: () => Promise<number>;
}

async function window(
  ctx: BenchContext,
  measured: Measured,
  label: string,
  seconds: number,
): Promise<Window> {
  const depth = new QueueDepth(ctx.redis, [measured.queue]);
  const acceptedBefore = (await measured.acceptedSoFar?.()) ?? 0;
  const cpuBefore = procCpu(measured.gateway.pid);
  const redisBefore = await redisCpuUs(ctx.redis);
  const started = performance.now();
  const result = await load(measured.target, { connections: measured.connections, duration: seconds });
  const cpuAfter = procCpu(measured.gateway.pid);
  const accepted = measured.acceptedSoFar
    ? (await measured.acceptedSoFar()) - acceptedBefore
    : count(result, 202);
  const finished = await depth.drained();
  const redisAfter = await redisCpuUs(ctx.redis);
  noteAnswers(ctx, label, result);
  return {
    acceptedPerSecond: accepted / result.seconds,
    completedPerSecond: accepted / ((finished - started) / 1000),
    gatewayCpuUs: cpuPer(cpuBefore, cpuAfter, accepted)?.totalUs,
    redisCpuUs: (redisAfter - redisBefore) / accepted,
  };
}

/** Every item of a batch the service is sent starts: else the rows would count refusals. */
async function checkBatch(ctx: BenchContext): Promise<void> {
  const client = new JsonClient(ctx.service.url, { 'x-api-key': ctx.service.apiKey });
  try {
    const answer = await client.send('POST', '/batches', batchBody(ctx.skill.id, BATCH_SIZE));
    const slots = (answer.body.executions ?? []) as { execution_id?: string }[];
    const started = slots.filter((slot) => slot.execution_id !== undefined).length;
    if (answer.status !== 202 || started !== BATCH_SIZE) {
      throw new Error(`POST /batches answered ${answer.status}, ${started} of ${BATCH_SIZE} items started`);
    }
  } finally {
    client.close();
  }
}

const cpuText = (us: number | undefined) => (us === undefined ? 'unread' : `${us.toFixed(0)} µs`);

export async function batches(ctx: BenchContext): Promise<void> {
  const { service, minimal, config } = ctx;
  await Promise.all([service.ensureDefaultWorker(), minimal.ensureDefaultWorker()]);
  await checkBatch(ctx);
  const ours: Measured = {
    target: service.batchTarget(BATCH_SIZE, ctx.skill.id),
    connections: BATCH_CONNECTIONS,
    queue: serviceQueue(ctx.skill),
    gateway: service.gateway,
    acceptedSoFar: () => acceptedInvocations(service.url, ctx.skill.id),
  };
  const baseline: Measured = {
    target: minimal.target(),
    connections: config.connections,
    queue: BASELINE_QUEUE,
    gateway: minimal.gateway,
  };
  await window(ctx, baseline, 'rows 10-11 minimal warm-up', config.warmupSeconds);
  await window(ctx, ours, 'rows 10-11 service warm-up', config.warmupSeconds);
  const runs = { ours: [] as Window[], baseline: [] as Window[] };
  for (let rep = 1; rep <= config.repetitions; rep++) {
    runs.baseline.push(await window(ctx, baseline, `rows 10-11 minimal rep ${rep}`, config.loadSeconds));
    runs.ours.push(await window(ctx, ours, `rows 10-11 service rep ${rep}`, config.loadSeconds));
    const [b, o] = [runs.baseline.at(-1), runs.ours.at(-1)];
    ctx.progress(
      `rows 10-11 rep ${rep}: accepted/s minimal ${b?.acceptedPerSecond.toFixed(0)} (single), service ${o?.acceptedPerSecond.toFixed(0)} (batches of ${BATCH_SIZE}); ` +
        `completed/s minimal ${b?.completedPerSecond.toFixed(0)}, service ${o?.completedPerSecond.toFixed(0)}; ` +
        `gateway CPU per execution: minimal ${cpuText(b?.gatewayCpuUs)} (single), service ${cpuText(o?.gatewayCpuUs)} (batched item); ` +
        `Redis CPU per execution: minimal ${cpuText(b?.redisCpuUs)}, service ${cpuText(o?.redisCpuUs)}`,
    );
  }
  const of = (windows: Window[], figure: 'acceptedPerSecond' | 'completedPerSecond') =>
    windows.map((run) => run[figure]);
  ctx.figures.push({
    row: '10',
    title: `executions accepted/s through POST /batches of ${BATCH_SIZE} (${BATCH_CONNECTIONS} connections) vs single POST /invoke (${config.connections} connections), ${config.loadSeconds} s`,
    unit: 'exec/s',
    ours: of(runs.ours, 'acceptedPerSecond'),
    baseline: of(runs.baseline, 'acceptedPerSecond'),
    baselineName: 'B',
    target: { kind: 'ratio-at-least', value: 5 },
  });
  ctx.figures.push({
    row: '11',
    title: `end-to-end completed executions/s through POST /batches of ${BATCH_SIZE} vs single invokes (row 1's baseline)`,
    unit: 'exec/s',
    ours: of(runs.ours, 'completedPerSecond'),
    baseline: of(runs.baseline, 'completedPerSecond'),
    baselineName: 'B',
    target: { kind: 'ratio-at-least', value: 1 },
  });
  const cpu = (windows: Window[], figure: 'gatewayCpuUs' | 'redisCpuUs') => {
    const read = windows.flatMap((run) => (run[figure] === undefined ? [] : [run[figure]]));
    return read.length === 0 ? undefined : median(read);
  };
  ctx.details.push(
    `Rows 10-11, gateway CPU per execution (median, from /proc): ${cpuText(cpu(runs.ours, 'gatewayCpuUs'))} per batched item ` +
      `(batches of ${BATCH_SIZE}), against B's ${cpuText(cpu(runs.baseline, 'gatewayCpuUs'))} per single invoke; ` +
      `Redis CPU per execution end to end (launch, run, end; median, from INFO): ${cpuText(cpu(runs.ours, 'redisCpuUs'))} batched, ` +
      `B's ${cpuText(cpu(runs.baseline, 'redisCpuUs'))}. Row 10's 5x is out of reach wherever Redis has one core: ` +
      `accepting is bounded by what Redis spends per execution, and a batch saves requests and round trips, not the work of each launch and end.`,
  );
}
