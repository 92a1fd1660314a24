import { ExecutionStore, RedisKeys, SkillError, type TransitionResult } from '@skillrun/core';
import { type Job, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OutcomeCompletions } from '../../apps/worker/src/outcome-completions';
import { startTestRedis, type TestRedis } from '../support/test-redis';

// The worker writes an execution's outcome in the same script as BullMQ's completion of its job:
// here against real Redis and BullMQ's own Worker, with every command Redis runs watched (MONITOR).

const PREFIX = '{skillrun}';
const QUEUE = 'skill.outcomes@1.0.0';
const keys = new RedisKeys(PREFIX);
const failure = new SkillError('TOOL_EXECUTION_FAILED', 'it failed', { recoverable: false }).toBody();

describe('outcomes sent with the completion of their jobs', () => {
  let redis: TestRedis;
  let connection: Redis;
  let admin: Redis;
  let monitor: Redis;
  let listener: Redis;
  let store: ExecutionStore;
  let completions: OutcomeCompletions;
  let queue: Queue;
  let events: QueueEvents;
  let worker: Worker | undefined;
  let seen: string[][] = [];
  const outcomes = new Map<string, Promise<TransitionResult>>();

  beforeAll(async () => {
    redis = await startTestRedis();
    admin = new Redis(redis.url);
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    store = new ExecutionStore(connection, keys, 60);
    // As the worker wires it: before BullMQ defines its scripts on the connection.
    completions = new OutcomeCompletions(connection, (call) => store.transitions.send(call));
    queue = new Queue(QUEUE, { connection: admin, prefix: PREFIX });
    listener = new Redis(redis.url, { maxRetriesPerRequest: null });
    events = new QueueEvents(QUEUE, { connection: listener, prefix: PREFIX });
    await events.waitUntilReady();
    monitor = await admin.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      seen.push(args);
    });
    await warmUp();
  });
  afterAll(async () => {
    monitor?.disconnect();
    await events?.close();
    listener?.disconnect();
    await queue?.close();
    connection?.disconnect();
    admin?.disconnect();
    await redis?.stop();
  });
  beforeEach(() => {
    seen = [];
    outcomes.clear();
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  /** A record that has not ended, as the gateway writes one. */
  async function accepted(executionId: string, extra: Record<string, string> = {}): Promise<void> {
    await admin.hset(keys.execution(executionId), { status: 'accepted', skill_id: 'outcomes', ...extra });
  }

  function consume(processor: (job: Job) => Promise<void>, concurrency = 1): void {
    worker = new Worker(QUEUE, processor, { connection, prefix: PREFIX, concurrency });
  }

  /**
   * Has Redis load the scripts (a first call is an EVALSHA refused, then an EVAL), so that each
   * test sees one call per script run.
   */
  async function warmUp(): Promise<void> {
    await accepted('warm');
    let count = 0;
    const ended = new Promise<void>((resolve) => {
      events.on('completed', () => {
        if (++count === 2) resolve();
      });
    });
    consume(async (job) => {
      if (job.id === 'warm')
        void completions.attach('warm', store.transitions.completeCall('warm', '1', started()));
    });
    await queue.add('run', {}, { jobId: 'warm' });
    await queue.add('run', {}, { jobId: 'warm-plain' });
    await ended;
    events.removeAllListeners('completed');
    await worker?.close();
    worker = undefined;
  }

  const started = () => ({ attempt: 1, startedAt: Date.now() });

  /** The script calls Redis ran that name every one of `names`, once MONITOR has shown all it ran. */
  async function callsNaming(...names: string[]): Promise<string[][]> {
    const mark = `mark-${Math.random()}`;
    await admin.echo(mark);
    while (!seen.some((args) => args.includes(mark))) await new Promise((resolve) => setTimeout(resolve, 5));
    return seen.filter((args) => /^eval/i.test(args[0] ?? '') && names.every((name) => args.includes(name)));
  }

  /** The script calls that wrote an execution's record (a read names neither the notifications). */
  const writesOf = (executionId: string) => callsNaming(keys.execution(executionId), keys.notifications());

  /** The record was written once, by the call that ended its job (whose id is the execution's). */
  async function expectEndedInOneCall(executionId: string): Promise<void> {
    const writes = await writesOf(executionId);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain(`${PREFIX}:${QUEUE}:${executionId}`);
  }

  /** Runs job `executionId` once, its attempt attaching `output` as its outcome; resolves as it completes. */
  async function completeOnce(executionId: string, output: string): Promise<void> {
    const end = new Promise((resolve) => events.once('completed', resolve));
    consume(async (job) => {
      const call = store.transitions.completeCall(executionId, output, started());
      outcomes.set(String(job.id), completions.attach(String(job.id), call));
    });
    await queue.add('run', {}, { jobId: executionId });
    await end;
  }

  it('writes the outcome and completes the job in one script call', async () => {
    await accepted('e-1');
    await completeOnce('e-1', '{"n":1}');
    expect(await outcomes.get('e-1')).toBe('applied');
    const record = await store.records.get('e-1');
    expect(record?.status).toBe('completed');
    expect(record?.output).toEqual({ n: 1 });
    expect(await queue.getJobState('e-1')).toBe('completed');
    await expectEndedInOneCall('e-1');
  });

  it('completes a job without an outcome by BullMQ script alone', async () => {
    const end = new Promise((resolve) => events.once('completed', resolve));
    consume(async () => {});
    await queue.add('run', {}, { jobId: 'plain-1' });
    await end;
    expect(await queue.getJobState('plain-1')).toBe('completed');
    const calls = (await callsNaming(`${PREFIX}:${QUEUE}:plain-1`)).filter((args) => args[2] === '14');
    expect(calls).toHaveLength(1);
  });

  it('records a final failure with the job failing, in one call', async () => {
    await accepted('e-2');
    const end = new Promise((resolve) => events.once('failed', resolve));
    consume(async (job) => {
      const call = store.transitions.failCall('e-2', 'failed', failure, started());
      outcomes.set(String(job.id), completions.attach(String(job.id), call));
      throw new UnrecoverableError('it failed');
    });
    await queue.add('run', {}, { jobId: 'e-2', attempts: 3 });
    await end;
    expect(await outcomes.get('e-2')).toBe('applied');
    expect((await store.records.get('e-2'))?.status).toBe('failed');
    expect(await queue.getJobState('e-2')).toBe('failed');
    await expectEndedInOneCall('e-2');
  });

  it('completes the job when the record has ended already (a cancel won the race), leaving it as it was', async () => {
    await accepted('e-3', { status: 'canceled' });
    await completeOnce('e-3', '{"n":3}');
    expect(await outcomes.get('e-3')).toBe('refused');
    expect((await store.records.get('e-3'))?.status).toBe('canceled');
    expect(await queue.getJobState('e-3')).toBe('completed');
  });

  it('completes the job when the transition fails, and says why', async () => {
    // A record whose slots cannot be read: the transition's own error, not BullMQ's.
    await accepted('e-4', { slots: 'not json' });
    await completeOnce('e-4', '{"n":4}');
    await expect(outcomes.get('e-4')).rejects.toThrow(/user_script:\d+/);
    expect(await queue.getJobState('e-4')).toBe('completed');
  });

  it('hands every job its successor through the same call, a backlog drained with each outcome', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `b-${i}`);
    for (const id of ids) await accepted(id);
    await queue.addBulk(ids.map((id) => ({ name: 'run', data: {}, opts: { jobId: id } })));
    const done = new Promise<void>((resolve) => {
      let count = 0;
      events.on('completed', () => {
        if (++count === ids.length) resolve();
      });
    });
    consume(async (job) => {
      const call = store.transitions.completeCall(String(job.id), `{"id":"${job.id}"}`, {
        attempt: 1,
        startedAt: Date.now(),
      });
      outcomes.set(String(job.id), completions.attach(String(job.id), call));
    }, 4);
    await done;
    events.removeAllListeners('completed');
    expect(await Promise.all(ids.map((id) => outcomes.get(id)))).toEqual(ids.map(() => 'applied'));
    for (const id of ids) expect((await store.records.get(id))?.output).toEqual({ id });
    for (const id of ids) await expectEndedInOneCall(id);
    // The next job came back with the end of the last (BullMQ's answer inside ours), not by a fetch
    // of its own (moveToActive, 11 keys) each time.
    const fetches = (await callsNaming(`${PREFIX}:${QUEUE}:wait`)).filter((args) => args[2] === '11');
    expect(fetches.length).toBeLessThan(ids.length / 2);
  });

  it('writes on its own an outcome still attached when BullMQ says its job ended', async () => {
    await accepted('e-6');
    const written = completions.attach('e-6', store.transitions.completeCall('e-6', '{"n":6}', started()));
    expect(completions.jobEnded('e-6')).toBe(true);
    expect(await written).toBe('applied');
    expect((await store.records.get('e-6'))?.status).toBe('completed');
    expect(completions.jobEnded('e-6')).toBe(false);
  });

  it('writes on its own, when flushed, an outcome whose job BullMQ never completed', async () => {
    await accepted('e-5');
    const written = completions.attach('e-5', store.transitions.completeCall('e-5', '{"n":5}', started()));
    await completions.flush();
    expect(await written).toBe('applied');
    expect((await store.records.get('e-5'))?.status).toBe('completed');
  });
});
