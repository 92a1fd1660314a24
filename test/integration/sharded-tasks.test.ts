import type { Execution } from '@skillrun/core';
import { RedisKeys } from '@skillrun/core/data';
import type { RedisCluster } from '@skillrun/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

// With REDIS_SHARDS=3 on three masters, an execution of a `task` skill is placed as any other (the
// next vshard in turn), and a composite's task step on its composite's: each task opens on its
// record's tag, is listed, claimed and handed in over HTTP, and its end (a script on that tag,
// where a key of another slot would fail with CROSSSLOT) is the execution's and, for a step, moves
// its composite on.

const SKILLS_DIR = `${repoRoot}test/fixtures/task-skills`;
const { shards } = new RedisKeys('{skillrun}', 3);

interface Refusal {
  error?: { code: string };
}

describe('task skills over three masters, REDIS_SHARDS=3', () => {
  let system: TestSystem<RedisCluster>;
  let client: Client;
  let reviewer: Record<string, string>;

  beforeAll(async () => {
    system = await TestSystem.startOnCluster({ REDIS_SHARDS: '3', SKILLS_DIR });
    await system.addWorker({ SKILLS_DIR });
    client = system.client;
    reviewer = { 'x-api-key': await client.createKey('reviewer') };
  });
  afterAll(() => system?.stop());

  const handIn = (id: string, approved: boolean) =>
    client.request<Execution & Refusal>(`/tasks/${id}/complete`, {
      method: 'POST',
      headers: reviewer,
      json: { output: { approved } },
    });

  it("spreads a task skill's executions over the vshards, each handed in on its own", async () => {
    const ids: string[] = [];
    for (const document of ['one', 'two', 'three']) {
      const accepted = await client.invoke('review_request', { document });
      expect(accepted.status).toBe(202);
      ids.push(String(accepted.body.execution_id));
    }
    expect(ids.map((id) => shards.vshardOf(id)).sort()).toEqual([...shards.active()].sort());
    for (const id of ids) {
      await expect.poll(async () => (await client.status('review_request', id)).task?.state).toBe('open');
    }
    const listed = await client.request<{ tasks: { execution_id: string }[] }>(
      '/tasks?skill_id=review_request',
      { headers: reviewer },
    );
    expect(listed.body.tasks.map((task) => task.execution_id)).toEqual(expect.arrayContaining(ids));
    for (const id of ids) {
      const handed = await handIn(id, true);
      expect(handed.status, JSON.stringify(handed.body)).toBe(200);
      expect(handed.body.status).toBe('completed');
      const { final } = await client.waitForEnd('review_request', id);
      expect(final).toMatchObject({ status: 'completed', output: { approved: true } });
    }
  });

  it("runs a composite's task step on its composite's vshard, and the composite on once it is handed in", async () => {
    const accepted = await client.invoke('publish_flow', { text: 'the sharded launch' });
    expect(accepted.status).toBe(202);
    const parent = String(accepted.body.execution_id);
    expect(shards.vshardOf(parent)).not.toBeUndefined();
    let step = '';
    await expect
      .poll(async () => {
        const status = await client.status('publish_flow', parent);
        step = status.steps?.find((entry) => entry.step === 'review')?.execution_id ?? '';
        return step !== '' && (await client.status('review_request', step)).task?.state === 'open';
      })
      .toBe(true);
    expect(shards.vshardOf(step)).toBe(shards.vshardOf(parent));
    expect((await handIn(step, true)).status).toBe(200);
    const { final } = await client.waitForEnd('publish_flow', parent);
    expect(final).toMatchObject({
      status: 'completed',
      output: { approved: true, announcement: 'Published: the sharded launch' },
    });
  });
});
