/**
 * Rows 8 and 9, measured in the same window: Redis commands per execution (every command, those
 * run inside BullMQ's and the service's Lua scripts included; `CONFIG RESETSTAT`, then `INFO
 * commandstats`) and Redis memory kept per execution (`used_memory` after minus before). The
 * service: N invocations on 50 connections, drained by its worker, no status reads in the window;
 * raw BullMQ: 50 adders and a no-op worker, no QueueEvents. Each window starts without the
 * queue's events stream, so the stream's share is counted the same way every time.
 */

import { commandCalls } from '@skillrun/redis-server';
import type { Redis } from 'ioredis';
import type { BenchContext } from '../context.mjs';
import { JsonClient } from '../support/http.mjs';
import { answered, count, load } from '../support/load.mjs';
import { BASELINE_QUEUE } from '../support/minimal.mjs';
import { noteAnswers } from '../support/oddities.mjs';
import { QueueDepth, type QueueRef, queueKey } from '../support/queue-depth.mjs';
import { addConcurrently, openQueue } from '../support/raw-bullmq.mjs';
import { usedMemory } from '../support/redis-info.mjs';
import { invocationBody, SERVICE_PREFIX, serviceQueue } from '../support/service.mjs';

interface Cost {
  commandsPerExecution: number;
  bytesPerExecution: number;
  calls: Map<string, number>;
  executions: number;
}

/** Memory settles once lazy frees and client buffers have: read it a little after the work. */
async function settledMemory(redis: Redis): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return usedMemory(redis);
}

async function measure(ctx: BenchContext, queue: QueueRef, run: () => Promise<number>): Promise<Cost> {
  const { redis } = ctx;
  await redis.del(queueKey(queue, 'events'));
  const before = await settledMemory(redis);
  const depth = new QueueDepth(redis, [queue]);
  await redis.config('RESETSTAT');
  const executions = await run();
  await depth.drained(50);
  const calls = await commandCalls(redis);
  // The bench's own polling is not the system's work.
  for (const command of ['llen', 'zcard'] as const) {
    calls.set(command, (calls.get(command) ?? 0) - depth.commandsSent[command]);
  }
  const after = await settledMemory(redis);
  let total = 0;
  for (const value of calls.values()) total += value;
  return {
    commandsPerExecution: total / executions,
    bytesPerExecution: (after - before) / executions,
    calls,
    executions,
  };
}

function topCommands(cost: Cost, top = 12): string {
  return [...cost.calls]
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([command, calls]) => `${command} ${(calls / cost.executions).toFixed(2)}`)
    .join(', ');
}

export async function redisCost(ctx: BenchContext): Promise<void> {
  const { service, minimal, config } = ctx;
  const skillQueue = serviceQueue(ctx.skill);
  await Promise.all([service.ensureDefaultWorker(), minimal.ensureDefaultWorker()]);
  const amount = config.redisExecutions;
  const rawQueue = openQueue(ctx.redis, BASELINE_QUEUE);
  const ours: Cost[] = [];
  const baseline: Cost[] = [];
  for (let rep = 1; rep <= config.repetitions; rep++) {
    baseline.push(
      await measure(ctx, BASELINE_QUEUE, () =>
        addConcurrently(rawQueue, { adders: config.connections, amount }),
      ),
    );
    ours.push(
      await measure(ctx, skillQueue, async () => {
        const result = await load(service.target(), { connections: config.connections, amount });
        service.invocations += answered(result);
        noteAnswers(ctx, `rows 8-9 service rep ${rep}`, result);
        return count(result, 202);
      }),
    );
    const [b, o] = [baseline.at(-1), ours.at(-1)];
    ctx.progress(
      `rows 8-9 rep ${rep}: raw BullMQ ${b?.commandsPerExecution.toFixed(1)} commands, ${b?.bytesPerExecution.toFixed(0)} B; ` +
        `service ${o?.commandsPerExecution.toFixed(1)} commands, ${o?.bytesPerExecution.toFixed(0)} B per execution`,
    );
  }
  await rawQueue.close();
  const lastOurs = ours.at(-1);
  const lastBaseline = baseline.at(-1);
  if (lastOurs && lastBaseline) {
    ctx.details.push(
      `Row 8, top Redis commands per execution, service (last repetition): ${topCommands(lastOurs)}`,
    );
    ctx.details.push(
      `Row 8, top Redis commands per execution, raw BullMQ (last repetition): ${topCommands(lastBaseline)}`,
    );
  }
  ctx.details.push(`Row 9, MEMORY USAGE of one execution record: ${await recordSize(ctx)} bytes`);
  ctx.figures.push({
    row: '8',
    title: `Redis commands per execution (scripts' insides included), ${amount} executions`,
    unit: 'commands',
    ours: ours.map((cost) => cost.commandsPerExecution),
    baseline: baseline.map((cost) => cost.commandsPerExecution),
    baselineName: 'A(a)',
    // Issue 33: the outcome is written in a command of its own, no longer inside BullMQ's script.
    target: { kind: 'at-most', value: 41 },
  });
  ctx.figures.push({
    row: '9',
    title: `Redis memory per retained execution (used_memory delta), ${amount} executions`,
    unit: 'bytes',
    ours: ours.map((cost) => cost.bytesPerExecution),
    baseline: baseline.map((cost) => cost.bytesPerExecution),
    baselineName: 'A(a)',
    target: { kind: 'at-most', value: 1024 },
  });
}

/** One completed execution's record, `{skillrun}:exec:<id>`. */
async function recordSize(ctx: BenchContext): Promise<number | string> {
  const client = new JsonClient(ctx.service.url, { 'x-api-key': ctx.service.apiKey });
  try {
    const accepted = await client.send(
      'POST',
      `/skills/${ctx.skill.id}/invoke`,
      invocationBody(ctx.skill.id),
    );
    ctx.service.invocations++;
    const id = String(accepted.body.execution_id);
    await new QueueDepth(ctx.redis, [serviceQueue(ctx.skill)]).drained();
    const size = await ctx.redis.call('MEMORY', 'USAGE', `${SERVICE_PREFIX}:exec:${id}`);
    return size === null ? 'no such key' : Number(size);
  } finally {
    client.close();
  }
}
