import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Execution } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillrun } from '../support/cli-process';
import { Client } from '../support/client';
import type { StartedGateway } from '../support/service-process';
import { TestSystem } from '../support/system';

// context.debounce {key, delay_ms, mode}: calls of one caller with one key collapse into one
// execution while it has not started (trailing: it runs with the last call's inputs) or within the
// window (leading: the first runs, the rest are dropped). Every answer is 202 with that execution;
// the collapsed ones say `Debounced: true`. The first tests run while no worker is alive (a pool
// scaled to zero: the skills stay invocable), so no execution can start while the calls come,
// whatever the machine's pace.

const FLOW_SKILLS = fileURLToPath(new URL('../fixtures/flow-skills', import.meta.url));
const RACING_CALLS = 1000;
const SCALES_TO_ZERO = { WORKER_SCALE_TO_ZERO: 'true', WORKER_SKILLS: 'quick,waits' };

const ms = (iso: string | undefined) => Date.parse(iso ?? '');

interface Call {
  status: number;
  executionId: string;
  debounced: boolean;
}

describe('debounced invocations', () => {
  let system: TestSystem;
  let second: StartedGateway;
  let gates: string;

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: FLOW_SKILLS });
    second = await system.addGateway();
    // SIGTERM: the worker withdraws its lease; its versions stay invocable, dormant.
    await (await system.addWorker(SCALES_TO_ZERO)).stop();
    gates = await mkdtemp(join(tmpdir(), 'skillrun-debounce-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (gates) await rm(gates, { recursive: true, force: true });
  });

  async function call(
    inputs: unknown,
    debounce: Record<string, unknown>,
    { client = system.client, skill = 'quick', caller = 'tester' } = {},
  ): Promise<Call> {
    // A 503 is asked again, as spec 001's consumers do: the call did not happen (a Redis call ran
    // past REDIS_TIMEOUT_MS, which a loaded machine sees now and then during the race).
    const answer = await client.requestAvailable(`/skills/${skill}/invoke`, {
      json: { caller: { id: caller, type: 'service' }, skill_id: skill, inputs, context: { debounce } },
    });
    return {
      status: answer.status,
      executionId: String(answer.body.execution_id),
      debounced: answer.headers.get('debounced') === 'true',
    };
  }

  let raced: string;

  it('collapses 1,000 calls racing through two gateways into one execution, which each answer names', async () => {
    const clients = [system.client, new Client(second.url)];
    const calls: Call[] = [];
    let next = 0;
    // 50 at a time, as clients would send them (a thousand sockets at once is not what is tested).
    const loop = async () => {
      for (let index = next++; index < RACING_CALLS; index = next++) {
        const client = clients[index % 2] as Client;
        calls.push(await call({ text: `call ${index}` }, { key: 'race', delay_ms: 500 }, { client }));
      }
    };
    await Promise.all(Array.from({ length: 50 }, loop));
    expect(calls.every((each) => each.status === 202)).toBe(true);
    const ids = new Set(calls.map((each) => each.executionId));
    expect(ids.size).toBe(1);
    expect(calls.filter((each) => !each.debounced)).toHaveLength(1);
    raced = [...ids][0] as string;
  });

  let trailing: string;

  it('runs a trailing key once, with the last valid call’s inputs; an invalid call changes nothing', async () => {
    const debounce = { key: 'edits', delay_ms: 300 };
    const first = await call({ text: 'one' }, debounce);
    const second = await call({ text: 'two' }, debounce);
    const invalid = await system.client.invoke('quick', { text: '' }, { context: { debounce } });
    const last = await call({ text: 'three' }, debounce);
    expect(invalid.status).toBe(400);
    expect([first.status, second.status, last.status]).toEqual([202, 202, 202]);
    expect(new Set([first.executionId, second.executionId, last.executionId]).size).toBe(1);
    expect([first.debounced, second.debounced, last.debounced]).toEqual([false, true, true]);
    const status = await system.client.status('quick', first.executionId);
    expect(status.status).toBe('accepted');
    trailing = first.executionId;
  });

  it('runs what the calls collapsed into once a worker is there', async () => {
    await system.addWorker({ ...SCALES_TO_ZERO, WORKER_CONCURRENCY: '4' });
    const ran = await system.client.waitForEnd('quick', trailing, 30_000);
    expect(ran.final.status).toBe('completed');
    expect((ran.final.output as { text: string }).text).toBe('three');
    const race = await system.client.waitForEnd('quick', raced, 30_000);
    expect(race.final.status).toBe('completed');
    expect((race.final.output as { text: string }).text).toMatch(/^call \d+$/);
    // It has run: the key is closed, and the next call starts a new execution.
    const after = await call({ text: 'four' }, { key: 'edits', delay_ms: 300 });
    expect(after.executionId).not.toBe(trailing);
    expect(after.debounced).toBe(false);
  });

  it('is due delay_ms after the last call: status shows scheduled_for, the queue timeout counts from it', async () => {
    // Its queue timeout is shorter than the delay, and the calls go on for longer than it: counted
    // from its acceptance, or from the first call's due time, it would time out unrun.
    const context = { debounce: { key: 'due', delay_ms: 3000 }, queue_timeout_ms: 300 };
    const send = async (text: string) => {
      const answer = await system.client.invoke('quick', { text }, { context });
      expect(answer.status).toBe(202);
      return answer.body as unknown as Execution;
    };
    const first = await send('call 0');
    const firstDue = ms(first.timestamps.scheduled_for);
    expect(firstDue - ms(first.timestamps.created_at)).toBe(3000);
    let last = first;
    let calls = 1;
    while (ms(last.timestamps.scheduled_for) - firstDue <= 500) {
      last = await send(`call ${calls}`);
      calls += 1;
      expect(last.execution_id).toBe(first.execution_id);
    }
    const { final } = await system.client.waitForEnd('quick', first.execution_id, 30_000);
    expect(final.status).toBe('completed');
    expect((final.output as { text: string }).text).toBe(`call ${calls - 1}`);
    expect(ms(final.timestamps.scheduled_for)).toBeGreaterThan(firstDue + 500);
    expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(ms(final.timestamps.scheduled_for));
  });

  it('is due at most max_delay_ms after its first call, however often the key is hit', async () => {
    const context = { debounce: { key: 'capped', delay_ms: 3000, max_delay_ms: 4000 } };
    const send = async (text: string) => {
      const answer = await system.client.invoke('quick', { text }, { context });
      expect(answer.status).toBe(202);
      return answer.body as unknown as Execution;
    };
    const first = await send('call 0');
    const cap = ms(first.timestamps.created_at) + 4000;
    // Hit it without pause until a call finds its due time at the cap: delay_ms after that call
    // would be later. (It starts at the cap: a call after that starts a new execution.)
    const joined = [first];
    while (ms(joined.at(-1)?.timestamps.scheduled_for) < cap) {
      const last = await send(`call ${joined.length}`);
      if (last.execution_id !== first.execution_id) break;
      joined.push(last);
    }
    expect(joined.map((call) => ms(call.timestamps.scheduled_for) <= cap)).not.toContain(false);
    expect(ms(joined.at(-1)?.timestamps.scheduled_for)).toBe(cap);
    const { final } = await system.client.waitForEnd('quick', first.execution_id, 30_000);
    expect(ms(final.timestamps.scheduled_for)).toBe(cap);
    expect(ms(final.timestamps.started_at)).toBeGreaterThanOrEqual(cap);
    expect((final.output as { text: string }).text).toBe(`call ${joined.length - 1}`);

    // Below delay_ms, it is due that long after the first call, whatever the calls after it.
    const short = await system.client.invoke(
      'quick',
      { text: 'short' },
      { context: { debounce: { key: 'capped-short', delay_ms: 3000, max_delay_ms: 1000 } } },
    );
    const { timestamps } = short.body as unknown as Execution;
    expect(ms(timestamps.scheduled_for) - ms(timestamps.created_at)).toBe(1000);
  });

  it('drops a leading key’s calls for at most max_delay_ms after the one that ran', async () => {
    // Below delay_ms, the maximum makes the window a fixed one: a throttle.
    const debounce = { key: 'leading-capped', delay_ms: 60_000, mode: 'leading', max_delay_ms: 1000 };
    const first = await call({ text: 'first' }, debounce);
    const opened = ms((await system.client.status('quick', first.executionId)).timestamps.created_at);
    const dropped: Call[] = [];
    let next = await call({ text: 'again' }, debounce);
    while (next.executionId === first.executionId) {
      dropped.push(next);
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await call({ text: 'again' }, debounce);
    }
    expect(dropped.every((each) => each.debounced)).toBe(true);
    expect(next.debounced).toBe(false);
    const started = await system.client.status('quick', next.executionId);
    expect(ms(started.timestamps.created_at) - opened).toBeGreaterThanOrEqual(1000);
  });

  it('starts a new execution for a call that comes once the last one has started', async () => {
    const debounce = { key: 'started', delay_ms: 100 };
    const gate = join(gates, 'started-1');
    const first = await call({ gate }, debounce, { skill: 'waits' });
    await expect
      .poll(async () => (await system.client.status('waits', first.executionId)).status)
      .toBe('running');
    const later = await call({ gate: join(gates, 'started-2') }, debounce, { skill: 'waits' });
    expect(later.executionId).not.toBe(first.executionId);
    expect(later.debounced).toBe(false);
    await writeFile(gate, '');
    await writeFile(join(gates, 'started-2'), '');
    const finals = await system.client.waitForEnds('waits', [first.executionId, later.executionId], 30_000);
    expect(finals.map((final) => final.status)).toEqual(['completed', 'completed']);
  });

  it('runs a leading key’s first call at once and drops the others in the window', async () => {
    const debounce = { key: 'burst', delay_ms: 60_000, mode: 'leading' };
    const first = await call({ text: 'first' }, debounce);
    const ran = await system.client.waitForEnd('quick', first.executionId, 30_000);
    expect((ran.final.output as { text: string }).text).toBe('first');
    const dropped = await call({ text: 'second' }, debounce);
    expect(dropped).toEqual({ status: 202, executionId: first.executionId, debounced: true });
  });

  it('never collapses two callers’ calls, nor two skills’', async () => {
    const debounce = { key: 'shared', delay_ms: 60_000, mode: 'leading' };
    const mine = await call({ text: 'mine' }, debounce, { caller: 'caller-a' });
    const theirs = await call({ text: 'theirs' }, debounce, { caller: 'caller-b' });
    const other = await call({ gate: join(gates, 'never') }, debounce, {
      skill: 'waits',
      caller: 'caller-a',
    });
    expect(new Set([mine.executionId, theirs.executionId, other.executionId]).size).toBe(3);
    expect([mine.debounced, theirs.debounced, other.debounced]).toEqual([false, false, false]);
    const cancel = await system.client.cancel('waits', other.executionId);
    expect(cancel.status).toBe(200);
  });

  it('debounces from the command line: skillrun invoke --debounce KEY:MS[:leading]', async () => {
    const env = { SKILLRUN_URL: system.gateway.url, SKILLRUN_CALLER: 'cli-tester' };
    const invoke = (text: string) =>
      runSkillrun(['invoke', 'quick', `text=${text}`, '--debounce', 'cli:60000:leading'], { env });
    const [first, second] = [await invoke('one'), await invoke('two')];
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    const bad = await runSkillrun(['invoke', 'quick', 'text=x', '--debounce', 'cli'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('KEY:MS');
    const capped = await runSkillrun(
      ['invoke', 'quick', 'text=capped', '--debounce', 'cli-capped:60000', '--debounce-max', '2s', '--json'],
      { env },
    );
    expect(capped.code).toBe(0);
    const { timestamps } = JSON.parse(capped.stdout) as Execution;
    expect(ms(timestamps.scheduled_for) - ms(timestamps.created_at)).toBe(2000);
    const alone = await runSkillrun(['invoke', 'quick', 'text=x', '--debounce-max', '2s'], { env });
    expect(alone.code).toBe(2);
  });

  it('refuses delay_ms and run_at with a debounce key: its calls say when it starts', async () => {
    const debounce = { key: 'timed', delay_ms: 100 };
    const refused = await Promise.all(
      [{ delay_ms: 1000 }, { run_at: '2030-01-01T00:00:00Z' }].map((start) =>
        system.client.invoke('quick', { text: 'timed' }, { context: { debounce, ...start } }),
      ),
    );
    expect(refused.map((answer) => [answer.status, answer.body])).toEqual([
      [
        400,
        {
          error: expect.objectContaining({
            code: 'INVALID_INPUT',
            details: [expect.objectContaining({ path: '/context/delay_ms' })],
          }),
        },
      ],
      [
        400,
        {
          error: expect.objectContaining({
            code: 'INVALID_INPUT',
            details: [expect.objectContaining({ path: '/context/run_at' })],
          }),
        },
      ],
    ]);
  });

  it('refuses a webhook of its own with a debounce key', async () => {
    const answer = await system.client.invoke(
      'quick',
      { text: 'hooked' },
      {
        context: { debounce: { key: 'hooked', delay_ms: 100 } },
        webhook: { url: 'https://example.com/hook' },
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });
});
