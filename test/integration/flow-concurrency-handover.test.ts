import type { BulkCancelResult, Execution } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FlowSystem } from '../support/flow-system';
import type { GatedRuns } from '../support/gated-runs';
import { mostAtOnce } from '../support/most-at-once';
import { ADMIN_HEADERS } from '../support/service-process';
import type { TestSystem } from '../support/system';

// Who hands on a concurrency slot (skill.json `concurrency`) when an execution ends other than on
// the worker that runs it: a gateway that cancels it or reads it past its queue timeout gives its
// slot to the next parked execution at once. Within a key, a parked execution of higher priority
// gets a freed slot first. A skill paused by an operator keeps an execution given its slot from
// being taken by a worker: what these tests end is an execution that holds a slot and that no
// worker runs, whose end no worker would hear of.

const ONE = 'one_at_a_time';
const keys = new RedisKeys('{skillrun}');

const startOf = (execution: Execution) => Date.parse(execution.timestamps.started_at ?? '');

describe('concurrency slots handed on by whoever ends an execution, high priority first', () => {
  let flow: FlowSystem;
  let system: TestSystem;
  let runs: GatedRuns;
  let redis: Redis;

  beforeAll(async () => {
    flow = await FlowSystem.start();
    ({ system, runs, redis } = flow);
  });
  afterEach(async () => {
    await operate('resume');
    await flow.reset();
  });
  afterAll(() => flow?.stop());

  const worker = (env: Record<string, string> = {}) => flow.worker(env);

  async function operate(action: 'pause' | 'resume'): Promise<void> {
    const answer = await system.client.requestAvailable(`/skills/${ONE}/${action}`, {
      method: 'POST',
      headers: ADMIN_HEADERS,
    });
    expect(answer.status).toBe(200);
  }

  /** Whether the execution holds its slot of the skill's limit. */
  const holds = async (id: string) => (await redis.zscore(`${keys.flow.skill(ONE)}running`, id)) !== null;

  /** The first runs; the others, invoked with `contexts`, wait for its slot. */
  async function oneRunningOthersParked(contexts: Record<string, unknown>[]) {
    const doors = [runs.newGate(), ...contexts.map(() => runs.newGate())];
    const first = await runs.invoke(ONE, doors[0] as string);
    await runs.untilStates(ONE, [first], ['running']);
    const parked: string[] = [];
    for (const [index, context] of contexts.entries()) {
      parked.push(await runs.invoke(ONE, doors[index + 1] as string, context));
    }
    await runs.untilStates(ONE, [first, ...parked], ['running', ...parked.map(() => 'waiting')]);
    return { doors, first, parked };
  }

  it("gives a canceled execution's slot to the next parked at once; one canceled while parked gets none", async () => {
    // Two slots: one for the first, one to take the others' jobs and park them.
    await worker({ WORKER_CONCURRENCY: '2' });
    const { doors, first, parked } = await oneRunningOthersParked([{}, {}, {}]);
    const [given, dropped, next] = parked as [string, string, string];
    await operate('pause');
    expect((await system.client.cancel(ONE, dropped)).status).toBe(200);

    // The first ends: `given` gets its slot, its job promoted into the paused queue.
    await Promise.all(doors.map((door) => runs.open(door)));
    await runs.untilStates(ONE, [first], ['completed']);
    await expect.poll(() => holds(given)).toBe(true);
    // Canceled through the gateway, it hands its slot on then: no worker will run it.
    expect((await system.client.cancel(ONE, given)).status).toBe(200);
    await expect.poll(() => holds(next)).toBe(true);
    // Canceled while it waited, `dropped` was passed over: it never held a slot.
    expect(await redis.hget(keys.execution(dropped), 'gate')).toBeNull();

    await operate('resume');
    const ended = await runs.finals(ONE, [first, given, dropped, next]);
    expect(ended.map((execution) => execution.status)).toEqual([
      'completed',
      'canceled',
      'canceled',
      'completed',
    ]);
    expect(await redis.zcard(`${keys.flow.skill(ONE)}running`)).toBe(0);
    expect(Number(await redis.get(`${keys.flow.skill(ONE)}parked`))).toBe(0);
  });

  it('gives the slot of an execution a gateway read past its queue timeout to the next parked', async () => {
    await worker({ WORKER_CONCURRENCY: '2' });
    const { doors, first, parked } = await oneRunningOthersParked([{ queue_timeout_ms: 5000 }, {}]);
    const [late, next] = parked as [string, string];
    await operate('pause');
    await Promise.all(doors.map((door) => runs.open(door)));
    await runs.untilStates(ONE, [first], ['completed']);
    // Given the first's slot (or past its queue timeout before), it does not start while the skill is
    // paused: reading it past its queue timeout ends it, and its slot goes on.
    await expect.poll(async () => (await system.client.status(ONE, late)).status).toBe('timeout');
    await expect.poll(() => holds(next)).toBe(true);
    await operate('resume');
    const [ended] = await runs.finals(ONE, [next]);
    expect(ended?.status).toBe('completed');
  });

  it('gives the slot of a running execution canceled in bulk to the next parked', async () => {
    await worker({ WORKER_CONCURRENCY: '2' });
    const { doors, first, parked } = await oneRunningOthersParked([{}]);
    const answer = await system.client.requestAvailable<BulkCancelResult>('/executions/cancel', {
      json: { skill_id: ONE, status: 'running' },
      headers: ADMIN_HEADERS,
    });
    expect([answer.status, answer.body.canceled]).toEqual([200, 1]);
    // Its gate still shut, the first would run on: the second runs instead.
    await runs.untilStates(ONE, [first, ...parked], ['canceled', 'running']);
    await Promise.all(doors.map((door) => runs.open(door)));
    const [ended] = await runs.finals(ONE, parked);
    expect(ended?.status).toBe('completed');
  });

  it('gives a freed slot of a key to its parked execution of the highest priority, oldest first', async () => {
    await worker({ WORKER_CONCURRENCY: '2' });
    const vip = (priority: string) => ({ concurrency_key: 'vip', priority });
    const doors = Array.from({ length: 5 }, () => runs.newGate());
    const first = await runs.invoke('per_customer', doors[0] as string, vip('normal'));
    await runs.untilStates('per_customer', [first], ['running']);
    const parked: string[] = [];
    for (const [index, priority] of ['normal', 'low', 'high', 'normal'].entries()) {
      parked.push(await runs.invoke('per_customer', doors[index + 1] as string, vip(priority)));
    }
    const ids = [first, ...parked];
    await runs.untilStates('per_customer', ids, ['running', 'waiting', 'waiting', 'waiting', 'waiting']);
    await runs.open(doors[0] as string);
    // The high one, parked after two others, runs next.
    await runs.untilStates('per_customer', ids, ['completed', 'waiting', 'waiting', 'running', 'waiting']);
    await Promise.all(doors.map((door) => runs.open(door)));
    const ended = await runs.finals('per_customer', ids);
    expect(ended.every((execution) => execution.status === 'completed')).toBe(true);
    expect(mostAtOnce(ended)).toBe(1);
    const [, normal1, low, high, normal2] = ended.map(startOf) as number[];
    expect(high).toBeLessThan(normal1 as number);
    expect(normal1).toBeLessThan(normal2 as number);
    expect(normal2).toBeLessThan(low as number);
  });
});
