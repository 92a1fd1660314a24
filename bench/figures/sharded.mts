/**
 * Row 1×N (BENCH_REDIS_SHARDS=N): row 1's load on a Redis Cluster of N masters, the service at
 * REDIS_SHARDS=N (docs/design/sharding.md), against the same load on the bench's one Redis. Each
 * window also reads every master's commands and CPU (INFO, before and after): what share of the
 * commands each master ran, and its Redis CPU per execution, which docs/scaling.md turns into the
 * masters a rate needs. Issue 37's target is the spread: no master over 45% of the commands; issue
 * 44's, the cluster's Redis CPU per execution within 1.5 times one Redis'. Two more windows tell
 * what the sharded layout costs Redis (more queues, each emptier) from what N servers each fed a
 * Nth of the load cost: a third service at REDIS_SHARDS=N on a Redis server of its own, and the one
 * Redis paced to the cluster's rate over N (whether a Redis fed less spends more per command, each
 * wake-up reading and answering fewer of them).
 */
import {
  type NodeStats,
  type RedisCluster,
  RedisServerProcess,
  redisCpuUs,
  redisReads,
  startCluster,
} from '@skillrun/redis-server';
import { Cluster, Redis } from 'ioredis';
import type { BenchContext } from '../context.mjs';
import { DEPTH_COMMANDS, QueueDepth } from '../support/queue-depth.mjs';
import { Service } from '../support/service.mjs';
import { httpThroughput, warmUp } from './end-to-end.mjs';

/** Issue 37's bound on the busiest master's share of the commands, in %. */
const MAX_SHARE_PERCENT = 45;
/** Issue 44's bound on Redis CPU per execution, sharded ÷ one Redis at REDIS_SHARDS=1. */
const MAX_CPU_RATIO = 1.5;

