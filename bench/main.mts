/**
 * `npm run bench`: the service against its baselines, in one run, on a Redis of its own. See
 * docs/benchmark.md for what each row measures. BENCH_QUICK=1 for a short run, BENCH_ONLY=row1,row3
 * for some rows, BENCH_SCALING=1 to add 1 vs 2 worker processes, BENCH_REDIS_SHARDS=3 to add row 1
 * on a Redis Cluster of 3 masters, BENCH_PROFILE=1 to print where each kind of process spends its CPU.
 */
import { join } from 'node:path';
import { RedisServerProcess } from '@skillrun/redis-server';
import { WorkerConfigSchema } from '@skillrun/worker';
import { Redis } from 'ioredis';
import { APP_ENTRIES, bundle } from '../scripts/bundle.mjs';
import { loadConfig, type RowId } from './config.mjs';
import type { BenchContext } from './context.mjs';
import { acceptLatency } from './figures/accept-latency.mjs';
import { batches } from './figures/batches.mjs';
import { endToEnd, scaling } from './figures/end-to-end.mjs';
import { gatewayMemory } from './figures/gateway-memory.mjs';
import { type DrainRuns, queueDrain } from './figures/queue-drain.mjs';
import { redisCost } from './figures/redis-cost.mjs';
import { roundTrip } from './figures/round-trip.mjs';
import { sharded } from './figures/sharded.mjs';
import { workerMemory } from './figures/worker-memory.mjs';
import { machineLines } from './machine.mjs';
import { type Child, flagChildren, killAllChildren, stopAllChildren } from './support/child.mjs';
import { CpuProfiles } from './support/cpu-profiles.mjs';
import { Minimal } from './support/minimal.mjs';
import { redisVersion } from './support/redis-info.mjs';
import { BENCH_SKILLS, Service, skillIn } from './support/service.mjs';
import { wakeUpCost } from './support/wake-up.mjs';
import { markdownTable, verdict } from './table.mjs';

const config = loadConfig();
const profiles = config.profile ? await CpuProfiles.create() : undefined;
if (profiles) flagChildren((name) => profiles.flagsFor(name));
const startedAt = performance.now();
const elapsed = () => `${((performance.now() - startedAt) / 1000).toFixed(0)} s`;
let redisServer: RedisServerProcess | undefined;
let redis: Redis | undefined;

async function cleanUp(): Promise<void> {
  await stopAllChildren();
  redis?.disconnect();
  await redisServer?.stop();
}

