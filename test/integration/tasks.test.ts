import type { Execution, SkillDescriptor } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/client';
import { repoRoot } from '../support/service-process';
import { TestSystem } from '../support/system';

interface TaskView {
  execution_id: string;
  skill_id: string;
  inputs: Record<string, unknown>;
  instructions?: string;
  output_schema: Record<string, unknown>;
  state: string;
  claimed_by?: string;
  urls: Record<string, string>;
}

interface Refusal {
  error: { code: string; details?: unknown };
}

const SKILLS_DIR = `${repoRoot}test/fixtures/task-skills`;

describe('task skills: work done by a person or an agent', () => {
  let system: TestSystem;
  let client: Client;
  const as: Record<string, Record<string, string>> = {};

  /** Invokes a task skill and waits until its task is open (its worker has parked it). */
  async function openTask(skill: string, inputs: unknown): Promise<string> {
    const accepted = await client.invoke(skill, inputs);
    expect(accepted.status).toBe(202);
    const id = String(accepted.body.execution_id);
    await expect.poll(async () => (await client.status(skill, id)).task?.state).toBe('open');
    return id;
  }

  const tasks = (who: string, query = '') =>
    client.request<{ tasks: TaskView[]; next_cursor: string | null }>(`/tasks${query}`, { headers: as[who] });
  const post = <T = Execution>(who: string, path: string, json?: unknown) =>
    client.request<T & Refusal>(path, {
      method: 'POST',
      headers: as[who],
      ...(json === undefined ? {} : { json }),
    });

  beforeAll(async () => {
    system = await TestSystem.start({ SKILLS_DIR });
    await system.addWorker({ SKILLS_DIR, WORKER_CONCURRENCY: '2' });
    client = system.client;
    for (const caller of ['reviewer', 'lead', 'stranger'])
      as[caller] = { 'x-api-key': await client.createKey(caller) };
  });
  afterAll(() => system?.stop());

  it('lists an open task for its assignees only, with what to do, and holds no worker slot', async () => {
    // Three tasks on a worker with two slots: a task waits without one.
    const ids = [
      await openTask('review_request', { document: 'one' }),
      await openTask('review_request', { document: 'two' }),
      await openTask('review_request', { document: 'three' }),
    ];
    const listed = await tasks('reviewer', '?skill_id=review_request');
    expect(listed.status).toBe(200);
    const mine = listed.body.tasks.filter((task) => ids.includes(task.execution_id));
    expect(mine.map((task) => task.inputs.document)).toEqual(['one', 'two', 'three']);
    expect(mine[0]).toMatchObject({
      state: 'open',
      instructions: 'Read the document, then approve it or not.',
      output_schema: { required: ['approved'] },
    });
    expect((await tasks('stranger', '?skill_id=review_request')).body.tasks).toEqual([]);
    expect((await client.request('/tasks')).status).toBe(401);
    // Another execution runs meanwhile: the tasks hold no slot.
    expect((await client.run('announce', { text: 'meanwhile' })).final.status).toBe('completed');
    const described = await client.request<SkillDescriptor>('/skills/review_request');
    expect(described.body.capability_type).toBe('task');
    for (const id of ids) await post('lead', `/tasks/${id}/decline`, { reason: 'cleanup' });
  });

  it('refuses an output that breaks the schema (the task stays open), then completes once', async () => {
    const id = await openTask('review_request', { document: 'draft' });
    const bad = await post('reviewer', `/tasks/${id}/complete`, { output: { approved: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: '/output/approved' })]);
    expect((await client.status('review_request', id)).task?.state).toBe('open');
    // Two people hand it in at once: one result, the other 409.
    const both = await Promise.all([
      post('reviewer', `/tasks/${id}/complete`, { output: { approved: true, note: 'fine' } }),
      post('lead', `/tasks/${id}/complete`, { output: { approved: false } }),
    ]);
    expect(both.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = both.find((answer) => answer.status === 200)?.body;
    const loser = both.find((answer) => answer.status === 409)?.body;
    expect(loser?.error.code).toBe('EXECUTION_ENDED');
    const { final } = await client.waitForEnd('review_request', id);
    expect(final).toMatchObject({ status: 'completed', output: winner?.output, attempts: 1 });
    expect(final.worker_id).toBe(
      winner?.output && (winner.output as { note?: string }).note ? 'reviewer' : 'lead',
    );
    expect(
      (await tasks('reviewer', '?skill_id=review_request')).body.tasks.map((t) => t.execution_id),
    ).not.toContain(id);
  });

  it('lets a claim keep the task to one assignee, and ends a declined one as failed', async () => {
    const id = await openTask('review_request', { document: 'claimed' });
    const claimed = await post<TaskView>('lead', `/tasks/${id}/claim`);
    expect(claimed.body).toMatchObject({ state: 'claimed', claimed_by: 'lead' });
    expect((await post('reviewer', `/tasks/${id}/claim`)).body.error.code).toBe('TASK_CLAIMED');
    const taken = await post('reviewer', `/tasks/${id}/complete`, { output: { approved: true } });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'TASK_CLAIMED']);
    expect((await post('stranger', `/tasks/${id}/complete`, { output: { approved: true } })).status).toBe(
      404,
    );
    const declined = await post('lead', `/tasks/${id}/decline`, { reason: 'out of scope' });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({
      status: 'failed',
      error: { code: 'TASK_DECLINED', message: 'Declined by lead: out of scope', recoverable: false },
    });
  });

  it("decides a claim and another assignee's hand-in sent at once: exactly one wins, every time", async () => {
    const ROUNDS = 20;
    const ids = await Promise.all(
      Array.from({ length: ROUNDS }, (_, round) => openTask('review_request', { document: `race ${round}` })),
    );
    for (const id of ids) {
      const [claim, complete] = await Promise.all([
        post<TaskView>('lead', `/tasks/${id}/claim`),
        post('reviewer', `/tasks/${id}/complete`, { output: { approved: true } }),
      ]);
      const status = await client.status('review_request', id);
      // The claim first: the task stays the lead's. The hand-in first: it has ended.
      const expected =
        claim.status === 200
          ? [[200, null], [409, 'TASK_CLAIMED'], 'running', 'lead']
          : [[409, 'EXECUTION_ENDED'], [200, null], 'completed', undefined];
      expect(
        [
          [claim.status, claim.body.error?.code ?? null],
          [complete.status, complete.body.error?.code ?? null],
          status.status,
          status.status === 'running' ? status.task?.claimed_by : undefined,
        ],
        id,
      ).toEqual(expected);
    }
    for (const id of ids) await post('lead', `/tasks/${id}/decline`, { reason: 'cleanup' });
  });

  it('times a task out when nobody hands it in by its deadline', async () => {
    const id = await openTask('quick_task', {});
    const { final } = await client.waitForEnd('quick_task', id, 10_000);
    expect(final.status).toBe('timeout');
    expect(final.error?.code).toBe('EXECUTION_TIMEOUT');
    const late = await post('stranger', `/tasks/${id}/complete`, { output: { done: true } });
    expect(late.status).toBe(409);
  });

  it('hands a task in by a one-time link, without credentials, once', async () => {
    const id = await openTask('review_request', { document: 'by mail' });
    const link = await post<{ url: string; expires_at: string }>('reviewer', `/tasks/${id}/link`);
    expect(link.status).toBe(201);
    const path = new URL(link.body.url).pathname;
    expect((await client.request<TaskView>(path)).body.inputs).toEqual({ document: 'by mail' });
    const forged = `${path.slice(0, -4)}AAAA`;
    expect(
      (await client.request(`${forged}/complete`, { json: { output: { approved: true } } })).status,
    ).toBe(403);
    const done = await client.request<Execution>(`${path}/complete`, {
      json: { output: { approved: true } },
    });
    expect([done.status, done.body.status]).toEqual([200, 'completed']);
    const again = await client.request<Refusal>(`${path}/complete`, {
      json: { output: { approved: false } },
    });
    expect(again.status).toBe(409);
    expect((await client.status('review_request', id)).output).toEqual({ approved: true });
  });

  it("lets a link act for the caller who issued it: another's claim holds it back, and does not spend it", async () => {
    const id = await openTask('review_request', { document: 'claimed after the mail' });
    const reviewers = await post<{ url: string }>('reviewer', `/tasks/${id}/link`);
    expect(reviewers.status).toBe(201);
    expect((await post('lead', `/tasks/${id}/claim`)).status).toBe(200);
    // The lead holds the task now: the reviewer's link is refused as the reviewer would be, each time.
    const path = new URL(reviewers.body.url).pathname;
    for (const _ of [1, 2]) {
      const refused = await client.request<Refusal>(`${path}/complete`, {
        json: { output: { approved: true } },
      });
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'TASK_CLAIMED']);
    }
    const late = await post('reviewer', `/tasks/${id}/link`);
    expect([late.status, late.body.error?.code]).toEqual([409, 'TASK_CLAIMED']);
    // The holder's own link hands it in.
    const leads = await post<{ url: string }>('lead', `/tasks/${id}/link`);
    expect(leads.status).toBe(201);
    const done = await client.request<Execution>(`${new URL(leads.body.url).pathname}/complete`, {
      json: { output: { approved: false } },
    });
    expect([done.status, done.body.status, done.body.output]).toEqual([
      200,
      'completed',
      { approved: false },
    ]);
  });

  it('resumes a composite when its task step is handed in', async () => {
    const accepted = await client.invoke('publish_flow', { text: 'the launch' });
    const parent = String(accepted.body.execution_id);
    let step = '';
    await expect
      .poll(async () => {
        const listed = await tasks('reviewer', '?skill_id=review_request');
        step = listed.body.tasks.find((task) => task.inputs.document === 'the launch')?.execution_id ?? '';
        return step;
      })
      .not.toBe('');
    expect((await client.status('publish_flow', parent)).status).toBe('running');
    await post('reviewer', `/tasks/${step}/complete`, { output: { approved: true } });
    const { final } = await client.waitForEnd('publish_flow', parent);
    expect(final.output).toEqual({ approved: true, announcement: 'Published: the launch' });
    expect(final.steps?.map(({ step: name, status }) => [name, status])).toEqual([
      ['review', 'completed'],
      ['announce', 'completed'],
    ]);
  });

  it('cancels an open task: it leaves the list and cannot be handed in', async () => {
    const id = await openTask('review_request', { document: 'never mind' });
    expect((await client.cancel('review_request', id)).body.status).toBe('canceled');
    expect((await tasks('reviewer')).body.tasks.map((task) => task.execution_id)).not.toContain(id);
    expect((await post('reviewer', `/tasks/${id}/complete`, { output: { approved: true } })).status).toBe(
      409,
    );
  });
});
