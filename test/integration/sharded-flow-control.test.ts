import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { BatchAccepted, Execution, Schedule } from '@skillrun/core';
import { createRedis, redisTargetOf, ShardMap } from '@skillrun/core/data';
import type { RedisCluster } from '@skillrun/redis-server';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client';
import { GatedRuns } from '../support/gated-runs';
import { mostAtOnce } from '../support/most-at-once';
import type { ServiceProcess } from '../support/service-process';
import { TestSystem } from '../support/system';

// Flow control and debounce at REDIS_SHARDS=3 on three masters (docs/design/sharding.md, slice 12):
// a gated or debounced execution is on its skill's home vshard, beside the skill's flow and
// debounce keys, so that their scripts (which read and write the records they gate) stay in one
// slot, where a key of another slot fails with CROSSSLOT. Two gateways and two workers share them.

const FLOW_SKILLS = fileURLToPath(new URL('../fixtures/flow-skills', import.meta.url));
const SHARDED = { REDIS_SHARDS: '3', JOB_LOCK_MS: '2000', STALLED_CHECK_INTERVAL_MS: '500' };
const shards = new ShardMap('{skillrun}', 3);
const ONE = 'one_at_a_time';

/** A skill's flow keys' prefix, as FlowKeys.skill names it at three shards. */
const flowOf = (skill: string) => `${shards.homeTag(skill)}:flow:${skill}:`;

