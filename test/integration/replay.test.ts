import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BulkReplayResult, ExecutionListPage, InvocationAccepted } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { fixtureSkills } from '../support/service-process';
import { TestSystem } from '../support/system';

const replaySkills = fileURLToPath(new URL('../fixtures/replay-skills', import.meta.url));
type Refusal = { error?: { code: string; details?: unknown } };

describe('replay: an execution run again as a new one, singly or in bulk', () => {
  let system: TestSystem;
  let client: Client;
  const keys: Record<string, string> = {};
  const as = (caller: string) => ({ 'x-api-key': keys[caller] ?? '' });
  const dependency = join(tmpdir(), `skillrun-replay-${process.pid}`);

  const invokeAs = (caller: string, skill: string, inputs: unknown) =>
    client.invokeAs(caller, skill, inputs, as(caller));
  const endOf = async (caller: string, skill: string, id: string) =>
    (await client.waitForEnd(skill, id, undefined, as(caller))).final;

  const replay = (caller: string | undefined, skill: string, id: string, body?: unknown) =>
    client.request<InvocationAccepted & Refusal>(`/skills/${skill}/replay/${id}`, {
      method: 'POST',
      headers: caller ? as(caller) : {},
      ...(body === undefined ? {} : { json: body }),
    });

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR: [fixtureSkills, replaySkills].join(delimiter) });
    await system.addWorker({ WORKER_CONCURRENCY: '8' });
    client = system.client;
    for (const caller of ['alice', 'bob']) keys[caller] = await client.createKey(caller);
  });
  afterAll(async () => {
    await rm(dependency, { force: true });
    await system?.stop();
  });

  it('runs an execution again with its own inputs, as a new execution linked to it', async () => {
    const original = await endOf('alice', 'echo', await invokeAs('alice', 'echo', { text: 'once more' }));
    const answer = await replay('alice', 'echo', original.execution_id);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      status: 'accepted',
      skill_id: 'echo',
      replay_of: original.execution_id,
    });
    expect(answer.body.execution_id).not.toBe(original.execution_id);
    expect(answer.headers.get('location')).toMatch(
      new RegExp(`/skills/echo/status/${answer.body.execution_id}$`),
    );
    const again = await endOf('alice', 'echo', answer.body.execution_id);
    expect(again).toMatchObject({
      status: 'completed',
      output: { text: 'once more', count: 1, seen: { execution_id: again.execution_id } },
      replay_of: original.execution_id,
    });
    expect(again.caller.id).toBe('alice');
  });

  it('takes edited inputs, validated like any invocation: bad ones are 400 and start nothing', async () => {
    const original = await invokeAs('alice', 'echo', { text: 'first' });
    await endOf('alice', 'echo', original);
    const edited = await replay('alice', 'echo', original, { inputs: { text: 'edited' } });
    expect(edited.status).toBe(202);
    expect((await endOf('alice', 'echo', edited.body.execution_id)).output).toMatchObject({ text: 'edited' });
    const before = await client.request<ExecutionListPage>('/executions?limit=100', { headers: as('alice') });
    const bad = await replay('alice', 'echo', original, { inputs: { text: 42 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('INVALID_INPUT');
    for (const body of [{ inputs: {}, colour: 'red' }, { version: 'not a range' }]) {
      const refused = await replay('alice', 'echo', original, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    const wrongType = await client.request<Refusal>(`/skills/echo/replay/${original}`, {
      method: 'POST',
      headers: { ...as('alice'), 'content-type': 'text/plain' },
      body: 'inputs',
    });
    expect(wrongType.status).toBe(415);
    const after = await client.request<ExecutionListPage>('/executions?limit=100', { headers: as('alice') });
    expect(after.body.executions.length).toBe(before.body.executions.length);
  });

  it("replays only for those who may read the execution: another caller's is 404", async () => {
    const original = await invokeAs('alice', 'echo', { text: 'mine' });
    for (const caller of ['bob', undefined]) {
      const refused = await replay(caller, 'echo', original);
      expect(refused.status).toBe(404);
      expect(refused.body.error?.code).toBe('EXECUTION_NOT_FOUND');
    }
    expect((await replay('alice', 'thrower', original)).status).toBe(404);
  });

  it('replays in bulk what a filter finds: failed executions complete once their dependency is back', async () => {
    const failed = [];
    for (const label of ['one', 'two', 'three']) {
      const id = await invokeAs('bob', 'needs_file', { path: dependency, label });
      expect((await endOf('bob', 'needs_file', id)).status).toBe('failed');
      failed.push(id);
    }
    await writeFile(dependency, '');
    const answer = await client.request<BulkReplayResult>('/executions/replay', {
      json: { skill_id: 'needs_file', status: 'failed', limit: 100 },
      headers: as('bob'),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.next_cursor).toBeNull();
    expect(answer.body.replays.map(({ replay_of }) => replay_of).sort()).toEqual([...failed].sort());
    const outcomes = await Promise.all(
      answer.body.replays.map(async ({ execution_id, replay_of }) => {
        const end = await endOf('bob', 'needs_file', String(execution_id));
        return [end.status, end.replay_of === replay_of, (end.output as { label: string }).label];
      }),
    );
    expect(outcomes.map(([status, linked]) => [status, linked])).toEqual(Array(3).fill(['completed', true]));
    expect(outcomes.map(([, , label]) => label).sort()).toEqual(['one', 'three', 'two']);
    // Alice's filter finds none of Bob's.
    const hers = await client.request<BulkReplayResult>('/executions/replay', {
      json: { skill_id: 'needs_file' },
      headers: as('alice'),
    });
    expect(hers.body.replays).toEqual([]);
  });
});
