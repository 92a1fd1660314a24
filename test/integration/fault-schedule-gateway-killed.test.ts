import { randomUUID } from 'node:crypto';
import type { Execution, Schedule } from '@skillrun/core';
import {
  QueueRegistry,
  RedisKeys,
  runExecutionId,
  SCHEDULE_QUEUE,
  type ScheduleTick,
} from '@skillrun/core/data';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { launchScheduledEcho } from '../support/scheduled-launch';
import { ADMIN_HEADERS, type StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

// Fault suite: schedules run by gateways (they consume the schedules queue), killed while a
// schedule is due. A due time is one run, not zero (it waits for a gateway, or another takes it
// over once the dead one's lock expires) and not two (its execution's id is the due time's, so a
// run the dead gateway launched before it could record it is found, not launched again).

const PREFIX = '{skillrun}';
type Runs = NonNullable<Schedule['last_runs']>;

describe('fault suite: a gateway killed while a schedule is due', () => {
  let system: TestSystem;
  let redis: Redis;
  let queue: Queue<ScheduleTick>;
  /** The gateway alive now: each test kills it and starts the next. */
  let gateway: StartedGateway;

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker({ WORKER_SKILLS: 'echo' });
    gateway = system.gateway;
    redis = new Redis(system.redis.url, { maxRetriesPerRequest: null });
    queue = new Queue<ScheduleTick>(SCHEDULE_QUEUE, { connection: redis, prefix: PREFIX });
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await system?.stop();
  });

  const client = () => new Client(gateway.url);

  async function runsOf(id: string): Promise<Runs> {
    const answer = await client().requestAvailable<Schedule>(`/schedules/${id}`, { headers: ADMIN_HEADERS });
    expect(answer.status).toBe(200);
    return answer.body.last_runs ?? [];
  }

  async function runsUntil(id: string, enough: (runs: Runs) => boolean): Promise<Runs> {
    let runs: Runs = [];
    await expect
      .poll(
        async () => {
          runs = await runsOf(id);
          return enough(runs);
        },
        { timeout: 40_000, interval: 250 },
      )
      .toBe(true);
    return runs;
  }

  /** The due time a job of the schedules queue stands for, as the gateway reads it. */
  const dueOf = (job: Job) => job.timestamp + (job.opts.delay ?? 0);

  /**
   * The job of a due time come while no gateway runs: it waits for one (delayed still, as nothing
   * consuming the queue has moved it on).
   */
  async function dueJob(): Promise<Job<ScheduleTick>> {
    let found: Job<ScheduleTick> | undefined;
    await expect
      .poll(
        async () => {
          const jobs = await queue.getJobs(['delayed', 'wait']);
          found = jobs.find((job) => dueOf(job) <= Date.now());
          return found !== undefined;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
    return found as Job<ScheduleTick>;
  }

  /**
   * Once paused and settled: every launched run has its one execution and every execution naming
   * the schedule is one run's; no due time is recorded twice.
   */
  async function expectOneExecutionPerRun(id: string): Promise<Runs> {
    const paused = await client().requestAvailable(`/schedules/${id}`, {
      method: 'PATCH',
      json: { paused: true },
      headers: ADMIN_HEADERS,
    });
    expect(paused.status).toBe(200);
    let runs: Runs = [];
    await expect
      .poll(async () => {
        runs = await runsOf(id);
        const listed = await client().requestAvailable<{ executions: Execution[] }>(
          `/executions?schedule_id=${id}&caller_id=admin&limit=100`,
          { headers: ADMIN_HEADERS },
        );
        const executions = listed.body.executions.map((execution) => execution.execution_id).sort();
        const launched = runs.flatMap((run) => (run.outcome === 'launched' ? [run.execution_id] : [])).sort();
        return executions.join() === launched.join();
      })
      .toBe(true);
    expect(new Set(runs.map((run) => run.due_at)).size).toBe(runs.length);
    return runs;
  }

  async function createSchedule(): Promise<string> {
    const created = await client().requestAvailable<Schedule>('/schedules', {
      json: { skill_id: 'echo', every_ms: 1000, inputs: { text: 'due' } },
      headers: ADMIN_HEADERS,
    });
    expect(created.status).toBe(201);
    await runsUntil(
      created.body.schedule_id,
      (runs) => runs.filter((run) => run.outcome === 'launched').length >= 2,
    );
    return created.body.schedule_id;
  }

  it('runs a due time that came while no gateway ran once, when one is back', async () => {
    const id = await createSchedule();
    await gateway.process.stop('SIGKILL');
    const due = dueOf(await dueJob());
    gateway = await system.addGateway();
    const runs = await runsUntil(id, (found) =>
      found.some((run) => Date.parse(run.due_at) > due && run.outcome === 'launched'),
    );
    const ofDue = runs.filter((run) => Date.parse(run.due_at) === due);
    expect(ofDue).toMatchObject([{ outcome: 'launched', execution_id: runExecutionId(id, due) }]);
    await expectOneExecutionPerRun(id);
  });

  it('runs a due time a gateway died holding once, found rather than launched again if the dead one had launched it', async () => {
    const id = await createSchedule();
    await gateway.process.stop('SIGKILL');
    const due = dueOf(await dueJob());
    // As a gateway does: take the due time (its lock for a second), launch its execution, and die
    // before recording the run.
    const taker = new Worker<ScheduleTick>(SCHEDULE_QUEUE, null, {
      connection: redis.duplicate(),
      prefix: PREFIX,
      lockDuration: 1000,
      autorun: false,
    });
    const job = await taker.getNextJob(randomUUID());
    expect(job?.data.schedule_id).toBe(id);
    expect(dueOf(job as Job)).toBe(due);
    const keys = new RedisKeys(PREFIX);
    const executionId = runExecutionId(id, due);
    await launchScheduledEcho(redis, { keys, queues: new QueueRegistry(redis, PREFIX) }, id, executionId);
    await taker.close(true);

    gateway = await system.addGateway();
    const runs = await runsUntil(id, (found) => found.some((run) => Date.parse(run.due_at) === due));
    expect(runs.filter((run) => Date.parse(run.due_at) === due)).toMatchObject([
      { outcome: 'launched', execution_id: executionId },
    ]);
    // And it goes on.
    await runsUntil(id, (found) =>
      found.some((run) => Date.parse(run.due_at) > due && run.outcome === 'launched'),
    );
    await expectOneExecutionPerRun(id);
  });
});
