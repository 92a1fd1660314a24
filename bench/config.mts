/**
 * What a run measures and how long it takes: `npm run bench`, BENCH_QUICK=1, BENCH_ONLY=row1,row3,
 * BENCH_SCALING=1, BENCH_REDIS_SHARDS=3, BENCH_PROFILE=1.
 */

export const ROWS = [
  'row1',
  'row2',
  'row3',
  'row4',
  'row5',
  'row6',
  'row7',
  'row8',
  'row9',
  'row10',
  'row11',
] as const;
export type RowId = (typeof ROWS)[number];

export interface BenchConfig {
  quick: boolean;
  rows: Set<RowId>;
  /** End-to-end throughput with 1 vs 2 worker processes (BENCH_SCALING=1). */
  scaling: boolean;
  /**
   * Row 1 again on a Redis Cluster of this many masters at REDIS_SHARDS of as many, against one
   * Redis (BENCH_REDIS_SHARDS; 1, the default, leaves it out).
   */
  redisShards: number;
  repetitions: number;
  /** Every child under `--cpu-prof`, and their top frames printed at the end (BENCH_PROFILE=1). */
  profile: boolean;
  /** Length of a timed HTTP load window. */
  loadSeconds: number;
  /**
   * Length of the untimed load before a figure's first window. V8 compiles a gateway's hot path
   * over its first several seconds of load (Maglev, then TurboFan, on its helper threads): after a
   * 1 s warm-up the service's gateway's helper threads still spent some 0.5 s of CPU compiling in
   * the first 5 s window, against about a tenth of that in its third (docs/performance-history.md).
   */
  warmupSeconds: number;
  /** HTTP connections for throughput figures, and concurrent adders for raw BullMQ. */
  connections: number;
  /** Row 2: executions queued before the worker starts. */
  drainJobs: number;
  /** Row 2: executions the same worker drains first, untimed, so that its hot path is compiled. */
  drainWarmUpJobs: number;
  /** Rows 5 and 6: executions queued for each concurrency × skills drain. */
  memoryJobs: number;
  /** Row 4: sequential round trips. */
  roundTrips: number;
  /** Row 7: POST invokes the gateway has answered when its memory is read. */
  gatewayInvocations: number;
  /** Rows 8 and 9: executions in the measured Redis window. */
  redisExecutions: number;
  /** A worker whose RSS passes this is stopped (figure marked): a runaway must not take the machine down. */
  rssGuardMb: number;
}

function parseShards(value: string | undefined): number {
  const shards = Number(value ?? 1);
  if (!Number.isInteger(shards) || shards < 1 || shards > 16)
    throw new Error(`BENCH_REDIS_SHARDS: a whole number of masters from 1 to 16, not "${value}"`);
  return shards;
}

function parseRows(only: string | undefined): Set<RowId> {
  if (!only) return new Set(ROWS);
  const rows = new Set<RowId>();
  for (const word of only.split(/[\s,]+/).filter(Boolean)) {
    const row = (/^\d+$/.test(word) ? `row${word}` : word.toLowerCase()) as RowId;
    if (!ROWS.includes(row))
      throw new Error(`BENCH_ONLY: unknown row "${word}" (rows are ${ROWS.join(', ')})`);
    rows.add(row);
  }
  return rows;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  return {
    quick,
    rows: parseRows(env.BENCH_ONLY),
    scaling: env.BENCH_SCALING === '1' || env.BENCH_SCALING === 'true',
    redisShards: parseShards(env.BENCH_REDIS_SHARDS),
    repetitions: Number(env.BENCH_REPETITIONS ?? (quick ? 1 : 3)),
    profile: env.BENCH_PROFILE === '1' || env.BENCH_PROFILE === 'true',
    loadSeconds: quick ? 2 : 5,
    warmupSeconds: quick ? 1 : 5,
    connections: 50,
    drainJobs: quick ? 2000 : 10_000,
    drainWarmUpJobs: quick ? 1000 : 5000,
    memoryJobs: quick ? 1000 : 3000,
    roundTrips: quick ? 100 : 500,
    gatewayInvocations: quick ? 10_000 : 100_000,
    redisExecutions: quick ? 2000 : 10_000,
    rssGuardMb: Number(env.BENCH_RSS_GUARD_MB ?? 4096),
  };
}