describe('flow control on a Redis Cluster of three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;
  let runs: GatedRuns;
  let redis: Redis;
  let clients: Client[];
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ SKILLS_DIR: FLOW_SKILLS, ...SHARDED });
    const second = await system.addGateway();
    clients = [system.client, new Client(second.url)];
    runs = await GatedRuns.start(system.client);
    redis = createRedis(redisTargetOf(system.redis.env), { role: 'queue' });
    await once(redis, 'ready');
  });
  afterEach(async () => {
    await runs.openAll();
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
    await runs?.close();
  });

  const startWorkers = async () => {
    for (let i = 0; i < 2; i++) workers.push(await system.addWorker({ WORKER_CONCURRENCY: '4' }));
  };
  /** Invokes the gated fixture through the `n`th gateway (in turn); answers the execution id. */
  const invokeOne = async (gate: string, n: number) => {
    const answer = await (clients[n % 2] as Client).requestAvailable(`/skills/${ONE}/invoke`, {
      json: { caller: { id: 'tester', type: 'service' }, skill_id: ONE, inputs: { gate } },
    });
    expect(answer.status).toBe(202);
    return String(answer.body.execution_id);
  };
  const recordOf = (id: string) => `${shards.tagOf(id)}:exec:${id}`;

  it("runs a gated skill's executions one at a time across gateways and workers, on its home vshard", async () => {
    await startWorkers();
    const gates = [runs.newGate(), runs.newGate(), runs.newGate()];
    const first = await invokeOne(gates[0] as string, 0);
    await runs.untilStates(ONE, [first], ['running']);
    const ids = [first, await invokeOne(gates[1] as string, 1), await invokeOne(gates[2] as string, 2)];
    await runs.untilStates(ONE, ids, ['running', 'waiting', 'waiting']);
    for (const id of ids) {
      expect(shards.vshardOf(id)).toBe(shards.home(ONE));
      expect(await redis.exists(recordOf(id))).toBe(1);
    }
    expect(await redis.zrange(`${flowOf(ONE)}running`, 0, -1)).toEqual([first]);
    expect(Number(await redis.get(`${flowOf(ONE)}parked`))).toBe(2);

    // A parked one is promoted as the slot frees: each gate opened once its execution runs.
    const gateOf = new Map(ids.map((id, index) => [id, gates[index] as string]));
    for (let left = ids.slice(); left.length > 0; ) {
      let seen: Execution[] = [];
      await expect
        .poll(async () => {
          seen = await runs.statuses(ONE, left);
          return seen.map((execution) => execution.status).filter((status) => status === 'running');
        })
        .toEqual(['running']);
      const running = seen.find((execution) => execution.status === 'running')?.execution_id as string;
      await runs.open(gateOf.get(running) as string);
      left = left.filter((id) => id !== running);
    }
    const ended = await runs.finals(ONE, ids);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed', 'completed']);
    expect(mostAtOnce(ended)).toBe(1);
    expect(await redis.zcard(`${flowOf(ONE)}running`)).toBe(0);
    expect(Number(await redis.get(`${flowOf(ONE)}parked`))).toBe(0);
  });

  it("hands a canceled execution's slot to the next parked; one canceled while parked gets none", async () => {
    await startWorkers();
    const gates = [runs.newGate(), runs.newGate(), runs.newGate()];
    const first = await invokeOne(gates[0] as string, 0);
    await runs.untilStates(ONE, [first], ['running']);
    const dropped = await invokeOne(gates[1] as string, 1);
    await runs.untilStates(ONE, [first, dropped], ['running', 'waiting']);
    const given = await invokeOne(gates[2] as string, 0);
    await runs.untilStates(ONE, [first, dropped, given], ['running', 'waiting', 'waiting']);
    // Through the other gateway than the one that started it: whoever ends it hands its slot on.
    expect((await clients[1]?.cancel(ONE, dropped))?.status).toBe(200);
    expect((await clients[1]?.cancel(ONE, first))?.status).toBe(200);
    await runs.untilStates(ONE, [first, dropped, given], ['canceled', 'canceled', 'running']);
    expect(await redis.zrange(`${flowOf(ONE)}running`, 0, -1)).toEqual([given]);
    await runs.open(gates[2] as string);
    const [last] = await runs.finals(ONE, [given]);
    expect(last?.status).toBe('completed');
  });

  it('runs one per concurrency key, the same key in turn', async () => {
    await startWorkers();
    const gates = [runs.newGate(), runs.newGate(), runs.newGate()];
    const a1 = await runs.invoke('per_customer', gates[0] as string, { concurrency_key: 'a' });
    await runs.untilStates('per_customer', [a1], ['running']);
    const a2 = await runs.invoke('per_customer', gates[1] as string, { concurrency_key: 'a' });
    const b1 = await runs.invoke('per_customer', gates[2] as string, { concurrency_key: 'b' });
    await runs.untilStates('per_customer', [a1, a2, b1], ['running', 'waiting', 'running']);
    expect(new Set([a1, a2, b1].map((id) => shards.vshardOf(id)))).toEqual(
      new Set([shards.home('per_customer')]),
    );
    await runs.open(gates[0] as string);
    await runs.untilStates('per_customer', [a1, a2, b1], ['completed', 'running', 'running']);
    await runs.openAll();
    const ended = await runs.finals('per_customer', [a1, a2, b1]);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('collapses debounced calls through two gateways into one execution on its home vshard', async () => {
    await startWorkers();
    // Due in ten minutes: no worker starts it while the calls come, whatever the machine's pace.
    const debounce = { key: 'sharded', delay_ms: 600_000 };
    const calls = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const answer = await (clients[index % 2] as Client).requestAvailable('/skills/quick/invoke', {
          json: {
            caller: { id: 'tester', type: 'service' },
            skill_id: 'quick',
            inputs: { text: `call ${index}` },
            context: { debounce },
          },
        });
        expect(answer.status).toBe(202);
        return {
          id: String(answer.body.execution_id),
          debounced: answer.headers.get('debounced') === 'true',
        };
      }),
    );
    const ids = new Set(calls.map((call) => call.id));
    expect(ids.size).toBe(1);
    expect(calls.filter((call) => !call.debounced)).toHaveLength(1);
    const [id] = [...ids] as [string];
    expect(shards.vshardOf(id)).toBe(shards.home('quick'));
    expect(await redis.get(`${flowOf('quick')}debounce:anonymous%3Atester:trailing:sharded`)).toBe(id);
    expect((await system.client.cancel('quick', id)).status).toBe(200);
  });

  it("keeps a skill's rate limit across workers, its starts on its home tag", async () => {
    await startWorkers();
    const ids = await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const answer = await (clients[index % 2] as Client).invoke('rated', { text: `call ${index}` });
        expect(answer.status).toBe(202);
        return String(answer.body.execution_id);
      }),
    );
    // Not gated: spread over the vshards as any execution.
    expect(new Set(ids.map((id) => shards.vshardOf(id))).size).toBeGreaterThan(1);
    const finals = await system.client.waitForEnds('rated', ids, 60_000, 6);
    expect(finals.map((execution) => execution.status)).toEqual(ids.map(() => 'completed'));
    const starts = finals.map((execution) => Date.parse(execution.timestamps.started_at ?? '')).sort();
    // At most 2 a second (the fixture), the window narrowed by how late a start is recorded.
    const most = Math.max(
      ...starts.map((from) => starts.filter((at) => at >= from && at < from + 750).length),
    );
    expect(most).toBeLessThanOrEqual(2);
    expect(await redis.zcard(`${flowOf('rated')}starts`)).toBeGreaterThan(0);
  });

  it("keeps a gated item in a sharded batch on its skill's home vshard, and refuses it elsewhere", async () => {
    await startWorkers();
    // Batches take the vshards in turn: one of three is the skill's home.
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const gate = runs.newGate();
      await runs.open(gate);
      answers.push(
        await system.client.request<BatchAccepted>('/batches', {
          json: { caller: { id: 'tester', type: 'service' }, items: [{ skill_id: ONE, inputs: { gate } }] },
        }),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    const slots = answers.map((answer) => answer.body.executions[0]);
    const accepted = slots.flatMap((slot) => (slot && 'execution_id' in slot ? [slot.execution_id] : []));
    expect(accepted).toHaveLength(1);
    expect(shards.vshardOf(accepted[0] as string)).toBe(shards.home(ONE));
    const refused = slots.flatMap((slot) => (slot && 'error' in slot ? [slot.error.code] : []));
    expect(refused).toEqual(['INVALID_INPUT', 'INVALID_INPUT']);
    const [ended] = await runs.finals(ONE, accepted);
    expect(ended?.status).toBe('completed');
  });

  it("runs a gated skill's schedule on its home vshard, each run's id derived from its due time", async () => {
    await startWorkers();
    const headers = { 'x-api-key': await system.client.createKey('scheduler') };
    const gate = runs.newGate();
    await runs.open(gate);
    const made = await system.client.requestAvailable<Schedule>('/schedules', {
      json: { skill_id: ONE, every_ms: 1000, inputs: { gate } },
      headers,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.schedule_id;
    let launched: string[] = [];
    await expect
      .poll(
        async () => {
          const read = await system.client.requestAvailable<Schedule>(`/schedules/${id}`, { headers });
          launched = (read.body.last_runs ?? []).flatMap((run) =>
            run.outcome === 'launched' && run.execution_id ? [run.execution_id] : [],
          );
          return launched.length;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(2);
    const removed = await system.client.requestAvailable(`/schedules/${id}`, { method: 'DELETE', headers });
    expect(removed.status).toBe(204);
    for (const run of launched) expect(shards.vshardOf(run)).toBe(shards.home(ONE));
    for (const run of launched) {
      await expect
        .poll(async () => (await system.client.status(ONE, run, headers)).status, { timeout: 60_000 })
        .toBe('completed');
    }
  });

  /** Invokes keyed_steps (its one step: per_customer, under the customer's key); answers its id. */
  const invokeComposite = async (gate: string, customer: string) => {
    const answer = await system.client.requestAvailable('/skills/keyed_steps/invoke', {
      json: {
        caller: { id: 'tester', type: 'service' },
        skill_id: 'keyed_steps',
        inputs: { gate, customer },
      },
    });
    expect(answer.status).toBe(202);
    return String(answer.body.execution_id);
  };
  const stepsOf = async (compositeId: string) =>
    ((await system.client.status('keyed_steps', compositeId)).steps ?? []).flatMap((step) =>
      step.execution_id === undefined ? [] : [step.execution_id],
    );

  it("runs composites' gated steps on the step skill's home, apart from composites on other vshards", async () => {
    await startWorkers();
    // Composites take the vshards in turn: at least two of three are on another than the step's home.
    const gates = [runs.newGate(), runs.newGate(), runs.newGate()];
    const composites: string[] = [];
    for (const gate of gates) composites.push(await invokeComposite(gate, 'shared'));
    expect(new Set(composites.map((id) => shards.vshardOf(id))).size).toBe(3);
    // One step at a time (per_key 1): one runs, the others are parked; each opened as it runs.
    const gateOfStep = new Map<string, string>();
    for (let left = 3; left > 0; left--) {
      let running: Execution | undefined;
      await expect
        .poll(async () => {
          for (const [index, composite] of composites.entries()) {
            for (const step of await stepsOf(composite)) gateOfStep.set(step, gates[index] as string);
          }
          const seen = await runs.statuses('per_customer', [...gateOfStep.keys()]);
          running = seen.find((execution) => execution.status === 'running');
          return running !== undefined;
        })
        .toBe(true);
      const id = running?.execution_id as string;
      await runs.open(gateOfStep.get(id) as string);
      await expect
        .poll(async () => (await system.client.status('per_customer', id)).status)
        .toBe('completed');
    }
    const steps = [...gateOfStep.keys()];
    const ended = await system.client.waitForEnds('keyed_steps', composites, 60_000, 3);
    expect(ended.map((execution) => execution.status)).toEqual(['completed', 'completed', 'completed']);
    const stepEnds = await runs.finals('per_customer', steps);
    expect(stepEnds).toHaveLength(3);
    expect(mostAtOnce(stepEnds)).toBe(1);
    for (const step of steps) expect(shards.vshardOf(step)).toBe(shards.home('per_customer'));
  });

  it('cancels a composite with its step launched apart, by id', async () => {
    await startWorkers();
    const home = shards.home('per_customer');
    let composite = '';
    const others: string[] = [];
    while (composite === '') {
      const id = await invokeComposite(runs.newGate(), `alone-${others.length}`);
      if (shards.vshardOf(id) !== home) composite = id;
      else others.push(id);
    }
    let step = '';
    await expect
      .poll(async () => {
        [step = ''] = await stepsOf(composite);
        return step === '' ? undefined : (await system.client.status('per_customer', step)).status;
      })
      .toBe('running');
    expect(shards.vshardOf(step)).toBe(home);
    expect((await system.client.cancel('keyed_steps', composite)).status).toBe(200);
    expect((await system.client.status('per_customer', step)).status).toBe('canceled');
    for (const other of others) await system.client.cancel('keyed_steps', other);
  });
});