// Children must not outlive the bench: on Ctrl-C, on a kill, and (synchronously) on any exit.
process.on('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping every process the bench started…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** The worker's default WORKER_CONCURRENCY: baseline B's worker runs at the same. */
const serviceConcurrency = Number(WorkerConfigSchema.properties.WORKER_CONCURRENCY.default);

async function run(): Promise<void> {
  // Every process runs bundled, as in production (npm start, the image): the service's and the
  // baselines' alike, so that no side carries a TypeScript loader.
  await bundle({
    ...APP_ENTRIES,
    'bench/dist/minimal-gateway': 'bench/minimal-gateway.mts',
    'bench/dist/minimal-worker': 'bench/minimal-worker.mts',
  });
  redisServer = await RedisServerProcess.start();
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  console.log('# skillrun benchmark\n');
  for (const line of machineLines(await redisVersion(redis), await wakeUpCost())) console.log(`- ${line}`);
  console.log(
    `- settings: ${config.quick ? 'BENCH_QUICK, ' : ''}${config.repetitions} repetition(s), ${config.loadSeconds} s load windows, ` +
      `${config.connections} connections, service worker concurrency ${serviceConcurrency} (its default), rows ${[...config.rows].join(',')}` +
      `${config.scaling ? ', scaling' : ''}${config.redisShards > 1 ? `, ${config.redisShards} Redis shards` : ''}` +
      `${profiles ? ', BENCH_PROFILE (every process under --cpu-prof: slower)' : ''}\n`,
  );
  const [service, minimal] = await Promise.all([
    Service.start({ REDIS_URL: redisServer.url }),
    Minimal.start(redisServer.url, serviceConcurrency),
  ]);
  const ctx: BenchContext = {
    config,
    redisUrl: redisServer.url,
    redis,
    service,
    minimal,
    skill: skillIn(join(BENCH_SKILLS, 'noop')),
    figures: [],
    details: [],
    oddities: [],
    progress: (message) => console.log(`[${elapsed()}] ${message}`),
  };
  const has = (...rows: RowId[]) => rows.some((row) => config.rows.has(row));
  const attempt = async (name: string, figure: () => Promise<unknown>) => {
    try {
      await figure();
    } catch (error) {
      ctx.oddities.push(
        `${name} could not be measured: ${error instanceof Error ? error.message : String(error)}`,
      );
      ctx.progress(`${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  };
  // Rows that keep the default workers first; drains stop them; the gateway memory top-up last.
  if (has('row1')) await attempt('row 1', () => endToEnd(ctx));
  if (config.scaling) await attempt('scaling', () => scaling(ctx));
  if (config.redisShards > 1) await attempt(`row 1×${config.redisShards}`, () => sharded(ctx));
  if (has('row3')) await attempt('row 3', () => acceptLatency(ctx));
  if (has('row4')) await attempt('row 4', () => roundTrip(ctx));
  if (has('row10', 'row11')) await attempt('rows 10-11', () => batches(ctx));
  if (has('row8', 'row9')) await attempt('rows 8-9', () => redisCost(ctx));
  let drains: DrainRuns | undefined;
  if (has('row2')) {
    await attempt('row 2', async () => {
      drains = await queueDrain(ctx);
    });
  }
  if (has('row5', 'row6')) await attempt('rows 5-6', () => workerMemory(ctx, drains));
  if (has('row7')) await attempt('row 7', () => gatewayMemory(ctx));
  report(ctx, [service.gateway, minimal.gateway]);
}

function report(ctx: BenchContext, gateways: Child[]): void {
  const figures = ctx.figures
    .filter((figure) => {
      const row = /^\d+/.exec(figure.row)?.[0];
      // Rows 1×…: asked for by their own options (BENCH_SCALING, BENCH_REDIS_SHARDS).
      return figure.row.startsWith('1×') || config.rows.has(`row${row}` as RowId);
    })
    .sort((a, b) => Number.parseInt(a.row, 10) - Number.parseInt(b.row, 10));
  console.log('\n## Results\n');
  console.log(markdownTable(figures));
  const missed = figures.filter((figure) => verdict(figure) === 'missed').length;
  const targets = figures.filter((figure) => verdict(figure) !== 'n/a').length;
  console.log(`\n${targets - missed} of ${targets} targets met. Whole run: ${elapsed()}.\n`);
  console.log(
    'Baselines: A raw BullMQ (adders in the bench process, no-op Worker process); B minimal Express 5 gateway (queue.add, 202) + no-op Worker process.',
  );
  if (ctx.details.length > 0) console.log(`\n${ctx.details.map((line) => `- ${line}`).join('\n')}`);
  for (const gateway of gateways) {
    const { warnings, errors, last } = gateway.summary;
    if (warnings + errors > 0)
      ctx.oddities.push(
        `${gateway.name} logged ${warnings} warnings, ${errors} errors; last: ${last.at(-1)}`,
      );
    if (!gateway.alive)
      ctx.oddities.push(`${gateway.name} exited during the run: ${gateway.stderr.slice(-500)}`);
  }
  console.log('\n### Oddities\n');
  console.log(ctx.oddities.length > 0 ? ctx.oddities.map((line) => `- ${line}`).join('\n') : '- none seen');
}

try {
  await run();
} catch (error) {
  console.error(error);
} finally {
  await cleanUp();
}
// Written by each child as it exited: read once every one has.
if (profiles) console.log(await profiles.report());
// A measurement, not a test: missed targets are in the table, not in the exit code.
process.exit(0);
