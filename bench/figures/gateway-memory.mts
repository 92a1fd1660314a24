/**
 * Row 7: the gateway's RSS once it has answered N POST invokes. The gateway that served every
 * earlier figure of the run (their invocations counted) is topped up to N with 50 connections,
 * and so is the minimal gateway, each with a tenth of N at least just before it is read (see
 * finalWindow). Each keeps its default worker running: a service gateway whose skill has no live
 * worker answers 404, which is not the invocation this row measures.
 */
import type { BenchContext } from '../context.mjs';
import type { Child } from '../support/child.mjs';
import { answered, type HttpTarget, load } from '../support/load.mjs';
import { noteAnswers } from '../support/oddities.mjs';
import { procMemory } from '../support/proc-memory.mjs';

/**
 * What each gateway answers just before it is read, even one past N already: Node 24's
 * V8 judges a gateway's allocation rate high at every check of its memory reducer for as long as
 * it idles after a load (the minimal gateway's too), so the pages its collections freed go back to
 * the system only with the reducer's watchdog, 100 s after the last full collection. Read at once
 * after a load of its own, neither gateway's figure depends on how long the earlier rows left it
 * idle (the minimal gateway read 89 MB once, after 100 s of quiet, and 147–203 MB otherwise).
 */
function finalWindow(invocations: number): number {
  return Math.ceil(invocations / 10);
}

async function topUp(
  ctx: BenchContext,
  gateway: Child,
  target: HttpTarget,
  counted: { invocations: number },
  label: string,
): Promise<number> {
  const missing = Math.max(
    ctx.config.gatewayInvocations - counted.invocations,
    finalWindow(ctx.config.gatewayInvocations),
  );
  const result = await load(target, { connections: ctx.config.connections, amount: missing });
  counted.invocations += answered(result);
  noteAnswers(ctx, label, result);
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