/** One master over one window. */
interface MasterWindow {
  port: number;
  /** The hash tags whose slot it serves (the prefix's and the active vshards'). */
  tags: string[];
  commands: number;
  cpuUs: number;
  /** Reads of its clients' sockets. */
  reads: number;
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
      reads: end.reads - (start?.reads ?? 0),
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
        `(${(master.commands / executions).toFixed(1)} per execution, in ${(master.reads / executions).toFixed(1)} reads), ` +
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

/**
 * A row-1 window on a service on one Redis server: its rate, and that server's CPU and socket reads
 * per execution.
 */
async function oneRedisWindow(
  ctx: BenchContext,
  on: { service: Service; redis: Redis; depth: QueueDepth },
  label: string,
  rate?: number,
): Promise<{ perSecond: number; cpuUs: number; reads: number }> {
  const [cpuBefore, readsBefore] = [await redisCpuUs(on.redis), await redisReads(on.redis)];
  const run = await httpThroughput(ctx, on.service.target(), on.depth, label, on.service, rate);
  return {
    perSecond: run.perSecond,
    cpuUs: ((await redisCpuUs(on.redis)) - cpuBefore) / run.accepted,
    reads: ((await redisReads(on.redis)) - readsBefore) / run.accepted,
  };
}

function oneRedisText({ perSecond, cpuUs, reads }: { perSecond: number; cpuUs: number; reads: number }) {
  return `${perSecond.toFixed(0)}/s (${cpuUs.toFixed(0)} µs Redis CPU, ${reads.toFixed(1)} reads per execution)`;
}

/** The same figure's repetitions, each window's in one list. */
interface ShardedRuns {
  cluster: number[];
  oneRedis: number[];
  busiest: number[];
  clusterCpu: number[];
  oneRedisCpu: number[];
  layoutCpu: number[];
  pacedCpu: number[];
}

export async function sharded(ctx: BenchContext): Promise<void> {
  const masters = ctx.config.redisShards;
  const cluster = await startCluster({ masters });
  const client = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
  const alone = await RedisServerProcess.start();
  const aloneClient = new Redis(alone.url, { maxRetriesPerRequest: null });
  const services: Service[] = [];
  try {
    const onCluster = await Service.start({ ...cluster.env, REDIS_SHARDS: String(masters) });
    services.push(onCluster);
    const onAlone = await Service.start({ REDIS_URL: alone.url, REDIS_SHARDS: String(masters) });
    services.push(onAlone);
    await Promise.all([...services, ctx.service].map((service) => service.ensureDefaultWorker()));
    const queues = onCluster.queues(ctx.skill);
    const tagsOf = await tagsByMaster(
      cluster,
      queues.map((queue) => queue.prefix),
    );
    const clusterDepth = new QueueDepth(client, queues);
    const one = {
      service: ctx.service,
      redis: ctx.redis,
      depth: new QueueDepth(ctx.redis, ctx.service.queues(ctx.skill)),
    };
    const layout = {
      service: onAlone,
      redis: aloneClient,
      depth: new QueueDepth(aloneClient, onAlone.queues(ctx.skill)),
    };
    await warmUp(ctx, onCluster.target(), clusterDepth, onCluster);
    await warmUp(ctx, onAlone.target(), layout.depth, onAlone);
    const runs: ShardedRuns = {
      cluster: [],
      oneRedis: [],
      busiest: [],
      clusterCpu: [],
      oneRedisCpu: [],
      layoutCpu: [],
      pacedCpu: [],
    };
    for (let rep = 1; rep <= ctx.config.repetitions; rep++) {
      const label = `row 1×${masters} rep ${rep}`;
      const oneWindow = await oneRedisWindow(ctx, one, `${label} one Redis`);
      const layoutWindow = await oneRedisWindow(ctx, layout, `${label} one Redis at REDIS_SHARDS=${masters}`);
      const before = await cluster.nodeStats();
      const pollsBefore = clusterDepth.polls;
      const run = await httpThroughput(ctx, onCluster.target(), clusterDepth, `${label} cluster`, onCluster);
      const polledOn = new Map<number, number>();
      for (const [port, tags] of tagsOf) polledOn.set(port, tags.length * (clusterDepth.polls - pollsBefore));
      const window = between(before, await cluster.nodeStats(), tagsOf, polledOn);
      // One Redis fed what one master was: the cluster's rate over its masters.
      const paced = await oneRedisWindow(ctx, one, `${label} one Redis paced`, run.perSecond / masters);
      runs.cluster.push(run.perSecond);
      runs.oneRedis.push(oneWindow.perSecond);
      runs.busiest.push(Math.max(...window.map((master) => share(master, window))));
      runs.clusterCpu.push(window.reduce((sum, master) => sum + master.cpuUs, 0) / run.accepted);
      runs.oneRedisCpu.push(oneWindow.cpuUs);
      runs.layoutCpu.push(layoutWindow.cpuUs);
      runs.pacedCpu.push(paced.cpuUs);
      ctx.progress(
        `${label}: one Redis ${oneRedisText(oneWindow)}, ` +
          `one Redis at REDIS_SHARDS=${masters} ${oneRedisText(layoutWindow)}, ` +
          `one Redis paced to ${(run.perSecond / masters).toFixed(0)}/s: ${oneRedisText(paced)}, ` +
          `${masters} masters ${run.perSecond.toFixed(0)}/s; ` +
          describe(window, run.accepted),
      );
      ctx.details.push(`Row 1×${masters} rep ${rep}, per master: ${describe(window, run.accepted)}`);
      for (const master of window)
        ctx.details.push(
          `Row 1×${masters} rep ${rep}, :${master.port} commands per execution: ${topCalls(master, run.accepted)}`,
        );
    }
    pushShardedFigures(ctx, masters, runs);
  } finally {
    for (const service of services) await service.stop();
    client.disconnect();
    aloneClient.disconnect();
    await cluster.stop();
    await alone.stop();
  }
}

function pushShardedFigures(ctx: BenchContext, masters: number, runs: ShardedRuns): void {
  ctx.figures.push({
    row: `1×${masters}`,
    title: `row 1 on a Redis Cluster of ${masters} masters at REDIS_SHARDS=${masters} (ours) vs one Redis`,
    unit: 'exec/s',
    ours: runs.cluster,
    baseline: runs.oneRedis,
    baselineName: 'one Redis',
  });
  ctx.figures.push({
    row: `1×${masters}′`,
    title: "same window: the busiest master's share of the Redis commands",
    unit: '%',
    ours: runs.busiest,
    target: { kind: 'at-most', value: MAX_SHARE_PERCENT },
  });
  ctx.figures.push({
    row: `1×${masters}″`,
    title: 'same windows: Redis CPU per execution, every master together (ours) vs one Redis',
    unit: 'µs',
    ours: runs.clusterCpu,
    baseline: runs.oneRedisCpu,
    baselineName: 'one Redis',
    target: { kind: 'ratio-at-most', value: MAX_CPU_RATIO },
  });
  ctx.figures.push({
    row: `1×${masters}‴`,
    title: `same repetitions: Redis CPU per execution, REDIS_SHARDS=${masters} on one Redis server (ours) vs REDIS_SHARDS=1`,
    unit: 'µs',
    ours: runs.layoutCpu,
    baseline: runs.oneRedisCpu,
    baselineName: 'one Redis',
    target: { kind: 'ratio-at-most', value: MAX_CPU_RATIO },
  });
  ctx.figures.push({
    row: `1×${masters}⁗`,
    title: `same repetitions: Redis CPU per execution, every master together (ours) vs one Redis at REDIS_SHARDS=1 paced to the cluster's rate ÷ ${masters}`,
    unit: 'µs',
    ours: runs.clusterCpu,
    baseline: runs.pacedCpu,
    baselineName: 'one Redis paced',
  });
}
