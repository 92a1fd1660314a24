/**
 * Row 1×N (BENCH_REDIS_SHARDS=N): row 1's load on a Redis Cluster of N masters, the service at
 * REDIS_SHARDS=N (docs/design/sharding.md), against the same load on the bench's one Redis. Each
 * window also reads every master's commands and CPU (INFO, before and after): what share of the
 * commands each master ran, and its Redis CPU per execution, which docs/scaling.md turns into the
 * masters a rate needs. The issue's target is the spread: no master over 45% of the commands.
 */
import { type NodeStats, type RedisCluster, redisCpuUs, startCluster } from '@skillrun/redis-server';
import { Cluster } from 'ioredis';
import type { BenchContext } from '../context.mjs';
import { DEPTH_COMMANDS, QueueDepth } from '../support/queue-depth.mjs';
import { Service } from '../support/service.mjs';
import { httpThroughput, warmUp } from './end-to-end.mjs';

/** The bound on the busiest master's share of the commands, in %. */
const MAX_SHARE_PERCENT = 45;

/** One master over one window. */
interface MasterWindow {
  port: number;
  /** The hash tags whose slot it serves (the prefix's and the active vshards'). */
  tags: string[];
  commands: number;
  cpuUs: number;
  calls: Map<string, number>;
}

/** Each master's work between two readings, less the bench's own queue polling. */
function between(
  before: NodeStats[],
  after: NodeStats[],
  tagsOf: Map<number, string[]>,
  polledOn: Map<number, number>,
): MasterWindow[] {
  return after.map((end) => {
    const start = before.find((node) => node.port === end.port);
    const calls = new Map<string, number>();
    for (const [command, count] of end.calls) calls.set(command, count - (start?.calls.get(command) ?? 0));
    const polls = polledOn.get(end.port) ?? 0;
    calls.set('llen', (calls.get('llen') ?? 0) - polls * DEPTH_COMMANDS.llen);
    calls.set('zcard', (calls.get('zcard') ?? 0) - polls * DEPTH_COMMANDS.zcard);
    let commands = 0;
    for (const count of calls.values()) commands += count;
    return {
      port: end.port,
      tags: tagsOf.get(end.port) ?? [],
      commands,
      cpuUs: end.cpuUs - (start?.cpuUs ?? 0),
      calls,
    };
  });
}

function share(master: MasterWindow, masters: MasterWindow[]): number {
  const total = masters.reduce((sum, each) => sum + each.commands, 0);
  return (100 * master.commands) / total;
}

function topCalls(master: MasterWindow, executions: number, top = 8): string {
  return [...master.calls]
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([command, calls]) => `${command} ${(calls / executions).toFixed(2)}`)
    .join(', ');
}

function describe(masters: MasterWindow[], executions: number): string {
  return masters
    .map(
      (master) =>
        `:${master.port} (${master.tags.join(' ')}) ${share(master, masters).toFixed(1)}% of commands ` +
        `(${(master.commands / executions).toFixed(1)} per execution), ` +
        `${(master.cpuUs / executions).toFixed(0)} µs Redis CPU per execution`,
    )
    .join('; ');
}

/** Which master serves each tag the service's queues are on, by port. */
async function tagsByMaster(cluster: RedisCluster, tags: string[]): Promise<Map<number, string[]>> {
  const byPort = new Map<number, string[]>();
  for (const tag of tags) {
    const { port } = await cluster.masterOf(tag);
    byPort.set(port, [...(byPort.get(port) ?? []), tag]);
  }
  return byPort;
}

export async function sharded(ctx: BenchContext): Promise<void> {
  const { config } = ctx;
  const masters = config.redisShards;
  const cluster = await startCluster({ masters });
  const client = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
  let service: Service | undefined;
  try {
    service = await Service.start({ ...cluster.env, REDIS_SHARDS: String(masters) });
    await Promise.all([service.ensureDefaultWorker(), ctx.service.ensureDefaultWorker()]);
    const queues = service.queues(ctx.skill);
    const tagsOf = await tagsByMaster(
      cluster,
      queues.map((queue) => queue.prefix),
    );
    const onCluster = new QueueDepth(client, queues);
    const onOne = new QueueDepth(ctx.redis, ctx.service.queues(ctx.skill));
    await warmUp(ctx, service.target(), onCluster, service);
    const ours: number[] = [];
    const baseline: number[] = [];
    const busiest: number[] = [];
    const redisCpu: number[] = [];
    const oneRedisCpu: number[] = [];
    for (let rep = 1; rep <= config.repetitions; rep++) {
      const label = `row 1×${masters} rep ${rep}`;
      const cpuBefore = await redisCpuUs(ctx.redis);
      const one = await httpThroughput(ctx, ctx.service.target(), onOne, `${label} one Redis`, ctx.service);
      baseline.push(one.perSecond);
      oneRedisCpu.push(((await redisCpuUs(ctx.redis)) - cpuBefore) / one.accepted);
      const before = await cluster.nodeStats();
      const pollsBefore = onCluster.polls;
      const run = await httpThroughput(ctx, service.target(), onCluster, `${label} cluster`, service);
      const polledOn = new Map<number, number>();
      for (const [port, tags] of tagsOf) polledOn.set(port, tags.length * (onCluster.polls - pollsBefore));
      const window = between(before, await cluster.nodeStats(), tagsOf, polledOn);
      ours.push(run.perSecond);
      busiest.push(Math.max(...window.map((master) => share(master, window))));
      redisCpu.push(window.reduce((sum, master) => sum + master.cpuUs, 0) / run.accepted);
      ctx.progress(
        `${label}: one Redis ${one.perSecond.toFixed(0)}/s (${oneRedisCpu.at(-1)?.toFixed(0)} µs Redis CPU per execution), ` +
          `${masters} masters ${run.perSecond.toFixed(0)}/s; ` +
          describe(window, run.accepted),
      );
      ctx.details.push(`Row 1×${masters} rep ${rep}, per master: ${describe(window, run.accepted)}`);
      for (const master of window)
        ctx.details.push(
          `Row 1×${masters} rep ${rep}, :${master.port} commands per execution: ${topCalls(master, run.accepted)}`,
        );
    }
    ctx.figures.push({
      row: `1×${masters}`,
      title: `row 1 on a Redis Cluster of ${masters} masters at REDIS_SHARDS=${masters} (ours) vs one Redis`,
      unit: 'exec/s',
      ours,
      baseline,
      baselineName: 'one Redis',
    });
    ctx.figures.push({
      row: `1×${masters}′`,
      title: "same window: the busiest master's share of the Redis commands",
      unit: '%',
      ours: busiest,
      target: { kind: 'at-most', value: MAX_SHARE_PERCENT },
    });
    ctx.figures.push({
      row: `1×${masters}″`,
      title: 'same windows: Redis CPU per execution, every master together (ours) vs one Redis',
      unit: 'µs',
      ours: redisCpu,
      baseline: oneRedisCpu,
      baselineName: 'one Redis',
    });
  } finally {
    await service?.stop();
    client.disconnect();
    await cluster.stop();
  }
}
