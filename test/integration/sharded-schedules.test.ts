import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Execution, Schedule } from '@skillrun/core';
import {
  createRedis,
  QueueRegistry,
  RedisKeys,
  redisTargetOf,
  runExecutionId,
  SCHEDULE_QUEUE,
  type ScheduleTick,
} from '@skillrun/core/data';
import type { RedisCluster } from '@skillrun/redis-server';
import { type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { launchScheduledEcho } from '../support/scheduled-launch';
import { ADMIN_HEADERS, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

// With REDIS_SHARDS=3 a schedule keeps a vshard (placed in turn as schedules are made, or at the
// first run of one made at one shard), and each run's id is derived from the schedule and its due
// time on that vshard (slice 14 of docs/design/sharding.md): runs spread over the masters, and
// every try of a due time, on any gateway, derives the same id (one execution per due time).

const PREFIX = '{skillrun}';
const keys = new RedisKeys(PREFIX, 3);
const { shards } = keys;
type Runs = NonNullable<Schedule['last_runs']>;

describe('schedules over three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;
  let client: Client;
  let redis: Redis;
  /** The gateways taking due times (two), which the last test kills. */
  let gateways: StartedGateway[];

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3' });
    gateways = [system.gateway, await system.addGateway()];
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    client = system.client;
    redis = createRedis(redisTargetOf(system.redis.env), { role: 'queue' });
    await once(redis, 'ready');
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  async function create(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await client.requestAvailable<Schedule>('/schedules', {
      json: { skill_id: 'echo', every_ms: 1000, inputs: { text: 'due' }, ...extra },
      headers: ADMIN_HEADERS,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.schedule_id;
  }

  async function launchedRuns(id: string, enough: number): Promise<Runs> {
    let runs: Runs = [];
    await expect
      .poll(
        async () => {
          const answer = await client.requestAvailable<Schedule>(`/schedules/${id}`, {
            headers: ADMIN_HEADERS,
          });
          runs = (answer.body.last_runs ?? []).filter((run) => run.outcome === 'launched');
          return runs.length >= enough;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true);
    return runs;
  }

  /** The vshard the schedule keeps (its hash's `vshard`), if any. */
  async function keptVshard(id: string): Promise<number | undefined> {
    const kept = await redis.hget(keys.schedules.schedule(id), 'vshard');
    return kept === null ? undefined : Number(kept);
  }

  /**
   * Each launched run's execution has the id of its due time on the schedule's vshard, and, once
   * paused and settled, the executions naming the schedule are exactly its launched runs.
   */
  async function expectRunsOn(id: string, vshard: number): Promise<void> {
    const runs = await launchedRuns(id, 2);
    for (const run of runs) {
      expect(run.execution_id).toBe(runExecutionId(id, Date.parse(run.due_at), { shards, vshard }));
      expect(shards.vshardOf(run.execution_id as string)).toBe(vshard);
    }
    const last = (runs[0] as Runs[number]).execution_id as string;
    const { final } = await client.waitForEnd('echo', last, 20_000, ADMIN_HEADERS);
    expect(final).toMatchObject({ status: 'completed', schedule_id: id });

    const paused = await client.requestAvailable(`/schedules/${id}`, {
      method: 'PATCH',
      json: { paused: true },
      headers: ADMIN_HEADERS,
    });
    expect(paused.status).toBe(200);
    await expect
      .poll(async () => {
        const answer = await client.requestAvailable<Schedule>(`/schedules/${id}`, {
          headers: ADMIN_HEADERS,
        });
        const all = answer.body.last_runs ?? [];
        const listed = await client.requestAvailable<{ executions: Execution[] }>(
          `/executions?schedule_id=${id}&caller_id=admin&limit=100`,
          { headers: ADMIN_HEADERS },
        );
        const executions = listed.body.executions.map((execution) => execution.execution_id).sort();
        const launched = all.flatMap((run) => (run.outcome === 'launched' ? [run.execution_id] : [])).sort();
        return (
          new Set(all.map((run) => run.due_at)).size === all.length && executions.join() === launched.join()
        );
      })
      .toBe(true);
  }

  it('places schedules on the vshards in turn and runs each on its own, one execution per due time', async () => {
    const ids = [await create(), await create(), await create()];
    const placed = await Promise.all(ids.map(keptVshard));
    expect([...placed].sort()).toEqual([...shards.active()].sort());
    await Promise.all(ids.map((id, i) => expectRunsOn(id, placed[i] as number)));
  });

  it('places a schedule made at one shard at its first run', async () => {
    const id = await create({ paused: true });
    // As a schedule made at REDIS_SHARDS=1 is kept: no vshard.
    await redis.hdel(keys.schedules.schedule(id), 'vshard');
    const resumed = await client.requestAvailable(`/schedules/${id}`, {
      method: 'PATCH',
      json: { paused: false },
      headers: ADMIN_HEADERS,
    });
    expect(resumed.status).toBe(200);
    await launchedRuns(id, 1);
    const vshard = await keptVshard(id);
    expect(shards.active()).toContain(vshard);
    await expectRunsOn(id, vshard as number);
  });

  it('finds the run a gateway launched on the vshard before it died, rather than launching a second', async () => {
    const id = await create();
    const vshard = await keptVshard(id);
    expect(shards.active()).toContain(vshard);
    await launchedRuns(id, 1);
    await Promise.all(gateways.map((gateway) => gateway.process.stop('SIGKILL')));
    // As a gateway does: take the next due time (its lock for a second), launch its execution, and
    // die before recording the run.
    const queue = new Queue<ScheduleTick>(SCHEDULE_QUEUE, { connection: redis, prefix: PREFIX });
    const taker = new Worker<ScheduleTick>(SCHEDULE_QUEUE, null, {
      connection: redis.duplicate(),
      prefix: PREFIX,
      lockDuration: 1000,
      autorun: false,
    });
    const dueOf = (job: Job) => job.timestamp + (job.opts.delay ?? 0);
    await expect
      .poll(async () => (await queue.getJobs(['delayed', 'wait'])).some((job) => dueOf(job) <= Date.now()), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    const job = await taker.getNextJob(randomUUID());
    expect(job?.data.schedule_id).toBe(id);
    const due = dueOf(job as Job);
    const executionId = runExecutionId(id, due, { shards, vshard: vshard as number });
    const queues = new QueueRegistry(redis, PREFIX, undefined, 3);
    const launched = await launchScheduledEcho(redis, { keys, queues }, id, executionId);
    expect(launched.status).toBe('accepted');
    await taker.close(true);
    await queue.close();
    await queues.close();

    client = new Client((await system.addGateway()).url);
    let runs: Runs = [];
    await expect
      .poll(
        async () => {
          const answer = await client.requestAvailable<Schedule>(`/schedules/${id}`, {
            headers: ADMIN_HEADERS,
          });
          runs = (answer.body.last_runs ?? []).filter((run) => Date.parse(run.due_at) === due);
          return runs.length;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);
    expect(runs).toMatchObject([{ outcome: 'launched', execution_id: executionId }]);
    await expectRunsOn(id, vshard as number);
  });
});
