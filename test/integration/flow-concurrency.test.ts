import type { BatchAccepted, Execution } from '@skillrun/core';
import { skillQueueName } from '@skillrun/core/data';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import { FlowSystem } from '../support/flow-system';
import { type GatedRuns, stateOf } from '../support/gated-runs';
import { mostAtOnce } from '../support/most-at-once';
import { ADMIN_HEADERS } from '../support/service-process';
import type { TestSystem } from '../support/system';

// skill.json `concurrency`: at most `limit` executions of a skill at once across every worker, and
// `per_key` per context.concurrency_key. The fixtures run until the test opens their gate (a file),
// so what runs at once is read from statuses and timestamps, never from durations.

// Every worker of the file checks for stalled jobs often: BullMQ skips a check while the last
// one's interval, whichever worker ran it, has not passed.
const QUICK_RECOVERY = { JOB_LOCK_MS: '2000', STALLED_CHECK_INTERVAL_MS: '500' };

const startOf = (execution: Execution) => Date.parse(execution.timestamps.started_at ?? '');
const endOf = (execution: Execution) => Date.parse(execution.timestamps.completed_at ?? '');

describe('concurrency limits by skill and by key', () => {
  let flow: FlowSystem;
  let system: TestSystem;
  let runs: GatedRuns;
  let redis: Redis;

  beforeAll(async () => {
    flow = await FlowSystem.start(QUICK_RECOVERY);
    ({ system, runs, redis } = flow);
  });
  afterEach(() => flow.reset());
  afterAll(() => flow?.stop());

  const worker = (env: Record<string, string> = {}) => flow.worker(env);

  const newGate = () => runs.newGate();
  const open = (gate: string) => runs.open(gate);
  const invoke = (skill: string, gate: string, concurrencyKey?: string) =>
    runs.invoke(skill, gate, concurrencyKey === undefined ? {} : { concurrency_key: concurrencyKey });
  const untilStates = (skill: string, ids: string[], expected: string[]) =>
    runs.untilStates(skill, ids, expected);
  const finals = (skill: string, ids: string[]) => runs.finals(skill, ids);

  it('runs one execution at a time across workers; the others wait for concurrency, then run', async () => {
    await worker({ WORKER_CONCURRENCY: '4' });
    await worker({ WORKER_CONCURRENCY: '4' });
    const doors = [newGate(), newGate(), newGate()];
    const first = await invoke('one_at_a_time', doors[0] as string);
    await untilStates('one_at_a_time', [first], ['running']);
    const rest = [
      await invoke('one_at_a_time', doors[1] as string),
      await invoke('one_at_a_time', doors[2] as string),
    ];
    const ids = [first, ...rest];
    await untilStates('one_at_a_time', ids, ['running', 'waiting', 'waiting']);

    // Each gate opened once its execution runs: the next starts only after it ends. Which of the
    // waiting is next is whichever a worker parked first: two workers took their jobs at once.
    const gateOf = new Map(ids.map((id, index) => [id, doors[index] as string]));
    for (let left = ids.slice(); left.length > 0; ) {
      let seen: Execution[] = [];
      await expect
        .poll(async () => {
          seen = await runs.statuses('one_at_a_time', left);
          return seen.map(stateOf).sort();
        })
        .toEqual(['running', ...Array(left.length - 1).fill('waiting')]);
      const running = seen.find((execution) => execution.status === 'running')?.execution_id as string;
      await open(gateOf.get(running) as string);
      left = left.filter((id) => id !== running);
    }
    const ended = await finals('one_at_a_time', ids);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed', 'completed']);
    expect(mostAtOnce(ended)).toBe(1);
    // A parked job counts no attempt, and says nothing of concurrency once it runs.
    expect(ended.map((execution) => [execution.attempts, execution.waiting_for])).toEqual([
      [1, undefined],
      [1, undefined],
      [1, undefined],
    ]);
    expect(await redis.zcard('{skillrun}:flow:one_at_a_time:running')).toBe(0);
  });

  it('runs one per concurrency key: different keys at once, the same key in turn', async () => {
    await worker({ WORKER_CONCURRENCY: '4' });
    const doors = [newGate(), newGate(), newGate()];
    const a1 = await invoke('per_customer', doors[0] as string, 'customer-a');
    await untilStates('per_customer', [a1], ['running']);
    const a2 = await invoke('per_customer', doors[1] as string, 'customer-a');
    const b1 = await invoke('per_customer', doors[2] as string, 'customer-b');
    await untilStates('per_customer', [a1, a2, b1], ['running', 'waiting', 'running']);
    await open(doors[0] as string);
    await untilStates('per_customer', [a1, a2, b1], ['completed', 'running', 'running']);
    await Promise.all(doors.map(open));
    const [endA1, endA2, endB1] = await finals('per_customer', [a1, a2, b1]);
    expect(endA2?.status).toBe('completed');
    expect(startOf(endA2 as Execution)).toBeGreaterThanOrEqual(endOf(endA1 as Execution));
    // b1 ran beside a1: their runs overlap.
    expect(startOf(endB1 as Execution)).toBeLessThan(endOf(endA1 as Execution));
  });

  it("gates a batch's items by their concurrency keys as it gates single invocations", async () => {
    await worker({ WORKER_CONCURRENCY: '4' });
    const doors = [newGate(), newGate(), newGate()];
    const item = (door: string, key: string) => ({
      skill_id: 'per_customer',
      inputs: { gate: door },
      context: { concurrency_key: key },
    });
    const answer = await system.client.request<BatchAccepted>('/batches', {
      json: {
        caller: { id: 'tester', type: 'service' },
        items: [
          item(doors[0] as string, 'batch-a'),
          item(doors[1] as string, 'batch-a'),
          item(doors[2] as string, 'batch-b'),
        ],
      },
    });
    expect(answer.status).toBe(202);
    const ids = answer.body.executions.map((slot) => ('execution_id' in slot ? slot.execution_id : ''));
    expect(ids.every((id) => id !== '')).toBe(true);
    const [a1, a2, b1] = ids as [string, string, string];
    // Launched together, either of key a's may take its slot first: one runs, the other waits.
    await expect
      .poll(async () => {
        const [stateA1, stateA2, stateB1] = (await runs.statuses('per_customer', ids)).map(stateOf);
        return [[stateA1, stateA2].sort(), stateB1];
      })
      .toEqual([['running', 'waiting'], 'running']);
    await Promise.all(doors.map(open));
    const [endA1, endA2, endB1] = await finals('per_customer', [a1, a2, b1]);
    expect([endA1, endA2, endB1].map((execution) => execution?.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(mostAtOnce([endA1, endA2] as Execution[])).toBe(1);
  });

  it('takes the key from the command line: skillrun invoke --concurrency-key', async () => {
    await worker({ WORKER_CONCURRENCY: '4' });
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' };
    const doors = [newGate(), newGate()];
    const ids: string[] = [];
    for (const door of doors) {
      const run = await runSkillrun(['invoke', 'per_customer', `gate=${door}`, '--concurrency-key', 'cli'], {
        env,
      });
      expect(run.code, run.stderr).toBe(0);
      ids.push(run.stdout.trim());
      if (ids.length === 1) await untilStates('per_customer', ids, ['running']);
    }
    await untilStates('per_customer', ids, ['running', 'waiting']);
    const status = await runSkillrun(['status', 'per_customer', ids[1] as string], { env });
    expect(status.stdout).toMatch(/^waiting\s+for concurrency$/m);
    await Promise.all(doors.map(open));
    const ended = await finals('per_customer', ids);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed']);
  });

  it('never lets a busy key hold back another key, and gives each key a turn', async () => {
    await worker({ WORKER_CONCURRENCY: '8' });
    // Key a: one running, five waiting; the skill's second slot is free.
    const doorsA = Array.from({ length: 6 }, newGate);
    const a = [await invoke('two_fair', doorsA[0] as string, 'a')];
    await untilStates('two_fair', a, ['running']);
    for (const door of doorsA.slice(1)) a.push(await invoke('two_fair', door, 'a'));
    await untilStates('two_fair', a, ['running', 'waiting', 'waiting', 'waiting', 'waiting', 'waiting']);
    // Key b comes last, and runs at once beside key a's.
    const doorsB = [newGate(), newGate(), newGate()];
    const b = [await invoke('two_fair', doorsB[0] as string, 'b')];
    await untilStates('two_fair', [a[0] as string, b[0] as string], ['running', 'running']);
    // The skill is now full (two): c waits, and so do b's next.
    const doorC = newGate();
    const c = await invoke('two_fair', doorC, 'c');
    b.push(
      await invoke('two_fair', doorsB[1] as string, 'b'),
      await invoke('two_fair', doorsB[2] as string, 'b'),
    );
    await untilStates('two_fair', [c, b[1] as string, b[2] as string], ['waiting', 'waiting', 'waiting']);

    await Promise.all([...doorsA, ...doorsB, doorC].map(open));
    const endedA = await finals('two_fair', a);
    const endedB = await finals('two_fair', b);
    const [endedC] = await finals('two_fair', [c]);
    const all = [...endedA, ...endedB, endedC as Execution];
    expect(all.every((execution) => execution.status === 'completed')).toBe(true);
    expect(mostAtOnce(all)).toBeLessThanOrEqual(2);
    expect(mostAtOnce(endedA)).toBe(1);
    expect(mostAtOnce(endedB)).toBe(1);
    // Keys take turns: c, which waited behind four of a's, starts before the last three of them.
    const cStart = startOf(endedC as Execution);
    expect(endedA.slice(3).every((execution) => startOf(execution) > cStart)).toBe(true);
    expect(startOf(endedB[2] as Execution)).toBeLessThan(startOf(endedA[5] as Execution));
  });

  it('holds no worker slot for a parked job: another skill runs on a worker of one slot', async () => {
    await worker({ WORKER_CONCURRENCY: '1', WORKER_SKILLS: 'one_at_a_time' });
    const doors = [newGate(), newGate(), newGate()];
    const first = await invoke('one_at_a_time', doors[0] as string);
    await untilStates('one_at_a_time', [first], ['running']);
    const small = await worker({ WORKER_CONCURRENCY: '1', WORKER_ID: 'small' });
    const parked = [
      await invoke('one_at_a_time', doors[1] as string),
      await invoke('one_at_a_time', doors[2] as string),
    ];
    await untilStates('one_at_a_time', parked, ['waiting', 'waiting']);
    const { final } = await system.client.run('quick', { text: 'still free' });
    expect(final.status).toBe('completed');
    expect(final.worker_id).toBe('small');
    expect(small.logs.some((line) => line.msg === 'worker ready')).toBe(true);
    await Promise.all(doors.map(open));
    const ended = await finals('one_at_a_time', [first, ...parked]);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed', 'completed']);
    expect(mostAtOnce(ended)).toBe(1);
  });

  it('holds a parked execution given its slot while an operator pauses the skill, until the resume', async () => {
    // Two slots: one for the first, one to take the second and park it.
    await worker({ WORKER_CONCURRENCY: '2' });
    const operate = (action: 'pause' | 'resume') =>
      system.client.requestAvailable(`/skills/one_at_a_time/${action}`, {
        method: 'POST',
        headers: ADMIN_HEADERS,
      });
    const doors = [newGate(), newGate()];
    const first = await invoke('one_at_a_time', doors[0] as string);
    await untilStates('one_at_a_time', [first], ['running']);
    const second = await invoke('one_at_a_time', doors[1] as string);
    await untilStates('one_at_a_time', [first, second], ['running', 'waiting']);
    expect((await operate('pause')).status).toBe(200);

    // The first ends and gives the second its slot: its job, promoted out of the delayed set, waits
    // in its paused queue. Its gate is open: it would complete at once if it ran.
    await Promise.all(doors.map(open));
    await untilStates('one_at_a_time', [first], ['completed']);
    const queue = new Queue(skillQueueName('one_at_a_time', '1.0.0'), {
      connection: redis,
      prefix: '{skillrun}',
    });
    try {
      await expect.poll(() => queue.getJobState(second)).toBe('waiting');
      expect(await queue.isPaused()).toBe(true);
    } finally {
      await queue.close();
    }
    // The worker's slots are free and it takes jobs: the paused queue's job is not one of them.
    expect((await system.client.run('quick', { text: 'still served' })).final.status).toBe('completed');
    const held = await system.client.status('one_at_a_time', second);
    expect([held.status, held.attempts]).toEqual(['accepted', 0]);
    expect(await redis.zscore('{skillrun}:flow:one_at_a_time:running', second)).not.toBeNull();

    expect((await operate('resume')).status).toBe(200);
    const ended = await finals('one_at_a_time', [first, second]);
    expect(ended.map((execution) => [execution.status, execution.attempts])).toEqual([
      ['completed', 1],
      ['completed', 1],
    ]);
    expect(mostAtOnce(ended)).toBe(1);
  });

  it('frees the slot of a worker killed mid-run once the execution ends on another', async () => {
    const doomed = await worker({ WORKER_CONCURRENCY: '4', WORKER_ID: 'doomed' });
    const doors = [newGate(), newGate()];
    const first = await invoke('one_at_a_time', doors[0] as string);
    await untilStates('one_at_a_time', [first], ['running']);
    const second = await invoke('one_at_a_time', doors[1] as string);
    await untilStates('one_at_a_time', [first, second], ['running', 'waiting']);
    await doomed.stop('SIGKILL');
    await worker({ WORKER_CONCURRENCY: '4', WORKER_ID: 'survivor' });
    await expect
      .poll(async () => (await system.client.status('one_at_a_time', first)).worker_id)
      .toBe('survivor');
    await Promise.all(doors.map(open));
    const [endFirst, endSecond] = await finals('one_at_a_time', [first, second]);
    expect(endFirst?.status).toBe('completed');
    // Started on the killed worker, then again on the survivor.
    expect(endFirst?.attempts).toBe(2);
    expect(endSecond?.status).toBe('completed');
    expect(endSecond?.attempts).toBe(1);
    expect(startOf(endSecond as Execution)).toBeGreaterThanOrEqual(endOf(endFirst as Execution));
    expect(await redis.zcard('{skillrun}:flow:one_at_a_time:running')).toBe(0);
    expect(Number(await redis.get('{skillrun}:flow:one_at_a_time:parked'))).toBe(0);
  });
});
