import type { Execution } from '@skillrun/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FlowSystem } from '../support/flow-system';
import type { GatedRuns } from '../support/gated-runs';
import type { TestSystem } from '../support/system';

// Where an execution's context.concurrency_key comes from besides its invocation: a replay is
// gated under its original's key; a composite's step has the key its pipeline step (or ctx.invoke)
// gives it, and none of the composite's (as a Trigger.dev child task does not inherit its parent's
// concurrencyKey). per_customer runs one execution per key at a time.

const startOf = (execution: Execution) => Date.parse(execution.timestamps.started_at ?? '');
const endOf = (execution: Execution) => Date.parse(execution.timestamps.completed_at ?? '');

describe('concurrency keys carried by replays and composite steps', () => {
  let flow: FlowSystem;
  let system: TestSystem;
  let runs: GatedRuns;

  beforeAll(async () => {
    flow = await FlowSystem.start();
    ({ system, runs } = flow);
  });
  afterEach(() => flow.reset());
  afterAll(() => flow?.stop());

  const worker = () => flow.worker({ WORKER_CONCURRENCY: '4' });

  /** An execution of per_customer under `key` that runs until its gate opens. */
  async function busyKey(key: string): Promise<{ busy: string; door: string }> {
    const door = runs.newGate();
    const busy = await runs.invoke('per_customer', door, { concurrency_key: key });
    await runs.untilStates('per_customer', [busy], ['running']);
    return { busy, door };
  }

  it("replays an execution under its original's concurrency key", async () => {
    await worker();
    const done = runs.newGate();
    await runs.open(done);
    const original = await runs.invoke('per_customer', done, { concurrency_key: 'replayed' });
    expect((await runs.finals('per_customer', [original]))[0]?.status).toBe('completed');
    const { busy, door } = await busyKey('replayed');

    const answer = await system.client.request(`/skills/per_customer/replay/${original}`, { method: 'POST' });
    expect(answer.status).toBe(202);
    const replay = String(answer.body.execution_id);
    // Its gate is open: it would complete at once if it were not in the key's line.
    await runs.untilStates('per_customer', [busy, replay], ['running', 'waiting']);
    await runs.open(door);
    const [endBusy, endReplay] = (await runs.finals('per_customer', [busy, replay])) as [
      Execution,
      Execution,
    ];
    expect([endBusy.status, endReplay.status, endReplay.replay_of]).toEqual([
      'completed',
      'completed',
      original,
    ]);
    expect(startOf(endReplay)).toBeGreaterThanOrEqual(endOf(endBusy));
  });

  it("never gates a composite's step under the composite's own key", async () => {
    await worker();
    const { busy, door } = await busyKey('acme');
    const stepDoor = runs.newGate();
    await runs.open(stepDoor);
    // Invoked under the busy key, a composite whose step sets no key: the step runs beside `busy`.
    const composite = await system.client.invoke(
      'unkeyed_steps',
      { gate: stepDoor },
      { context: { concurrency_key: 'acme' } },
    );
    expect(composite.status).toBe(202);
    const [ended] = await runs.finals('unkeyed_steps', [String(composite.body.execution_id)]);
    expect(ended?.status).toBe('completed');
    await runs.untilStates('per_customer', [busy], ['running']);
    await runs.open(door);
  });

  // A pipeline step's context.concurrency_key template, and ctx.invoke's concurrencyKey.
  it.each(['keyed_steps', 'keyed_code_steps'])(
    'gates the step of %s under the key it sets',
    async (skill) => {
      await worker();
      const { busy, door } = await busyKey(`${skill}-customer`);
      const stepDoor = runs.newGate();
      await runs.open(stepDoor);
      const answer = await system.client.invoke(skill, { gate: stepDoor, customer: `${skill}-customer` });
      expect(answer.status).toBe(202);
      const composite = String(answer.body.execution_id);
      let step = '';
      await expect
        .poll(async () => {
          step = (await system.client.status(skill, composite)).steps?.[0]?.execution_id ?? '';
          return step;
        })
        .not.toBe('');
      // Its gate is open: it would complete at once if it were not in the key's line.
      await runs.untilStates('per_customer', [busy, step], ['running', 'waiting']);
      await runs.open(door);
      const [ended] = await runs.finals(skill, [composite]);
      expect(ended?.status).toBe('completed');
      const [endBusy, endStep] = (await runs.finals('per_customer', [busy, step])) as [Execution, Execution];
      expect(startOf(endStep)).toBeGreaterThanOrEqual(endOf(endBusy));
    },
  );
});
