import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue } from '../support/metric-value';
import type { LogLine, ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

// Fault suite 8: a soak of 160,000 executions through a gateway and a worker. Once retention
// applies, Redis holds no more than the history index of what ran; gateway and worker memory stay
// flat; no handles leak.

const TOTAL = 160_000;
const ROUNDS = 8;
/** The worker's bound (bench row 5's target, docs/benchmark.md). */
const WORKER_MAX_RSS = 400e6;
const RETENTION_SECONDS = 60;
/**
 * The worker's memory is judged by its RSS, and by its live heap, what a full collection leaves.
 * On Node 24, V8 keeps the pages its collections free in a pool rather than returning them while
 * the process is busy, so RSS is the heap's high-water mark: start:worker's
 * `--heap-growing-percent` keeps that mark at 1.5 times the live heap
 * (docs/performance-history.md, "Memory on Node 24"). `--trace-gc` prints each full collection's
 * heap before and after.
 */
const WORKER_GC_FLAGS = ['--trace-gc', '--trace-gc-ignore-scavenger'];
const FULL_GC =
  /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

/**
 * The main thread's live heap (MB) after each full collection logged from `fromLine` on. The main
 * isolate is the one with the largest heap: sandbox threads' isolates log their collections too.
 */
function liveHeapAfterFullGcs(logs: readonly LogLine[], fromLine: number): number[] {
  const byIsolate = new Map<string, number[]>();
  for (const line of logs.slice(fromLine)) {
    const match = FULL_GC.exec(String(line.msg));
    if (!match) continue;
    const [, isolate = '', after] = match;
    byIsolate.set(isolate, [...(byIsolate.get(isolate) ?? []), Number(after)]);
  }
  const largest = (heaps: number[]) => Math.max(...heaps);
  return [...byIsolate.values()].sort((a, b) => largest(b) - largest(a))[0] ?? [];
}

interface Sample {
  redisBytes: number;
  gatewayRss: number;
  workerRss: number;
  gatewayHandles: number;
  workerHandles: number;
  /** How many lines the worker had logged when the sample was taken. */
  workerLogLines: number;
}

describe('fault suite: a soak of 160,000 executions', () => {
  let system: TestSystem;
  let worker: ServiceProcess;
  let redis: Redis;

  beforeAll(async () => {
    system = await TestSystem.start({ EXECUTION_TTL_SECONDS: String(RETENTION_SECONDS) });
    worker = await system.addWorker({ WORKER_SKILLS: 'echo' }, WORKER_GC_FLAGS);
    redis = new Redis(system.redis.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  async function sample(): Promise<Sample> {
    const gateway = `${system.gateway.url}/metrics`;
    const workerMetrics = worker.metricsUrl();
    const info = await redis.info('memory');
    return {
      redisBytes: Number(/used_memory:(\d+)/.exec(info)?.[1]),
      gatewayRss: await metricValue(gateway, 'process_resident_memory_bytes'),
      workerRss: await metricValue(workerMetrics, 'process_resident_memory_bytes'),
      gatewayHandles: await metricValue(gateway, 'nodejs_active_handles'),
      workerHandles: await metricValue(workerMetrics, 'nodejs_active_handles'),
      workerLogLines: worker.logs.length,
    };
  }

  /**
   * `amount` invocations over 50 connections; resolves once the worker has completed every one
   * accepted. A loaded machine may refuse a few with 503 (a Redis call past REDIS_TIMEOUT_MS): such an
   * invocation did not happen, and anything else but 202 fails the test.
   */
  async function round(amount: number, completedBefore: number): Promise<number> {
    const others: number[] = [];
    const accepted = await new Promise<number>((resolve, reject) => {
      let count = 0;
      const instance = autocannon(
        {
          url: system.gateway.url,
          connections: 50,
          amount,
          requests: [
            {
              method: 'POST',
              path: '/skills/echo/invoke',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                caller: { id: 'soak', type: 'service' },
                skill_id: 'echo',
                inputs: { text: 'soak' },
              }),
            },
          ],
        },
        (error) => (error ? reject(error) : resolve(count)),
      );
      instance.on('response', (_client, statusCode) => {
        if (statusCode === 202) count++;
        else others.push(statusCode);
      });
    });
    expect(others.filter((status) => status !== 503)).toEqual([]);
    expect(accepted).toBeGreaterThan(amount * 0.99);
    const target = completedBefore + accepted;
    await expect
      .poll(() => metricValue(worker.metricsUrl(), 'skillrun_executions_total'), {
        timeout: 120_000,
        interval: 500,
      })
      .toBe(target);
    return target;
  }

  // Minutes, not seconds: 160,000 executions, then the retention period.
  it('keeps Redis to the history index once retention applies, memory flat, no leaked handles', {
    timeout: 600_000,
  }, async () => {
    const empty = await sample();
    const perRound = TOTAL / ROUNDS;
    const started = performance.now();
    let completed = await round(perRound, 0);
    const warm = await sample();
    const samples: Sample[] = [warm];
    for (let i = 1; i < ROUNDS; i++) {
      completed = await round(perRound, completed);
      samples.push(await sample());
    }
    const last = samples.at(-1) as Sample;
    const endedAt = Date.now();
    const seconds = (performance.now() - started) / 1000;
    // Every record, the last one's included, has outlived its retention.
    await new Promise((resolve) =>
      setTimeout(resolve, RETENTION_SECONDS * 1000 + 3000 - (Date.now() - endedAt)),
    );
    const retained = await sample();
    const executionKeys = await redis.eval("return #redis.call('KEYS', ARGV[1])", 0, '{skillrun}:exec:*');

    const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
    const indexBytesPerExecution = (retained.redisBytes - empty.redisBytes) / completed;
    // The live heap after each full collection from the end of the first round on, the last three
    // rounds' apart.
    const liveHeap = liveHeapAfterFullGcs(worker.logs, warm.workerLogLines);
    const lastRoundsHeap = liveHeapAfterFullGcs(worker.logs, (samples.at(-4) as Sample).workerLogLines);
    console.log(
      `fault 8: ${completed} executions (of ${TOTAL} invoked) in ${ROUNDS} rounds (${seconds.toFixed(0)} s); RSS after each round, gateway ${samples.map((s) => mb(s.gatewayRss)).join(' → ')} MB, ` +
        `worker ${samples.map((s) => mb(s.workerRss)).join(' → ')} MB (live heap after each full collection ${liveHeap.join(', ')} MB); Redis ${mb(empty.redisBytes)} MB empty, ` +
        `${samples.map((s) => mb(s.redisBytes)).join(' → ')} MB during, ${mb(retained.redisBytes)} MB once retention applied ` +
        `(${indexBytesPerExecution.toFixed(0)} B per execution: the history index), ${executionKeys} execution keys left; ` +
        `active handles gateway ${warm.gatewayHandles} → ${last.gatewayHandles}, worker ${warm.workerHandles} → ${last.workerHandles}`,
    );
    // No record outlives its retention, and what stays (the hour index of ids) is small.
    expect(executionKeys).toBe(0);
    expect(indexBytesPerExecution).toBeLessThan(150);
    // The gateway's memory flat after the first round: what grows with executions would grow 7 times more.
    expect(last.gatewayRss).toBeLessThan(warm.gatewayRss * 1.3);
    // The worker's live heap as flat, collected in the last three rounds as after the first: 140,000
    // executions later, a leak of 100 B an execution would have added 14 MB to its ~35 MB.
    expect(lastRoundsHeap.length).toBeGreaterThan(0);
    expect(lastRoundsHeap.at(-1)).toBeLessThan((liveHeap[0] as number) * 1.25);
    // Its RSS as flat: 140,000 executions later, within 1.3 times what it was after the first 20,000.
    expect(last.workerRss).toBeLessThan(warm.workerRss * 1.3);
    expect(last.workerRss).toBeLessThan(WORKER_MAX_RSS);
    expect(Math.abs(last.gatewayHandles - warm.gatewayHandles)).toBeLessThanOrEqual(5);
    expect(Math.abs(last.workerHandles - warm.workerHandles)).toBeLessThanOrEqual(5);
  });
});
