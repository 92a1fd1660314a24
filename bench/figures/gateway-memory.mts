/**
 * Row 7: the gateway's RSS once it has answered N POST invokes. The gateway that served every
 * earlier figure of the run (their invocations counted) is topped up to N with 50 connections,
 * and so is the minimal gateway. Each keeps its default worker running: a service gateway whose
 * skill has no live worker answers 404, which is not the invocation this row measures.
 */
import type { BenchContext } from '../context.mjs';
import type { Child } from '../support/child.mjs';
import { answered, type HttpTarget, load } from '../support/load.mjs';
import { noteAnswers } from '../support/oddities.mjs';
import { procMemory } from '../support/proc-memory.mjs';

async function topUp(
  ctx: BenchContext,
  gateway: Child,
  target: HttpTarget,
  counted: { invocations: number },
  label: string,
): Promise<number> {
  const missing = ctx.config.gatewayInvocations - counted.invocations;
  if (missing > 0) {
    const result = await load(target, { connections: ctx.config.connections, amount: missing });
    counted.invocations += answered(result);
    noteAnswers(ctx, label, result);
  }
  const memory = procMemory(gateway.pid);
  if (!memory) throw new Error(`${label}: the gateway is gone`);
  ctx.details.push(
    `Row 7, ${label}: ${counted.invocations} POST invokes answered; VmRSS ${memory.rssMb.toFixed(0)} MB, VmHWM ${memory.peakMb.toFixed(0)} MB`,
  );
  return memory.rssMb;
}

export async function gatewayMemory(ctx: BenchContext): Promise<void> {
  const { service, minimal, config } = ctx;
  await Promise.all([service.ensureDefaultWorker(), minimal.ensureDefaultWorker()]);
  const baseline = await topUp(ctx, minimal.gateway, minimal.target(), minimal, 'minimal gateway');
  const ours = await topUp(ctx, service.gateway, service.target(), service, 'service gateway');
  ctx.progress(`row 7: minimal gateway ${baseline.toFixed(0)} MB, service gateway ${ours.toFixed(0)} MB`);
  ctx.figures.push({
    row: '7',
    title: `gateway RSS after ${config.gatewayInvocations.toLocaleString('en-US')} POST invokes`,
    unit: 'MB',
    ours: [ours],
    baseline: [baseline],
    baselineName: 'B',
    target: { kind: 'at-most', value: 150 },
  });
}
